//! One SPIR-V module per kernel, for the lazy per-kernel JIT (`opencl::jit`): a kernel, the
//! functions it calls, and the module's types, constants and variables.
//!
//! Kernels of one module share its mutable variables (`__device__` variables, and the device
//! heap's, abort word's and managed variables' pointers): programs built apart would each get
//! their own copy. So the variables live in one *globals module* (the module's types, constants
//! and variables, and a kernel [`GLOBALS_KERNEL`] that stores every shared variable's address),
//! and each kernel's module reaches them through a table of addresses, filled before its first
//! launch by its [`BIND_KERNEL`] from what the globals kernel stored: a function that uses a
//! shared variable loads its address from the table on entry, and the module's own copy of the
//! variable is dropped. Read-only variables (decorated `Constant`), work-group and private ones
//! stay in each module, as each program may have its own.
//!
//! A module is read once ([`SplitIndex::new`], at the level of words: a module of thousands of
//! kernels is large); only the small per-kernel module goes through rspirv to be rewritten.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use hipmlir_device_image::spirv_words::{self, spirv};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Instruction, Operand};
use spirv::{Decoration, ExecutionModel, FunctionControl, Op, StorageClass};

/// The globals module's kernel `(unsigned long long* out)`: `out[i]` = shared variable `i`'s
/// address.
pub const GLOBALS_KERNEL: &str = "__hipmlir_split_globals";
/// A kernel module's kernel `(const unsigned long long* addresses)` that copies the addresses of
/// the shared variables its kernel uses (from what [`GLOBALS_KERNEL`] stored) into its table.
pub const BIND_KERNEL: &str = "__hipmlir_split_bind";

/// What a module-level instruction concerns, for keeping it in a kernel's module or not.
#[derive(Debug, Clone, Copy)]
enum Level {
    /// `OpEntryPoint` of this function.
    EntryPoint(u32),
    /// `OpExecutionMode(Id)` of this entry point.
    ExecutionMode(u32),
    /// A name or decoration of this id.
    Target(u32),
    Other,
}

#[derive(Debug)]
struct FunctionRange {
    id: u32,
    words: Range<usize>,
    callees: Vec<u32>,
}

/// A module read for splitting.
#[derive(Debug)]
pub struct SplitIndex {
    words: Vec<u32>,
    module_level: Vec<(Range<usize>, Level)>,
    functions: Vec<FunctionRange>,
    function_by_id: HashMap<u32, usize>,
    /// Id → 1 + the index of the function that defines it; 0 (or past the end): module level.
    owner: Vec<u32>,
    /// Kernel name → its function's id.
    kernels: HashMap<String, u32>,
    /// The shared variables (id, pointer type), in table order.
    variables: Vec<(u32, u32)>,
}

/// A kernel's own module.
#[derive(Debug)]
pub struct KernelModule {
    pub spirv: Vec<u8>,
    /// Whether it has a table to fill through [`BIND_KERNEL`] before the kernel's first launch.
    pub binds: bool,
}

/// Where the grammar puts each opcode's result id (operand index), for opcodes that have one.
fn result_positions() -> &'static HashMap<u32, usize> {
    use rspirv::grammar::{OperandKind, INSTRUCTION_TABLE};
    static TABLE: OnceLock<HashMap<u32, usize>> = OnceLock::new();
    TABLE.get_or_init(|| {
        INSTRUCTION_TABLE
            .iter()
            .filter_map(|inst| {
                let position = inst
                    .operands
                    .iter()
                    .position(|o| o.kind == OperandKind::IdResult)?;
                Some((inst.opcode as u32, position))
            })
            .collect()
    })
}

/// Function pointers (SPV_INTEL_function_pointers) reach functions no call names.
const FUNCTION_POINTER_OPS: [u32; 2] = [5600, 5601];

impl SplitIndex {
    /// Reads `bytes`; `Ok(None)` when the module is not worth or not safe to split (fewer than two
    /// kernels, function pointers, decoration groups, what rspirv cannot rewrite).
    pub fn new(bytes: &[u8]) -> Result<Option<SplitIndex>, String> {
        let words = spirv_words::words(bytes).map_err(|e| e.to_string())?;
        let bound = *words
            .get(spirv_words::BOUND_WORD)
            .ok_or("truncated SPIR-V header")? as usize;
        let positions = result_positions();
        let mut owner = vec![0u32; bound.min(words.len() + 1)];
        let mut module_level = Vec::new();
        let mut functions: Vec<FunctionRange> = Vec::new();
        let mut kernels = HashMap::new();
        let mut constant = HashSet::new();
        let mut cross_workgroup = Vec::new();
        let mut open: Option<FunctionRange> = None;
        for inst in spirv_words::instructions(&words) {
            let inst = inst.map_err(|e| e.to_string())?;
            let opcode = inst.opcode();
            let range = inst.offset..inst.offset + inst.words.len();
            if FUNCTION_POINTER_OPS.contains(&opcode) {
                return Ok(None);
            }
            if let Some(function) = open.as_mut() {
                if let Some(id) = positions.get(&opcode).and_then(|&p| inst.operand(p)) {
                    if let Some(slot) = owner.get_mut(id as usize) {
                        *slot = functions.len() as u32 + 1;
                    }
                }
                if inst.is(Op::FunctionCall) {
                    function.callees.extend(inst.operand(2));
                }
                if inst.is(Op::FunctionEnd) {
                    let mut done = open.take().ok_or("unbalanced OpFunctionEnd")?;
                    done.words.end = range.end;
                    functions.push(done);
                }
                continue;
            }
            let op = inst.op();
            let level = match op {
                Some(Op::Function) => {
                    let id = inst.operand(1).ok_or("OpFunction without an id")?;
                    if let Some(slot) = owner.get_mut(id as usize) {
                        *slot = functions.len() as u32 + 1;
                    }
                    open = Some(FunctionRange {
                        id,
                        words: range,
                        callees: Vec::new(),
                    });
                    continue;
                }
                Some(Op::EntryPoint) => {
                    let id = inst.operand(1).ok_or("OpEntryPoint without a function")?;
                    kernels.insert(inst.string(2), id);
                    Level::EntryPoint(id)
                }
                Some(Op::ExecutionMode | Op::ExecutionModeId) => {
                    Level::ExecutionMode(inst.operand(0).unwrap_or(0))
                }
                // What the split's rewriting (rspirv) cannot read whole, and decoration
                // groups, whose targets it does not sort out: such a module is built whole.
                Some(Op::DecorationGroup | Op::GroupDecorate | Op::GroupMemberDecorate) => {
                    return Ok(None)
                }
                Some(Op::SpecConstantOp) => return Ok(None),
                Some(Op::ExtInstImport) if !inst.string_is(1, "OpenCL.std") => return Ok(None),
                Some(
                    Op::Name
                    | Op::MemberName
                    | Op::Decorate
                    | Op::MemberDecorate
                    | Op::DecorateId
                    | Op::DecorateString
                    | Op::MemberDecorateString,
                ) => {
                    let target = inst.operand(0).unwrap_or(0);
                    if inst.is(Op::Decorate) && inst.operand(1) == Some(Decoration::Constant as u32)
                    {
                        constant.insert(target);
                    }
                    Level::Target(target)
                }
                Some(Op::Variable)
                    if inst.operand(2) == Some(StorageClass::CrossWorkgroup as u32) =>
                {
                    cross_workgroup.extend(inst.operand(1).zip(inst.operand(0)));
                    Level::Other
                }
                _ => Level::Other,
            };
            module_level.push((range, level));
        }
        if open.is_some() {
            return Err("a function without OpFunctionEnd".into());
        }
        if kernels.len() < 2 {
            return Ok(None);
        }
        let function_by_id = (functions.iter().enumerate())
            .map(|(i, f)| (f.id, i))
            .collect();
        let variables = cross_workgroup
            .into_iter()
            .filter(|(id, _)| !constant.contains(id))
            .collect();
        Ok(Some(SplitIndex {
            words,
            module_level,
            functions,
            function_by_id,
            owner,
            kernels,
            variables,
        }))
    }

    /// The module's kernels, by name.
    pub fn has_kernel(&self, name: &str) -> bool {
        self.kernels.contains_key(name)
    }

    /// How many shared variables the globals module holds (the length of its kernel's output).
    pub fn variable_count(&self) -> usize {
        self.variables.len()
    }

    /// The functions reachable from `root` through calls.
    fn reachable(&self, root: u32) -> HashSet<usize> {
        let mut seen = HashSet::new();
        let mut todo: Vec<u32> = vec![root];
        while let Some(id) = todo.pop() {
            let Some(&index) = self.function_by_id.get(&id) else {
                continue;
            };
            if seen.insert(index) {
                todo.extend(&self.functions[index].callees);
            }
        }
        seen
    }

    /// The words of the module cut down to `kernel` (and what it calls), or to no function at all.
    fn extract(&self, kernel: Option<u32>) -> Vec<u32> {
        let kept = kernel.map(|k| self.reachable(k)).unwrap_or_default();
        let mut out = Vec::with_capacity(self.words.len().min(1 << 20));
        out.extend_from_slice(&self.words[..spirv_words::HEADER_WORDS]);
        for (range, level) in &self.module_level {
            let keep = match *level {
                Level::EntryPoint(f) | Level::ExecutionMode(f) => Some(f) == kernel,
                Level::Target(id) => match self.owner.get(id as usize) {
                    Some(&o) if o > 0 => kept.contains(&(o as usize - 1)),
                    _ => true,
                },
                Level::Other => true,
            };
            if keep {
                out.extend_from_slice(&self.words[range.clone()]);
            }
        }
        for (i, f) in self.functions.iter().enumerate() {
            if kept.contains(&i) {
                out.extend_from_slice(&self.words[f.words.clone()]);
            }
        }
        out
    }

    /// The module of kernel `name` alone; its shared variables reached through its table.
    pub fn kernel_module(&self, name: &str) -> Result<KernelModule, String> {
        let &root = self
            .kernels
            .get(name)
            .ok_or_else(|| format!("no kernel '{name}' in the module"))?;
        let mut module = crate::spirv::load_exact(&self.extract(Some(root)))?;
        let slots: HashMap<u32, usize> = (self.variables.iter().enumerate())
            .map(|(i, &(id, _))| (id, i))
            .collect();
        drop_unreferenced_variables(&mut module, &slots);
        let used: Vec<Vec<usize>> = module
            .functions
            .iter()
            .map(|f| {
                let mut used: Vec<usize> = (f.all_inst_iter())
                    .flat_map(|i| i.operands.iter())
                    .filter_map(|o| o.id_ref_any().and_then(|id| slots.get(&id).copied()))
                    .collect::<HashSet<_>>()
                    .into_iter()
                    .collect();
                used.sort_unstable();
                used
            })
            .collect();
        if used.iter().all(Vec::is_empty) {
            return Ok(KernelModule {
                spirv: spirv_words::to_bytes(&module.assemble()),
                binds: false,
            });
        }
        let version = module.header.as_ref().map_or(0, |h| h.version);
        let mut b = Builder::new_from_module(module);
        let ulong = b.type_int(64, 0);
        let uint = b.type_int(32, 0);
        let length = b.constant_bit32(uint, self.variables.len() as u32);
        let array = b.type_array(ulong, length);
        let array_pointer = b.type_pointer(None, StorageClass::CrossWorkgroup, array);
        let null = b.constant_null(array);
        let table = b.variable(
            array_pointer,
            None,
            StorageClass::CrossWorkgroup,
            Some(null),
        );
        let element = b.type_pointer(None, StorageClass::CrossWorkgroup, ulong);
        let mut index32: HashMap<usize, u32> = HashMap::new();
        let mut index = |b: &mut Builder, slot: usize| {
            *index32
                .entry(slot)
                .or_insert_with(|| b.constant_bit32(uint, slot as u32))
        };
        // Each function loads the addresses it uses on entry and uses them in place of the
        // variables.
        for (f, used) in used.iter().enumerate() {
            if used.is_empty() {
                continue;
            }
            let mut prologue = Vec::new();
            let mut replaced = HashMap::new();
            for &slot in used {
                let (variable, pointer_type) = self.variables[slot];
                let at = index(&mut b, slot);
                let (entry, value, address) = (b.id(), b.id(), b.id());
                prologue.push(Instruction::new(
                    Op::InBoundsAccessChain,
                    Some(element),
                    Some(entry),
                    vec![Operand::IdRef(table), Operand::IdRef(at)],
                ));
                prologue.push(Instruction::new(
                    Op::Load,
                    Some(ulong),
                    Some(value),
                    vec![Operand::IdRef(entry)],
                ));
                prologue.push(Instruction::new(
                    Op::ConvertUToPtr,
                    Some(pointer_type),
                    Some(address),
                    vec![Operand::IdRef(value)],
                ));
                replaced.insert(variable, address);
            }
            let function = &mut b.module_mut().functions[f];
            for inst in function
                .blocks
                .iter_mut()
                .flat_map(|block| block.instructions.iter_mut())
            {
                for operand in &mut inst.operands {
                    if let Operand::IdRef(id) = operand {
                        if let Some(&to) = replaced.get(id) {
                            *id = to;
                        }
                    }
                }
            }
            let first = function
                .blocks
                .first_mut()
                .ok_or("a function with no block")?;
            let at = first
                .instructions
                .iter()
                .position(|i| !matches!(i.class.opcode, Op::Variable | Op::Line | Op::NoLine))
                .unwrap_or(first.instructions.len());
            first.instructions.splice(at..at, prologue);
        }
        // The bind kernel: table[i] = addresses[i] for each variable the kernel reaches.
        let mut all_used: Vec<usize> = used.into_iter().flatten().collect();
        all_used.sort_unstable();
        all_used.dedup();
        let void = b.type_void();
        let signature = b.type_function(void, [element]);
        let bind = b
            .begin_function(void, None, FunctionControl::NONE, signature)
            .map_err(|e| e.to_string())?;
        let addresses = b.function_parameter(element).map_err(|e| e.to_string())?;
        b.begin_block(None).map_err(|e| e.to_string())?;
        for slot in all_used {
            let at = index(&mut b, slot);
            let at64 = b.constant_bit64(ulong, slot as u64);
            let from = b
                .in_bounds_ptr_access_chain(element, None, addresses, at64, [])
                .map_err(|e| e.to_string())?;
            let value = b
                .load(ulong, None, from, None, [])
                .map_err(|e| e.to_string())?;
            let to = b
                .in_bounds_access_chain(element, None, table, [at])
                .map_err(|e| e.to_string())?;
            b.store(to, value, None, []).map_err(|e| e.to_string())?;
        }
        b.ret().map_err(|e| e.to_string())?;
        b.end_function().map_err(|e| e.to_string())?;
        // From SPIR-V 1.4 an entry point lists every global variable it uses.
        let interface: Vec<u32> = if version >= 0x0001_0400 {
            vec![table]
        } else {
            Vec::new()
        };
        b.entry_point(ExecutionModel::Kernel, bind, BIND_KERNEL, interface.clone());
        b.name(bind, BIND_KERNEL);
        let mut module = b.module();
        for entry in &mut module.entry_points {
            if entry.operands.get(1) == Some(&Operand::IdRef(root)) {
                entry
                    .operands
                    .extend(interface.iter().map(|&id| Operand::IdRef(id)));
            }
        }
        Ok(KernelModule {
            spirv: spirv_words::to_bytes(&module.assemble()),
            binds: true,
        })
    }

    /// The globals module: the module's types, constants and variables, and [`GLOBALS_KERNEL`].
    pub fn globals_module(&self) -> Result<Vec<u8>, String> {
        let module = crate::spirv::load_exact(&self.extract(None))?;
        let version = module.header.as_ref().map_or(0, |h| h.version);
        let mut b = Builder::new_from_module(module);
        let ulong = b.type_int(64, 0);
        let element = b.type_pointer(None, StorageClass::CrossWorkgroup, ulong);
        let void = b.type_void();
        let signature = b.type_function(void, [element]);
        let kernel = b
            .begin_function(void, None, FunctionControl::NONE, signature)
            .map_err(|e| e.to_string())?;
        let out = b.function_parameter(element).map_err(|e| e.to_string())?;
        b.begin_block(None).map_err(|e| e.to_string())?;
        for (slot, &(variable, _)) in self.variables.iter().enumerate() {
            let address = b
                .convert_ptr_to_u(ulong, None, variable)
                .map_err(|e| e.to_string())?;
            let at = b.constant_bit64(ulong, slot as u64);
            let to = b
                .in_bounds_ptr_access_chain(element, None, out, at, [])
                .map_err(|e| e.to_string())?;
            b.store(to, address, None, []).map_err(|e| e.to_string())?;
        }
        b.ret().map_err(|e| e.to_string())?;
        b.end_function().map_err(|e| e.to_string())?;
        let interface: Vec<u32> = if version >= 0x0001_0400 {
            self.variables.iter().map(|&(id, _)| id).collect()
        } else {
            Vec::new()
        };
        b.entry_point(ExecutionModel::Kernel, kernel, GLOBALS_KERNEL, interface);
        b.name(kernel, GLOBALS_KERNEL);
        Ok(spirv_words::to_bytes(&b.module().assemble()))
    }
}

/// Drops the shared variables nothing at module level refers to (an initializer may take another
/// variable's address: that one stays, unused by the functions), with their names and
/// decorations: a kernel's module holds no storage of its own for them.
fn drop_unreferenced_variables(module: &mut rspirv::dr::Module, slots: &HashMap<u32, usize>) {
    let referenced: HashSet<u32> = (module.types_global_values.iter())
        .flat_map(|i| i.operands.iter())
        .filter_map(Operand::id_ref_any)
        .collect();
    let dropped: HashSet<u32> = (module.types_global_values.iter())
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| i.result_id)
        .filter(|id| slots.contains_key(id) && !referenced.contains(id))
        .collect();
    if dropped.is_empty() {
        return;
    }
    let names_dropped = |i: &Instruction| {
        i.operands
            .first()
            .and_then(Operand::id_ref_any)
            .is_some_and(|id| dropped.contains(&id))
    };
    module
        .types_global_values
        .retain(|i| !i.result_id.is_some_and(|id| dropped.contains(&id)));
    module.debug_names.retain(|i| !names_dropped(i));
    module.annotations.retain(|i| !names_dropped(i));
    for entry in &mut module.entry_points {
        entry
            .operands
            .retain(|o| !o.id_ref_any().is_some_and(|id| dropped.contains(&id)));
    }
}
