//! `Norm` and `Unorm` (and their vectors) in the back end. They are `f32`s on the device
//! ([`Ty::device`]): arithmetic and comparisons are the `f32` ones (the front end keeps them
//! to what the host has), and every arithmetic result and every conversion into a normalized
//! type is clamped here exactly as the host's `Norm::new` / `Unorm::new` clamps: a NaN becomes
//! `0.0`, then Rust's `clamp` (`lo` below it, `1.0` above it, the value itself otherwise, so a
//! `-0.0` stays `-0.0` as on the host). `GLSL.std.450`'s `NClamp` would give `lo` for a NaN
//! and leaves the sign of a zero bound open, so it is not used.

use super::*;
use crate::back::spv::Invariant;

impl Emitter<'_> {
    /// `value` of type `ty`, clamped when `ty` is a normalized scalar or vector; any other
    /// value as it is.
    pub(super) fn clamp_if_normalized(&mut self, value: Word, ty: &Ty) -> Word {
        if ty.is_normalized() {
            self.normalize(value, ty)
        } else {
            value
        }
    }

    /// A conversion (`ExprKind::Cast`) from or to a normalized type: into `Norm` / `Unorm`
    /// clamps (`Norm::new`, `Unorm::from(norm)`, `from_f32_array`), except `Unorm` to `Norm`,
    /// which is exact on the host too; out of them (`f32::from`, `get`, `to_f32_array`) is the
    /// `f32` itself.
    pub(super) fn normalized_cast(&mut self, value: Word, from: &Ty, to: &Ty) -> Word {
        let (f, t) = (from.component(), to.component());
        let exact = f == t || (f == Some(Scalar::Unorm) && t == Some(Scalar::Norm));
        if exact || !to.is_normalized() {
            value
        } else {
            self.normalize(value, to)
        }
    }

    /// The host's `new` of the normalized type `to`, component-wise for a vector: NaN to 0,
    /// then clamped into `[lo, 1]` by two selects.
    fn normalize(&mut self, x: Word, to: &Ty) -> Word {
        let lo = to
            .component()
            .and_then(Scalar::normalized_min)
            .or_internal(&mut self.internal, Invariant::CheckedType);
        let n = match to {
            Ty::Vector(_, n) => Some(*n),
            _ => None,
        };
        let t = self.ty(to);
        let b = match n {
            Some(n) => self.ty(&Ty::Vector(Scalar::Bool, n)),
            None => self.scalar_ty(Scalar::Bool),
        };
        let lo = self.f32_splat(lo, n);
        let one = self.f32_splat(1.0, n);
        let zero = self.f32_splat(0.0, n);
        let below = self.op(Op::FOrdLessThan, b, &[x, lo]);
        let r = self.op(Op::Select, t, &[below, lo, x]);
        let above = self.op(Op::FOrdGreaterThan, b, &[r, one]);
        let r = self.op(Op::Select, t, &[above, one, r]);
        let nan = self.op(Op::IsNan, b, &[x]);
        self.op(Op::Select, t, &[nan, zero, r])
    }

    /// The `f32` constant `v`, or a vector of `n` of them.
    pub(super) fn f32_splat(&mut self, v: f32, n: Option<u32>) -> Word {
        let c = self.const_scalar(Scalar::F32, Lit::Float(v as f64, v));
        match n {
            None => c,
            Some(n) => {
                let t = self.ty(&Ty::Vector(Scalar::F32, n));
                self.b.constant_composite(t, vec![c; n as usize])
            }
        }
    }
}
