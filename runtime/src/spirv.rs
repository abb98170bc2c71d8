//! A small SPIR-V reader: the kernels of a module and the size, alignment and kind of each
//! parameter, read from `OpEntryPoint`, `OpFunction`, `OpFunctionParameter`, the `OpType*`
//! instructions and `FuncParamAttr ByVal` decorations.
//!
//! It serves two purposes:
//! * a raw SPIR-V module given to `hipModuleLoad`/`hipModuleLoadData` has no hipmlir metadata, yet
//!   `hipModuleLaunchKernel` with `kernelParams` must know each argument's size. The SPIR-V itself
//!   says it (clGetKernelArgInfo would need `-cl-kernel-arg-info`, which drivers do not honour for
//!   programs created from IL, and it gives type *names*, not sizes);
//! * for hipmlir's own images it tells the launcher which by-value arguments the compiler moved
//!   to memory (metadata says "by value", SPIR-V takes an address): those are spilled to a device
//!   buffer (see `launch`); and which addresses the entry point takes as 64-bit integers (set by
//!   value) rather than as pointers (set through the memory backend's pointer setter).
//!
//! Layout rules are OpenCL C's (= the C ABI of spirv64): scalars and pointers are naturally
//! aligned, 3-element vectors take the room of 4, structs are laid out like C structs unless
//! decorated `CPacked`.

use std::collections::HashMap;

use hipmlir_device_image::spirv_words::{self, spirv::StorageClass};
use hipmlir_device_image::{AddressSpace, KernelArg, KernelInfo};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, ExecutionModel, FunctionParameterAttribute, Op};

pub use spirv_words::looks_like_spirv;

/// How a kernel parameter is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// A pointer into `class`. Not by value.
    Pointer(StorageClass),
    /// Passed by value (a scalar, a vector, or an aggregate behind a `ByVal` pointer).
    Value { size: u64, align: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpirvKernel {
    pub name: String,
    pub params: Vec<Param>,
}

impl SpirvKernel {
    /// hipmlir kernel metadata for this kernel, as the C layout of its parameters.
    pub fn to_kernel_info(&self) -> KernelInfo {
        let mut args: Vec<KernelArg> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (size, align, is_pointer, address_space) = match *p {
                    Param::Pointer(class) => (
                        8,
                        8,
                        true,
                        match class {
                            StorageClass::Workgroup => AddressSpace::Workgroup,
                            StorageClass::UniformConstant => AddressSpace::Constant,
                            _ => AddressSpace::Global,
                        },
                    ),
                    Param::Value { size, align } => (size, align, false, AddressSpace::Private),
                };
                KernelArg {
                    name: format!("arg{i}"),
                    r#type: String::new(),
                    offset: 0,
                    size,
                    align,
                    is_pointer,
                    address_space,
                }
            })
            .collect();
        let args_size = KernelArg::layout(&mut args);
        KernelInfo {
            name: self.name.clone(),
            source_name: self.name.clone(),
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
enum Type {
    Scalar { size: u64 },
    Vector { elem: u32, count: u64 },
    Array { elem: u32, length: u32 },
    Struct { members: Vec<u32> },
    Pointer { class: StorageClass, pointee: u32 },
    Other,
}

struct Reader {
    types: HashMap<u32, Type>,
    constants: HashMap<u32, u64>,
    packed: std::collections::HashSet<u32>,
    byval: std::collections::HashSet<u32>,
    alignment: HashMap<u32, u64>,
}

impl Reader {
    /// (size, align) of a type; recursion is bounded by `depth`.
    fn layout(&self, id: u32, depth: u32) -> Result<(u64, u64), String> {
        if depth > 64 {
            return Err("type nesting too deep".into());
        }
        let ty = self
            .types
            .get(&id)
            .ok_or_else(|| format!("type %{id} is not defined"))?;
        Ok(match ty {
            Type::Scalar { size } => (*size, (*size).max(1)),
            Type::Pointer { .. } => (8, 8),
            Type::Vector { elem, count } => {
                let (s, _) = self.layout(*elem, depth + 1)?;
                let n = if *count == 3 { 4 } else { *count };
                let size = s.saturating_mul(n);
                (size, size.max(1))
            }
            Type::Array { elem, length } => {
                let (s, a) = self.layout(*elem, depth + 1)?;
                let n = self
                    .constants
                    .get(length)
                    .copied()
                    .ok_or_else(|| format!("array length %{length} is not a constant"))?;
                (s.saturating_mul(n), a)
            }
            Type::Struct { members } => {
                let packed = self.packed.contains(&id);
                let (mut end, mut max_align) = (0u64, 1u64);
                for &m in members {
                    let (s, a) = self.layout(m, depth + 1)?;
                    let a = if packed { 1 } else { a.max(1) };
                    end = end.next_multiple_of(a).saturating_add(s);
                    max_align = max_align.max(a);
                }
                (end.next_multiple_of(max_align), max_align)
            }
            Type::Other => return Err(format!("type %{id} cannot be a kernel parameter")),
        })
    }
}

/// The module with every instruction's word count checked to end inside it, as little-endian
/// bytes, less what rspirv 0.13 cannot parse without panicking and the kernel reader does not
/// need: instructions of extended sets other than OpenCL.std (its debug-information sets are
/// `todo!()`), `OpSpecConstantOp` (whose nested operands hit `panic!()`) and
/// `OpConstantFunctionPointerINTEL` (hipmlir's recursive calls: rspirv takes it for an
/// instruction of a function body and refuses it among the globals). Found by
/// tests/fuzz.rs, as was rspirv's string decoder slicing past the end of a module whose last
/// instruction claims more words than remain.
fn readable_part(words: &[u32]) -> Result<Vec<u8>, String> {
    let mut out: Vec<u32> = Vec::with_capacity(words.len());
    out.extend(words.iter().take(spirv_words::HEADER_WORDS));
    let mut other_sets = std::collections::HashSet::new();
    for inst in spirv_words::instructions(words) {
        let inst = inst.map_err(|e| e.to_string())?;
        let keep = match inst.op() {
            Some(Op::ExtInstImport) => {
                let opencl = inst.string_is(1, "OpenCL.std");
                if !opencl {
                    other_sets.insert(inst.operand(0).unwrap_or(0));
                }
                opencl
            }
            Some(Op::ExtInst) => !inst.operand(2).is_some_and(|set| other_sets.contains(&set)),
            Some(Op::SpecConstantOp | Op::ConstantFunctionPointerINTEL) => false,
            _ => true,
        };
        if keep {
            out.extend_from_slice(inst.words);
        }
    }
    Ok(spirv_words::to_bytes(&out))
}

/// A module as rspirv reads it with every instruction kept, for rewriting (`spirv_split`);
/// `Err` where rspirv cannot read it whole (see [`readable_part`]): the caller then leaves the
/// module as it is.
pub fn load_exact(words: &[u32]) -> Result<rspirv::dr::Module, String> {
    rspirv_load(&spirv_words::to_bytes(words))
}

/// rspirv's loader, with any panic it still has for some input made an error (and kept off
/// stderr): the runtime reads modules it did not write.
fn rspirv_load(le: &[u8]) -> Result<rspirv::dr::Module, String> {
    thread_local!(static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info)
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(|| rspirv::dr::load_bytes(le));
    QUIET.with(|q| q.set(false));
    match result {
        Ok(Ok(module)) => Ok(module),
        Ok(Err(e)) => Err(format!("malformed SPIR-V: {e}")),
        Err(panic) => Err(format!(
            "malformed SPIR-V (rspirv: {})",
            panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "cannot parse it".into())
        )),
    }
}

/// A module read through rspirv's grammar-driven parser: every instruction's length and operands
/// are checked against the SPIR-V grammar, so nothing here indexes raw words. The header must
/// be SPIR-V 1.0 to 1.6 with schema 0, and every id (results and operands) must lie below the
/// header's bound: a driver handed an id past the bound may crash rather than fail.
pub fn load(bytes: &[u8]) -> Result<rspirv::dr::Module, String> {
    // rspirv reads little-endian modules only: a byte-swapped one is swapped first.
    let words = spirv_words::words(bytes).map_err(|e| e.to_string())?;
    let module = rspirv_load(&readable_part(&words)?)?;
    spirv_words::check_header(words[1], words[4]).map_err(|e| e.to_string())?;
    let bound = words[spirv_words::BOUND_WORD];
    for inst in module.all_inst_iter() {
        let ids = inst.result_id.into_iter().chain(inst.result_type).chain(
            inst.operands.iter().filter_map(|o| match *o {
                Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => {
                    Some(id)
                }
                _ => None,
            }),
        );
        for id in ids {
            if id == 0 || id >= bound {
                return Err(format!(
                    "{:?} uses id %{id}, outside the module's bound {bound}",
                    inst.class.opcode
                ));
            }
        }
    }
    Ok(module)
}

/// The kernels (`OpEntryPoint Kernel`) of a module and their parameters.
pub fn parse_kernels(bytes: &[u8]) -> Result<Vec<SpirvKernel>, String> {
    let module = load(bytes)?;
    let mut reader = Reader {
        types: HashMap::new(),
        constants: HashMap::new(),
        packed: Default::default(),
        byval: Default::default(),
        alignment: HashMap::new(),
    };
    let id = |inst: &Instruction, i: usize| match inst.operands.get(i) {
        Some(Operand::IdRef(id)) => Ok(*id),
        _ => Err(format!("{:?} lacks its operand {i}", inst.class.opcode)),
    };
    let literal = |inst: &Instruction, i: usize| match inst.operands.get(i) {
        Some(Operand::LiteralBit32(n)) => Ok(*n),
        _ => Err(format!(
            "{:?} lacks its literal operand {i}",
            inst.class.opcode
        )),
    };
    for inst in &module.annotations {
        if inst.class.opcode != Op::Decorate {
            continue;
        }
        let target = id(inst, 0)?;
        match inst.operands.get(1) {
            Some(Operand::Decoration(Decoration::CPacked)) => {
                reader.packed.insert(target);
            }
            Some(Operand::Decoration(Decoration::FuncParamAttr)) => {
                if let Some(Operand::FunctionParameterAttribute(
                    FunctionParameterAttribute::ByVal,
                )) = inst.operands.get(2)
                {
                    reader.byval.insert(target);
                }
            }
            Some(Operand::Decoration(Decoration::Alignment)) => {
                reader
                    .alignment
                    .insert(target, u64::from(literal(inst, 2)?));
            }
            _ => {}
        }
    }
    for inst in &module.types_global_values {
        let Some(result) = inst.result_id else {
            continue;
        };
        let ty = match inst.class.opcode {
            Op::TypeBool => Type::Scalar { size: 1 },
            Op::TypeInt | Op::TypeFloat => Type::Scalar {
                size: u64::from(literal(inst, 0)?).div_ceil(8),
            },
            Op::TypeVector => Type::Vector {
                elem: id(inst, 0)?,
                count: u64::from(literal(inst, 1)?),
            },
            Op::TypeArray => Type::Array {
                elem: id(inst, 0)?,
                length: id(inst, 1)?,
            },
            Op::TypeStruct => Type::Struct {
                members: (0..inst.operands.len())
                    .map(|i| id(inst, i))
                    .collect::<Result<_, _>>()?,
            },
            Op::TypePointer => match inst.operands.first() {
                Some(Operand::StorageClass(class)) => Type::Pointer {
                    class: *class,
                    pointee: id(inst, 1)?,
                },
                _ => return Err("OpTypePointer lacks its storage class".into()),
            },
            Op::Constant => {
                let value = match inst.operands.first() {
                    Some(Operand::LiteralBit32(n)) => u64::from(*n),
                    Some(Operand::LiteralBit64(n)) => *n,
                    _ => continue,
                };
                reader.constants.insert(result, value);
                continue;
            }
            op if format!("{op:?}").starts_with("Type") => Type::Other,
            _ => continue,
        };
        reader.types.entry(result).or_insert(ty);
    }
    // function id -> parameter (type id, result id)s
    let functions: HashMap<u32, Vec<(u32, u32)>> = module
        .functions
        .iter()
        .filter_map(|f| {
            let def = f.def.as_ref()?;
            let params = f
                .parameters
                .iter()
                .filter_map(|p| Some((p.result_type?, p.result_id?)))
                .collect();
            Some((def.result_id?, params))
        })
        .collect();
    let mut entry_points = Vec::new();
    for inst in &module.entry_points {
        if let (
            Some(Operand::ExecutionModel(ExecutionModel::Kernel)),
            Some(Operand::LiteralString(name)),
        ) = (inst.operands.first(), inst.operands.get(2))
        {
            entry_points.push((id(inst, 1)?, name.clone()));
        }
    }
    entry_points
        .into_iter()
        .map(|(function, name)| {
            let params = functions
                .get(&function)
                .ok_or_else(|| format!("entry point '{name}' names no function"))?;
            let params = params
                .iter()
                .map(|&(ty, id)| {
                    let t = reader.types.get(&ty).ok_or_else(|| {
                        format!("kernel '{name}': parameter type %{ty} undefined")
                    })?;
                    match t {
                        Type::Pointer { pointee, .. } if reader.byval.contains(&id) => {
                            let (size, natural) = reader
                                .layout(*pointee, 0)
                                .map_err(|e| format!("kernel '{name}': {e}"))?;
                            let align = reader.alignment.get(&id).copied().unwrap_or(natural);
                            Ok(Param::Value { size, align })
                        }
                        Type::Pointer { class, .. } => Ok(Param::Pointer(*class)),
                        _ => {
                            let (size, align) = reader
                                .layout(ty, 0)
                                .map_err(|e| format!("kernel '{name}': {e}"))?;
                            Ok(Param::Value { size, align })
                        }
                    }
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(SpirvKernel { name, params })
        })
        .collect()
}

/// A minimal valid module whose kernels take `n` ints each (tests of modules' users).
#[cfg(test)]
pub fn test_module(kernels: &[(&str, usize)]) -> Vec<u8> {
    let string = spirv_words::encode_string;
    let mut insts: Vec<(Op, Vec<u32>)> = vec![
        (
            Op::Capability,
            vec![rspirv::spirv::Capability::Kernel as u32],
        ),
        (Op::MemoryModel, vec![2, 2]),
    ];
    let mut next = 10;
    let mut functions = Vec::new();
    for (name, n) in kernels {
        let mut ep = vec![ExecutionModel::Kernel as u32, next];
        ep.extend(string(name));
        insts.push((Op::EntryPoint, ep));
        functions.push((next, *n));
        next += 1;
    }
    insts.push((Op::TypeVoid, vec![1]));
    insts.push((Op::TypeInt, vec![2, 32, 0]));
    let mut fn_types = Vec::new();
    for (_, n) in &functions {
        let mut t = vec![next, 1];
        t.extend(std::iter::repeat_n(2, *n));
        insts.push((Op::TypeFunction, t));
        fn_types.push(next);
        next += 1;
    }
    for ((id, n), ty) in functions.iter().zip(fn_types) {
        insts.push((Op::Function, vec![1, *id, 0, ty]));
        for _ in 0..*n {
            insts.push((Op::FunctionParameter, vec![2, next]));
            next += 1;
        }
        insts.push((Op::Label, vec![next]));
        next += 1;
        insts.push((Op::Return, vec![]));
        insts.push((Op::FunctionEnd, vec![]));
    }
    let mut w = vec![spirv_words::MAGIC, 0x0001_0000, 0, next, 0];
    for (op, ops) in insts {
        w.push(((ops.len() as u32 + 1) << 16) | op as u32);
        w.extend(ops);
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OP_ENTRY_POINT: u32 = Op::EntryPoint as u32;
    const OP_DECORATE: u32 = Op::Decorate as u32;
    const OP_TYPE_INT: u32 = Op::TypeInt as u32;
    const OP_TYPE_FLOAT: u32 = Op::TypeFloat as u32;
    const OP_TYPE_VECTOR: u32 = Op::TypeVector as u32;
    const OP_TYPE_STRUCT: u32 = Op::TypeStruct as u32;
    const OP_TYPE_POINTER: u32 = Op::TypePointer as u32;
    const OP_FUNCTION: u32 = Op::Function as u32;
    const OP_FUNCTION_END: u32 = Op::FunctionEnd as u32;
    const OP_FUNCTION_PARAMETER: u32 = Op::FunctionParameter as u32;
    const EXECUTION_MODEL_KERNEL: u32 = ExecutionModel::Kernel as u32;
    const DECORATION_FUNC_PARAM_ATTR: u32 = Decoration::FuncParamAttr as u32;
    const FUNC_PARAM_ATTR_BYVAL: u32 = FunctionParameterAttribute::ByVal as u32;

    /// Assembles instructions: (opcode, operands).
    fn module(insts: &[(u32, Vec<u32>)]) -> Vec<u8> {
        let mut w = vec![spirv_words::MAGIC, 0x0001_0000, 0, 100, 0];
        for (op, ops) in insts {
            w.push(((ops.len() as u32 + 1) << 16) | op);
            w.extend(ops);
        }
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    use spirv_words::encode_string as string;

    fn sample() -> Vec<u8> {
        module(&sample_insts())
    }

    fn sample_insts() -> Vec<(u32, Vec<u32>)> {
        // kernel k(global float* p, int n, char c, struct {char; double; int} s byval,
        //          local int* l, float3 v, double d)
        let mut ep = vec![EXECUTION_MODEL_KERNEL, 50];
        ep.extend(string("_Z1kPfi"));
        vec![
            (OP_ENTRY_POINT, ep),
            (
                OP_DECORATE,
                vec![63, DECORATION_FUNC_PARAM_ATTR, FUNC_PARAM_ATTR_BYVAL],
            ),
            (19, vec![1]),                           // void
            (OP_TYPE_FLOAT, vec![2, 32]),            // float
            (OP_TYPE_INT, vec![3, 32, 0]),           // int
            (OP_TYPE_INT, vec![4, 8, 0]),            // char
            (OP_TYPE_FLOAT, vec![5, 64]),            // double
            (OP_TYPE_POINTER, vec![6, 5, 2]),        // global float*
            (OP_TYPE_STRUCT, vec![7, 4, 5, 3]),      // {char, double, int}
            (OP_TYPE_POINTER, vec![8, 7, 7]),        // function-space struct*
            (OP_TYPE_POINTER, vec![9, 4, 3]),        // local int*
            (OP_TYPE_VECTOR, vec![10, 2, 3]),        // float3
            (33, vec![11, 1, 6, 3, 4, 8, 9, 10, 5]), // function type
            (OP_FUNCTION, vec![1, 50, 0, 11]),
            (OP_FUNCTION_PARAMETER, vec![6, 60]),
            (OP_FUNCTION_PARAMETER, vec![3, 61]),
            (OP_FUNCTION_PARAMETER, vec![4, 62]),
            (OP_FUNCTION_PARAMETER, vec![8, 63]),
            (OP_FUNCTION_PARAMETER, vec![9, 64]),
            (OP_FUNCTION_PARAMETER, vec![10, 65]),
            (OP_FUNCTION_PARAMETER, vec![5, 66]),
            (248, vec![70]), // OpLabel
            (253, vec![]),   // OpReturn
            (OP_FUNCTION_END, vec![]),
        ]
    }

    #[test]
    fn reads_kernel_parameters() {
        let kernels = parse_kernels(&sample()).unwrap();
        assert_eq!(kernels.len(), 1);
        let k = &kernels[0];
        assert_eq!(k.name, "_Z1kPfi");
        assert_eq!(
            k.params,
            vec![
                Param::Pointer(StorageClass::CrossWorkgroup),
                Param::Value { size: 4, align: 4 },
                Param::Value { size: 1, align: 1 },
                Param::Value { size: 24, align: 8 },
                Param::Pointer(StorageClass::Workgroup),
                Param::Value {
                    size: 16,
                    align: 16
                },
                Param::Value { size: 8, align: 8 },
            ]
        );
        let info = k.to_kernel_info();
        let offsets: Vec<u64> = info.args.iter().map(|a| a.offset).collect();
        assert_eq!(offsets, [0, 8, 12, 16, 40, 48, 64]);
        assert_eq!(info.args_size, 80);
        assert_eq!(info.args[4].address_space, AddressSpace::Workgroup);
    }

    #[test]
    fn what_rspirv_panics_on_is_read_or_refused() {
        let function = sample_insts()
            .iter()
            .position(|(op, _)| *op == Op::Function as u32)
            .unwrap();
        // OpSpecConstantOp of OpConstant reached rspirv's panic!() (found by tests/fuzz.rs).
        let mut insts = sample_insts();
        insts.insert(
            function,
            (
                Op::SpecConstantOp as u32,
                vec![3, 90, Op::Constant as u32, 7],
            ),
        );
        assert_eq!(parse_kernels(&module(&insts)).unwrap().len(), 1);
        // A debug-information extended set (rspirv's todo!()) is skipped: the kernels still read.
        let mut insts = sample_insts();
        let label = insts.iter().position(|(op, _)| *op == 248).unwrap();
        insts.insert(label + 1, (Op::ExtInst as u32, vec![1, 92, 91, 1, 2]));
        insts.insert(
            1,
            (
                Op::ExtInstImport as u32,
                [vec![91], string("OpenCL.DebugInfo.100")].concat(),
            ),
        );
        assert_eq!(parse_kernels(&module(&insts)).unwrap()[0].name, "_Z1kPfi");
        // An OpExtInstImport without operands (found by the campaign: the set's name was sliced
        // unchecked); like any import other than OpenCL.std, the kernel reader skips it.
        let mut insts = sample_insts();
        insts.insert(1, (Op::ExtInstImport as u32, vec![]));
        assert_eq!(parse_kernels(&module(&insts)).unwrap().len(), 1);
    }

    #[test]
    fn byte_swapped_modules_read_the_same() {
        let le = sample();
        let be: Vec<u8> = le
            .chunks(4)
            .flat_map(|c| [c[3], c[2], c[1], c[0]])
            .collect();
        assert_eq!(parse_kernels(&be).unwrap(), parse_kernels(&le).unwrap());
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_kernels(&[1, 2, 3]).is_err());
        assert!(parse_kernels(&[0u8; 40]).is_err());
        let mut m = sample();
        m.truncate(m.len() - 12); // inside OpLabel
        assert!(parse_kernels(&m).is_err());
        let mut m = sample();
        m[20..24].copy_from_slice(&0u32.to_le_bytes()); // word count 0
        assert!(parse_kernels(&m).is_err());
        // An entry point (with its string operand) claiming words past the end: rspirv's string
        // decoder panicked on it (found by tests/fuzz.rs).
        let mut m = sample();
        m[22..24].copy_from_slice(&0xffffu16.to_le_bytes());
        assert!(parse_kernels(&m).is_err());
    }

    #[test]
    fn module_length_finds_the_end() {
        use spirv_words::module_length;
        let m = sample();
        let words: Vec<u32> = m
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // Followed by unrelated data.
        let mut padded = words.clone();
        padded.extend([0xdead_beef, 7, 9]);
        assert_eq!(
            module_length(|i| padded.get(i).copied()).ok(),
            Some(m.len())
        );
        // Exactly at the end of readable memory.
        assert_eq!(module_length(|i| words.get(i).copied()).ok(), Some(m.len()));
        assert!(module_length(|i| words[..words.len() - 2].get(i).copied()).is_err());
        assert!(module_length(|i| [1u32, 2, 3].get(i).copied()).is_err());
    }
}
