//! The device's `VkPipelineCache`: every pipeline is created through it, so the driver compiles
//! a kernel's SPIR-V to machine code once per specialization, and it is kept on disk between
//! runs so a program's second run skips the compilation (tens of milliseconds per kernel on a
//! GPU driver, 10-17 ms on lavapipe).
//!
//! The file lives in `AMP_PIPELINE_CACHE` (a folder; `0` turns the disk cache off), else in
//! `$XDG_CACHE_HOME/amp-rs`, else `$HOME/.cache/amp-rs`, one file per device model and driver
//! (named after the vendor, device id and `pipelineCacheUUID`). A file whose header does not
//! match the device is ignored, as a driver would; it is written atomically (a temporary file
//! renamed over it), when new pipelines were compiled, at most once a second.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ash::vk;

use crate::sync::lock;

/// The header Vulkan puts at the start of pipeline cache data (version one): length 32,
/// version 1, vendor id, device id, `pipelineCacheUUID`.
const HEADER_BYTES: usize = 32;

/// How often the cache is written at most.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// A device's pipeline cache and where it is saved.
pub(crate) struct DriverCache {
    pub(crate) handle: vk::PipelineCache,
    /// The expected header of the data (see [`HEADER_BYTES`]).
    header: [u8; HEADER_BYTES],
    file: Option<PathBuf>,
    /// When the cache was last saved, and whether pipelines were created since.
    saved: Mutex<(Option<Instant>, bool)>,
}

impl DriverCache {
    /// Creates the cache of `device`, seeded from its file where one matches.
    ///
    /// # Safety
    /// `device` is a live device of a physical device with these `props`.
    pub(crate) unsafe fn create(
        device: &ash::Device,
        props: &vk::PhysicalDeviceProperties,
    ) -> DriverCache {
        let mut header = [0u8; HEADER_BYTES];
        header[0..4].copy_from_slice(&(HEADER_BYTES as u32).to_le_bytes());
        header[4..8].copy_from_slice(&1u32.to_le_bytes());
        header[8..12].copy_from_slice(&props.vendor_id.to_le_bytes());
        header[12..16].copy_from_slice(&props.device_id.to_le_bytes());
        header[16..32].copy_from_slice(&props.pipeline_cache_uuid);
        let file = device_file(props, "pipelines", ".bin");
        let seed = file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .filter(|data| data.len() >= HEADER_BYTES && data[..HEADER_BYTES] == header)
            .unwrap_or_default();
        let create = |data: &[u8]| {
            let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
            // SAFETY: per the function's contract; the data's header matches this device.
            unsafe { device.create_pipeline_cache(&info, None) }
        };
        // A cache the driver rejects is started empty; without one pipelines are created
        // without a cache.
        let handle = create(&seed)
            .or_else(|_| create(&[]))
            .unwrap_or(vk::PipelineCache::null());
        DriverCache {
            handle,
            header,
            file,
            saved: Mutex::new((None, false)),
        }
    }

    /// Notes that a pipeline was created through the cache, and saves the cache when the last
    /// save is older than [`SAVE_EVERY`].
    pub(crate) fn created(&self, device: &ash::Device) {
        let due = {
            let mut saved = lock(&self.saved);
            saved.1 = true;
            let due = saved.0.is_none_or(|t| t.elapsed() >= SAVE_EVERY);
            if due {
                *saved = (Some(Instant::now()), false);
            }
            due
        };
        if due {
            self.save(device);
        }
    }

    /// Writes the cache to its file (errors are ignored: the cache only saves time).
    fn save(&self, device: &ash::Device) {
        let Some(file) = &self.file else {
            return;
        };
        if self.handle == vk::PipelineCache::null() {
            return;
        }
        // SAFETY: a live cache of this device.
        let Ok(data) = (unsafe { device.get_pipeline_cache_data(self.handle) }) else {
            return;
        };
        if data.len() < HEADER_BYTES || data[..HEADER_BYTES] != self.header {
            return;
        }
        let Some(dir) = file.parent() else {
            return;
        };
        let temporary = dir.join(format!(".pipelines-{}.tmp", std::process::id()));
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&temporary, &data))
            .and_then(|()| std::fs::rename(&temporary, file));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
    }

    /// Saves pipelines created since the last save, then destroys the cache.
    ///
    /// # Safety
    /// No pipeline creation uses the cache any more.
    pub(crate) unsafe fn destroy(&self, device: &ash::Device) {
        if lock(&self.saved).1 {
            self.save(device);
        }
        // SAFETY: per the function's contract.
        unsafe { device.destroy_pipeline_cache(self.handle, None) };
    }
}

/// The file `<stem>-<vendor>-<device>-<pipelineCacheUUID><suffix>` of the device model and
/// driver `props` in the cache folder; `None` when the disk cache is off.
pub(super) fn device_file(
    props: &vk::PhysicalDeviceProperties,
    stem: &str,
    suffix: &str,
) -> Option<PathBuf> {
    let uuid: String = props
        .pipeline_cache_uuid
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    cache_folder().map(|dir| {
        dir.join(format!(
            "{stem}-{:04x}-{:04x}-{uuid}{suffix}",
            props.vendor_id, props.device_id
        ))
    })
}

/// The folder of the cache files, or `None` when the disk cache is off.
fn cache_folder() -> Option<PathBuf> {
    // A folder or `0`: any value is one, so there is nothing to check.
    folder_from(
        crate::config::var("AMP_PIPELINE_CACHE").map(Into::into),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`cache_folder`] from the values of `AMP_PIPELINE_CACHE`, `XDG_CACHE_HOME` and `HOME`.
fn folder_from(
    amp: Option<std::ffi::OsString>,
    xdg: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    let set = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty());
    match set(amp) {
        Some(v) if v == "0" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => set(xdg)
            .map(|x| PathBuf::from(x).join("amp-rs"))
            .or_else(|| set(home).map(|h| PathBuf::from(h).join(".cache").join("amp-rs"))),
    }
}

#[cfg(test)]
mod tests {
    use super::folder_from;
    use std::path::PathBuf;

    #[test]
    fn the_cache_folder_follows_amp_then_xdg_then_home() {
        let s = |v: &str| Some(v.into());
        assert_eq!(folder_from(s("0"), s("/x"), s("/h")), None);
        assert_eq!(
            folder_from(s("/amp"), s("/x"), s("/h")),
            Some(PathBuf::from("/amp"))
        );
        assert_eq!(
            folder_from(None, s("/x"), s("/h")),
            Some(PathBuf::from("/x/amp-rs"))
        );
        assert_eq!(
            folder_from(s(""), None, s("/h")),
            Some(PathBuf::from("/h/.cache/amp-rs"))
        );
        assert_eq!(folder_from(None, None, None), None);
    }
}
