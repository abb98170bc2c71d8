//! What hipmlir's MLIR-building crates share: the one op-builder ([`OpBuilder`]) that the
//! frontend, the outliner and the passes insert operations with, the source position of an
//! operation's location ([`source_location`]), and attributes built from bytes.

mod attributes;
mod builder;
mod location;

pub use attributes::dense_bytes_attribute;
pub use builder::{BuildError, OpBuilder, Value};
pub use location::{source_location, SourceLoc};
