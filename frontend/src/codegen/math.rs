//! HIP's device math API: the C math library (float and double), HIP's fast intrinsics, integer
//! min/max/abs and bit manipulation.
//!
//! Functions with a math-dialect (or arith) op are emitted as that op; the rest as a call to a
//! declared function with the C name (`tgammaf`), which dialect-passes maps to OpenCL.std.

use melior::dialect::arith::{self, CmpiPredicate};
use melior::dialect::func;
use melior::dialect::ods::arith as ods_arith;
use melior::dialect::ods::math;
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::{Location, Operation, Type, ValueLike};
use melior::Context;

use super::builder::Value;
use super::function::{FunctionCodegen, Val};
use crate::clang::Cursor;
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// melior's builder of one math operation on its operands; `None` for another number of them.
type MathOp = for<'c> fn(&'c Context, &[Value<'c>], Location<'c>) -> Option<Operation<'c>>;

/// melior's builder of one binary arith operation.
type BinaryOp = for<'c, 'a> fn(
    melior::ir::Value<'c, 'a>,
    melior::ir::Value<'c, 'a>,
    Location<'c>,
) -> Operation<'c>;

/// melior's builder of one binary float operation (from the dialect's ODS).
type FloatBinaryOp = for<'c, 'a> fn(
    &'c Context,
    melior::ir::Value<'c, 'a>,
    melior::ir::Value<'c, 'a>,
    Location<'c>,
) -> Operation<'c>;

macro_rules! unary {
    ($op:path) => {
        Emit::Op(|c, v, l| match v {
            [x] => Some($op(c, *x, l).into()),
            _ => None,
        })
    };
}
macro_rules! binary {
    ($op:path) => {
        Emit::Op(|c, v, l| match v {
            [x, y] => Some($op(c, *x, *y, l).into()),
            _ => None,
        })
    };
}
macro_rules! ternary {
    ($op:path) => {
        Emit::Op(|c, v, l| match v {
            [x, y, z] => Some($op(c, *x, *y, *z, l).into()),
            _ => None,
        })
    };
}

/// How one math function is emitted.
#[derive(Clone, Copy)]
enum Emit {
    /// A math/arith op on float operands (`math.sqrt`).
    Op(MathOp),
    /// A call to the C function of that name (with an `f` suffix for float).
    Call,
    /// A call to a fast intrinsic, by its own name (`__expf`).
    Native,
    /// Integer min/max: (signed op, unsigned op, float op).
    MinMax(BinaryOp, BinaryOp, FloatBinaryOp),
    /// Integer bit manipulation.
    Bits(Bits),
    /// `sincos(x, &s, &c)`.
    SinCos,
    /// The operand's bits as the result's type, of the same width (a half's 16 bits).
    BitCast,
    /// An operation on both halves of a `__half2` at once, its bits in and out as a 32-bit
    /// integer: one op on a vector of two halves, which PTX has instructions for (`sub.f16x2`,
    /// `max.f16x2`) where two scalar ops would stay two.
    HalfPair(FloatBinaryOp),
}

/// The integer bit operations.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bits {
    Abs,
    Popcount,
    LeadingZeros,
    FindFirstSet,
    Reverse,
}

/// The math family of hipmlir's math header, by C name without the float suffix (`sqrt` covers
/// `sqrtf` and `__builtin_sqrtf`).
const MATH: &[(&str, Emit)] = &[
    ("sqrt", unary!(math::sqrt)),
    ("rsqrt", unary!(math::rsqrt)),
    ("cbrt", unary!(math::cbrt)),
    ("exp", unary!(math::exp)),
    ("exp2", unary!(math::exp_2)),
    ("expm1", unary!(math::expm_1)),
    ("log", unary!(math::log)),
    ("log2", unary!(math::log_2)),
    ("log10", unary!(math::log_10)),
    ("log1p", unary!(math::log_1_p)),
    ("sin", unary!(math::sin)),
    ("cos", unary!(math::cos)),
    ("tan", unary!(math::tan)),
    ("asin", unary!(math::asin)),
    ("acos", unary!(math::acos)),
    ("atan", unary!(math::atan)),
    ("sinh", unary!(math::sinh)),
    ("cosh", unary!(math::cosh)),
    ("tanh", unary!(math::tanh)),
    ("asinh", unary!(math::asinh)),
    ("acosh", unary!(math::acosh)),
    ("atanh", unary!(math::atanh)),
    ("erf", unary!(math::erf)),
    ("erfc", unary!(math::erfc)),
    ("fabs", unary!(math::absf)),
    ("floor", unary!(math::floor)),
    ("ceil", unary!(math::ceil)),
    ("round", unary!(math::round)),
    ("trunc", unary!(math::trunc)),
    ("rint", unary!(math::roundeven)),
    ("nearbyint", unary!(math::roundeven)),
    ("pow", binary!(math::powf)),
    ("atan2", binary!(math::atan_2)),
    ("copysign", binary!(math::copysign)),
    ("fma", ternary!(math::fma)),
    ("fmin", binary!(ods_arith::minnumf)),
    ("fmax", binary!(ods_arith::maxnumf)),
    // Half precision's (`__builtin_fmaxf16`): found before the float suffix is taken off.
    ("fminf16", binary!(ods_arith::minnumf)),
    ("fmaxf16", binary!(ods_arith::maxnumf)),
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
    (
        "min",
        Emit::MinMax(arith::minsi, arith::minui, |c, a, b, l| {
            ods_arith::minnumf(c, a, b, l).into()
        }),
    ),
    (
        "max",
        Emit::MinMax(arith::maxsi, arith::maxui, |c, a, b, l| {
            ods_arith::maxnumf(c, a, b, l).into()
        }),
    ),
    (
        "umin",
        Emit::MinMax(arith::minui, arith::minui, |c, a, b, l| {
            ods_arith::minnumf(c, a, b, l).into()
        }),
    ),
    (
        "umax",
        Emit::MinMax(arith::maxui, arith::maxui, |c, a, b, l| {
            ods_arith::maxnumf(c, a, b, l).into()
        }),
    ),
    (
        "llmin",
        Emit::MinMax(arith::minsi, arith::minsi, |c, a, b, l| {
            ods_arith::minnumf(c, a, b, l).into()
        }),
    ),
    (
        "llmax",
        Emit::MinMax(arith::maxsi, arith::maxsi, |c, a, b, l| {
            ods_arith::maxnumf(c, a, b, l).into()
        }),
    ),
    (
        "ullmin",
        Emit::MinMax(arith::minui, arith::minui, |c, a, b, l| {
            ods_arith::minnumf(c, a, b, l).into()
        }),
    ),
    (
        "ullmax",
        Emit::MinMax(arith::maxui, arith::maxui, |c, a, b, l| {
            ods_arith::maxnumf(c, a, b, l).into()
        }),
    ),
    ("abs", Emit::Bits(Bits::Abs)),
    ("labs", Emit::Bits(Bits::Abs)),
    ("llabs", Emit::Bits(Bits::Abs)),
    ("__popc", Emit::Bits(Bits::Popcount)),
    ("__popcll", Emit::Bits(Bits::Popcount)),
    ("__clz", Emit::Bits(Bits::LeadingZeros)),
    ("__clzll", Emit::Bits(Bits::LeadingZeros)),
    ("__ffs", Emit::Bits(Bits::FindFirstSet)),
    ("__ffsll", Emit::Bits(Bits::FindFirstSet)),
    ("__brev", Emit::Bits(Bits::Reverse)),
    ("__brevll", Emit::Bits(Bits::Reverse)),
    // A call each target lowers: NVPTX to one prmt.b32, SPIR-V to shifts and masks.
    ("__byte_perm", Emit::Native),
    // hip_fp16.h's __half_as_ushort and __ushort_as_half: a value's bits, not through memory.
    ("__hipmlir_half_as_ushort", Emit::BitCast),
    ("__hipmlir_ushort_as_half", Emit::BitCast),
    ("sincos", Emit::SinCos),
    (
        "__hipmlir_f16x2_add",
        Emit::HalfPair(|c, a, b, l| ods_arith::addf(c, a, b, l).into()),
    ),
    (
        "__hipmlir_f16x2_sub",
        Emit::HalfPair(|c, a, b, l| ods_arith::subf(c, a, b, l).into()),
    ),
    (
        "__hipmlir_f16x2_mul",
        Emit::HalfPair(|c, a, b, l| ods_arith::mulf(c, a, b, l).into()),
    ),
    // HIP's __hmax2/__hmin2 are fmax/fmin lane by lane: the number when one lane is NaN.
    (
        "__hipmlir_f16x2_max",
        Emit::HalfPair(|c, a, b, l| ods_arith::maxnumf(c, a, b, l).into()),
    ),
    (
        "__hipmlir_f16x2_min",
        Emit::HalfPair(|c, a, b, l| ods_arith::minnumf(c, a, b, l).into()),
    ),
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
            "lrint" | "llrint" => Some(unary!(math::roundeven)),
            "lround" | "llround" => Some(unary!(math::round)),
            _ => None,
        };
        if let Some(Emit::Op(op)) = rounding {
            let [x] = args else { return Err(arity(e)) };
            let from = Ty::of(x)?;
            let v = self.rvalue(x)?.scalar();
            let rounded = self.math_op(op, &[v], e)?;
            return self
                .convert(Val::Scalar(rounded), &from, &Ty::of(e)?, e)
                .map(Some);
        }
        let Some(emit) = lookup(name) else {
            return Ok(None);
        };
        if let Emit::SinCos = emit {
            return self.sincos(e, args).map(Some);
        }
        let loc = self.loc(e);
        let ty = Ty::of(e)?;
        let result_type = ty.value_mlir(self.ctx());
        // clang has converted each argument to its parameter's type already.
        let mut operands = Vec::new();
        for a in args {
            operands.push(self.rvalue(a)?.scalar());
        }
        let v = match emit {
            Emit::Op(op) => self.math_op(op, &operands, e)?,
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
                let [a, b] = operands[..] else {
                    return Err(arity(e));
                };
                let operation = match &ty {
                    Ty::Float { .. } => float(self.ctx(), a, b, loc),
                    Ty::Int { signed: true, .. } => signed(a, b, loc),
                    _ => unsigned(a, b, loc),
                };
                self.b.insert_value(operation)?
            }
            Emit::Bits(op) => {
                let [x] = operands[..] else {
                    return Err(arity(e));
                };
                self.bits(op, x, &ty, loc)?
            }
            Emit::HalfPair(op) => {
                let [a, b] = operands[..] else {
                    return Err(arity(e));
                };
                self.half_pair(op, a, b, loc)?
            }
            Emit::BitCast => {
                let [x] = operands[..] else {
                    return Err(arity(e));
                };
                self.b.insert_value(arith::bitcast(x, result_type, loc))?
            }
            Emit::SinCos => unreachable!("emitted above"),
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
        let callee = FlatSymbolRefAttribute::new(self.ctx(), symbol);
        self.b
            .insert_value(func::call(self.ctx(), callee, operands, &[result], loc))
    }

    /// `op` on the two halves packed in each of `a` and `b` (lane x in the low bits), packed back.
    fn half_pair(
        &mut self,
        op: FloatBinaryOp,
        a: Value<'c>,
        b: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let ctx = self.ctx();
        // Loaded here rather than with the dialects every build loads: only half pairs use it.
        ctx.get_or_load_dialect("vector");
        // arith.bitcast keeps the shape: the integer goes through a vector of one
        // (vector.bitcast), which both targets' conversions turn into a plain bitcast.
        let word = a.r#type();
        let one = Type::vector(&[1], word);
        let pair = Type::vector(&[2], Type::float16(ctx));
        let halves = |this: &mut Self, v: Value<'c>| -> Result<Value<'c>> {
            let wide = this.b.value("vector.broadcast", &[v], one, &[], loc)?;
            this.b.value("vector.bitcast", &[wide], pair, &[], loc)
        };
        let va = halves(self, a)?;
        let vb = halves(self, b)?;
        let r = self.b.insert_value(op(ctx, va, vb, loc))?;
        let wide = self.b.value("vector.bitcast", &[r], one, &[], loc)?;
        let position = melior::ir::attribute::DenseI64ArrayAttribute::new(ctx, &[0]).into();
        self.b.value(
            "vector.extract",
            &[wide],
            word,
            &[("static_position", position)],
            loc,
        )
    }

    /// A math-table operation on `operands`.
    fn math_op(&mut self, op: MathOp, operands: &[Value<'c>], e: &Cursor) -> Result<Value<'c>> {
        let operation = op(self.ctx(), operands, self.loc(e)).ok_or_else(|| arity(e))?;
        self.b.insert_value(operation)
    }

    fn bits(&mut self, op: Bits, x: Value<'c>, ty: &Ty, loc: Location<'c>) -> Result<Value<'c>> {
        let t = x.r#type();
        let result_type = ty.value_mlir(self.ctx());
        let count = |this: &mut Self, op: Bits| -> Result<Value<'c>> {
            let ctx = this.ctx();
            let counted = match op {
                Bits::Popcount => math::ctpop(ctx, x, loc).into(),
                Bits::LeadingZeros => math::ctlz(ctx, x, loc).into(),
                _ => math::cttz(ctx, x, loc).into(),
            };
            let c = this.b.insert_value(counted)?;
            // __popcll and friends return int whatever their operand's width.
            let from = Ty::Int {
                bits: t_bits(t),
                signed: false,
            };
            this.convert_value(c, &from, ty, loc)
        };
        match op {
            Bits::Abs => self.b.insert_value(math::absi(self.ctx(), x, loc).into()),
            Bits::Popcount | Bits::LeadingZeros => count(self, op),
            Bits::FindFirstSet => {
                // 0 for 0, else the 1-based index of the lowest set bit.
                let tz = count(self, Bits::FindFirstSet)?;
                let one = self.b.const_int(result_type, 1, loc)?;
                let plus = self.b.insert_value(arith::addi(tz, one, loc))?;
                let zero_in = self.b.const_int(t, 0, loc)?;
                let is_zero = self.b.cmpi(CmpiPredicate::Eq, x, zero_in, loc)?;
                let zero = self.b.const_int(result_type, 0, loc)?;
                self.b.insert_value(arith::select(is_zero, zero, plus, loc))
            }
            Bits::Reverse => self.bit_reverse(x, loc),
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
            "isnan" => self
                .b
                .insert_value(math::isnan(self.ctx(), i1, v, loc).into())?,
            "isinf" => self
                .b
                .insert_value(math::isinf(self.ctx(), i1, v, loc).into())?,
            "isfinite" => self
                .b
                .insert_value(math::isfinite(self.ctx(), i1, v, loc).into())?,
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
                self.b.cmpi(CmpiPredicate::Slt, raw, zero, loc)?
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
        let sin = self.b.insert_value(math::sin(self.ctx(), v, loc).into())?;
        let cos = self.b.insert_value(math::cos(self.ctx(), v, loc).into())?;
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

#[cfg(test)]
mod tests {
    use super::super::header_check::declared_device_functions;
    use super::{lookup, MATH};

    /// Every function the math header declares has an entry, and every entry is declared
    /// (for a C function, as the double or the float form).
    #[test]
    fn math_table_matches_the_header() {
        let declared = declared_device_functions("hipmlir_math.h");
        for name in &declared {
            assert!(lookup(name).is_some(), "{name} has no entry");
        }
        for (name, _) in MATH {
            assert!(
                declared.contains(*name) || declared.contains(&format!("{name}f")),
                "{name} is not declared"
            );
        }
    }
}
