//! The C types device code uses, and how each maps to MLIR.
//!
//! Values: bool is `i1`, integers `iN` (signless; signedness stays in [`Ty`] and picks the op),
//! floats `f32`/`f64`. A pointer is a pair (base `memref<?xT, space>`, element offset `index`):
//! C pointer arithmetic moves the offset and never needs a dynamic-offset memref cast, which
//! upstream MLIR cannot lower to SPIR-V.

use melior::ir::attribute::IntegerAttribute;
use melior::ir::r#type::{IntegerType, MemRefType};
use melior::ir::{Attribute, Type};
use melior::Context;

use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result, SourceLoc};
use clang_sys::*;

/// Memory spaces as numbered by MLIR's OpenCL storage-class map (memref → SPIR-V): 0 is
/// CrossWorkgroup, 3 Workgroup, 4 UniformConstant, 6 Function (1 would be Generic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    /// `__global__` memory: SPIR-V CrossWorkgroup.
    Global,
    /// `__shared__` memory: SPIR-V Workgroup.
    Workgroup,
    /// `__constant__` memory: SPIR-V UniformConstant.
    Constant,
    /// A function's own memory (address-taken locals, local arrays): SPIR-V Function.
    Function,
}

impl AddrSpace {
    pub fn memref_number(self) -> i64 {
        match self {
            AddrSpace::Global => 0,
            AddrSpace::Workgroup => 3,
            AddrSpace::Constant => 4,
            AddrSpace::Function => 6,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    Void,
    Bool,
    Int { bits: u32, signed: bool },
    Float { bits: u32 },
    Pointer { pointee: Box<Ty>, space: AddrSpace },
    Array { element: Box<Ty>, len: u64 },
}

impl Ty {
    pub const INT: Ty = Ty::Int {
        bits: 32,
        signed: true,
    };
    pub const UINT: Ty = Ty::Int {
        bits: 32,
        signed: false,
    };
    pub const LONG: Ty = Ty::Int {
        bits: 64,
        signed: true,
    };

    /// Maps a clang type; `loc` names the construct in the error for types not covered yet.
    pub fn from_clang(ty: CType, loc: &SourceLoc) -> Result<Ty> {
        let canonical = ty.canonical();
        let int = |signed: bool| -> Result<Ty> {
            let bytes = canonical.size_of().ok_or_else(|| {
                FrontendError::unsupported(loc.clone(), format!("type '{}'", ty.spelling()))
            })?;
            Ok(Ty::Int {
                bits: (bytes * 8) as u32,
                signed,
            })
        };
        match canonical.kind() {
            CXType_Void => Ok(Ty::Void),
            CXType_Bool => Ok(Ty::Bool),
            CXType_Char_S | CXType_SChar | CXType_Short | CXType_Int | CXType_Long
            | CXType_LongLong => int(true),
            CXType_Char_U | CXType_UChar | CXType_UShort | CXType_UInt | CXType_ULong
            | CXType_ULongLong => int(false),
            CXType_Float => Ok(Ty::Float { bits: 32 }),
            CXType_Double => Ok(Ty::Float { bits: 64 }),
            CXType_Pointer => {
                let pointee = Ty::from_clang(canonical.pointee(), loc)?;
                if matches!(pointee, Ty::Pointer { .. } | Ty::Array { .. } | Ty::Void) {
                    return Err(FrontendError::unsupported(
                        loc.clone(),
                        format!("pointer type '{}'", ty.spelling()),
                    ));
                }
                Ok(Ty::Pointer {
                    pointee: Box::new(pointee),
                    space: AddrSpace::Global,
                })
            }
            CXType_ConstantArray => Ok(Ty::Array {
                element: Box::new(Ty::from_clang(canonical.element(), loc)?),
                len: canonical.array_len().max(0) as u64,
            }),
            _ => Err(FrontendError::unsupported(
                loc.clone(),
                format!("type '{}'", ty.spelling()),
            )),
        }
    }

    pub fn of(cursor: &Cursor) -> Result<Ty> {
        Ty::from_clang(cursor.ty(), &cursor.location())
    }

    pub fn is_signed(&self) -> bool {
        matches!(self, Ty::Int { signed: true, .. })
    }
    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Int { .. } | Ty::Bool)
    }
    pub fn is_float(&self) -> bool {
        matches!(self, Ty::Float { .. })
    }
    pub fn is_pointer(&self) -> bool {
        matches!(self, Ty::Pointer { .. })
    }

    pub fn pointee(&self) -> Option<&Ty> {
        match self {
            Ty::Pointer { pointee, .. } => Some(pointee),
            _ => None,
        }
    }

    /// The MLIR type of a scalar SSA value of this type.
    pub fn scalar_mlir<'c>(&self, ctx: &'c Context) -> Type<'c> {
        match self {
            Ty::Bool => IntegerType::new(ctx, 1).into(),
            Ty::Int { bits, .. } => IntegerType::new(ctx, *bits).into(),
            Ty::Float { bits: 32 } => Type::float32(ctx),
            Ty::Float { .. } => Type::float64(ctx),
            other => unreachable!("{other:?} is not a scalar"),
        }
    }

    /// The MLIR type of this type stored in memory (bool is a byte there).
    pub fn memory_mlir<'c>(&self, ctx: &'c Context) -> Type<'c> {
        match self {
            Ty::Bool => IntegerType::new(ctx, 8).into(),
            other => other.scalar_mlir(ctx),
        }
    }

    /// The base memref of a pointer to this type in `space`.
    pub fn pointer_base_mlir<'c>(&self, ctx: &'c Context, space: AddrSpace) -> Type<'c> {
        MemRefType::new(
            self.memory_mlir(ctx),
            &[i64::MIN],
            None,
            // Global memory is the default space, printed without a number.
            (space != AddrSpace::Global).then(|| memory_space_attr(ctx, space)),
        )
        .into()
    }

    /// The MLIR types one SSA value of this type is made of (a pointer is two).
    pub fn value_mlir<'c>(&self, ctx: &'c Context) -> Vec<Type<'c>> {
        match self {
            Ty::Void => vec![],
            Ty::Pointer { pointee, space } => {
                vec![pointee.pointer_base_mlir(ctx, *space), Type::index(ctx)]
            }
            Ty::Array { .. } => unreachable!("arrays are not values"),
            scalar => vec![scalar.scalar_mlir(ctx)],
        }
    }
}

/// An attribute for a memref memory space.
pub fn memory_space_attr(ctx: &Context, space: AddrSpace) -> Attribute<'_> {
    IntegerAttribute::new(IntegerType::new(ctx, 64).into(), space.memref_number()).into()
}
