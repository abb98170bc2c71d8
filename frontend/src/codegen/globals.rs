//! Module-level device data: `__device__` and `__constant__` variables (with their constant
//! initializers, as bytes laid out by clang), string constants for printf, and the one-thread
//! "address kernels" through which the runtime finds a variable's device address (as chipStar's
//! `_chip_var_` kernels do).

use clang_sys::*;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Location};

use super::builder::internal;
use super::constant_addresses::Address;
use super::function_pointers::{is_null_constant, named_function};
use super::module::ModuleCodegen;
use crate::clang::{ConstValue, Cursor, LifetimeNode, Linkage};
use crate::error::{FrontendError, Result};
use crate::types::{AddrSpace, Ty};

use hipmlir_device_image::{ADDRESS_KERNEL_PREFIX, RELOCATIONS_ATTRIBUTE};

/// The address kernel of a device variable.
pub fn address_kernel(symbol: &str) -> String {
    format!("{ADDRESS_KERNEL_PREFIX}{symbol}")
}

/// The size of a device pointer (a managed variable's storage on the device; the words of a
/// relocated initializer, see [`RELOCATIONS_ATTRIBUTE`]).
const POINTER_BYTES: u64 = 8;

/// Non-zero initializers larger than this are refused: SPIR-V instructions hold at most 65535
/// words (a zero initializer of any size is one null constant).
const MAX_INITIALIZER_BYTES: usize = 65_000;

/// An address among a variable's initial bytes: the 8 bytes at `offset` hold `address`.
#[derive(Debug, Clone)]
pub struct Relocation {
    pub offset: u64,
    pub address: Address,
}

/// A variable's initial value: its bytes (zero where an address goes) and the addresses.
struct InitialValue {
    bytes: Vec<u8>,
    relocations: Vec<Relocation>,
}

impl InitialValue {
    fn zeros(size: u64) -> InitialValue {
        InitialValue {
            bytes: vec![0; size as usize],
            relocations: Vec::new(),
        }
    }
}

/// A device variable defined in this translation unit.
#[derive(Debug, Clone)]
pub struct DeviceVariable {
    pub symbol: String,
    /// The device variable's size (a managed variable's is a pointer's).
    pub size: u64,
    /// A `__managed__` variable: the size of the object its device variable points to.
    pub managed_size: Option<u64>,
    /// A `__constant__` variable.
    pub constant: bool,
    /// Whether the translation unit registers the variable's host shadow itself (see
    /// `host_shadows`).
    pub registered_by_unit: bool,
}

/// Whether a declaration is a `__device__` or `__constant__` variable at namespace scope: an
/// ordinary variable, or an instance of a variable template (`mask<float>` of `template <class T>
/// __constant__ T mask[N];`, which libclang shows as an unexposed declaration), each instance a
/// variable of its own under its mangled name. A partial specialization, whose type still depends
/// on template parameters, is no variable.
pub fn is_device_variable(decl: &Cursor) -> bool {
    let variable = match decl.kind() {
        CXCursor_VarDecl => true,
        // has_global_storage holds only for variables.
        CXCursor_UnexposedDecl => !decl.ty().is_dependent(),
        _ => false,
    };
    variable
        && decl.has_global_storage()
        && (decl.has_attr(CXCursor_CUDADeviceAttr)
            || decl.has_attr(CXCursor_CUDAConstantAttr)
            || is_managed(decl)
            || is_texture_reference(decl))
        && !decl.has_attr(CXCursor_CUDASharedAttr)
}

/// Whether a variable is a legacy texture reference: its type is an instance of the global class
/// template `texture` of hipmlir's headers (hipmlir_texture_types.h), which clang's
/// `device_builtin_texture_type` makes a device variable (libclang does not show that
/// attribute, and a header in a precompiled header has no tokens to find it by). Its device copy
/// starts as zeros, as clang leaves it: the host's constructor describes the reference, and
/// binding it stores that description, with its texture object, into the device's copy.
pub fn is_texture_reference(decl: &Cursor) -> bool {
    decl.ty()
        .canonical()
        .declaration()
        .template_of()
        .is_some_and(|t| {
            t.kind() == CXCursor_ClassTemplate
                && t.spelling() == "texture"
                && t.semantic_parent()
                    .is_some_and(|p| p.kind() == CXCursor_TranslationUnit)
        })
}

/// Whether a variable is `__managed__` (clang's `managed` attribute, which libclang does not
/// expose by kind; the `__device__` it implies is implicit and not shown either).
pub fn is_managed(decl: &Cursor) -> bool {
    decl.children()
        .iter()
        .any(|c| c.kind() == CXCursor_UnexposedAttr && is_managed_attribute(c))
}

/// An unexposed attribute known by its token: `managed` where it is spelled (which a header in
/// a precompiled header does not show), or `__managed__` where it is used.
fn is_managed_attribute(attr: &Cursor) -> bool {
    let managed = |t: &str| t == "managed" || t == "__managed__";
    if attr.tokens().first().is_some_and(|t| managed(t)) {
        return true;
    }
    let (start, _) = attr.extent_positions();
    let (file, at) = start.expanded;
    attr.tokens_in(&file, at, at + 1)
        .first()
        .is_some_and(|t| managed(&t.text))
}

/// Whether a declaration is a host constant that device code may read: a `const` or
/// `constexpr` variable at namespace or class scope (an instance of a variable template
/// included) with no device attribute. Clang gives such a variable a device copy (an implicit
/// `__constant__`) where device code uses it; hipmlir does the same for the reads it cannot
/// fold (an array indexed at run time, a member of a struct, an address).
pub fn is_host_constant(decl: &Cursor) -> bool {
    let variable = match decl.kind() {
        CXCursor_VarDecl => true,
        CXCursor_UnexposedDecl => !decl.ty().is_dependent(),
        _ => false,
    };
    variable
        && decl.has_global_storage()
        && decl.ty().is_const()
        && !decl.has_attr(CXCursor_CUDADeviceAttr)
        && !decl.has_attr(CXCursor_CUDAConstantAttr)
        && !decl.has_attr(CXCursor_CUDASharedAttr)
        && !is_managed(decl)
}

impl<'c> ModuleCodegen<'c> {
    /// A 64-bit pointer variable that the runtime finds by name and sets before the module's
    /// first launch (the abort flag, the memory checker's state): null until then, one per
    /// program (linkonce), with its address kernel, listed among the device variables.
    pub(super) fn declare_runtime_pointer(
        &mut self,
        symbol: &'static str,
        loc: Location<'c>,
    ) -> Result<()> {
        let linkage = Linkage::LinkOnceOdr;
        self.declare_global(
            symbol,
            Some(&[0; 8]),
            &[],
            8,
            8,
            AddrSpace::Global,
            false,
            linkage,
            loc,
        )?;
        self.emit_address_kernel_at(symbol, linkage, loc)?;
        self.device_variables.push(DeviceVariable {
            symbol: symbol.to_string(),
            size: 8,
            managed_size: None,
            constant: false,
            registered_by_unit: false,
        });
        Ok(())
    }

    /// The symbol of the device copy of a host constant (see [`is_host_constant`]): a
    /// read-only global of this source, initialized as the constant is; its initializer must be
    /// a constant, as clang requires.
    pub fn host_constant(&mut self, decl: &Cursor) -> Result<(String, Ty)> {
        let key = decl.canonical();
        let ty = Ty::of(decl)?;
        if let Some(symbol) = self.globals.get(&key) {
            return Ok((symbol.clone(), ty));
        }
        let symbol = decl.mangled_name();
        let l = decl.location();
        let loc = Location::new(self.ctx, &l.file, l.line as usize, l.column as usize);
        let init = decl
            .definition()
            .and_then(|d| d.var_initializer())
            .ok_or_else(|| {
                FrontendError::unsupported(
                    decl.location(),
                    format!(
                        "host constant '{}' read in device code without its initializer here",
                        decl.spelling()
                    ),
                )
            })?;
        let mut value = InitialValue::zeros(ty.size());
        if !is_trivial_construction(&init) {
            self.initial_value(&key, &init, &ty, &mut value)?;
        }
        self.declare_global(
            &symbol,
            Some(&value.bytes),
            &value.relocations,
            ty.size(),
            ty.align(),
            AddrSpace::Global,
            true,
            Linkage::Internal,
            loc,
        )?;
        self.globals.insert(key, symbol.clone());
        Ok((symbol, ty))
    }

    /// The symbol of a device variable, declared as an `llvm.mlir.global` in the global address
    /// space with its initializer as bytes (zero when it has none, as C requires).
    pub fn device_variable(&mut self, decl: &Cursor) -> Result<(String, Ty)> {
        let key = decl.canonical();
        let ty = Ty::of(decl)?;
        if let Some(symbol) = self.globals.get(&key) {
            return Ok((symbol.clone(), ty));
        }
        let symbol = decl.mangled_name();
        let l = decl.location();
        let loc = Location::new(self.ctx, &l.file, l.line as usize, l.column as usize);
        // A managed variable is, on the device, a pointer to the object's managed memory, which
        // the runtime stores there (see the runtime's `managed_vars`); its initial value is the
        // host's to write into that memory.
        let managed = is_managed(decl);
        let storage = if managed { POINTER_BYTES } else { ty.size() };
        let storage_align = if managed { POINTER_BYTES } else { ty.align() };
        let Some(def) = decl.definition() else {
            // Declared `extern` here and defined in another source: a declaration the device
            // link resolves (with -fgpu-rdc); without one, the driver reports it.
            self.declare_global(
                &symbol,
                None,
                &[],
                storage,
                storage_align,
                AddrSpace::Global,
                false,
                Linkage::External,
                loc,
            )?;
            self.globals.insert(key, symbol.clone());
            self.note_undefined(
                &symbol,
                format!("extern __device__ variable '{}'", decl.spelling()),
                decl.location(),
            );
            return Ok((symbol, ty));
        };
        let mut value = InitialValue::zeros(storage);
        // A class variable written without an initializer is default-constructed: with a
        // trivial constructor, that leaves the zeros static storage starts with.
        if let Some(init) = def
            .var_initializer()
            .filter(|i| !is_trivial_construction(i) && !managed && !is_texture_reference(&def))
        {
            self.initial_value(&key, &init, &ty, &mut value)?;
        }
        self.declare_global(
            &symbol,
            Some(&value.bytes),
            &value.relocations,
            storage,
            storage_align,
            AddrSpace::Global,
            false,
            self.linkage_of(&def),
            loc,
        )?;
        // Every variable, those of headers that device code uses included, can be found by
        // the runtime (the device heap's is found that way).
        self.emit_address_kernel(&symbol, decl)?;
        self.globals.insert(key, symbol.clone());
        self.device_variables.push(DeviceVariable {
            symbol: symbol.clone(),
            size: storage,
            managed_size: managed.then(|| ty.size()),
            constant: def.has_attr(CXCursor_CUDAConstantAttr),
            registered_by_unit: false,
        });
        Ok((symbol, ty))
    }

    /// A NUL-terminated string in global memory, read-only: a string literal used as a
    /// `const char*` value (the constant address space cannot be reached by a generic pointer).
    pub fn string_value(&mut self, text: &[u8], loc: Location<'c>) -> Result<String> {
        if let Some(symbol) = self.string_values.get(text) {
            return Ok(symbol.clone());
        }
        let symbol = format!("__hipmlir_string_{}", self.string_values.len());
        self.declare_read_only_string(&symbol, text, Linkage::Internal, loc)?;
        self.string_values.insert(text.to_vec(), symbol.clone());
        Ok(symbol)
    }

    /// `text` with its NUL as read-only global memory named `symbol`; returns its size.
    fn declare_read_only_string(
        &mut self,
        symbol: &str,
        text: &[u8],
        linkage: Linkage,
        loc: Location<'c>,
    ) -> Result<u64> {
        let mut bytes = text.to_vec();
        bytes.push(0);
        self.declare_global(
            symbol,
            Some(&bytes),
            &[],
            bytes.len() as u64,
            1,
            AddrSpace::Global,
            true,
            linkage,
            loc,
        )?;
        Ok(bytes.len() as u64)
    }

    /// A string literal a device variable's initializer points to (`const char* names[] =
    /// {"red", ...}`): read-only global memory named by its bytes, one in a program however many
    /// sources have it. With the memory checker it is listed among the device variables, with
    /// an address kernel, so that the runtime enters it in the checker's table as it does the
    /// variables: device code reads it through pointers loaded from memory, which the checker
    /// looks up there.
    pub fn relocated_string(&mut self, text: &[u8], loc: Location<'c>) -> Result<String> {
        if let Some(symbol) = self.relocated_strings.get(text) {
            return Ok(symbol.clone());
        }
        // FNV-1a of the bytes with their NUL: the same name in every source.
        let hash = text
            .iter()
            .chain(&[0u8])
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
            });
        let symbol = format!("__hipmlir_string_{hash:016x}_{}", text.len() + 1);
        let linkage = Linkage::LinkOnceOdr;
        let size = self.declare_read_only_string(&symbol, text, linkage, loc)?;
        if self.memcheck {
            self.emit_address_kernel_at(&symbol, linkage, loc)?;
            self.device_variables.push(DeviceVariable {
                symbol: symbol.clone(),
                size,
                managed_size: None,
                constant: false,
                registered_by_unit: false,
            });
        }
        self.relocated_strings.insert(text.to_vec(), symbol.clone());
        Ok(symbol)
    }

    /// A NUL-terminated string constant in the constant address space (printf formats).
    pub fn string_constant(&mut self, text: &[u8], loc: Location<'c>) -> Result<String> {
        if let Some(symbol) = self.strings.get(text) {
            return Ok(symbol.clone());
        }
        let symbol = format!("__hipmlir_str_{}", self.strings.len());
        let mut bytes = text.to_vec();
        bytes.push(0);
        self.declare_global(
            &symbol,
            Some(&bytes),
            &[],
            bytes.len() as u64,
            1,
            AddrSpace::Constant,
            true,
            Linkage::Internal,
            loc,
        )?;
        self.strings.insert(text.to_vec(), symbol.clone());
        Ok(symbol)
    }

    /// `llvm.mlir.global <linkage> @symbol(dense<bytes>) {addr_space = N} : !llvm.array<size x i8>`,
    /// or without a value (`bytes` None): a declaration of a variable another source defines.
    /// The addresses among the bytes are its relocations ([`RELOCATIONS_ATTRIBUTE`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn declare_global(
        &mut self,
        symbol: &str,
        bytes: Option<&[u8]>,
        relocations: &[Relocation],
        size: u64,
        align: u64,
        space: AddrSpace,
        constant: bool,
        linkage: Linkage,
        loc: Location<'c>,
    ) -> Result<()> {
        let all_zero = bytes.is_none_or(|b| b.iter().all(|b| *b == 0));
        if size as usize > MAX_INITIALIZER_BYTES && !all_zero {
            return Err(FrontendError::unsupported(
                crate::SourceLoc::default(),
                format!(
                    "device variable '{symbol}' of {size} bytes (at most {MAX_INITIALIZER_BYTES}): \
                     allocate it with hipMalloc instead",
                ),
            ));
        }
        let ctx = self.ctx;
        let byte: melior::ir::Type = IntegerType::new(ctx, 8).into();
        let array = melior::dialect::llvm::r#type::array(byte, size as u32);
        let linkage_attribute = super::builder::linkage_attribute(ctx, linkage);
        let mut attributes = vec![
            ("linkage", linkage_attribute),
            (
                "addr_space",
                IntegerAttribute::new(IntegerType::new(ctx, 32).into(), space as i64).into(),
            ),
        ];
        if let Some(bytes) = bytes {
            // A zero initializer is a splat of any size (it becomes a null constant).
            let value =
                hipmlir_ir::dense_bytes_attribute(ctx, size, Some(bytes)).ok_or_else(|| {
                    internal(loc, "initializer bytes of another size than the variable")
                })?;
            attributes.push(("value", value));
        }
        if constant {
            attributes.push(("constant", Attribute::unit(ctx)));
        }
        if align > 1 {
            // The variable's own alignment, clang's alignof (PTX's `.align N`, as nvcc writes
            // it): its bytes are an array of i8, whose alignment is 1.
            attributes.push((
                "alignment",
                IntegerAttribute::new(IntegerType::new(ctx, 64).into(), align as i64).into(),
            ));
        }
        // Ahead of every function: SPIR-V wants a variable declared before the code using it,
        // and a variable first reached through a device function is declared after the kernels
        // that call the function.
        let mut builder = self.module_builder().at_start();
        if !relocations.is_empty() {
            attributes.push((
                RELOCATIONS_ATTRIBUTE,
                relocations_attribute(ctx, relocations),
            ));
            // After the variables its addresses name (declared while its initializer was
            // evaluated): SPIR-V defines a variable's initializer before the variable.
            builder = builder.after_globals();
        }
        builder.llvm_global(symbol, array, &attributes, loc)
    }
}

/// Whether an initializer is a call of a trivial default constructor (`S s;` for a plain `S`).
fn is_trivial_construction(init: &Cursor) -> bool {
    init.kind() == CXCursor_CallExpr
        && init.arguments().is_empty()
        && init.referenced().is_some_and(|ctor| {
            ctor.kind() == CXCursor_Constructor
                && ctor.trivial_special_member()
                    == Some(crate::clang::SpecialMember::DefaultConstructor)
        })
}

impl ModuleCodegen<'_> {
    /// The initial value of variable `key` (its canonical declaration) from its constant
    /// initializer `init`. A variable whose initializer holds its own address, directly or
    /// through other variables, is refused: SPIR-V defines a variable's initializer first.
    fn initial_value(
        &mut self,
        key: &Cursor,
        init: &Cursor,
        ty: &Ty,
        out: &mut InitialValue,
    ) -> Result<()> {
        if !self.initializing.insert(*key) {
            return Err(FrontendError::unsupported(
                init.location(),
                format!(
                    "device variable '{}' initialized with its own address (directly or \
                     through other variables' initializers)",
                    key.spelling()
                ),
            ));
        }
        let result = self.constant_bytes(init, ty, out, 0, None);
        self.initializing.remove(key);
        result?;
        // Targets lay a relocated variable out as whole pointer-sized words.
        let whole = |at: u64| at.is_multiple_of(POINTER_BYTES);
        let words = out.relocations.is_empty()
            || (whole(ty.size()) && out.relocations.iter().all(|r| whole(r.offset)));
        if !words {
            return Err(FrontendError::unsupported(
                init.location(),
                format!(
                    "device variable '{}' initialized with an address at an offset that is not \
                     a multiple of {POINTER_BYTES} (a packed struct holding a pointer)",
                    key.spelling()
                ),
            ));
        }
        Ok(())
    }

    /// Writes the bytes of constant initializer `init` of type `ty` at `offset` in `out`;
    /// `field` is the member it initializes, if it is one.
    fn constant_bytes(
        &mut self,
        init: &Cursor,
        ty: &Ty,
        out: &mut InitialValue,
        offset: usize,
        field: Option<&Cursor>,
    ) -> Result<()> {
        let unsupported = || {
            FrontendError::unsupported(
                init.location(),
                "a device variable initializer that is not constant",
            )
        };
        // Value-initialization leaves the zeros; a default member initializer stands for
        // itself.
        let init = match init.lifetime_node() {
            Some(LifetimeNode::ValueInit) => return Ok(()),
            Some(LifetimeNode::DefaultMemberInit) => {
                return match field.and_then(|f| f.default_member_initializer()) {
                    Some(default) => self.constant_bytes(&default, ty, out, offset, None),
                    None => Err(unsupported()),
                };
            }
            _ => init,
        };
        if let Some(list) = init_list(init) {
            // The items as clang understood them: one per base, member or element.
            let (items, filler) = list.init_list_items().ok_or_else(unsupported)?;
            match ty {
                Ty::Array { element, len } => {
                    let size = element.size() as usize;
                    for i in 0..*len as usize {
                        if let Some(item) = items.get(i).or(filler.as_ref()) {
                            self.constant_bytes(item, element, out, offset + i * size, None)?;
                        }
                    }
                }
                Ty::Record(r) if r.is_union => {
                    if let Some(item) = items.first() {
                        let member = super::initializers::union_member(&list, item, r)?;
                        let field = &r.fields[member];
                        let decl = r.field_decls.get(member);
                        self.constant_field(item, field, decl, out, offset)?;
                    }
                }
                Ty::Record(r) => {
                    let class = list.ty().canonical();
                    let bases = class.bases();
                    for (base, item) in bases.iter().zip(&items) {
                        // An aggregate has no virtual bases.
                        let at = class.base_offset(&base.ty()).ok_or_else(unsupported)?;
                        let base_ty = Ty::from_clang(base.ty(), &base.location())?;
                        self.constant_bytes(item, &base_ty, out, offset + at as usize, None)?;
                    }
                    // Unnamed bit-fields take no initializer.
                    let named = r
                        .fields
                        .iter()
                        .zip(&r.field_decls)
                        .filter(|(f, _)| !super::initializers::is_unnamed_bit_field(f));
                    let fields = items.iter().skip(bases.len());
                    for (item, (field, decl)) in fields.zip(named) {
                        self.constant_field(item, field, Some(decl), out, offset)?;
                    }
                }
                scalar => {
                    if let Some(item) = items.first() {
                        self.constant_bytes(item, scalar, out, offset, None)?;
                    }
                }
            }
            return Ok(());
        }
        let size = ty.size() as usize;
        if let Ty::Pointer { .. } = ty {
            // A null pointer is the zeros the variable starts with; an address is a
            // relocation.
            if let Some(address) = self.constant_address(init)? {
                out.relocations.push(Relocation {
                    offset: offset as u64,
                    address,
                });
            }
            return Ok(());
        }
        let slot = out
            .bytes
            .get_mut(offset..offset + size)
            .ok_or_else(|| FrontendError::unsupported(init.location(), "initializer layout"))?;
        if let Ty::FnPtr { .. } = ty {
            // A table of function pointers holds the functions' ids (see function_pointers.rs).
            let id = match named_function(init) {
                Some(f) => self.function_pointer_id(&f, init)?,
                None if is_null_constant(init) => 0,
                None => return Err(unsupported()),
            };
            slot.copy_from_slice(&id.to_le_bytes());
            return Ok(());
        }
        match (ty, init.evaluate().ok_or_else(unsupported)?) {
            (Ty::Float { bits: 32 }, ConstValue::Float(f)) => {
                slot.copy_from_slice(&(f as f32).to_le_bytes())
            }
            (Ty::Float { .. }, ConstValue::Float(f)) => slot.copy_from_slice(&f.to_le_bytes()),
            (Ty::Float { bits: 32 }, ConstValue::Int(i)) => {
                slot.copy_from_slice(&(i as f32).to_le_bytes())
            }
            (Ty::Float { .. }, ConstValue::Int(i)) => {
                slot.copy_from_slice(&(i as f64).to_le_bytes())
            }
            (Ty::Int { .. } | Ty::Bool, ConstValue::Int(i)) => {
                slot.copy_from_slice(&(i as i64).to_le_bytes()[..size])
            }
            (Ty::Int { .. } | Ty::Bool, ConstValue::Float(f)) => {
                slot.copy_from_slice(&(f as i64).to_le_bytes()[..size])
            }
            _ => return Err(unsupported()),
        }
        Ok(())
    }
}

impl ModuleCodegen<'_> {
    /// Writes member `field` (declared by `decl`) of the record at `offset` from its
    /// initializer `item`.
    fn constant_field(
        &mut self,
        item: &Cursor,
        field: &crate::types::Field,
        decl: Option<&Cursor>,
        out: &mut InitialValue,
        offset: usize,
    ) -> Result<()> {
        let at = offset + field.offset as usize;
        let Some(bits) = field.bit_field else {
            return self.constant_bytes(item, &field.ty, out, at, decl);
        };
        let value = match item.lifetime_node() {
            Some(LifetimeNode::ValueInit) => 0,
            _ => match item.evaluate() {
                Some(ConstValue::Int(i)) => i,
                _ => {
                    return Err(FrontendError::unsupported(
                        item.location(),
                        "a device variable initializer that is not constant",
                    ))
                }
            },
        };
        write_bits(&mut out.bytes, at, bits, value)
            .ok_or_else(|| FrontendError::unsupported(item.location(), "initializer layout"))
    }
}

/// `[[offset, @target, addend], ...]`, the relocations of a variable (see
/// [`RELOCATIONS_ATTRIBUTE`]).
fn relocations_attribute<'c>(
    ctx: &'c melior::Context,
    relocations: &[Relocation],
) -> Attribute<'c> {
    use melior::ir::attribute::{ArrayAttribute, FlatSymbolRefAttribute};
    let i64t = IntegerType::new(ctx, 64).into();
    let entries: Vec<Attribute> = relocations
        .iter()
        .map(|r| {
            ArrayAttribute::new(
                ctx,
                &[
                    IntegerAttribute::new(i64t, r.offset as i64).into(),
                    FlatSymbolRefAttribute::new(ctx, &r.address.symbol).into(),
                    IntegerAttribute::new(i64t, r.address.offset).into(),
                ],
            )
            .into()
        })
        .collect();
    ArrayAttribute::new(ctx, &entries).into()
}

/// Writes the low bits of `value` into bit-field `bits` of the run at byte `at` of `out`.
fn write_bits(out: &mut [u8], at: usize, bits: crate::types::BitField, value: i128) -> Option<()> {
    for b in 0..u64::from(bits.width) {
        let bit = bits.bit_offset + b;
        let byte = out.get_mut(at + (bit / 8) as usize)?;
        let mask = 1u8 << (bit % 8);
        match (value >> b) & 1 {
            1 => *byte |= mask,
            _ => *byte &= !mask,
        }
    }
    Some(())
}

/// The braced list an initializer is, looking through the wrappers libclang shows around it.
fn init_list(e: &Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_InitListExpr => Some(*e),
        CXCursor_UnexposedExpr => match e.children().as_slice() {
            [only] => init_list(only),
            _ => None,
        },
        _ => None,
    }
}
