//! Transfers between host and device, and their overlap with kernels.

use amp::prelude::*;
use std::time::Instant;

use super::{Ctx, Workload};
use crate::kernels::{churn, fill_one, touch};
use crate::measure::median;
use crate::report::{fmt_time, native_cell, timed, Cell, Check, Row, Work};
use crate::BoxError;

/// The transfer rows.
pub struct Transfers;

impl Workload for Transfers {
    fn section(&self) -> &'static str {
        "transfers"
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
        transfers(ctx)
    }
}

/// Host-to-device (an `ArrayView`'s upload on its first launch) and device-to-host
/// (`ArrayViewMut::synchronize`) against a plain `memcpy` of the same bytes.
fn transfers(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let bytes = ctx.cfg.transfer_bytes();
    let n = bytes / 4;
    let src: Vec<u32> = (0..n as u32).collect();
    let mut out = Array::<u32, 1>::new([1])?;
    // The launch itself, to subtract: a one-element view.
    let one = [7u32];
    let t_launch = ctx.time(|| {
        let v = ArrayView::new([1], &one)?;
        Ok(parallel_for_each(Extent::new([1]), touch(&v, &mut out))?)
    })?;
    let t_up = ctx.time(|| {
        let v = ArrayView::new([n], &src)?;
        Ok(parallel_for_each(Extent::new([1]), touch(&v, &mut out))?)
    })?;
    let mut dst = vec![0u32; n];
    let mut sync_times = Vec::new();
    let reps = if ctx.cfg.tiny {
        1
    } else {
        ctx.cfg.reps.max(3) + 1
    };
    for _ in 0..reps {
        let mut v = ArrayViewMut::new([n], &mut dst)?;
        v.discard_data();
        parallel_for_each(Extent::new([1]), fill_one(&mut v))?;
        let t = Instant::now();
        v.synchronize()?;
        sync_times.push(t.elapsed().as_secs_f64());
    }
    if !ctx.cfg.tiny {
        sync_times.remove(0);
    }
    let t_down = median(&mut sync_times);
    let down_ok = dst[0] == 1;
    let mut copy = vec![0u32; n];
    let t_copy = ctx.time(|| {
        copy.copy_from_slice(&src);
        Ok(())
    })?;
    // Explicit copies between a host slice and a device array (`amp::copy`).
    let mut arr = Array::<u32, 1>::new([n])?;
    let t_to_array = ctx.time(|| Ok(amp::copy(&src[..], &mut arr)?))?;
    let mut back = vec![0u32; n];
    let t_from_array = ctx.time(|| Ok(amp::copy(&arr, &mut back[..])?))?;
    // Between two device arrays in device-local memory: the device's own copy, which the
    // yardsticks' `vkCmdCopyBuffer` and copy kernels measure without amp-rs.
    let mut local_a = Array::<u32, 1>::new_with_access(&ctx.acc, [n], AccessType::None)?;
    let mut local_b = Array::<u32, 1>::new_with_access(&ctx.acc, [n], AccessType::None)?;
    amp::copy(&src[..], &mut local_a)?;
    let t_device_copy = ctx.time(|| Ok(amp::copy(&local_a, &mut local_b)?))?;
    let mut device_back = vec![0u32; n];
    amp::copy(&local_b, &mut device_back[..])?;
    let copies_ok = back == src && device_back == src;
    // The native accelerator: views of host slices are used in place, arrays are host memory.
    let native = ctx.native.clone();
    let mut n_out = Array::<u32, 1>::new_on(&native, [1])?;
    let nt_launch = ctx.time_native(|| {
        let v = ArrayView::new([1], &one)?;
        Ok(parallel_for_each_on(
            &native,
            Extent::new([1]),
            touch(&v, &mut n_out),
        )?)
    })?;
    let nt_up = ctx.time_native(|| {
        let v = ArrayView::new([n], &src)?;
        Ok(parallel_for_each_on(
            &native,
            Extent::new([1]),
            touch(&v, &mut n_out),
        )?)
    })?;
    let mut n_dst = vec![0u32; n];
    let mut n_sync = Vec::new();
    for _ in 0..reps {
        let mut v = ArrayViewMut::new([n], &mut n_dst)?;
        v.discard_data();
        parallel_for_each_on(&native, Extent::new([1]), fill_one(&mut v))?;
        let t = Instant::now();
        v.synchronize()?;
        n_sync.push(t.elapsed().as_secs_f64());
    }
    if !ctx.cfg.tiny {
        n_sync.remove(0);
    }
    let nt_down = median(&mut n_sync);
    let mut n_arr = Array::<u32, 1>::new_on(&native, [n])?;
    let nt_to_array = ctx.time_native(|| Ok(amp::copy(&src[..], &mut n_arr)?))?;
    let mut n_back = vec![0u32; n];
    let nt_from_array = ctx.time_native(|| Ok(amp::copy(&n_arr, &mut n_back[..])?))?;
    let mut n_arr_b = Array::<u32, 1>::new_on(&native, [n])?;
    let nt_device_copy = ctx.time_native(|| Ok(amp::copy(&n_arr, &mut n_arr_b)?))?;
    let native_ok = n_back == src
        && n_dst[0] == 1
        && n_out.to_vec()? == [0]
        && (nt_device_copy.is_err() || n_arr_b.to_vec()? == src);
    // Overlap: a chain of steps, each an upload into its own device array and a kernel on
    // it, against the uploads alone plus the kernels alone. Uploads do not wait for their
    // copies and the host submits recorded work before it copies, so the chain takes less
    // than the sum of its parts where the device runs beside the host.
    let steps = 8;
    let chunk = (n / steps).max(1);
    let rounds = 2u32;
    let view = ctx.acc.default_view();
    let mut arrays = (0..steps)
        .map(|_| Array::<u32, 1>::new_with_access(&ctx.acc, [chunk], AccessType::None))
        .collect::<Result<Vec<_>, _>>()?;
    let piece = |k: usize| &src[k * chunk..(k + 1) * chunk];
    let t_uploads = ctx.time(|| {
        for (k, a) in arrays.iter_mut().enumerate() {
            amp::copy(piece(k), a)?;
        }
        Ok(view.wait()?)
    })?;
    let t_kernels = ctx.time(|| {
        for a in arrays.iter_mut() {
            // SAFETY: the kernel indexes only inside its views over this extent.
            parallel_for_each(a.extent(), unsafe { churn(a, rounds) })?;
        }
        Ok(view.wait()?)
    })?;
    let t_chain = ctx.time(|| {
        for (k, a) in arrays.iter_mut().enumerate() {
            amp::copy(piece(k), a)?;
            // SAFETY: the kernel indexes only inside its views over this extent.
            parallel_for_each(a.extent(), unsafe { churn(a, rounds) })?;
        }
        Ok(view.wait()?)
    })?;
    let lcg = |mut x: u32| {
        for _ in 0..rounds {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        x
    };
    let chain_ok =
        arrays[steps - 1].to_vec()? == piece(steps - 1).iter().map(|&x| lcg(x)).collect::<Vec<_>>();
    let work = Work::Bytes(bytes as f64);
    let mib = format!("{} MiB", bytes >> 20);
    ctx.push_row(Row {
        name: format!(
            "overlap: {steps} x (upload + kernel) chain (CPU column: the uploads alone plus the \
             kernels alone, {} + {})",
            fmt_time(t_uploads),
            fmt_time(t_kernels)
        ),
        size: mib.clone(),
        amp: timed(t_chain, work),
        glsl: Cell::None,
        cpu: timed(t_uploads + t_kernels, work),
        native: Cell::None,
    });
    // Where the device uses host memory in place, views move no bytes at all.
    let zero_copy = ctx.acc.supports_host_memory_import();
    let view_cell = |secs: f64| {
        if zero_copy {
            Cell::Text(format!(
                "zero-copy: kernels use the host slice in place ({} measured)",
                fmt_time(secs)
            ))
        } else {
            timed(secs, work)
        }
    };
    let up = (t_up - t_launch).max(1e-9);
    ctx.push_row(Row {
        name: "host to device: `ArrayView` upload on first launch (launch subtracted)".into(),
        size: mib.clone(),
        amp: view_cell(up),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: match (&nt_up, &nt_launch) {
            (Ok(up), Ok(launch)) => Cell::Text(format!(
                "zero-copy: kernels use the host slice in place ({} measured)",
                fmt_time((up - launch).max(1e-9))
            )),
            (Err(why), _) | (_, Err(why)) => Cell::Unsupported(why.clone()),
        },
    });
    ctx.push_row(Row {
        name: "device to host: `ArrayViewMut::synchronize`".into(),
        size: mib.clone(),
        amp: view_cell(t_down),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: Cell::Text(format!(
            "zero-copy: the kernel wrote the host slice ({} measured)",
            fmt_time(nt_down)
        )),
    });
    ctx.push_row(Row {
        name: "host to device: `amp::copy(&slice, &mut array)` (CPU column: memcpy)".into(),
        size: mib.clone(),
        amp: timed(t_to_array, work),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: native_cell(&nt_to_array, Some(work)),
    });
    ctx.push_row(Row {
        name: "device to host: `amp::copy(&array, &mut slice)` (CPU column: memcpy)".into(),
        size: mib,
        amp: timed(t_from_array, work),
        glsl: Cell::None,
        cpu: timed(t_copy, work),
        native: native_cell(&nt_from_array, Some(work)),
    });
    let both_ways = Work::Bytes(2.0 * bytes as f64);
    ctx.push_row(Row {
        name: "device to device: `amp::copy(&array, &mut array)`, device-local arrays (GB/s: \
               bytes read + written; CPU column: memcpy)"
            .into(),
        size: format!("{} MiB", bytes >> 20),
        amp: timed(t_device_copy, both_ways),
        glsl: Cell::None,
        cpu: timed(t_copy, both_ways),
        native: native_cell(&nt_device_copy, Some(both_ways)),
    });
    ctx.checks.push(Check {
        workload: "transfers".into(),
        agree: down_ok && copies_ok && chain_ok && out.to_vec()? == [0] && copy == src,
        detail: "synchronized view, copied arrays (host and device), the overlap chain and \
                 memcpy hold the data"
            .into(),
    });
    if ctx.cfg.native {
        ctx.checks.push(Check {
            workload: "transfers (native)".into(),
            agree: native_ok,
            detail: "on the native accelerator: synchronized view and copied array hold the data"
                .into(),
        });
    }
    Ok(())
}
