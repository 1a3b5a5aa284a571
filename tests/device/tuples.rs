//! Tuples in kernels compute what the same Rust computes on the host: each body is a device
//! function, whose host copy is the reference.

use amp::prelude::*;

/// A tuple result and tuple parameters.
#[amp::device]
fn div_rem(a: u32, b: u32) -> (u32, u32) {
    if b == 0 {
        return (0, a);
    }
    (a / b, a % b)
}

#[amp::device]
fn swap_scale(p: (f32, i32), k: f32) -> (i32, f32) {
    (p.1.wrapping_mul(2), p.0 * k)
}

/// `match` on a tuple: literals, `|`, ranges, `_`, names bound to components, a guard over
/// them, a small-integer component.
#[amp::device]
fn classify(x: u32, y: u32) -> u32 {
    let small = (y % 5) as u8;
    match (x % 4, y > x, small) {
        (0, true, _) => 1,
        (1 | 2, false, 0..=2) => 2,
        (3, flag, s) if flag && s > 1 => 10 + s as u32,
        (k, _, 4) => 20 + k,
        (_, true, s) => 30 + s as u32,
        _ => 40,
    }
}

/// Tuple locals, components read and written, nested tuples, destructuring of every form,
/// tuples through `if` and `match` arms and `loop` values, `match` on a tuple, and Rust's
/// `overflowing_*`.
#[amp::device]
fn tuples(x: u32, y: u32) -> u32 {
    let (q, r) = div_rem(x, y % 97);
    let mut t = (q, r as i32, 1.5f32);
    t.0 = t.0.wrapping_add(3);
    t.2 *= t.1 as f32;
    let nested = ((t.0, t.1), (t.2, x > y));
    let ((a, b), (c, flag)) = nested;
    let picked = if flag { (a, b) } else { (b as u32, a as i32) };
    let by_match = match x % 3 {
        0 => (1u32, picked.0),
        1 => (2, picked.1 as u32),
        _ => (3, a ^ b as u32),
    };
    let (sum, wrapped) = x.overflowing_add(y);
    let (diff, borrowed) = x.overflowing_sub(y);
    let (prod, over) = x.overflowing_mul(y);
    let (sp, sw) = (x as i32).overflowing_mul(y as i32);
    let (sa, so) = (x as i32).overflowing_add(y as i32);
    let (ss, sb) = (x as i32).overflowing_sub(y as i32);
    let (n, nw) = (x as i32).overflowing_neg();
    let (sh, big) = x.overflowing_shl(y % 40);
    let (sr, sbig) = (x as i32).overflowing_shr(y % 40);
    let mut k = 0u32;
    let found = loop {
        k += 1;
        if k * k > x % 1000 {
            break (k, k * k);
        }
    };
    let s = swap_scale((c, b), 0.5);
    let mut h = by_match.0.wrapping_mul(31) ^ by_match.1;
    h = h.wrapping_mul(31) ^ sum ^ (wrapped as u32) << 1;
    h = h.wrapping_mul(31) ^ diff ^ (borrowed as u32) << 2;
    h = h.wrapping_mul(31) ^ prod ^ (over as u32) << 3;
    h = h.wrapping_mul(31) ^ sp as u32 ^ (sw as u32) << 4;
    h = h.wrapping_mul(31) ^ sa as u32 ^ (so as u32) << 5;
    h = h.wrapping_mul(31) ^ ss as u32 ^ (sb as u32) << 6;
    h = h.wrapping_mul(31) ^ n as u32 ^ (nw as u32) << 7;
    h = h.wrapping_mul(31) ^ sh ^ (big as u32) << 8;
    h = h.wrapping_mul(31) ^ sr as u32 ^ (sbig as u32) << 9;
    h = h.wrapping_mul(31) ^ found.0 ^ found.1;
    h = h.wrapping_mul(31) ^ s.0 as u32 ^ s.1.to_bits();
    h = h.wrapping_mul(31) ^ classify(x, y);
    h
}

#[kernel(amp)]
fn tuples_kernel(
    idx: Index<1>,
    a: ArrayView<u32, 1>,
    b: ArrayView<u32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    out[idx] = tuples(a[idx], b[idx]);
}

#[test]
fn tuples_compute_what_rust_computes() -> Result<(), amp::Error> {
    let edges = [
        0u32,
        1,
        2,
        3,
        31,
        32,
        96,
        97,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        u32::MAX,
        u32::MAX - 1,
        65_536,
        46_341,
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    let mut state = 0x9e37_79b9u32;
    for _ in 0..1000 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        a.push(state);
        b.push(state.rotate_left(7) >> (state % 24));
    }
    let n = a.len();
    let mut out = vec![0u32; n];
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(av.extent(), tuples_kernel(&av, &bv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..n {
        assert_eq!(out[i], tuples(a[i], b[i]), "x = {}, y = {}", a[i], b[i]);
    }
    crate::common::assert_validation_clean();
    Ok(())
}
