//! Rust's integer methods (`count_ones`, `rotate_left`, `saturating_add`, `rem_euclid`, ...)
//! on `i32` and `u32` scalars, as Rust's release builds compute them (the native back end calls
//! the methods themselves). Each works on the operands' bits as `u32` where the sign does not
//! matter.

use super::inst;
use crate::back::spv::{glsl, Emitter};
use crate::ir::IntMethod;
use crate::types::Scalar;
use rspirv::spirv::{Op, Word};

/// `GLSL.std.450`'s `FindILsb` and `FindUMsb`.
const FIND_I_LSB: u32 = 73;

impl Emitter<'_> {
    /// `|x|` for a signed integer scalar or vector of `n` components (`n = 1` for a scalar) of
    /// type `t`, as Rust's release builds compute it (`i32::MIN.abs()` is `i32::MIN`):
    /// `(x ^ m) - m` with `m = x >> 31`. Not `GLSL.std.450`'s `SAbs`, which Mesa's range
    /// analysis counts as never negative, so that an `abs` of a value it derived from one (an
    /// `abs` of `i32::MIN >> 3`) was dropped (the differential tester met
    /// `(i32::MIN.abs() >> 3).abs()` staying negative on lavapipe).
    pub(in crate::back::spv) fn int_abs(&mut self, n: u32, t: Word, x: Word) -> Word {
        let thirty_one = self.uint(31);
        let shift = match n {
            1 => thirty_one,
            n => {
                let ut = self.scalar_ty(Scalar::U32);
                let vt = self.b.type_vector(ut, n);
                self.b.constant_composite(vt, vec![thirty_one; n as usize])
            }
        };
        let m = self.op(Op::ShiftRightArithmetic, t, &[x, shift]);
        let flipped = self.op(Op::BitwiseXor, t, &[x, m]);
        self.op(Op::ISub, t, &[flipped, m])
    }

    /// `f` on the evaluated operands `a` (the receiver first), the receiver of type `s`
    /// (`I32` or `U32`).
    pub(in crate::back::spv) fn int_method(&mut self, f: IntMethod, s: Scalar, a: &[Word]) -> Word {
        use IntMethod::*;
        let u = Scalar::U32;
        let ut = self.scalar_ty(u);
        let st = self.scalar_ty(s);
        let signed = s == Scalar::I32;
        // The receiver's bits as a `u32`, and a `u32` result back in the receiver's type.
        let bits = |e: &mut Self, x: Word| {
            if signed {
                e.op(Op::Bitcast, ut, &[x])
            } else {
                x
            }
        };
        let back = |e: &mut Self, x: Word| {
            if signed {
                e.op(Op::Bitcast, st, &[x])
            } else {
                x
            }
        };
        let x = bits(self, a[0]);
        let (zero, one, all) = (self.uint(0), self.uint(1), self.uint(u32::MAX));
        let thirty_one = self.uint(31);
        let thirty_two = self.uint(32);
        match f {
            CountOnes => self.op(Op::BitCount, ut, &[x]),
            CountZeros => {
                let n = self.op(Op::Not, ut, &[x]);
                self.op(Op::BitCount, ut, &[n])
            }
            LeadingZeros => self.leading_zeros(x),
            LeadingOnes => {
                let n = self.op(Op::Not, ut, &[x]);
                self.leading_zeros(n)
            }
            TrailingZeros => self.trailing_zeros(x),
            TrailingOnes => {
                let n = self.op(Op::Not, ut, &[x]);
                self.trailing_zeros(n)
            }
            ReverseBits => {
                let r = self.op(Op::BitReverse, ut, &[x]);
                back(self, r)
            }
            SwapBytes => {
                let (eight, twenty_four) = (self.uint(8), self.uint(24));
                let (low, mid) = (self.uint(0xff), self.uint(0xff00));
                let b0 = self.iop(Op::BitwiseAnd, u, x, low);
                let b0 = self.iop(Op::ShiftLeftLogical, u, b0, twenty_four);
                let b1 = self.iop(Op::BitwiseAnd, u, x, mid);
                let b1 = self.iop(Op::ShiftLeftLogical, u, b1, eight);
                let b2 = self.iop(Op::ShiftRightLogical, u, x, eight);
                let b2 = self.iop(Op::BitwiseAnd, u, b2, mid);
                let b3 = self.iop(Op::ShiftRightLogical, u, x, twenty_four);
                let r = self.iop(Op::BitwiseOr, u, b0, b1);
                let r = self.iop(Op::BitwiseOr, u, r, b2);
                let r = self.iop(Op::BitwiseOr, u, r, b3);
                back(self, r)
            }
            RotateLeft | RotateRight => {
                // The amount modulo 32; the other side's shift is (32 - n) mod 32, and a
                // zero amount gives x | x.
                let n = self.iop(Op::BitwiseAnd, u, a[1], thirty_one);
                let other = self.iop(Op::ISub, u, thirty_two, n);
                let other = self.iop(Op::BitwiseAnd, u, other, thirty_one);
                let (l, r) = if f == RotateLeft {
                    (n, other)
                } else {
                    (other, n)
                };
                let hi = self.iop(Op::ShiftLeftLogical, u, x, l);
                let lo = self.iop(Op::ShiftRightLogical, u, x, r);
                let v = self.iop(Op::BitwiseOr, u, hi, lo);
                back(self, v)
            }
            Pow => {
                // Square and multiply over the exponent's 32 bits: products wrap, and the
                // order of wrapping products does not change their value mod 2^32.
                let mut result = one;
                let mut base = x;
                for bit in 0..32u32 {
                    let mask = self.uint(1 << bit);
                    let set = self.iop(Op::BitwiseAnd, u, a[1], mask);
                    let set = self.cmp(Op::INotEqual, set, zero);
                    let product = self.iop(Op::IMul, u, result, base);
                    result = self.select(u, set, product, result);
                    if bit < 31 {
                        base = self.iop(Op::IMul, u, base, base);
                    }
                }
                back(self, result)
            }
            AbsDiff => {
                let y = bits(self, a[1]);
                let greater = if signed {
                    self.cmp(Op::SGreaterThan, a[0], a[1])
                } else {
                    self.cmp(Op::UGreaterThan, x, y)
                };
                let xy = self.iop(Op::ISub, u, x, y);
                let yx = self.iop(Op::ISub, u, y, x);
                self.select(u, greater, xy, yx)
            }
            SaturatingAdd | SaturatingSub => {
                let y = bits(self, a[1]);
                let add = f == SaturatingAdd;
                let op = if add { Op::IAdd } else { Op::ISub };
                let r = self.iop(op, u, x, y);
                if !signed {
                    // Unsigned: a carry (the sum below x) or a borrow (y above x).
                    return if add {
                        let over = self.cmp(Op::ULessThan, r, x);
                        self.select(u, over, all, r)
                    } else {
                        let under = self.cmp(Op::UGreaterThan, y, x);
                        self.select(u, under, zero, r)
                    };
                }
                // Signed overflow: the result's sign differs from x's, and (for `+`) y's
                // sign is x's or (for `-`) is not.
                let xr = self.iop(Op::BitwiseXor, u, x, r);
                let other = if add {
                    self.iop(Op::BitwiseXor, u, y, r)
                } else {
                    self.iop(Op::BitwiseXor, u, x, y)
                };
                let both = self.iop(Op::BitwiseAnd, u, xr, other);
                let sign = self.uint(0x8000_0000);
                let flag = self.iop(Op::BitwiseAnd, u, both, sign);
                let overflow = self.cmp(Op::INotEqual, flag, zero);
                let negative_x = self.iop(Op::BitwiseAnd, u, x, sign);
                let negative_x = self.cmp(Op::INotEqual, negative_x, zero);
                let max = self.uint(0x7fff_ffff);
                let bound = self.select(u, negative_x, sign, max);
                let v = self.select(u, overflow, bound, r);
                back(self, v)
            }
            RemEuclid | DivEuclid => self.euclid(f == RemEuclid, s, a[0], a[1]),
            DivCeil | NextMultipleOf => {
                // From the kernel's `%` (and `/`), so a zero divisor gives their values.
                let r = self.euclid(true, s, a[0], a[1]);
                let exact = self.cmp(Op::IEqual, r, zero);
                if f == DivCeil {
                    let q = self.euclid(false, s, a[0], a[1]);
                    let up = self.iop(Op::IAdd, u, q, one);
                    self.select(u, exact, q, up)
                } else {
                    let gap = self.iop(Op::ISub, u, a[1], r);
                    let up = self.iop(Op::IAdd, u, x, gap);
                    self.select(u, exact, x, up)
                }
            }
            Signum => {
                let zero_i = self.int(0);
                let (minus, plus) = (self.int(-1), self.int(1));
                let negative = self.cmp(Op::SLessThan, a[0], zero_i);
                let positive = self.cmp(Op::SGreaterThan, a[0], zero_i);
                let v = self.select(Scalar::I32, positive, plus, zero_i);
                self.select(Scalar::I32, negative, minus, v)
            }
            IsPowerOfTwo => {
                let below = self.iop(Op::ISub, u, x, one);
                let common = self.iop(Op::BitwiseAnd, u, x, below);
                let single = self.cmp(Op::IEqual, common, zero);
                let nonzero = self.cmp(Op::INotEqual, x, zero);
                self.cmp(Op::LogicalAnd, single, nonzero)
            }
            NextPowerOfTwo => {
                // (MAX >> leading_zeros(x - 1)) + 1, wrapping to 0 past 2^31; 1 for 0 and 1.
                let below = self.iop(Op::ISub, u, x, one);
                let lz = self.leading_zeros(below);
                let lz = self.ext(glsl::UMIN, ut, &[lz, thirty_one]);
                let ones = self.iop(Op::ShiftRightLogical, u, all, lz);
                let next = self.iop(Op::IAdd, u, ones, one);
                let small = self.cmp(Op::ULessThanEqual, x, one);
                self.select(u, small, one, next)
            }
        }
    }

    /// `leading_zeros` of a `u32`: 32 for 0.
    fn leading_zeros(&mut self, x: Word) -> Word {
        let u = Scalar::U32;
        let ut = self.scalar_ty(u);
        let msb = self.ext(inst::FIND_U_MSB, ut, &[x]);
        let thirty_one = self.uint(31);
        let lz = self.iop(Op::ISub, u, thirty_one, msb);
        let (zero, thirty_two) = (self.uint(0), self.uint(32));
        let is_zero = self.cmp(Op::IEqual, x, zero);
        self.select(u, is_zero, thirty_two, lz)
    }

    /// `trailing_zeros` of a `u32`: 32 for 0.
    fn trailing_zeros(&mut self, x: Word) -> Word {
        let u = Scalar::U32;
        let ut = self.scalar_ty(u);
        let lsb = self.ext(FIND_I_LSB, ut, &[x]);
        let (zero, thirty_two) = (self.uint(0), self.uint(32));
        let is_zero = self.cmp(Op::IEqual, x, zero);
        self.select(u, is_zero, thirty_two, lsb)
    }

    /// `rem_euclid` (`rem`) or `div_euclid` of `x` and `y` of type `s`, from the kernel's own
    /// `%` and `/` (defined for a zero divisor and for `i32::MIN / -1`): the remainder made
    /// non-negative by adding `|y|`, the quotient moved one step to match.
    fn euclid(&mut self, rem: bool, s: Scalar, x: Word, y: Word) -> Word {
        let st = self.scalar_ty(s);
        let r = self.binary(
            crate::ir::BinOp::Rem,
            s,
            &crate::types::Ty::Scalar(s),
            x,
            y,
            &crate::types::Ty::Scalar(s),
        );
        if s != Scalar::I32 {
            if rem {
                return r;
            }
            return self.binary(
                crate::ir::BinOp::Div,
                s,
                &crate::types::Ty::Scalar(s),
                x,
                y,
                &crate::types::Ty::Scalar(s),
            );
        }
        let zero = self.int(0);
        let negative = self.cmp(Op::SLessThan, r, zero);
        let y_negative = self.cmp(Op::SLessThan, y, zero);
        if rem {
            let minus = self.op(Op::ISub, st, &[r, y]);
            let plus = self.op(Op::IAdd, st, &[r, y]);
            let fixed = self.select(s, y_negative, minus, plus);
            return self.select(s, negative, fixed, r);
        }
        let q = self.binary(
            crate::ir::BinOp::Div,
            s,
            &crate::types::Ty::Scalar(s),
            x,
            y,
            &crate::types::Ty::Scalar(s),
        );
        let one = self.int(1);
        let up = self.op(Op::IAdd, st, &[q, one]);
        let down = self.op(Op::ISub, st, &[q, one]);
        let fixed = self.select(s, y_negative, up, down);
        self.select(s, negative, fixed, q)
    }
}
