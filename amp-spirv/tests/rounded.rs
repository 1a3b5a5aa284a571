//! A host model of the correction that makes `f32` division and square root correctly rounded
//! on devices whose own are not (`back/spv/math/rounded.rs` emits the same integer steps as
//! SPIR-V): from any guess up to 3 ULP off, the fast test accepts exactly the right result, and
//! three steps reach it, for quotients and roots across the whole range (denormal results and
//! overflow included). The emitted code itself runs in the device test
//! `exact::f32_division_and_square_root_are_correctly_rounded_on_their_exact_paths`.

/// `m · 2^(e - 150)` with `2^23 <= m < 2^24`, for a finite nonzero magnitude's bits.
fn significand(x: u32) -> (u32, i32) {
    let field = (x >> 23) as i32;
    let fraction = x & 0x7f_ffff;
    if field == 0 {
        let shift = fraction.leading_zeros() as i32 - 8;
        (fraction << shift, 1 - shift)
    } else {
        (fraction | 0x80_0000, field)
    }
}

/// The comparison of the true result with `mid(x)`, the midpoint above the float with bits `x`:
/// `ma · 2^s` against `(2 mx + 1) · w`, as the emitted code computes it in 64 bits.
fn above_midpoint(a: (u32, i32), b: Option<(u32, i32)>, x: u32) -> std::cmp::Ordering {
    let field = (x >> 23) as i32;
    let (mx, ex) = if field == 0 {
        (x & 0x7f_ffff, 1)
    } else {
        ((x & 0x7f_ffff) | 0x80_0000, field)
    };
    let odd = 2 * u64::from(mx) + 1;
    let (right, s) = match b {
        Some((mb, eb)) => (odd * u64::from(mb), a.1 - eb - ex + 151),
        None => (odd * odd, a.1 - 2 * ex + 152),
    };
    if s < 0 {
        return std::cmp::Ordering::Less;
    }
    if s > 40 {
        return std::cmp::Ordering::Greater;
    }
    (u64::from(a.0) << s).cmp(&right)
}

/// One step toward the true result, as the slow path takes it.
fn step(a: (u32, i32), b: Option<(u32, i32)>, q: u32) -> u32 {
    use std::cmp::Ordering::{Greater, Less};
    if q < 0x7f80_0000 && above_midpoint(a, b, q) == Greater {
        q + 1
    } else if q > 0 && above_midpoint(a, b, q - 1) == Less {
        q - 1
    } else {
        q
    }
}

/// The fast test: `0 < L - 2mq·w + w <= 2w` (quotient) or `0 < L - 4mq² + 4mq <= 8mq` (root),
/// decided only for normal operands and a normal result with a nonzero fraction.
fn fast_test(a: u32, b: Option<u32>, q: u32) -> bool {
    let parts = |x: u32| {
        let field = x >> 23;
        (
            (x & 0x7f_ffff) | 0x80_0000,
            field as i32,
            field.wrapping_sub(1) < 254,
        )
    };
    let (ma, ea, a_normal) = parts(a);
    let (mq, eq, q_normal) = parts(q);
    let mut ok = a_normal && q_normal && q & 0x7f_ffff != 0;
    let (w, s, product, bound) = match b {
        Some(b) => {
            let (mb, eb, b_normal) = parts(b);
            ok &= b_normal;
            let product = u64::from(2 * mq) * u64::from(mb);
            (
                u64::from(mb),
                ea - eb - eq + 151,
                product,
                u64::from(2 * mb),
            )
        }
        None => {
            let product = u64::from(2 * mq) * u64::from(2 * mq);
            (
                u64::from(4 * mq),
                ea - 2 * eq + 152,
                product,
                u64::from(8 * mq),
            )
        }
    };
    if !ok || !(1..=31).contains(&s) {
        return false;
    }
    let d = (u64::from(ma) << s).wrapping_sub(product).wrapping_add(w);
    d >= 1 && d <= bound
}

/// The slow path's guess: the operation on the significands alone (the device's, modelled as
/// the correctly rounded one moved `error_ulps`: Vulkan's 2.5 ULP bound is 3 units at most),
/// its exponent put back.
fn slow_guess(a: (u32, i32), b: Option<(u32, i32)>, error_ulps: i32) -> u32 {
    let reduced = |m: u32| f32::from_bits((m & 0x7f_ffff) | 127 << 23);
    let (guess, shift) = match b {
        Some(b) => (reduced(a.0) / reduced(b.0), a.1 - b.1),
        None => {
            let unbiased = a.1 - 127;
            let parity = unbiased & 1;
            let arg = reduced(a.0) * if parity == 1 { 2.0 } else { 1.0 };
            (arg.sqrt(), (unbiased - parity) >> 1)
        }
    };
    let bits = (guess.to_bits() as i32 + error_ulps) as u32;
    let field = (bits >> 23) as i32 + shift;
    if field >= 255 {
        0x7f80_0000
    } else if field >= 1 {
        (field as u32) << 23 | bits & 0x7f_ffff
    } else {
        ((bits & 0x7f_ffff) | 0x80_0000) >> (1 - field).min(31)
    }
}

/// xorshift64, so that a failure replays.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn magnitude(bits: &mut Bits) -> u32 {
    let r = bits.next();
    match r % 4 {
        // Denormals.
        0 => (r >> 8) as u32 & 0x7f_ffff | 1,
        // Near 1.
        1 => (r >> 8) as u32 & 0x7f_ffff | (120 + (r >> 40) as u32 % 16) << 23,
        // Anything finite.
        _ => ((r >> 8) as u32 % 0x7f80_0000).max(1),
    }
}

#[test]
fn the_steps_reach_the_correctly_rounded_quotient_and_root_from_3_ulps_off() {
    let mut bits = Bits(0x2545_f491_4f6c_dd1d);
    for _ in 0..400_000 {
        let (a, b) = (magnitude(&mut bits), magnitude(&mut bits));
        let error = (bits.next() % 7) as i32 - 3;
        let (sa, sb) = (significand(a), significand(b));
        let want = (f32::from_bits(a) / f32::from_bits(b)).to_bits();
        let mut q = slow_guess(sa, Some(sb), error);
        for _ in 0..3 {
            q = step(sa, Some(sb), q);
        }
        assert_eq!(q, want, "{a:#010x} / {b:#010x}, guess {error} ULP off");
        let want = f32::from_bits(a).sqrt().to_bits();
        let mut r = slow_guess(sa, None, error);
        for _ in 0..3 {
            r = step(sa, None, r);
        }
        assert_eq!(r, want, "sqrt({a:#010x}), guess {error} ULP off");
    }
}

#[test]
fn the_fast_test_accepts_the_right_result_only() {
    let mut bits = Bits(0x9e37_79b9_7f4a_7c15);
    for _ in 0..400_000 {
        let (a, b) = (magnitude(&mut bits), magnitude(&mut bits));
        let error = (bits.next() % 5) as i32 - 2;
        let exact = f32::from_bits(a) / f32::from_bits(b);
        let root = f32::from_bits(a).sqrt();
        for (want, operand) in [(exact, Some(b)), (root, None)] {
            let q = (want.to_bits() as i32 + error).max(0) as u32;
            let accepted = fast_test(a, operand, q);
            assert!(
                !accepted || q == want.to_bits(),
                "{a:#010x} {operand:?}: accepted {q:#010x}"
            );
            let decidable = want.is_normal()
                && want.to_bits() & 0x7f_ffff != 0
                && f32::from_bits(a).is_normal()
                && operand.is_none_or(|b| f32::from_bits(b).is_normal());
            if error == 0 && decidable {
                assert!(
                    accepted,
                    "{a:#010x} {operand:?}: refused the right {q:#010x}"
                );
            }
        }
    }
}
