//! Device code in the user's headers, kept from the host compiler.
//!
//! The host compile must not see kernel and device-function bodies, wherever they are written:
//! real programs keep them in headers (`#include "kernels.h"`). Each user header the frontend
//! edited is given to the host compiler as an edited copy in an overlay folder, starting with
//! `#line 1 "<original>"` so that diagnostics and `__FILE__` name the original. The `#include`
//! lines that lead to a copy, in the main file and in every header on the way, name the copy by
//! its absolute path; in a copied header every other include it resolves names the original by
//! its absolute path, so that includes relative to the header's folder still find their files.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use hipmlir_frontend::{apply_edits, text_at_same_offsets, SourceEdit};

use super::cxx::{copy_naming, escape_c};
use crate::error::{Error, Result};

/// The main file's host text, with the copies it needs written under `overlay_dir`.
pub fn host_text(
    main: &Path,
    main_bytes: &[u8],
    edits: &[SourceEdit],
    search_dirs: &[PathBuf],
    overlay_dir: &Path,
) -> Result<Vec<u8>> {
    let main = canonical(main);
    let mut by_file: HashMap<PathBuf, Vec<SourceEdit>> = HashMap::new();
    for e in edits {
        by_file
            .entry(canonical(&e.file))
            .or_default()
            .push(e.clone());
    }
    let main_edits = by_file.remove(&main).unwrap_or_default();
    if by_file.is_empty() {
        return Ok(apply_edits(main_bytes, &main_edits));
    }
    let mut graph = IncludeGraph {
        main: &main,
        search_dirs,
        includes: HashMap::new(),
        texts: HashMap::new(),
    };
    graph.scan(&main, main_bytes);
    let mut copied = HashSet::new();
    graph.mark_copies(&main, &by_file, &mut HashSet::new(), &mut copied);
    let copy_path = |file: &Path| overlay_dir.join(file.strip_prefix("/").unwrap_or(file));

    for file in &copied {
        // Read by the include scan, which every copied file was reached by.
        let bytes = graph
            .texts
            .get(file)
            .ok_or_else(|| Error::read(file, not_read()))?;
        let mut file_edits = by_file.get(file).cloned().unwrap_or_default();
        for inc in &graph.includes[file] {
            let target = if copied.contains(&inc.target) {
                copy_path(&inc.target)
            } else {
                inc.target.clone()
            };
            file_edits.push(inc.naming(file, &target));
        }
        let text = copy_naming(
            &file.display().to_string(),
            &apply_edits(bytes, &file_edits),
        );
        let path = copy_path(file);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::create(dir, e))?;
        }
        std::fs::write(&path, text).map_err(|e| Error::write(&path, e))?;
    }
    let mut main_edits = main_edits;
    for inc in graph.includes.get(&main).into_iter().flatten() {
        if copied.contains(&inc.target) {
            main_edits.push(inc.naming(&main, &copy_path(&inc.target)));
        }
    }
    Ok(apply_edits(main_bytes, &main_edits))
}

/// An `#include` line's file name (with its quotes or brackets) at `start..end`, and the file
/// it names.
struct Include {
    start: usize,
    end: usize,
    target: PathBuf,
}

impl Include {
    fn naming(&self, file: &Path, target: &Path) -> SourceEdit {
        SourceEdit {
            file: file.to_path_buf(),
            start: self.start,
            end: self.end,
            replacement: format!("\"{}\"", escape_c(&target.display().to_string())),
        }
    }
}

/// The user's files reachable from the main file through includes that resolve to the source's
/// or the user's include folders (system and hipmlir headers are not followed).
struct IncludeGraph<'a> {
    main: &'a Path,
    search_dirs: &'a [PathBuf],
    includes: HashMap<PathBuf, Vec<Include>>,
    /// The contents of the headers scanned (not the main file's, which the caller has).
    texts: HashMap<PathBuf, Vec<u8>>,
}

impl IncludeGraph<'_> {
    fn scan(&mut self, file: &Path, bytes: &[u8]) {
        if self.includes.contains_key(file) {
            return;
        }
        let found: Vec<Include> = include_lines(bytes)
            .into_iter()
            .filter_map(|(start, end, name, quoted)| {
                let own_dir = file.parent().filter(|_| quoted);
                own_dir
                    .into_iter()
                    .chain(self.search_dirs.iter().map(PathBuf::as_path))
                    .map(|dir| dir.join(&name))
                    .find(|p| p.is_file())
                    .map(|p| Include {
                        start,
                        end,
                        target: canonical(&p),
                    })
            })
            .collect();
        let targets: Vec<PathBuf> = found.iter().map(|i| i.target.clone()).collect();
        self.includes.insert(file.to_path_buf(), found);
        for target in targets {
            if self.includes.contains_key(&target) {
                continue;
            }
            if let Ok(bytes) = std::fs::read(&target) {
                self.scan(&target, &bytes);
                self.texts.insert(target, bytes);
            }
        }
    }

    /// Marks the files that need a copy: those edited, and those that include one that needs a
    /// copy. Returns whether `file` needs one.
    fn mark_copies(
        &self,
        file: &Path,
        edited: &HashMap<PathBuf, Vec<SourceEdit>>,
        visiting: &mut HashSet<PathBuf>,
        copied: &mut HashSet<PathBuf>,
    ) -> bool {
        if copied.contains(file) {
            return true;
        }
        if !visiting.insert(file.to_path_buf()) {
            return false;
        }
        let mut needs = edited.contains_key(file);
        for inc in self.includes.get(file).into_iter().flatten() {
            needs |= self.mark_copies(&inc.target, edited, visiting, copied);
        }
        if needs && file != self.main {
            copied.insert(file.to_path_buf());
        }
        needs
    }
}

/// `#include "name"` and `#include <name>` lines: the name's byte range (quotes or brackets
/// included), the name, and whether it was quoted. Includes computed by macros are left out.
fn include_lines(bytes: &[u8]) -> Vec<(usize, usize, String, bool)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in bytes.split(|b| *b == b'\n') {
        let at = line_start;
        line_start += line.len() + 1;
        // Same-length text: offsets in it are offsets in the line.
        let text = text_at_same_offsets(line);
        let trimmed = text.trim_start();
        let Some(rest) = trimmed.strip_prefix('#') else {
            continue;
        };
        let rest_trimmed = rest.trim_start();
        let Some(after) = rest_trimmed.strip_prefix("include") else {
            continue;
        };
        let after_trimmed = after.trim_start();
        let (open, close) = match after_trimmed.chars().next() {
            Some('"') => ('"', '"'),
            Some('<') => ('<', '>'),
            _ => continue,
        };
        let name_at = text.len() - after_trimmed.len();
        let Some(len) = after_trimmed[1..].find(close) else {
            continue;
        };
        let name = after_trimmed[1..1 + len].to_string();
        out.push((at + name_at, at + name_at + len + 2, name, open == '"'));
    }
    out
}

fn not_read() -> std::io::Error {
    std::io::Error::other("not read by the include scan")
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}
