//! Module-level codegen: finds the kernels, emits them and the device functions they call.

use hipmlir_device_image::{
    BYVAL_ATTRIBUTE, KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE, KERNEL_ATTRIBUTE,
    KERNEL_NAME_ATTRIBUTE, KERNEL_UNIT_ATTRIBUTE, MAX_THREADS_PER_BLOCK_ATTRIBUTE,
    NOALIAS_ATTRIBUTE,
};
use melior::dialect::func;
use std::collections::HashMap;

use clang_sys::*;
use hipmlir_device_image::KernelInfo;
use melior::ir::attribute::{IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Attribute, Block, Identifier, Location, Module, Region, RegionLike, Type};
use melior::Context;

use super::analysis::{memory_locals, VarKey};
use super::builder::{block_arguments, internal, Builder};
use super::expr::LValue;
use super::function::{FunctionCodegen, LambdaValue, Val};
use super::globals::{is_device_variable, DeviceVariable};
use super::lambda_objects::LambdaObjects;
use super::lambdas::{closure_declaration, closure_type_key, Capture, Closure};
use super::objects::{has_this, this_record};
use super::virtual_bases::takes_construction_context;
use crate::clang::{Cursor, Linkage};
use crate::error::{FrontendError, Result};
use crate::kernel_abi::{kernel_args_attr, kernel_args_size_attr, kernel_info};
use crate::types::{pointer_type, AddrSpace, Ty};
use hipmlir_device_image::LINKAGE_ATTRIBUTE;

/// A kernel's by-value struct parameters: (index as a name, struct type attribute).
pub type ByvalParams<'c> = Vec<(Identifier<'c>, Attribute<'c>)>;

/// By-value kernel parameters larger than this are passed through a global buffer: OpenCL only
/// guarantees 1 KiB of parameter space (CL_DEVICE_MAX_PARAMETER_SIZE).
const SPILL_BYTES: u64 = 1024;

pub use hipmlir_device_image::DYNAMIC_SHARED_SYMBOL;

/// How a device function is called: its symbol and C signature.
#[derive(Debug, Clone)]
pub struct FunctionSig {
    pub symbol: String,
    pub params: Vec<Ty>,
    pub result: Ty,
}

pub struct ModuleCodegen<'c> {
    pub ctx: &'c Context,
    pub module: Module<'c>,
    /// Device functions by canonical declaration; emitted once each.
    functions: HashMap<Cursor, FunctionSig>,
    pending: Vec<Cursor>,
    /// Lambdas called so far, to be emitted as functions taking their captures first.
    pending_lambdas: Vec<LambdaFunction>,
    /// Lambdas passed to functions, by closure type (its declaration): a parameter of that type
    /// stands for the lambda's captures.
    pub(super) closures: HashMap<Cursor, Closure>,
    /// Lambdas in the user's code by closure type (its declaration): those written in host code
    /// (`[=] __device__ (float x) {...}`) reach kernels as closure objects.
    pub(super) host_lambdas: HashMap<Cursor, Cursor>,
    /// Lambda expressions found from their closure types (lambdas used as objects).
    pub(super) closure_lambdas: HashMap<Cursor, Option<Cursor>>,
    /// Which lambdas each function holds as closure objects (see lambda_objects.rs).
    pub(super) lambda_objects: LambdaObjects,
    /// The lambda each lambda function symbol was given to.
    lambda_symbols: HashMap<String, Cursor>,
    /// Module-level variables (`__shared__`, `__device__`, `__constant__`), by canonical
    /// declaration → symbol.
    pub(super) globals: HashMap<Cursor, String>,
    /// Device variables defined here, for the runtime's symbol API.
    pub device_variables: Vec<DeviceVariable>,
    /// String constants (printf formats) by content.
    pub(super) strings: HashMap<Vec<u8>, String>,
    /// String literals used as values, by content.
    pub(super) string_values: HashMap<Vec<u8>, String>,
    /// String literals device variables' initializers point to, by their bytes.
    pub(super) relocated_strings: HashMap<Vec<u8>, String>,
    /// The module is built with the memory checker (`-fsanitize=address`).
    pub memcheck: bool,
    /// printf declarations by argument signature.
    printf_signatures: HashMap<String, String>,
    /// Address-taken functions (symbol → function pointer id), see function_pointers.rs.
    pub(super) function_pointers: std::collections::BTreeMap<String, i64>,
    /// External device library functions declared so far.
    externals: std::collections::HashSet<String>,
    pub kernels: Vec<KernelInfo>,
    /// The translation unit's key, which its kernels of internal linkage (`static`, anonymous
    /// namespaces) carry: each source may define such a kernel under one name
    /// (`KernelInfo::unit`).
    pub unit_key: Option<String>,
    /// Device functions and variables used here and defined in another source.
    pub undefined: Vec<UndefinedSymbol>,
    /// hipmlir's own headers: what they define is compiled alike into every source.
    hip_headers: std::path::PathBuf,
    /// Dynamic classes constructed and virtual functions called (see virtuals.rs).
    pub(super) virtuals: super::virtuals::Virtuals,
    /// Whether the stop function device traps call is emitted (see traps.rs).
    pub(super) stop_function_emitted: bool,
    /// The variables whose initializers are being evaluated (an address in one may name
    /// another variable, whose initializer is evaluated first).
    pub(super) initializing: std::collections::HashSet<Cursor>,
}

/// Which files' kernels and device variables a translation unit compiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnitFiles {
    /// The main file's (a source compiled by the driver: a header's kernels are compiled by
    /// the sources that launch them).
    #[default]
    MainFile,
    /// Those of every file of the user's, headers included (hiprtc: a program's headers are
    /// part of its one translation unit).
    UserFiles,
}

/// What [`ModuleCodegen::emit_translation_unit`] compiles.
#[derive(Debug, Clone, Copy)]
pub struct UnitScope {
    pub files: UnitFiles,
    /// Relocatable device code (`-fgpu-rdc`): also every exported device function.
    pub relocatable: bool,
}

/// A device symbol used in this source and defined in another: a declaration the device link
/// (`-fgpu-rdc`) resolves.
#[derive(Debug, Clone)]
pub struct UndefinedSymbol {
    pub symbol: String,
    /// What it is, for messages: "device function 'square'".
    pub what: String,
    /// Where it is first used.
    pub location: crate::SourceLoc,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FunctionKind {
    Kernel,
    Device,
}

/// Whether a function declaration is a `__global__` kernel.
pub fn is_kernel(f: &Cursor) -> bool {
    // libclang shows no attributes of template instances: an instance (of a function template,
    // or a member of a class template's instance) is a kernel when what it was made from is.
    f.has_attr(CXCursor_CUDAGlobalAttr) || f.template_of().is_some_and(|t| is_kernel(&t))
}

impl<'c> ModuleCodegen<'c> {
    /// Inserts at the end of the module's body.
    pub fn module_builder(&self) -> Builder<'c> {
        Builder::new(self.ctx, &self.module.body())
    }

    /// Defines a function the compiler adds for its own use (the stop function, virtual
    /// dispatch helpers), whose body is `entry` (ending in its return): internal and private.
    pub fn define_helper(
        &self,
        symbol: &str,
        inputs: &[Type<'c>],
        results: &[Type<'c>],
        entry: Block<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        self.define_helper_with(symbol, inputs, results, entry, &[], loc)
    }

    /// [`Self::define_helper`] with `extra` attributes.
    pub fn define_helper_with(
        &self,
        symbol: &str,
        inputs: &[Type<'c>],
        results: &[Type<'c>],
        entry: Block<'c>,
        extra: &[(&str, melior::ir::Attribute<'c>)],
        loc: Location<'c>,
    ) -> Result<()> {
        let region = Region::new();
        region.append_block(entry);
        let mut attributes = super::builder::helper_function_attributes(self.ctx).to_vec();
        attributes.extend_from_slice(extra);
        let function_type = FunctionType::new(self.ctx, inputs, results);
        self.module_builder()
            .function(symbol, function_type, &attributes, region, loc)
    }

    pub fn new(ctx: &'c Context, location: Location<'c>, hip_headers: &std::path::Path) -> Self {
        ModuleCodegen {
            ctx,
            hip_headers: hip_headers.to_path_buf(),
            virtuals: Default::default(),
            stop_function_emitted: false,
            initializing: Default::default(),
            module: Module::new(location),
            functions: HashMap::new(),
            pending: Vec::new(),
            pending_lambdas: Vec::new(),
            closures: HashMap::new(),
            lambda_objects: LambdaObjects::default(),
            host_lambdas: HashMap::new(),
            closure_lambdas: HashMap::new(),
            lambda_symbols: HashMap::new(),
            globals: HashMap::new(),
            device_variables: Vec::new(),
            strings: HashMap::new(),
            string_values: HashMap::new(),
            relocated_strings: HashMap::new(),
            memcheck: false,
            printf_signatures: HashMap::new(),
            externals: std::collections::HashSet::new(),
            function_pointers: std::collections::BTreeMap::new(),
            kernels: Vec::new(),
            unit_key: None,
            undefined: Vec::new(),
        }
    }

    /// Records a device symbol this source uses but does not define.
    pub(super) fn note_undefined(
        &mut self,
        symbol: &str,
        what: String,
        location: crate::SourceLoc,
    ) {
        if !self.undefined.iter().any(|u| u.symbol == symbol) {
            self.undefined.push(UndefinedSymbol {
                symbol: symbol.to_string(),
                what,
                location,
            });
        }
    }

    /// How a definition links across sources: clang's linkage, except that what hipmlir's
    /// headers (or the system's) define is the same in every source that includes them, kept
    /// once by the device link like an inline function (the device heap's variables and
    /// `operator new`, which C++ forbids to declare inline).
    pub(super) fn linkage_of(&self, def: &Cursor) -> Linkage {
        match def.linkage() {
            Linkage::External if !crate::host_edits::is_user_code(def, &self.hip_headers) => {
                Linkage::LinkOnceOdr
            }
            other => other,
        }
    }

    /// Emits every kernel defined in the unit's files and every kernel instantiation
    /// `launched` there, then the device functions they reach. Each kernel is emitted once.
    /// `lambdas` are the lambda expressions of the user's code, host template instances
    /// included. With `unit.relocatable`, also every device function the unit defines for
    /// other sources to call (external linkage), as an object file holds all its functions.
    /// `own_variables` are device variables of the user's headers whose host shadows are this
    /// unit's own (see `host_shadows`): the unit has its own of each, as with hipcc; one that
    /// does not compile is left to the sources that use it.
    pub fn emit_translation_unit(
        &mut self,
        root: &Cursor,
        launched: &[Cursor],
        lambdas: &[Cursor],
        unit: UnitScope,
        own_variables: &[Cursor],
    ) -> Result<()> {
        for lambda in lambdas {
            self.host_lambdas
                .insert(closure_declaration(lambda.ty()), *lambda);
        }
        let hip_headers = self.hip_headers.clone();
        let in_scope = |c: &Cursor| match unit.files {
            UnitFiles::MainFile => c.is_in_main_file(),
            UnitFiles::UserFiles => crate::host_edits::is_user_code(c, &hip_headers),
        };
        let mut kernels = Vec::new();
        collect_kernels(root, &in_scope, &mut kernels);
        // A kernel launched here but defined in another file is compiled there.
        kernels.extend(launched.iter().filter_map(|k| k.definition()));
        let mut emitted = std::collections::HashSet::new();
        for k in &kernels {
            if emitted.insert(k.mangled_name()) {
                self.emit_function(k, FunctionKind::Kernel, None)?;
            }
        }
        if unit.relocatable {
            let mut exported = Vec::new();
            collect_exported_device_functions(root, &in_scope, &mut exported);
            for f in &exported {
                self.declare_device_function(f, f)?;
            }
        }
        self.emit_pending()?;
        // The main file's variables, used or not: the host may copy to and from them.
        let mut variables = Vec::new();
        collect_device_variables(root, &in_scope, &mut variables);
        for v in &variables {
            self.device_variable(v)?;
        }
        for v in own_variables.iter().filter(|v| !in_scope(v)) {
            // Its error is for the sources whose device code uses it to report.
            let _ = self.device_variable(v);
        }
        // Functions named by the variables' initializers (tables of function pointers).
        self.emit_pending()?;
        // The dispatchers of virtual calls, once every constructed class is known.
        self.emit_dispatchers(root, unit.relocatable)?;
        self.record_function_pointers();
        Ok(())
    }

    /// [`Self::emit_pending`], for the other parts of the module's codegen.
    pub(super) fn emit_queued(&mut self) -> Result<()> {
        self.emit_pending()
    }

    /// Declares device function `f` (called at `site`); true when that queued it to be emitted.
    pub(super) fn queue_function(&mut self, f: &Cursor, site: &Cursor) -> Result<bool> {
        let known = self.functions.contains_key(&f.canonical());
        self.declare_device_function(f, site)?;
        Ok(!known)
    }

    /// The signature of function `f` as its definition's would be (a declaration will do).
    pub(super) fn signature_of(&self, f: &Cursor) -> Result<FunctionSig> {
        self.signature(f)
    }

    /// A cursor's location in MLIR.
    pub(super) fn location_of(&self, c: &Cursor) -> Location<'c> {
        let l = c.location();
        Location::new(self.ctx, &l.file, l.line as usize, l.column as usize)
    }

    /// Emits the device functions and lambdas queued so far, and those they queue.
    fn emit_pending(&mut self) -> Result<()> {
        loop {
            if let Some(f) = self.pending.pop() {
                self.emit_function(&f, FunctionKind::Device, None)?;
            } else if let Some(lambda) = self.pending_lambdas.pop() {
                self.emit_function(&lambda.method.clone(), FunctionKind::Device, Some(&lambda))?;
            } else {
                return Ok(());
            }
        }
    }

    /// `__hipmlir_address_of_<symbol>(unsigned long long* out)`: stores the variable's address.
    pub(super) fn emit_address_kernel(&mut self, symbol: &str, decl: &Cursor) -> Result<()> {
        let linkage = self.linkage_of(decl);
        self.emit_address_kernel_at(symbol, linkage, self.location_of(decl))
    }

    /// [`Self::emit_address_kernel`] of a variable of hipmlir's own, with its linkage.
    pub(super) fn emit_address_kernel_at(
        &mut self,
        symbol: &str,
        linkage: Linkage,
        loc: Location<'c>,
    ) -> Result<()> {
        let ctx = self.ctx;
        let global_ptr = pointer_type(ctx, AddrSpace::Global);
        let entry = Block::new(&[(global_ptr, loc)]);
        let b = Builder::new(ctx, &entry);
        let out = block_arguments(&entry)[0];
        let address = b.address_of(symbol, global_ptr, loc)?;
        let i64t: Type = IntegerType::new(ctx, 64).into();
        let value = b.ptr_to_int(address, i64t, loc)?;
        b.store(value, out, false, loc);
        b.insert(func::r#return(&[], loc));
        let name = super::globals::address_kernel(symbol);
        let mut args = vec![hipmlir_device_image::KernelArg {
            name: "out".into(),
            r#type: "unsigned long long *".into(),
            offset: 0,
            size: 8,
            align: 8,
            is_pointer: true,
            address_space: hipmlir_device_image::AddressSpace::Global,
        }];
        let args_size = hipmlir_device_image::KernelArg::layout(&mut args);
        let info = KernelInfo {
            name: name.clone(),
            source_name: name,
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        };
        let region = Region::new();
        region.append_block(entry);
        let function_type = FunctionType::new(ctx, &[global_ptr], &[]);
        self.module_builder().function(
            &info.name,
            function_type,
            &[
                (KERNEL_ATTRIBUTE, Attribute::unit(ctx)),
                (
                    LINKAGE_ATTRIBUTE,
                    super::builder::linkage_attribute(self.ctx, linkage),
                ),
                (
                    KERNEL_NAME_ATTRIBUTE,
                    StringAttribute::new(ctx, &info.source_name).into(),
                ),
                (KERNEL_ARGS_ATTRIBUTE, kernel_args_attr(ctx, &info)),
                (
                    KERNEL_ARGS_SIZE_ATTRIBUTE,
                    kernel_args_size_attr(ctx, &info),
                ),
            ],
            region,
            loc,
        )?;
        self.kernels.push(info);
        Ok(())
    }

    /// The signature of a device function called at `site`; queues its definition for emission.
    pub fn declare_device_function(
        &mut self,
        callee: &Cursor,
        site: &Cursor,
    ) -> Result<FunctionSig> {
        let key = callee.canonical();
        if let Some(sig) = self.functions.get(&key) {
            return Ok(sig.clone());
        }
        if is_kernel(callee) {
            return Err(FrontendError::unsupported(
                site.location(),
                "calling a kernel from device code",
            ));
        }
        let Some(def) = callee.definition() else {
            // Defined in another source: a declaration the device link resolves.
            let sig = self.signature(callee)?;
            let l = site.location();
            let loc = Location::new(self.ctx, &l.file, l.line as usize, l.column as usize);
            self.declare_undefined_function(&sig, loc)?;
            self.note_undefined(
                &sig.symbol,
                format!("device function '{}'", callee.spelling()),
                site.location(),
            );
            self.functions.insert(key, sig.clone());
            return Ok(sig);
        };
        let sig = self.signature(&def)?;
        self.functions.insert(key, sig.clone());
        self.pending.push(def);
        Ok(sig)
    }

    /// A lambda's `operator()` as a device function whose leading parameters are its captures
    /// (a value for a copy, an address for a reference), then the lambda's own parameters.
    pub fn declare_lambda(
        &mut self,
        method: &Cursor,
        lambda: &Cursor,
        captures: Vec<Capture>,
    ) -> Result<FunctionSig> {
        let key = method.canonical();
        if let Some(sig) = self.functions.get(&key) {
            return Ok(sig.clone());
        }
        let closure = Closure {
            lambda: *lambda,
            captures,
        };
        let mut params = closure.param_types();
        for (index, p) in method.arguments().iter().enumerate() {
            self.parameter_types(method, index, p, &mut params)?;
        }
        // The device-side parse does not number the lambdas of host functions apart (two
        // lambdas in `main` may mangle alike): the symbol also names where the lambda is.
        let mut symbol = method.mangled_name();
        if self
            .lambda_symbols
            .get(&symbol)
            .is_some_and(|l| l != lambda)
        {
            let at = lambda.location();
            symbol = format!("{symbol}.L{}_{}", at.line, at.column);
        }
        self.lambda_symbols.insert(symbol.clone(), *lambda);
        let sig = FunctionSig {
            symbol,
            params,
            result: Ty::from_clang(method.result_type(), &lambda.location())?,
        };
        self.functions.insert(key, sig.clone());
        self.pending_lambdas.push(LambdaFunction {
            method: *method,
            lambda: *lambda,
            captures: closure.captures,
            sig: sig.clone(),
        });
        Ok(sig)
    }

    /// A kernel's parameter types in the OpenCL ABI: pointers are global, a bool is a byte, a
    /// struct by value arrives as a pointer to the kernel's own copy (byval; listed with its
    /// index and type), or through a global buffer when large.
    pub fn kernel_inputs(&self, def: &Cursor) -> Result<(Vec<Type<'c>>, ByvalParams<'c>)> {
        let ctx = self.ctx;
        let sig = self.signature(def)?;
        let mut inputs: Vec<Type> = Vec::new();
        let mut byval: Vec<(Identifier, Attribute)> = Vec::new();
        for (index, ty) in sig.params.iter().enumerate() {
            inputs.push(match ty {
                Ty::Pointer { .. } => pointer_type(ctx, AddrSpace::Global),
                Ty::Bool => IntegerType::new(ctx, 8).into(),
                // A struct too large for the device's parameter space comes through a global
                // buffer the runtime fills (chipStar's spill), still by value for the host.
                Ty::Record(r) if r.size > SPILL_BYTES => pointer_type(ctx, AddrSpace::Global),
                Ty::Record(_) => {
                    byval.push((
                        Identifier::new(ctx, &index.to_string()),
                        TypeAttribute::new(ty.memory_mlir(ctx)).into(),
                    ));
                    pointer_type(ctx, AddrSpace::Private)
                }
                _ => ty.value_mlir(ctx),
            });
        }
        Ok((inputs, byval))
    }

    /// Declares `func.func private @symbol(inputs) -> result` once: a device library function.
    pub fn declare_external(
        &mut self,
        symbol: &str,
        inputs: &[Type<'c>],
        result: Type<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        if !self.externals.insert(symbol.to_string()) {
            return Ok(());
        }
        let ctx = self.ctx;
        let function_type = FunctionType::new(ctx, inputs, &[result]);
        self.module_builder().function(
            symbol,
            function_type,
            &[(
                "sym_visibility",
                StringAttribute::new(ctx, "private").into(),
            )],
            Region::new(),
            loc,
        )?;
        Ok(())
    }

    /// `func.func private @symbol(...)` with external linkage and no body: a device function
    /// another source defines.
    fn declare_undefined_function(&mut self, sig: &FunctionSig, loc: Location<'c>) -> Result<()> {
        let ctx = self.ctx;
        let inputs: Vec<Type> = sig.params.iter().map(|t| t.value_mlir(ctx)).collect();
        let results: Vec<Type> = match sig.result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(ctx)],
        };
        let function_type = FunctionType::new(ctx, &inputs, &results);
        self.module_builder().function(
            &sig.symbol,
            function_type,
            &[
                (
                    "sym_visibility",
                    StringAttribute::new(ctx, "private").into(),
                ),
                (
                    LINKAGE_ATTRIBUTE,
                    super::builder::linkage_attribute(self.ctx, Linkage::External),
                ),
            ],
            Region::new(),
            loc,
        )?;
        Ok(())
    }

    /// A declaration `__hipmlir_printf_N(inputs) -> i32` for one printf argument signature.
    pub fn printf_declaration(
        &mut self,
        inputs: &[Type<'c>],
        result: Type<'c>,
        loc: Location<'c>,
    ) -> Result<String> {
        let signature: Vec<String> = inputs.iter().map(|t| t.to_string()).collect();
        let key = format!("printf({})", signature.join(","));
        if let Some(symbol) = self.printf_signatures.get(&key) {
            return Ok(symbol.clone());
        }
        let symbol = format!(
            "{}{}",
            hipmlir_device_image::PRINTF_SYMBOL_PREFIX,
            self.printf_signatures.len()
        );
        self.declare_external(&symbol, inputs, result, loc)?;
        self.printf_signatures.insert(key, symbol.clone());
        Ok(symbol)
    }

    /// The placeholder for dynamic shared memory, declared once.
    pub fn dynamic_shared_placeholder(&mut self, loc: Location<'c>) -> Result<String> {
        let symbol = DYNAMIC_SHARED_SYMBOL.to_string();
        if !self.externals.insert(symbol.clone()) {
            return Ok(symbol);
        }
        let ctx = self.ctx;
        let linkage = super::builder::linkage_attribute(ctx, Linkage::External);
        let bytes = melior::dialect::llvm::r#type::array(IntegerType::new(ctx, 8).into(), 0);
        self.module_builder().llvm_global(
            &symbol,
            bytes,
            &[
                ("linkage", linkage),
                (
                    "addr_space",
                    melior::ir::attribute::IntegerAttribute::new(
                        IntegerType::new(ctx, 32).into(),
                        AddrSpace::Workgroup as i64,
                    )
                    .into(),
                ),
            ],
            loc,
        )?;
        Ok(symbol)
    }

    /// The symbol of a `__shared__` variable; declared as an `llvm.mlir.global` in the workgroup
    /// address space on first use. Every block gets its own copy, as in HIP.
    pub fn shared_variable(&mut self, decl: &Cursor, ty: &Ty) -> Result<String> {
        let key = decl.canonical();
        if let Some(symbol) = self.globals.get(&key) {
            return Ok(symbol.clone());
        }
        let ctx = self.ctx;
        let mangled = decl.mangled_name();
        let symbol = if mangled.is_empty() {
            format!("__shared_{}_{}", decl.spelling(), self.globals.len())
        } else {
            mangled
        };
        let l = decl.location();
        let loc = Location::new(ctx, &l.file, l.line as usize, l.column as usize);
        let linkage = super::builder::linkage_attribute(ctx, Linkage::Internal);
        self.module_builder().llvm_global(
            &symbol,
            ty.memory_mlir(ctx),
            &[
                ("linkage", linkage),
                (
                    "addr_space",
                    melior::ir::attribute::IntegerAttribute::new(
                        IntegerType::new(ctx, 32).into(),
                        AddrSpace::Workgroup as i64,
                    )
                    .into(),
                ),
            ],
            loc,
        )?;
        self.globals.insert(key, symbol.clone());
        Ok(symbol)
    }

    fn emit_function(
        &mut self,
        def: &Cursor,
        kind: FunctionKind,
        lambda: Option<&LambdaFunction>,
    ) -> Result<()> {
        let ctx = self.ctx;
        let l = def.location();
        let loc = Location::new(ctx, &l.file, l.line as usize, l.column as usize);
        let sig = match lambda {
            Some(lambda) => lambda.sig.clone(),
            None => self.signature(def)?,
        };
        let params = def.arguments();

        // Kernel parameters follow the OpenCL ABI: pointers are global, a bool is a byte.
        let (inputs, byval) = match kind {
            FunctionKind::Kernel => self.kernel_inputs(def)?,
            FunctionKind::Device => (
                sig.params.iter().map(|t| t.value_mlir(ctx)).collect(),
                vec![],
            ),
        };
        let results: Vec<Type> = match sig.result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(ctx)],
        };
        if kind == FunctionKind::Kernel && sig.result != Ty::Void {
            return Err(FrontendError::refused(
                def.location(),
                "a kernel must return void",
            ));
        }
        // A generic lambda's body with concrete types is its call operator instance's.
        let body_owner = match lambda {
            Some(l) if def.template_of().is_none() => l.lambda,
            _ => *def,
        };
        let body = body_owner.function_body();
        let variadic_body = body.as_ref().filter(|_| def.ty().is_variadic());
        if let Some(read) = variadic_body.and_then(reads_variable_arguments) {
            return Err(FrontendError::unsupported(
                read.location(),
                format!(
                    "reading the variable arguments of '{}' (va_start, va_arg): calls of a \
                     variadic device function pass only its named parameters",
                    def.spelling()
                ),
            ));
        }
        // An implicit destructor or constructor may have no body to show: it destroys or
        // builds the members and bases.
        if body.is_none() && !matches!(def.kind(), CXCursor_Destructor | CXCursor_Constructor) {
            return Err(internal(loc, "function definition without a body"));
        }
        let entry = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
        let builder = Builder::new(ctx, &entry);
        let args = block_arguments(&entry);
        // hipmlir's device library is written and checked against libm without contraction;
        // the user's code may be fused into FMAs, as hipcc compiles it.
        let contract_floats =
            !std::path::Path::new(&def.location().file).starts_with(&self.hip_headers);
        let lambda_objects = self.lambda_objects.needs(&body_owner).objects.clone();
        let mut fc = FunctionCodegen {
            contract_floats,
            module: self,
            b: builder,
            entry: builder,
            memory_locals: body.as_ref().map(memory_locals).unwrap_or_default(),
            env: HashMap::new(),
            return_ty: sig.result.clone(),
            returns_reference: def.result_type().is_reference(),
            targets: Vec::new(),
            loop_unroll: None,
            lambdas: HashMap::new(),
            lambda_objects,
            this_class: None,
            region_depth: 0,
            last_loc: std::cell::RefCell::new(def.location()),
            chain_begins: Default::default(),
            scopes: Vec::new(),
            nrvo_flags: HashMap::new(),
            declared_ahead: Default::default(),
            underaligned: Default::default(),
            construction: None,
            base_construction: None,
            array_copies: Vec::new(),
        };
        let mut args = args.into_iter();
        let mut param_types = sig.params.iter();
        if let Some(l) = lambda {
            fc.bind_captures(&l.captures, &l.lambda, &mut args, loc)?;
            let closure = Closure {
                lambda: l.lambda,
                captures: l.captures.clone(),
            };
            param_types
                .by_ref()
                .take(closure.param_types().len())
                .for_each(drop);
        }
        if lambda.is_none() && has_this(def) {
            let this = args.next().ok_or_else(|| internal(loc, "missing this"))?;
            let ty = param_types.next().cloned().unwrap_or(Ty::Void);
            fc.bind(VarKey::This, ty, Val::Scalar(this));
            fc.this_class = def.semantic_parent().map(|class| class.ty());
        }
        let mut closure_params = Vec::new();
        for (index, param) in params.iter().enumerate() {
            let takes_object = fc.module.lambda_objects.takes_object(def, index);
            if kind == FunctionKind::Kernel {
                if let Some(lambda) = fc.module.host_lambda_of(param)? {
                    // Bound below, once the closure object has its home.
                    closure_params.push((*param, lambda));
                }
            } else if let Some(closure) = match takes_object {
                true => None,
                false => fc.module.closure_of(param)?,
            } {
                // A parameter holding a lambda arrives as the lambda's captures (made an object
                // of its own where its body needs one).
                fc.bind_captures(&closure.captures, &closure.lambda, &mut args, loc)?;
                param_types
                    .by_ref()
                    .take(closure.param_types().len())
                    .for_each(drop);
                let held = LambdaValue::written(closure.lambda);
                match param.ty().is_reference() {
                    // The caller's lambda, its captures shared.
                    true => {
                        fc.lambdas.insert(param.canonical(), held);
                    }
                    false => fc.hold_lambda(param, held, param)?,
                }
                continue;
            }
            let (Some(ty), Some(arg)) = (param_types.next(), args.next()) else {
                return Err(internal(loc, "parameter without an argument"));
            };
            let val = match (kind, ty) {
                (FunctionKind::Kernel, Ty::Pointer { .. }) => Val::Scalar(fc.to_generic(arg, loc)?),
                (FunctionKind::Kernel, Ty::Bool) => {
                    let byte = Ty::Int {
                        bits: 8,
                        signed: false,
                    };
                    fc.convert(Val::Scalar(arg), &byte, &Ty::Bool, param)?
                }
                _ => Val::Scalar(arg),
            };
            let key = VarKey::Decl(param.canonical());
            if kind == FunctionKind::Device && passed_indirectly(param) {
                // The caller's temporary, passed by address (see lifetime.rs).
                fc.bind_memory(key, Ty::of(param)?, arg);
                continue;
            }
            if kind == FunctionKind::Kernel {
                if let Ty::Record(r) = ty {
                    if r.size <= SPILL_BYTES {
                        // OpenCL gives each work-item its own copy of a by-value argument.
                        fc.bind_memory(key, ty.clone(), arg);
                        continue;
                    }
                    // A spilled argument is one buffer every work-item reads: each takes its own
                    // copy, since the kernel may write its parameter.
                    let shared = fc.to_generic(arg, loc)?;
                    let value = fc.load(
                        &LValue::Mem {
                            ptr: shared,
                            ty: ty.clone(),
                            volatile: false,
                        },
                        loc,
                    )?;
                    let own = fc.alloca(ty, loc)?;
                    fc.store(
                        &LValue::Mem {
                            ptr: own,
                            ty: ty.clone(),
                            volatile: false,
                        },
                        value,
                        loc,
                    )?;
                    fc.bind_memory(key, ty.clone(), own);
                    continue;
                }
            }
            if ty.is_aggregate() || fc.memory_locals.contains(&param.canonical()) {
                // A parameter whose address is taken gets a home in private memory.
                let ptr = fc.alloca(ty, loc)?;
                fc.store(
                    &LValue::Mem {
                        ptr,
                        ty: ty.clone(),
                        volatile: false,
                    },
                    val,
                    loc,
                )?;
                fc.bind_memory(key, ty.clone(), ptr);
            } else {
                fc.bind(key, ty.clone(), val);
            }
        }
        for (param, lambda) in closure_params {
            fc.bind_closure_object(&param, &lambda, loc)?;
        }
        if takes_construction_context(def) {
            fc.construction = Some(
                args.next()
                    .ok_or_else(|| internal(loc, "constructor without its context"))?,
            );
        }
        // The function's own scope: a destructor's members and bases are destroyed as it ends,
        // after the body's locals.
        let ret = fc.block(|fc| {
            if def.kind() == CXCursor_Destructor {
                // Its class is the dynamic type while it runs, as while it was built.
                fc.store_destroyed_class_id(def)?;
                fc.destroy_members_after_body(def)?;
            }
            if def.kind() == CXCursor_Constructor {
                fc.member_initializers(def)?;
            }
            match &body {
                Some(body) => fc.emit_body(body),
                None => Ok(Val::Void),
            }
        })?;
        fc.b.insert(func::r#return(&ret.flatten(), loc));

        let region = Region::new();
        region.append_block(entry);
        let function_type = FunctionType::new(ctx, &inputs, &results);
        let mut attributes: Vec<(&str, Attribute)> = Vec::new();
        attributes.push((
            LINKAGE_ATTRIBUTE,
            super::builder::linkage_attribute(self.ctx, self.linkage_of(def)),
        ));
        if !byval.is_empty() {
            attributes.push((
                BYVAL_ATTRIBUTE,
                melior::ir::attribute::DictionaryAttribute::new(ctx, &byval).into(),
            ));
        }
        match kind {
            FunctionKind::Kernel => {
                let info = kernel_info(def)?;
                let noalias = restrict_pointer_parameters(def, &sig.params);
                if !noalias.is_empty() {
                    attributes.push((
                        NOALIAS_ATTRIBUTE,
                        melior::ir::attribute::DenseI64ArrayAttribute::new(ctx, &noalias).into(),
                    ));
                }
                attributes.extend([
                    (KERNEL_ATTRIBUTE, Attribute::unit(ctx)),
                    (
                        KERNEL_NAME_ATTRIBUTE,
                        StringAttribute::new(ctx, &info.source_name).into(),
                    ),
                    (KERNEL_ARGS_ATTRIBUTE, kernel_args_attr(ctx, &info)),
                    (
                        KERNEL_ARGS_SIZE_ATTRIBUTE,
                        kernel_args_size_attr(ctx, &info),
                    ),
                ]);
                if let Some(most) = info.max_threads_per_block {
                    attributes.push((
                        MAX_THREADS_PER_BLOCK_ATTRIBUTE,
                        IntegerAttribute::new(IntegerType::new(ctx, 64).into(), most as i64).into(),
                    ));
                }
                let unit = self
                    .unit_key
                    .clone()
                    .filter(|_| def.linkage() == Linkage::Internal);
                if let Some(unit) = &unit {
                    attributes.push((
                        KERNEL_UNIT_ATTRIBUTE,
                        StringAttribute::new(ctx, unit).into(),
                    ));
                }
                self.kernels.push(KernelInfo { unit, ..info });
            }
            FunctionKind::Device => attributes.push((
                "sym_visibility",
                StringAttribute::new(ctx, "private").into(),
            )),
        }
        self.module_builder()
            .function(&sig.symbol, function_type, &attributes, region, loc)
    }
}

/// The indices of a kernel's pointer parameters declared `__restrict__` (the parameter
/// declarations': a function type drops its parameters' top-level qualifiers).
fn restrict_pointer_parameters(def: &Cursor, params: &[Ty]) -> Vec<i64> {
    let mut declared = def.arguments();
    if declared.is_empty() {
        // A function template's pattern: libclang lists no arguments, its children are them.
        declared = def
            .children()
            .into_iter()
            .filter(|c| c.kind() == CXCursor_ParmDecl)
            .collect();
    }
    params
        .iter()
        .zip(&declared)
        .enumerate()
        .filter(|(_, (ty, decl))| matches!(ty, Ty::Pointer { .. }) && decl.ty().is_restrict())
        .map(|(index, _)| index as i64)
        .collect()
}

/// A lambda to emit: its `operator()`, its expression (where the body is) and its captures as
/// (canonical declaration, type, passed by address).
pub struct LambdaFunction {
    method: Cursor,
    lambda: Cursor,
    captures: Vec<Capture>,
    sig: FunctionSig,
}

impl ModuleCodegen<'_> {
    /// A function's symbol and C signature; a member function's first parameter is `this`, a
    /// parameter holding a lambda stands for the lambda's captures.
    fn signature(&self, def: &Cursor) -> Result<FunctionSig> {
        let mut params = Vec::new();
        if has_this(def) {
            params.push(Ty::Pointer {
                pointee: Box::new(this_record(def)?),
            });
        }
        for (index, p) in def.arguments().iter().enumerate() {
            if is_kernel(def) {
                // A kernel receives the closure object the host passes, captures and all.
                params.push(Ty::of(p)?);
                continue;
            }
            self.parameter_types(def, index, p, &mut params)?;
        }
        if takes_construction_context(def) {
            // The construction context (virtual_bases.rs).
            params.push(Ty::LONG);
        }
        let result = Ty::from_clang(def.result_type(), &def.location())?;
        Ok(FunctionSig {
            symbol: def.mangled_name(),
            params,
            result,
        })
    }

    /// The types of the parameters that stand for parameter `index` (`p`) of device function
    /// `def`: a lambda's captures, or the parameter's own type (for a reference to a closure
    /// object the body needs, its address).
    fn parameter_types(
        &self,
        def: &Cursor,
        index: usize,
        p: &Cursor,
        out: &mut Vec<Ty>,
    ) -> Result<()> {
        let closure = match self.lambda_objects.takes_object(def, index) {
            true => None,
            false => self.closure_of(p)?,
        };
        match closure {
            Some(closure) => out.extend(closure.param_types()),
            None => out.push(parameter_type(p)?),
        }
        Ok(())
    }

    /// The lambda a parameter of a device function holds, passed as its captures; None for
    /// parameters not of closure type.
    pub(super) fn closure_of(&self, param: &Cursor) -> Result<Option<Closure>> {
        if closure_type_key(param.ty()).is_none() {
            return Ok(None);
        }
        // A closure's own copy or move constructor takes the source closure object itself.
        let of_closure_constructor = param.semantic_parent().is_some_and(|f| {
            f.kind() == CXCursor_Constructor
                && f.semantic_parent().is_some_and(|c| c.is_lambda_class())
        });
        if of_closure_constructor {
            return Ok(None);
        }
        if let Some(closure) = self.closures.get(&closure_declaration(param.ty())) {
            return Ok(Some(closure.clone()));
        }
        match self.host_lambda_of(param)? {
            // A device function given the closure object of a lambda that captures nothing.
            Some(lambda)
                if crate::captures::lambda_captures(&lambda).is_ok_and(|c| c.is_empty()) =>
            {
                Ok(Some(Closure {
                    lambda,
                    captures: Vec::new(),
                }))
            }
            _ => Err(FrontendError::unsupported(
                param.location(),
                "parameter holding a lambda that is not passed from this file",
            )),
        }
    }

    /// The lambda expression whose closure object a kernel parameter receives from host code;
    /// None for parameters not of closure type.
    pub(super) fn host_lambda_of(&self, param: &Cursor) -> Result<Option<Cursor>> {
        if closure_type_key(param.ty()).is_none() {
            return Ok(None);
        }
        match self.host_lambdas.get(&closure_declaration(param.ty())) {
            Some(lambda) => Ok(Some(*lambda)),
            None => Err(FrontendError::unsupported(
                param.location(),
                "parameter holding a lambda that is not passed from this file",
            )),
        }
    }
}

/// Device variable definitions in the main file, looking inside namespaces; a variable
/// template's instances (listed after the template, where clang instantiated them) included.
/// Whether a parameter of a device function is a class passed as the address of the caller's
/// temporary (the Itanium C++ ABI, for classes with a non-trivial copy, move or destructor).
pub fn passed_indirectly(param: &Cursor) -> bool {
    let ty = param.ty().canonical();
    ty.kind() == CXType_Record && ty.passed_indirectly()
}

/// A device function parameter's type in its signature: a class passed indirectly is a pointer.
pub fn parameter_type(param: &Cursor) -> Result<Ty> {
    let ty = Ty::of(param)?;
    Ok(match passed_indirectly(param) {
        true => Ty::Pointer {
            pointee: Box::new(ty),
        },
        false => ty,
    })
}

/// The first use of C's variable-argument builtins (`va_start`, `va_copy`, `va_end`) in a
/// function body: device code has no variable arguments to read (`va_arg` needs `va_start`).
fn reads_variable_arguments(body: &Cursor) -> Option<Cursor> {
    body.children().into_iter().find_map(|c| {
        if c.kind() == CXCursor_CallExpr && c.spelling().starts_with("__builtin_va_") {
            Some(c)
        } else {
            reads_variable_arguments(&c)
        }
    })
}

fn collect_device_variables(c: &Cursor, in_scope: &dyn Fn(&Cursor) -> bool, out: &mut Vec<Cursor>) {
    for child in c.children() {
        match child.kind() {
            CXCursor_Namespace | CXCursor_LinkageSpec if in_scope(&child) => {
                collect_device_variables(&child, in_scope, out)
            }
            CXCursor_VarDecl | CXCursor_UnexposedDecl
                if in_scope(&child) && child.is_definition() && is_device_variable(&child) =>
            {
                out.push(child)
            }
            _ => {}
        }
    }
}

/// Device function definitions in the main file that other sources may call: external
/// linkage (not `static`, inline or a template instance), looking inside namespaces.
fn collect_exported_device_functions(
    c: &Cursor,
    in_scope: &dyn Fn(&Cursor) -> bool,
    out: &mut Vec<Cursor>,
) {
    for child in c.children() {
        match child.kind() {
            CXCursor_Namespace | CXCursor_LinkageSpec if in_scope(&child) => {
                collect_exported_device_functions(&child, in_scope, out)
            }
            CXCursor_FunctionDecl
            | CXCursor_CXXMethod
            | CXCursor_Constructor
            | CXCursor_Destructor
                if child.is_definition()
                    && in_scope(&child)
                    && child.has_attr(CXCursor_CUDADeviceAttr)
                    && !is_kernel(&child)
                    && child.linkage() == Linkage::External =>
            {
                out.push(child)
            }
            _ => {}
        }
    }
}

/// Kernel definitions in the unit's files, looking inside namespaces and `extern "C"` blocks.
/// Only the unit's blocks are entered, here and in the two collectors above: a block opened in
/// another header holds nothing of the unit, and walking the system's and hipmlir's headers
/// (`namespace std` alone is thousands of declarations) would deserialize most of the
/// precompiled header.
fn collect_kernels(c: &Cursor, in_scope: &dyn Fn(&Cursor) -> bool, out: &mut Vec<Cursor>) {
    for child in c.children() {
        match child.kind() {
            // Classes too: a kernel may be a static member function.
            CXCursor_Namespace | CXCursor_LinkageSpec | CXCursor_StructDecl
            | CXCursor_ClassDecl
                if in_scope(&child) =>
            {
                collect_kernels(&child, in_scope, out)
            }
            CXCursor_FunctionDecl | CXCursor_CXXMethod
                if child.is_definition() && in_scope(&child) && is_kernel(&child) =>
            {
                out.push(child)
            }
            _ => {}
        }
    }
}
