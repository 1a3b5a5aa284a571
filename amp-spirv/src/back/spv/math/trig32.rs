//! `f32` `sin`, `cos` and `tan` within 1, 1 and 2 ULP of Rust's over the whole range, on every
//! device: Vulkan bounds the device's own by an absolute error (2^-11 on [-π, π], nothing
//! outside), which near a zero of the function is most of the result (NVIDIA's `cos` was
//! 1,516 ULP off, its `tan(1.3e-5)` 0.56%).
//!
//! - **Reduction** (Payne and Hanek's, in integers): `|x| · 2/π = n + f` from the 24-bit
//!   significand times a 96-bit window of the bits of 2/π that starts where the product's
//!   integer part stops mattering beyond `n mod 4` (three `OpUMulExtended`); the top 64
//!   fraction bits (at least 32 significant for any `f32`, however near a multiple of π/2), as
//!   `f - 1` and `n + 1` when `f >= 1/2`, are normalized into two 24-bit halves and multiplied
//!   by π/2 in double-`f32` arithmetic (Dekker's product): `r + rl` with `|r| <= π/4`.
//!   Below π/4, `r = |x|` as it is.
//! - **Kernels** on `[-π/4, π/4]` (musl's `__sindf` and `__cosdf` coefficients, evaluated in
//!   `f32` with the reduction's low part as a first-order correction; `cos` as fdlibm writes
//!   `1 - z/2` to keep its rounding), then the quadrant `n mod 4` and the sign of `x`; `tan` is
//!   the rounded quotient of the two kernels (`-cos/sin` in odd quadrants).
//! - Infinities and NaN give NaN, `±0` itself (`tan` too), as Rust.
//!
//! A host model of every step, checked exhaustively on `[0, 8]` and on random arguments of the
//! whole range against Rust's std, is `amp-spirv/tests/trig32.rs`.

// The coefficients keep musl's digits, so they can be checked against its source.
#![allow(clippy::excessive_precision)]

use crate::back::spv::Emitter;
use crate::back::spv::Invariant;
use crate::math::MathFn;
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

/// The bits of 2/π after the binary point, 32 at a time, after one word of the zeros before
/// it (the integer bits): the window for an exponent starts inside this table.
pub const TWO_OVER_PI: [u32; 8] = [
    0,
    0xa2f9_836e,
    0x4e44_1529,
    0xfc27_57d1,
    0xf534_ddc0,
    0xdb62_9599,
    0x3c43_9041,
    0xfe51_63ab,
];

/// musl's `__sindf`: `sin(x)/x - 1 ≈ x²(S1 + x²(S2 + x²(S3 + x² S4)))` on `[-π/4, π/4]`.
pub const SIN: [f64; 4] = [
    -0.166_666_666_416_265_235_595,
    0.008_333_329_385_889_463_175_6,
    -0.000_198_393_348_360_966_317_347,
    0.000_002_718_311_493_989_821_906_4,
];

/// musl's `__cosdf`: `cos(x) ≈ 1 + x² C0 + x⁴(C1 + x²(C2 + x² C3))` on `[-π/4, π/4]`; `C0` is
/// taken as exactly -1/2.
pub const COS: [f64; 4] = [
    -0.499_999_997_251_031_003_120,
    0.041_666_623_323_739_063_189_4,
    -0.001_388_676_377_460_992_946_92,
    0.000_024_390_448_796_277_409_065_4,
];

/// π/2 as an `f32` and the `f32` nearest the rest.
fn half_pi() -> (f32, f32) {
    let hi = std::f64::consts::FRAC_PI_2 as f32;
    (hi, (std::f64::consts::FRAC_PI_2 - f64::from(hi)) as f32)
}

/// A reduced argument: `|x| = n π/2 + r + rl` (`n` a `u32`, only its low two bits kept).
struct Reduced {
    r: Word,
    rl: Word,
    n: Word,
}

impl Emitter<'_> {
    /// `f32` `sin`, `cos` or `tan` (`f`) of `x`.
    pub(in crate::back::spv) fn trig32(&mut self, f: MathFn, x: Word) -> Word {
        let (s, u) = (Scalar::F32, Scalar::U32);
        let t = self.scalar_ty(s);
        let ax = self.abs_bits(s, 1, t, x);
        let Reduced { r, rl, n } = self.reduce_half_pi(ax);
        let sin = self.sin_kernel(r, rl);
        let cos = self.cos_kernel(r, rl);
        let (one, two, zero) = (self.uint(1), self.uint(2), self.uint(0));
        let odd_bit = self.iop(Op::BitwiseAnd, u, n, one);
        let odd = self.cmp(Op::INotEqual, odd_bit, zero);
        let negative_x = self.sign_bit(s, x);
        let (value, negate) = match f {
            MathFn::Cos => {
                // cos, -sin, -cos, sin.
                let v = self.select(s, odd, sin, cos);
                let next = self.iop(Op::IAdd, u, n, one);
                let half = self.iop(Op::BitwiseAnd, u, next, two);
                (v, self.cmp(Op::INotEqual, half, zero))
            }
            MathFn::Tan => {
                let num = self.select(s, odd, cos, sin);
                let den = self.select(s, odd, sin, cos);
                let q = self.div_f32(num, den);
                (q, self.cmp(Op::LogicalNotEqual, odd, negative_x))
            }
            _ => {
                // sin, cos, -sin, -cos; odd in x.
                let v = self.select(s, odd, cos, sin);
                let half = self.iop(Op::BitwiseAnd, u, n, two);
                let lower = self.cmp(Op::INotEqual, half, zero);
                (v, self.cmp(Op::LogicalNotEqual, lower, negative_x))
            }
        };
        let negated = self.neg(s, value);
        let v = self.select(s, negate, negated, value);
        // Infinities and NaN: NaN.
        let nan = self.test(Op::IsNan, x);
        let inf = self.test(Op::IsInf, x);
        let not_finite = self.or(nan, inf);
        let nan_c = self.float_const(s, f64::NAN);
        self.select(s, not_finite, nan_c, v)
    }

    /// Reduces the magnitude `ax` (finite; any result otherwise) by multiples of π/2.
    fn reduce_half_pi(&mut self, ax: Word) -> Reduced {
        let (s, u, i) = (Scalar::F32, Scalar::U32, Scalar::I32);
        let ut = self.scalar_ty(u);
        let bits = self.bits32(ax);
        let (twenty_three, fraction_mask, hidden) =
            (self.uint(23), self.uint(0x7f_ffff), self.uint(0x80_0000));
        let field = self.iop(Op::ShiftRightLogical, u, bits, twenty_three);
        let fraction = self.iop(Op::BitwiseAnd, u, bits, fraction_mask);
        let m = self.iop(Op::BitwiseOr, u, fraction, hidden);
        // |x| = m 2^(field - 150). The window starts at bit field - 120 of the table (the
        // bit of 2/π worth 2^(151 - field)): the bits above it add multiples of 4 to |x| 2/π.
        // Fields below 126 (|x| < π/4, not reduced) start at 6, as field 126 does.
        let it = self.scalar_ty(i);
        let field_i = self.op(Op::Bitcast, it, &[field]);
        let k120 = self.int(120);
        let start = self.iop(Op::ISub, i, field_i, k120);
        let six = self.int(6);
        let start = self.ext(super::super::glsl::SMAX, it, &[start, six]);
        let start = self.op(Op::Bitcast, ut, &[start]);
        let five = self.uint(5);
        let word = self.iop(Op::ShiftRightLogical, u, start, five);
        let thirty_one = self.uint(31);
        let bit = self.iop(Op::BitwiseAnd, u, start, thirty_one);
        // Table words word .. word + 3 (word <= 4), chosen by selects.
        let table: Vec<Word> = TWO_OVER_PI.iter().map(|&w| self.uint(w)).collect();
        let is_word: Vec<Word> = (0..5u32)
            .map(|j| {
                let jw = self.uint(j);
                self.cmp(Op::IEqual, word, jw)
            })
            .collect();
        let words: Vec<Word> = (0..4usize)
            .map(|k| {
                let mut w = table[k];
                for j in 1..5usize {
                    w = self.select(u, is_word[j], table[j + k], w);
                }
                w
            })
            .collect();
        // The 96-bit window: words shifted left by `bit`, each taking the next one's top bits.
        let thirty_two = self.uint(32);
        let zero = self.uint(0);
        let right = self.iop(Op::ISub, u, thirty_two, bit);
        let right = self.ext(super::super::glsl::UMIN, ut, &[right, thirty_one]);
        let aligned = self.cmp(Op::IEqual, bit, zero);
        let window: Vec<Word> = (0..3)
            .map(|k| {
                let hi = self.iop(Op::ShiftLeftLogical, u, words[k], bit);
                let lo = self.iop(Op::ShiftRightLogical, u, words[k + 1], right);
                let lo = self.select(u, aligned, zero, lo);
                self.iop(Op::BitwiseOr, u, hi, lo)
            })
            .collect();
        // P = m · window, 120 bits in words p0 (low) .. p2 (p3 is not needed).
        let (a2_lo, a2_hi) = self.wide_op(Op::UMulExtended, m, window[2]);
        let (a1_lo, a1_hi) = self.wide_op(Op::UMulExtended, m, window[1]);
        let (a0_lo, _) = self.wide_op(Op::UMulExtended, m, window[0]);
        let p0 = a2_lo;
        let (p1, c1) = self.wide_op(Op::IAddCarry, a2_hi, a1_lo);
        let p2 = self.iop(Op::IAdd, u, a1_hi, a0_lo);
        let p2 = self.iop(Op::IAdd, u, p2, c1);
        // |x| 2/π = P / 2^94 (mod 4): n = bits 95..94, the fraction's top 64 bits below.
        let thirty = self.uint(30);
        let (two, three) = (self.uint(2), self.uint(3));
        let n = self.iop(Op::ShiftRightLogical, u, p2, thirty);
        let n = self.iop(Op::BitwiseAnd, u, n, three);
        let f_hi = self.iop(Op::ShiftLeftLogical, u, p2, two);
        let top = self.iop(Op::ShiftRightLogical, u, p1, thirty);
        let f_hi = self.iop(Op::BitwiseOr, u, f_hi, top);
        let f_lo = self.iop(Op::ShiftLeftLogical, u, p1, two);
        let top = self.iop(Op::ShiftRightLogical, u, p0, thirty);
        let f_lo = self.iop(Op::BitwiseOr, u, f_lo, top);
        // f >= 1/2: f - 1 (its magnitude 2^64 - F) in the next quadrant.
        let half = self.iop(Op::ShiftRightLogical, u, f_hi, thirty_one);
        let one = self.uint(1);
        let upper = self.cmp(Op::IEqual, half, one);
        let not_lo = self.op(Op::Not, ut, &[f_lo]);
        let not_hi = self.op(Op::Not, ut, &[f_hi]);
        let (neg_lo, carry) = self.wide_op(Op::IAddCarry, not_lo, one);
        let neg_hi = self.iop(Op::IAdd, u, not_hi, carry);
        let m_hi = self.select(u, upper, neg_hi, f_hi);
        let m_lo = self.select(u, upper, neg_lo, f_lo);
        let next = self.iop(Op::IAdd, u, n, one);
        let next = self.iop(Op::BitwiseAnd, u, next, three);
        let n = self.select(u, upper, next, n);
        // Normalize the 64-bit magnitude: shift its leading one to bit 63.
        let msb_hi = self.ext(FIND_U_MSB, ut, &[m_hi]);
        let msb_lo = self.ext(FIND_U_MSB, ut, &[m_lo]);
        let high_set = self.cmp(Op::INotEqual, m_hi, zero);
        let sixty_three = self.uint(63);
        let from_hi = self.iop(Op::ISub, u, thirty_one, msb_hi);
        let from_lo = self.iop(Op::ISub, u, sixty_three, msb_lo);
        let shift = self.select(u, high_set, from_hi, from_lo);
        // A zero magnitude (no float is a nonzero multiple of π/2) keeps a shift in range.
        let shift = self.ext(super::super::glsl::UMIN, ut, &[shift, sixty_three]);
        let wide_shift = self.cmp(Op::UGreaterThanEqual, shift, thirty_two);
        let below = self.iop(Op::ISub, u, shift, thirty_two);
        let below = self.ext(super::super::glsl::UMIN, ut, &[below, thirty_one]);
        let small_shift = self.ext(super::super::glsl::UMIN, ut, &[shift, thirty_one]);
        let back = self.iop(Op::ISub, u, thirty_two, small_shift);
        let back = self.ext(super::super::glsl::UMIN, ut, &[back, thirty_one]);
        let n_hi_small = self.iop(Op::ShiftLeftLogical, u, m_hi, small_shift);
        let carried = self.iop(Op::ShiftRightLogical, u, m_lo, back);
        let unshifted = self.cmp(Op::IEqual, shift, zero);
        let carried = self.select(u, unshifted, zero, carried);
        let n_hi_small = self.iop(Op::BitwiseOr, u, n_hi_small, carried);
        let n_hi_wide = self.iop(Op::ShiftLeftLogical, u, m_lo, below);
        let norm_hi = self.select(u, wide_shift, n_hi_wide, n_hi_small);
        let n_lo_small = self.iop(Op::ShiftLeftLogical, u, m_lo, small_shift);
        let norm_lo = self.select(u, wide_shift, zero, n_lo_small);
        // Two 24-bit halves, exact as floats: f = (hi24 2^-24 + lo24 2^-48) 2^-shift.
        let eight = self.uint(8);
        let sixteen = self.uint(16);
        let hi24 = self.iop(Op::ShiftRightLogical, u, norm_hi, eight);
        let low_byte = self.uint(0xff);
        let lo24 = self.iop(Op::BitwiseAnd, u, norm_hi, low_byte);
        let lo24 = self.iop(Op::ShiftLeftLogical, u, lo24, sixteen);
        let rest = self.iop(Op::ShiftRightLogical, u, norm_lo, sixteen);
        let lo24 = self.iop(Op::BitwiseOr, u, lo24, rest);
        let ft = self.scalar_ty(s);
        let hi_f = self.op(Op::ConvertUToF, ft, &[hi24]);
        let lo_f = self.op(Op::ConvertUToF, ft, &[lo24]);
        let shift_i = self.op(Op::Bitcast, it, &[shift]);
        let minus_24 = self.int(-24);
        let minus_48 = self.int(-48);
        let e_hi = self.iop(Op::ISub, i, minus_24, shift_i);
        let e_lo = self.iop(Op::ISub, i, minus_48, shift_i);
        let scale_hi = self.pow2(s, e_hi);
        let scale_lo = self.pow2(s, e_lo);
        let hi_f = self.fop(Op::FMul, s, hi_f, scale_hi);
        let lo_f = self.fop(Op::FMul, s, lo_f, scale_lo);
        // r + rl = f π/2 (Dekker's product of the high halves, then the rest).
        let (p1, p2) = half_pi();
        let (p1, p2) = (
            self.float_const(s, f64::from(p1)),
            self.float_const(s, f64::from(p2)),
        );
        let (ph, pe) = self.two_prod_of(s, hi_f, p1);
        let a = self.fop(Op::FMul, s, hi_f, p2);
        let b = self.fop(Op::FMul, s, lo_f, p1);
        let ab = self.fop(Op::FAdd, s, a, b);
        let pl = self.fop(Op::FAdd, s, pe, ab);
        let r = self.fop(Op::FAdd, s, ph, pl);
        let d = self.fop(Op::FSub, s, r, ph);
        let rl = self.fop(Op::FSub, s, pl, d);
        let r_neg = self.neg(s, r);
        let rl_neg = self.neg(s, rl);
        let r = self.select(s, upper, r_neg, r);
        let rl = self.select(s, upper, rl_neg, rl);
        // Below π/4: |x| itself.
        let quarter = self.float_const(s, f64::from(std::f32::consts::FRAC_PI_4));
        let small = self.cmp(Op::FOrdLessThan, ax, quarter);
        let zero_f = self.float_const(s, 0.0);
        Reduced {
            r: self.select(s, small, ax, r),
            rl: self.select(s, small, zero_f, rl),
            n: self.select(u, small, zero, n),
        }
    }

    /// `sin(r + rl)` for `|r| <= π/4`: `r + (r³ S(r²) + rl (1 - r²/2))`.
    fn sin_kernel(&mut self, r: Word, rl: Word) -> Word {
        let s = Scalar::F32;
        let z = self.fop(Op::FMul, s, r, r);
        let p = self.f32_horner(z, &SIN[1..]);
        let c0 = self.float_const(s, f64::from(SIN[0] as f32));
        let zp = self.fop(Op::FMul, s, z, p);
        let p = self.fop(Op::FAdd, s, c0, zp);
        let rz = self.fop(Op::FMul, s, r, z);
        let tail = self.fop(Op::FMul, s, rz, p);
        let half = self.float_const(s, 0.5);
        let hz = self.fop(Op::FMul, s, half, z);
        let one = self.float_const(s, 1.0);
        let c = self.fop(Op::FSub, s, one, hz);
        let correction = self.fop(Op::FMul, s, rl, c);
        let sum = self.fop(Op::FAdd, s, tail, correction);
        self.fop(Op::FAdd, s, r, sum)
    }

    /// `cos(r + rl)` for `|r| <= π/4`: `w + (((1 - w) - z/2) + (z² C(z) - r rl))`, `w = 1 - z/2`.
    fn cos_kernel(&mut self, r: Word, rl: Word) -> Word {
        let s = Scalar::F32;
        let z = self.fop(Op::FMul, s, r, r);
        let p = self.f32_horner(z, &COS[1..]);
        let half = self.float_const(s, 0.5);
        let hz = self.fop(Op::FMul, s, half, z);
        let one = self.float_const(s, 1.0);
        let w = self.fop(Op::FSub, s, one, hz);
        let lost = self.fop(Op::FSub, s, one, w);
        let lost = self.fop(Op::FSub, s, lost, hz);
        let zz = self.fop(Op::FMul, s, z, z);
        let high = self.fop(Op::FMul, s, zz, p);
        let rr = self.fop(Op::FMul, s, r, rl);
        let rest = self.fop(Op::FSub, s, high, rr);
        let rest = self.fop(Op::FAdd, s, lost, rest);
        self.fop(Op::FAdd, s, w, rest)
    }

    /// `c[0] + z (c[1] + z (...))` in `f32`, each operation rounded on its own.
    fn f32_horner(&mut self, z: Word, c: &[f64]) -> Word {
        let s = Scalar::F32;
        let Some((&last, rest)) = c.split_last() else {
            return self.broken(Invariant::Polynomial);
        };
        let mut acc = self.float_const(s, f64::from(last as f32));
        for &k in rest.iter().rev() {
            let k = self.float_const(s, f64::from(k as f32));
            let m = self.fop(Op::FMul, s, z, acc);
            acc = self.fop(Op::FAdd, s, k, m);
        }
        acc
    }
}

/// `GLSL.std.450`'s `FindUMsb`.
const FIND_U_MSB: u32 = 75;
