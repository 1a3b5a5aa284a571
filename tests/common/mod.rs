//! What every device test file shares.

/// Every test ends here: validation (when asked for) is on and reported nothing.
#[allow(dead_code)] // not every test binary that includes this module checks validation
pub fn assert_validation_clean() {
    if let Err(e) = validation_clean() {
        panic!("{e}");
    }
}

/// [`assert_validation_clean`] as a `Result`, for property tests (which turn it into a
/// failed case).
#[allow(dead_code)] // not every test binary that includes this module runs property tests
pub fn validation_clean() -> Result<(), String> {
    if std::env::var_os("AMP_VALIDATION").is_some_and(|v| v == "1") && !amp::validation_enabled() {
        return Err("AMP_VALIDATION=1 but the validation layer is not active".into());
    }
    match amp::validation_message_count() {
        0 => Ok(()),
        n => Err(format!("the validation layer reported {n} messages")),
    }
}

/// A small deterministic generator (xorshift64*) of test data, so failures reproduce.
#[allow(dead_code)] // not every test binary that includes this module needs random data
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next_u32() % (hi - lo) as u32) as i32
    }

    pub fn vec_i32(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n).map(|_| self.range(lo, hi)).collect()
    }

    /// An integer in [-8, 8] as an `f32`: products and partial sums of a few are exact.
    pub fn small_f32(&mut self) -> f32 {
        (self.next_u32() % 17) as f32 - 8.0
    }

    /// Uniform in [-1, 1), on a grid of 2^-23.
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

/// Runs the test `name` of this test binary alone in a child process, with `env` set and the
/// variables `unset` removed (for a test that needs the process's default device chosen
/// differently); asserts it ran and passed, and returns its output.
#[allow(dead_code)] // only the binaries with such tests use it
pub fn run_child(name: &str, env: &[(&str, &str)], unset: &[&str]) -> std::process::Output {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = std::process::Command::new(exe);
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("AMP_TEST_CHILD", name);
    for var in unset {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("spawn the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child `{name}` failed or ran no test ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether this process is the child [`run_child`] started for test `name`.
#[allow(dead_code)]
pub fn in_child(name: &str) -> bool {
    std::env::var("AMP_TEST_CHILD").is_ok_and(|v| v == name)
}

/// The value of an `f64` operation where the default device has `shaderFloat64`; elsewhere
/// asserts the operation failed with the typed `MissingCapability` error and gives `None`, so
/// no device skips the check silently.
#[allow(dead_code)] // not every test binary that includes this module runs f64 work
pub fn f64_result<T: std::fmt::Debug>(result: Result<T, amp::Error>) -> Option<T> {
    let supported = amp::Accelerator::default()
        .expect("a Vulkan device")
        .supports_double_precision();
    match result {
        Ok(value) if supported => Some(value),
        Err(amp::Error::MissingCapability {
            capability: "shaderFloat64",
            ..
        }) if !supported => None,
        other => panic!("f64 work on a device with shaderFloat64 = {supported}: {other:?}"),
    }
}

/// Whether the default accelerator is the native CPU one (`AMP_DEVICE=cpu`, or no GPU): the
/// README's test command runs the device tests once on it and once on Vulkan.
#[allow(dead_code)]
pub fn on_native() -> bool {
    amp::Accelerator::default().is_ok_and(|a| a.is_native())
}

/// Ends a test early, saying so, on the native CPU accelerator: for tests of what only Vulkan
/// devices have (textures, queues that run behind the host, data transfers). The same file's
/// other tests run on both.
#[allow(unused_macros)]
macro_rules! vulkan_only {
    ($why:expr) => {
        if crate::common::on_native() {
            eprintln!(
                "Vulkan only ({}): not run on the native CPU accelerator",
                $why
            );
            return Ok(());
        }
    };
}
#[allow(unused_imports)]
pub(crate) use vulkan_only;

/// Returns early from a test of deferred launches (on the native CPU accelerator, whose
/// launches finish before they return, or with `AMP_SYNC_LAUNCHES=1`, which makes every
/// Vulkan launch wait for its work).
#[allow(unused_macros)]
macro_rules! deferred_launches_only {
    () => {
        crate::common::vulkan_only!("native launches finish before they return");
        if std::env::var("AMP_SYNC_LAUNCHES").is_ok_and(|v| v == "1") {
            eprintln!("not run with AMP_SYNC_LAUNCHES=1: every launch waits for its work");
            return Ok(());
        }
    };
}
#[allow(unused_imports)]
pub(crate) use deferred_launches_only;

/// Threads for a launch that must run for at least `at_least` on the device at hand, so tests
/// of long launches (timeouts, asynchrony) do not assume a device's speed: half a second of
/// work on lavapipe is a fraction of a millisecond on a discrete GPU. `run(threads)` launches
/// that many threads of a fixed-length kernel (its pipeline already built) and returns how long
/// the launch took to finish; from `threads` the count grows by powers of two until the shorter
/// of two runs takes `at_least` or the count reaches `max_threads`.
#[allow(dead_code)] // only the binaries with long launches calibrate
pub fn calibrated_threads(
    mut threads: usize,
    max_threads: usize,
    at_least: std::time::Duration,
    mut run: impl FnMut(usize) -> Result<std::time::Duration, amp::Error>,
) -> Result<usize, amp::Error> {
    loop {
        // The shorter of two runs: a first launch at a size can pay for more than its kernel
        // (on NVIDIA's driver a calibration ended on a run 100 times as long as the next).
        let took = run(threads)?.min(run(threads)?);
        if took >= at_least || threads >= max_threads {
            return Ok(threads);
        }
        let factor = (at_least.as_secs_f64() / took.as_secs_f64().max(1e-6)).ceil();
        let factor = (factor as usize).clamp(2, 1 << 10).next_power_of_two();
        threads = (threads * factor).min(max_threads);
    }
}

/// The most threads a calibrated long launch uses: one `u32` each, within one buffer the
/// device can bind and 64M threads.
#[allow(dead_code)]
pub fn max_long_launch_threads(acc: &amp::Accelerator) -> usize {
    (acc.limits().max_storage_buffer_range as usize / 4).min(1 << 26)
}

/// The long-launch kernels' (`spin`) step: a linear congruential step
/// `x * 1_664_525 + 1_013_904_223`, wrapping, then `x ^ (x >> 15)`. The shift keeps compilers from folding steps together
/// (an affine step alone composes with itself, and NVIDIA's compiler shortened 30,000 of them
/// to a fraction of their time).
#[allow(dead_code)] // only the binaries with long launches use it
pub fn spin_step(x: u32) -> u32 {
    let x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    x ^ (x >> 15)
}

/// Checks what a `spin` launch of `steps` steps wrote to `out` (thread `i` starts from `i`):
/// the first and last 64 elements and 1,024 spread between, each stepped on the host.
#[allow(dead_code)] // only the binaries with long launches use it
pub fn assert_spun(out: &[u32], steps: u32) {
    let n = out.len();
    let spread = (0..1024).map(|k| k * n / 1024);
    let ends = (0..64.min(n)).chain(n.saturating_sub(64)..n);
    for i in spread.chain(ends) {
        let want = (0..steps).fold(i as u32, |x, _| spin_step(x));
        assert_eq!(out[i], want, "element {i} of {n} after {steps} steps");
    }
}

/// Whether the default accelerator computes `f32` denormals exactly: it promises to
/// ([`amp::Accelerator::preserves_denormals`]), or it is lavapipe, measured exact though it does
/// not promise. Elsewhere Vulkan lets a device flush denormal operands and results to zero (as
/// NVIDIA's do; docs/semantics.md), and exactness tests leave such cases out.
#[allow(dead_code)] // only the binaries with exactness tests use it
pub fn denormals_exact() -> bool {
    static EXACT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *EXACT.get_or_init(|| {
        amp::Accelerator::default()
            .map(|acc| acc.preserves_denormals() || acc.name().contains("llvmpipe"))
            .unwrap_or(true)
    })
}

/// Whether a case with these `f32` operands and Rust result may differ from Rust only because
/// the device flushes denormals: one of them is denormal and [`denormals_exact`] is false.
#[allow(dead_code)] // only the binaries with exactness tests use it
pub fn flushable32(values: &[f32]) -> bool {
    !denormals_exact() && values.iter().any(|v| v.is_subnormal())
}
