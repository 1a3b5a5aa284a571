//! Autotuned launch shapes (`AMP_AUTOTUNE`, on by default for GPUs): the first launches of a simple kernel over 2^20
//! indices or more try each shape the device's tuner has, and every one of them computes
//! what the host does, bit for bit; the tuner then keeps the shape whose tries were fastest,
//! writes its choice beside the pipeline cache, and a later process starts with it. Each
//! case runs in a process of its own with a fresh cache folder (the tuner belongs to the
//! device, made once per process).

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// Indices per launch: within the size class of 2^20.
const N: usize = (1 << 20) + 12_345;

/// Launches of each kernel: more than the tuner's tries (five shapes at most, two each).
const LAUNCHES: usize = 12;

#[kernel(amp)]
fn mix(idx: Index<1>, seed: u32, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let i = idx[0] as u32;
    if i % 5 == 2 {
        return;
    }
    let h = (a[idx] ^ seed).wrapping_mul(0x9E37_79B9);
    out[idx] = h ^ (h >> 13);
}

fn mix_host(i: usize, seed: u32, a: u32, old: u32) -> u32 {
    if i % 5 == 2 {
        return old;
    }
    let h = (a ^ seed).wrapping_mul(0x9E37_79B9);
    h ^ (h >> 13)
}

#[kernel(amp)]
fn digit_count(idx: Index<1>, counts: ArrayViewMut<u32, 1>) {
    let mut n = idx[0] as u32;
    let mut digits = 0u32;
    while n > 0 {
        digits += 1;
        n /= 10;
    }
    atomic_fetch_add(&mut counts[digits as usize], 1);
}

/// Launches both kernels `launches` times, each launch's results checked against the host.
fn launch_and_check(launches: usize) -> Result<(), amp::Error> {
    let a: Vec<u32> = (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let input = ArrayView::new([N], &a)?;
    let mut out = vec![7u32; N];
    let mut counts = vec![0u32; 8];
    let mut host_counts = [0u32; 8];
    for i in 0..N {
        host_counts[i.max(1).ilog10() as usize + usize::from(i > 0)] += 1;
    }
    for launch in 0..launches {
        let seed = launch as u32 * 31 + 1;
        out.fill(7);
        {
            let mut view = ArrayViewMut::new([N], &mut out)?;
            parallel_for_each(view.extent(), mix(seed, &input, &mut view))?;
            view.synchronize()?;
        }
        for (i, &v) in out.iter().enumerate() {
            assert_eq!(v, mix_host(i, seed, a[i], 7), "mix, launch {launch}, i={i}");
        }
        counts.fill(0);
        {
            let mut view = ArrayViewMut::new([8], &mut counts)?;
            parallel_for_each(Extent::new([N]), digit_count(&mut view))?;
            view.synchronize()?;
        }
        assert_eq!(counts, host_counts, "digit_count, launch {launch}");
    }
    Ok(())
}

#[test]
fn tuned_shapes_compute_what_the_host_does_and_the_fastest_is_kept() -> Result<(), amp::Error> {
    const NAME: &str = "autotune::tuned_shapes_compute_what_the_host_does_and_the_fastest_is_kept";
    const NOT_SET: [&str; 3] = ["AMP_WORKGROUP_SIZE", "AMP_ITEMS_PER_THREAD", "AMP_AUTOTUNE"];
    if common::in_child(NAME) {
        let acc = Accelerator::default()?;
        let expect = std::env::var("AMP_TEST_EXPECT").unwrap_or_default();
        // Unset, tuning is on for GPUs and the simulated discrete GPU only.
        let gpu = acc.device_type() != amp::DeviceType::Cpu
            || std::env::var("AMP_SIMULATE_DISCRETE").is_ok_and(|v| v == "1");
        let expect = match expect.as_str() {
            "default" if gpu => "tuned",
            "default" => "off",
            other => other,
        };
        // A choice read from the file needs no tries; tuning that is off, none either.
        launch_and_check(if expect == "tuned" { LAUNCHES } else { 2 })?;
        let tuned = acc.tuned_shapes();
        match expect {
            "off" => assert!(tuned.is_empty(), "tuning is off: {tuned:?}"),
            "tuned" | "from-file" => {
                let names: Vec<&str> = tuned.iter().map(|t| t.kernel.as_str()).collect();
                assert_eq!(names, ["digit_count", "mix"], "{tuned:?}");
                let loop_limit = acc.limits().max_loop_iterations.is_some();
                for t in &tuned {
                    assert_eq!(t.indices, 1 << 20);
                    let chosen = t.chosen.expect("a choice after every try");
                    assert_eq!(t.from_file, expect == "from-file", "{t:?}");
                    if t.from_file {
                        assert!(t.tried.is_empty());
                        continue;
                    }
                    assert!(t.tried.len() >= 2, "{t:?}");
                    assert_eq!(
                        Some(t.tried[0].shape),
                        acc.launch_shape().map(|s| amp::LaunchShape {
                            items_per_thread: if t.kernel == "digit_count" && loop_limit {
                                1
                            } else {
                                s.items_per_thread
                            },
                            ..s
                        }),
                        "the default is tried first"
                    );
                    let best = t
                        .tried
                        .iter()
                        .min_by(|a, b| a.seconds.unwrap().total_cmp(&b.seconds.unwrap()))
                        .unwrap();
                    assert_eq!(chosen, best.shape, "{t:?}");
                    if t.kernel == "digit_count" && loop_limit {
                        assert!(t.tried.iter().all(|s| s.shape.items_per_thread == 1));
                    }
                }
            }
            other => panic!("unknown expectation {other:?}"),
        }
        assert_validation_clean();
        return Ok(());
    }
    if common::on_native() {
        // The native accelerator has no launch shapes to tune.
        launch_and_check(LAUNCHES)?;
        assert!(Accelerator::default()?.tuned_shapes().is_empty());
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("amp-autotune-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = dir.to_string_lossy().into_owned();
    let run = |expect: &str, extra: &[(&str, &str)]| {
        let mut env = vec![
            ("AMP_PIPELINE_CACHE", cache.as_str()),
            ("AMP_TEST_EXPECT", expect),
        ];
        env.extend_from_slice(extra);
        common::run_child(NAME, &env, &NOT_SET);
    };
    let on = [("AMP_AUTOTUNE", "1")];
    run("tuned", &on);
    let written = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(Result::ok).any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("launch-shapes-")
            })
        })
        .unwrap_or(false);
    assert!(
        written,
        "the tuning file is written beside the pipeline cache"
    );
    run("from-file", &on);
    run("off", &[("AMP_AUTOTUNE", "0")]);
    run(
        "off",
        &[("AMP_AUTOTUNE", "1"), ("AMP_WORKGROUP_SIZE", "128")],
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Unset: the device's default, with a folder of its own (no choices to read).
    let fresh = format!("{cache}-default");
    common::run_child(
        NAME,
        &[
            ("AMP_PIPELINE_CACHE", fresh.as_str()),
            ("AMP_TEST_EXPECT", "default"),
        ],
        &NOT_SET,
    );
    let _ = std::fs::remove_dir_all(&fresh);
    Ok(())
}
