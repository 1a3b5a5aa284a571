//! `Norm` and `Unorm` (C++ AMP's `norm` / `unorm`) and their vectors in kernels, checked bit
//! for bit against the host types: every operation clamps after each step, a NaN becomes 0,
//! `-0.0` survives as on the host. The computations are `#[amp::device]` functions, so the
//! host runs exactly the expressions the device runs.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// Edge values for the scalar operations (no denormals: a device may flush them).
const EDGES: [f32; 17] = [
    0.0,
    -0.0,
    0.25,
    0.5,
    1.0,
    1.5,
    -0.5,
    -1.0,
    -2.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.3,
    0.7,
    0.999,
    f32::MAX,
    1e-30,
];

const UNORM_OPS: usize = 11;
const NORM_OPS: usize = 12;

/// Everything `Unorm` does to two `f32`s.
#[amp::device]
fn unorm_ops(a: f32, b: f32) -> [Unorm; 11] {
    let x = Unorm::new(a);
    let y = Unorm::from(b);
    let mut z = x;
    z += y;
    z *= x;
    z -= Unorm::ONE / y;
    z /= x;
    [
        x,
        y,
        x + y,
        x - y,
        x * y,
        x / y,
        z,
        Unorm::from(Norm::new(a)),
        x * Unorm::ZERO,
        x / Unorm::ZERO,
        Unorm::new(f32::from(x) * 3.0 - y.get()) + Unorm::MIN,
    ]
}

/// Everything `Norm` does to two `f32`s.
#[amp::device]
fn norm_ops(a: f32, b: f32) -> [Norm; 12] {
    let p = Norm::new(a);
    let q = norm::from(b);
    let mut r = p;
    r -= q;
    r /= p;
    r += -q;
    r *= Norm::MIN;
    [
        p,
        q,
        p + q,
        p - q,
        p * q,
        p / q,
        -p,
        r,
        Norm::from(Unorm::new(a)),
        p * Norm::ZERO,
        p / Norm::ZERO,
        Norm::new(f32::from(p) + q.get()) - Norm::MIN,
    ]
}

/// The comparisons of both types, as bits.
#[amp::device]
fn comparisons(a: f32, b: f32) -> u32 {
    let (x, y) = (Unorm::new(a), Unorm::new(b));
    let (p, q) = (Norm::new(a), Norm::new(b));
    (x < y) as u32
        | ((x <= y) as u32) << 1
        | ((x > y) as u32) << 2
        | ((x >= y) as u32) << 3
        | ((x == y) as u32) << 4
        | ((x != y) as u32) << 5
        | ((p < q) as u32) << 6
        | ((p <= q) as u32) << 7
        | ((p > q) as u32) << 8
        | ((p >= q) as u32) << 9
        | ((p == q) as u32) << 10
        | ((p != q) as u32) << 11
}

#[kernel(amp)]
fn scalar_ops(
    idx: Index<1>,
    a: ArrayView<f32, 1>,
    b: ArrayView<f32, 1>,
    u: ArrayViewMut<Unorm, 2>,
    n: ArrayViewMut<Norm, 2>,
    cmp: ArrayViewMut<u32, 1>,
) {
    let i = idx[0];
    let us = unorm_ops(a[idx], b[idx]);
    for k in 0..11 {
        u[[i, k]] = us[k];
    }
    let ns = norm_ops(a[idx], b[idx]);
    for k in 0..12 {
        n[[i, k]] = ns[k];
    }
    cmp[idx] = comparisons(a[idx], b[idx]);
}

fn bits_u(v: Unorm) -> u32 {
    v.get().to_bits()
}

fn bits_n(v: Norm) -> u32 {
    v.get().to_bits()
}

#[test]
fn scalar_operations_clamp_like_the_host() -> Result<(), amp::Error> {
    let pairs: Vec<(f32, f32)> = EDGES
        .iter()
        .flat_map(|&a| EDGES.iter().map(move |&b| (a, b)))
        .collect();
    let m = pairs.len();
    let a: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let b: Vec<f32> = pairs.iter().map(|p| p.1).collect();
    let mut u = vec![Unorm::ONE; m * UNORM_OPS];
    let mut n = vec![Norm::ONE; m * NORM_OPS];
    let mut cmp = vec![0u32; m];
    {
        let av = ArrayView::new([m], &a)?;
        let bv = ArrayView::new([m], &b)?;
        let mut uv = ArrayViewMut::new([m, UNORM_OPS], &mut u)?;
        let mut nv = ArrayViewMut::new([m, NORM_OPS], &mut n)?;
        let mut cv = ArrayViewMut::new([m], &mut cmp)?;
        parallel_for_each(av.extent(), scalar_ops(&av, &bv, &mut uv, &mut nv, &mut cv))?;
    }
    for (i, &(x, y)) in pairs.iter().enumerate() {
        let want_u = unorm_ops(x, y);
        let want_n = norm_ops(x, y);
        for k in 0..UNORM_OPS {
            let got = u[i * UNORM_OPS + k];
            assert_eq!(
                bits_u(got),
                bits_u(want_u[k]),
                "Unorm op {k} of ({x:?}, {y:?}): device {got:?}, host {:?}",
                want_u[k]
            );
        }
        for k in 0..NORM_OPS {
            let got = n[i * NORM_OPS + k];
            assert_eq!(
                bits_n(got),
                bits_n(want_n[k]),
                "Norm op {k} of ({x:?}, {y:?}): device {got:?}, host {:?}",
                want_n[k]
            );
        }
        assert_eq!(cmp[i], comparisons(x, y), "comparisons of ({x:?}, {y:?})");
    }
    // The edge cases the host defines, seen on the device.
    let at = |x: f32, y: f32| {
        pairs
            .iter()
            .position(|&p| p.0.to_bits() == x.to_bits() && p.1.to_bits() == y.to_bits())
            .expect("a pair")
    };
    assert_eq!(
        bits_u(u[at(f32::NAN, 0.5) * UNORM_OPS]),
        0,
        "Unorm::new(NaN) is 0"
    );
    assert_eq!(
        bits_n(n[at(f32::NAN, 0.5) * NORM_OPS]),
        0,
        "Norm::new(NaN) is 0, not -1"
    );
    assert_eq!(
        bits_u(u[at(-0.0, 0.5) * UNORM_OPS]),
        (-0.0f32).to_bits(),
        "Unorm::new(-0.0) keeps its sign"
    );
    assert_eq!(
        u[at(0.0, 0.0) * UNORM_OPS + 5],
        Unorm::ZERO,
        "0 / 0 is NaN, so 0"
    );
    assert_eq!(
        n[at(-0.5, 0.0) * NORM_OPS + 10],
        Norm::MIN,
        "-0.5 / 0 is -inf, so -1"
    );
    assert_validation_clean();
    Ok(())
}

/// An RGBA colour's grey value and a few vector operations on it.
#[amp::device]
fn grey(c: Unorm4) -> Unorm {
    let w = [0.299f32, 0.587, 0.114];
    let p = c.to_f32_array();
    Unorm::new(w[0] * p[0] + w[1] * p[1] + w[2] * p[2])
}

#[amp::device]
fn recolour(c: Unorm4, tint: Unorm) -> Unorm4 {
    let mut d = c * Unorm4::from_f32_array([1.5, 0.5, -1.0, 0.75]) + Unorm4::splat(tint);
    d -= Unorm4::new(c.w, c.z, c.y, Unorm::ZERO);
    d.w = Unorm::ONE;
    d.x /= c.y;
    d / c
}

#[kernel(amp)]
fn to_grey(
    idx: Index<2>,
    img: &Array<Unorm4, 2>,
    g: ArrayViewMut<Unorm, 2>,
    out: ArrayViewMut<Unorm4, 2>,
    tint: Unorm,
) {
    let c = img[idx];
    g[idx] = grey(c);
    out[idx] = recolour(c, tint);
    out[idx].z += tint;
}

fn colours(h: usize, w: usize) -> Vec<Unorm4> {
    (0..h * w)
        .map(|i| {
            let f = i as f32;
            Unorm4::from_f32_array([
                (f * 0.37).fract() * 1.2 - 0.1,
                (f * 0.11).fract(),
                ((f * 0.71).sin() + 0.2).abs(),
                if i % 7 == 0 {
                    f32::NAN
                } else {
                    1.0 - (f * 0.05).fract()
                },
            ])
        })
        .collect()
}

#[test]
fn colour_conversion_in_a_2d_view_of_unorm4() -> Result<(), amp::Error> {
    let (h, w) = (9, 13);
    let host = colours(h, w);
    let img = Array::from_slice([h, w], &host)?;
    let mut g = vec![Unorm::ONE; h * w];
    let mut out = vec![Unorm4::default(); h * w];
    let tint = Unorm::new(0.125);
    {
        let mut gv = ArrayViewMut::new([h, w], &mut g)?;
        let mut ov = ArrayViewMut::new([h, w], &mut out)?;
        parallel_for_each(gv.extent(), to_grey(&img, &mut gv, &mut ov, tint))?;
    }
    for (i, &c) in host.iter().enumerate() {
        assert_eq!(bits_u(g[i]), bits_u(grey(c)), "grey of {c:?}");
        let mut want = recolour(c, tint);
        want.z += tint;
        assert_eq!(
            out[i].to_f32_array().map(f32::to_bits),
            want.to_f32_array().map(f32::to_bits),
            "recolour of {c:?}"
        );
    }
    assert_validation_clean();
    Ok(())
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceStruct)]
struct Texel {
    colour: Unorm4,
    weight: Norm,
}

#[kernel(amp)]
fn norm_vectors(
    idx: Index<1>,
    a: &Array<Norm2, 1>,
    b: &mut Array<Norm3, 1>,
    t: ArrayViewMut<Texel, 1>,
    v: Norm3,
) {
    let p = a[idx];
    let mut local = [Norm::ZERO; 3];
    local[0] = -p.x;
    local[1] = p.y * p.x;
    local[2] = Norm::from(t[idx].colour.x);
    let f = [
        f32::from(local[0]) * 4.0,
        local[1].get(),
        f32::from(local[2]) - 2.0,
    ];
    b[idx] = -Norm3::from_f32_array(f) + v * Norm3::new(p.x, p.y, Norm::ONE);
    b[idx] -= v;
    let mut x = t[idx];
    x.weight = -x.weight + p.y;
    x.colour.w = Unorm::from(p.x);
    t[idx] = x;
    t[idx].colour.x += Unorm::new(0.25);
}

#[test]
fn norm_vectors_arrays_and_struct_fields() -> Result<(), amp::Error> {
    let n = 40;
    let a: Vec<Norm2> = (0..n)
        .map(|i| {
            let f = i as f32 / n as f32;
            Norm2::from_f32_array([2.0 * f - 1.2, 1.0 - 3.0 * f])
        })
        .collect();
    let texels: Vec<Texel> = (0..n)
        .map(|i| Texel {
            colour: Unorm4::from_f32_array([i as f32 / 30.0, 0.5, 0.25, 0.0]),
            weight: Norm::new(0.9 - i as f32 / 20.0),
        })
        .collect();
    let v = Norm3::from_f32_array([0.5, -0.75, 1.0]);
    let aa = Array::from_slice([n], &a)?;
    let mut bb = Array::<Norm3, 1>::new([n])?;
    let mut t = texels.clone();
    {
        let mut tv = ArrayViewMut::new([n], &mut t)?;
        parallel_for_each(aa.extent(), norm_vectors(&aa, &mut bb, &mut tv, v))?;
    }
    let b = bb.to_vec()?;
    for i in 0..n {
        let p = a[i];
        let x0 = texels[i];
        let local = [-p.x, p.y * p.x, Norm::from(x0.colour.x)];
        let f = [
            f32::from(local[0]) * 4.0,
            local[1].get(),
            f32::from(local[2]) - 2.0,
        ];
        let mut want = -Norm3::from_f32_array(f) + v * Norm3::new(p.x, p.y, Norm::ONE);
        want -= v;
        assert_eq!(
            b[i].to_f32_array().map(f32::to_bits),
            want.to_f32_array().map(f32::to_bits),
            "element {i}"
        );
        let mut x = x0;
        x.weight = -x.weight + p.y;
        x.colour.w = Unorm::from(p.x);
        x.colour.x += Unorm::new(0.25);
        assert_eq!(t[i], x, "texel {i}");
    }
    assert_validation_clean();
    Ok(())
}
