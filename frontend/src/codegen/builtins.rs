//! HIP's device builtins declared by hipmlir's headers: synchronization and atomics.
//!
//! They are emitted with target-neutral ops (gpu.barrier, the LLVM dialect's fence, atomicrmw
//! and cmpxchg); dialect-passes lowers those to SPIR-V.

use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::attribute::{IntegerAttribute, StringAttribute};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Location, ValueLike};

use super::builder::ReduceOperation;
use super::function::{FunctionCodegen, Val};
use crate::clang::Cursor;
use crate::error::{FrontendError, Result};
use crate::types::{AddrSpace, Ty};

use hipmlir_device_image::atomic_ordering::{MONOTONIC, SEQ_CST};
use hipmlir_device_image::AtomicBinOp as RmwOp;
use hipmlir_device_image::DeviceClock;

/// The atomics of hipmlir's device header, by name without its scope suffix (`_block`,
/// `_system`).
#[derive(Clone, Copy)]
enum Atomic {
    /// A read-modify-write: the operation on signed and unsigned integers and on floats.
    Rmw {
        signed: RmwOp,
        unsigned: RmwOp,
        float: Option<RmwOp>,
    },
    /// `atomicCAS`.
    CompareExchange,
}

const fn rmw(signed: RmwOp, unsigned: RmwOp, float: Option<RmwOp>) -> Atomic {
    Atomic::Rmw {
        signed,
        unsigned,
        float,
    }
}

const ATOMICS: &[(&str, Atomic)] = &[
    ("atomicAdd", rmw(RmwOp::Add, RmwOp::Add, Some(RmwOp::FAdd))),
    ("atomicSub", rmw(RmwOp::Sub, RmwOp::Sub, Some(RmwOp::FSub))),
    (
        "atomicExch",
        rmw(RmwOp::Xchg, RmwOp::Xchg, Some(RmwOp::Xchg)),
    ),
    ("atomicMin", rmw(RmwOp::Min, RmwOp::UMin, Some(RmwOp::FMin))),
    ("atomicMax", rmw(RmwOp::Max, RmwOp::UMax, Some(RmwOp::FMax))),
    ("atomicAnd", rmw(RmwOp::And, RmwOp::And, None)),
    ("atomicOr", rmw(RmwOp::Or, RmwOp::Or, None)),
    ("atomicXor", rmw(RmwOp::Xor, RmwOp::Xor, None)),
    ("atomicInc", rmw(RmwOp::UIncWrap, RmwOp::UIncWrap, None)),
    ("atomicDec", rmw(RmwOp::UDecWrap, RmwOp::UDecWrap, None)),
    ("atomicCAS", Atomic::CompareExchange),
];

/// The memory-model atomics of GCC/clang (`__atomic_fetch_add(p, v, order)`) and HIP
/// (`__hip_atomic_fetch_add(p, v, order, scope)`): name → (signed int, unsigned int, float)
/// operation; they return the old value.
const MEMORY_MODEL_RMW: &[(&str, RmwOp, RmwOp, Option<RmwOp>)] = &[
    ("fetch_add", RmwOp::Add, RmwOp::Add, Some(RmwOp::FAdd)),
    ("fetch_sub", RmwOp::Sub, RmwOp::Sub, Some(RmwOp::FSub)),
    ("fetch_and", RmwOp::And, RmwOp::And, None),
    ("fetch_or", RmwOp::Or, RmwOp::Or, None),
    ("fetch_xor", RmwOp::Xor, RmwOp::Xor, None),
    ("fetch_max", RmwOp::Max, RmwOp::UMax, Some(RmwOp::FMax)),
    ("fetch_min", RmwOp::Min, RmwOp::UMin, Some(RmwOp::FMin)),
    ("exchange_n", RmwOp::Xchg, RmwOp::Xchg, Some(RmwOp::Xchg)),
    ("exchange", RmwOp::Xchg, RmwOp::Xchg, Some(RmwOp::Xchg)),
];

/// `__ATOMIC_RELAXED`: orders other than relaxed get fences around the operation.
const ATOMIC_RELAXED: i128 = 0;

/// Synchronization of hipmlir's device header, by name.
#[derive(Clone, Copy)]
enum Sync {
    /// `__syncthreads`.
    Barrier,
    /// A barrier, then the 0/1 predicate reduced over the block.
    BlockVote(ReduceOperation),
    /// A memory fence in an LLVM sync scope ("" is the whole system).
    Fence(&'static str),
}

const SYNC: &[(&str, Sync)] = &[
    ("__syncthreads", Sync::Barrier),
    ("__syncthreads_count", Sync::BlockVote(ReduceOperation::Add)),
    ("__syncthreads_and", Sync::BlockVote(ReduceOperation::MinSi)),
    ("__syncthreads_or", Sync::BlockVote(ReduceOperation::MaxSi)),
    ("__threadfence", Sync::Fence("agent")),
    ("__threadfence_block", Sync::Fence("workgroup")),
    ("__threadfence_system", Sync::Fence("")),
];

/// The device clocks of hipmlir's device header, by name: each reads one of the device's clocks
/// (a call each target's pipeline lowers; see device-image's `DeviceClock`).
const CLOCKS: &[(&str, DeviceClock)] = &[
    ("clock64", DeviceClock::Cycles),
    ("__clock64", DeviceClock::Cycles),
    ("__clock", DeviceClock::Cycles),
    ("clock", DeviceClock::Cycles),
    ("wall_clock64", DeviceClock::Wall),
];

/// The sync scope of an atomic from its name's suffix.
fn scope_of(name: &str) -> (&str, &'static str) {
    if let Some(base) = name.strip_suffix("_block") {
        (base, "workgroup")
    } else if let Some(base) = name.strip_suffix("_system") {
        (base, "")
    } else {
        (name, "agent")
    }
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Emits a call to a builtin declared in hipmlir's device header; None if `name` is not one.
    pub fn builtin_call(
        &mut self,
        name: &str,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Option<Val<'c>>> {
        let loc = self.loc(e);
        if name == "printf" {
            return self.printf(e, args).map(Some);
        }
        // Optimization hints: the value itself, or nothing.
        match (name, args) {
            ("__builtin_expect", [value, _]) => return self.rvalue(value).map(Some),
            ("__builtin_assume", [_]) => return Ok(Some(Val::Void)),
            // Stops the program (traps.rs).
            ("__builtin_trap", []) => {
                self.stop_program(loc)?;
                return Ok(Some(Val::Void));
            }
            _ => {}
        }
        if let Some((_, clock)) = CLOCKS.iter().find(|(n, _)| *n == name) {
            return self.read_clock(*clock, e).map(Some);
        }
        if let Some((_, sync)) = SYNC.iter().find(|(n, _)| *n == name) {
            return self.sync(*sync, name, e, args).map(Some);
        }
        let (base, scope) = scope_of(name);
        let Some((_, atomic)) = ATOMICS.iter().find(|(n, _)| *n == base) else {
            return Ok(None);
        };
        let (signed, unsigned, float) = match *atomic {
            Atomic::CompareExchange => return self.atomic_cas(e, args, scope, loc).map(Some),
            Atomic::Rmw {
                signed,
                unsigned,
                float,
            } => (signed, unsigned, float),
        };
        let [address, value] = args else {
            return Err(FrontendError::unsupported(
                e.location(),
                format!("{name} arguments"),
            ));
        };
        let ty = Ty::of(e)?;
        let op = match &ty {
            Ty::Float { .. } => float.ok_or_else(|| {
                FrontendError::unsupported(e.location(), format!("{name} on a floating type"))
            })?,
            Ty::Int { signed: true, .. } => signed,
            _ => unsigned,
        };
        let ptr = self.rvalue(address)?.scalar();
        let v = self.rvalue_as(value, &ty)?.scalar();
        self.atomic_rmw(op, ptr, v, &ty, scope, loc)
            .map(|old| Some(Val::Scalar(old)))
    }

    /// A read of one of the device's clocks: a call of its declaration, converted to the type
    /// the builtin returns.
    fn read_clock(&mut self, clock: DeviceClock, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let i64t = Ty::LONG.value_mlir(self.ctx());
        self.module
            .declare_external(clock.symbol(), &[], i64t, loc)?;
        let callee = melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx(), clock.symbol());
        let ticks = self.b.insert_value(melior::dialect::func::call(
            self.ctx(),
            callee,
            &[],
            &[i64t],
            loc,
        ))?;
        self.convert(Val::Scalar(ticks), &Ty::LONG, &Ty::of(e)?, e)
    }

    /// A barrier, block vote or fence.
    fn sync(&mut self, sync: Sync, name: &str, e: &Cursor, args: &[Cursor]) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match sync {
            Sync::Barrier => {
                self.b.barrier(loc)?;
                Ok(Val::Void)
            }
            Sync::BlockVote(reduction) => {
                let [p] = args else {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        format!("{name} arguments"),
                    ));
                };
                let p = self.condition(p)?;
                self.b.barrier(loc)?;
                let i32t = Ty::INT.value_mlir(self.ctx());
                let bit = self.b.insert_value(arith::extui(p, i32t, loc))?;
                Ok(Val::Scalar(self.b.all_reduce(reduction, bit, loc)?))
            }
            Sync::Fence(scope) => {
                self.b.fence(SEQ_CST, scope, loc)?;
                Ok(Val::Void)
            }
        }
    }

    /// `llvm.atomicrmw`: the old value.
    fn atomic_rmw(
        &mut self,
        op: RmwOp,
        ptr: super::builder::Value<'c>,
        v: super::builder::Value<'c>,
        ty: &Ty,
        scope: &str,
        loc: Location<'c>,
    ) -> Result<super::builder::Value<'c>> {
        let mut attrs = self.sync_attrs(MONOTONIC, scope);
        attrs.push(("bin_op", self.i64_attr(op as i64)));
        self.b.value(
            "llvm.atomicrmw",
            &[ptr, v],
            ty.value_mlir(self.ctx()),
            &attrs,
            loc,
        )
    }

    /// An atomic builtin call: GCC/clang's `__atomic_load_n(p, order)`,
    /// `__atomic_fetch_add(p, v, order)`,
    /// `__atomic_compare_exchange_n(p, expected, desired, weak, success, failure)` and HIP's
    /// `__hip_atomic_*` forms with a trailing scope. `operands` are in clang's order (pointer,
    /// order, value, failure order, second value, ...). A load is an atomic add of zero and a
    /// store an exchange; an order other than relaxed is kept by fences around the operation.
    pub fn atomic_builtin(
        &mut self,
        name: &str,
        e: &Cursor,
        operands: &[Cursor],
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let unsupported =
            || FrontendError::unsupported(e.location(), format!("atomic builtin '{name}'"));
        let Some(op) = name
            .strip_prefix("__hip_atomic_")
            .or_else(|| name.strip_prefix("__atomic_"))
        else {
            return Err(unsupported());
        };
        let [address, order, rest @ ..] = operands else {
            return Err(unsupported());
        };
        let relaxed = order
            .evaluate()
            .is_some_and(|o| matches!(o, crate::clang::ConstValue::Int(ATOMIC_RELAXED)));
        let element = match Ty::of(address)? {
            Ty::Pointer { pointee } => *pointee,
            _ => return Err(unsupported()),
        };
        if !matches!(element, Ty::Int { .. } | Ty::Float { .. }) {
            return Err(unsupported());
        }
        let fence = |this: &mut Self| -> Result<()> {
            if !relaxed {
                this.b.fence(SEQ_CST, "agent", loc)?;
            }
            Ok(())
        };
        let ptr = self.rvalue(address)?.scalar();
        fence(self)?;
        let result = match (op, rest) {
            ("load_n" | "load", _) => {
                let zero = self.zero(&element, loc)?.scalar();
                let op = if element.is_float() {
                    RmwOp::FAdd
                } else {
                    RmwOp::Add
                };
                Val::Scalar(self.atomic_rmw(op, ptr, zero, &element, "agent", loc)?)
            }
            ("store_n" | "store", [value, ..]) => {
                let v = self.rvalue_as(value, &element)?.scalar();
                self.atomic_rmw(RmwOp::Xchg, ptr, v, &element, "agent", loc)?;
                Val::Void
            }
            (
                "compare_exchange_n" | "compare_exchange_strong" | "compare_exchange_weak",
                [expected, _failure_order, desired, ..],
            ) if !element.is_float() => {
                // `expected` points to the value compared; it receives the old value.
                let expected_ptr = self.rvalue(expected)?.scalar();
                let expected_lv = super::expr::LValue::Mem {
                    ptr: expected_ptr,
                    ty: element.clone(),
                    volatile: false,
                };
                let cmp = self.load(&expected_lv, loc)?.scalar();
                let new = self.rvalue_as(desired, &element)?.scalar();
                let (old, success) = self.cmpxchg(ptr, cmp, new, &element, "agent", loc)?;
                self.store(&expected_lv, Val::Scalar(old), loc)?;
                Val::Scalar(success)
            }
            (rmw, [value, ..]) => {
                let Some((_, signed, unsigned, float)) =
                    MEMORY_MODEL_RMW.iter().find(|(n, ..)| *n == rmw)
                else {
                    return Err(unsupported());
                };
                let op = match &element {
                    Ty::Float { .. } => float.ok_or_else(unsupported)?,
                    Ty::Int { signed: true, .. } => *signed,
                    _ => *unsigned,
                };
                let v = self.rvalue_as(value, &element)?.scalar();
                Val::Scalar(self.atomic_rmw(op, ptr, v, &element, "agent", loc)?)
            }
            _ => return Err(unsupported()),
        };
        fence(self)?;
        Ok(result)
    }

    /// `atomicCAS(p, compare, value)`: returns the old value.
    fn atomic_cas(
        &mut self,
        e: &Cursor,
        args: &[Cursor],
        scope: &str,
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let [address, compare, value] = args else {
            return Err(FrontendError::unsupported(
                e.location(),
                "atomicCAS arguments",
            ));
        };
        let ty = Ty::of(e)?;
        let ptr = self.rvalue(address)?.scalar();
        let cmp = self.rvalue_as(compare, &ty)?.scalar();
        let new = self.rvalue_as(value, &ty)?.scalar();
        let (old, _) = self.cmpxchg(ptr, cmp, new, &ty, scope, loc)?;
        Ok(Val::Scalar(old))
    }

    /// `llvm.cmpxchg`: the old value and whether it was exchanged.
    fn cmpxchg(
        &mut self,
        ptr: super::builder::Value<'c>,
        cmp: super::builder::Value<'c>,
        new: super::builder::Value<'c>,
        ty: &Ty,
        scope: &str,
        loc: Location<'c>,
    ) -> Result<(super::builder::Value<'c>, super::builder::Value<'c>)> {
        let ctx = self.ctx();
        let pair = melior::dialect::llvm::r#type::r#struct(
            ctx,
            &[ty.value_mlir(ctx), IntegerType::new(ctx, 1).into()],
            false,
        );
        let mut attrs = self.sync_attrs(MONOTONIC, scope);
        attrs.push(("failure_ordering", self.i64_attr(MONOTONIC)));
        attrs.retain(|(n, _)| *n != "ordering");
        attrs.push(("success_ordering", self.i64_attr(MONOTONIC)));
        let result = self
            .b
            .value("llvm.cmpxchg", &[ptr, cmp, new], pair, &attrs, loc)?;
        let position = melior::ir::attribute::DenseI64ArrayAttribute::new(ctx, &[0]).into();
        let old = self.b.value(
            "llvm.extractvalue",
            &[result],
            ty.value_mlir(ctx),
            &[("position", position)],
            loc,
        )?;
        // A strong exchange succeeded exactly when the old value was the one compared.
        let success = self.b.cmpi(CmpiPredicate::Eq, old, cmp, loc)?;
        Ok((old, success))
    }

    /// `printf(format, args...)`: OpenCL's printf, whose format and `%s` strings live in the
    /// constant address space. Each argument signature gets its own declaration
    /// (`__hipmlir_printf_N`), which dialect-passes maps to OpenCL.std printf.
    fn printf(&mut self, e: &Cursor, args: &[Cursor]) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let mut operands = Vec::new();
        for (i, a) in args.iter().enumerate() {
            match string_literal(a) {
                Some(text) => {
                    let symbol = self.module.string_constant(&text, loc)?;
                    operands.push(self.global_address(&symbol, AddrSpace::Constant, loc)?);
                }
                None if i == 0 => {
                    return Err(FrontendError::unsupported(
                        a.location(),
                        "printf with a format that is not a string literal",
                    ))
                }
                None => operands.push(self.rvalue(a)?.scalar()),
            }
        }
        let i32t = Ty::INT.value_mlir(self.ctx());
        let inputs: Vec<melior::ir::Type> = operands.iter().map(|v| v.r#type()).collect();
        let symbol = self.module.printf_declaration(&inputs, i32t, loc)?;
        let callee = melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx(), &symbol);
        let r = self.b.insert(melior::dialect::func::call(
            self.ctx(),
            callee,
            &operands,
            &[i32t],
            loc,
        ));
        // CUDA's and chipStar's printf returns the number of arguments after the format (a
        // negative value on failure); OpenCL's returns 0 on success.
        let zero = self.b.const_int(i32t, 0, loc)?;
        let count = self
            .b
            .const_int(i32t, args.len().saturating_sub(1) as i64, loc)?;
        let failed = self.b.cmpi(CmpiPredicate::Slt, r[0], zero, loc)?;
        let result = self
            .b
            .insert_value(arith::select(failed, r[0], count, loc))?;
        Ok(Val::Scalar(result))
    }

    fn sync_attrs(&self, ordering: i64, scope: &str) -> Vec<(&'static str, Attribute<'c>)> {
        let mut attrs = vec![("ordering", self.i64_attr(ordering))];
        if !scope.is_empty() {
            attrs.push(("syncscope", StringAttribute::new(self.ctx(), scope).into()));
        }
        attrs
    }

    fn i64_attr(&self, v: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.ctx(), 64).into(), v).into()
    }
}

/// The bytes of a string literal argument (looking through the decay to a pointer).
pub(super) fn string_literal(e: &Cursor) -> Option<Vec<u8>> {
    let mut cur = *e;
    while cur.kind() == clang_sys::CXCursor_UnexposedExpr {
        match cur.children().as_slice() {
            [only] => cur = *only,
            _ => return None,
        }
    }
    if cur.kind() != clang_sys::CXCursor_StringLiteral {
        return None;
    }
    literal_bytes(&cur.spelling())
}

/// The bytes of a narrow string literal (`"..."` or `u8"..."`) from libclang's spelling of it.
/// libclang prints the literal's value again (clang's `StringLiteral::outputString`), not its
/// source text: printable ASCII as itself, the usual escapes, every other byte as a three-digit
/// octal escape, and `""` after a hex escape that a hex digit follows. Wide literals and
/// anything else not spelled so are `None` (refused, never guessed).
fn literal_bytes(spelled: &str) -> Option<Vec<u8>> {
    let body = spelled.strip_prefix("u8").unwrap_or(spelled);
    unescape_c_string(body.strip_prefix('"')?.strip_suffix('"')?)
}

/// The bytes of a C string literal's body (escapes resolved, `""` between pieces skipped).
fn unescape_c_string(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut chars = s.bytes().peekable();
    while let Some(c) = chars.next() {
        match c {
            // Only the join of two pieces (`"\x41" "B"`) has a bare quote: `""`.
            b'"' => {
                if chars.next()? != b'"' {
                    return None;
                }
                continue;
            }
            b'\\' => {}
            _ => {
                out.push(c);
                continue;
            }
        }
        let esc = chars.next()?;
        out.push(match esc {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => esc,
            // Up to three octal digits: `\0`, `\12`, `\377`.
            b'0'..=b'7' => {
                let mut v = u32::from(esc - b'0');
                for _ in 0..2 {
                    match chars.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(*d - b'0');
                            chars.next();
                        }
                        _ => break,
                    }
                }
                u8::try_from(v).ok()?
            }
            b'x' => {
                let mut v = 0u32;
                let mut digits = 0;
                while let Some(d) = chars.peek().and_then(|d| (*d as char).to_digit(16)) {
                    v = v.checked_mul(16)?.checked_add(d)?;
                    digits += 1;
                    chars.next();
                }
                if digits == 0 {
                    return None;
                }
                u8::try_from(v).ok()?
            }
            _ => return None,
        });
    }
    Some(out)
}

/// Whether the sync or atomics family lowers `name` (for the device header's completeness
/// test).
#[cfg(test)]
fn claims(name: &str) -> bool {
    let (base, _) = scope_of(name);
    SYNC.iter().any(|(n, _)| *n == name)
        || ATOMICS.iter().any(|(n, _)| *n == base)
        || CLOCKS.iter().any(|(n, _)| *n == name)
}

#[cfg(test)]
mod tests {
    use super::super::header_check::declared_device_functions;
    use super::*;

    /// Every synchronization entry is a function the device header declares.
    #[test]
    fn sync_table_entries_are_declared() {
        let declared = declared_device_functions("hipmlir_device.h");
        for (name, _) in SYNC {
            assert!(declared.contains(*name), "{name} is not declared");
        }
    }

    /// Every atomic entry is declared, with its `_block` and `_system` forms.
    #[test]
    fn atomics_table_entries_are_declared() {
        let declared = declared_device_functions("hipmlir_device.h");
        for (name, _) in ATOMICS {
            for suffix in ["", "_block", "_system"] {
                let scoped = format!("{name}{suffix}");
                assert!(declared.contains(&scoped), "{scoped} is not declared");
            }
        }
    }

    /// Every device function the device header declares is lowered by one family's table
    /// (synchronization, atomics, warp) or is printf.
    #[test]
    fn every_device_header_function_has_a_lowering() {
        for name in declared_device_functions("hipmlir_device.h") {
            let families = [
                claims(&name),
                super::super::warp::claims(&name),
                name == "printf",
            ];
            assert_eq!(
                families.iter().filter(|c| **c).count(),
                1,
                "{name} is lowered by {} families",
                families.iter().filter(|c| **c).count()
            );
        }
    }
    use super::{literal_bytes, unescape_c_string};

    #[test]
    fn escapes() {
        assert_eq!(
            unescape_c_string(r"a\nb\t%d\x41\\").unwrap(),
            b"a\nb\t%dA\\"
        );
    }

    /// libclang's spelling of a literal holding NULs, bytes above 0x7f and joined pieces.
    #[test]
    fn octal_escapes_and_joined_pieces() {
        assert_eq!(
            literal_bytes(r#""a\000b\377\376\200\12z""#).unwrap(),
            b"a\0b\xff\xfe\x80\nz"
        );
        assert_eq!(literal_bytes(r#""\x41""B""#).unwrap(), b"AB");
        assert_eq!(
            literal_bytes(r#"u8"\303\251""#).unwrap(),
            "\u{e9}".as_bytes()
        );
    }

    /// What is not a narrow literal, or not spelled as libclang spells one, is refused.
    #[test]
    fn other_literals_are_refused() {
        assert_eq!(literal_bytes(r#"L"wide""#), None);
        assert_eq!(literal_bytes(r#""\u00e9""#), None);
        assert_eq!(literal_bytes(r#""\x""#), None);
        assert_eq!(literal_bytes(r#""a"b""#), None);
        assert_eq!(literal_bytes(r#""\777""#), None);
    }
}
