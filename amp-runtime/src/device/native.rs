//! The native CPU accelerator's device: a launch team and a `rayon` thread pool that run the
//! Rust code the `#[kernel(amp)]` macro generates beside each kernel's SPIR-V (C++ AMP's WARP,
//! compiled by rustc instead of emulated). One per process; it needs no Vulkan loader.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};

use super::profile::Profiler;
use super::team::Team;
use crate::Error;

/// The environment variable that sets the native pool's thread count.
pub(crate) const THREADS_ENV: &str = "AMP_CPU_THREADS";

/// The device path of the native CPU accelerator (C++ AMP's `accelerator::cpu_accelerator`).
pub(crate) const NATIVE_PATH: &str = "cpu";

/// The stack of the pool's workers and the team's helpers: tile_static memory (up to 32 KiB)
/// and per-thread storage of tiled kernels live on it.
const STACK: usize = 8 << 20;

/// The native CPU device: its launch team, its worker pool and what it reports about itself.
pub(crate) struct NativeDevice {
    /// Runs launches (`team.rs`); `None` with one thread, or when its helpers could not start
    /// (launches then run on the pool).
    team: Option<Team>,
    /// Runs the algorithms' plain-Rust loops, and launches the team is busy for.
    pool: rayon::ThreadPool,
    threads: usize,
    name: String,
    description: String,
    /// The default view's launch count and timing.
    default_view: NativeView,
}

// The pool's handlers (`dyn Fn`, set by rayon's builder) keep it from being unwind-safe by
// default. A panic caught around code that uses the accelerator leaves the pool consistent:
// rayon catches a panicking job on its worker and resumes the panic in the thread that called
// `install`, after the job's scope ended, and the pool holds no state a job can leave half
// written. So the accelerator handles (and the views and arrays that hold one) stay
// `UnwindSafe`/`RefUnwindSafe`, as they were before the native accelerator existed.
impl std::panic::UnwindSafe for NativeDevice {}
impl std::panic::RefUnwindSafe for NativeDevice {}

/// What a view of the native CPU accelerator keeps: its launch count (see
/// `AcceleratorView::submission_count`) and its launches' times.
#[derive(Default)]
pub(crate) struct NativeView {
    /// Launches made on the view.
    pub(crate) launches: AtomicU64,
    /// Whether launches are timed, and their times.
    pub(crate) profiler: Profiler,
}

impl NativeDevice {
    fn create() -> Result<NativeDevice, Error> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        crate::config::check_all()?;
        let threads = match crate::config::number(THREADS_ENV)? {
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
            None => cores,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("amp-cpu-{i}"))
            .stack_size(STACK)
            .build()
            .map_err(|e| Error::NativeUnsupported {
                what: "the native CPU accelerator".into(),
                reason: format!("its thread pool could not start: {e}"),
            })?;
        let name = format!("native CPU ({threads} threads)");
        let description = format!(
            "{name}: kernels compiled to Rust by #[kernel(amp)] and run on a rayon pool \
             ({cores} cores available, {} {})",
            std::env::consts::ARCH,
            std::env::consts::OS
        );
        let team = (threads > 1).then(|| Team::new(threads, STACK)).flatten();
        Ok(NativeDevice {
            team,
            pool,
            threads,
            name,
            description,
            default_view: NativeView::default(),
        })
    }

    /// The process's native device, created on first use.
    pub(crate) fn get() -> Result<Arc<NativeDevice>, Error> {
        static DEVICE: OnceLock<Arc<NativeDevice>> = OnceLock::new();
        // One thread creates it while others wait: a device made twice starts its threads
        // twice only to stop one set again.
        static CREATING: Mutex<()> = Mutex::new(());
        if let Some(d) = DEVICE.get() {
            return Ok(d.clone());
        }
        let _creating = crate::sync::lock(&CREATING);
        if let Some(d) = DEVICE.get() {
            return Ok(d.clone());
        }
        let d = Arc::new(NativeDevice::create()?);
        Ok(DEVICE.get_or_init(|| d).clone())
    }

    /// The launch team, if it has helpers.
    pub(crate) fn team(&self) -> Option<&Team> {
        self.team.as_ref()
    }

    /// The worker pool.
    pub(crate) fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// The pool's thread count.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// The default view's launch count and timing.
    pub(crate) fn default_view(&self) -> &NativeView {
        &self.default_view
    }

    /// The accelerator's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The accelerator's description.
    pub(crate) fn description(&self) -> &str {
        &self.description
    }
}
