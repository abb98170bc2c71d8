//! AST → MLIR. Locals are SSA values, control flow is structured (scf), jumps are flags.
mod analysis;
mod builder;
mod builtins;
mod expr;
mod function;
mod math;
mod module;
mod objects;
mod stmt;
mod warp;

pub use module::{is_kernel, ModuleCodegen};
