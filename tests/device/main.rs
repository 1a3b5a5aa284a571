//! The run-time device tests in one test binary: one module per area, each the file of the same
//! name in this folder (formerly a test binary of its own), so the runtime is linked once and
//! every test of the group shares one process and one device. Run one area with
//! `cargo test --test device atomics::`, one test with its full name. An unfiltered run covers
//! both back ends: [`every_device_test_on_the_other_accelerator`] reruns the others on the
//! other kind of accelerator.
//!
//! Every test still ends with `assert_validation_clean()` (or asserts
//! `validation_message_count() == 0`): the count is process-wide, so in one process it also
//! proves the tests that ran beside it reported nothing.
//!
//! Tests that need a process of their own stay separate binaries in `tests/`: `accelerator` and
//! `robustness` (they re-run their own binary for a test that needs the default device chosen
//! differently, by exact test name), `leaks` (the process's live Vulkan objects and resident
//! memory must stay flat), `timeout` (its long kernels would slow the others down), `pass`
//! (compile-only) and `spirv_val_all` (no device); the compile-fail cases are the `amp-ui`
//! package's (trybuild).

#[path = "../common/mod.rs"]
mod common;

mod algorithms;
mod algorithms_with_fn;
mod asynchrony;
mod atomics;
mod autotune;
mod bool_elems;
mod bounds;
mod control_flow;
mod data_model;
mod device_copy;
mod device_fns;
mod element_variants;
mod elementwise;
mod empty;
mod exact;
mod examples;
mod fences;
mod generics;
mod guard;
mod index_arith;
mod interior;
mod launch_reuse;
mod launch_shapes;
mod lookback;
mod loop_limit;
mod masked_loops;
mod math;
mod matmul;
mod model;
mod named_lengths;
#[cfg(feature = "ndarray")]
mod ndarray_interop;
mod normalized;
mod numeric;
mod onesweep;
mod ping_pong;
mod profiling;
mod quads;
mod read_write;
mod row_blocks;
mod semantics;
mod small_ints;
mod stale_read;
mod structs;
mod subgroup;
mod textures;
mod tile_static_fill;
mod tiled;
mod tiled_contract;
mod tracing_spans;
mod tuples;
mod vector_add_contract;
mod vectors;

/// This binary's tests run on one accelerator, the process's default: this test runs all the
/// others again in a child process on the other kind, so that plain `cargo test` covers both
/// back ends. On a Vulkan device (`AMP_DEVICE=vulkan`, or a GPU by default) the child runs on
/// the native CPU accelerator; on the native accelerator it runs on Vulkan (lavapipe where
/// there is no GPU; `scripts/setup.sh` installs it). A failure names the accelerator and lists
/// the child's failing tests. A filtered run (`cargo test --test device atomics::`) runs on
/// the default accelerator only; run the same filter with `AMP_DEVICE=cpu` or
/// `AMP_DEVICE=vulkan` for the other.
#[test]
fn every_device_test_on_the_other_accelerator() -> Result<(), amp::Error> {
    const NAME: &str = "every_device_test_on_the_other_accelerator";
    let native = amp::Accelerator::default()?.device_path() == "cpu";
    let other = if native { "vulkan" } else { "cpu" };
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["--skip", NAME]).env("AMP_DEVICE", other);
    if other == "cpu" {
        // Validation is a Vulkan matter; the device tests assert it is on when asked for.
        cmd.env_remove("AMP_VALIDATION");
    }
    let out = cmd.output().expect("spawn the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failures = stdout
        .split("\nfailures:\n")
        .last()
        .filter(|_| !out.status.success())
        .unwrap_or("");
    assert!(
        out.status.success() && stdout.contains("test result: ok"),
        "the device tests failed on the {} accelerator (AMP_DEVICE={other}):\n{failures}\n{}",
        if native { "Vulkan" } else { "native" },
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .join("\n")
    );
    Ok(())
}
