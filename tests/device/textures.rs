//! Textures on the device (C++ AMP's graphics library): texel reads and writes, extents,
//! sampling with each filter and address mode checked against the same computation on the CPU,
//! 8/16/32-bit formats, out-of-bounds texel accesses, and the run-time errors. Every test runs
//! on the default accelerator (`AMP_DEVICE=cpu`: the native CPU accelerator); the last ones
//! compare the native CPU accelerator with a Vulkan device (reads, writes, samples, gathers,
//! and copies between their textures).

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

#[kernel(amp)]
fn scale_texels(idx: Index<2>, src: TextureView<Float4, 2>, dst: WriteonlyTextureView<Float4, 2>) {
    let e = src.extent();
    let v = src[idx];
    dst.set(
        idx,
        v * 2.0 + Float4::new(e[0] as f32, e[1] as f32, 0.0, 0.0),
    );
}

#[test]
fn texels_read_and_write_in_row_major_order() -> Result<(), amp::Error> {
    let (h, w) = (5, 7);
    let data: Vec<Float4> = (0..h * w)
        .map(|i| Float4::new(i as f32, -(i as f32), 0.5, 1.0))
        .collect();
    let src = Texture::<Float4, 2>::from_slice(Extent::new([h, w]), &data)?;
    assert_eq!(src.to_vec()?, data);
    assert_eq!(src.bits_per_scalar_element(), 32);
    let dst = Texture::<Float4, 2>::new(Extent::new([h, w]))?;
    assert_eq!(
        dst.to_vec()?,
        vec![Float4::default(); h * w],
        "new textures are zero"
    );
    parallel_for_each(
        Extent::new([h, w]),
        scale_texels(&src.view(), &dst.writeonly_view()),
    )?;
    let want: Vec<Float4> = data
        .iter()
        .map(|&v| v * 2.0 + Float4::new(h as f32, w as f32, 0.0, 0.0))
        .collect();
    assert_eq!(dst.to_vec()?, want);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn int_texels(
    idx: Index<1>,
    src: TextureView<Int2, 1>,
    dst: WriteonlyTextureView<u32, 1>,
    out: ArrayViewMut<i32, 1>,
) {
    let v = src[idx];
    out[idx] = v.x - v.y;
    dst.set(idx, (v.x + v.y) as u32);
}

#[test]
fn integer_texels_in_8_16_and_32_bits_saturate_on_the_host() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let n = 9;
    let data: Vec<Int2> = (0..n as i32).map(|i| Int2::new(i * 40 - 100, i)).collect();
    for bits in [8, 16, 32] {
        let src = Texture::<Int2, 1>::from_slice_with_bits_on(&acc, Extent::new([n]), &data, bits)?;
        let dst = Texture::<u32, 1>::with_bits_on(&acc, Extent::new([n]), 32)?;
        let mut out = vec![0i32; n];
        let mut o = ArrayViewMut::new(Extent::new([n]), &mut out)?;
        parallel_for_each(
            Extent::new([n]),
            int_texels(&src.view(), &dst.writeonly_view(), &mut o),
        )?;
        o.synchronize()?;
        drop(o);
        let stored: Vec<Int2> = data
            .iter()
            .map(|v| {
                let x = if bits == 8 { v.x.clamp(-128, 127) } else { v.x };
                Int2::new(x, v.y)
            })
            .collect();
        assert_eq!(src.to_vec()?, stored, "{bits} bits");
        let want: Vec<i32> = stored.iter().map(|v| v.x - v.y).collect();
        assert_eq!(out, want, "{bits} bits");
        let sums: Vec<u32> = stored.iter().map(|v| (v.x + v.y) as u32).collect();
        assert_eq!(dst.to_vec()?, sums, "{bits} bits");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn sample_1d(
    idx: Index<1>,
    src: TextureView<f32, 1>,
    s: Sampler,
    coords: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    out[idx] = src.sample(&s, coords[idx]);
}

/// A device function that samples a texture and writes another: texture views and samplers
/// are device-function parameters.
#[amp::device]
fn sample_twice(src: &TextureView<f32, 1>, s: &Sampler, u: f32) -> f32 {
    src.sample(s, u) + src.sample(s, u + 0.25)
}

#[amp::device]
fn store_at(dst: &WriteonlyTextureView<f32, 1>, i: Index<1>, v: f32) {
    dst.set(i, v);
}

#[kernel(amp)]
fn sample_through_device_fns(
    idx: Index<1>,
    src: TextureView<f32, 1>,
    s: Sampler,
    coords: ArrayView<f32, 1>,
    dst: WriteonlyTextureView<f32, 1>,
) {
    let v = sample_twice(&src, &s, coords[idx]);
    store_at(&dst, idx, v);
}

#[kernel(amp)]
fn sample_inline(
    idx: Index<1>,
    src: TextureView<f32, 1>,
    s: Sampler,
    coords: ArrayView<f32, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    let u = coords[idx];
    out[idx] = src.sample(&s, u) + src.sample(&s, u + 0.25);
}

#[test]
fn texture_views_and_samplers_pass_to_device_functions() -> Result<(), amp::Error> {
    let texels = [1.0f32, 3.0, -2.0, 8.0, 0.5];
    let src = Texture::<f32, 1>::from_slice(Extent::new([texels.len()]), &texels)?;
    let coords: Vec<f32> = (0..40).map(|k| k as f32 / 37.0).collect();
    let e = Extent::new([coords.len()]);
    let c = ArrayView::new(e, &coords)?;
    let s = Sampler::new(Filter::Linear, AddressMode::Wrap);
    let dst = Texture::<f32, 1>::new_on(src.accelerator(), e)?;
    parallel_for_each(
        e,
        sample_through_device_fns(&src.view(), s, &c, &dst.writeonly_view()),
    )?;
    let mut want = vec![0.0f32; coords.len()];
    let mut w = ArrayViewMut::new(e, &mut want)?;
    parallel_for_each(e, sample_inline(&src.view(), s, &c, &mut w))?;
    w.synchronize()?;
    drop(w);
    let got = dst.to_vec()?;
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_validation_clean();
    Ok(())
}

/// What C++ AMP (and Vulkan) sample from texels `t` at normalized coordinate `u`.
fn cpu_sample(t: &[f32], u: f32, filter: Filter, mode: AddressMode) -> f32 {
    let n = t.len() as i64;
    let texel = |i: i64| -> f32 {
        let i = match mode {
            AddressMode::Wrap => i.rem_euclid(n),
            AddressMode::Mirror => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
            AddressMode::Clamp => i.clamp(0, n - 1),
            AddressMode::Border => {
                if i < 0 || i >= n {
                    return 0.0;
                }
                i
            }
        };
        t[i as usize]
    };
    let x = u * n as f32;
    match filter {
        Filter::Nearest => texel(x.floor() as i64),
        Filter::Linear => {
            let x = x - 0.5;
            let i = x.floor();
            let a = x - i;
            texel(i as i64) * (1.0 - a) + texel(i as i64 + 1) * a
        }
    }
}

#[test]
fn sampling_matches_the_cpu_for_every_filter_and_address_mode() -> Result<(), amp::Error> {
    let texels = [1.0f32, 3.0, -2.0, 8.0, 0.5];
    let src = Texture::<f32, 1>::from_slice(Extent::new([texels.len()]), &texels)?;
    // Texel centres, points between them, and coordinates outside [0, 1].
    let coords: Vec<f32> = (-12..=24).map(|k| k as f32 / 12.0 + 0.013).collect();
    let n = coords.len();
    let c = ArrayView::new(Extent::new([n]), &coords)?;
    for filter in [Filter::Nearest, Filter::Linear] {
        for mode in [
            AddressMode::Wrap,
            AddressMode::Mirror,
            AddressMode::Clamp,
            AddressMode::Border,
        ] {
            let mut out = vec![0.0f32; n];
            let mut o = ArrayViewMut::new(Extent::new([n]), &mut out)?;
            parallel_for_each(
                Extent::new([n]),
                sample_1d(&src.view(), Sampler::new(filter, mode), &c, &mut o),
            )?;
            o.synchronize()?;
            drop(o);
            for (k, (&u, &got)) in coords.iter().zip(&out).enumerate() {
                let want = cpu_sample(&texels, u, filter, mode);
                // Linear weights have 8 bits of sub-texel precision in Vulkan.
                let tol = if filter == Filter::Linear {
                    10.0 / 256.0
                } else {
                    0.0
                };
                assert!(
                    (got - want).abs() <= tol,
                    "{filter:?} {mode:?} #{k} u = {u}: got {got}, want {want}"
                );
            }
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn sample_2d(
    idx: Index<2>,
    src: TextureView<Float2, 2>,
    s: Sampler,
    dst: WriteonlyTextureView<Float2, 2>,
) {
    let e = dst.extent();
    let uv = Float2::new(
        (idx[1] as f32 + 0.5) / e[1] as f32,
        (idx[0] as f32 + 0.5) / e[0] as f32,
    );
    dst.set(idx, src.sample(&s, uv));
}

#[test]
fn sampling_2d_at_texel_centres_reads_the_texels_x_along_the_last_dimension(
) -> Result<(), amp::Error> {
    let (h, w) = (3, 4);
    let data: Vec<Float2> = (0..h * w)
        .map(|i| Float2::new(i as f32, (i * i) as f32))
        .collect();
    let src = Texture::<Float2, 2>::from_slice(Extent::new([h, w]), &data)?;
    let dst = Texture::<Float2, 2>::new(Extent::new([h, w]))?;
    for filter in [Filter::Nearest, Filter::Linear] {
        parallel_for_each(
            Extent::new([h, w]),
            sample_2d(
                &src.view(),
                Sampler::new(filter, AddressMode::Clamp),
                &dst.writeonly_view(),
            ),
        )?;
        assert_eq!(dst.to_vec()?, data, "{filter:?}");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn read_past_the_end(idx: Index<1>, src: TextureView<f32, 1>, out: &mut Array<f32, 1>) {
    out[idx] = src[idx];
}

#[test]
fn a_texel_read_outside_the_texture_reads_zero_and_reports_the_texture() -> Result<(), amp::Error> {
    let src = Texture::<f32, 1>::from_slice(Extent::new([4]), &[1.0, 2.0, 3.0, 4.0])?;
    let mut out = Array::<f32, 1>::new(Extent::new([6]))?;
    let err = parallel_for_each(Extent::new([6]), read_past_the_end(&src.view(), &mut out))
        .and_then(|()| out.to_vec().map(|_| ()))
        .expect_err("an out-of-bounds texel read is an error");
    match err {
        amp::Error::IndexOutOfBounds {
            param,
            index,
            extent,
            ..
        } => {
            assert_eq!(param, "src");
            assert!(index == [4] || index == [5], "{index:?}");
            assert_eq!(extent, [4]);
        }
        other => panic!("expected IndexOutOfBounds, got {other}"),
    }
    assert_eq!(out.to_vec()?, [1.0, 2.0, 3.0, 4.0, 0.0, 0.0]);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn copy_texture(idx: Index<1>, src: TextureView<f32, 1>, dst: WriteonlyTextureView<f32, 1>) {
    dst.set(idx, src[idx]);
}

#[test]
fn run_time_errors_are_typed() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let t = Texture::<f32, 1>::new_on(&acc, Extent::new([4]))?;
    // One texture read and written in one launch.
    let err = parallel_for_each(
        Extent::new([4]),
        copy_texture(&t.view(), &t.writeonly_view()),
    )
    .expect_err("aliasing");
    assert!(matches!(err, amp::Error::ArgumentMismatch { .. }), "{err}");
    assert!(err.to_string().contains("both read and written"), "{err}");
    // Bits the texel kind does not have.
    let err = Texture::<f32, 1>::with_bits_on(&acc, Extent::new([4]), 8).expect_err("8-bit float");
    assert!(matches!(err, amp::Error::UnsupportedFormat { .. }), "{err}");
    // Data of the wrong length.
    let err = Texture::<f32, 2>::from_slice(Extent::new([2, 2]), &[1.0; 3]).expect_err("length");
    assert!(matches!(err, amp::Error::ExtentMismatch { .. }), "{err}");
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn fill_3d(idx: Index<3>, dst: WriteonlyTextureView<UInt4, 3>) {
    dst.set(
        idx,
        UInt4::new(idx[0] as u32, idx[1] as u32, idx[2] as u32, 7),
    );
}

#[test]
fn rank_3_textures_in_16_bits() -> Result<(), amp::Error> {
    let acc = Accelerator::default()?;
    let t = Texture::<UInt4, 3>::with_bits_on(&acc, Extent::new([2, 3, 4]), 16)?;
    parallel_for_each(Extent::new([2, 3, 4]), fill_3d(&t.writeonly_view()))?;
    let got = t.to_vec()?;
    let mut want = Vec::new();
    for z in 0..2 {
        for y in 0..3 {
            for x in 0..4 {
                want.push(UInt4::new(z, y, x, 7));
            }
        }
    }
    assert_eq!(got, want);
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn gather_at(
    idx: Index<1>,
    src: TextureView<Int2, 2>,
    s: Sampler,
    uv: Float2,
    out: ArrayViewMut<Int4, 1>,
) {
    if idx[0] == 0 {
        out[idx] = src.gather_red(&s, uv);
    } else {
        out[idx] = src.gather_green(&s, uv);
    }
}

#[test]
fn gather_returns_the_four_texels_of_a_bilinear_footprint_in_vulkan_order() -> Result<(), amp::Error>
{
    let (h, w) = (3, 4);
    let data: Vec<Int2> = (0..h * w)
        .map(|i| Int2::new((10 * (i / w) + i % w) as i32, -(i as i32)))
        .collect();
    let src = Texture::<Int2, 2>::from_slice(Extent::new([h, w]), &data)?;
    let mut out = vec![Int4::default(); 2];
    let mut o = ArrayViewMut::new(Extent::new([2]), &mut out)?;
    // The corner between texels x 1..2 and y 0..1.
    let uv = Float2::new(2.0 / w as f32, 1.0 / h as f32);
    let s = Sampler::new(Filter::Nearest, AddressMode::Clamp);
    parallel_for_each(Extent::new([2]), gather_at(&src.view(), s, uv, &mut o))?;
    o.synchronize()?;
    drop(o);
    // (x0, y1), (x1, y1), (x1, y0), (x0, y0).
    assert_eq!(out[0], Int4::new(11, 12, 2, 1));
    assert_eq!(out[1], Int4::new(-5, -6, -2, -1));
    assert_validation_clean();
    Ok(())
}

/// A Vulkan accelerator to compare the native one with. Without one the comparison cannot
/// run: it says so, and where the test command's Vulkan run asked for the validation layer
/// (`AMP_VALIDATION=1`, so a Vulkan device is expected) it fails rather than pass unchecked.
fn vulkan() -> Option<Accelerator> {
    let acc = Accelerator::all()
        .ok()?
        .into_iter()
        .find(|a| !a.is_native());
    if acc.is_none() {
        assert!(
            std::env::var_os("AMP_VALIDATION").is_none_or(|v| v != "1"),
            "AMP_VALIDATION=1 but no Vulkan device to compare the native accelerator with"
        );
        eprintln!("no Vulkan device: the native CPU accelerator is compared with nothing");
    }
    acc
}

#[test]
fn textures_copy_between_the_cpu_and_a_vulkan_device_both_ways() -> Result<(), amp::Error> {
    let Some(gpu) = vulkan() else { return Ok(()) };
    let cpu = Accelerator::cpu()?;
    let e = Extent::new([3, 5]);
    let data: Vec<Unorm4> = (0..15)
        .map(|i| Unorm4::from_f32_array([i as f32 / 15.0, 0.25, 1.0 - i as f32 / 17.0, 0.5]))
        .collect();
    for bits in [8, 16] {
        let c = Texture::<Unorm4, 2>::from_slice_with_bits_on(&cpu, e, &data, bits)?;
        let mut g = Texture::<Unorm4, 2>::with_bits_on(&gpu, e, bits)?;
        c.copy_to(&mut g)?;
        assert_eq!(g.to_vec()?, c.to_vec()?, "{bits} bits, CPU to Vulkan");
        let mut back = Texture::<Unorm4, 2>::with_bits_on(&cpu, e, bits)?;
        g.copy_to(&mut back)?;
        assert_eq!(back.to_vec()?, c.to_vec()?, "{bits} bits, Vulkan to CPU");
    }
    // Floats: 32 bits to 16 bits rounds to nearest even on either side.
    let f: Vec<f32> = (0..15).map(|i| 1.0 + i as f32 * 0.1234567).collect();
    let g = Texture::<f32, 2>::from_slice_on(&gpu, e, &f)?;
    let mut c = Texture::<f32, 2>::with_bits_on(&cpu, e, 16)?;
    g.copy_to(&mut c)?;
    let g16 = Texture::<f32, 2>::from_slice_with_bits_on(&gpu, e, &f, 16)?;
    assert_eq!(c.to_vec()?, g16.to_vec()?);
    let mut wrong = Texture::<f32, 2>::new_on(&cpu, Extent::new([5, 3]))?;
    assert!(matches!(
        g.copy_to(&mut wrong),
        Err(amp::Error::ExtentMismatch { .. })
    ));
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn write_texels(
    idx: Index<1>,
    src: ArrayView<Float4, 1>,
    u: WriteonlyTextureView<Unorm4, 1>,
    n: WriteonlyTextureView<Norm2, 1>,
    f: WriteonlyTextureView<Float4, 1>,
    i: WriteonlyTextureView<Int2, 1>,
) {
    let v = src[idx];
    u.set(idx, Unorm4::from_f32_array([v.x, v.y, v.z, v.w]));
    n.set(idx, Norm2::new(Norm::new(v.x), Norm::new(v.y)));
    f.set(idx, v);
    i.set(idx, Int2::new((v.x * 300.0) as i32, (v.y * 40000.0) as i32));
}

#[kernel(amp)]
fn read_texels(
    idx: Index<1>,
    u: TextureView<Unorm4, 1>,
    n: TextureView<Norm2, 1>,
    f: TextureView<Float4, 1>,
    out: ArrayViewMut<Float4, 1>,
) {
    let a = u[idx].to_f32_array();
    let b = n[idx];
    let c = f[idx];
    out[idx] = Float4::new(a[0] + a[3], b.x.get(), c.z, c.w + a[1]);
}

#[test]
#[allow(clippy::needless_range_loop)] // several results per index
fn texel_writes_and_reads_on_the_cpu_equal_vulkans_in_every_width() -> Result<(), amp::Error> {
    let Some(gpu) = vulkan() else { return Ok(()) };
    let cpu = Accelerator::cpu()?;
    // Values on and between the 8- and 16-bit steps, ties, out of range, NaN, infinities.
    let mut vals: Vec<f32> = (-300..=300).map(|k| k as f32 / 255.0).collect();
    vals.extend((0..200).map(|k| (k as f32 + 0.5) / 255.0));
    vals.extend((0..200).map(|k| (k as f32 + 0.5) / 127.0 - 0.8));
    vals.extend([
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        65520.0,
        1e-6,
        -0.0,
        2.5e-8,
    ]);
    vals.extend((0..300).map(|k| 1.0 + k as f32 * 0.000_976_562_5 / 2.0));
    let data: Vec<Float4> = vals
        .iter()
        .enumerate()
        .map(|(k, &v)| Float4::new(v, vals[(k * 7) % vals.len()], -v, v * 3.0))
        .collect();
    let len = data.len();
    let e = Extent::new([len]);
    let src = ArrayView::new(e, &data)?;
    for bits in [(8, 16, 8), (16, 32, 16)] {
        let mut got = Vec::new();
        for acc in [&cpu, &gpu] {
            let u = Texture::<Unorm4, 1>::with_bits_on(acc, e, bits.0)?;
            let n = Texture::<Norm2, 1>::with_bits_on(acc, e, bits.0)?;
            let f = Texture::<Float4, 1>::with_bits_on(acc, e, bits.1)?;
            let i = Texture::<Int2, 1>::with_bits_on(acc, e, bits.2)?;
            parallel_for_each(
                e,
                write_texels(
                    &src,
                    &u.writeonly_view(),
                    &n.writeonly_view(),
                    &f.writeonly_view(),
                    &i.writeonly_view(),
                ),
            )?;
            // What the kernel wrote, then reads of textures filled from the host.
            let written = f.to_vec()?;
            let u = Texture::<Unorm4, 1>::from_slice_with_bits_on(acc, e, &u.to_vec()?, bits.0)?;
            let n = Texture::<Norm2, 1>::from_slice_with_bits_on(acc, e, &n.to_vec()?, bits.0)?;
            let f = Texture::<Float4, 1>::from_slice_with_bits_on(acc, e, &data, bits.1)?;
            let mut out = vec![Float4::default(); len];
            let mut o = ArrayViewMut::new(e, &mut out)?;
            parallel_for_each(e, read_texels(&u.view(), &n.view(), &f.view(), &mut o))?;
            o.synchronize()?;
            drop(o);
            got.push((u.to_vec()?, n.to_vec()?, written, i.to_vec()?, out));
        }
        let (c, g) = (&got[0], &got[1]);
        let bits_of = |v: &[Float4]| -> Vec<[u32; 4]> {
            v.iter()
                .map(|x| {
                    [x.x, x.y, x.z, x.w].map(|c| if c.is_nan() { 0x7fc0_0000 } else { c.to_bits() })
                })
                .collect()
        };
        for k in 0..len {
            assert_eq!(c.0[k], g.0[k], "{bits:?} Unorm4 #{k} from {:?}", data[k]);
            assert_eq!(c.1[k], g.1[k], "{bits:?} Norm2 #{k} from {:?}", data[k]);
            assert_eq!(c.3[k], g.3[k], "{bits:?} Int2 #{k} from {:?}", data[k]);
        }
        // Kernels' f32 writes, 16-bit ones included, round as the host's conversion does
        // (to nearest, ties to even), on every accelerator.
        let host = Texture::<Float4, 1>::from_slice_with_bits_on(&cpu, e, &data, bits.1)?;
        let host = bits_of(&host.to_vec()?);
        for (k, (x, y)) in bits_of(&c.2).iter().zip(&bits_of(&g.2)).enumerate() {
            assert_eq!(
                x, &host[k],
                "{bits:?} native Float4 write #{k} of {:?}",
                data[k]
            );
            assert_eq!(
                y, &host[k],
                "{bits:?} Vulkan Float4 write #{k} of {:?}",
                data[k]
            );
        }
        assert_eq!(bits_of(&c.4), bits_of(&g.4), "{bits:?} reads");
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn decode_normalized(
    idx: Index<2>,
    u: TextureView<Unorm, 2>,
    n: TextureView<Norm, 2>,
    out_u: ArrayViewMut<f32, 2>,
    out_n: ArrayViewMut<f32, 2>,
) {
    out_u[idx] = u[idx].get();
    out_n[idx] = n[idx].get();
}

/// Every stored code of 8-bit and 16-bit `Unorm` and `Norm` texels: a kernel's read gives the
/// host's `to_vec()` decode bit for bit, natively and on Vulkan, and that decode is the
/// documented `c * (1 / 255)` (`1 / 65535`, `1 / 127`, `1 / 32767`; the most negative code
/// reads as -1).
#[test]
fn every_normalized_code_decodes_as_the_host_decodes() -> Result<(), amp::Error> {
    decode_every_normalized_code()
}

/// The same where the device's decode is an ULP off (as NVIDIA's is for some codes): under
/// `AMP_FORCE_EXACT_PATHS=1` (a process of its own) kernels move each decoded component an ULP
/// before recovering its code, so the recovery is tested on a device that decodes as the host.
#[test]
fn every_normalized_code_decodes_as_the_host_decodes_from_a_decode_an_ulp_off(
) -> Result<(), amp::Error> {
    const NAME: &str =
        "textures::every_normalized_code_decodes_as_the_host_decodes_from_a_decode_an_ulp_off";
    if common::in_child(NAME) {
        return decode_every_normalized_code();
    }
    if vulkan().is_some() {
        common::run_child(NAME, &[("AMP_FORCE_EXACT_PATHS", "1")], &[]);
    }
    Ok(())
}

fn decode_every_normalized_code() -> Result<(), amp::Error> {
    let mut accs = vec![Accelerator::cpu()?];
    accs.extend(vulkan());
    for (bits, rows) in [(8u32, 1usize), (16, 256)] {
        let (umax, nmax) = ((1u32 << bits) - 1, (1i32 << (bits - 1)) - 1);
        let codes = rows * 256;
        let e = Extent::new([rows, 256]);
        // The host encodes each value to its code (these are the steps themselves).
        let unorms: Vec<Unorm> = (0..codes)
            .map(|c| Unorm::new(c as f32 / umax as f32))
            .collect();
        let norms: Vec<Norm> = (0..codes)
            .map(|c| Norm::new((c as i32 - nmax - 1) as f32 / nmax as f32))
            .collect();
        let u_step = 1.0 / umax as f32;
        let n_step = 1.0 / nmax as f32;
        for acc in &accs {
            let u = Texture::<Unorm, 2>::from_slice_with_bits_on(acc, e, &unorms, bits)?;
            let n = Texture::<Norm, 2>::from_slice_with_bits_on(acc, e, &norms, bits)?;
            let host_u: Vec<u32> = u.to_vec()?.iter().map(|v| v.get().to_bits()).collect();
            let host_n: Vec<u32> = n.to_vec()?.iter().map(|v| v.get().to_bits()).collect();
            for c in 0..codes {
                assert_eq!(
                    host_u[c],
                    (c as f32 * u_step).to_bits(),
                    "Unorm{bits} code {c}"
                );
                let signed = (c as i32 - nmax - 1).max(-nmax);
                assert_eq!(
                    host_n[c],
                    (signed as f32 * n_step).to_bits(),
                    "Norm{bits} code {c}"
                );
            }
            let mut out_u = vec![0.0f32; codes];
            let mut out_n = vec![0.0f32; codes];
            let mut ou = ArrayViewMut::new(e, &mut out_u)?;
            let mut on = ArrayViewMut::new(e, &mut out_n)?;
            parallel_for_each_on(
                acc,
                e,
                decode_normalized(&u.view(), &n.view(), &mut ou, &mut on),
            )?;
            ou.synchronize()?;
            on.synchronize()?;
            drop((ou, on));
            for c in 0..codes {
                assert_eq!(
                    out_u[c].to_bits(),
                    host_u[c],
                    "{}: Unorm{bits} code {c}",
                    acc.name()
                );
                assert_eq!(
                    out_n[c].to_bits(),
                    host_n[c],
                    "{}: Norm{bits} code {c}",
                    acc.name()
                );
            }
        }
    }
    assert_validation_clean();
    Ok(())
}

#[kernel(amp)]
fn sample_many(
    idx: Index<1>,
    src: TextureView<Unorm4, 2>,
    s: Sampler,
    uv: ArrayView<Float2, 1>,
    out: ArrayViewMut<Float4, 1>,
) {
    let c = src.sample(&s, uv[idx]).to_f32_array();
    out[idx] = Float4::new(c[0], c[1], c[2], c[3]);
}

#[kernel(amp)]
fn sample_many_3d(
    idx: Index<1>,
    src: TextureView<f32, 3>,
    s: Sampler,
    uvw: ArrayView<Float3, 1>,
    out: ArrayViewMut<f32, 1>,
) {
    out[idx] = src.sample(&s, uvw[idx]);
}

#[kernel(amp)]
fn gather_many(
    idx: Index<1>,
    src: TextureView<Unorm4, 2>,
    s: Sampler,
    uv: ArrayView<Float2, 1>,
    out: ArrayViewMut<Unorm4, 1>,
) {
    if idx[0] % 2 == 0 {
        out[idx] = src.gather_red(&s, uv[idx]);
    } else {
        out[idx] = src.gather_alpha(&s, uv[idx]);
    }
}

const MODES: [AddressMode; 4] = [
    AddressMode::Wrap,
    AddressMode::Mirror,
    AddressMode::Clamp,
    AddressMode::Border,
];

#[test]
#[allow(clippy::needless_range_loop)] // several results per index
fn native_samples_and_gathers_equal_vulkans_for_every_filter_and_address_mode(
) -> Result<(), amp::Error> {
    let Some(gpu) = vulkan() else { return Ok(()) };
    let cpu = Accelerator::cpu()?;
    let (h, w) = (5, 7);
    let texels: Vec<Unorm4> = (0..h * w)
        .map(|i| {
            let f = |k: usize| ((i * 37 + k * 91) % 256) as f32 / 255.0;
            Unorm4::from_f32_array([f(0), f(1), f(2), f(3)])
        })
        .collect();
    // Coordinates inside, outside and on texel centres and edges, off the edges by little.
    let mut uv: Vec<Float2> = Vec::new();
    for j in -9..=19 {
        for i in -11..=23 {
            // Never on a texel's edge, where the texel nearest filtering picks depends on the
            // rounding of the device's coordinate arithmetic (Vulkan leaves it open).
            let x = (i as f32 + 0.37) / (2.0 * w as f32) + 0.0173 * (j % 3) as f32;
            let y = (j as f32 + 0.21) / (2.0 * h as f32) - 0.0091 * (i % 4) as f32;
            uv.push(Float2::new(x, y));
        }
    }
    let n = uv.len();
    let e = Extent::new([n]);
    let coords = ArrayView::new(e, &uv)?;
    let mut worst = 0.0f32;
    for filter in [Filter::Nearest, Filter::Linear] {
        for mode in MODES {
            let s = Sampler::new(filter, mode);
            let mut results = Vec::new();
            for acc in [&cpu, &gpu] {
                let t = Texture::<Unorm4, 2>::from_slice_on(acc, Extent::new([h, w]), &texels)?;
                let mut sampled = vec![Float4::default(); n];
                let mut gathered = vec![Unorm4::default(); n];
                let mut o = ArrayViewMut::new(e, &mut sampled)?;
                parallel_for_each(e, sample_many(&t.view(), s, &coords, &mut o))?;
                o.synchronize()?;
                drop(o);
                let mut o = ArrayViewMut::new(e, &mut gathered)?;
                parallel_for_each(e, gather_many(&t.view(), s, &coords, &mut o))?;
                o.synchronize()?;
                drop(o);
                results.push((sampled, gathered));
            }
            let (c, g) = (&results[0], &results[1]);
            for k in 0..n {
                let (a, b) = (c.0[k], g.0[k]);
                let d = [a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w]
                    .iter()
                    .fold(0.0f32, |m, x| m.max(x.abs()));
                worst = worst.max(d);
                let tol = if filter == Filter::Linear {
                    1.0 / 256.0
                } else {
                    0.0
                };
                assert!(
                    d <= tol,
                    "{filter:?} {mode:?} at {:?}: CPU {a:?}, Vulkan {b:?}",
                    uv[k]
                );
                assert_eq!(c.1[k], g.1[k], "gather, {mode:?} at {:?}", uv[k]);
            }
        }
    }
    eprintln!("largest difference of a linear sample (8-bit texels): {worst}");
    // Rank 3, 32-bit floats, trilinear.
    let dims = [3, 4, 5];
    let vals: Vec<f32> = (0..60).map(|i| ((i * 29) % 17) as f32 - 8.0).collect();
    let uvw: Vec<Float3> = (0..400)
        .map(|k| {
            let f = |m: usize, d: f32| ((k * m) % 97) as f32 / 97.0 * d - 0.3;
            Float3::new(f(13, 1.6), f(31, 1.7), f(7, 1.5) + 0.0123)
        })
        .collect();
    let e3 = Extent::new([uvw.len()]);
    let c3 = ArrayView::new(e3, &uvw)?;
    for filter in [Filter::Nearest, Filter::Linear] {
        for mode in MODES {
            let mut results = Vec::new();
            for acc in [&cpu, &gpu] {
                let t = Texture::<f32, 3>::from_slice_on(acc, Extent::new(dims), &vals)?;
                let mut out = vec![0.0f32; uvw.len()];
                let mut o = ArrayViewMut::new(e3, &mut out)?;
                let s = Sampler::new(filter, mode);
                parallel_for_each(e3, sample_many_3d(&t.view(), s, &c3, &mut o))?;
                o.synchronize()?;
                drop(o);
                results.push(out);
            }
            for k in 0..uvw.len() {
                let (a, b) = (results[0][k], results[1][k]);
                // Weights with 8 bits of sub-texel precision on the device: texels differ by
                // up to 16, and three weights multiply.
                let tol = if filter == Filter::Linear {
                    16.0 * 3.0 / 256.0
                } else {
                    0.0
                };
                assert!(
                    (a - b).abs() <= tol,
                    "{filter:?} {mode:?} at {:?}: CPU {a}, Vulkan {b}",
                    uvw[k]
                );
            }
        }
    }
    assert_validation_clean();
    Ok(())
}
