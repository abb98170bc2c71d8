//! SPIR-V types and attributes, typed: MLIR's C API has no constructors for them, so a small C++
//! shim (`cxx/spirv_ir.cpp`) builds them through MLIR's C++ API. Enum values are the SPIR-V
//! specification's numbers, as MLIR's SPIR-V enums are.

use melior::ir::{Attribute, AttributeLike, Type, TypeLike};
use melior::{Context, StringRef};
use mlir_sys::{MlirAttribute, MlirContext, MlirStringRef, MlirType};

extern "C" {
    fn hipmlirSpirvPointerTypeGet(pointee: MlirType, storage_class: u32) -> MlirType;
    fn hipmlirSpirvPointerTypeGetStorageClass(t: MlirType) -> i64;
    fn hipmlirSpirvArrayTypeGet(element: MlirType, count: u32) -> MlirType;
    fn hipmlirSpirvStructTypeGet(
        ctx: MlirContext,
        count: isize,
        members: *const MlirType,
        offsets: *const u32,
    ) -> MlirType;
    fn hipmlirTypeIsALLVMArrayType(t: MlirType) -> bool;
    fn hipmlirLLVMArrayTypeGetNumElements(t: MlirType) -> u64;
    fn hipmlirSpirvScopeAttrGet(ctx: MlirContext, scope: u32) -> MlirAttribute;
    fn hipmlirSpirvMemorySemanticsAttrGet(ctx: MlirContext, bits: u32) -> MlirAttribute;
    fn hipmlirSpirvStorageClassAttrGet(ctx: MlirContext, storage_class: u32) -> MlirAttribute;
    fn hipmlirSpirvMemoryAccessAttrGet(ctx: MlirContext, bits: u32) -> MlirAttribute;
    fn hipmlirSpirvFunctionControlAttrGet(ctx: MlirContext, bits: u32) -> MlirAttribute;
    fn hipmlirSpirvExecutionModeAttrGet(ctx: MlirContext, mode: u32) -> MlirAttribute;
    fn hipmlirSpirvLinkageAttributesGet(
        ctx: MlirContext,
        name: MlirStringRef,
        linkage_type: u32,
    ) -> MlirAttribute;
    fn hipmlirSpirvEntryPointAbiGet(ctx: MlirContext, subgroup_size: i32) -> MlirAttribute;
    fn hipmlirSpirvVceAttrAdd(
        vce: MlirAttribute,
        capability: i64,
        extension: MlirStringRef,
    ) -> MlirAttribute;
}

/// SPIR-V storage classes hipmlir's pointers live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageClass {
    UniformConstant = 0,
    Workgroup = 4,
    CrossWorkgroup = 5,
    Function = 7,
    Generic = 8,
}

impl StorageClass {
    const ALL: [StorageClass; 5] = [
        StorageClass::UniformConstant,
        StorageClass::Workgroup,
        StorageClass::CrossWorkgroup,
        StorageClass::Function,
        StorageClass::Generic,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    CrossDevice = 0,
    Device = 1,
    Workgroup = 2,
    Subgroup = 3,
}

/// Memory semantics bits (a SPIR-V bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemorySemantics(u32);

impl MemorySemantics {
    pub const NONE: MemorySemantics = MemorySemantics(0);
    pub const SEQUENTIALLY_CONSISTENT: MemorySemantics = MemorySemantics(0x10);
    pub const WORKGROUP_MEMORY: MemorySemantics = MemorySemantics(0x100);
    pub const CROSS_WORKGROUP_MEMORY: MemorySemantics = MemorySemantics(0x200);
}

impl std::ops::BitOr for MemorySemantics {
    type Output = MemorySemantics;
    fn bitor(self, other: MemorySemantics) -> MemorySemantics {
        MemorySemantics(self.0 | other.0)
    }
}

/// `MemoryAccess::Volatile`.
pub const MEMORY_ACCESS_VOLATILE: u32 = 0x1;
/// `MemoryAccess::Aligned` (its literal is the `alignment` attribute of `spirv.Load`/`Store`).
pub const MEMORY_ACCESS_ALIGNED: u32 = 0x2;
/// `FunctionControl::None`.
pub const FUNCTION_CONTROL_NONE: u32 = 0;
/// `FunctionControl::DontInline`.
pub const FUNCTION_CONTROL_DONT_INLINE: u32 = 0x2;
/// `FunctionControl::Pure`.
pub const FUNCTION_CONTROL_PURE: u32 = 0x4;
/// `LinkageType::Export`.
pub const LINKAGE_EXPORT: u32 = 0;
/// `LinkageType::Import`.
pub const LINKAGE_IMPORT: u32 = 1;
/// `Capability::Int64Atomics`.
pub const CAPABILITY_INT64_ATOMICS: i64 = 12;
/// `Capability::Linkage`.
pub const CAPABILITY_LINKAGE: i64 = 5;

/// `!spirv.ptr<pointee, class>`.
pub fn pointer_type<'c>(pointee: Type<'c>, class: StorageClass) -> Type<'c> {
    // SAFETY: a live type; the shim returns a type of its context.
    unsafe { Type::from_raw(hipmlirSpirvPointerTypeGet(pointee.to_raw(), class as u32)) }
}

/// The storage class of a `!spirv.ptr` (None for other types, or a class hipmlir never uses).
pub fn pointer_storage_class(t: Type) -> Option<StorageClass> {
    // SAFETY: a kind query on a live type.
    let class = unsafe { hipmlirSpirvPointerTypeGetStorageClass(t.to_raw()) };
    StorageClass::ALL.into_iter().find(|c| *c as i64 == class)
}

/// `!spirv.array<count x element>`.
pub fn array_type(element: Type, count: u32) -> Type {
    // SAFETY: a live type.
    unsafe { Type::from_raw(hipmlirSpirvArrayTypeGet(element.to_raw(), count)) }
}

/// `!spirv.struct<(members...)>`, without offsets (as hipmlir's memory types are).
pub fn struct_type<'c>(ctx: &'c Context, members: &[Type<'c>]) -> Type<'c> {
    struct_type_with_offsets(ctx, members, None)
}

/// `!spirv.struct<(m0 [o0], m1 [o1], ...)>`, each member at its byte offset: a packed struct,
/// which `patch` decorates `CPacked` in place of the offsets (MLIR's serializer has no
/// `CPacked`; OpenCL's SPIR-V has no `Offset`).
pub fn packed_struct_type<'c>(ctx: &'c Context, members: &[(Type<'c>, u32)]) -> Type<'c> {
    let (types, offsets): (Vec<Type>, Vec<u32>) = members.iter().copied().unzip();
    struct_type_with_offsets(ctx, &types, Some(&offsets))
}

fn struct_type_with_offsets<'c>(
    ctx: &'c Context,
    members: &[Type<'c>],
    offsets: Option<&[u32]>,
) -> Type<'c> {
    let raw: Vec<MlirType> = members.iter().map(|t| t.to_raw()).collect();
    // SAFETY: live types of `ctx`, and (callers above) as many offsets as members; the shim
    // copies both arrays.
    unsafe {
        Type::from_raw(hipmlirSpirvStructTypeGet(
            ctx.to_raw(),
            raw.len() as isize,
            raw.as_ptr(),
            offsets.map_or(std::ptr::null(), |o| o.as_ptr()),
        ))
    }
}

/// The element count of an `!llvm.array` (None for other types): the C API has no accessor.
pub fn llvm_array_length(t: Type) -> Option<u64> {
    // SAFETY: the length is read only after the kind check.
    unsafe {
        hipmlirTypeIsALLVMArrayType(t.to_raw())
            .then(|| hipmlirLLVMArrayTypeGetNumElements(t.to_raw()))
    }
}

pub fn scope_attr(ctx: &Context, scope: Scope) -> Attribute<'_> {
    // SAFETY: the shim returns an attribute of `ctx`.
    unsafe { Attribute::from_raw(hipmlirSpirvScopeAttrGet(ctx.to_raw(), scope as u32)) }
}

pub fn memory_semantics_attr(ctx: &Context, bits: MemorySemantics) -> Attribute<'_> {
    // SAFETY: as above.
    unsafe { Attribute::from_raw(hipmlirSpirvMemorySemanticsAttrGet(ctx.to_raw(), bits.0)) }
}

pub fn storage_class_attr(ctx: &Context, class: StorageClass) -> Attribute<'_> {
    // SAFETY: as above.
    unsafe { Attribute::from_raw(hipmlirSpirvStorageClassAttrGet(ctx.to_raw(), class as u32)) }
}

pub fn memory_access_attr(ctx: &Context, bits: u32) -> Attribute<'_> {
    // SAFETY: as above.
    unsafe { Attribute::from_raw(hipmlirSpirvMemoryAccessAttrGet(ctx.to_raw(), bits)) }
}

pub fn function_control_attr(ctx: &Context, bits: u32) -> Attribute<'_> {
    // SAFETY: as above.
    unsafe { Attribute::from_raw(hipmlirSpirvFunctionControlAttrGet(ctx.to_raw(), bits)) }
}

/// `#spirv.execution_mode<...>`.
pub fn execution_mode_attr(ctx: &Context, mode: spirv::ExecutionMode) -> Attribute<'_> {
    // SAFETY: as above.
    unsafe { Attribute::from_raw(hipmlirSpirvExecutionModeAttrGet(ctx.to_raw(), mode as u32)) }
}

/// `#spirv.linkage_attributes<linkage_name = name, linkage_type = <type>>`.
pub fn linkage_attributes<'c>(ctx: &'c Context, name: &str, linkage_type: u32) -> Attribute<'c> {
    // SAFETY: as above; the shim copies the name into an attribute.
    unsafe {
        Attribute::from_raw(hipmlirSpirvLinkageAttributesGet(
            ctx.to_raw(),
            StringRef::new(name).to_raw(),
            linkage_type,
        ))
    }
}

/// `#spirv.entry_point_abi<>`, or `<subgroup_size = n>`.
pub fn entry_point_abi(ctx: &Context, subgroup_size: Option<u32>) -> Attribute<'_> {
    let size = subgroup_size.map_or(0, |s| s as i32);
    // SAFETY: as above.
    unsafe { Attribute::from_raw(hipmlirSpirvEntryPointAbiGet(ctx.to_raw(), size)) }
}

/// A `#spirv.vce` with a capability and an extension added in front when missing; None when
/// `vce` is not one or the extension is unknown to MLIR.
pub fn vce_with<'c>(
    vce: Attribute<'c>,
    capability: Option<i64>,
    extension: Option<&str>,
) -> Option<Attribute<'c>> {
    // SAFETY: a live attribute; the shim checks its kind and returns null when it is no vce.
    let raw = unsafe {
        hipmlirSpirvVceAttrAdd(
            vce.to_raw(),
            capability.unwrap_or(-1),
            StringRef::new(extension.unwrap_or("")).to_raw(),
        )
    };
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}
