//! Every example under `examples/`, compiled into this test and checked against the results it
//! documents.
//!
//! The examples are included with `#[path]` modules rather than `include!`: they start with
//! inner doc comments (`//!`), which `include!` inside a `mod { }` block rejects (E0753).

use crate::common;
use common::assert_validation_clean;

#[path = "../../examples/array_times10.rs"]
mod array_times10;
#[path = "../../examples/blur.rs"]
mod blur;
#[path = "../../examples/colour.rs"]
mod colour;
#[path = "../../examples/histogram.rs"]
mod histogram;
#[path = "../../examples/index.rs"]
mod index;
#[path = "../../examples/mandelbrot.rs"]
mod mandelbrot;
#[path = "../../examples/matmul.rs"]
mod matmul;
#[path = "../../examples/nbody.rs"]
mod nbody;
#[cfg(feature = "ndarray")]
#[path = "../../examples/ndarray_stencil.rs"]
mod ndarray_stencil;
#[path = "../../examples/vector_add.rs"]
mod vector_add;

#[test]
fn vector_add_example() -> Result<(), amp::Error> {
    assert_eq!(vector_add::run()?, [7, 9, 11, 13, 15]);
    assert_validation_clean();
    Ok(())
}

#[test]
fn index_example() -> Result<(), amp::Error> {
    let r = index::run()?;
    assert_eq!(
        r,
        index::Results {
            rank1: 3,
            rank2: 6,
            rank3: 8,
            rank2_device: 6,
            rank3_device: 8,
            extent: ([3, 2, 2], 12)
        }
    );
    assert_validation_clean();
    Ok(())
}

#[test]
fn array_times10_example() -> Result<(), amp::Error> {
    assert_eq!(array_times10::run()?, [10, 20, 30, 40, 50]);
    assert_validation_clean();
    Ok(())
}

/// The example's default is 1024 x 1024 x 1024, which is slow on a software device in a debug
/// build; 256 x 256 x 256 exercises the same kernel. The inputs are small integers, so every
/// partial sum is exact and the device must match the CPU bit for bit.
#[test]
fn matmul_example() -> Result<(), amp::Error> {
    use matmul::Variant;
    let (m, n, w) = (256, 256, 256);
    let (a, b) = matmul::inputs(m, n, w);
    let (c, _elapsed) = matmul::multiply(Variant::Simple, &a, &b, m, n, w)?;
    let expected = matmul::multiply_cpu(&a, &b, m, n, w);
    assert_eq!(c.len(), m * n);
    assert!(c == expected, "device result differs from the CPU");
    // A non-square case through the same functions.
    let (m, n, w) = (5, 7, 3);
    let (a, b) = matmul::inputs(m, n, w);
    let (c, _) = matmul::multiply(Variant::Simple, &a, &b, m, n, w)?;
    assert_eq!(c, matmul::multiply_cpu(&a, &b, m, n, w));
    assert_validation_clean();
    Ok(())
}

/// Every variant of the example that runs 16 x 16 tiles, at 64 x 64 x 64 (tiled kernels run
/// barriers slowly on a software device), the register-tiled one at ragged sizes, then the `tile_static` kernel with 2 x 2 tiles at the
/// seed's size (C = 2 x 4, W = 6). All exact against the CPU.
#[test]
fn matmul_example_variants() -> Result<(), amp::Error> {
    use matmul::Variant;
    let (m, n, w) = (64, 64, 64);
    let (a, b) = matmul::inputs(m, n, w);
    let expected = matmul::multiply_cpu(&a, &b, m, n, w);
    for variant in [
        Variant::Simple,
        Variant::TiledGlobal,
        Variant::TiledStatic,
        Variant::RegisterTiled,
        Variant::RegisterTiled8,
    ] {
        let (c, _) = matmul::multiply(variant, &a, &b, m, n, w)?;
        assert!(
            c == expected,
            "{variant:?}: device result differs from the CPU"
        );
    }
    // The register-tiled kernels at sizes that are not multiples of their 64 x 64 and 128 x 128
    // blocks or of their 16- and 8-deep steps: the edges load zeros and write nothing.
    for (m, n, w) in [(70, 50, 37), (1, 130, 17), (65, 1, 1), (130, 129, 9)] {
        let (a, b) = matmul::inputs(m, n, w);
        for variant in [Variant::RegisterTiled, Variant::RegisterTiled8] {
            let (c, _) = matmul::multiply(variant, &a, &b, m, n, w)?;
            assert!(
                c == matmul::multiply_cpu(&a, &b, m, n, w),
                "{variant:?}, {m} x {n} x {w}"
            );
        }
    }
    let (m, n, w) = (2, 4, 6);
    let (a, b) = matmul::inputs(m, n, w);
    let (c, _) = matmul::multiply(Variant::TiledStatic2, &a, &b, m, n, w)?;
    assert_eq!(
        c,
        matmul::multiply_cpu(&a, &b, m, n, w),
        "TiledStatic2, 2 x 4 x 6"
    );
    assert_validation_clean();
    Ok(())
}

/// Mandelbrot at 96 x 64: every pixel's iteration count equals the CPU's, the set's inside is
/// there (pixels at the maximum), and the image encodes as a PNG.
#[test]
fn mandelbrot_example() -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (96, 64);
    let view = mandelbrot::View::whole(w, h);
    let counts = mandelbrot::iterations(w, h, view)?;
    assert_eq!(counts, mandelbrot::iterations_cpu(w, h, view));
    let inside = counts
        .iter()
        .filter(|&&n| n == mandelbrot::MAX_ITERATIONS)
        .count();
    assert!(
        inside > w * h / 10 && inside < w * h / 2,
        "{inside} pixels inside"
    );
    let path = std::env::temp_dir().join("amp_mandelbrot_example.png");
    mandelbrot::to_image(&counts, w, h).save(&path)?;
    let back = image::open(&path)?;
    assert_eq!((back.width(), back.height()), (w as u32, h as u32));
    assert_validation_clean();
    Ok(())
}

/// Histogram of 100 003 random bytes (not a multiple of the tile) with 8 tiles: equal to the
/// CPU's, and every value counted once.
#[test]
fn histogram_example() -> Result<(), amp::Error> {
    let data = histogram::random_bytes(100_003);
    let bins = histogram::histogram(&data, 8)?;
    assert_eq!(bins, histogram::histogram_cpu(&data));
    assert_eq!(bins.iter().sum::<u32>(), 100_003);
    assert_validation_clean();
    Ok(())
}

/// 64 bodies, 10 steps: the device's positions match the CPU's (same operations in the same
/// order; only the square root and division may round differently), and the energy barely
/// drifts over so few steps.
#[test]
fn nbody_example() -> Result<(), amp::Error> {
    let start = nbody::initial(64);
    let device = nbody::simulate(&start, 10, 0.001)?;
    let cpu = nbody::simulate_cpu(&start, 10, 0.001);
    let error = nbody::max_position_error(&device, &cpu);
    assert!(error < 1e-4, "device and CPU positions differ by {error}");
    assert_ne!(device.pos, start.pos, "the bodies moved");
    let (e0, e1) = (nbody::energy(&start), nbody::energy(&device));
    let drift = ((e1 - e0) / e0).abs();
    assert!(drift < 1e-3, "relative energy drift {drift}");
    assert_validation_clean();
    Ok(())
}

/// The largest difference between two texel lists, per component.
fn max_diff(a: &[[f32; 4]], b: &[[f32; 4]]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| (0..4).map(move |c| (x[c] - y[c]).abs()))
        .fold(0.0, f32::max)
}

#[test]
fn blur_example_matches_the_cpu_within_one_step_of_8_bits() -> Result<(), Box<dyn std::error::Error>>
{
    use amp::prelude::*;
    let (h, w) = (40, 56);
    let card = blur::test_card(h, w);
    let image = Texture::from_slice(Extent::new([h, w]), &card)?;
    let out = blur::blur(&image, 2.0)?;
    let got: Vec<[f32; 4]> = out
        .to_vec()?
        .into_iter()
        .map(Unorm4::to_f32_array)
        .collect();
    let input: Vec<[f32; 4]> = image
        .to_vec()?
        .into_iter()
        .map(Unorm4::to_f32_array)
        .collect();
    let want = blur::blur_cpu(&input, h, w, 2.0);
    // Linear sampling at texel centres and the device's rounding to 8 bits: one step at most.
    let d = max_diff(&got, &want);
    assert!(d <= 1.0 / 255.0 + 1e-6, "max difference {d}");
    // The blur did something: the checkerboard's edges are softer than in the input.
    assert!(max_diff(&got, &input) > 0.1);
    assert_validation_clean();
    Ok(())
}

#[test]
fn colour_example_matches_the_host_unorm_arithmetic_and_files_round_trip(
) -> Result<(), Box<dyn std::error::Error>> {
    use amp::prelude::*;
    let (h, w) = (17, 23);
    let px: Vec<Unorm4> = (0..h * w)
        .map(|i| {
            let k = i as f32;
            Unorm4::from_f32_array([(k * 0.37) % 1.0, (k * 0.11) % 1.0, (k * 0.73) % 1.0, 1.0])
        })
        .collect();
    let image = Texture::from_slice(Extent::new([h, w]), &px)?;
    let stored = image.to_vec()?;
    let (toned, grey) = colour::convert_image(&image)?;
    let q = |x: f32| (x * 255.0).round() / 255.0;
    let want_toned: Vec<[f32; 4]> = stored
        .iter()
        .map(|&c| colour::sepia(c).to_f32_array().map(q))
        .collect();
    let got_toned: Vec<[f32; 4]> = toned
        .to_vec()?
        .into_iter()
        .map(Unorm4::to_f32_array)
        .collect();
    assert!(max_diff(&got_toned, &want_toned) <= 1.0 / 255.0 + 1e-6);
    // Sepia saturates: the brightest inputs give full red.
    assert!(got_toned.iter().any(|c| c[0] == 1.0));
    let want_grey: Vec<[f32; 4]> = stored
        .iter()
        .map(|&c| [q(colour::luma(c).get()), 0.0, 0.0, 0.0])
        .collect();
    let got_grey: Vec<[f32; 4]> = grey
        .to_vec()?
        .into_iter()
        .map(|g| [g.get(), 0.0, 0.0, 0.0])
        .collect();
    assert!(max_diff(&got_grey, &want_grey) <= 1.0 / 255.0 + 1e-6);

    // PNG out and in again: 8-bit RGBA texels survive exactly.
    let dir = std::env::temp_dir().join(format!("amp-colour-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("sepia.png");
    toned.write_image_file(&path)?;
    let back = Texture::<Unorm4, 2>::from_image_file(&path)?;
    assert_eq!(back.extent(), toned.extent());
    assert_eq!(back.to_vec()?, toned.to_vec()?);
    let err = Texture::<Unorm4, 2>::from_image_file(dir.join("missing.png")).expect_err("no file");
    assert!(matches!(err, amp::Error::ImageFile { .. }), "{err}");
    // An unknown or unwritable format is an error that leaves no file behind.
    for name in ["sepia.xyz", "sepia"] {
        let bad = dir.join(name);
        let err = toned.write_image_file(&bad).expect_err("no such format");
        assert!(matches!(err, amp::Error::ImageFile { .. }), "{err}");
        assert!(!bad.exists(), "{name} was created");
    }
    std::fs::remove_dir_all(&dir)?;
    assert_validation_clean();
    Ok(())
}

/// The ndarray stencil on the device over `ndarray` grids in place matches `ndarray`'s own
/// computation (a few steps of a small grid; the example runs 150 of 128 x 128).
#[cfg(feature = "ndarray")]
#[test]
fn ndarray_stencil_example_matches_ndarray() -> Result<(), amp::Error> {
    let grid = ndarray_stencil::initial(40, 33);
    let expected = ndarray_stencil::steps_ndarray(&grid, 12);
    let got = ndarray_stencil::steps_amp(&grid, 12)?;
    let diff = ndarray_stencil::max_diff(&got, &expected);
    assert!(diff <= 1e-4, "largest difference {diff}");
    assert!(got[[1, 1]] > 0.0, "heat spread from the edges");
    assert_validation_clean();
    Ok(())
}
