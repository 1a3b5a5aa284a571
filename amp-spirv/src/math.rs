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
    /// `ldexp(x, e)`: `x * 2^e`, `e` an `i32`.
    Ldexp,
    /// The mantissa of `frexp(x)`: in `[0.5, 1)` with the sign of `x`; `x` itself for zero,
    /// infinities and NaN.
    FrexpMantissa,
    /// The exponent of `frexp(x)` (an `i32`): `x == mantissa * 2^exponent`; 0 for zero,
    /// infinities and NaN.
    FrexpExponent,
    /// The fractional part of `modf(x)`: `x - trunc(x)` with the sign of `x` (`±0` for `±inf`).
    ModfFrac,
    /// The integral part of `modf(x)`: `trunc(x)`.
    ModfInt,
    /// `nextafter(x, y)`: the next float after `x` towards `y`.
    Nextafter,
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
            "ldexp" => Ldexp,
            "nextafter" => Nextafter,
            _ => return None,
        })
    }

    /// Number of arguments (the receiver of a method counts).
    pub fn arity(self) -> usize {
        use MathFn::*;
        match self {
            Atan2 | Pow | Fmod | Hypot | Copysign | Fdim | Ldexp | Nextafter => 2,
            Fma | Clamp => 3,
            _ => 1,
        }
    }

    /// Whether the result is a `bool` (the classification functions).
    pub fn returns_bool(self) -> bool {
        matches!(self, MathFn::IsNan | MathFn::IsInf | MathFn::IsFinite)
    }

    /// Whether the result is an `i32` (the exponent of `frexp`).
    pub fn returns_i32(self) -> bool {
        self == MathFn::FrexpExponent
    }

    /// The argument that is an `i32` rather than a float (the exponent of `ldexp`).
    pub fn i32_argument(self) -> Option<usize> {
        (self == MathFn::Ldexp).then_some(1)
    }

    /// Whether `precise_math::` computes the `f32` function in `f64` and rounds the result:
    /// `GLSL.std.450`'s versions of these are only as accurate as Vulkan requires (a few ULP to
    /// thousands of ULP), while the `f64` versions here are within a few `f64` ULP, so the
    /// rounded result is within 1 ULP of the true value. Exact functions (rounding, `fma`,
    /// classification, ...) are the same in both.
    pub fn promoted_when_precise(self) -> bool {
        use MathFn::*;
        matches!(
            self,
            Sin | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Atan2
                | Sinh
                | Cosh
                | Tanh
                | Asinh
                | Acosh
                | Atanh
                | Exp
                | Exp2
                | Exp10
                | Expm1
                | Log
                | Log2
                | Log10
                | Log1p
                | Pow
                | Cbrt
                | Hypot
        )
    }
}

/// The C++ AMP functions that return two values through pointers (`frexp(x, &e)`,
/// `modf(x, &ip)`, `sincos(x, &s, &c)`) and Rust's `x.sin_cos()`. Kernels have no pointers
/// and no tuple values, so they are called as `let (a, b) = precise_math::frexp(x);`: the pair
/// is the two functions of the same argument.
pub fn pair_function(name: &str, method: bool) -> Option<[MathFn; 2]> {
    use MathFn::*;
    Some(match (name, method) {
        ("frexp", false) => [FrexpMantissa, FrexpExponent],
        ("modf", false) => [ModfFrac, ModfInt],
        ("sincos", false) | ("sin_cos", true) => [Sin, Cos],
        _ => return None,
    })
}
