//! The small integers `i8`, `u8`, `i16` and `u16`: kernel values with Rust's release-build
//! arithmetic at their own widths, and view and array elements packed as the host packs them.
//! Every operator on every pair of `u8` and `i8` values (and on edge values and a spread of
//! others for the 16-bit types), stores by neighbouring threads into one word, sections that
//! start inside a word, host slices of odd lengths, `tile_static` and local arrays, scalar
//! parameters and constants; each against the host, on every accelerator.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// How many results each pair of operands gives (columns of `out`).
const OPS: usize = 20;

macro_rules! operator_kernels {
    ($($kernel:ident, $host:ident, $t:ident;)*) => {$(
        /// Every operator on `a[i]` and `b[i]`, one result per column; `wide` one word per
        /// thread beside them.
        #[kernel(amp)]
        fn $kernel(
            idx: Index<1>,
            a: ArrayView<$t, 1>,
            b: ArrayView<$t, 1>,
            out: ArrayViewMut<$t, 2>,
            wide: ArrayViewMut<u32, 1>,
        ) {
            let i = idx[0];
            let (x, y) = (a[idx], b[idx]);
            out[[i, 0]] = x + y;
            out[[i, 1]] = x - y;
            out[[i, 2]] = x * y;
            out[[i, 3]] = x / y;
            out[[i, 4]] = x % y;
            out[[i, 5]] = x << y;
            out[[i, 6]] = x >> y;
            out[[i, 7]] = !x;
            out[[i, 8]] = (x & y) | (x ^ y);
            out[[i, 9]] = x.min(y);
            out[[i, 10]] = x.max(y);
            out[[i, 11]] = (x as f32 * 1.7 - 100.0) as $t;
            out[[i, 12]] = (x as u32 * 1000 + y as u32) as $t;
            out[[i, 13]] = if x < y { 1 } else { 0 };
            let mut z = x;
            z += y;
            z *= 3;
            z -= x;
            z <<= 5;
            out[[i, 14]] = z;
            out[[i, 15]] = x.wrapping_sub(y).wrapping_mul(7).wrapping_add($t::MAX);
            out[[i, 16]] = (x as f64 * 300.5) as $t;
            out[[i, 17]] = (x as i32 - y as i32) as $t;
            out[[i, 18]] = $t::MIN + (x & 3);
            out[[i, 19]] = (y as f32 / 0.0) as $t;
            wide[idx] = (x as u32) ^ ((y as i32) << 8) as u32;
        }

        fn $host(x: $t, y: $t) -> ([$t; OPS], u32) {
            let div = |x: $t, y: $t| if y == 0 { !0 } else { x.wrapping_div(y) };
            let rem = |x: $t, y: $t| if y == 0 { x } else { x.wrapping_rem(y) };
            let mut z = x;
            z = z.wrapping_add(y);
            z = z.wrapping_mul(3);
            z = z.wrapping_sub(x);
            z = z.wrapping_shl(5);
            (
                [
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    div(x, y),
                    rem(x, y),
                    x.wrapping_shl(y as u32),
                    x.wrapping_shr(y as u32),
                    !x,
                    (x & y) | (x ^ y),
                    x.min(y),
                    x.max(y),
                    (x as f32 * 1.7 - 100.0) as $t,
                    ((x as u32).wrapping_mul(1000).wrapping_add(y as u32)) as $t,
                    if x < y { 1 } else { 0 },
                    z,
                    x.wrapping_sub(y).wrapping_mul(7).wrapping_add($t::MAX),
                    (x as f64 * 300.5) as $t,
                    (x as i32 - y as i32) as $t,
                    $t::MIN + (x & 3),
                    (y as f32 / 0.0) as $t,
                ],
                (x as u32) ^ ((y as i32) << 8) as u32,
            )
        }
    )*};
}

operator_kernels! {
    ops_u8, host_u8, u8;
    ops_i8, host_i8, i8;
    ops_u16, host_u16, u16;
    ops_i16, host_i16, i16;
}

/// Runs `kernel` over the pairs and compares every result with `host`'s.
macro_rules! check_pairs {
    ($kernel:ident, $host:ident, $t:ident, $pairs:expr) => {{
        let pairs: Vec<($t, $t)> = $pairs;
        let n = pairs.len();
        let a: Vec<$t> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<$t> = pairs.iter().map(|p| p.1).collect();
        let mut out = vec![0 as $t; n * OPS];
        let mut wide = vec![0u32; n];
        {
            let (av, bv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &b)?);
            let mut ov = ArrayViewMut::new([n, OPS], &mut out)?;
            let mut wv = ArrayViewMut::new([n], &mut wide)?;
            parallel_for_each(av.extent(), $kernel(&av, &bv, &mut ov, &mut wv))?;
            ov.synchronize()?;
            wv.synchronize()?;
        }
        for (k, &(x, y)) in pairs.iter().enumerate() {
            let (want, want_wide) = $host(x, y);
            assert_eq!(
                &out[k * OPS..(k + 1) * OPS],
                &want[..],
                "{} operators on ({x}, {y})",
                stringify!($t)
            );
            assert_eq!(
                wide[k],
                want_wide,
                "{} widening of ({x}, {y})",
                stringify!($t)
            );
        }
    }};
}

fn all_pairs<T: Copy>(values: &[T]) -> Vec<(T, T)> {
    values
        .iter()
        .flat_map(|&x| values.iter().map(move |&y| (x, y)))
        .collect()
}

#[test]
fn every_operator_on_every_pair_of_bytes_matches_the_host() -> Result<(), amp::Error> {
    let u: Vec<u8> = (0..=255).collect();
    check_pairs!(ops_u8, host_u8, u8, all_pairs(&u));
    let i: Vec<i8> = (-128..=127).collect();
    check_pairs!(ops_i8, host_i8, i8, all_pairs(&i));
    assert_validation_clean();
    Ok(())
}

#[test]
fn every_operator_on_16_bit_values_matches_the_host() -> Result<(), amp::Error> {
    let mut rng = common::Rng(16);
    let mut u: Vec<u16> = vec![
        0, 1, 2, 3, 7, 8, 15, 16, 17, 255, 256, 0x7fff, 0x8000, 0xfffe, 0xffff,
    ];
    u.extend((0..60).map(|_| rng.next_u32() as u16));
    check_pairs!(ops_u16, host_u16, u16, all_pairs(&u));
    let mut i: Vec<i16> = vec![
        i16::MIN,
        i16::MIN + 1,
        -256,
        -255,
        -16,
        -2,
        -1,
        0,
        1,
        2,
        15,
        16,
        17,
        255,
        i16::MAX - 1,
        i16::MAX,
    ];
    i.extend((0..60).map(|_| rng.next_u32() as i16));
    check_pairs!(ops_i16, host_i16, i16, all_pairs(&i));
    assert_validation_clean();
    Ok(())
}

/// Each thread stores one byte: four threads share every word of `out`.
#[kernel(amp)]
fn byte_per_thread(idx: Index<1>, out: ArrayViewMut<u8, 1>, salt: u8) {
    let i = idx[0];
    out[idx] = (i as u8).wrapping_mul(37) ^ salt;
}

fn bytes_want(n: usize, salt: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(37) ^ salt).collect()
}

#[test]
fn neighbouring_threads_store_bytes_of_one_word() -> Result<(), amp::Error> {
    // Odd lengths (the last word is partly the view's), a host slice starting inside a word.
    for n in [1usize, 3, 5, 1001, 4096 + 3] {
        let mut data = vec![0xAAu8; n + 6];
        {
            let mut v = ArrayViewMut::new([n], &mut data[3..3 + n])?;
            parallel_for_each(v.extent(), byte_per_thread(&mut v, 0x5c))?;
            v.synchronize()?;
        }
        assert_eq!(&data[..3], &[0xAA; 3], "the bytes before the view, {n}");
        assert_eq!(&data[3..3 + n], &bytes_want(n, 0x5c)[..], "{n} bytes");
        assert_eq!(&data[3 + n..], &[0xAA; 3], "the bytes after the view, {n}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn sections_of_byte_arrays_start_inside_a_word() -> Result<(), amp::Error> {
    let n = 999;
    for (start, len) in [(1usize, 10usize), (3, 501), (6, 2), (0, 999)] {
        let mut arr = Array::<u8, 1>::from_slice([n], &vec![7u8; n])?;
        {
            let mut section = arr.section_mut([start], [len])?;
            parallel_for_each(section.extent(), byte_per_thread(&mut section, start as u8))?;
        }
        let got = arr.to_vec()?;
        assert_eq!(&got[start..start + len], &bytes_want(len, start as u8)[..]);
        assert!(got[..start].iter().all(|&b| b == 7), "bytes before {start}");
        assert!(
            got[start + len..].iter().all(|&b| b == 7),
            "bytes after {start}"
        );
    }
    assert_validation_clean();
    Ok(())
}

const BIAS: i16 = -300;

/// `tile_static` and local arrays of small integers, a scalar parameter and a constant.
#[kernel(amp)]
fn tiles_of_bytes(t: TiledIndex<64>, a: ArrayView<i8, 1>, out: ArrayViewMut<i16, 1>, scale: u8) {
    #[tile_static]
    let mut shared: [i8; 64];
    let l = t.local[0];
    shared[l] = a[t.global];
    t.barrier.wait();
    let mut window: [i16; 4] = [0; 4];
    for k in 0..4 {
        window[k] = shared[(l + k) % 64] as i16 * scale as i16;
    }
    let mut s: i16 = BIAS;
    for k in 0..4 {
        s = s.wrapping_add(window[k]);
    }
    out[t.global] = s;
}

#[test]
fn tile_static_and_local_arrays_parameters_and_constants_of_small_integers(
) -> Result<(), amp::Error> {
    let n = 256;
    let a: Vec<i8> = (0..n).map(|i| (i as i32 * 53 - 128) as i8).collect();
    let mut out = vec![0i16; n];
    let scale = 201u8;
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(
            av.extent().tile::<64>(),
            tiles_of_bytes(&av, &mut ov, scale),
        )?;
        ov.synchronize()?;
    }
    for g in 0..n {
        let tile = g / 64 * 64;
        let mut s = BIAS;
        for k in 0..4 {
            let v = a[tile + (g % 64 + k) % 64] as i16 * scale as i16;
            s = s.wrapping_add(v);
        }
        assert_eq!(out[g], s, "element {g}");
    }
    assert_validation_clean();
    Ok(())
}

/// How many results each method kernel gives per pair (columns of `out`).
const METHODS: usize = 22;

macro_rules! method_kernels {
    ($($kernel:ident, $host:ident, $t:ident, $u:ident;)*) => {$(
        /// Rust's integer methods on `a[i]` (and `b[i]`), each result widened to an `i32`.
        #[kernel(amp)]
        fn $kernel(idx: Index<1>, a: ArrayView<$t, 1>, b: ArrayView<$t, 1>, out: ArrayViewMut<i32, 2>) {
            let i = idx[0];
            let (x, y) = (a[idx], b[idx]);
            let n = y as u32;
            out[[i, 0]] = x.count_ones() as i32;
            out[[i, 1]] = x.count_zeros() as i32;
            out[[i, 2]] = x.leading_zeros() as i32;
            out[[i, 3]] = x.trailing_zeros() as i32;
            out[[i, 4]] = x.leading_ones() as i32;
            out[[i, 5]] = x.trailing_ones() as i32;
            out[[i, 6]] = x.reverse_bits() as i32;
            out[[i, 7]] = x.swap_bytes() as i32;
            out[[i, 8]] = x.rotate_left(n) as i32;
            out[[i, 9]] = x.rotate_right(n) as i32;
            out[[i, 10]] = x.wrapping_pow(n % 5) as i32;
            out[[i, 11]] = x.abs_diff(y) as i32;
            out[[i, 12]] = x.saturating_add(y) as i32;
            out[[i, 13]] = x.saturating_sub(y) as i32;
            out[[i, 14]] = if y != 0 { x.rem_euclid(y) as i32 } else { 0 };
            out[[i, 15]] = if y != 0 { x.div_euclid(y) as i32 } else { 0 };
            out[[i, 16]] = x.wrapping_neg() as i32;
            let (v, o) = x.overflowing_add(y);
            out[[i, 17]] = v as i32 * 2 + o as i32;
            let (v, o) = x.overflowing_mul(y);
            out[[i, 18]] = v as i32 * 2 + o as i32;
            let (v, o) = x.overflowing_sub(y);
            out[[i, 19]] = v as i32 * 2 + o as i32;
            out[[i, 20]] = x.min(y).max($t::MIN + 1).clamp(y.min(x), y.max(x)) as i32;
            out[[i, 21]] = x.wrapping_shl(n) as i32 ^ x.wrapping_shr(n) as i32;
        }

        fn $host(x: $t, y: $t) -> [i32; METHODS] {
            let n = y as u32;
            let ov = |(v, o): ($t, bool)| v as i32 * 2 + o as i32;
            [
                x.count_ones() as i32,
                x.count_zeros() as i32,
                x.leading_zeros() as i32,
                x.trailing_zeros() as i32,
                x.leading_ones() as i32,
                x.trailing_ones() as i32,
                x.reverse_bits() as i32,
                x.swap_bytes() as i32,
                x.rotate_left(n) as i32,
                x.rotate_right(n) as i32,
                x.wrapping_pow(n % 5) as i32,
                x.abs_diff(y) as i32,
                x.saturating_add(y) as i32,
                x.saturating_sub(y) as i32,
                if y != 0 { x.wrapping_rem_euclid(y) as i32 } else { 0 },
                if y != 0 { x.wrapping_div_euclid(y) as i32 } else { 0 },
                x.wrapping_neg() as i32,
                ov(x.overflowing_add(y)),
                ov(x.overflowing_mul(y)),
                ov(x.overflowing_sub(y)),
                x.min(y).max($t::MIN + 1).clamp(y.min(x), y.max(x)) as i32,
                x.wrapping_shl(n) as i32 ^ x.wrapping_shr(n) as i32,
            ]
        }
    )*};
}

method_kernels! {
    methods_u8, host_methods_u8, u8, u8;
    methods_i8, host_methods_i8, i8, u8;
    methods_u16, host_methods_u16, u16, u16;
    methods_i16, host_methods_i16, i16, u16;
}

macro_rules! check_methods {
    ($kernel:ident, $host:ident, $t:ident, $pairs:expr) => {{
        let pairs: Vec<($t, $t)> = $pairs;
        let n = pairs.len();
        let a: Vec<$t> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<$t> = pairs.iter().map(|p| p.1).collect();
        let mut out = vec![0i32; n * METHODS];
        {
            let (av, bv) = (ArrayView::new([n], &a)?, ArrayView::new([n], &b)?);
            let mut ov = ArrayViewMut::new([n, METHODS], &mut out)?;
            parallel_for_each(av.extent(), $kernel(&av, &bv, &mut ov))?;
            ov.synchronize()?;
        }
        for (k, &(x, y)) in pairs.iter().enumerate() {
            assert_eq!(
                &out[k * METHODS..(k + 1) * METHODS],
                &$host(x, y)[..],
                "{} methods of ({x}, {y})",
                stringify!($t)
            );
        }
    }};
}

#[test]
fn integer_methods_of_small_integers_match_the_host() -> Result<(), amp::Error> {
    let u: Vec<u8> = (0..=255).collect();
    check_methods!(methods_u8, host_methods_u8, u8, all_pairs(&u));
    let i: Vec<i8> = (-128..=127).collect();
    check_methods!(methods_i8, host_methods_i8, i8, all_pairs(&i));
    let mut rng = common::Rng(61);
    let mut u: Vec<u16> = vec![0, 1, 2, 3, 8, 15, 16, 17, 255, 256, 0x7fff, 0x8000, 0xffff];
    u.extend((0..40).map(|_| rng.next_u32() as u16));
    check_methods!(methods_u16, host_methods_u16, u16, all_pairs(&u));
    let mut i: Vec<i16> = vec![
        i16::MIN,
        i16::MIN + 1,
        -256,
        -1,
        0,
        1,
        2,
        15,
        16,
        17,
        i16::MAX,
    ];
    i.extend((0..40).map(|_| rng.next_u32() as i16));
    check_methods!(methods_i16, host_methods_i16, i16, all_pairs(&i));
    assert_validation_clean();
    Ok(())
}

/// docs/kernel-language.md's example: marks the multiples of `p` from `2p` on. (Each thread
/// writes its own multiple, for any `p > 0`; the analysis cannot know `p` is not 0.)
#[kernel(amp, allow(write_conflict))]
fn sieve_step(idx: Index<1>, composite: ArrayViewMut<u8, 1>, p: u32) {
    let m = (idx[0] as u32 + 2) * p;
    if (m as usize) < composite.extent()[0] {
        composite[[m as usize]] = 1;
    }
}

#[test]
fn a_sieve_of_bytes_finds_the_primes() -> Result<(), amp::Error> {
    let n = 100_003usize;
    let mut composite = Array::<u8, 1>::new([n])?;
    let mut p = 2;
    while p * p < n {
        let host = composite.to_vec()?;
        if host[p] == 0 {
            let multiples = n / p;
            parallel_for_each(
                Extent::new([multiples]),
                sieve_step(&mut composite.view_mut(), p as u32),
            )?;
        }
        p += 1;
    }
    let got = composite.to_vec()?;
    let mut want = vec![0u8; n];
    for p in 2..n {
        if want[p] == 0 {
            for m in (2 * p..n).step_by(p) {
                want[m] = 1;
            }
        }
    }
    assert_eq!(&got[2..], &want[2..]);
    assert_eq!(got[2..].iter().filter(|&&c| c == 0).count(), 9592);
    assert_validation_clean();
    Ok(())
}

/// Every test above again with `AMP_PACKED_SMALL_INTS=1` (in a process of its own: the setting
/// is read once), so that the packed form (32-bit words, atomic stores) is tested on devices
/// whose 8- and 16-bit storage the kernels otherwise use.
#[test]
fn the_same_with_small_integers_packed_in_words() -> Result<(), amp::Error> {
    const NAME: &str = "small_ints::the_same_with_small_integers_packed_in_words";
    if common::in_child(NAME) {
        every_operator_on_every_pair_of_bytes_matches_the_host()?;
        every_operator_on_16_bit_values_matches_the_host()?;
        neighbouring_threads_store_bytes_of_one_word()?;
        sections_of_byte_arrays_start_inside_a_word()?;
        tile_static_and_local_arrays_parameters_and_constants_of_small_integers()?;
        integer_methods_of_small_integers_match_the_host()?;
        return a_sieve_of_bytes_finds_the_primes();
    }
    if !common::on_native() {
        common::run_child(NAME, &[("AMP_PACKED_SMALL_INTS", "1")], &[]);
    }
    Ok(())
}

/// `match` on a small integer: its arms cover the type's own range, as rustc judges them.
#[kernel(amp)]
fn byte_classes(
    idx: Index<1>,
    a: ArrayView<u8, 1>,
    b: ArrayView<i8, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    let x = match a[idx] {
        0 => 0u32,
        1..=127 => 1,
        128..=254 => 2,
        255 => 3,
    };
    let y = match b[idx] {
        i8::MIN..=-1 => 10u32,
        0 => 20,
        1..=i8::MAX => 30,
    };
    out[idx] = x + y;
}

#[test]
fn match_on_small_integers_covers_their_own_range() -> Result<(), amp::Error> {
    let a: Vec<u8> = (0..=255).collect();
    let b: Vec<i8> = (-128..=127).collect();
    let mut out = vec![0u32; 256];
    {
        let (av, bv) = (ArrayView::new([256], &a)?, ArrayView::new([256], &b)?);
        let mut ov = ArrayViewMut::new([256], &mut out)?;
        parallel_for_each(av.extent(), byte_classes(&av, &bv, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..256 {
        let x = match a[i] {
            0 => 0,
            1..=127 => 1,
            128..=254 => 2,
            255 => 3,
        };
        let y = match b[i] {
            i8::MIN..=-1 => 10,
            0 => 20,
            1..=i8::MAX => 30,
        };
        assert_eq!(out[i], x + y, "element {i}");
    }
    assert_validation_clean();
    Ok(())
}
