//! The tiled-stencil row: a 5 x 5 convolution of an f32 image (1024 x 1024 by default) as a
//! new user writes it in the kernel language, checked (the default), with a `tile_static`
//! halo tile that each 16 x 16 tile loads with clamped edges and one barrier; beside it the
//! same computation in serial plain Rust (the CPU column is one thread on purpose: the native
//! target is that two cores beat one loop of plain Rust clearly, at most 0.75x its time).
//! The kernel has no hand-written GLSL twin.

use amp::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, count, native_cell, timed, Cell, Row, Work};
use crate::BoxError;

/// The tiled-stencil row.
pub struct Conv;

impl Workload for Conv {
    fn section(&self) -> &'static str {
        "conv"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        conv_rows(ctx)
    }
}

/// Tile side and halo width.
const CT: usize = 16;
const CR: usize = 2;
/// The `tile_static` tile's side: the tile and its halo.
const CS: usize = CT + 2 * CR;

#[kernel(amp)]
fn conv5(
    t: TiledIndex<CT, CT>,
    img: ArrayView<f32, 2>,
    w: ArrayView<f32, 2>,
    out: ArrayViewMut<f32, 2>,
) {
    #[tile_static]
    let mut tile: [[f32; CS]; CS];
    let e = img.extent();
    let (ly, lx) = (t.local[0], t.local[1]);
    let mut y = ly;
    while y < CS {
        let mut x = lx;
        while x < CS {
            let gy = (t.tile_origin[0] + y) as i32 - CR as i32;
            let gx = (t.tile_origin[1] + x) as i32 - CR as i32;
            let cy = gy.max(0).min(e[0] as i32 - 1) as usize;
            let cx = gx.max(0).min(e[1] as i32 - 1) as usize;
            tile[y][x] = img[[cy, cx]];
            x += CT;
        }
        y += CT;
    }
    t.barrier.wait();
    let mut sum = 0.0f32;
    for dy in 0..5 {
        for dx in 0..5 {
            sum += tile[ly + dy][lx + dx] * w[[dy, dx]];
        }
    }
    out[t.global] = sum;
}

/// The same convolution in serial plain Rust, in the kernel's order of additions.
fn serial_conv(img: &[f32], w: &[f32], n: usize, out: &mut [f32]) {
    for y in 0..n {
        for x in 0..n {
            let mut sum = 0.0f32;
            for dy in 0..5 {
                for dx in 0..5 {
                    let cy = (y as i32 + dy as i32 - CR as i32).clamp(0, n as i32 - 1) as usize;
                    let cx = (x as i32 + dx as i32 - CR as i32).clamp(0, n as i32 - 1) as usize;
                    sum += img[cy * n + cx] * w[dy * 5 + dx];
                }
            }
            out[y * n + x] = sum;
        }
    }
}

pub fn conv_rows(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let n = if ctx.cfg.tiny {
        128
    } else if ctx.cfg.gpu {
        ctx.cfg.fit_side(8192)
    } else {
        1024
    };
    let img: Vec<f32> = (0..n * n).map(|i| ((i * 37) % 101) as f32 / 7.0).collect();
    let w: Vec<f32> = (0..25).map(|i| (i as f32 - 12.0) / 25.0).collect();
    let extent = Extent::new([n, n]);
    let mut amp_out = vec![0f32; n * n];
    let t_amp = {
        let iv = ArrayView::new([n, n], &img)?;
        let wv = ArrayView::new([5, 5], &w)?;
        let mut ov = ArrayViewMut::new([n, n], &mut amp_out)?;
        let t = ctx.time_amp(|| {
            parallel_for_each(extent.tile::<CT, CT>(), conv5(&iv, &wv, &mut ov))?;
            ov.synchronize()?;
            Ok(())
        })?;
        drop(ov);
        t
    };
    let mut cpu = vec![0f32; n * n];
    let t_cpu = ctx.time(|| {
        serial_conv(&img, &w, n, &mut cpu);
        Ok(())
    })?;
    let native = ctx.native.clone();
    let mut native_out = vec![0f32; n * n];
    let t_native = {
        let iv = ArrayView::new([n, n], &img)?;
        let wv = ArrayView::new([5, 5], &w)?;
        let mut ov = ArrayViewMut::new([n, n], &mut native_out)?;
        ctx.time_native(|| {
            parallel_for_each_on(&native, extent.tile::<CT, CT>(), conv5(&iv, &wv, &mut ov))?;
            Ok(())
        })?
    };
    // 25 multiply-adds per pixel.
    let work = Work::Flops(50.0 * (n * n) as f64);
    ctx.push_row(Row {
        name: "conv 5x5, tile_static halo (tiled, checked; CPU: serial)".into(),
        size: format!("{n} x {n} f32 ({} px)", count(n * n)),
        amp: timed(t_amp, work),
        glsl: Cell::None,
        cpu: timed(t_cpu, work),
        native: native_cell(&t_native, Some(work)),
    });
    ctx.checks
        .push(check("conv 5x5 (bit for bit)", &amp_out, &amp_out, &cpu));
    if t_native.is_ok() {
        ctx.checks
            .push(check_native("conv 5x5 (bit for bit)", &native_out, &cpu));
    }
    Ok(())
}
