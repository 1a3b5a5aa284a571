//! What the compiler costs: `amp_spirv::compile` on a 50-line kernel.

use std::time::Instant;

use super::{Ctx, Workload};
use crate::glsl::{compile_glsl, G_MM_TILED};
use crate::measure::median;
use crate::report::{fmt_time, Cell, Row};
use crate::BoxError;

/// The build-cost row.
pub struct Build;

impl Workload for Build {
    fn section(&self) -> &'static str {
        "build"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        build_cost(ctx)
    }
}

/// A 50-line kernel for timing the compiler.
pub const BUILD_COST_KERNEL: &str = r#"
#[kernel(amp)]
fn blur_stats(
    t: TiledIndex<16, 16>,
    img: ArrayView<f32, 2>,
    out: ArrayViewMut<f32, 2>,
    hist: ArrayViewMut<u32, 1>,
    scale: f32,
    bias: f32,
) {
    #[tile_static]
    let mut tile: [[f32; 18]; 18];
    #[tile_static]
    let mut counts: [u32; 16];
    let (r, c) = (t.local[0], t.local[1]);
    let rows = img.extent()[0];
    let cols = img.extent()[1];
    if r == 0 {
        counts[c] = 0;
    }
    let gr = t.global[0];
    let gc = t.global[1];
    tile[r + 1][c + 1] = img[[gr, gc]];
    if r == 0 && gr > 0 {
        tile[0][c + 1] = img[[gr - 1, gc]];
    }
    if r == 15 && gr + 1 < rows {
        tile[17][c + 1] = img[[gr + 1, gc]];
    }
    if c == 0 && gc > 0 {
        tile[r + 1][0] = img[[gr, gc - 1]];
    }
    if c == 15 && gc + 1 < cols {
        tile[r + 1][17] = img[[gr, gc + 1]];
    }
    t.barrier.wait();
    let mut sum = 0.0;
    for dr in 0..3 {
        for dc in 0..3 {
            sum += tile[r + dr][c + dc];
        }
    }
    let v = max(min(sum / 9.0 * scale + bias, 1.0), 0.0);
    out[t.global] = v;
    let bucket = min((v * 16.0) as u32, 15);
    atomic_fetch_add(&mut counts[bucket as usize], 1);
    t.barrier.wait();
    if r == 0 {
        atomic_fetch_add(&mut hist[c], counts[c]);
    }
}
"#;

fn build_cost(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let func: syn::ItemFn = syn::parse_str(BUILD_COST_KERNEL)?;
    let reps = if ctx.cfg.tiny { 1 } else { 20 };
    let mut times = Vec::with_capacity(reps);
    let mut words = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let compiled = amp_spirv::compile(&func).map_err(|d| format!("{d:?}"))?;
        times.push(t.elapsed().as_secs_f64());
        words = compiled.spirv.len();
    }
    let t = Instant::now();
    compile_glsl("build_cost_reference", G_MM_TILED)?;
    let tool = t.elapsed().as_secs_f64();
    ctx.push_row(Row {
        name: format!(
            "build cost: `amp_spirv::compile`, {}-line kernel ({words} words); glslang column: \
             `glslangValidator` process on the tiled matmul shader",
            BUILD_COST_KERNEL.trim().lines().count()
        ),
        size: "-".into(),
        amp: Cell::Time {
            secs: median(&mut times),
            rate: None,
        },
        glsl: Cell::Text(format!("{} (whole process)", fmt_time(tool))),
        cpu: Cell::None,
        native: Cell::None,
    });
    Ok(())
}
