//! One LLVM memory operation being lowered to SPIR-V (`pointers`, `atomics`): the operation,
//! where its replacement is built, and what its lowering reads from it.

use melior::ir::attribute::{IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, OperationRef, Type, Value, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::address_space_map::spirv::GENERIC;
use crate::builder::Rewriter;
use crate::layout::size_and_align;
use crate::spirv::builder::Access;
use crate::spirv::ir::Scope;
use crate::spirv::types::address_space;
use crate::spirv::Cast;
use crate::LowerError;

/// One operation being lowered, with what its lowering needs.
pub(crate) struct Lowering<'c, 'a> {
    pub ctx: &'c Context,
    pub op: OperationRef<'c, 'a>,
    pub rw: Rewriter<'c>,
    /// The inferred space of an access's generic pointer.
    pub known_space: Option<u32>,
    pub native_float_atomics: bool,
}

impl<'c> Lowering<'c, '_> {
    pub fn error(&self, message: impl std::fmt::Display) -> LowerError {
        self.rw.error(message)
    }

    pub fn operand(&self, i: usize) -> Result<Value<'c, '_>, LowerError> {
        self.op.operand(i).map_err(|e| self.error(e))
    }

    pub fn result_type(&self) -> Result<Type<'c>, LowerError> {
        Ok(self.op.result(0).map_err(|e| self.error(e))?.r#type())
    }

    /// The pointer an access uses: cast from generic to its inferred space when there is one.
    pub fn access_pointer(&self, i: usize) -> Result<(MlirValue, u32), LowerError> {
        let p = self.operand(i)?;
        let space = address_space(p.r#type());
        match self.known_space {
            Some(s) if space == GENERIC && s != GENERIC => {
                let to = self.rw.byte_ptr(s)?;
                let specific = self.rw.convert(Cast::GenericCastToPtr, p.to_raw(), to)?;
                Ok((specific, s))
            }
            _ => Ok((p.to_raw(), space)),
        }
    }

    pub fn type_attribute(&self, name: &str) -> Result<Type<'c>, LowerError> {
        type_attribute(&self.op, name).map_err(|e| self.error(e))
    }

    pub fn attribute(&self, name: &str) -> Result<Attribute<'c>, LowerError> {
        self.op
            .attribute(name)
            .map_err(|e| self.error(format!("{name}: {e}")))
    }

    /// The SPIR-V memory access of an `llvm.load`/`llvm.store` of a `ty`: `Volatile` where it
    /// is volatile (`volatile_`), `Aligned` where its `alignment` is below the type's own.
    pub fn memory_access(&self, ty: Type) -> Access {
        let alignment = self
            .op
            .attribute("alignment")
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .and_then(|a| u32::try_from(a.value()).ok());
        let natural = size_and_align(ty).map(|(_, align)| align);
        Access {
            volatile: self.op.attribute("volatile_").is_ok(),
            aligned: alignment.filter(|a| natural.is_some_and(|n| u64::from(*a) < n)),
        }
    }
}

/// The SPIR-V memory scope of an LLVM sync scope ("" is the whole system).
pub(crate) fn sync_scope(l: &Lowering) -> Result<Scope, LowerError> {
    let scope =
        l.op.attribute("syncscope")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(|s| s.value().to_string())
            .unwrap_or_default();
    Ok(match scope.as_str() {
        "wavefront" => Scope::Subgroup,
        "workgroup" => Scope::Workgroup,
        "agent" => Scope::Device,
        "" => Scope::CrossDevice,
        other => return Err(l.error(format!("unknown sync scope {other}"))),
    })
}

/// The type a type attribute of `op` holds.
pub(crate) fn type_attribute<'c>(
    op: &OperationRef<'c, '_>,
    name: &str,
) -> Result<Type<'c>, String> {
    let a = op.attribute(name).map_err(|e| format!("{name}: {e}"))?;
    Ok(TypeAttribute::try_from(a)
        .map_err(|e| e.to_string())?
        .value())
}
