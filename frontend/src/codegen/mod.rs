//! AST → MLIR. Locals are SSA values, control flow is structured (scf), jumps are flags.
mod analysis;
mod assignment;
mod builder;
mod builtins;
mod constant_addresses;
mod copy_construction;
mod expr;
mod function;
mod function_pointers;
mod globals;
#[cfg(test)]
mod header_check;
mod initializers;
mod lambda_objects;
mod lambdas;
mod launch_site;
mod lifetime;
mod math;
mod member_pointers;
mod memcheck;
mod module;
mod new_delete;
mod objects;
mod stmt;
mod traps;
mod virtual_bases;
mod virtuals;
mod warp;

pub use globals::{address_kernel, is_device_variable, is_managed, DeviceVariable};
pub use lambdas::closure_type_key;
pub use module::{is_kernel, ModuleCodegen, UndefinedSymbol, UnitFiles, UnitScope};
