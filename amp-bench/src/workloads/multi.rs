//! One launch split over the Vulkan device and the native CPU accelerator together
//! (`amp::multi`), against each of them alone, on host data: a tiled matrix product and a
//! vector add.

use amp::multi::{self, Measured, Options};
use amp::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, fmt_time, Cell, Row};
use crate::BoxError;

/// Tile side of the split matrix product.
const MT: usize = 16;

#[kernel(amp, unchecked)]
fn mm_tiled_views(
    t: TiledIndex<MT, MT>,
    a: ArrayView<f32, 2>,
    b: ArrayView<f32, 2>,
    c: ArrayViewMut<f32, 2>,
) {
    let (row, col) = (t.local[0], t.local[1]);
    #[tile_static]
    let mut loc_a: [[f32; MT]; MT];
    #[tile_static]
    let mut loc_b: [[f32; MT]; MT];
    let mut sum = 0.0;
    let mut i = 0;
    while i < a.extent()[1] {
        loc_a[row][col] = a[[t.global[0], col + i]];
        loc_b[row][col] = b[[row + i, t.global[1]]];
        t.barrier.wait_with_tile_static_memory_fence();
        for k in 0..MT {
            sum += loc_a[row][k] * loc_b[k][col];
        }
        t.barrier.wait_with_tile_static_memory_fence();
        i += MT;
    }
    c[t.global] = sum;
}

#[kernel(amp, unchecked)]
fn vadd_views(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 1>, c: ArrayViewMut<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

/// The split launches.
pub struct Multi;

impl Workload for Multi {
    fn section(&self) -> &'static str {
        "multi-device"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        let n = if ctx.cfg.tiny { 64 } else { 512 };
        let av: Vec<f32> = (0..n * n)
            .map(|i| ((i * 7 + 3) % 17) as f32 - 8.0)
            .collect();
        let bv: Vec<f32> = (0..n * n)
            .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
            .collect();
        let matmul = |targets: &[Accelerator], options: &Options<'_>, c: &mut [f32]| {
            multi::parallel_for_each(targets, [n, n], options, c, |part, c| {
                let a = ArrayView::new([part.extent()[0], n], part.rows_of(&av)?)?;
                let b = ArrayView::new([n, n], &bv)?;
                let mut c = part.view_mut(c)?;
                c.discard_data();
                let domain = part.extent().tile::<MT, MT>();
                parallel_for_each_on(
                    part.accelerator_view(),
                    domain,
                    // SAFETY: the kernel indexes only inside its views over this extent.
                    unsafe { mm_tiled_views(&a, &b, &mut c) },
                )?;
                c.synchronize()
            })
            .map(drop)
        };
        compare(
            ctx,
            "tiled matrix product",
            &format!("{n} x {n} f32"),
            n * n,
            MT,
            &matmul,
        )?;

        let len = ctx.cfg.n() / 4;
        let x: Vec<f32> = (0..len).map(|i| (i % 1000) as f32).collect();
        let y: Vec<f32> = (0..len).map(|i| (i % 7) as f32).collect();
        let vadd = |targets: &[Accelerator], options: &Options<'_>, c: &mut [f32]| {
            multi::parallel_for_each(targets, [len], options, c, |part, c| {
                let a = part.view(&x)?;
                let b = part.view(&y)?;
                let mut c = part.view_mut(c)?;
                c.discard_data();
                parallel_for_each_on(
                    part.accelerator_view(),
                    part.extent(),
                    // SAFETY: the kernel indexes only inside its views over this extent.
                    unsafe { vadd_views(&a, &b, &mut c) },
                )?;
                c.synchronize()
            })
            .map(drop)
        };
        compare(ctx, "vector add", &format!("{len} f32"), len, 1, &vadd)
    }
}

/// A split launch: `(targets, options, output)`.
type SplitRun<'f> = dyn Fn(&[Accelerator], &Options<'_>, &mut [f32]) -> Result<(), amp::Error> + 'f;

/// Times `run` on the Vulkan device alone, on the native accelerator alone, on both split
/// evenly and on both split by measured rates, checks that all four agree bit for bit, and
/// adds one row.
fn compare(
    ctx: &mut Ctx<'_>,
    workload: &str,
    size: &str,
    len: usize,
    tile_rows: usize,
    run: &SplitRun<'_>,
) -> Result<(), BoxError> {
    let vulkan = [ctx.acc.clone()];
    let native = [ctx.native.clone()];
    let both = [ctx.acc.clone(), ctx.native.clone()];
    let even = Options::new().tile_rows(tile_rows);
    let measured = Measured::new();
    let learned = Options::new().tile_rows(tile_rows).measured(&measured);
    let mut outputs = [
        vec![0.0f32; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
    ];
    let [o_vulkan, o_native, o_even, o_measured] = &mut outputs;
    let t_vulkan = ctx.time(|| Ok(run(&vulkan, &even, o_vulkan)?))?;
    let t_native = ctx.time(|| Ok(run(&native, &even, o_native)?))?;
    let t_even = ctx.time(|| Ok(run(&both, &even, o_even)?))?;
    // The warm-up run probes and learns the rates; the timed runs split by them.
    let t_measured = ctx.time(|| Ok(run(&both, &learned, o_measured)?))?;
    let rates = measured.rows_per_second().unwrap_or_default();
    let share: Vec<String> = rates
        .iter()
        .map(|r| r.map_or("-".into(), |r| format!("{:.0}", r)))
        .collect();
    eprintln!(
        "amp-bench: multi-device {workload}: {} alone {}, native alone {}, both even {}, both measured {} (rows/s {})",
        ctx.acc.name(),
        fmt_time(t_vulkan),
        fmt_time(t_native),
        fmt_time(t_even),
        fmt_time(t_measured),
        share.join(" : ")
    );
    let name = format!("multi-device {workload}");
    ctx.checks
        .push(check(&name, &outputs[2], &outputs[3], &outputs[0]));
    ctx.checks
        .push(check_native(&name, &outputs[1], &outputs[0]));
    ctx.push_row(Row {
        name: format!(
            "{name}, host data: {} + native in one `amp::multi` launch, measured split (native column: native alone)",
            ctx.acc.name()
        ),
        size: size.to_owned(),
        amp: Cell::Time {
            secs: t_measured,
            rate: Some(format!("even split {}", fmt_time(t_even)).into()),
        },
        glsl: Cell::Text(format!("{} alone {}", ctx.acc.name(), fmt_time(t_vulkan))),
        cpu: Cell::None,
        native: Cell::Time {
            secs: t_native,
            rate: None,
        },
    });
    Ok(())
}
