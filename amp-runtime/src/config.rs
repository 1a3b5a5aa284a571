//! Process-wide settings: each `AMP_*` environment variable of the runtime, and its typed form
//! in code, [`Config`]. The settings, their kinds and their grammars are one table,
//! `amp_abi::settings::SETTINGS`; an invalid value is an [`Error::InvalidSetting`] that names
//! the variable or the `Config` method it came from. The runtime reads every setting through
//! [`var`], which takes a value
//! applied by `Config::apply` over the environment's, and remembers which settings it read: a
//! setting is read once, at the first use that needs it (the default accelerator is chosen
//! once, the Vulkan instance is made once), so a `Config` applied later cannot change it and
//! says so.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use crate::error::SettingSource;
use crate::Error;
use amp_abi::settings::{Kind, Phase, Value};

/// The settings [`Config::apply`] set (`None`: unset, whatever the environment says), and the
/// names the runtime has read.
struct Settings {
    applied: Vec<(&'static str, Option<String>)>,
    read: Vec<&'static str>,
}

static SETTINGS: Mutex<Settings> = Mutex::new(Settings {
    applied: Vec::new(),
    read: Vec::new(),
});

fn settings() -> std::sync::MutexGuard<'static, Settings> {
    // The lock guards plain data that every update leaves consistent.
    SETTINGS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The value of setting `name` (an `AMP_*` variable): the one a [`Config`] applied, else the
/// environment's. Marks the setting read: the runtime keeps what it made of it.
pub(crate) fn var(name: &'static str) -> Option<String> {
    let value = peek(name);
    latch(name);
    value
}

/// [`var`] without marking the setting read, for a reader that may fail and read it again
/// (the default accelerator is not chosen until a choice succeeds): it calls [`latch`] once
/// the value took effect.
pub(crate) fn peek(name: &'static str) -> Option<String> {
    let s = settings();
    match s.applied.iter().find(|(n, _)| *n == name) {
        Some((_, value)) => value.clone(),
        None => std::env::var(name).ok(),
    }
}

/// Marks setting `name` read: a later [`Config`] cannot change it.
pub(crate) fn latch(name: &'static str) {
    let mut s = settings();
    if !s.read.contains(&name) {
        s.read.push(name);
    }
}

/// The runtime's settings in code, one method per `AMP_*` environment variable (the table in
/// README.md); what a `Config` leaves alone comes from the environment. Apply it before the
/// first use of a device:
///
/// ```no_run
/// use std::time::Duration;
/// amp_runtime::Config::new()
///     .device("cpu")
///     .cpu_threads(4)
///     .launch_timeout(Duration::from_secs(5))
///     .apply()?;
/// # Ok::<(), amp_runtime::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
#[must_use = "a Config does nothing until it is applied"]
pub struct Config {
    settings: Vec<(&'static str, Option<String>)>,
}

impl Config {
    /// A configuration that changes nothing.
    pub fn new() -> Config {
        Config::default()
    }

    fn set(mut self, name: &'static str, value: Option<String>) -> Config {
        self.settings.retain(|(n, _)| *n != name);
        self.settings.push((name, value));
        self
    }

    /// `AMP_DEVICE`: the default accelerator, `"cpu"` (the native one), `"vulkan"` (the
    /// preferred Vulkan device), a case-insensitive part of a device's name, or a
    /// `device_path()`.
    pub fn device(self, device: &str) -> Config {
        self.set("AMP_DEVICE", Some(device.to_owned()))
    }

    /// `AMP_CPU_THREADS`: the threads of the native accelerator's pool (default: every core).
    pub fn cpu_threads(self, threads: usize) -> Config {
        self.set("AMP_CPU_THREADS", Some(threads.to_string()))
    }

    /// `AMP_VULKAN_LIBRARY`: the Vulkan loader library to load instead of the system's.
    pub fn vulkan_library(self, path: &Path) -> Config {
        self.set(
            "AMP_VULKAN_LIBRARY",
            Some(path.to_string_lossy().into_owned()),
        )
    }

    /// `AMP_VALIDATION`: the Khronos validation layer on or off.
    pub fn validation(self, on: bool) -> Config {
        self.set("AMP_VALIDATION", Some(flag_text(on)))
    }

    /// `AMP_SYNC_LAUNCHES`: every launch waits for its work before returning.
    pub fn sync_launches(self, on: bool) -> Config {
        self.set("AMP_SYNC_LAUNCHES", Some(flag_text(on)))
    }

    /// `AMP_LAUNCH_TIMEOUT_MS`: the timeout of new accelerator views, per launch
    /// ([`Duration::ZERO`]: none).
    pub fn launch_timeout(self, timeout: Duration) -> Config {
        self.set(
            "AMP_LAUNCH_TIMEOUT_MS",
            Some(timeout.as_millis().to_string()),
        )
    }

    /// `AMP_FORCE_STAGING`: no zero-copy; every transfer through staging buffers.
    pub fn force_staging(self, on: bool) -> Config {
        self.set("AMP_FORCE_STAGING", Some(flag_text(on)))
    }

    /// `AMP_SIMULATE_DISCRETE`: every Vulkan device behaves as a discrete GPU.
    pub fn simulate_discrete(self, on: bool) -> Config {
        self.set("AMP_SIMULATE_DISCRETE", Some(flag_text(on)))
    }

    /// `AMP_PIPELINE_CACHE`: where compiled pipelines are kept between runs; `None` keeps
    /// them in memory only.
    pub fn pipeline_cache(self, dir: Option<&Path>) -> Config {
        let value = dir.map_or_else(|| "0".to_owned(), |d| d.to_string_lossy().into_owned());
        self.set("AMP_PIPELINE_CACHE", Some(value))
    }

    /// `AMP_FORCE_EXACT_PATHS`: every `f32` division and square root takes the exact path
    /// that corrects a device's imprecise result, and every normalized texel read recovers its
    /// code from a decode moved an ULP, even on a device whose results need no correction, so
    /// that those paths are tested there (slower; for tests).
    pub fn force_exact_paths(self, on: bool) -> Config {
        self.set("AMP_FORCE_EXACT_PATHS", Some(flag_text(on)))
    }

    /// `AMP_PACKED_SMALL_INTS`: kernels hold `bool`, `i8`, `u8`, `i16` and `u16` view elements
    /// packed into 32-bit words (written with atomics) even on devices with 8- and 16-bit
    /// storage, so that the packed form is tested there (for tests).
    pub fn packed_small_ints(self, on: bool) -> Config {
        self.set("AMP_PACKED_SMALL_INTS", Some(flag_text(on)))
    }

    /// `AMP_PIPELINE_ROBUSTNESS`: which pipelines run without the device's robust buffer access
    /// (see [`Robustness`]).
    pub fn pipeline_robustness(self, robustness: Robustness) -> Config {
        self.set(
            "AMP_PIPELINE_ROBUSTNESS",
            Some(robustness.name().to_owned()),
        )
    }

    /// `AMP_WORKGROUP_SIZE`: threads per workgroup of simple kernels on Vulkan devices: 32,
    /// 64, 128, 256, 512 or 1024 (another value is [`Error::InvalidSetting`] when an
    /// accelerator is made), cut to the device's limit (see
    /// [`LaunchShape`](crate::LaunchShape)).
    pub fn workgroup_size(self, threads: u32) -> Config {
        self.set("AMP_WORKGROUP_SIZE", Some(threads.to_string()))
    }

    /// `AMP_ITEMS_PER_THREAD`: indices each thread of a simple kernel runs on Vulkan devices:
    /// 1, 2, 4, 8 or 16 (see [`LaunchShape`](crate::LaunchShape)).
    pub fn items_per_thread(self, items: u32) -> Config {
        self.set("AMP_ITEMS_PER_THREAD", Some(items.to_string()))
    }

    /// `AMP_AUTOTUNE`: whether the first launches of a simple kernel over a large domain (2^20
    /// indices or more) on a Vulkan device try a few launch shapes and keep the fastest for
    /// the kernel's later launches of that size (default: on for GPUs and the simulated
    /// discrete GPU, off for CPU devices; always off where `AMP_WORKGROUP_SIZE` or
    /// `AMP_ITEMS_PER_THREAD` sets the shape; see
    /// [`Accelerator::tuned_shapes`](crate::Accelerator::tuned_shapes)).
    pub fn autotune(self, on: bool) -> Config {
        self.set("AMP_AUTOTUNE", Some(flag_text(on)))
    }

    /// `AMP_VECTOR_ACCESS`: whether simple kernels whose views are each accessed only at the
    /// thread's own index run four indices per step with 16-byte loads and stores on Vulkan
    /// devices (default: on; docs/performance.md). Off, every simple kernel runs one index per
    /// step; the results are the same.
    pub fn vector_access(self, on: bool) -> Config {
        self.set("AMP_VECTOR_ACCESS", Some(flag_text(on)))
    }

    /// `AMP_DEVICE_COPY`: how `amp::copy` copies between two arrays on one Vulkan device
    /// (see [`DeviceCopy`]).
    pub fn device_copy(self, copy: DeviceCopy) -> Config {
        self.set("AMP_DEVICE_COPY", Some(copy.name().to_owned()))
    }

    /// `AMP_HOST_CACHE_MB`: how many MiB of freed large arrays of the native accelerator
    /// (2 MiB and up) the process keeps for reuse, as CUDA's caching allocators keep device
    /// memory (default 512; `0`: every free goes back to the OS at once).
    pub fn host_cache_mb(self, mb: u64) -> Config {
        self.set("AMP_HOST_CACHE_MB", Some(mb.to_string()))
    }

    /// Makes these settings the process's, over the environment's.
    ///
    /// Errors: [`Error::ConfigTooLate`] when the runtime has already read one of them with
    /// another value (it reads each at the first use that needs it); nothing is changed then.
    pub fn apply(self) -> Result<(), Error> {
        let mut s = settings();
        for (name, value) in &self.settings {
            if s.read.contains(name) {
                let current = match s.applied.iter().find(|(n, _)| n == name) {
                    Some((_, v)) => v.clone(),
                    None => std::env::var(name).ok(),
                };
                if current != *value {
                    return Err(Error::ConfigTooLate { setting: name });
                }
            }
        }
        for (name, value) in self.settings {
            s.applied.retain(|(n, _)| *n != name);
            s.applied.push((name, value));
        }
        Ok(())
    }
}

/// Which pipelines run without the device's robust buffer access, where the device lets a
/// pipeline turn it off (`VK_EXT_pipeline_robustness`). Robust access keeps an out-of-bounds
/// access of an `unchecked` kernel inside its buffer; a checked kernel never makes one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Robustness {
    /// Checked kernels without it, `unchecked` ones with the device's default.
    #[default]
    Default,
    /// The same as `Default` (the setting GPUs needed before checked kernels were measured
    /// right without robust access on them).
    CheckedOff,
    /// Every kernel with the device's default, checked ones too.
    On,
    /// Every kernel without it: an `unchecked` kernel's out-of-bounds access is then undefined
    /// behaviour, which its caller promised not to make (for experiments).
    Off,
}

impl Robustness {
    /// The setting's value in `AMP_PIPELINE_ROBUSTNESS`.
    pub fn name(self) -> &'static str {
        match self {
            Robustness::Default => "default",
            Robustness::CheckedOff => "checked-off",
            Robustness::On => "on",
            Robustness::Off => "off",
        }
    }
}

/// How `amp::copy` and `amp::copy_async` copy between two arrays on one Vulkan device: with the
/// driver's copy (`vkCmdCopyBuffer`), or with a kernel of 16-byte loads and stores. Both give
/// the same bytes; they differ in speed by device: an H200 ran the driver's copy at 846 GB/s
/// and a 16-byte copy kernel at 4,200 GB/s (docs/performance.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceCopy {
    /// A kernel on GPUs (and the simulated discrete GPU) for copies of
    /// [`KERNEL_COPY_MIN_BYTES`] or more, the driver's copy on CPU devices (where it is a
    /// `memcpy`) and for smaller copies (where the launch costs more than the bytes).
    #[default]
    Auto,
    /// The driver's copy, always.
    Driver,
    /// A kernel for every copy whose size is whole 4-byte words (for tests and comparisons).
    Kernel,
}

/// The fewest bytes [`DeviceCopy::Auto`] copies with a kernel on a GPU.
pub const KERNEL_COPY_MIN_BYTES: u64 = 1 << 20;

impl DeviceCopy {
    /// The setting's value in `AMP_DEVICE_COPY`.
    pub fn name(self) -> &'static str {
        match self {
            DeviceCopy::Auto => "auto",
            DeviceCopy::Driver => "driver",
            DeviceCopy::Kernel => "kernel",
        }
    }
}

/// `AMP_DEVICE_COPY` (read when a Vulkan device is created).
pub(crate) fn device_copy() -> Result<DeviceCopy, Error> {
    let name = text("AMP_DEVICE_COPY")?;
    Ok([DeviceCopy::Auto, DeviceCopy::Driver, DeviceCopy::Kernel]
        .into_iter()
        .find(|c| Some(c.name()) == name.as_deref())
        .unwrap_or_default())
}

/// `AMP_PIPELINE_ROBUSTNESS` (read when a Vulkan device is created).
pub(crate) fn pipeline_robustness() -> Result<Robustness, Error> {
    let name = text("AMP_PIPELINE_ROBUSTNESS")?;
    Ok([
        Robustness::Default,
        Robustness::CheckedOff,
        Robustness::On,
        Robustness::Off,
    ]
    .into_iter()
    .find(|r| Some(r.name()) == name.as_deref())
    .unwrap_or_default())
}

/// Whether `AMP_FORCE_EXACT_PATHS` is on (read once per process): launches then set the
/// kernels' `FORCE_EXACT_PATHS` specialization constant.
pub(crate) fn force_exact_paths() -> bool {
    static FORCED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| validated_flag("AMP_FORCE_EXACT_PATHS"))
}

/// Whether `AMP_VECTOR_ACCESS` is on (read once per process; on unless set to 0): simple
/// kernels compiled with 16-byte accesses keep them.
pub(crate) fn vector_access() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // An invalid value was refused when the first accelerator was made (`check_all`).
    *ON.get_or_init(|| flag_or("AMP_VECTOR_ACCESS", true).unwrap_or(true))
}

/// Whether `AMP_PACKED_SMALL_INTS` is on (read once per process): pipelines then use the
/// kernels' modules with packed small integers on every device.
pub(crate) fn packed_small_ints() -> bool {
    static FORCED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| validated_flag("AMP_PACKED_SMALL_INTS"))
}

/// Setting `name`'s kind (any text for a name the table does not have).
fn kind(name: &str) -> Kind {
    amp_abi::settings::setting(name).map_or(Kind::Path, |s| s.kind)
}

/// `raw`, setting `name`'s value, parsed by the setting's kind: [`Error::InvalidSetting`],
/// naming where it came from, when it is not a value of that kind.
fn parsed<T>(name: &'static str, raw: &str, take: impl FnOnce(Value<'_>) -> T) -> Result<T, Error> {
    let kind = kind(name);
    match amp_abi::settings::parse(kind, raw) {
        Some(v) => Ok(take(v)),
        None => {
            let applied = settings().applied.iter().any(|(n, _)| *n == name);
            let method = amp_abi::settings::setting(name).and_then(|s| s.config);
            Err(Error::InvalidSetting {
                setting: name,
                value: raw.to_owned(),
                expected: kind.expected(),
                from: match (applied, method) {
                    (true, Some(method)) => SettingSource::Config(method),
                    _ => SettingSource::Environment,
                },
            })
        }
    }
}

/// Flag setting `name` (see [`Kind::Flag`]); marks it read.
pub(crate) fn flag(name: &'static str) -> Result<bool, Error> {
    match var(name) {
        Some(raw) => parsed(name, &raw, |v| v == Value::Flag(true)),
        None => Ok(false),
    }
}

/// Flag setting `name`, `default` when unset; marks it read.
pub(crate) fn flag_or(name: &'static str, default: bool) -> Result<bool, Error> {
    match var(name) {
        Some(raw) if !raw.trim().is_empty() => parsed(name, &raw, |v| v == Value::Flag(true)),
        _ => Ok(default),
    }
}

/// [`flag`] for a reader that has no error to return: every setting was checked when the
/// first accelerator was made ([`check_all`]), which comes before any launch or allocation.
pub(crate) fn validated_flag(name: &'static str) -> bool {
    flag(name).unwrap_or(false)
}

/// Number setting `name` ([`Kind::Count`], [`Kind::Millis`], [`Kind::Mebibytes`]); marks it
/// read. `None`: unset.
pub(crate) fn number(name: &'static str) -> Result<Option<u64>, Error> {
    match var(name) {
        Some(raw) if !raw.trim().is_empty() => parsed(name, &raw, |v| match v {
            Value::Number(n) => Some(n),
            _ => None,
        }),
        _ => Ok(None),
    }
}

/// Text setting `name` (a path, a device, a choice), trimmed; marks it read. `None`: unset,
/// empty, or a [`Kind::PathOrOff`]'s `0`.
pub(crate) fn text(name: &'static str) -> Result<Option<String>, Error> {
    match var(name) {
        Some(raw) if !raw.trim().is_empty() => parsed(name, &raw, |v| match v {
            Value::Text(t) => Some(t.to_owned()),
            _ => None,
        }),
        _ => Ok(None),
    }
}

/// Checks every run-time setting's value, without marking any read: the first invalid one
/// is an [`Error::InvalidSetting`]. Run when an accelerator is made, so an invalid value is
/// an error there, whichever setting it is and whenever the runtime would read it.
pub(crate) fn check_all() -> Result<(), Error> {
    for setting in amp_abi::settings::SETTINGS {
        if setting.phase != Phase::Run {
            continue;
        }
        if let Some(raw) = peek(setting.name) {
            parsed(setting.name, &raw, |_| ())?;
        }
    }
    Ok(())
}

fn flag_text(on: bool) -> String {
    if on { "1" } else { "0" }.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applied_settings_win_until_read_and_a_late_change_is_an_error() {
        // A setting the runtime does not have, so that no other test sees it.
        const NAME: &str = "AMP_TEST_ONLY_SETTING";
        let on = || Config::new().set(NAME, Some("1".into()));
        on().apply().unwrap();
        assert_eq!(var(NAME).as_deref(), Some("1"));
        // The same value again is fine; another one is too late.
        on().apply().unwrap();
        let late = Config::new().set(NAME, None).apply();
        assert!(
            matches!(late, Err(Error::ConfigTooLate { setting }) if setting == NAME),
            "{late:?}"
        );
        assert_eq!(var(NAME).as_deref(), Some("1"));
        let msg = Error::ConfigTooLate { setting: NAME }.to_string();
        assert!(msg.contains(NAME) && msg.contains("before"), "{msg}");
    }
}
