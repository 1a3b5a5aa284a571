//! Rodinia's kernels, ported the way a user brings a CUDA program to amp-rs: hotspot (a 2-D
//! thermal stencil, one launch per time step), pathfinder (dynamic programming, one launch per
//! row), nw (Needleman-Wunsch, a blocked wavefront: one tiled launch per anti-diagonal of
//! 16 x 16 blocks, each block walked in `tile_static` memory as the original does in shared
//! memory; the simple form, one launch per anti-diagonal of cells, beside it), lud (LU decomposition, two
//! launches per pivot step), srad (speckle-reducing anisotropic diffusion, two kernels per
//! iteration and the region-of-interest statistics on the host), kmeans (each point's nearest
//! centre), backprop (a layer's weighted sums, tiled, reduced in `tile_static` memory as the
//! original reduces in shared memory) and bfs (frontier expansion, two kernels per level).
//!
//! Each kernel is checked (the default) and runs on the Vulkan device and on the native CPU
//! accelerator. Beside it are two plain-Rust versions of the same computation in the kernel's
//! order of floating-point operations, one serial and one with rayon; all four results are
//! compared with the serial one bit for bit (integer kernels exactly). A row's CPU column is
//! the serial version (the native target is 1.0x of it); the rayon time is a diagnostic of the
//! same workload. The inputs are generated (fixed seeds), not the original's data files.

mod backprop;
mod bfs;
mod hotspot;
mod kmeans;
mod lud;
mod nw;
mod pathfinder;
mod srad;

use amp::prelude::*;

use super::{Ctx, Workload};
use crate::report::{check, check_native, native_cell, timed, Cell, Check, Diagnostic, Native};
use crate::report::{Row, Work};
use crate::BoxError;

/// The Rodinia rows.
pub struct Rodinia;

impl Workload for Rodinia {
    fn section(&self) -> &'static str {
        "rodinia"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        hotspot::row(ctx)?;
        pathfinder::row(ctx)?;
        nw::row(ctx)?;
        lud::row(ctx)?;
        srad::row(ctx)?;
        kmeans::row(ctx)?;
        backprop::row(ctx)?;
        bfs::row(ctx)
    }
}

/// A port's state on one accelerator: its arrays, reset and run in full by `run`, and the
/// result read back by `result`.
trait Port {
    type Out;
    fn run(&mut self) -> Result<(), BoxError>;
    fn result(&self) -> Result<Vec<Self::Out>, BoxError>;
}

/// A time and the result of the run it measured.
type Timed<T> = (f64, Vec<T>);

/// The native column's time (or why it did not run) and its result.
type NativeTimed<T> = (Native, Vec<T>);

/// The Vulkan device's run and the native one.
type OnBoth<T> = (Timed<T>, NativeTimed<T>);

/// What one kernel measured: its four times and its four results.
struct Outcome<T> {
    /// The kernel's Rodinia name (`hotspot`).
    name: &'static str,
    /// What the row runs, after the name.
    what: String,
    size: String,
    work: Work,
    amp: Timed<T>,
    native: NativeTimed<T>,
    serial: Timed<T>,
    rayon: Timed<T>,
}

/// Runs a port on the Vulkan device (`time_amp`) and natively (`time_native`), each on the
/// state `make` builds on that accelerator, and returns both times and results.
fn device_and_native<P: Port>(
    ctx: &Ctx<'_>,
    make: impl Fn(&Accelerator) -> Result<P, BoxError>,
) -> Result<OnBoth<P::Out>, BoxError> {
    let acc = ctx.acc.clone();
    let mut on_device = make(&acc)?;
    let t_amp = ctx.time_amp(|| on_device.run())?;
    let amp_out = on_device.result()?;
    drop(on_device);
    let native = ctx.native.clone();
    let mut natively = make(&native)?;
    let t_native = ctx.time_native(|| natively.run())?;
    let native_out = match t_native {
        Ok(_) => natively.result()?,
        Err(_) => Vec::new(),
    };
    Ok(((t_amp, amp_out), (t_native, native_out)))
}

/// Times `f` as the CPU column is timed and returns the time and the last result.
fn time_cpu<T>(ctx: &Ctx<'_>, mut f: impl FnMut() -> Vec<T>) -> Result<Timed<T>, BoxError> {
    let mut out = Vec::new();
    let t = ctx.time(|| {
        out = f();
        Ok(())
    })?;
    Ok((t, out))
}

/// Adds the row of `o` (CPU column: serial), its rayon diagnostic, and its checks: the amp,
/// native and rayon results against the serial one.
fn record<T: PartialEq + std::fmt::Debug>(ctx: &mut Ctx<'_>, o: Outcome<T>) {
    let Outcome {
        name,
        what,
        size,
        work,
        amp,
        native,
        serial,
        rayon,
    } = o;
    ctx.push_row(Row {
        name: format!("rodinia {name}, {what}"),
        size: size.clone(),
        amp: timed(amp.0, work),
        glsl: Cell::None,
        cpu: timed(serial.0, work),
        native: native_cell(&native.0, Some(work)),
    });
    ctx.diagnostics.push(Diagnostic {
        workload: format!("rodinia {name}"),
        size,
        variant: "rayon: the serial CPU column's computation spread over the cores, \
                  the same results bit for bit"
            .into(),
        secs: rayon.0,
    });
    let label = format!("rodinia {name} (bit for bit)");
    ctx.checks.push(check(&label, &amp.1, &amp.1, &serial.1));
    if native.0.is_ok() {
        ctx.checks.push(check_native(&label, &native.1, &serial.1));
    }
    let diff = (rayon.1.len() != serial.1.len())
        .then(|| format!("length {} vs {}", rayon.1.len(), serial.1.len()))
        .or_else(|| {
            let i = rayon.1.iter().zip(&serial.1).position(|(a, b)| a != b)?;
            Some(format!(
                "element {i}: {:?} vs {:?}",
                rayon.1[i], serial.1[i]
            ))
        });
    ctx.checks.push(Check {
        workload: format!("rodinia {name} (rayon, bit for bit)"),
        agree: diff.is_none(),
        detail: diff.unwrap_or_else(|| "rayon agrees with serial".into()),
    });
}

/// Pseudo-random numbers from a fixed seed (a 64-bit LCG's high bits), for the inputs.
struct Lcg(u64);

impl Lcg {
    fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    /// A value in `[0, 1)` with 24 random bits.
    fn unit(&mut self) -> f32 {
        (self.next_u32() >> 7) as f32 / (1u32 << 24) as f32
    }
}
