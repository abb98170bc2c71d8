//! A program (`hiprtcProgram`): its source, the headers given with it by name, its name
//! expressions, and what its compile gave (code, relocatable device code, lowered names, log).

use std::ffi::{CStr, CString};
use std::path::{Component, Path};

use crate::cache::{self, Entry};
use crate::compile::{self, Job};
use crate::result::HiprtcResult;
use crate::{compile_thread, options};

/// The name of a program created without one.
const DEFAULT_NAME: &str = "default_program";

pub struct Program {
    /// The source's file name: the program's name without folders.
    name: String,
    source: Vec<u8>,
    headers: Vec<(String, Vec<u8>)>,
    /// In the order added, each once.
    name_expressions: Vec<String>,
    state: State,
    log: CString,
    /// Every successful compile's results: the names `hiprtcGetLoweredName` gave out stay
    /// valid until the program is destroyed, also after it is compiled again.
    compiled: Vec<Compiled>,
}

enum State {
    Created,
    Failed,
    /// `compiled.last()` holds the results.
    Compiled,
}

struct Compiled {
    code: Option<Vec<u8>>,
    bitcode: Option<Vec<u8>>,
    /// (the expression as looked up, its symbol).
    lowered: Vec<(String, CString)>,
}

/// How a name expression is looked up: without spaces and a leading `&` (`&k<float>` and
/// `k< float >` name the same kernel), as ROCm's hiprtc reads them.
fn lookup_form(expression: &str) -> String {
    let text: String = expression.chars().filter(|c| !c.is_whitespace()).collect();
    text.strip_prefix('&').unwrap_or(&text).to_string()
}

impl Program {
    /// A program of `source`, named `name`, with `headers` (include name, text). A header's
    /// name must be a relative path inside the program's folder (`util.h`, `detail/x.h`).
    pub fn new(
        source: &[u8],
        name: Option<&str>,
        headers: Vec<(String, Vec<u8>)>,
    ) -> Result<Program, HiprtcResult> {
        for (name, _) in &headers {
            let path = Path::new(name);
            let inside = path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
            if name.is_empty() || !inside || path.file_name().is_none() {
                return Err(HiprtcResult::InvalidInput);
            }
        }
        let name = name
            .and_then(|n| Path::new(n).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| DEFAULT_NAME.to_string());
        Ok(Program {
            name,
            source: source.to_vec(),
            headers,
            name_expressions: Vec::new(),
            state: State::Created,
            log: CString::default(),
            compiled: Vec::new(),
        })
    }

    pub fn add_name_expression(&mut self, expression: &str) -> Result<(), HiprtcResult> {
        if !matches!(self.state, State::Created) {
            return Err(HiprtcResult::NoNameExpressionsAfterCompilation);
        }
        if expression.trim().is_empty() {
            return Err(HiprtcResult::InvalidInput);
        }
        if !self
            .name_expressions
            .iter()
            .any(|e| lookup_form(e) == lookup_form(expression))
        {
            self.name_expressions.push(expression.to_string());
        }
        Ok(())
    }

    /// Compiles the program with `options`; the outcome is also in the log.
    pub fn compile(&mut self, options: &[String]) -> HiprtcResult {
        match self.compiled_entry(options) {
            Ok(entry) => {
                self.log = c_text(&entry.log);
                let lowered = self
                    .name_expressions
                    .iter()
                    .zip(entry.lowered)
                    .map(|(e, symbol)| (lookup_form(e), c_text(&symbol)))
                    .collect();
                self.compiled.push(Compiled {
                    code: entry.code,
                    bitcode: entry.bitcode,
                    lowered,
                });
                self.state = State::Compiled;
                HiprtcResult::Success
            }
            Err((code, log)) => {
                self.log = c_text(&log);
                self.state = State::Failed;
                code
            }
        }
    }

    /// The compile's entry: from the cache, or compiled now (and cached).
    fn compiled_entry(&self, raw: &[String]) -> Result<Entry, compile::Failure> {
        let options = options::parse(raw)
            .map_err(|e| (HiprtcResult::InvalidOption, format!("hiprtc: {e}\n")))?;
        let include_dir = hipmlir_compiler::paths::include_dir().map_err(|e| {
            let e = e.to_string();
            let e = e.trim_start_matches("hipmlir: ");
            (HiprtcResult::InternalError, format!("hiprtc: {e}\n"))
        })?;
        let key = cache::key(&cache::Inputs {
            include_dir: &include_dir,
            name: &self.name,
            source: &self.source,
            headers: &self.headers,
            name_expressions: &self.name_expressions,
            options: raw,
        });
        if let Some(entry) = key.as_deref().and_then(cache::load) {
            if entry.lowered.len() == self.name_expressions.len() {
                return Ok(entry);
            }
        }
        let job = Job {
            include_dir: &include_dir,
            name: &self.name,
            source: &self.source,
            headers: &self.headers,
            name_expressions: &self.name_expressions,
            options: &options,
        };
        let (entry, cacheable) = compile_thread::run(|| compile::compile(&job))
            .map_err(|e| (HiprtcResult::InternalError, format!("hiprtc: error: {e}\n")))??;
        if let (Some(key), true) = (key, cacheable) {
            cache::store(&key, &entry);
        }
        Ok(entry)
    }

    pub fn log(&self) -> &CStr {
        &self.log
    }

    /// The last successful compile's results.
    fn results(&self) -> Option<&Compiled> {
        match self.state {
            State::Compiled => self.compiled.last(),
            State::Created | State::Failed => None,
        }
    }

    /// The code object (the offload bundle `hipModuleLoadData` loads); none before a successful
    /// compile, and none with `-fgpu-rdc` (whose device code is linked by `hiprtcLink*`).
    pub fn code(&self) -> Result<&[u8], HiprtcResult> {
        self.results()
            .and_then(|c| c.code.as_deref())
            .ok_or(HiprtcResult::InvalidProgram)
    }

    /// The relocatable device code of a compile with `-fgpu-rdc` (what `hiprtcLinkAddData`
    /// takes as `HIPRTC_JIT_INPUT_LLVM_BITCODE`); none otherwise.
    pub fn bitcode(&self) -> Result<&[u8], HiprtcResult> {
        self.results()
            .and_then(|c| c.bitcode.as_deref())
            .ok_or(HiprtcResult::InvalidProgram)
    }

    /// The symbol an added name expression names, valid until the program is destroyed.
    pub fn lowered_name(&self, expression: &str) -> Result<&CStr, HiprtcResult> {
        let results = self
            .results()
            .ok_or(HiprtcResult::NoLoweredNamesBeforeCompilation)?;
        let form = lookup_form(expression);
        results
            .lowered
            .iter()
            .find(|(e, _)| *e == form)
            .map(|(_, symbol)| symbol.as_c_str())
            .ok_or(HiprtcResult::NameExpressionNotValid)
    }
}

/// `text` as a C string (a NUL inside cannot come from the compiler; it is dropped).
fn c_text(text: &str) -> CString {
    CString::new(text.replace('\0', "")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_stay_inside_the_program_folder() {
        let header = |name: &str| vec![(name.to_string(), b"int x;".to_vec())];
        assert!(Program::new(b"", None, header("a.h")).is_ok());
        assert!(Program::new(b"", None, header("detail/a.h")).is_ok());
        for bad in ["", "/etc/passwd", "../a.h", "a/../../b.h", "."] {
            assert!(Program::new(b"", None, header(bad)).is_err(), "{bad}");
        }
        let p = Program::new(b"", Some("dir/k.cu"), Vec::new())
            .ok()
            .unwrap();
        assert_eq!(p.name, "k.cu");
        let p = Program::new(b"", Some(""), Vec::new()).ok().unwrap();
        assert_eq!(p.name, DEFAULT_NAME);
    }

    #[test]
    fn name_expressions_are_looked_up_as_hip_reads_them() {
        assert_eq!(lookup_form("&ns::k< float, 4 >"), "ns::k<float,4>");
        assert_eq!(lookup_form("k"), "k");
        let mut p = Program::new(b"", None, Vec::new()).ok().unwrap();
        p.add_name_expression("&k<int>").unwrap();
        p.add_name_expression("k< int >").unwrap();
        assert_eq!(p.name_expressions.len(), 1, "the same kernel once");
        assert_eq!(p.add_name_expression("  "), Err(HiprtcResult::InvalidInput));
        assert_eq!(
            p.lowered_name("k<int>").err(),
            Some(HiprtcResult::NoLoweredNamesBeforeCompilation)
        );
        assert_eq!(p.code().err(), Some(HiprtcResult::InvalidProgram));
    }
}
