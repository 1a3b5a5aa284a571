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
