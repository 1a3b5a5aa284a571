//! Device functions (`#[amp::device]`) end to end: kernels that call helpers in the same
//! module, in another module, helpers that call helpers (also across modules, with `super::`),
//! helpers taking views, arrays and indices, helpers with early returns inside loops, a helper
//! in a tiled kernel, a device-only helper that writes to a view, and helpers and a struct of
//! other modules brought in with plain `use` items. Every result is checked
//! against the same helpers called on the host.

use crate::common;
use common::assert_validation_clean;

use amp::prelude::*;
// Device functions and a device struct of other modules through plain `use` items.
use self::imported::helpers::{offset as shift, Weighted};
use self::util::deep::twice_square;

// ----- helpers in this module -----

#[amp::device]
fn square(x: f32) -> f32 {
    x * x
}

/// Early returns outside loops.
#[amp::device]
fn sign(x: i32) -> i32 {
    if x < 0 {
        return -1;
    }
    if x == 0 {
        return 0;
    }
    1
}

/// An early return from inside a `while` loop, a mutable parameter.
#[amp::device]
fn collatz_steps(mut n: u32, limit: u32) -> u32 {
    let mut steps = 0;
    while n != 1 {
        if steps == limit {
            return limit;
        }
        if n % 2 == 0 {
            n /= 2;
        } else {
            n = 3 * n + 1;
        }
        steps += 1;
    }
    steps
}

/// A view parameter and a return from inside nested loops.
#[amp::device]
fn first_at_least(v: &ArrayView<i32, 2>, row: usize, min: i32) -> i32 {
    let cols = v.extent()[1];
    for pass in 0..2 {
        for j in 0..cols {
            if pass == 1 && v[[row, j]] >= min {
                return j as i32;
            }
        }
    }
    -1
}

/// A view parameter, a loop, no early return.
#[amp::device]
fn row_sum(m: &ArrayView<i32, 2>, row: usize) -> i32 {
    let mut sum = 0;
    for j in 0..m.extent()[1] {
        sum += m[[row, j]];
    }
    sum
}

/// Arrays by value.
#[amp::device]
fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// An index by value.
#[amp::device]
fn flat(idx: Index<2>, width: usize) -> usize {
    idx[0] * width + idx[1]
}

/// Device-only (`restrict(amp)`) without the mark: it takes an `ArrayViewMut`, which host code
/// cannot index, so no host copy is left to fail.
#[amp::device]
fn store_twice(out: ArrayViewMut<i32, 1>, i: usize, value: i32) {
    out[i] = value;
    out[i] += value;
}

mod util {
    /// Called from kernels as `util::saxpy`.
    #[amp::device]
    pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
        a * x + y
    }

    /// Calls a helper of its own module and one of the parent module.
    #[amp::device]
    pub fn cube_plus_sign(x: i32) -> i32 {
        x * square_i(x) + super::sign(x)
    }

    #[amp::device]
    pub fn square_i(x: i32) -> i32 {
        x * x
    }

    pub mod deep {
        /// Reached through two modules, calls back up with `super::`.
        #[amp::device]
        pub fn twice_square(x: i32) -> i32 {
            2 * super::square_i(x)
        }
    }
}

/// Items the kernel `through_use` imports with `use`.
mod imported {
    pub mod helpers {
        // A device function that itself calls one through `use`, from its own module.
        use super::super::square;
        use amp::prelude::*;

        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, DeviceStruct)]
        pub struct Weighted {
            pub value: f32,
            pub weight: f32,
        }

        #[amp::device]
        pub fn offset(x: f32) -> f32 {
            square(x) + 1.0
        }
    }
}

// ----- kernels -----

/// Calls `twice_square` (which calls `super::square_i` from its module) and `shift` (`offset`
/// renamed, which calls `square` through its own `use`), takes `Weighted`: all through `use`,
/// with nothing hidden imported.
#[kernel(amp)]
fn through_use(
    idx: Index<1>,
    a: ArrayView<i32, 1>,
    w: ArrayView<Weighted, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    let v: Weighted = w[idx];
    let scaled = Weighted {
        value: v.value,
        weight: v.weight * 0.5,
    };
    out[idx] = twice_square(a[idx]) as f32 + shift(scaled.value) * scaled.weight;
}

#[kernel(amp)]
fn squares(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = square(a[idx]) + square(2.0);
}

#[kernel(amp)]
fn saxpy_kernel(idx: Index<1>, k: f32, x: ArrayView<f32, 1>, y: ArrayViewMut<f32, 1>) {
    y[idx] = util::saxpy(k, x[idx], y[idx]);
}

#[kernel(amp)]
fn chained(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    let x = a[idx];
    out[idx] = util::cube_plus_sign(x) + util::deep::twice_square(x) + sign(x - 3);
}

#[kernel(amp)]
fn collatz(idx: Index<1>, start: ArrayView<u32, 1>, steps: ArrayViewMut<u32, 1>) {
    steps[idx] = collatz_steps(start[idx], 40);
}

#[kernel(amp)]
fn rows(
    idx: Index<1>,
    m: ArrayView<i32, 2>,
    min: i32,
    sums: ArrayViewMut<i32, 1>,
    firsts: ArrayViewMut<i32, 1>,
) {
    let row = idx[0];
    sums[idx] = row_sum(&m, row);
    firsts[idx] = first_at_least(m, row, min);
}

// The index through a helper is not proven unique: the allowed lint must survive the rounds
// that fetch the helpers' source.
#[kernel(amp, allow(write_conflict))]
fn arrays_and_indices(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 1>) {
    let w = a.extent()[1];
    let v = [a[idx], 1.0, 2.0];
    out[flat(idx, w)] = dot3(v, [3.0, a[idx], 0.5]);
}

#[kernel(amp)]
fn writes_through_helper(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    store_twice(&mut out, idx[0], a[idx]);
}

#[kernel(amp)]
fn tile_square_sums(t: TiledIndex<8>, a: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 1>) {
    #[tile_static]
    let mut cache: [i32; 8];
    cache[t.local[0]] = util::square_i(a[t.global]);
    t.barrier.wait();
    if t.local[0] == 0 {
        let mut s = 0;
        for k in 0..8 {
            s += cache[k];
        }
        sums[t.tile] = s;
    }
}

// ----- tests -----

#[test]
fn helper_in_the_same_module() -> Result<(), amp::Error> {
    let a: Vec<f32> = (0..64).map(|i| i as f32 * 0.25 - 3.0).collect();
    let mut out = vec![0.0f32; 64];
    {
        let av = ArrayView::new([64], &a)?;
        let mut ov = ArrayViewMut::new([64], &mut out)?;
        ov.discard_data();
        parallel_for_each(ov.extent(), squares(&av, &mut ov))?;
        ov.synchronize()?;
    }
    let expected: Vec<f32> = a.iter().map(|&x| square(x) + square(2.0)).collect();
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn helper_in_another_module() -> Result<(), amp::Error> {
    let x: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let mut y: Vec<f32> = (0..100).map(|i| 1000.0 - i as f32).collect();
    let expected: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(&x, &y)| util::saxpy(1.5, x, y))
        .collect();
    {
        let xv = ArrayView::new([100], &x)?;
        let mut yv = ArrayViewMut::new([100], &mut y)?;
        parallel_for_each(yv.extent(), saxpy_kernel(1.5, &xv, &mut yv))?;
        yv.synchronize()?;
    }
    assert_eq!(y, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn helpers_of_other_modules_through_use() -> Result<(), amp::Error> {
    let a: Vec<i32> = (-16..16).collect();
    let w: Vec<imported::helpers::Weighted> = (0..32)
        .map(|i| imported::helpers::Weighted {
            value: i as f32 * 0.25 - 2.0,
            weight: (i % 3) as f32 + 1.0,
        })
        .collect();
    let mut out = vec![0.0f32; a.len()];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let wv = ArrayView::new([w.len()], &w)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        parallel_for_each(ov.extent(), through_use(&av, &wv, &mut ov))?;
        ov.synchronize()?;
    }
    let expected: Vec<f32> = a
        .iter()
        .zip(&w)
        .map(|(&x, v)| {
            util::deep::twice_square(x) as f32
                + imported::helpers::offset(v.value) * (v.weight * 0.5)
        })
        .collect();
    assert_eq!(out, expected);
    assert_eq!(expected[1], 2.0 * 225.0 + (1.75f32 * 1.75 + 1.0) * 1.0);
    assert_validation_clean();
    Ok(())
}

#[test]
fn helpers_calling_helpers_across_modules() -> Result<(), amp::Error> {
    let a: Vec<i32> = (-20..20).collect();
    let mut out = vec![0; a.len()];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        ov.discard_data();
        parallel_for_each(ov.extent(), chained(&av, &mut ov))?;
        ov.synchronize()?;
    }
    let expected: Vec<i32> = a
        .iter()
        .map(|&x| util::cube_plus_sign(x) + util::deep::twice_square(x) + sign(x - 3))
        .collect();
    assert_eq!(out, expected);
    assert_eq!(expected[0], -20 * 400 - 1 + 800 - 1);
    assert_validation_clean();
    Ok(())
}

#[test]
fn early_return_from_a_while_loop() -> Result<(), amp::Error> {
    let start: Vec<u32> = (1..=200).collect();
    let mut steps = vec![0u32; start.len()];
    {
        let sv = ArrayView::new([start.len()], &start)?;
        let mut out = ArrayViewMut::new([start.len()], &mut steps)?;
        out.discard_data();
        parallel_for_each(out.extent(), collatz(&sv, &mut out))?;
        out.synchronize()?;
    }
    let expected: Vec<u32> = start.iter().map(|&n| collatz_steps(n, 40)).collect();
    assert_eq!(steps, expected);
    // Both ways out of the loop happen: the limit, and reaching 1.
    assert!(steps.contains(&40) && steps.iter().any(|&s| s < 40));
    assert_eq!(steps[26], 40, "27 takes 111 steps, capped at 40");
    assert_eq!(steps[5], 8, "6 -> 3 -> 10 -> 5 -> 16 -> 8 -> 4 -> 2 -> 1");
    assert_validation_clean();
    Ok(())
}

#[test]
fn view_parameters_and_returns_from_nested_loops() -> Result<(), amp::Error> {
    let (rows_n, cols) = (12, 9);
    let m: Vec<i32> = (0..rows_n * cols)
        .map(|i| ((i * 37) % 23) as i32 - 5)
        .collect();
    let mut sums = vec![0; rows_n];
    let mut firsts = vec![0; rows_n];
    let mv = ArrayView::new([rows_n, cols], &m)?;
    {
        let mut sv = ArrayViewMut::new([rows_n], &mut sums)?;
        let mut fv = ArrayViewMut::new([rows_n], &mut firsts)?;
        parallel_for_each(sv.extent(), rows(&mv, 15, &mut sv, &mut fv))?;
        sv.synchronize()?;
        fv.synchronize()?;
    }
    let expected_sums: Vec<i32> = (0..rows_n).map(|r| row_sum(&mv, r)).collect();
    let expected_firsts: Vec<i32> = (0..rows_n).map(|r| first_at_least(&mv, r, 15)).collect();
    assert_eq!(sums, expected_sums);
    assert_eq!(firsts, expected_firsts);
    assert!(firsts.contains(&-1) && firsts.iter().any(|&f| f > 0));
    assert_validation_clean();
    Ok(())
}

#[test]
fn arrays_and_indices_by_value() -> Result<(), amp::Error> {
    let (h, w) = (5, 7);
    let a: Vec<f32> = (0..h * w).map(|i| i as f32 * 0.5).collect();
    let mut out = vec![0.0f32; h * w];
    {
        let av = ArrayView::new([h, w], &a)?;
        let mut ov = ArrayViewMut::new([h * w], &mut out)?;
        ov.discard_data();
        parallel_for_each(av.extent(), arrays_and_indices(&av, &mut ov))?;
        ov.synchronize()?;
    }
    for i in 0..h {
        for j in 0..w {
            let x = a[i * w + j];
            let k = flat(Index::from([i, j]), w);
            assert_eq!(k, i * w + j);
            assert_eq!(out[k], dot3([x, 1.0, 2.0], [3.0, x, 0.5]));
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn device_only_helper_writes_to_a_view() -> Result<(), amp::Error> {
    let a: Vec<i32> = (0..50).map(|i| i * 3 - 7).collect();
    let mut out = vec![0; 50];
    {
        let av = ArrayView::new([50], &a)?;
        let mut ov = ArrayViewMut::new([50], &mut out)?;
        ov.discard_data();
        parallel_for_each(av.extent(), writes_through_helper(&av, &mut ov))?;
        ov.synchronize()?;
    }
    let expected: Vec<i32> = a.iter().map(|x| 2 * x).collect();
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn helper_in_a_tiled_kernel() -> Result<(), amp::Error> {
    let a: Vec<i32> = (0..64).map(|i| i % 11 - 4).collect();
    let mut sums = vec![0; 8];
    {
        let av = ArrayView::new([64], &a)?;
        let mut sv = ArrayViewMut::new([8], &mut sums)?;
        sv.discard_data();
        parallel_for_each(av.extent().tile::<8>(), tile_square_sums(&av, &mut sv))?;
        sv.synchronize()?;
    }
    let expected: Vec<i32> = a
        .chunks(8)
        .map(|c| c.iter().map(|&x| util::square_i(x)).sum())
        .collect();
    assert_eq!(sums, expected);
    assert_validation_clean();
    Ok(())
}

#[test]
fn helper_and_kernel_inside_a_function_body() -> Result<(), amp::Error> {
    #[amp::device]
    fn clamp_to(x: i32, lo: i32, hi: i32) -> i32 {
        std::cmp::max(lo, std::cmp::min(x, hi))
    }

    #[kernel(amp)]
    fn clamped(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
        out[idx] = clamp_to(a[idx], -3, 3);
    }

    let a: Vec<i32> = (-10..10).collect();
    let mut out = vec![0; a.len()];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        ov.discard_data();
        parallel_for_each(ov.extent(), clamped(&av, &mut ov))?;
        ov.synchronize()?;
    }
    let expected: Vec<i32> = a.iter().map(|&x| x.clamp(-3, 3)).collect();
    assert!(a.iter().all(|&x| clamp_to(x, -3, 3) == x.clamp(-3, 3)));
    assert_eq!(out, expected);
    assert_validation_clean();
    Ok(())
}

// ----- composite values across calls: short vectors and device structs by value -----

/// Linear interpolation of two vectors: vectors in, a vector out.
#[amp::device]
fn lerp3(a: Float3, b: Float3, t: f32) -> Float3 {
    a + (b - a) * t
}

/// Calls another helper with vectors: the midpoint, then scaled.
#[amp::device]
fn scaled_midpoint(a: Float3, b: Float3, k: f32) -> Float3 {
    let m = lerp3(a, b, 0.5);
    m * k
}

/// An integer vector through an early return.
#[amp::device]
fn clamp_int2(v: Int2, hi: i32) -> Int2 {
    if v.x > hi {
        return Int2::new(hi, v.y);
    }
    v
}

/// A struct with a vector field, built and taken apart by helpers.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
)]
struct Particle {
    pos: Float3,
    mass: f32,
}

/// Returns a struct.
#[amp::device]
fn make_particle(pos: Float3, mass: f32) -> Particle {
    Particle { pos, mass }
}

/// Takes a struct (and returns one, moved by `dt`).
#[amp::device]
fn advance(p: Particle, v: Float3, dt: f32) -> Particle {
    let mut q = p;
    q.pos = lerp3(p.pos, p.pos + v, dt);
    q
}

/// Takes a struct, returns a scalar.
#[amp::device]
fn momentum_x(p: Particle, v: Float3) -> f32 {
    p.mass * v.x
}

#[kernel(amp)]
fn lerp_kernel(
    idx: Index<1>,
    a: ArrayView<Float3, 1>,
    b: ArrayView<Float3, 1>,
    out: ArrayViewMut<Float3, 1>,
    mid: ArrayViewMut<Float3, 1>,
) {
    let t = idx[0] as f32 / 16.0;
    out[idx] = lerp3(a[idx], b[idx], t);
    mid[idx] = scaled_midpoint(a[idx], b[idx], 2.0);
}

#[kernel(amp)]
fn clamp_kernel(idx: Index<1>, a: ArrayView<Int2, 1>, out: ArrayViewMut<Int2, 1>) {
    out[idx] = clamp_int2(a[idx], 5);
}

#[kernel(amp)]
fn particle_kernel(
    idx: Index<1>,
    pos: ArrayView<Float3, 1>,
    vel: ArrayView<Float3, 1>,
    out: ArrayViewMut<Particle, 1>,
    px: ArrayViewMut<f32, 1>,
) {
    let p = make_particle(pos[idx], idx[0] as f32 + 1.0);
    let q = advance(p, vel[idx], 0.25);
    out[idx] = q;
    px[idx] = momentum_x(q, vel[idx]);
}

fn float3s(n: usize, k: f32) -> Vec<Float3> {
    (0..n)
        .map(|i| Float3::new(i as f32 * k, 1.0 - i as f32, 0.5 * k + i as f32))
        .collect()
}

#[test]
fn vectors_in_and_out_of_helpers() -> Result<(), amp::Error> {
    let n = 17;
    let (a, b) = (float3s(n, 1.5), float3s(n, -2.0));
    let mut out = vec![Float3::default(); n];
    let mut mid = vec![Float3::default(); n];
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let mut mv = ArrayViewMut::new([n], &mut mid)?;
        parallel_for_each(ov.extent(), lerp_kernel(&av, &bv, &mut ov, &mut mv))?;
    }
    for i in 0..n {
        // The same helpers on the host give the same values.
        assert_eq!(out[i], lerp3(a[i], b[i], i as f32 / 16.0), "element {i}");
        assert_eq!(mid[i], scaled_midpoint(a[i], b[i], 2.0), "element {i}");
    }
    assert_eq!(out[0], a[0]);
    assert_eq!(out[16], b[16]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn int_vectors_through_an_early_return() -> Result<(), amp::Error> {
    let a: Vec<Int2> = (-8..8).map(|i| Int2::new(i, -i)).collect();
    let mut out = vec![Int2::default(); a.len()];
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut out)?;
        parallel_for_each(ov.extent(), clamp_kernel(&av, &mut ov))?;
    }
    let expected: Vec<Int2> = a.iter().map(|v| Int2::new(v.x.min(5), v.y)).collect();
    assert_eq!(out, expected);
    assert!(a
        .iter()
        .zip(&expected)
        .all(|(v, e)| clamp_int2(*v, 5) == *e));
    assert_validation_clean();
    Ok(())
}

#[test]
fn structs_in_and_out_of_helpers() -> Result<(), amp::Error> {
    let n = 9;
    let (pos, vel) = (float3s(n, 0.75), float3s(n, -1.25));
    let mut out = vec![Particle::default(); n];
    let mut px = vec![0.0f32; n];
    {
        let pv = ArrayView::new([n], &pos)?;
        let vv = ArrayView::new([n], &vel)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let mut xv = ArrayViewMut::new([n], &mut px)?;
        parallel_for_each(ov.extent(), particle_kernel(&pv, &vv, &mut ov, &mut xv))?;
    }
    for i in 0..n {
        let q = advance(make_particle(pos[i], i as f32 + 1.0), vel[i], 0.25);
        assert_eq!(out[i], q, "element {i}");
        assert_eq!(q.mass, i as f32 + 1.0);
        assert_eq!(px[i], momentum_x(q, vel[i]), "element {i}");
    }
    assert_validation_clean();
    Ok(())
}

/// Constants of a device function resolve where it is written: a private constant of its
/// module by name, its parent's by `super::`, and a module's by `crate::` path.
mod levels {
    /// Private to this module.
    const STEP: f32 = 0.5;

    pub mod curve {
        /// Private to this module.
        const BIAS: f32 = 1.25;

        #[amp::device]
        pub fn lift(x: f32) -> f32 {
            x * super::STEP + BIAS
        }

        #[amp::device]
        pub fn capped(x: f32) -> f32 {
            lift(x).min(crate::device_fns::levels::CAP)
        }
    }

    pub(crate) const CAP: f32 = 4.0;
}

/// A constant of this module by `self::` path, and `std`'s by its path.
const RADIUS_SCALE: f32 = 2.0;

#[kernel(amp)]
fn leveled(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    let r = a[idx] * self::RADIUS_SCALE;
    out[idx] = levels::curve::capped(a[idx]) + std::f32::consts::PI * r * r;
}

#[test]
fn constants_resolve_where_they_are_written() -> Result<(), amp::Error> {
    let a: Vec<f32> = (0..50).map(|i| i as f32 * 0.3 - 3.0).collect();
    let mut out = vec![0.0f32; 50];
    {
        let av = ArrayView::new([50], &a)?;
        let mut ov = ArrayViewMut::new([50], &mut out)?;
        parallel_for_each(ov.extent(), leveled(&av, &mut ov))?;
    }
    for (x, y) in a.iter().zip(&out) {
        let r = x * RADIUS_SCALE;
        let want = levels::curve::capped(*x) + std::f32::consts::PI * r * r;
        assert_eq!(y.to_bits(), want.to_bits(), "{x}");
    }
    assert!(out
        .iter()
        .zip(&a)
        .any(|(_, &x)| levels::curve::capped(x) == 4.0));
    assert_validation_clean();
    Ok(())
}

/// A dot product of a row of `a` and a column of `b`: a loop every thread runs alike, in a
/// device function.
#[amp::device]
fn row_times_column(a: &ArrayView<f32, 2>, b: &ArrayView<f32, 2>, i: usize, j: usize) -> f32 {
    let mut s = 0.0f32;
    for k in 0..a.extent()[1] {
        s += a[[i, k]] * b[[k, j]];
    }
    s
}

/// The simple matrix product through a device function: natively its loop runs for a batch of
/// threads at once, as written in the kernel's body.
#[kernel(amp)]
fn product_through_a_device_fn(
    idx: Index<2>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    c[idx] = row_times_column(&a, &b, idx[0], idx[1]);
}

/// The same product negated: the call is the first operand of its expression, so its loop
/// still stands in the kernel's body.
#[kernel(amp)]
fn negated_product_through_a_device_fn(
    idx: Index<2>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    c[idx] = -row_times_column(&a, &b, idx[0], idx[1]) * 1.0;
}

/// The product added to half of what `c` holds: the call is the second operand, so the first
/// (a load of `c`) is kept in a local before the loop, and the loop stands in the body.
#[kernel(amp)]
fn accumulated_product_through_a_device_fn(
    idx: Index<2>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    c[idx] = c[idx] * 0.5 + row_times_column(&a, &b, idx[0], idx[1]);
}

#[test]
fn a_device_functions_uniform_loop_is_batched_and_exact() -> Result<(), amp::Error> {
    let (m, w, n) = (37usize, 45usize, 70usize);
    let a: Vec<f32> = (0..m * w)
        .map(|x| ((x * 7) % 13) as f32 * 0.37 - 2.0)
        .collect();
    let b: Vec<f32> = (0..w * n)
        .map(|x| ((x * 5) % 11) as f32 * 0.21 - 1.0)
        .collect();
    // Runs `kernel` into `out` after its compile report says it runs in batches natively.
    macro_rules! run_batched {
        ($kernel:ident, $out:expr) => {{
            let (av, bv) = (ArrayView::new([m, w], &a)?, ArrayView::new([w, n], &b)?);
            let mut cv = ArrayViewMut::new([m, n], $out)?;
            let extent = cv.extent();
            let call = $kernel(&av, &bv, &mut cv);
            let report = call.kernel().report();
            assert!(
                report.contains("batches of"),
                "not batched natively:\n{report}"
            );
            parallel_for_each(extent, call)?;
        }};
    }
    let mut c = vec![0f32; m * n];
    run_batched!(product_through_a_device_fn, &mut c);
    let mut negated = vec![0f32; m * n];
    run_batched!(negated_product_through_a_device_fn, &mut negated);
    let start: Vec<f32> = (0..m * n).map(|x| (x % 17) as f32 * 0.11 - 0.9).collect();
    let mut accumulated = start.clone();
    run_batched!(accumulated_product_through_a_device_fn, &mut accumulated);
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for k in 0..w {
                s += a[i * w + k] * b[k * n + j];
            }
            assert_eq!(c[i * n + j].to_bits(), s.to_bits(), "[{i}, {j}]");
            let minus = -s * 1.0;
            assert_eq!(negated[i * n + j].to_bits(), minus.to_bits(), "-[{i}, {j}]");
            let sum = start[i * n + j] * 0.5 + s;
            assert_eq!(
                accumulated[i * n + j].to_bits(),
                sum.to_bits(),
                "+[{i}, {j}]"
            );
        }
    }
    assert_validation_clean();
    Ok(())
}
