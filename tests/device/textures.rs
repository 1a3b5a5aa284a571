//! Textures on the device (C++ AMP's graphics library): texel reads and writes, extents,
//! sampling with each filter and address mode checked against the same computation on the CPU,
//! 8/16/32-bit formats, out-of-bounds texel accesses, and the run-time errors.

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
    common::vulkan_only!("its textures are made on the default accelerator");
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
    common::vulkan_only!("its textures are made on the default accelerator");
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
    common::vulkan_only!("its textures are made on the default accelerator");
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
    common::vulkan_only!("its textures are made on the default accelerator");
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
