//! The math library of kernels: Rust's float methods (`x.sqrt()`, `y.atan2(x)`, `x.mul_add(a, b)`)
//! and C++ AMP's `fast_math::` / `precise_math::` functions, lowered to `GLSL.std.450` where it
//! has the instruction and to short instruction sequences where it does not.

/// A math function on floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MathFn {
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Exp,
    Exp2,
    Exp10,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Pow,
    Floor,
    Ceil,
    Round,
    Trunc,
    Fract,
    Fma,
    Fmod,
    Hypot,
    Cbrt,
    Copysign,
    Fdim,
    Rcp,
    IsNan,
    IsInf,
    IsFinite,
    Signum,
    ToDegrees,
    ToRadians,
    Clamp,
}

impl MathFn {
    /// The function a Rust float method names (`x.ln()` is `Log`).
    pub fn from_method(name: &str) -> Option<MathFn> {
        use MathFn::*;
        Some(match name {
            "sqrt" => Sqrt,
            "sin" => Sin,
            "cos" => Cos,
            "tan" => Tan,
            "asin" => Asin,
            "acos" => Acos,
            "atan" => Atan,
            "atan2" => Atan2,
            "sinh" => Sinh,
            "cosh" => Cosh,
            "tanh" => Tanh,
            "asinh" => Asinh,
            "acosh" => Acosh,
            "atanh" => Atanh,
            "exp" => Exp,
            "exp2" => Exp2,
            "exp_m1" => Expm1,
            "ln" => Log,
            "log2" => Log2,
            "log10" => Log10,
            "ln_1p" => Log1p,
            "powf" => Pow,
            "floor" => Floor,
            "ceil" => Ceil,
            "round" => Round,
            "trunc" => Trunc,
            "fract" => Fract,
            "mul_add" => Fma,
            "hypot" => Hypot,
            "cbrt" => Cbrt,
            "copysign" => Copysign,
            "recip" => Rcp,
            "is_nan" => IsNan,
            "is_infinite" => IsInf,
            "is_finite" => IsFinite,
            "signum" => Signum,
            "to_degrees" => ToDegrees,
            "to_radians" => ToRadians,
            "clamp" => Clamp,
            _ => return None,
        })
    }

    /// The function a C++ AMP `fast_math::` / `precise_math::` name denotes (`fabs`, `fmin` and
    /// `fmax` are the `abs`, `min` and `max` built-ins).
    pub fn from_amp(name: &str) -> Option<MathFn> {
        use MathFn::*;
        Some(match name {
            "sqrt" => Sqrt,
            "rsqrt" => Rsqrt,
            "sin" => Sin,
            "cos" => Cos,
            "tan" => Tan,
            "asin" => Asin,
            "acos" => Acos,
            "atan" => Atan,
            "atan2" => Atan2,
            "sinh" => Sinh,
            "cosh" => Cosh,
            "tanh" => Tanh,
            "asinh" => Asinh,
            "acosh" => Acosh,
            "atanh" => Atanh,
            "exp" => Exp,
            "exp2" => Exp2,
            "exp10" => Exp10,
            "expm1" => Expm1,
            "log" => Log,
            "log2" => Log2,
            "log10" => Log10,
            "log1p" => Log1p,
            "pow" => Pow,
            "floor" => Floor,
            "ceil" => Ceil,
            "round" => Round,
            "trunc" => Trunc,
            "fma" => Fma,
            "fmod" => Fmod,
            "hypot" => Hypot,
            "cbrt" => Cbrt,
            "copysign" => Copysign,
            "fdim" => Fdim,
            "rcp" => Rcp,
            "isnan" => IsNan,
            "isinf" => IsInf,
            "isfinite" => IsFinite,
            _ => return None,
        })
    }

    /// Number of arguments (the receiver of a method counts).
    pub fn arity(self) -> usize {
        use MathFn::*;
        match self {
            Atan2 | Pow | Fmod | Hypot | Copysign | Fdim => 2,
            Fma | Clamp => 3,
            _ => 1,
        }
    }

    /// Whether the result is a `bool` (the classification functions).
    pub fn returns_bool(self) -> bool {
        matches!(self, MathFn::IsNan | MathFn::IsInf | MathFn::IsFinite)
    }

    /// Whether there is an `f64` version: `GLSL.std.450`'s transcendental functions exist for
    /// 16- and 32-bit floats only.
    pub fn has_f64(self) -> bool {
        use MathFn::*;
        matches!(
            self,
            Sqrt | Rsqrt
                | Floor
                | Ceil
                | Round
                | Trunc
                | Fract
                | Fma
                | Fmod
                | Fdim
                | Rcp
                | IsNan
                | IsInf
                | IsFinite
                | Clamp
                | ToDegrees
                | ToRadians
        )
    }
}
