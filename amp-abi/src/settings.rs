//! Every setting of amp-rs in one table ([`SETTINGS`]), with one grammar per kind of value
//! ([`parse`]): the runtime's (read at run time, each also a method of `amp::Config`) and the
//! kernel macro's (read while a crate builds). README.md's table of settings is checked
//! against this one.

/// When a setting is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// While a crate with kernels builds (by `#[kernel(amp)]`): no `Config` can set it.
    Build,
    /// At run time, by the runtime: `Config` sets it too.
    Run,
}

/// What a setting's value is, and so how it is parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// On or off: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off` (any case), or empty
    /// (off).
    Flag,
    /// A whole number of at least 1.
    Count,
    /// A whole number of milliseconds; `0` means none (no limit).
    Millis,
    /// A whole number of mebibytes (MiB); `0` means none.
    Mebibytes,
    /// A file or folder (any text).
    Path,
    /// A folder, or `0` for none.
    PathOrOff,
    /// A device: `cpu`, `vulkan`, part of a device's name or a device path (any text).
    Device,
    /// One of the names listed.
    Choice(&'static [&'static str]),
}

impl Kind {
    /// What a value of this kind must be, in an error message's words.
    pub fn expected(self) -> &'static str {
        match self {
            Kind::Flag => "1, true, yes or on; 0, false, no, off or nothing",
            Kind::Count => "a whole number of at least 1",
            Kind::Millis => "a whole number of milliseconds (0: none)",
            Kind::Mebibytes => "a whole number of MiB (0: none)",
            Kind::Path => "a path",
            Kind::PathOrOff => "a folder, or 0 for none",
            Kind::Device => "cpu, vulkan, part of a device's name or a device path",
            Kind::Choice(_) => "one of the names the setting lists",
        }
    }
}

/// A setting's value, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// A [`Kind::Flag`].
    Flag(bool),
    /// A [`Kind::Count`], [`Kind::Millis`] or [`Kind::Mebibytes`].
    Number(u64),
    /// A [`Kind::Path`], [`Kind::Device`] or [`Kind::Choice`] (trimmed), or a
    /// [`Kind::PathOrOff`]'s folder.
    Text(&'a str),
    /// A [`Kind::PathOrOff`]'s `0`.
    Off,
}

/// One setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Its environment variable.
    pub name: &'static str,
    /// When it is read.
    pub phase: Phase,
    /// Its kind of value.
    pub kind: Kind,
    /// The `Config` method that sets it (run-time settings only).
    pub config: Option<&'static str>,
}

const fn run(name: &'static str, kind: Kind, config: &'static str) -> Setting {
    Setting {
        name,
        phase: Phase::Run,
        kind,
        config: Some(config),
    }
}

const fn build(name: &'static str, kind: Kind) -> Setting {
    Setting {
        name,
        phase: Phase::Build,
        kind,
        config: None,
    }
}

/// The values of `AMP_PIPELINE_ROBUSTNESS`.
pub const ROBUSTNESS_MODES: &[&str] = &["default", "checked-off", "on", "off"];

/// The values of `AMP_WORKGROUP_SIZE`: threads per workgroup of simple kernels.
pub const WORKGROUP_SIZES: &[&str] = &["32", "64", "128", "256", "512", "1024"];

/// The values of `AMP_ITEMS_PER_THREAD`: indices each thread of a simple kernel runs.
pub const ITEMS_PER_THREAD: &[&str] = &["1", "2", "4", "8", "16"];

/// The values of `AMP_DEVICE_COPY`.
pub const DEVICE_COPY_MODES: &[&str] = &["auto", "driver", "kernel"];

/// Every setting, in README.md's order.
pub const SETTINGS: &[Setting] = &[
    run("AMP_DEVICE", Kind::Device, "device"),
    run("AMP_CPU_THREADS", Kind::Count, "cpu_threads"),
    run("AMP_VULKAN_LIBRARY", Kind::Path, "vulkan_library"),
    run("AMP_VALIDATION", Kind::Flag, "validation"),
    run("AMP_SYNC_LAUNCHES", Kind::Flag, "sync_launches"),
    run("AMP_LAUNCH_TIMEOUT_MS", Kind::Millis, "launch_timeout"),
    run("AMP_FORCE_STAGING", Kind::Flag, "force_staging"),
    run("AMP_SIMULATE_DISCRETE", Kind::Flag, "simulate_discrete"),
    run("AMP_FORCE_EXACT_PATHS", Kind::Flag, "force_exact_paths"),
    run("AMP_PACKED_SMALL_INTS", Kind::Flag, "packed_small_ints"),
    run(
        "AMP_PIPELINE_ROBUSTNESS",
        Kind::Choice(ROBUSTNESS_MODES),
        "pipeline_robustness",
    ),
    run(
        "AMP_WORKGROUP_SIZE",
        Kind::Choice(WORKGROUP_SIZES),
        "workgroup_size",
    ),
    run(
        "AMP_ITEMS_PER_THREAD",
        Kind::Choice(ITEMS_PER_THREAD),
        "items_per_thread",
    ),
    run("AMP_AUTOTUNE", Kind::Flag, "autotune"),
    run("AMP_VECTOR_ACCESS", Kind::Flag, "vector_access"),
    run(
        "AMP_DEVICE_COPY",
        Kind::Choice(DEVICE_COPY_MODES),
        "device_copy",
    ),
    run("AMP_PIPELINE_CACHE", Kind::PathOrOff, "pipeline_cache"),
    run("AMP_HOST_CACHE_MB", Kind::Mebibytes, "host_cache_mb"),
    build("AMP_DUMP_SPIRV", Kind::Path),
    build("AMP_DUMP_NATIVE", Kind::Path),
    build("AMP_REPORT", Kind::Flag),
];

/// The setting named `name`.
pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.name == name)
}

/// `raw`, the value of a setting of kind `kind`, parsed; `None` when it is not one.
pub fn parse(kind: Kind, raw: &str) -> Option<Value<'_>> {
    let v = raw.trim();
    let any = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(v));
    match kind {
        Kind::Flag if any(&["1", "true", "yes", "on"]) => Some(Value::Flag(true)),
        Kind::Flag if any(&["", "0", "false", "no", "off"]) => Some(Value::Flag(false)),
        Kind::Flag => None,
        Kind::Count => match v.parse::<u64>() {
            Ok(n) if n >= 1 => Some(Value::Number(n)),
            _ => None,
        },
        Kind::Millis | Kind::Mebibytes => v.parse::<u64>().ok().map(Value::Number),
        Kind::Path | Kind::Device => Some(Value::Text(v)),
        Kind::PathOrOff => match v {
            "0" => Some(Value::Off),
            _ => Some(Value::Text(v)),
        },
        Kind::Choice(names) => names.contains(&v).then_some(Value::Text(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_have_one_grammar() {
        for on in ["1", "true", "YES", " on "] {
            assert_eq!(parse(Kind::Flag, on), Some(Value::Flag(true)), "{on}");
        }
        for off in ["", "0", "False", "no", "off"] {
            assert_eq!(parse(Kind::Flag, off), Some(Value::Flag(false)), "{off}");
        }
        for bad in ["2", "y", "enable"] {
            assert_eq!(parse(Kind::Flag, bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_paths_and_choices() {
        assert_eq!(parse(Kind::Count, "4"), Some(Value::Number(4)));
        assert_eq!(parse(Kind::Count, "0"), None);
        assert_eq!(parse(Kind::Count, "four"), None);
        assert_eq!(parse(Kind::Millis, "0"), Some(Value::Number(0)));
        assert_eq!(parse(Kind::Millis, "-1"), None);
        assert_eq!(parse(Kind::PathOrOff, "0"), Some(Value::Off));
        let robustness = Kind::Choice(ROBUSTNESS_MODES);
        assert_eq!(parse(robustness, " off"), Some(Value::Text("off")));
        assert_eq!(parse(robustness, "none"), None);
    }

    #[test]
    fn every_run_time_setting_has_a_config_method_and_names_are_unique() {
        for (i, s) in SETTINGS.iter().enumerate() {
            assert_eq!(s.config.is_some(), s.phase == Phase::Run, "{}", s.name);
            assert!(s.name.starts_with("AMP_"), "{}", s.name);
            assert!(SETTINGS[..i].iter().all(|t| t.name != s.name), "{}", s.name);
        }
    }
}
