//! The C types device code uses, and how each maps to MLIR.
//!
//! Scalars are SSA values: bool is `i1`, integers `iN` (signless; signedness stays in [`Ty`] and
//! picks the op), floats `f32`/`f64`. Memory is C's: a pointer is an `!llvm.ptr` in the generic
//! address space (as HIP's unqualified pointers are flat), accessed with the LLVM dialect's
//! target-neutral `getelementptr`/`load`/`store`; dialect-passes lowers those to SPIR-V. In
//! memory, bool is a byte and records are `!llvm.struct` laid out exactly as clang lays them out.

use std::rc::Rc;

use melior::dialect::llvm;
use melior::ir::r#type::IntegerType;
use melior::ir::Type;
use melior::Context;

use crate::clang::CType;
use crate::error::{FrontendError, Result, SourceLoc};
use clang_sys::*;
use hipmlir_device_image::address_space;

/// Address spaces, target-neutral (device-image's `vocabulary::address_space`): the target
/// pipeline renumbers them for SPIR-V or NVPTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    /// A function's own memory (address-taken locals, local arrays and records).
    Private = address_space::PRIVATE as isize,
    /// Device memory: kernel pointer arguments, `__device__` variables.
    Global = address_space::GLOBAL as isize,
    /// `__constant__` memory.
    Constant = address_space::CONSTANT as isize,
    /// `__shared__` memory.
    Workgroup = address_space::SHARED as isize,
    /// Any of the above: what a C pointer is until proven otherwise.
    Generic = address_space::GENERIC as isize,
}

/// A struct, class or union, with clang's layout.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Record {
    pub name: String,
    /// A union: every field at offset 0, over storage of `size` bytes.
    pub is_union: bool,
    pub fields: Vec<Field>,
    /// The fields' declarations, in the same order (for default member initializers).
    pub field_decls: Vec<crate::clang::Cursor>,
    /// The bytes that runs of adjacent bit-fields occupy, each a byte-array member of the
    /// `!llvm.struct` (the bit-fields themselves are read and written in them).
    pub bit_storage: Vec<BitStorage>,
    pub size: u64,
    pub align: u64,
    /// Its `!llvm.struct` is packed: some member lies below the alignment LLVM gives its type
    /// (`__attribute__((packed))`, `#pragma pack`), so LLVM's own layout would move it.
    pub packed: bool,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    /// An anonymous struct or union, whose members are named as the enclosing record's.
    pub anonymous: bool,
    /// The byte offset (of a bit-field: of its storage run).
    pub offset: u64,
    /// The field's position in the `!llvm.struct` (padding members shift it); a bit-field's
    /// is its storage run's.
    pub llvm_index: i32,
    pub bit_field: Option<BitField>,
}

/// Where a bit-field's bits are, as clang's record layout places them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BitField {
    /// The first bit, counted from the start of the field's storage run (bit 0 is the least
    /// significant bit of its first byte, as on every target hipmlir compiles for).
    pub bit_offset: u64,
    pub width: u32,
}

/// A run of bytes holding adjacent bit-fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BitStorage {
    pub offset: u64,
    pub len: u64,
    pub llvm_index: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    Void,
    Bool,
    Int {
        bits: u32,
        signed: bool,
    },
    Float {
        bits: u32,
    },
    Pointer {
        pointee: Box<Ty>,
    },
    Array {
        element: Box<Ty>,
        len: u64,
    },
    Record(Rc<Record>),
    /// A pointer to a function (and a function designator, which is its address): in device
    /// code an integer naming an address-taken function of the module (see
    /// codegen/function_pointers.rs).
    FnPtr {
        params: Vec<Ty>,
        result: Box<Ty>,
    },
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
        let unsupported =
            || FrontendError::unsupported(loc.clone(), format!("type '{}'", ty.spelling()));
        let int = |signed: bool| -> Result<Ty> {
            let bytes = canonical.size_of().ok_or_else(unsupported)?;
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
            | CXType_ULongLong | CXType_Char16 | CXType_Char32 => int(false),
            CXType_WChar => int(true),
            CXType_Half | CXType_Float16 => Ok(Ty::Float { bits: 16 }),
            CXType_Float => Ok(Ty::Float { bits: 32 }),
            CXType_Double => Ok(Ty::Float { bits: 64 }),
            // Device code computes `long double` as `double` (clang's AMDGPU and SPIR-V targets
            // do; OpenCL has nothing wider).
            CXType_LongDouble if canonical.size_of() == Some(8) => Ok(Ty::Float { bits: 64 }),
            CXType_Enum => {
                // An enum is its underlying integer type.
                Ty::from_clang(canonical.declaration().enum_integer_type(), loc)
            }
            CXType_FunctionProto | CXType_FunctionNoProto => function_pointer(canonical, loc),
            CXType_Pointer if is_function_type(canonical.pointee()) => {
                function_pointer(canonical.pointee().canonical(), loc)
            }
            CXType_LValueReference | CXType_RValueReference
                if is_function_type(canonical.pointee()) =>
            {
                Err(FrontendError::unsupported(
                    loc.clone(),
                    format!("reference to a function ('{}')", ty.spelling()),
                ))
            }
            CXType_Pointer | CXType_LValueReference | CXType_RValueReference => {
                let pointee = canonical.pointee();
                // A pointer to a record only declared (`struct Impl;`, or an opaque handle such
                // as hipSurfaceObject_t) can be passed and compared, never dereferenced (clang
                // refuses that): it is a pointer to nothing in particular.
                let opaque = pointee.canonical().kind() == CXType_Record
                    && pointee.canonical().size_of().is_none();
                let pointee = if pointee.kind() == CXType_Void || opaque {
                    Ty::Void
                } else {
                    Ty::from_clang(pointee, loc)?
                };
                Ok(Ty::Pointer {
                    pointee: Box::new(pointee),
                })
            }
            // nullptr is a pointer to nothing in particular.
            CXType_NullPtr => Ok(Ty::Pointer {
                pointee: Box::new(Ty::Void),
            }),
            // `extern __shared__ float s[];`: an array of unknown length.
            CXType_IncompleteArray => Ok(Ty::Array {
                element: Box::new(Ty::from_clang(canonical.element(), loc)?),
                len: 0,
            }),
            CXType_ConstantArray => Ok(Ty::Array {
                element: Box::new(Ty::from_clang(canonical.element(), loc)?),
                len: canonical.array_len().max(0) as u64,
            }),
            CXType_Record => Ok(Ty::Record(Rc::new(record(canonical, loc)?))),
            CXType_MemberPointer if is_function_type(canonical.pointee()) => {
                Ok(Ty::member_function_pointer())
            }
            // A pointer to a data member is its offset (ptrdiff_t; -1 is null), as in the
            // Itanium C++ ABI.
            CXType_MemberPointer => Ok(Ty::LONG),
            _ => Err(unsupported()),
        }
    }

    /// A pointer to a member function, laid out as the Itanium C++ ABI lays it out: the function
    /// (here its id, see codegen/function_pointers.rs; a virtual function's is its dispatcher's)
    /// and the adjustment in bytes of `this`.
    pub fn member_function_pointer() -> Ty {
        let field = |name: &str, index: i32| Field {
            name: name.to_string(),
            ty: Ty::LONG,
            anonymous: false,
            offset: 8 * index as u64,
            llvm_index: index,
            bit_field: None,
        };
        Ty::Record(Rc::new(Record {
            name: MEMBER_FUNCTION_POINTER.to_string(),
            is_union: false,
            fields: vec![field("ptr", 0), field("adj", 1)],
            field_decls: Vec::new(),
            bit_storage: Vec::new(),
            size: 16,
            align: 8,
            packed: false,
        }))
    }

    pub fn of(cursor: &crate::clang::Cursor) -> Result<Ty> {
        if cursor.kind() == clang_sys::CXCursor_ParmDecl {
            return at(
                cursor,
                Ty::from_clang(cursor.parameter_type(), &SourceLoc::default()),
            );
        }
        // libclang types a use of an array parameter (and the implicit casts around it) as the
        // parameter was written; it holds the pointer the function received.
        let ty = cursor.ty();
        if matches!(
            ty.canonical().kind(),
            clang_sys::CXType_ConstantArray | clang_sys::CXType_IncompleteArray
        ) {
            if let Some(param) = cursor.without_implicit().referenced().filter(|d| {
                d.kind() == clang_sys::CXCursor_ParmDecl
                    && matches!(
                        d.ty().canonical().kind(),
                        clang_sys::CXType_ConstantArray | clang_sys::CXType_IncompleteArray
                    )
            }) {
                return at(
                    cursor,
                    Ty::from_clang(param.parameter_type(), &SourceLoc::default()),
                );
            }
            // An operator whose result has its pointer operand's type (`p + 4`, `p++`, `p += 4`,
            // `c ? p : q`, `(p)`, `x, p`) shows that operand's written array type too. Such an
            // operator never yields an array, except `*pa` of a pointer to an array.
            let deref = cursor.kind() == clang_sys::CXCursor_UnaryOperator
                && cursor.unary_operator() == clang_sys::CXUnaryOperator_Deref;
            if !deref
                && matches!(
                    cursor.kind(),
                    clang_sys::CXCursor_BinaryOperator
                        | clang_sys::CXCursor_CompoundAssignOperator
                        | clang_sys::CXCursor_UnaryOperator
                        | clang_sys::CXCursor_ConditionalOperator
                        | clang_sys::CXCursor_ParenExpr
                )
            {
                for child in cursor.children() {
                    let t = Ty::of(&child)?;
                    if t.is_pointer() {
                        return Ok(t);
                    }
                }
            }
            // Likewise an argument passed to an array parameter: the implicit conversion shows
            // the parameter's written type over the pointer it converts.
            if cursor.kind() == clang_sys::CXCursor_UnexposedExpr {
                if let [only] = cursor.children().as_slice() {
                    let inner = Ty::of(only)?;
                    if inner.is_pointer() {
                        return Ok(inner);
                    }
                }
            }
        }
        at(cursor, Ty::from_clang(ty, &SourceLoc::default()))
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
    /// Arrays and records live in memory; everything else can be an SSA value.
    pub fn is_aggregate(&self) -> bool {
        matches!(self, Ty::Array { .. } | Ty::Record(_))
    }

    pub fn pointee(&self) -> Option<&Ty> {
        match self {
            Ty::Pointer { pointee } => Some(pointee),
            _ => None,
        }
    }

    /// Size in bytes, as clang computes it for the device.
    pub fn size(&self) -> u64 {
        match self {
            Ty::Void => 1,
            Ty::Bool => 1,
            Ty::Int { bits, .. } | Ty::Float { bits } => (*bits / 8) as u64,
            Ty::Pointer { .. } | Ty::FnPtr { .. } => 8,
            Ty::Array { element, len } => element.size() * len,
            Ty::Record(r) => r.size,
        }
    }

    pub fn align(&self) -> u64 {
        match self {
            Ty::Array { element, .. } => element.align(),
            Ty::Record(r) => r.align,
            other => other.size().max(1),
        }
    }

    /// The MLIR type of an SSA value of this type.
    pub fn value_mlir<'c>(&self, ctx: &'c Context) -> Type<'c> {
        match self {
            Ty::Bool => IntegerType::new(ctx, 1).into(),
            other => other.memory_mlir(ctx),
        }
    }

    /// The MLIR type of this type in memory (bool is a byte there).
    pub fn memory_mlir<'c>(&self, ctx: &'c Context) -> Type<'c> {
        match self {
            Ty::Void => IntegerType::new(ctx, 8).into(),
            Ty::Bool => IntegerType::new(ctx, 8).into(),
            Ty::Int { bits, .. } => IntegerType::new(ctx, *bits).into(),
            Ty::Float { bits: 16 } => Type::float16(ctx),
            Ty::Float { bits: 32 } => Type::float32(ctx),
            Ty::Float { .. } => Type::float64(ctx),
            Ty::Pointer { .. } => pointer_type(ctx, AddrSpace::Generic),
            Ty::FnPtr { .. } => IntegerType::new(ctx, 64).into(),
            Ty::Array { element, len } => {
                llvm::r#type::array(element.memory_mlir(ctx), *len as u32)
            }
            // Storage the size of the union; members are reached at its start.
            Ty::Record(r) if r.is_union => {
                llvm::r#type::r#struct(ctx, &[padding(ctx, r.size)], false)
            }
            Ty::Record(r) => {
                let mut members = Vec::new();
                let mut end = 0;
                for (offset, size, ty) in r.llvm_members() {
                    if offset > end {
                        members.push(padding(ctx, offset - end));
                    }
                    members.push(ty.memory_mlir(ctx));
                    end = offset + size;
                }
                if r.size > end {
                    members.push(padding(ctx, r.size - end));
                }
                llvm::r#type::r#struct(ctx, &members, r.packed)
            }
        }
    }

    /// The alignment LLVM gives this type's `!llvm.struct` form (the data layouts of SPIR-V and
    /// NVPTX: a scalar's is its size; a packed struct's, and a union's byte storage, 1).
    fn llvm_align(&self) -> u64 {
        match self {
            Ty::Array { element, .. } => element.llvm_align(),
            Ty::Record(r) if r.is_union || r.packed => 1,
            Ty::Record(r) => r
                .llvm_members()
                .iter()
                .map(|(_, _, ty)| ty.llvm_align())
                .max()
                .unwrap_or(1),
            other => other.size().max(1).next_power_of_two(),
        }
    }
}

/// The name of [`Ty::member_function_pointer`]'s record (no C++ class can be spelled so).
const MEMBER_FUNCTION_POINTER: &str = "<pointer to member function>";

/// Whether a clang type is a pointer to member function.
pub fn is_member_function_pointer(ty: CType) -> bool {
    let ty = ty.canonical();
    ty.kind() == CXType_MemberPointer && is_function_type(ty.pointee())
}

/// Whether a clang type is a pointer to data member.
pub fn is_data_member_pointer(ty: CType) -> bool {
    let ty = ty.canonical();
    ty.kind() == CXType_MemberPointer && !is_function_type(ty.pointee())
}

/// Whether a clang type is a function type (what a function pointer points to).
pub fn is_function_type(ty: CType) -> bool {
    matches!(
        ty.canonical().kind(),
        CXType_FunctionProto | CXType_FunctionNoProto
    )
}

/// The function pointer type for function type `f`; variadic ones are not supported.
pub fn function_pointer(f: CType, loc: &SourceLoc) -> Result<Ty> {
    if f.is_variadic() {
        return Err(FrontendError::unsupported(
            loc.clone(),
            format!("pointer to a variadic function ('{}')", f.spelling()),
        ));
    }
    let params = f
        .function_args()
        .into_iter()
        .map(|p| Ty::from_clang(p, loc))
        .collect::<Result<Vec<_>>>()?;
    Ok(Ty::FnPtr {
        params,
        result: Box::new(Ty::from_clang(f.function_result(), loc)?),
    })
}

pub fn pointer_type(ctx: &Context, space: AddrSpace) -> Type<'_> {
    llvm::r#type::pointer(ctx, space as u32)
}

fn padding(ctx: &Context, bytes: u64) -> Type<'_> {
    llvm::r#type::array(IntegerType::new(ctx, 8).into(), bytes as u32)
}

/// An error about a cursor's type, placed at the cursor: its location is asked for only then
/// (libclang walks a whole left-nested operand chain to find where an expression begins).
fn at(cursor: &crate::clang::Cursor, ty: Result<Ty>) -> Result<Ty> {
    ty.map_err(|e| e.placed_at(|| cursor.location()))
}

/// Whether a field is the unnamed member holding an anonymous struct or union.
fn is_anonymous_member(f: &crate::clang::Cursor) -> bool {
    f.ty().declaration().is_anonymous_record()
}

impl Ty {
    /// The anonymous struct or union member of this record of type `ty`.
    pub fn anonymous_member(&self, ty: &Ty) -> Option<&Field> {
        let Ty::Record(r) = self else { return None };
        r.fields.iter().find(|f| f.anonymous && f.ty == *ty)
    }

    /// The fields from this record down to its member `name`: the member itself, or the
    /// anonymous structs and unions holding it, then it (C++ names their members as the
    /// enclosing class's).
    pub fn member_path(&self, name: &str) -> Option<Vec<(&Ty, &Field)>> {
        let Ty::Record(r) = self else { return None };
        if let Some(f) = r.fields.iter().find(|f| f.name == name && !f.anonymous) {
            return Some(vec![(self, f)]);
        }
        r.fields.iter().filter(|f| f.anonymous).find_map(|f| {
            let mut path = f.ty.member_path(name)?;
            path.insert(0, (self, f));
            Some(path)
        })
    }
}

impl Record {
    /// Whether a member's type wants more alignment than the record has (a packed record, or
    /// one under `#pragma pack`): its members are reached through pointers aligned only as
    /// the record is.
    pub fn is_underaligned(&self) -> bool {
        self.fields
            .iter()
            .any(|f| f.bit_field.is_none() && f.ty.align() > self.align)
    }

    /// Whether LLVM's layout of the `!llvm.struct` (members, explicit padding between them, in
    /// order) puts every member at clang's offset and ends at clang's size.
    fn llvm_layout_matches(&self) -> bool {
        let members = self.llvm_members();
        let align = members
            .iter()
            .map(|(_, _, ty)| ty.llvm_align())
            .max()
            .unwrap_or(1);
        members
            .iter()
            .all(|(offset, _, ty)| offset.is_multiple_of(ty.llvm_align()))
            && self.size.is_multiple_of(align)
    }

    /// The members of the `!llvm.struct`, padding aside, in offset order: (offset, size, type)
    /// of the fields that are not bit-fields and of the bit-fields' storage runs.
    pub fn llvm_members(&self) -> Vec<(u64, u64, Ty)> {
        let mut members: Vec<(u64, u64, Ty)> = self
            .fields
            .iter()
            .filter(|f| f.bit_field.is_none())
            .map(|f| (f.offset, f.ty.size(), f.ty.clone()))
            .chain(
                self.bit_storage
                    .iter()
                    .map(|s| (s.offset, s.len, s.bytes())),
            )
            .collect();
        members.sort_by_key(|(offset, _, _)| *offset);
        members
    }
}

impl BitStorage {
    /// Its type: bytes.
    pub fn bytes(&self) -> Ty {
        Ty::Array {
            element: Box::new(Ty::Int {
                bits: 8,
                signed: false,
            }),
            len: self.len,
        }
    }
}

/// The bit-field run being laid out: its first byte, its end, its member index.
struct Run {
    offset: u64,
    end: u64,
    llvm_index: i32,
}

thread_local! {
    /// The records whose fields are being laid out, innermost last (canonical declarations:
    /// closure types of one lambda in two instances of a template are spelled alike).
    static RECORDS_IN_PROGRESS: std::cell::RefCell<Vec<crate::clang::Cursor>> = const {
        std::cell::RefCell::new(Vec::new())
    };
}

/// Marks a record as being laid out while it lives.
struct InProgress;

impl InProgress {
    /// None if the record is already being laid out (met again through a member of its own).
    fn enter(key: crate::clang::Cursor) -> Option<InProgress> {
        RECORDS_IN_PROGRESS.with(|r| {
            let mut r = r.borrow_mut();
            if r.contains(&key) {
                return None;
            }
            r.push(key);
            Some(InProgress)
        })
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        RECORDS_IN_PROGRESS.with(|r| r.borrow_mut().pop());
    }
}

/// A record's fields with clang's offsets; the `!llvm.struct` mirrors them with explicit padding.
fn record(ty: CType, loc: &SourceLoc) -> Result<Record> {
    let (Some(size), Some(align)) = (ty.size_of(), ty.align_of()) else {
        return Err(FrontendError::unsupported(
            loc.clone(),
            format!("incomplete type '{}'", ty.spelling()),
        ));
    };
    let is_union = ty.declaration().kind() == CXCursor_UnionDecl;
    let name = ty.unqualified().spelling();
    // A record met again while its fields are laid out, through a pointer or a reference to it
    // among them (`Node* next`, or further down: `A` holding `B*` holding `A*`), is its size
    // and alignment without fields: an expression that reads through such a member has a type
    // of its own, made anew (with the fields), so the member's pointee is only named.
    let Some(_in_progress) = InProgress::enter(ty.canonical().declaration().canonical()) else {
        return Ok(Record {
            name,
            is_union,
            fields: Vec::new(),
            field_decls: Vec::new(),
            bit_storage: Vec::new(),
            size,
            align,
            packed: false,
        });
    };
    let mut fields = Vec::new();
    let mut field_decls = Vec::new();
    let mut bit_storage = Vec::new();
    let mut end = 0u64;
    let mut llvm_index = 0i32;
    let mut run: Option<Run> = None;
    let close = |run: &mut Option<Run>, storage: &mut Vec<BitStorage>, end: &mut u64| {
        if let Some(r) = run.take() {
            storage.push(BitStorage {
                offset: r.offset,
                len: r.end - r.offset,
                llvm_index: r.llvm_index,
            });
            *end = r.end;
        }
    };
    for f in ty.fields() {
        let width = f.bit_field_width();
        if is_union {
            // Every member starts at the union's single storage member, bit-fields at its
            // first bit.
            fields.push(Field {
                name: f.spelling(),
                ty: Ty::of(&f)?,
                anonymous: is_anonymous_member(&f),
                offset: 0,
                llvm_index: 0,
                bit_field: width.map(|width| BitField {
                    bit_offset: 0,
                    width,
                }),
            });
            field_decls.push(f);
            continue;
        }
        field_decls.push(f);
        let Some(bits) = f.field_offset_bits() else {
            return Err(FrontendError::unsupported(
                f.location(),
                "field without an offset",
            ));
        };
        let fty = Ty::of(&f)?;
        if width == Some(0) {
            // `T : 0;` only moves the next bit-field to a new unit: clang's offsets say where.
            fields.push(Field {
                name: f.spelling(),
                ty: fty,
                anonymous: false,
                offset: bits / 8,
                llvm_index: 0,
                bit_field: Some(BitField {
                    bit_offset: 0,
                    width: 0,
                }),
            });
            continue;
        }
        if let Some(width) = width {
            // A bit-field joins the run whose bytes it shares or follows, else starts one.
            let (first, last) = (bits / 8, (bits + u64::from(width)).div_ceil(8));
            if run.as_ref().is_none_or(|r| first > r.end) {
                close(&mut run, &mut bit_storage, &mut end);
                if first < end {
                    return Err(FrontendError::unsupported(
                        f.location(),
                        "overlapping fields",
                    ));
                }
                if first > end {
                    llvm_index += 1; // a padding member comes first
                }
                run = Some(Run {
                    offset: first,
                    end: first,
                    llvm_index,
                });
                llvm_index += 1;
            }
            let Some(r) = run.as_mut() else {
                return Err(FrontendError::unsupported(f.location(), "bit-field"));
            };
            r.end = r.end.max(last);
            fields.push(Field {
                name: f.spelling(),
                ty: fty,
                anonymous: false,
                offset: r.offset,
                llvm_index: r.llvm_index,
                bit_field: Some(BitField {
                    bit_offset: bits - 8 * r.offset,
                    width,
                }),
            });
            continue;
        }
        close(&mut run, &mut bit_storage, &mut end);
        if bits % 8 != 0 {
            return Err(FrontendError::unsupported(
                f.location(),
                "field at a bit offset",
            ));
        }
        let offset = bits / 8;
        if offset < end {
            return Err(FrontendError::unsupported(
                f.location(),
                "overlapping fields",
            ));
        }
        if offset > end {
            llvm_index += 1; // a padding member comes first
        }
        end = offset + fty.size();
        fields.push(Field {
            name: f.spelling(),
            ty: fty,
            anonymous: is_anonymous_member(&f),
            offset,
            llvm_index,
            bit_field: None,
        });
        llvm_index += 1;
    }
    close(&mut run, &mut bit_storage, &mut end);
    let mut record = Record {
        name,
        is_union,
        fields,
        field_decls,
        bit_storage,
        size,
        align,
        packed: false,
    };
    record.packed = !record.is_union && !record.llvm_layout_matches();
    Ok(record)
}

impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ty::Void => write!(f, "void"),
            Ty::Bool => write!(f, "bool"),
            Ty::Int { bits, signed } => {
                let name = match bits {
                    8 => "char",
                    16 => "short",
                    32 => "int",
                    _ => "long long",
                };
                if *signed {
                    write!(f, "{name}")
                } else {
                    write!(f, "unsigned {name}")
                }
            }
            Ty::Float { bits: 16 } => write!(f, "_Float16"),
            Ty::Float { bits: 32 } => write!(f, "float"),
            Ty::Float { .. } => write!(f, "double"),
            Ty::Pointer { pointee } => write!(f, "{pointee} *"),
            Ty::Array { element, len } => write!(f, "{element}[{len}]"),
            Ty::Record(r) => write!(f, "{}", r.name),
            Ty::FnPtr { params, result } => {
                let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
                write!(f, "{result} (*)({})", params.join(", "))
            }
        }
    }
}
