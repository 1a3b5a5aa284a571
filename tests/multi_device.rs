//! One launch over several accelerators (`amp::multi`): a vector add, matrix products (simple
//! and tiled) and a stencil with halo rows, split across every accelerator of the machine
//! (lavapipe and the native CPU accelerator here), give the same bits as one device; odd
//! extents, parts with no rows, measured weights, outputs in a view; a failing part and bad
//! input come back as typed errors.
//!
//! Where the machine has one accelerator only, the splits run over two views of it, so every
//! test still splits.

mod common;
use common::{assert_validation_clean, Rng};

use amp::multi::{self, Measured, Options};
use amp::prelude::*;
use amp::{Error, SplitError};

#[kernel(amp)]
fn add(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<i32, 1>, sum: ArrayViewMut<i32, 1>) {
    sum[idx] = a[idx] + b[idx];
}

#[kernel(amp)]
fn matmul(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
    let row = idx[0];
    let col = idx[1];
    let mut sum = 0.0;
    for k in 0..a.extent()[1] {
        sum += a[[row, k]] * b[[k, col]];
    }
    c[idx] = sum;
}

const TS: usize = 8;

include!("support/fixtures/matmul_tiled.rs");

/// A 5-point stencil: `src` holds the part's rows and `rows_before` halo rows before them;
/// `first_row` is the part's first row in the whole grid of `rows` rows. Border cells are
/// copied.
#[kernel(amp)]
fn smooth(
    idx: Index<2>,
    src: ArrayView<f32, 2>,
    dst: ArrayViewMut<f32, 2>,
    rows_before: u32,
    first_row: u32,
    rows: u32,
) {
    let r = idx[0] + rows_before as usize;
    let c = idx[1];
    let global = idx[0] as u32 + first_row;
    let cols = dst.extent()[1];
    if global == 0 || global + 1 == rows || c == 0 || c + 1 == cols {
        dst[idx] = src[[r, c]];
    } else {
        dst[idx] = 0.5 * src[[r, c]]
            + 0.125 * (src[[r - 1, c]] + src[[r + 1, c]] + src[[r, c - 1]] + src[[r, c + 1]]);
    }
}

/// Reads `shift` elements past its index: a part launched with `shift = 1` reads past the end
/// of its view.
#[kernel(amp)]
fn shifted(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, shift: u32) {
    out[idx] = a[[idx[0] + shift as usize]];
}

/// Targets to split over: every accelerator of the machine, or two views of the only one.
fn targets() -> Vec<AcceleratorView> {
    let all = Accelerator::all().expect("the accelerators");
    let targets: Vec<AcceleratorView> = match all.as_slice() {
        [only] => vec![
            only.default_view(),
            only.create_view().expect("a second view"),
        ],
        many => many.iter().map(Accelerator::default_view).collect(),
    };
    let names: Vec<&str> = targets.iter().map(|t| t.accelerator().name()).collect();
    eprintln!("splitting over {names:?}");
    targets
}

/// Every set of targets a result must not depend on: the machine's, and the native
/// accelerator twice (two parts on one accelerator at once).
fn target_sets() -> Vec<Vec<AcceleratorView>> {
    let cpu = Accelerator::cpu().expect("the native accelerator");
    vec![targets(), vec![cpu.default_view(), cpu.default_view()]]
}

fn vector_add_on(
    targets: &[AcceleratorView],
    options: &Options<'_>,
    a: &[i32],
    b: &[i32],
) -> Result<(Vec<i32>, multi::Report), Error> {
    let mut out = vec![i32::MIN; a.len()];
    let report =
        multi::parallel_for_each(targets, [a.len()], options, &mut out[..], |part, out| {
            let a = part.view(a)?;
            let b = part.view(b)?;
            let mut sum = part.view_mut(out)?;
            sum.discard_data();
            parallel_for_each_on(
                part.accelerator_view(),
                part.extent(),
                add(&a, &b, &mut sum),
            )?;
            sum.synchronize()
        })?;
    Ok((out, report))
}

#[test]
fn vector_add_split_matches_one_device() -> Result<(), Error> {
    let mut rng = Rng(0x5eed_0001);
    for n in [100_003, 1, 2, 7] {
        let a = rng.vec_i32(n, -1_000_000, 1_000_000);
        let b = rng.vec_i32(n, -1_000_000, 1_000_000);
        let want: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        for targets in target_sets() {
            // One device, the same code: a split over one target.
            let (alone, _) = vector_add_on(&targets[..1], &Options::new(), &a, &b)?;
            assert_eq!(alone, want);
            let (split, report) = vector_add_on(&targets, &Options::new(), &a, &b)?;
            assert_eq!(split, alone, "n = {n}");
            let expected_parts = n.min(targets.len());
            assert_eq!(report.parts.len(), expected_parts, "{report:?}");
        }
    }
    assert_validation_clean();
    Ok(())
}

fn matmul_on(
    targets: &[AcceleratorView],
    options: &Options<'_>,
    (m, k, n): (usize, usize, usize),
    a: &[f32],
    b: &[f32],
    tiled: bool,
) -> Result<Vec<f32>, Error> {
    let mut c = vec![f32::NAN; m * n];
    multi::parallel_for_each(targets, [m, n], options, &mut c[..], |part, c| {
        let rows = part.extent()[0];
        let a = ArrayView::new([rows, k], part.rows_of(a)?)?;
        let b = ArrayView::new([k, n], b)?;
        let mut c = part.view_mut(c)?;
        c.discard_data();
        let view = part.accelerator_view();
        if tiled {
            parallel_for_each_on(
                view,
                part.extent().tile::<TS, TS>(),
                matmul_tiled(&a, &b, &mut c),
            )?;
        } else {
            parallel_for_each_on(view, part.extent(), matmul(&a, &b, &mut c))?;
        }
        c.synchronize()
    })?;
    Ok(c)
}

#[test]
fn matmul_split_matches_one_device() -> Result<(), Error> {
    let mut rng = Rng(0x5eed_0002);
    // Small integers as floats: every product and partial sum is exact, and each element's
    // sum runs in the same order on every device, so the bits must agree.
    for (shape, tiled) in [
        ((67, 33, 45), false),
        ((1, 5, 3), false),
        ((72, 24, 40), true),
    ] {
        let (m, k, n) = shape;
        let a: Vec<f32> = (0..m * k).map(|_| rng.small_f32()).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.small_f32()).collect();
        let tile_rows = if tiled { TS } else { 1 };
        for targets in target_sets() {
            let weights: Vec<f64> = (0..targets.len()).map(|i| [3.0, 1.0, 2.0][i % 3]).collect();
            let one = Options::new().tile_rows(tile_rows);
            let alone = matmul_on(&targets[..1], &one, shape, &a, &b, tiled)?;
            let even = matmul_on(&targets, &one, shape, &a, &b, tiled)?;
            let weighted = Options::new().weights(&weights).tile_rows(tile_rows);
            let uneven = matmul_on(&targets, &weighted, shape, &a, &b, tiled)?;
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&even), bits(&alone), "{shape:?} tiled {tiled}");
            assert_eq!(bits(&uneven), bits(&alone), "{shape:?} tiled {tiled}");
            let want: Vec<f32> = (0..m * n)
                .map(|i| (0..k).map(|j| a[i / n * k + j] * b[j * n + i % n]).sum())
                .collect();
            assert_eq!(alone, want);
        }
    }
    assert_validation_clean();
    Ok(())
}

/// `steps` steps of the stencil over a `rows x cols` grid, split over `targets`, each part
/// reading one halo row on either side (the two-buffer pattern: each step reads `grid` and
/// writes `next`, then they swap).
fn stencil_on(
    targets: &[AcceleratorView],
    grid: &[f32],
    rows: usize,
    cols: usize,
    steps: usize,
) -> Result<Vec<f32>, Error> {
    let mut grid = grid.to_vec();
    let mut next = vec![f32::NAN; rows * cols];
    for _ in 0..steps {
        let src = &grid;
        multi::parallel_for_each(
            targets,
            [rows, cols],
            &Options::new(),
            &mut next[..],
            |part, dst| {
                let halo = part.view_with_halo(src, 1)?;
                let mut dst = part.view_mut(dst)?;
                dst.discard_data();
                let call = smooth(
                    &halo.view,
                    &mut dst,
                    halo.rows_before as u32,
                    part.rows().start as u32,
                    rows as u32,
                );
                parallel_for_each_on(part.accelerator_view(), part.extent(), call)?;
                dst.synchronize()
            },
        )?;
        std::mem::swap(&mut grid, &mut next);
    }
    Ok(grid)
}

#[test]
fn stencil_split_with_halo_matches_one_device() -> Result<(), Error> {
    let mut rng = Rng(0x5eed_0003);
    for (rows, cols) in [(37, 29), (3, 5), (1, 4)] {
        let grid: Vec<f32> = (0..rows * cols).map(|_| rng.small_f32()).collect();
        for targets in target_sets() {
            let alone = stencil_on(&targets[..1], &grid, rows, cols, 3)?;
            let split = stencil_on(&targets, &grid, rows, cols, 3)?;
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&split), bits(&alone), "{rows} x {cols}");
        }
        // The halo view at the grid's edges stops at the grid.
        let targets = targets();
        let halo_rows = std::sync::Mutex::new(Vec::new());
        multi::parallel_for_each(&targets, [rows, cols], &Options::new(), (), |part, ()| {
            let halo = part.view_with_halo(&grid, 1)?;
            let lock = halo_rows.lock();
            lock.expect("no panic")
                .push((part.rows(), halo.rows_before, halo.view.extent()[0]));
            Ok(())
        })?;
        for (own, before, len) in halo_rows.into_inner().expect("no panic") {
            assert_eq!(before, own.start.min(1));
            assert_eq!(len, own.len() + before + usize::from(own.end < rows));
        }
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn empty_parts_and_domains() -> Result<(), Error> {
    let targets = targets();
    let four: Vec<AcceleratorView> = targets.iter().cycle().take(4).cloned().collect();
    // Three rows over four targets: one part has none and is not run.
    let (out, report) = vector_add_on(&four, &Options::new(), &[1, 2, 3], &[10, 20, 30])?;
    assert_eq!(out, [11, 22, 33]);
    assert_eq!(report.parts.len(), 3);
    // A weight of zero gives a target nothing.
    let zero_last = Options::new().weights(&[1.0, 0.0]);
    let (out, report) = vector_add_on(&targets[..2], &zero_last, &[1, 2], &[3, 4])?;
    assert_eq!(out, [4, 6]);
    assert_eq!(report.parts.len(), 1);
    assert_eq!(report.parts[0].part, 0);
    assert_eq!(report.parts[0].rows, 0..2);
    // An empty domain runs nothing and succeeds.
    let (out, report) = vector_add_on(&targets, &Options::new(), &[], &[])?;
    assert!(out.is_empty() && report.parts.is_empty());
    // Rows of zero elements (a [5, 0] domain) run with empty outputs.
    let mut empty: Vec<i32> = Vec::new();
    multi::parallel_for_each(
        &targets,
        [5, 0],
        &Options::new(),
        &mut empty[..],
        |part, out| {
            assert!(out.is_empty());
            assert_eq!(part.extent()[1], 0);
            Ok(())
        },
    )?;
    assert_validation_clean();
    Ok(())
}

#[test]
fn measured_weights_probe_then_split_by_rate() -> Result<(), Error> {
    let mut rng = Rng(0x5eed_0004);
    let n = 200_001;
    let a = rng.vec_i32(n, -1000, 1000);
    let b = rng.vec_i32(n, -1000, 1000);
    let want: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let targets = targets();
    let measured = Measured::new();
    assert!(measured.rows_per_second().is_none());
    let options = Options::new().measured(&measured);
    // The first launch probes (a round of a few rows each) and splits the rest by the rates.
    let (out, report) = vector_add_on(&targets, &options, &a, &b)?;
    assert_eq!(out, want);
    // A probe round of one part per target, then the rest by rate: a target whose probe
    // ran far slower than another's (a GPU's first launch against the CPU's) may get none.
    let probes = &report.parts[..targets.len()];
    assert!(
        probes.iter().enumerate().all(|(i, p)| p.part == i),
        "{report:?}"
    );
    let rest = report.parts.len() - targets.len();
    assert!((1..=targets.len()).contains(&rest), "{report:?}");
    let covered: usize = report.parts.iter().map(|p| p.rows.len()).sum();
    assert_eq!(covered, n);
    let rates = measured.rows_per_second().expect("measured");
    assert!(
        rates.iter().all(|r| r.is_some_and(|r| r > 0.0)),
        "{rates:?}"
    );
    // Later launches run one round, split by what was measured.
    let (out, report) = vector_add_on(&targets, &options, &a, &b)?;
    assert_eq!(out, want);
    assert!(report.parts.len() <= targets.len(), "{report:?}");
    // A domain too small to probe is split evenly and measured.
    let small = Measured::new();
    let (out, report) =
        vector_add_on(&targets, &Options::new().measured(&small), &[1, 2], &[3, 4])?;
    assert_eq!(out, [4, 6]);
    assert_eq!(report.parts.len(), 2.min(targets.len()));
    assert!(small.rows_per_second().is_some());
    assert_validation_clean();
    Ok(())
}

#[test]
fn outputs_land_in_a_view_and_in_several_slices() -> Result<(), Error> {
    let targets = targets();
    let n = 1001;
    let a: Vec<i32> = (0..n as i32).collect();
    let mut host = vec![0; n];
    let mut view = ArrayViewMut::new([n], &mut host)?;
    let mut second = vec![0; n];
    multi::parallel_for_each(
        &targets,
        [n],
        &Options::new(),
        (view.data_mut()?, &mut second[..]),
        |part, (out, out2)| {
            let a = part.view(&a)?;
            for out in [out, out2] {
                let mut sum = part.view_mut(out)?;
                parallel_for_each_on(
                    part.accelerator_view(),
                    part.extent(),
                    add(&a, &a, &mut sum),
                )?;
                sum.synchronize()?;
            }
            Ok(())
        },
    )?;
    let want: Vec<i32> = (0..n as i32).map(|i| 2 * i).collect();
    assert_eq!(view.to_vec()?, want);
    drop(view);
    assert_eq!(host, want);
    assert_eq!(second, want);
    assert_validation_clean();
    Ok(())
}

#[test]
fn a_failing_part_is_a_typed_error_naming_its_device() -> Result<(), Error> {
    let all = targets();
    let targets = &all[..2];
    let n = 64;
    let a = vec![7; n];
    let mut out = vec![0; n];
    // Part 1 reads one element past its rows: the device reports it, and the split names it.
    let e = multi::parallel_for_each(targets, [n], &Options::new(), &mut out[..], |part, out| {
        let a = part.view(&a)?;
        let mut o = part.view_mut(out)?;
        let shift = u32::from(part.index() == 1);
        parallel_for_each_on(
            part.accelerator_view(),
            part.extent(),
            shifted(&a, &mut o, shift),
        )?;
        o.synchronize()
    })
    .unwrap_err();
    match &e {
        Error::PartFailed {
            part,
            device,
            rows,
            error,
        } => {
            assert_eq!(*part, 1);
            assert_eq!(device, targets[1].accelerator().name());
            assert_eq!(*rows, n / 2..n);
            assert!(
                matches!(**error, Error::IndexOutOfBounds { .. }),
                "{error:?}"
            );
            assert!(e.to_string().contains(device.as_str()), "{e}");
        }
        other => panic!("expected PartFailed, got {other:?}"),
    }
    // The part without the fault still wrote its rows.
    assert!(out[..n / 2].iter().all(|&x| x == 7));
    // An error the closure returns is wrapped the same way.
    let e = multi::parallel_for_each(targets, [n], &Options::new(), (), |part, ()| {
        if part.index() == 0 {
            part.view(&a[1..])?; // not the domain's size
        }
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::PartFailed { part: 0, error, .. } if matches!(**error, Error::ExtentMismatch { .. })),
        "{e:?}"
    );
    // Drain what the faulting launch left on its view.
    let _ = targets[1].wait();
    Ok(())
}

#[test]
fn bad_input_is_a_typed_error() {
    let targets = targets();
    let none: [AcceleratorView; 0] = [];
    let run = |targets: &[AcceleratorView], options: &Options<'_>, out: &mut [i32], n: usize| {
        multi::parallel_for_each(targets, [n], options, out, |_, _| Ok(()))
    };
    let split_error = |r: Result<multi::Report, Error>| match r {
        Err(Error::InvalidSplit(e)) => e,
        other => panic!("expected InvalidSplit, got {other:?}"),
    };
    let mut out = vec![0; 8];
    assert_eq!(
        split_error(run(&none, &Options::new(), &mut out, 8)),
        SplitError::NoAccelerators
    );
    assert!(matches!(
        split_error(run(&targets, &Options::new().weights(&[1.0]), &mut out, 8)),
        SplitError::WeightCount { weights: 1, .. }
    ));
    let mut negative = vec![1.0; targets.len()];
    negative[1] = -1.0;
    assert!(matches!(
        split_error(run(
            &targets,
            &Options::new().weights(&negative),
            &mut out,
            8
        )),
        SplitError::InvalidWeight { index: 1, .. }
    ));
    let zeros = vec![0.0; targets.len()];
    assert_eq!(
        split_error(run(&targets, &Options::new().weights(&zeros), &mut out, 8)),
        SplitError::ZeroWeights
    );
    assert_eq!(
        split_error(run(&targets, &Options::new().tile_rows(0), &mut out, 8)),
        SplitError::ZeroTileRows
    );
    assert!(matches!(
        split_error(run(&targets, &Options::new(), &mut out, 3)),
        SplitError::RowsMismatch {
            len: 8,
            rows: 3,
            ..
        }
    ));
    let e = multi::parallel_for_each(&targets, [0usize; 0], &Options::new(), (), |_, ()| Ok(()));
    assert!(matches!(e, Err(Error::ZeroExtent)), "{e:?}");
    // Nothing was run: the outputs are untouched.
    assert_eq!(out, [0; 8]);
}
