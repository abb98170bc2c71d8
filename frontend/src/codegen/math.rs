//! HIP's device math API: the C math library (float and double), HIP's fast intrinsics, integer
//! min/max/abs and bit manipulation.
//!
//! Functions with a math-dialect (or arith) op are emitted as that op; the rest as a call to a
//! declared function with the C name (`tgammaf`), which dialect-passes maps to OpenCL.std.

use melior::dialect::arith;
use melior::ir::{Location, Type, ValueLike};

use super::builder::Value;
use super::function::{FunctionCodegen, Val};
use crate::clang::Cursor;
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// How one math function is emitted.
#[derive(Clone, Copy)]
enum Emit {
    /// A math/arith op on float operands (`math.sqrt`).
    Float(&'static str),
    /// A call to the C function of that name (with an `f` suffix for float).
    Call,
    /// A call to a fast intrinsic, by its own name (`__expf`).
    Native,
    /// Integer min/max: (signed op, unsigned op, float op).
    MinMax(&'static str, &'static str, &'static str),
    /// Integer bit ops by name.
    Bits(&'static str),
}

/// By C name without the float suffix (`sqrt` covers `sqrtf` and `__builtin_sqrtf`).
const MATH: &[(&str, Emit)] = &[
    ("sqrt", Emit::Float("math.sqrt")),
    ("rsqrt", Emit::Float("math.rsqrt")),
    ("cbrt", Emit::Float("math.cbrt")),
    ("exp", Emit::Float("math.exp")),
    ("exp2", Emit::Float("math.exp2")),
    ("expm1", Emit::Float("math.expm1")),
    ("log", Emit::Float("math.log")),
    ("log2", Emit::Float("math.log2")),
    ("log10", Emit::Float("math.log10")),
    ("log1p", Emit::Float("math.log1p")),
    ("sin", Emit::Float("math.sin")),
    ("cos", Emit::Float("math.cos")),
    ("tan", Emit::Float("math.tan")),
    ("asin", Emit::Float("math.asin")),
    ("acos", Emit::Float("math.acos")),
    ("atan", Emit::Float("math.atan")),
    ("sinh", Emit::Float("math.sinh")),
    ("cosh", Emit::Float("math.cosh")),
    ("tanh", Emit::Float("math.tanh")),
    ("asinh", Emit::Float("math.asinh")),
    ("acosh", Emit::Float("math.acosh")),
    ("atanh", Emit::Float("math.atanh")),
    ("erf", Emit::Float("math.erf")),
    ("erfc", Emit::Float("math.erfc")),
    ("fabs", Emit::Float("math.absf")),
    ("floor", Emit::Float("math.floor")),
    ("ceil", Emit::Float("math.ceil")),
    ("round", Emit::Float("math.round")),
    ("trunc", Emit::Float("math.trunc")),
    ("rint", Emit::Float("math.roundeven")),
    ("nearbyint", Emit::Float("math.roundeven")),
    ("pow", Emit::Float("math.powf")),
    ("atan2", Emit::Float("math.atan2")),
    ("copysign", Emit::Float("math.copysign")),
    ("fma", Emit::Float("math.fma")),
    ("fmin", Emit::Float("arith.minnumf")),
    ("fmax", Emit::Float("arith.maxnumf")),
    ("exp10", Emit::Call),
    ("logb", Emit::Call),
    ("sinpi", Emit::Call),
    ("cospi", Emit::Call),
    ("tgamma", Emit::Call),
    ("lgamma", Emit::Call),
    ("fmod", Emit::Call),
    ("remainder", Emit::Call),
    ("hypot", Emit::Call),
    ("fdim", Emit::Call),
    ("nextafter", Emit::Call),
    ("ldexp", Emit::Call),
    ("__expf", Emit::Native),
    ("__exp10f", Emit::Native),
    ("__logf", Emit::Native),
    ("__log2f", Emit::Native),
    ("__log10f", Emit::Native),
    ("__sinf", Emit::Native),
    ("__cosf", Emit::Native),
    ("__tanf", Emit::Native),
    ("__powf", Emit::Native),
    ("__fdividef", Emit::Native),
    ("__fsqrt_rn", Emit::Float("math.sqrt")),
    ("__frsqrt_rn", Emit::Float("math.rsqrt")),
    (
        "min",
        Emit::MinMax("arith.minsi", "arith.minui", "arith.minnumf"),
    ),
    (
        "max",
        Emit::MinMax("arith.maxsi", "arith.maxui", "arith.maxnumf"),
    ),
    (
        "umin",
        Emit::MinMax("arith.minui", "arith.minui", "arith.minnumf"),
    ),
    (
        "umax",
        Emit::MinMax("arith.maxui", "arith.maxui", "arith.maxnumf"),
    ),
    (
        "llmin",
        Emit::MinMax("arith.minsi", "arith.minsi", "arith.minnumf"),
    ),
    (
        "llmax",
        Emit::MinMax("arith.maxsi", "arith.maxsi", "arith.maxnumf"),
    ),
    (
        "ullmin",
        Emit::MinMax("arith.minui", "arith.minui", "arith.minnumf"),
    ),
    (
        "ullmax",
        Emit::MinMax("arith.maxui", "arith.maxui", "arith.maxnumf"),
    ),
    ("abs", Emit::Bits("math.absi")),
    ("labs", Emit::Bits("math.absi")),
    ("llabs", Emit::Bits("math.absi")),
    ("__popc", Emit::Bits("math.ctpop")),
    ("__popcll", Emit::Bits("math.ctpop")),
    ("__clz", Emit::Bits("math.ctlz")),
    ("__clzll", Emit::Bits("math.ctlz")),
    ("__ffs", Emit::Bits("ffs")),
    ("__ffsll", Emit::Bits("ffs")),
    ("__brev", Emit::Bits("brev")),
    ("__brevll", Emit::Bits("brev")),
];

fn lookup(name: &str) -> Option<Emit> {
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    let find = |n: &str| MATH.iter().find(|(m, _)| *m == n).map(|(_, e)| *e);
    find(name).or_else(|| name.strip_suffix('f').and_then(find))
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Emits a math builtin; None if `name` is not one.
    pub fn math_call(
        &mut self,
        name: &str,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Option<Val<'c>>> {
        let plain = name.strip_prefix("__builtin_").unwrap_or(name);
        if matches!(plain, "isnan" | "isinf" | "isfinite" | "signbit") {
            return self.classify(plain, e, args).map(Some);
        }
        if matches!(plain, "sincosf" | "sincos") {
            return self.sincos(e, args).map(Some);
        }
        // The constants <math.h> spells with builtins (INFINITY, NAN, HUGE_VAL).
        let constant = match plain {
            "inf" | "inff" | "huge_val" | "huge_valf" => Some(f64::INFINITY),
            "nan" | "nanf" => Some(f64::NAN),
            _ => None,
        };
        if let Some(value) = constant {
            let ty = Ty::of(e)?;
            let v = self
                .b
                .const_float(ty.value_mlir(self.ctx()), value, self.loc(e))?;
            return Ok(Some(Val::Scalar(v)));
        }
        // Rounding to an integer (libstdc++'s std::lrint calls __builtin_lrintf): the float
        // rounded, then converted.
        let rounding = match plain.strip_suffix('f').unwrap_or(plain) {
            "lrint" | "llrint" => Some("math.roundeven"),
            "lround" | "llround" => Some("math.round"),
            _ => None,
        };
        if let Some(op) = rounding {
            let [x] = args else { return Err(arity(e)) };
            let from = Ty::of(x)?;
            let v = self.rvalue(x)?.scalar();
            let rounded = self.b.value(op, &[v], v.r#type(), &[], self.loc(e))?;
            return self
                .convert(Val::Scalar(rounded), &from, &Ty::of(e)?, e)
                .map(Some);
        }
        if plain == "__frcp_rn" {
            let [x] = args else { return Err(arity(e)) };
            let v = self.rvalue_as(x, &Ty::Float { bits: 32 })?.scalar();
            let one = self.b.const_float(v.r#type(), 1.0, self.loc(e))?;
            let r = self.b.insert_value(arith::divf(one, v, self.loc(e)))?;
            return Ok(Some(Val::Scalar(r)));
        }
        let Some(emit) = lookup(name) else {
            return Ok(None);
        };
        let loc = self.loc(e);
        let ty = Ty::of(e)?;
        let result_type = ty.value_mlir(self.ctx());
        // clang has converted each argument to its parameter's type already.
        let mut operands = Vec::new();
        for a in args {
            operands.push(self.rvalue(a)?.scalar());
        }
        let v = match emit {
            Emit::Float(op) => self.b.value(op, &operands, result_type, &[], loc)?,
            Emit::Call | Emit::Native => {
                let base = plain
                    .strip_suffix('f')
                    .filter(|_| matches!(emit, Emit::Call))
                    .unwrap_or(plain);
                let symbol = match (emit, &ty) {
                    (Emit::Call, Ty::Float { bits: 32 }) => format!("{base}f"),
                    _ => base.to_string(),
                };
                self.call_external(&symbol, &operands, result_type, loc)?
            }
            Emit::MinMax(signed, unsigned, float) => {
                let op = match &ty {
                    Ty::Float { .. } => float,
                    Ty::Int { signed: true, .. } => signed,
                    _ => unsigned,
                };
                self.b.value(op, &operands, result_type, &[], loc)?
            }
            Emit::Bits(op) => {
                let [x] = operands[..] else {
                    return Err(arity(e));
                };
                self.bits(op, x, &ty, loc)?
            }
        };
        Ok(Some(Val::Scalar(v)))
    }

    /// A call to an external device library function, declared once per module.
    fn call_external(
        &mut self,
        symbol: &str,
        operands: &[Value<'c>],
        result: Type<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let inputs: Vec<Type> = operands.iter().map(|v| v.r#type()).collect();
        self.module.declare_external(symbol, &inputs, result, loc)?;
        let callee = melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx(), symbol).into();
        Ok(self.b.op(
            "func.call",
            operands,
            &[result],
            &[("callee", callee)],
            vec![],
            loc,
        )?[0])
    }

    fn bits(&mut self, op: &str, x: Value<'c>, ty: &Ty, loc: Location<'c>) -> Result<Value<'c>> {
        let t = x.r#type();
        let result_type = ty.value_mlir(self.ctx());
        let count = |this: &mut Self, op: &str| -> Result<Value<'c>> {
            let c = this.b.value(op, &[x], t, &[], loc)?;
            // __popcll and friends return int whatever their operand's width.
            let from = Ty::Int {
                bits: t_bits(t),
                signed: false,
            };
            this.convert_value(c, &from, ty, loc)
        };
        match op {
            "math.absi" => self.b.value(op, &[x], result_type, &[], loc),
            "math.ctpop" | "math.ctlz" => count(self, op),
            "ffs" => {
                // 0 for 0, else the 1-based index of the lowest set bit.
                let tz = count(self, "math.cttz")?;
                let one = self.b.const_int(result_type, 1, loc)?;
                let plus = self.b.insert_value(arith::addi(tz, one, loc))?;
                let zero_in = self.b.const_int(t, 0, loc)?;
                let is_zero = self.cmp_eq(x, zero_in, loc)?;
                let zero = self.b.const_int(result_type, 0, loc)?;
                self.b.insert_value(arith::select(is_zero, zero, plus, loc))
            }
            "brev" => self.bit_reverse(x, loc),
            other => Err(FrontendError::unsupported(
                crate::SourceLoc::default(),
                other,
            )),
        }
    }

    /// Reverses the bits of a 32- or 64-bit integer by swapping ever larger groups (no core
    /// SPIR-V instruction does this for OpenCL kernels).
    fn bit_reverse(&mut self, x: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let t = x.r#type();
        let bits = t_bits(t);
        let masks: &[(u64, i64)] = &[
            (0x5555_5555_5555_5555, 1),
            (0x3333_3333_3333_3333, 2),
            (0x0f0f_0f0f_0f0f_0f0f, 4),
            (0x00ff_00ff_00ff_00ff, 8),
            (0x0000_ffff_0000_ffff, 16),
            (0x0000_0000_ffff_ffff, 32),
        ];
        let mut v = x;
        for (mask, shift) in masks.iter().filter(|(_, s)| (*s as u32) < bits) {
            let m = self.b.const_int(t, (*mask as i64) & mask_for(bits), loc)?;
            let s = self.b.const_int(t, *shift, loc)?;
            let low = self.b.insert_value(arith::andi(v, m, loc))?;
            let low = self.b.insert_value(arith::shli(low, s, loc))?;
            let high = self.b.insert_value(arith::shrui(v, s, loc))?;
            let high = self.b.insert_value(arith::andi(high, m, loc))?;
            v = self.b.insert_value(arith::ori(low, high, loc))?;
        }
        Ok(v)
    }

    fn classify(&mut self, name: &str, e: &Cursor, args: &[Cursor]) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let [x] = args else { return Err(arity(e)) };
        let arg_ty = Ty::of(x)?;
        let v = self.rvalue(x)?.scalar();
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let b = match name {
            "isnan" => self.b.value("math.isnan", &[v], i1, &[], loc)?,
            "isinf" => self.b.value("math.isinf", &[v], i1, &[], loc)?,
            "isfinite" => self.b.value("math.isfinite", &[v], i1, &[], loc)?,
            _ => {
                // signbit: the top bit of the representation.
                let bits = if arg_ty == (Ty::Float { bits: 64 }) {
                    64
                } else {
                    32
                };
                let int = melior::ir::r#type::IntegerType::new(self.ctx(), bits).into();
                let raw = self.b.insert_value(arith::bitcast(v, int, loc))?;
                let zero = self.b.const_int(int, 0, loc)?;
                let slt = melior::ir::attribute::IntegerAttribute::new(
                    melior::ir::r#type::IntegerType::new(self.ctx(), 64).into(),
                    2,
                )
                .into();
                self.b
                    .value("arith.cmpi", &[raw, zero], i1, &[("predicate", slt)], loc)?
            }
        };
        self.convert_value(b, &Ty::Bool, &Ty::of(e)?, loc)
            .map(Val::Scalar)
    }

    fn sincos(&mut self, e: &Cursor, args: &[Cursor]) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let [x, s, c] = args else {
            return Err(arity(e));
        };
        let ty = Ty::of(x)?;
        let v = self.rvalue(x)?.scalar();
        let t = v.r#type();
        let sin = self.b.value("math.sin", &[v], t, &[], loc)?;
        let cos = self.b.value("math.cos", &[v], t, &[], loc)?;
        for (target, value) in [(s, sin), (c, cos)] {
            let ptr = self.rvalue(target)?.scalar();
            self.store(
                &super::expr::LValue::Mem {
                    ptr,
                    ty: ty.clone(),
                    volatile: false,
                },
                Val::Scalar(value),
                loc,
            )?;
        }
        Ok(Val::Void)
    }

    fn cmp_eq(&self, a: Value<'c>, b: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let eq = melior::ir::attribute::IntegerAttribute::new(
            melior::ir::r#type::IntegerType::new(self.ctx(), 64).into(),
            0,
        )
        .into();
        self.b
            .value("arith.cmpi", &[a, b], i1, &[("predicate", eq)], loc)
    }
}

fn t_bits(t: Type) -> u32 {
    melior::ir::r#type::IntegerType::try_from(t)
        .map(|i| i.width())
        .unwrap_or(32)
}

fn mask_for(bits: u32) -> i64 {
    if bits >= 64 {
        -1
    } else {
        ((1u64 << bits) - 1) as i64
    }
}

fn arity(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        format!("call to '{}' with these arguments", e.spelling()),
    )
}
