//! Profiling aid for `amp::algorithms`: times sum, histogram, exclusive scan, sort, `copy_if!`
//! and `reduce_by_key!` of `N` elements (default 16M) beside a vector add over the same `N`, in
//! one process, and prints each one's bandwidth relative to the vector add's (the yardstick for
//! the bandwidth-bound rows); `copy` times `amp::copy` between arrays and copy and vector-add
//! kernels of 4- and 16-byte elements; `phases` times the steps of the flags-scan-scatter form
//! of `copy_if!` and a zeroed allocation one by one; `runs` times threads that each sum or scan
//! a run of 128 consecutive `u32`s, read one word or 16 bytes at a time (the single-pass scan's
//! loops on a CPU device).
//! `cargo run --release -p amp-bench --bin algorithms_probe -- [N] [sum|copy|histogram|scan|runs|sort|sort_by_key|copy_if|reduce_by_key|phases]`.

use amp::algorithms;
use amp::prelude::*;
use std::time::Instant;

#[kernel(amp, unchecked)]
fn add(idx: Index<1>, a: &Array<f32, 1>, b: &Array<f32, 1>, c: &mut Array<f32, 1>) {
    c[idx] = a[idx] + b[idx];
}

#[kernel(amp)]
fn copy_scalar(idx: Index<1>, a: &Array<u32, 1>, c: &mut Array<u32, 1>) {
    c[idx] = a[idx];
}

#[kernel(amp)]
fn copy_section(idx: Index<1>, a: ArrayView<u32, 1>, c: ArrayViewMut<u32, 1>) {
    c[idx] = a[idx];
}

#[kernel(amp)]
fn add_quads(
    idx: Index<1>,
    a: ArrayView<Float4, 1>,
    b: ArrayView<Float4, 1>,
    c: ArrayViewMut<Float4, 1>,
) {
    c[idx] = a[idx] + b[idx];
}

#[kernel(amp, unchecked)]
fn run_sums(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let start = idx[0] * 128;
    let mut s = 0u32;
    for k in 0..128 {
        s += a[start + k];
    }
    out[idx] = s;
}

#[kernel(amp, unchecked)]
fn run_sums_quads(idx: Index<1>, a: ArrayView<UInt4, 1>, out: ArrayViewMut<u32, 1>) {
    let start = idx[0] * 32;
    let mut s = 0u32;
    for k in 0..32 {
        let v = a[start + k];
        s += v.x + v.y + v.z + v.w;
    }
    out[idx] = s;
}

// Each thread writes its own run of 128.
#[kernel(amp, unchecked)]
fn run_scans(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let start = idx[0] * 128;
    let mut s = 0u32;
    for k in 0..128 {
        s += a[start + k];
        out[start + k] = s;
    }
}

#[kernel(amp, unchecked)]
fn run_scans_quads(idx: Index<1>, a: ArrayView<UInt4, 1>, out: ArrayViewMut<UInt4, 1>) {
    let start = idx[0] * 32;
    let mut s = 0u32;
    for k in 0..32 {
        let v = a[start + k];
        let x = s + v.x;
        let y = x + v.y;
        let z = y + v.z;
        s = z + v.w;
        out[start + k] = UInt4::new(x, y, z, s);
    }
}

#[amp::device]
fn ends_in_seven(x: u32) -> bool {
    x % 10 == 7
}

#[amp::device]
fn add_u32(a: u32, b: u32) -> u32 {
    a + b
}

#[kernel(amp)]
fn probe_flags(idx: Index<1>, input: ArrayView<u32, 1>, flags: &mut Array<u32, 1>) {
    flags[idx] = if ends_in_seven(input[idx]) { 1 } else { 0 };
}

#[kernel(amp, allow(write_conflict))]
fn probe_scatter(
    idx: Index<1>,
    input: ArrayView<u32, 1>,
    flags: &Array<u32, 1>,
    positions: &Array<u32, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    if flags[idx] == 1 {
        out[positions[idx] as usize] = input[idx];
    }
}

fn time(mut f: impl FnMut() -> Result<(), amp::Error>) -> Result<f64, amp::Error> {
    f()?;
    let mut v = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        f()?;
        Accelerator::default()?.default_view().wait()?;
        v.push(t.elapsed().as_secs_f64());
    }
    v.sort_by(f64::total_cmp);
    Ok(v[2])
}

fn main() -> Result<(), amp::Error> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(16 << 20);
    let only = args.get(2).cloned().unwrap_or_default();
    let a = Array::from_slice([n], &vec![1.0f32; n])?;
    let b = Array::from_slice([n], &vec![2.0f32; n])?;
    let mut c = Array::<f32, 1>::new([n])?;
    // SAFETY: the kernel indexes only inside its views over this extent.
    let t_add = time(|| parallel_for_each(c.extent(), unsafe { add(&a, &b, &mut c) }))?;
    let add_rate = 12.0 * n as f64 / t_add;
    println!(
        "vector add: {:.2} ms, {:.3} GB/s",
        t_add * 1e3,
        add_rate / 1e9
    );
    let report = |name: &str, secs: f64, bytes: f64| {
        let rate = bytes / secs;
        println!(
            "{name}: {:.2} ms, {:.3} GB/s, {:.2}x the vector add's rate",
            secs * 1e3,
            rate / 1e9,
            rate / add_rate
        );
    };
    let ints = Array::from_slice([n], &(0..n as u32).map(|i| i % 1000).collect::<Vec<_>>())?;
    if only.is_empty() || only == "sum" {
        let t = time(|| algorithms::sum(&ints.view()).map(|_| ()))?;
        report("sum u32", t, 4.0 * n as f64);
        // A view starting one word in cannot be read as 16-byte vectors: one word per load.
        let offset = ints.view().section([1], [n - 1])?;
        let t = time(|| algorithms::sum(&offset).map(|_| ()))?;
        report(
            "sum u32 from the second word (one word per load)",
            t,
            4.0 * n as f64,
        );
    }
    if only.is_empty() || only == "copy" {
        // Between two arrays of the device: the driver's copy or a kernel, as
        // `AMP_DEVICE_COPY` and the device decide.
        let mut out = Array::<u32, 1>::new([n])?;
        let t = time(|| amp::copy(&ints, &mut out))?;
        let by = match Accelerator::default()?.__copies_by_kernel(4 * n as u64) {
            true => "a kernel",
            false => "the driver's copy",
        };
        report(
            &format!("amp::copy array to array, by {by}"),
            t,
            8.0 * n as f64,
        );
        let t = time(|| parallel_for_each(out.extent(), copy_scalar(&ints, &mut out)))?;
        report("copy kernel, one u32 per index", t, 8.0 * n as f64);
        // A copy between sections of `len` elements from `from` and `to`.
        let mut copy_sections = |from: usize, to: usize, len: usize| {
            let (a, mut c) = (ints.view(), out.view_mut());
            let a = a.section([from], [len])?;
            let mut c = c.section_mut([to], [len])?;
            time(|| parallel_for_each(c.extent(), copy_section(&a, &mut c)))
        };
        // From the second word: the kernel's quads start one index early.
        let t = copy_sections(1, 1, n - 1)?;
        report(
            "copy kernel, sections from the second word",
            t,
            8.0 * n as f64,
        );
        // One element apart: no quad starts both views' 16 bytes, so the launch runs one
        // index per step.
        let t = copy_sections(1, 2, n - 2)?;
        report(
            "copy kernel, sections from the second and third words",
            t,
            8.0 * n as f64,
        );
        let (a4, b4) = (
            a.view().reinterpret_as::<Float4>()?,
            b.view().reinterpret_as::<Float4>()?,
        );
        let mut c4 = c.view_mut();
        let mut c4 = c4.reinterpret_as_mut::<Float4>()?;
        let t = time(|| parallel_for_each(c4.extent(), add_quads(&a4, &b4, &mut c4)))?;
        report("vector add, one Float4 per index", t, 12.0 * n as f64);
    }
    if only == "runs" {
        let threads = n / 128;
        let mut sums = Array::<u32, 1>::new([threads])?;
        let mut out = Array::<u32, 1>::new([n])?;
        let t = time(|| {
            parallel_for_each(sums.extent(), unsafe {
                run_sums(&ints.view(), &mut sums.view_mut())
            })
        })?;
        report("runs of 128 u32 summed", t, 4.0 * n as f64);
        let q = ints.view();
        let q = q.reinterpret_as::<UInt4>()?;
        let t = time(|| {
            parallel_for_each(sums.extent(), unsafe {
                run_sums_quads(&q, &mut sums.view_mut())
            })
        })?;
        report("runs of 32 UInt4 summed", t, 4.0 * n as f64);
        let t = time(|| {
            parallel_for_each(sums.extent(), unsafe {
                run_scans(&ints.view(), &mut out.view_mut())
            })
        })?;
        report("runs of 128 u32 scanned", t, 8.0 * n as f64);
        let mut o = out.view_mut();
        let mut o = o.reinterpret_as_mut::<UInt4>()?;
        let t = time(|| parallel_for_each(sums.extent(), unsafe { run_scans_quads(&q, &mut o) }))?;
        report("runs of 32 UInt4 scanned", t, 8.0 * n as f64);
    }
    if only.is_empty() || only == "histogram" {
        let t = time(|| algorithms::histogram(&ints.view(), 256, 0, 1000).map(|_| ()))?;
        report("histogram u32, 256 bins", t, 4.0 * n as f64);
        let offset = ints.view().section([1], [n - 1])?;
        let t = time(|| algorithms::histogram(&offset, 256, 0, 1000).map(|_| ()))?;
        report(
            "histogram u32 from the second word (one word per load)",
            t,
            4.0 * n as f64,
        );
    }
    if only.is_empty() || only == "scan" {
        let mut out = Array::<u32, 1>::new([n])?;
        let t = time(|| algorithms::exclusive_scan(&ints.view(), &mut out.view_mut()))?;
        report("exclusive scan u32 (single pass)", t, 8.0 * n as f64);
        for staged in [false, true] {
            let t = time(|| {
                algorithms::__single_pass_scan(
                    &ints.view(),
                    &mut out.view_mut(),
                    true,
                    64,
                    Some(staged),
                )
            })?;
            report(&format!("single pass, staged {staged}"), t, 8.0 * n as f64);
        }
        let floats = Array::from_slice([n], &vec![1.0f32; n])?;
        let mut out = Array::<f32, 1>::new([n])?;
        let t = time(|| algorithms::exclusive_scan(&floats.view(), &mut out.view_mut()))?;
        report("exclusive scan f32 (reduce-then-scan)", t, 8.0 * n as f64);
    }
    if only.is_empty() || only == "sort" {
        // Random keys: every digit of every pass takes every value.
        let random: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(13) ^ (i >> 7))
            .collect();
        let random = Array::from_slice([n], &random)?;
        let mut keys = Array::<u32, 1>::new([n])?;
        for (method, name) in [
            (
                algorithms::__SortMethod::Auto,
                "sort u32 (the device's choice)",
            ),
            (algorithms::__SortMethod::FourBit, "sort u32, 4-bit digits"),
            (
                algorithms::__SortMethod::Onesweep { polls: 64 },
                "sort u32, Onesweep",
            ),
        ] {
            let t = time(|| {
                amp::copy(&random, &mut keys)?;
                algorithms::__sort_with(&mut keys.view_mut(), method)
            })?;
            report(name, t, 8.0 * n as f64);
        }
    }
    if only == "sort_by_key" {
        // Random keys with f32 values: the public call (natively plain Rust on the pool) and
        // the 4-bit kernels.
        let keys: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(13) ^ (i >> 7))
            .collect();
        let values: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let (keys, values) = (
            Array::from_slice([n], &keys)?,
            Array::from_slice([n], &values)?,
        );
        let (mut k, mut v) = (Array::<u32, 1>::new([n])?, Array::<f32, 1>::new([n])?);
        for (method, name) in [
            (
                algorithms::__SortMethod::Auto,
                "sort_by_key u32 -> f32 (the default)",
            ),
            (
                algorithms::__SortMethod::FourBit,
                "sort_by_key u32 -> f32, 4-bit kernels",
            ),
        ] {
            let t = time(|| {
                amp::copy(&keys, &mut k)?;
                amp::copy(&values, &mut v)?;
                algorithms::__sort_by_key_with(&mut k.view_mut(), &mut v.view_mut(), method)
            })?;
            report(name, t, 16.0 * n as f64);
        }
        // The rayon baseline: the (key, value) pairs sorted stably by key.
        let pairs: Vec<(u32, f32)> = keys.to_vec()?.into_iter().zip(values.to_vec()?).collect();
        let t = time(|| {
            let mut p = pairs.clone();
            rayon::slice::ParallelSliceMut::par_sort_by_key(&mut p[..], |p| p.0);
            std::hint::black_box(&p);
            Ok(())
        })?;
        report(
            "rayon par_sort_by_key of (u32, f32) pairs (a clone timed with it)",
            t,
            16.0 * n as f64,
        );
    }
    if only.is_empty() || only == "copy_if" {
        let mut out = Array::<u32, 1>::new([n])?;
        let t = time(|| {
            algorithms::copy_if!(u32, &ints.view(), &mut out.view_mut(), ends_in_seven).map(|_| ())
        })?;
        report("copy_if u32", t, 8.0 * n as f64);
    }
    if only == "phases" {
        let mut flags = Array::<u32, 1>::new([n])?;
        let t = time(|| parallel_for_each(ints.extent(), probe_flags(&ints.view(), &mut flags)))?;
        report("flags kernel", t, 8.0 * n as f64);
        let t = time(|| Array::<u32, 1>::new([n]).map(|_| ()))?;
        report("Array::new", t, 4.0 * n as f64);
        let mut positions = Array::<u32, 1>::new([n])?;
        let t = time(|| algorithms::exclusive_scan(&flags.view(), &mut positions.view_mut()))?;
        report("scan of flags", t, 8.0 * n as f64);
        let mut out = Array::<u32, 1>::new([n])?;
        let t = time(|| {
            parallel_for_each(
                ints.extent(),
                probe_scatter(&ints.view(), &flags, &positions, &mut out.view_mut()),
            )
        })?;
        report("scatter", t, 12.0 * n as f64);
    }
    if only.is_empty() || only == "reduce_by_key" {
        let keys = Array::from_slice([n], &(0..n as u32).map(|i| i / 32).collect::<Vec<_>>())?;
        let (mut k, mut v) = (Array::<u32, 1>::new([n])?, Array::<u32, 1>::new([n])?);
        let t = time(|| {
            algorithms::reduce_by_key!(
                u32,
                u32,
                &keys.view(),
                &ints.view(),
                &mut k.view_mut(),
                &mut v.view_mut(),
                add_u32
            )
            .map(|_| ())
        })?;
        report("reduce_by_key u32", t, 16.0 * n as f64);
    }
    Ok(())
}
