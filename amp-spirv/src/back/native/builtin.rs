//! Built-in functions and math as Rust: `min`/`max`/`abs` component by component, the
//! geometric functions as GLSL defines them, and the math functions with std's results
//! (through amp-native-rt's `m32`/`m64` where std would call libm).

use super::{index_lit, unsupported, Emitter, Res};
use crate::diag::Span;
use crate::ir::*;
use crate::math::MathFn;
use crate::types::{Scalar, Ty};
use proc_macro2::{Ident, TokenStream};
use quote::quote_spanned;

impl Emitter<'_> {
    pub(super) fn builtin(
        &mut self,
        f: Builtin,
        args: &[Expr],
        ty: &Ty,
        span: Span,
    ) -> Res<TokenStream> {
        let at = self.at;
        let vals = args.iter().map(|a| self.expr(a)).collect::<Res<Vec<_>>>()?;
        if matches!(
            f,
            Builtin::Dot | Builtin::Length | Builtin::Normalize | Builtin::Cross
        ) {
            return self.geometric(f, args, &vals, span);
        }
        if let Builtin::Int(m) = f {
            let receiver = args[0].ty.scalar().map(|s| s.native());
            return Ok(self.int_method(m, receiver == Some(Scalar::I32), &vals));
        }
        let (s, n) = self.shape(ty, span)?;
        self.lanes(n, &vals, |x| match (f, s.native()) {
            (Builtin::Min, _) => {
                let (a, b) = (&x[0], &x[1]);
                quote_spanned!(at=> (#a.min(#b)))
            }
            (Builtin::Max, _) => {
                let (a, b) = (&x[0], &x[1]);
                quote_spanned!(at=> (#a.max(#b)))
            }
            (Builtin::Abs, s) if s.is_float() => {
                let a = &x[0];
                quote_spanned!(at=> (#a.abs()))
            }
            (Builtin::Abs, s) if s.is_signed_int() => {
                let a = &x[0];
                quote_spanned!(at=> (#a.wrapping_abs()))
            }
            // GLSL's SAbs reads the bits as signed.
            (_, _) => {
                let a = &x[0];
                quote_spanned!(at=> (((#a) as i32).wrapping_abs() as u32))
            }
        })
    }

    /// One of Rust's integer methods on the evaluated operands (the receiver first, an `i32`
    /// where `signed`, else a `u32`): the method itself where it cannot panic, the kernel's
    /// definitions (amp-native-rt) where Rust's would.
    fn int_method(&self, m: IntMethod, signed: bool, x: &[TokenStream]) -> TokenStream {
        use IntMethod::*;
        let (at, rt) = (self.at, &self.rt);
        let a = &x[0];
        let name = match m {
            CountOnes => "count_ones",
            CountZeros => "count_zeros",
            LeadingZeros => "leading_zeros",
            TrailingZeros => "trailing_zeros",
            LeadingOnes => "leading_ones",
            TrailingOnes => "trailing_ones",
            ReverseBits => "reverse_bits",
            SwapBytes => "swap_bytes",
            Signum => "signum",
            IsPowerOfTwo => "is_power_of_two",
            RotateLeft => "rotate_left",
            RotateRight => "rotate_right",
            Pow => "wrapping_pow",
            AbsDiff => "abs_diff",
            SaturatingAdd => "saturating_add",
            SaturatingSub => "saturating_sub",
            NextPowerOfTwo => return quote_spanned!(at=> #rt::next_power_of_two_u32(#a)),
            DivCeil | NextMultipleOf => {
                // From the kernel's `%` (and `/`), so a zero divisor gives their values.
                let b = &x[1];
                let rounded = if m == DivCeil {
                    quote_spanned!(at=> #rt::div_u32(a, b).wrapping_add(1))
                } else {
                    quote_spanned!(at=> a.wrapping_add(b.wrapping_sub(r)))
                };
                let exact = if m == DivCeil {
                    quote_spanned!(at=> #rt::div_u32(a, b))
                } else {
                    quote_spanned!(at=> a)
                };
                return quote_spanned!(at=> {
                    let (a, b): (u32, u32) = (#a, #b);
                    let r = #rt::rem_u32(a, b);
                    if r == 0 { #exact } else { #rounded }
                });
            }
            RemEuclid | DivEuclid => {
                let b = &x[1];
                let f = match (m == RemEuclid, signed) {
                    (true, true) => quote_spanned!(at=> #rt::rem_euclid_i32),
                    (false, true) => quote_spanned!(at=> #rt::div_euclid_i32),
                    // Unsigned: the kernel's `%` and `/`.
                    (true, false) => quote_spanned!(at=> #rt::rem_u32),
                    (false, false) => quote_spanned!(at=> #rt::div_u32),
                };
                return quote_spanned!(at=> #f(#a, #b));
            }
        };
        let method = Ident::new(name, at);
        let rest = &x[1..];
        quote_spanned!(at=> (#a).#method(#(#rest),*))
    }

    /// `dot`, `length`, `normalize` and `cross` of float vectors, as GLSL defines them: the
    /// dot product summed from the first component, `sqrt(dot(v, v))`, `v / length(v)`.
    fn geometric(
        &mut self,
        f: Builtin,
        args: &[Expr],
        vals: &[TokenStream],
        span: Span,
    ) -> Res<TokenStream> {
        let at = self.at;
        let (_, n) = self.shape(&args[0].ty, span)?;
        let Some(n) = n else {
            return unsupported("geometric functions of scalars", span);
        };
        let t = self.temp();
        let dot = |a: &Ident, b: &Ident| {
            (0..n)
                .map(|k| {
                    let k = index_lit(k);
                    quote_spanned!(at=> (#a[#k] * #b[#k]))
                })
                .reduce(|acc, x| quote_spanned!(at=> (#acc + #x)))
                .unwrap_or_default()
        };
        let v0 = &vals[0];
        Ok(match f {
            Builtin::Dot => {
                let u = self.temp();
                let (v1, d) = (&vals[1], dot(&t, &u));
                quote_spanned!(at=> { let #t = #v0; let #u = #v1; #d })
            }
            Builtin::Length => {
                let d = dot(&t, &t);
                quote_spanned!(at=> { let #t = #v0; (#d).sqrt() })
            }
            Builtin::Normalize => {
                let len = self.temp();
                let parts = (0..n).map(|k| {
                    let k = index_lit(k);
                    quote_spanned!(at=> (#t[#k] / #len))
                });
                let d = dot(&t, &t);
                quote_spanned!(at=> { let #t = #v0; let #len = (#d).sqrt(); [#(#parts),*] })
            }
            _ => {
                if n != 3 {
                    return unsupported("`cross` of a vector of other than 3 components", span);
                }
                let u = self.temp();
                let c = |i: u32, j: u32| {
                    let (i, j) = (index_lit(i), index_lit(j));
                    quote_spanned!(at=> (#t[#i] * #u[#j] - #t[#j] * #u[#i]))
                };
                let (c0, c1, c2, v1) = (c(1, 2), c(2, 0), c(0, 1), &vals[1]);
                quote_spanned!(at=> { let #t = #v0; let #u = #v1; [#c0, #c1, #c2] })
            }
        })
    }

    pub(super) fn math(&mut self, f: MathFn, args: &[Expr], span: Span) -> Res<TokenStream> {
        use MathFn::*;
        let at = self.at;
        let s = self.scalar_of(&args[0].ty, span)?;
        if !s.is_float() {
            return unsupported(format!("math on `{}`", s.name()), span);
        }
        let a = args.iter().map(|a| self.expr(a)).collect::<Res<Vec<_>>>()?;
        let rt = &self.rt;
        let m = match s {
            Scalar::F32 => quote_spanned!(at=> #rt::m32),
            _ => quote_spanned!(at=> #rt::m64),
        };
        let x = &a[0];
        let rest = &a[1..];
        let method = |name: &str| {
            let name = Ident::new(name, at);
            quote_spanned!(at=> (#x.#name(#(#rest),*)))
        };
        let helper = |name: &str| {
            let name = Ident::new(name, at);
            quote_spanned!(at=> #m::#name(#x #(, #rest)*))
        };
        Ok(match f {
            Sqrt => method("sqrt"),
            Sin => method("sin"),
            Cos => method("cos"),
            Tan => method("tan"),
            Asin => method("asin"),
            Acos => method("acos"),
            Atan => method("atan"),
            Atan2 => method("atan2"),
            Sinh => method("sinh"),
            Cosh => method("cosh"),
            Tanh => method("tanh"),
            Asinh => method("asinh"),
            Acosh => helper("acosh"),
            Atanh => helper("atanh"),
            Exp => method("exp"),
            Exp2 => method("exp2"),
            Expm1 => method("exp_m1"),
            Log => method("ln"),
            Log2 => method("log2"),
            Log10 => method("log10"),
            Log1p => method("ln_1p"),
            Pow => method("powf"),
            // std's results without a libm call each (see `amp-native-rt`'s `float.rs`).
            Floor => helper("floor"),
            Ceil => helper("ceil"),
            Round => helper("round"),
            Trunc => helper("trunc"),
            // std's `fract` is `x - x.trunc()`.
            Fract => quote_spanned!(at=> { let v = #x; v - #m::trunc(v) }),
            Fma => method("mul_add"),
            Hypot => method("hypot"),
            Cbrt => method("cbrt"),
            Copysign => method("copysign"),
            IsNan => method("is_nan"),
            IsInf => method("is_infinite"),
            IsFinite => method("is_finite"),
            Signum => method("signum"),
            ToDegrees => method("to_degrees"),
            ToRadians => method("to_radians"),
            Fmod => {
                let y = &a[1];
                quote_spanned!(at=> (#x % #y))
            }
            Rsqrt => helper("rsqrt"),
            Rcp => helper("rcp"),
            Exp10 => helper("exp10"),
            Fdim => helper("fdim"),
            Clamp => helper("clamp"),
            Ldexp => helper("ldexp"),
            FrexpMantissa => helper("frexp_mantissa"),
            FrexpExponent => helper("frexp_exponent"),
            ModfFrac => helper("modf_frac"),
            ModfInt => helper("modf_int"),
            Nextafter => helper("nextafter"),
        })
    }
}
