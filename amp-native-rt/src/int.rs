//! Integer helpers: division and remainder defined everywhere, and the index clamp of local
//! arrays (docs/semantics.md).

/// A local array index clamped into `0..n` (the SPIR-V back end reads the last element for an
/// index past the end). `n` is the array's length, at least 1.
#[inline(always)]
pub fn ix(i: u32, n: u32) -> usize {
    (if i < n - 1 { i } else { n - 1 }) as usize
}

/// `x / 0` is -1, `MIN / -1` is `MIN`.
#[inline(always)]
pub fn div_i32(a: i32, b: i32) -> i32 {
    if b == 0 {
        -1
    } else {
        a.wrapping_div(b)
    }
}

/// `x % 0` is `x`, `MIN % -1` is 0.
#[inline(always)]
pub fn rem_i32(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else {
        a.wrapping_rem(b)
    }
}

/// `x / 0` is `u32::MAX`.
#[inline(always)]
pub fn div_u32(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// `x % 0` is `x`.
#[inline(always)]
pub fn rem_u32(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        a % b
    }
}

/// `a.rem_euclid(b)` with the kernel's `%` (so `x.rem_euclid(0)` is `x`): the remainder made
/// non-negative by adding `|b|`.
#[inline(always)]
pub fn rem_euclid_i32(a: i32, b: i32) -> i32 {
    let r = rem_i32(a, b);
    if r >= 0 {
        r
    } else if b < 0 {
        r.wrapping_sub(b)
    } else {
        r.wrapping_add(b)
    }
}

/// `a.div_euclid(b)` with the kernel's `/` and `%` (the quotient that goes with
/// [`rem_euclid_i32`]; `x.div_euclid(0)` is `-1` for `x >= 0`, `0` below).
#[inline(always)]
pub fn div_euclid_i32(a: i32, b: i32) -> i32 {
    let q = div_i32(a, b);
    if rem_i32(a, b) >= 0 {
        q
    } else if b < 0 {
        q.wrapping_add(1)
    } else {
        q.wrapping_sub(1)
    }
}

/// `x.next_power_of_two()` as a release build computes it: 0 past 2^31.
#[inline(always)]
pub fn next_power_of_two_u32(x: u32) -> u32 {
    if x <= 1 {
        1
    } else {
        (u32::MAX >> (x - 1).leading_zeros()).wrapping_add(1)
    }
}
