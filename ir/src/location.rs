//! Source positions read from MLIR locations through MLIR's C API (never from printed text).

use std::fmt;
use std::path::Path;

use melior::ir::Location;
use mlir_sys::MlirLocation;

/// A position in a source file; line and column are 1-based, 0 when unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl SourceLoc {
    pub fn file_only(path: &Path) -> SourceLoc {
        SourceLoc {
            file: path.display().to_string(),
            line: 0,
            column: 0,
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.file),
            (l, 0) => write!(f, "{}:{l}", self.file),
            (l, c) => write!(f, "{}:{l}:{c}", self.file),
        }
    }
}

/// The first file position in `loc` (an inlined op's call-site location names the callee's
/// line first), None for a location that holds none.
pub fn source_location(loc: Location) -> Option<SourceLoc> {
    // SAFETY: queries on a live location and the locations it is made of.
    unsafe { first_file_location(loc.to_raw()) }
}

/// [`source_location`] of a raw location.
unsafe fn first_file_location(loc: MlirLocation) -> Option<SourceLoc> {
    use mlir_sys::*;
    if mlirLocationIsAFileLineColRange(loc) {
        let file = melior::StringRef::from_raw(mlirIdentifierStr(
            mlirLocationFileLineColRangeGetFilename(loc),
        ));
        return Some(SourceLoc {
            file: file.as_str().ok()?.to_string(),
            line: u32::try_from(mlirLocationFileLineColRangeGetStartLine(loc)).unwrap_or(0),
            column: u32::try_from(mlirLocationFileLineColRangeGetStartColumn(loc)).unwrap_or(0),
        });
    }
    if mlirLocationIsACallSite(loc) {
        return first_file_location(mlirLocationCallSiteGetCallee(loc))
            .or_else(|| first_file_location(mlirLocationCallSiteGetCaller(loc)));
    }
    if mlirLocationIsAName(loc) {
        return first_file_location(mlirLocationNameGetChildLoc(loc));
    }
    if mlirLocationIsAFused(loc) {
        let n = mlirLocationFusedGetNumLocations(loc) as usize;
        let mut parts = vec![mlirLocationUnknownGet(mlirLocationGetContext(loc)); n];
        mlirLocationFusedGetLocations(loc, parts.as_mut_ptr());
        return parts.into_iter().find_map(|l| first_file_location(l));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::Context;

    #[test]
    fn reads_file_call_site_and_fused_locations() {
        let ctx = Context::new();
        let file = Location::new(&ctx, "k.hip", 3, 5);
        let at = |loc| source_location(loc).map(|l: SourceLoc| l.to_string());
        assert_eq!(at(file).as_deref(), Some("k.hip:3:5"));
        let caller = Location::new(&ctx, "main.hip", 9, 1);
        assert_eq!(
            at(Location::call_site(file, caller)).as_deref(),
            Some("k.hip:3:5")
        );
        let fused = Location::fused(
            &ctx,
            &[Location::unknown(&ctx), caller],
            Attribute::unit(&ctx),
        );
        assert_eq!(at(fused).as_deref(), Some("main.hip:9:1"));
        assert_eq!(at(Location::unknown(&ctx)), None);
    }

    use melior::ir::Attribute;
}
