//! Plain builds: kernels whose SPIR-V (`hipmlir k.hip --emit-spirv -o k.spv`) sits in a file,
//! found by name at run time.
//!
//! A program whose host code was compiled by a plain `g++` command registers no device image. When
//! a kernel is launched by a name no registered image has (`hipLaunchKernelByName`, the spelled
//! name of `hipLaunchKernelGGL`, a stub's dynamic symbol), the runtime searches, once per process:
//! - the entries of `HIPMLIR_MODULE_PATH` (colon-separated; a folder gives its `*.spv` files in
//!   name order, a file is taken as a module itself), or, if the variable is unset or empty,
//! - the executable's own folder (`/proc/self/exe`), for `*.spv` files.
//!
//! Each file is loaded as `hipModuleLoad` loads one (raw SPIR-V, or a hipmlir device image) and
//! registered like a compiled program's image. Raw SPIR-V has no metadata: the argument layouts
//! come from the SPIR-V (`spirv`), and each kernel's source name is the qualified name its
//! Itanium-mangled entry point encodes (`_Z10vector_addPKfS0_Pfi` → `vector_add`,
//! `_ZN2ns4tileEPfi` → `ns::tile`; template arguments dropped), so the registry's usual lookup
//! applies: the mangled name, the qualified name, or a unique `::`-suffix of it; several matches
//! are an ambiguity error naming them. The search happens under the registry's lock, so
//! concurrent first launches search once. What was searched is remembered for "kernel not found".

use std::path::{Path, PathBuf};

use hipmlir_device_image::DeviceImage;

use crate::registry::Registry;

/// The variable listing module folders and files.
pub const MODULE_PATH_VAR: &str = "HIPMLIR_MODULE_PATH";

/// One place searched and what it gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub path: PathBuf,
    /// "k.spv, m.spv", "no *.spv file", "not found", "not a module: ..." and the like.
    pub outcome: String,
}

/// The search made for modules (at most once per process).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleSearch {
    /// Whether the places came from `HIPMLIR_MODULE_PATH` (else the executable's folder).
    pub from_env: bool,
    pub places: Vec<Place>,
    /// How many modules were registered.
    pub loaded: usize,
}

impl ModuleSearch {
    /// For "kernel not found" messages: what was searched and how to point the runtime elsewhere.
    pub fn describe(&self) -> String {
        let places: Vec<String> = self
            .places
            .iter()
            .map(|p| format!("{} ({})", p.path.display(), p.outcome))
            .collect();
        let places = if places.is_empty() {
            "nothing (the executable's folder is unknown)".to_string()
        } else {
            places.join(", ")
        };
        if self.from_env {
            format!("searched {MODULE_PATH_VAR}: {places}")
        } else {
            format!(
                "searched the executable's folder for SPIR-V modules: {places}; set \
                 {MODULE_PATH_VAR} to the folders or .spv files holding the kernels (written by \
                 `hipmlir k.hip --emit-spirv -o k.spv`)"
            )
        }
    }
}

/// The places to search: the entries of `HIPMLIR_MODULE_PATH` (`env`) if it has any, else the
/// executable's folder. Returns whether they came from the variable.
pub fn places(env: Option<&str>, exe: Option<&Path>) -> (bool, Vec<PathBuf>) {
    let listed: Vec<PathBuf> = env
        .unwrap_or("")
        .split(':')
        .filter(|s| !s.trim().is_empty())
        .map(PathBuf::from)
        .collect();
    if !listed.is_empty() {
        return (true, listed);
    }
    let dir = exe.and_then(Path::parent).map(Path::to_path_buf);
    (false, dir.into_iter().collect())
}

/// The module files of one place: a file is itself, a folder gives its `*.spv` files in name
/// order. Errors say why the place gives nothing.
pub fn files_of(place: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(place).map_err(|e| short_io(&e))?;
    if !meta.is_dir() {
        return Ok(vec![place.to_path_buf()]);
    }
    let entries = std::fs::read_dir(place).map_err(|e| short_io(&e))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spv") && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

fn short_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "not found".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Reads one module file; raw SPIR-V kernels get the source names their mangled names encode.
pub fn load_file(path: &Path) -> Result<DeviceImage, String> {
    let bytes = crate::files::read_regular(path, crate::files::MAX_DEVICE_FILE)
        .map_err(|e| short_io(&e))?;
    let raw_spirv = crate::spirv::looks_like_spirv(&bytes);
    let mut image = crate::registry::image_from_bytes(&bytes)?;
    if raw_spirv {
        for k in &mut image.metadata.kernels {
            if let Some(name) = demangled_base_name(&k.name) {
                k.source_name = name;
            }
        }
    }
    Ok(image)
}

/// Searches for modules once per process and registers what it finds. Called with the registry
/// locked, when a lookup found nothing.
pub(crate) fn search_once(reg: &mut Registry) {
    if reg.module_search().is_some() {
        return;
    }
    let env = std::env::var(MODULE_PATH_VAR).ok();
    let exe = std::env::current_exe().ok();
    let (from_env, places) = places(env.as_deref(), exe.as_deref());
    let search = search(reg, from_env, &places);
    reg.set_module_search(search);
}

/// Loads the modules of `places` into `reg`; returns what was searched.
pub(crate) fn search(reg: &mut Registry, from_env: bool, places: &[PathBuf]) -> ModuleSearch {
    let mut out = ModuleSearch {
        from_env,
        ..ModuleSearch::default()
    };
    let mut seen: Vec<PathBuf> = Vec::new();
    for place in places {
        let outcome = match files_of(place) {
            Err(why) => why,
            Ok(files) if files.is_empty() => "no *.spv file".to_string(),
            Ok(files) => {
                let mut notes = Vec::new();
                for file in files {
                    let key = file.canonicalize().unwrap_or_else(|_| file.clone());
                    let name = file
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| file.display().to_string());
                    if seen.contains(&key) {
                        notes.push(format!("{name}: listed before"));
                        continue;
                    }
                    seen.push(key);
                    match load_file(&file) {
                        Ok(image) => {
                            crate::hlog!(
                                Info,
                                "loaded module {} ({} kernel(s)) for a kernel launched by name",
                                file.display(),
                                image.metadata.kernels.len()
                            );
                            reg.add_image_labeled(image, format!("module '{}'", file.display()));
                            out.loaded += 1;
                            notes.push(name);
                        }
                        Err(why) => {
                            crate::hlog!(
                                Warn,
                                "{MODULE_PATH_VAR}: skipping {}: {why}",
                                file.display()
                            );
                            notes.push(format!("{name}: not a module: {why}"));
                        }
                    }
                }
                notes.join(", ")
            }
        };
        crate::hlog!(Debug, "module search: {}: {outcome}", place.display());
        out.places.push(Place {
            path: place.clone(),
            outcome,
        });
    }
    out
}

// ---- names from Itanium-mangled symbols --------------------------------------------------------

/// The qualified name, without template arguments, that an Itanium-mangled function name
/// encodes: `_Z<len><name>...` → `name`, `_ZN<len><a><len><b>...E...` → `a::b` (with `L`
/// internal linkage, cv/ref qualifiers, `St` and ABI tags understood, the anonymous namespace
/// as `(anonymous namespace)`). `None` for anything else (special names, operators, local
/// names, a plain C name).
pub fn demangled_base_name(mangled: &str) -> Option<String> {
    let rest = mangled.strip_prefix("_Z")?;
    let mut p = Parser {
        s: rest.as_bytes(),
        i: 0,
    };
    p.eat(b'L');
    if !p.eat(b'N') {
        let name = p.source_name()?;
        p.abi_tags()?;
        return Some(name);
    }
    while matches!(p.peek(), Some(b'r' | b'V' | b'K')) {
        p.i += 1;
    }
    if matches!(p.peek(), Some(b'R' | b'O')) {
        p.i += 1;
    }
    let mut parts: Vec<String> = Vec::new();
    if p.s[p.i..].starts_with(b"St") {
        parts.push("std".into());
        p.i += 2;
    }
    loop {
        match p.peek()? {
            b'E' => break,
            b'0'..=b'9' => {
                parts.push(p.source_name()?);
                p.abi_tags()?;
            }
            b'L' => p.i += 1,
            b'I' if !parts.is_empty() => p.skip_template_args()?,
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("::"))
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.i += 1;
        }
        found
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let digits = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        if digits.is_empty() || digits.len() > 1 && digits.starts_with('0') {
            return None;
        }
        digits.parse().ok()
    }

    /// `<len><identifier>`.
    fn source_name(&mut self) -> Option<String> {
        let len = self.number()?;
        let end = self.i.checked_add(len)?;
        let id = self.s.get(self.i..end)?;
        if len == 0
            || !id
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$')
        {
            return None;
        }
        self.i = end;
        let id = std::str::from_utf8(id).ok()?;
        Some(if id.starts_with("_GLOBAL__N") {
            "(anonymous namespace)".into()
        } else {
            id.into()
        })
    }

    /// Any `B<source-name>` ABI tags.
    fn abi_tags(&mut self) -> Option<()> {
        while self.eat(b'B') {
            self.source_name()?;
        }
        Some(())
    }

    /// Skips `I<args>E`, nested brackets included.
    fn skip_template_args(&mut self) -> Option<()> {
        if !self.eat(b'I') {
            return None;
        }
        let mut depth = 1usize;
        while depth > 0 {
            match self.next()? {
                b'I' | b'J' | b'X' | b'N' | b'F' => depth += 1,
                b'E' => depth -= 1,
                b'L' => {
                    if self.s[self.i..].starts_with(b"_Z") {
                        // An external name: `L_Z<encoding>E`.
                        self.i += 2;
                        depth += 1;
                    } else {
                        // A literal: `L<type><value>E`.
                        match self.peek()? {
                            b'0'..=b'9' => {
                                self.source_name()?;
                            }
                            b'D' => self.i += 2,
                            _ => self.i += 1,
                        }
                        while self.next()? != b'E' {}
                    }
                }
                b'0'..=b'9' => {
                    self.i -= 1;
                    self.source_name()?;
                }
                b'S' => {
                    if self.peek()?.is_ascii_lowercase() {
                        self.i += 1;
                    } else {
                        while self.next()? != b'_' {}
                    }
                }
                b'T' => {
                    if matches!(self.peek()?, b'_' | b'0'..=b'9') {
                        while self.next()? != b'_' {}
                    } else {
                        self.i += 1;
                    }
                }
                b'D' => match self.next()? {
                    b'v' => {
                        self.number();
                        if !self.eat(b'_') {
                            return None;
                        }
                    }
                    b'T' | b't' => depth += 1,
                    _ => {}
                },
                b'A' => {
                    self.number();
                    if !self.eat(b'_') {
                        return None;
                    }
                }
                b'B' => {
                    self.source_name()?;
                }
                _ => {}
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::HipError;

    #[test]
    fn base_names_of_mangled_kernels() {
        for (mangled, name) in [
            ("_Z10vector_addPKfS0_Pfi", Some("vector_add")),
            ("_Z4pingv", Some("ping")),
            ("_Z5scaleIiLi4EEvPT_i", Some("scale")),
            ("_ZN2ns4tileEPfi", Some("ns::tile")),
            ("_ZN5outer5inner1kEv", Some("outer::inner::k")),
            ("_ZN2ns5scaleIfLj8EEEvPT_", Some("ns::scale")),
            ("_ZN2ns5scaleI4PairIiLb1EEEEvv", Some("ns::scale")),
            (
                "_ZN12_GLOBAL__N_14kernEPf",
                Some("(anonymous namespace)::kern"),
            ),
            ("_ZL6hiddenPi", Some("hidden")),
            ("_ZNSt3fooEv", Some("std::foo")),
            ("_Z3fooB5cxx11v", Some("foo")),
            ("_ZN1aB2t11bEv", Some("a::b")),
            ("_ZN2ns1kIDv4_fEEvv", Some("ns::k")),
            ("_ZN2ns1kIL_Z1gvEEEvv", Some("ns::k")),
            ("vector_add", None),
            ("_Z", None),
            ("_Z0v", None),
            ("_Z99abc", None),
            ("_Z04abcdv", None),
            ("_ZN2nsE", Some("ns")),
            ("_ZN2ns", None),
            ("_ZNE", None),
            ("_ZN2nsC1Ev", None),
            ("_ZNKSt3fooEv", Some("std::foo")),
            ("_ZN2ns1kIiEEv", Some("ns::k")),
            ("_ZN2ns1kIiEv", None),
        ] {
            assert_eq!(demangled_base_name(mangled).as_deref(), name, "{mangled}");
        }
    }

    #[test]
    fn places_come_from_the_variable_or_the_executable() {
        let exe = Path::new("/opt/app/bin/app");
        assert_eq!(
            places(None, Some(exe)),
            (false, vec![PathBuf::from("/opt/app/bin")])
        );
        assert_eq!(
            places(Some(""), Some(exe)),
            (false, vec![PathBuf::from("/opt/app/bin")])
        );
        assert_eq!(
            places(Some("/a::/b/k.spv:"), Some(exe)),
            (true, vec![PathBuf::from("/a"), PathBuf::from("/b/k.spv")])
        );
        assert_eq!(places(None, None), (false, vec![]));
    }

    // A minimal SPIR-V module with one kernel per name, each `void k(global float*, int)`.
    fn module(names: &[&str]) -> Vec<u8> {
        fn inst(w: &mut Vec<u32>, op: u32, ops: &[u32]) {
            w.push(((ops.len() as u32 + 1) << 16) | op);
            w.extend_from_slice(ops);
        }
        fn string(s: &str) -> Vec<u32> {
            let mut b = s.as_bytes().to_vec();
            b.push(0);
            while !b.len().is_multiple_of(4) {
                b.push(0);
            }
            b.chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
        let mut w = vec![0x0723_0203, 0x0001_0000, 0, 1000, 0];
        for (i, name) in names.iter().enumerate() {
            let mut ep = vec![6, 100 + i as u32];
            ep.extend(string(name));
            inst(&mut w, 15, &ep); // OpEntryPoint Kernel
        }
        inst(&mut w, 19, &[1]); // void
        inst(&mut w, 22, &[2, 32]); // float
        inst(&mut w, 21, &[3, 32, 0]); // int
        inst(&mut w, 32, &[4, 5, 2]); // CrossWorkgroup float*
        inst(&mut w, 33, &[5, 1, 4, 3]); // void(float*, int)
        for i in 0..names.len() as u32 {
            inst(&mut w, 54, &[1, 100 + i, 0, 5]); // OpFunction
            inst(&mut w, 55, &[4, 200 + 2 * i]);
            inst(&mut w, 55, &[3, 201 + 2 * i]);
            inst(&mut w, 248, &[300 + i]); // OpLabel
            inst(&mut w, 253, &[]); // OpReturn
            inst(&mut w, 56, &[]); // OpFunctionEnd
        }
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("hipmlir-module-path-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn search_registers_modules_found_by_name() {
        let dir = TempDir::new("search");
        let a = dir.0.join("a");
        let b = dir.0.join("b");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(
            a.join("vadd.spv"),
            module(&["_Z10vector_addPKfS0_Pfi", "_ZN2ns4tileEPfi"]),
        )
        .unwrap();
        std::fs::write(a.join("notes.txt"), b"not a module").unwrap();
        std::fs::write(
            b.join("over.spv"),
            module(&["_Z5twicePfi", "_Z5twicePii", "_ZN2ms4tileEPfi"]),
        )
        .unwrap();
        std::fs::write(b.join("junk.spv"), b"junk").unwrap();
        let lone = dir.0.join("lone.bin");
        std::fs::write(&lone, module(&["_Z4lonePfi"])).unwrap();

        let mut reg = Registry::new();
        let places = vec![
            a.clone(),
            dir.0.join("missing"),
            b.clone(),
            lone.clone(),
            a.join("vadd.spv"),
        ];
        let search = search(&mut reg, true, &places);
        assert_eq!(search.loaded, 3);
        assert_eq!(search.places[0].outcome, "vadd.spv");
        assert_eq!(search.places[1].outcome, "not found");
        assert!(
            search.places[2]
                .outcome
                .starts_with("junk.spv: not a module")
                && search.places[2].outcome.ends_with(", over.spv"),
            "{:?}",
            search.places[2]
        );
        assert_eq!(search.places[3].outcome, "lone.bin");
        assert_eq!(search.places[4].outcome, "vadd.spv: listed before");
        let text = search.describe();
        assert!(text.starts_with("searched HIPMLIR_MODULE_PATH: "), "{text}");
        assert!(text.contains("/missing (not found)"), "{text}");

        // By source name, by mangled name, qualified and by unique suffix.
        let k = reg.find("vector_add").unwrap();
        assert_eq!(k.info().name, "_Z10vector_addPKfS0_Pfi");
        assert_eq!(k.info().args_size, 16);
        assert_eq!(
            reg.find("_Z10vector_addPKfS0_Pfi")
                .unwrap()
                .info()
                .source_name,
            "vector_add"
        );
        assert_eq!(reg.find("lone").unwrap().info().name, "_Z4lonePfi");
        assert_eq!(reg.find("ns::tile").unwrap().info().name, "_ZN2ns4tileEPfi");
        assert_eq!(
            reg.find(":: ms::tile").unwrap().info().name,
            "_ZN2ms4tileEPfi"
        );
        // Several matches are an error naming them.
        for name in ["tile", "twice"] {
            let e = reg.find(name).unwrap_err();
            assert_eq!(e.code, HipError::InvalidDeviceFunction);
            assert!(e.message.contains("ambiguous"), "{}", e.message);
        }
        let e = reg.find("twice").unwrap_err();
        assert!(
            e.message.contains("_Z5twicePfi") && e.message.contains("_Z5twicePii"),
            "{}",
            e.message
        );
        assert!(reg.find("vector").is_err());
    }

    #[test]
    fn the_executable_folder_without_modules_is_described() {
        let dir = TempDir::new("empty");
        let mut reg = Registry::new();
        let search = search(&mut reg, false, std::slice::from_ref(&dir.0));
        assert_eq!(search.loaded, 0);
        reg.set_module_search(search);
        let e = reg.find("vector_add").unwrap_err();
        assert_eq!(e.code, HipError::InvalidDeviceFunction);
        for needle in [
            "'vector_add' not found",
            "searched the executable's folder",
            "(no *.spv file)",
            MODULE_PATH_VAR,
            "--emit-spirv",
        ] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
        assert!(
            e.message.contains(&dir.0.display().to_string()),
            "{}",
            e.message
        );
    }
}
