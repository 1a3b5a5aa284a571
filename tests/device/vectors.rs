//! Short vector types (C++ AMP's `int_2` ... `double_4`) in kernels on the device, checked
//! against the same computation on the CPU: components, swizzles, element-wise arithmetic,
//! the geometric functions, packed layouts (a `Float3` view has a 12-byte stride) and `f64`
//! vectors.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

fn float4s(n: usize) -> Vec<Float4> {
    (0..n)
        .map(|i| {
            let f = i as f32;
            Float4::new(f + 0.5, 2.0 * f - 3.0, 10.0 - f, 0.25 * f + 1.0)
        })
        .collect()
}

#[kernel(amp)]
fn components(
    idx: Index<1>,
    a: ArrayView<Float4, 1>,
    sum: ArrayViewMut<f32, 1>,
    rev: ArrayViewMut<Float4, 1>,
    xy: ArrayViewMut<Float2, 1>,
    zyx: ArrayViewMut<float_3, 1>,
) {
    let v = a[idx];
    sum[idx] = v.x + 10.0 * v.y + 100.0 * v.z + 1000.0 * v.w;
    rev[idx] = v.wzyx();
    xy[idx] = v.xy();
    // The rgba letters, a repeated component, and a swizzle of an expression.
    zyx[idx] = Float3::new(v.b, v.g, v.r) + (v * 2.0).xxx();
}

#[test]
fn components_and_swizzles_match_the_cpu() -> Result<(), amp::Error> {
    let n = 37;
    let a = float4s(n);
    let (mut sum, mut rev) = (vec![0.0f32; n], vec![Float4::default(); n]);
    let (mut xy, mut zyx) = (vec![Float2::default(); n], vec![Float3::default(); n]);
    {
        let av = ArrayView::new([n], &a)?;
        let mut sv = ArrayViewMut::new([n], &mut sum)?;
        let mut rv = ArrayViewMut::new([n], &mut rev)?;
        let mut xv = ArrayViewMut::new([n], &mut xy)?;
        let mut zv = ArrayViewMut::new([n], &mut zyx)?;
        parallel_for_each(
            av.extent(),
            components(&av, &mut sv, &mut rv, &mut xv, &mut zv),
        )?;
    }
    for (i, v) in a.iter().enumerate() {
        assert_eq!(sum[i], v.x + 10.0 * v.y + 100.0 * v.z + 1000.0 * v.w);
        assert_eq!(rev[i], Float4::new(v.w, v.z, v.y, v.x));
        assert_eq!(xy[i], Float2::new(v.x, v.y));
        assert_eq!(
            zyx[i],
            Float3::new(v.z, v.y, v.x) + Float3::splat(v.x * 2.0)
        );
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn arithmetic(
    idx: Index<1>,
    a: ArrayView<Float3, 1>,
    b: ArrayView<Float3, 1>,
    out: ArrayViewMut<Float3, 1>,
    comp: ArrayViewMut<Float3, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    let mut v = (x + y) * 0.5 - 2.0 * y / x;
    v += Float3::splat(1.0);
    v *= 3.0;
    v = -v;
    out[idx] = v;
    // Component writes: on a local, and on a view element.
    let mut c = x;
    c.y = y.z;
    c.z *= 2.0;
    comp[idx] = c;
    comp[idx].x = -1.0;
    comp[idx].z += 0.5;
}

fn float3s(n: usize, seed: f32) -> Vec<Float3> {
    (0..n)
        .map(|i| {
            let f = i as f32 + seed;
            Float3::new(f + 1.0, 0.5 * f - 7.0, 3.0 + 0.125 * f)
        })
        .collect()
}

#[test]
fn element_wise_arithmetic_matches_the_cpu() -> Result<(), amp::Error> {
    let n = 64;
    let (a, b) = (float3s(n, 0.0), float3s(n, 0.25));
    let (mut out, mut comp) = (vec![Float3::default(); n], vec![Float3::default(); n]);
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let mut cv = ArrayViewMut::new([n], &mut comp)?;
        parallel_for_each(av.extent(), arithmetic(&av, &bv, &mut ov, &mut cv))?;
    }
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let mut v = (x + y) * 0.5 - 2.0 * y / x;
        v += Float3::splat(1.0);
        v *= 3.0;
        assert_eq!(out[i], -v, "element {i}");
        assert_eq!(comp[i], Float3::new(-1.0, y.z, x.z * 2.0 + 0.5));
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn geometry(
    idx: Index<1>,
    a: ArrayView<Float3, 1>,
    b: ArrayView<Float3, 1>,
    scalars: ArrayViewMut<Float2, 1>,
    cross: ArrayViewMut<Float3, 1>,
    unit: ArrayViewMut<Float3, 1>,
    mixed: ArrayViewMut<Float3, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    scalars[idx] = Float2::new(x.dot(y), length(x));
    cross[idx] = x.cross(y);
    unit[idx] = normalize(y);
    mixed[idx] = x.min(y).max(Float3::splat(0.0)) + (x - y).abs();
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0)
}

fn close3(a: Float3, b: Float3) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z)
}

#[test]
fn geometric_functions_match_the_cpu() -> Result<(), amp::Error> {
    let n = 50;
    let (a, b) = (float3s(n, 0.0), float3s(n, -20.5));
    let mut scalars = vec![Float2::default(); n];
    let (mut cross, mut unit, mut mixed) = (
        vec![Float3::default(); n],
        vec![Float3::default(); n],
        vec![Float3::default(); n],
    );
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut sv = ArrayViewMut::new([n], &mut scalars)?;
        let mut cv = ArrayViewMut::new([n], &mut cross)?;
        let mut uv = ArrayViewMut::new([n], &mut unit)?;
        let mut mv = ArrayViewMut::new([n], &mut mixed)?;
        parallel_for_each(
            av.extent(),
            geometry(&av, &bv, &mut sv, &mut cv, &mut uv, &mut mv),
        )?;
    }
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert!(close(scalars[i].x, x.dot(y)), "dot {i}: {:?}", scalars[i]);
        assert!(close(scalars[i].y, x.length()), "length {i}");
        assert!(close3(cross[i], x.cross(y)), "cross {i}: {:?}", cross[i]);
        assert!(close3(unit[i], y.normalize()), "normalize {i}");
        let want = x.min(y).max(Float3::splat(0.0)) + (x - y).abs();
        assert_eq!(mixed[i], want, "min/max/abs {i}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn offset_by_index(idx: Index<1>, a: ArrayView<Float3, 1>, out: ArrayViewMut<Float3, 1>) {
    let f = idx[0] as f32;
    out[idx] = a[idx] + Float3::new(f, 2.0 * f, 3.0 * f);
}

#[test]
fn float3_views_have_a_12_byte_stride() -> Result<(), amp::Error> {
    assert_eq!(std::mem::size_of::<Float3>(), 12);
    let n = 1000;
    let a = float3s(n, 0.0);
    let mut out = vec![Float3::default(); n];
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(av.extent(), offset_by_index(&av, &mut ov))?;
    }
    // The same bytes as flat `f32`s: component k of element i is at 3 * i + k.
    let flat: &[f32] = bytemuck::cast_slice(&out);
    for i in 0..n {
        let f = i as f32;
        let want = a[i] + Float3::new(f, 2.0 * f, 3.0 * f);
        assert_eq!(out[i], want, "element {i}");
        assert_eq!(&flat[3 * i..3 * i + 3], &want.to_array());
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn integer_vectors(
    idx: Index<1>,
    a: ArrayView<int_2, 1>,
    b: ArrayView<Int2, 1>,
    q: ArrayViewMut<Int2, 1>,
    u: ArrayViewMut<UInt4, 1>,
) {
    let (x, y) = (a[idx], b[idx]);
    q[idx] = x / y + x % 3 - Int2::new(1, 2) * y.yx();
    let k = idx[0] as u32;
    let mut w = UInt4::new(k, k + 1, k * 2, 7);
    w += 3;
    u[idx] = w / UInt4::splat(2) + w.wzyx() * 2;
}

#[test]
fn integer_vectors_match_the_cpu() -> Result<(), amp::Error> {
    let values = [0, 1, -1, 7, -7, 3, i32::MIN, i32::MAX];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &values {
        for &y in &values {
            a.push(Int2::new(x, y));
            b.push(Int2::new(y, x));
        }
    }
    let n = a.len();
    let (mut q, mut u) = (vec![Int2::default(); n], vec![UInt4::default(); n]);
    {
        let av = ArrayView::new([n], &a)?;
        let bv = ArrayView::new([n], &b)?;
        let mut qv = ArrayViewMut::new([n], &mut q)?;
        let mut uv = ArrayViewMut::new([n], &mut u)?;
        parallel_for_each(av.extent(), integer_vectors(&av, &bv, &mut qv, &mut uv))?;
    }
    // The device's integer semantics (docs/kernel-language.md): `x / 0` is -1, `x % 0` is x,
    // and overflow wraps.
    let div = |x: i32, y: i32| if y == 0 { -1 } else { x.wrapping_div(y) };
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = Int2::new(
            div(x.x, y.x).wrapping_add(x.x % 3).wrapping_sub(y.y),
            div(x.y, y.y)
                .wrapping_add(x.y % 3)
                .wrapping_sub(2i32.wrapping_mul(y.x)),
        );
        assert_eq!(q[i], want, "{x:?} / {y:?}");
        let k = i as u32;
        let w = UInt4::new(k + 3, k + 4, k * 2 + 3, 10);
        assert_eq!(u[i], w / 2 + UInt4::new(w.w, w.z, w.y, w.x) * 2);
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn double_vectors(idx: Index<1>, a: ArrayView<Double3, 1>, out: ArrayViewMut<double_4, 1>) {
    let v = a[idx];
    let n = v.normalize();
    out[idx] = Double4::new(n.x, n.y, n.z, v.dot(v)) * 2.0;
}

#[test]
fn double_vectors_match_the_cpu() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    assert!(
        acc.supports_double_precision(),
        "the test device (lavapipe) supports f64"
    );
    let n = 40;
    let a: Vec<Double3> = (0..n)
        .map(|i| {
            let f = i as f64;
            Double3::new(f + 0.1, 1.0 / (f + 1.0), -3.0 * f)
        })
        .collect();
    let mut out = vec![Double4::default(); n];
    {
        let av = ArrayView::new([n], &a)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(av.extent(), double_vectors(&av, &mut ov))?;
    }
    for i in 0..n {
        let v = a[i];
        let u = v.normalize();
        let want = Double4::new(u.x, u.y, u.z, v.dot(v)) * 2.0;
        for (got, want) in out[i].to_array().iter().zip(want.to_array()) {
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{i}: {got} vs {want}"
            );
        }
    }
    assert_validation_clean();
    Ok(())
}

// ----- short vectors as by-value kernel parameters -----

/// Vectors by value between scalars: `a` at byte 28, `offset` (12 bytes) at 32, `b` at 44,
/// `iv` at 48, `c` at 64, `dv` 8-aligned at 72 (after 4 bytes of padding), `d` at 88.
#[allow(clippy::too_many_arguments)]
#[kernel(amp)]
fn by_value_vectors(
    idx: Index<1>,
    a: f32,
    offset: Float3,
    b: u32,
    iv: Int4,
    c: f32,
    dv: Double2,
    d: i32,
    out: ArrayViewMut<Float3, 1>,
    ints: ArrayViewMut<Int4, 1>,
    doubles: ArrayViewMut<Double2, 1>,
) {
    let i = idx[0] as f32;
    out[idx] = offset * a + Float3::new(i, b as f32, c);
    ints[idx] = iv + Int4::new(d, idx[0] as i32, 0, 0);
    doubles[idx] = dv * (idx[0] as f64) + Double2::new(0.5, 0.0);
}

#[test]
fn vectors_by_value_between_scalars_match_the_cpu() -> Result<(), amp::Error> {
    let n = 21;
    let (a, offset, b) = (1.5f32, Float3::new(1.0, -2.0, 0.25), 7u32);
    let (iv, c, dv, d) = (
        Int4::new(1, -2, 3, -4),
        -0.5f32,
        Double2::new(1e-3, -2.5),
        -9,
    );
    let mut out = vec![Float3::default(); n];
    let mut ints = vec![Int4::default(); n];
    let mut doubles = vec![Double2::default(); n];
    {
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let mut iw = ArrayViewMut::new([n], &mut ints)?;
        let mut dw = ArrayViewMut::new([n], &mut doubles)?;
        let call = by_value_vectors(a, offset, b, iv, c, dv, d, &mut ov, &mut iw, &mut dw);
        parallel_for_each(Extent::new([n]), call)?;
    }
    for i in 0..n {
        let expected = offset * a + Float3::new(i as f32, b as f32, c);
        assert_eq!(out[i], expected, "element {i}");
        assert_eq!(ints[i], iv + Int4::new(d, i as i32, 0, 0), "element {i}");
        let e = dv * i as f64 + Double2::new(0.5, 0.0);
        assert_eq!(doubles[i], e, "element {i}");
    }
    assert_validation_clean();
    Ok(())
}
