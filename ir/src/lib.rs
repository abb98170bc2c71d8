//! What hipmlir's MLIR-building crates share: the one op-builder ([`OpBuilder`]) that the
//! frontend, the outliner and the passes insert operations with, the rewrite driver every pass
//! runs on ([`rewrite`]), the source position of an operation's location ([`source_location`]),
//! and attributes built typed (bytes, and the gpu and arith enum attributes MLIR's C API has no
//! constructor for).

mod attributes;
mod builder;
mod location;
pub mod rewrite;

pub use attributes::{
    arith_fastmath_contract, arith_no_signed_wrap, dense_bytes, dense_bytes_attribute,
    GpuDimension, LoopUnroll, ReduceOperation, ShuffleMode, LOOP_ANNOTATION_ATTRIBUTE,
};
pub use builder::{results, BuildError, OpBuilder, Value};
pub use location::{source_location, SourceLoc};
