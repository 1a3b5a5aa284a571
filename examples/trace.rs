//! A Chrome / Perfetto trace of a small matrix program: the runtime's spans (pipeline creation
//! at a kernel's first use, each launch, upload, download, batch submission and wait, with the
//! kernel, extent, bytes and device as fields) written by `tracing-chrome` to a JSON file that
//! <https://ui.perfetto.dev> or `chrome://tracing` opens, and beside the host's threads a track
//! of the device's own execution: each launch where the device ran it, from the view's kernel
//! times (timestamp queries on a Vulkan device).
//!
//! ```text
//! cargo run --release -p amp-examples --example trace --features trace -- trace.json
//! ```
//!
//! The runtime installs no subscriber: a program that wants the spans installs one, as here.
//! See docs/tracing.md.
use amp::prelude::*;
use amp::KernelTime;
use std::time::Instant;
use tracing_subscriber::prelude::*;

// The tiled matrix product of the matmul example (16 x 16 tiles staged in `tile_static` memory).
#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul;
use matmul::{matmul_tiled, TS};

#[kernel(amp)]
fn scale(idx: Index<2>, s: f32, c: &mut Array<f32, 2>) {
    c[idx] *= s;
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "trace.json".into());
    // The trace's clock starts when the layer is built: `epoch` places the device's track on it.
    let epoch = Instant::now();
    let (chrome, guard) = tracing_chrome::ChromeLayerBuilder::new()
        .file(&path)
        .include_args(true)
        .build();
    tracing_subscriber::registry().with(chrome).init();

    let n = 256;
    let acc = Accelerator::default()?;
    println!("{n} x {n} matrix products on {}", acc.name());
    // The device's own times of each launch (a device without timestamps has no track).
    let view = acc.default_view();
    if let Err(e) = view.set_profiling(true) {
        println!("no device track: {e}");
    }
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32).collect();
    let a = Array::from_slice_on(&acc, [n, n], &a)?;
    let b = Array::from_slice_on(&acc, [n, n], &b)?;
    let mut c = Array::<f32, 2>::new_on(&acc, [n, n])?;
    for _ in 0..4 {
        let e = c.extent();
        parallel_for_each(
            e.tile::<TS, TS>(),
            matmul_tiled(&a.view(), &b.view(), &mut c.view_mut()),
        )?;
        parallel_for_each(c.extent(), scale(0.5, &mut c))?;
    }
    view.wait()?;
    let c = c.to_vec()?;
    println!("c[0][0] = {}", c[0]);
    let times = view.take_kernel_times()?;
    // The guard writes the end of the trace when it is dropped.
    drop(guard);
    add_device_track(&path, epoch, acc.device_path(), &times)?;
    println!(
        "wrote {path} ({} launches on the device track): open it at https://ui.perfetto.dev \
         or chrome://tracing",
        times.len()
    );
    Ok(())
}

/// Adds the device's execution to the trace at `path` as a track of its own: one complete
/// event per launch, at its start on the host's clock (`KernelTime::start`), as long as it ran.
fn add_device_track(
    path: &str,
    epoch: Instant,
    device: &str,
    times: &[KernelTime],
) -> Result<(), Box<dyn std::error::Error>> {
    if times.is_empty() {
        return Ok(());
    }
    let mut events: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(path)?)?;
    // A track id no host thread has (tracing-chrome numbers threads from 0).
    let tid = u32::MAX;
    events.push(serde_json::json!({
        "ph": "M", "pid": 1, "tid": tid, "name": "thread_name",
        "args": { "name": format!("device {device}") },
    }));
    for t in times {
        events.push(serde_json::json!({
            "ph": "X", "pid": 1, "tid": tid, "name": t.kernel, "cat": "device",
            "ts": t.start.saturating_duration_since(epoch).as_secs_f64() * 1e6,
            "dur": t.seconds * 1e6,
        }));
    }
    std::fs::write(path, serde_json::to_vec(&events)?)?;
    Ok(())
}
