//! Fault injection at the runtime's seams (the `fault-injection` feature): each seam asks
//! whether its failpoint (the `fail` crate's, named by the constants here) is configured to
//! fail now, and then fails the way the real fault would: the same error value on the same
//! path, so a test shows what a user would get. Without the feature the question is not asked
//! and costs nothing.
//!
//! A test configures one with `fail::cfg(NAME, "return")` (every evaluation fails),
//! `"1*return"` (the next one only) or, for [`NATIVE_TASK`], `"panic"`.

// Without the feature only `fires` is used (and answers `false`).
#![cfg_attr(not(feature = "fault-injection"), allow(dead_code))]

/// Allocating a device buffer (arrays, device copies of views, staging, reports):
/// [`Error::OutOfDeviceMemory`](crate::Error::OutOfDeviceMemory).
pub const BUFFER_ALLOC: &str = "amp::buffer-alloc";
/// Allocating host memory for the native CPU accelerator's arrays and textures:
/// [`Error::OutOfDeviceMemory`](crate::Error::OutOfDeviceMemory).
pub const HOST_ALLOC: &str = "amp::host-alloc";
/// `vkQueueSubmit` of a batch returns `VK_ERROR_DEVICE_LOST`: nothing of the batch runs.
pub const SUBMIT: &str = "amp::submit";
/// `vkWaitForFences` for a finished batch returns `VK_ERROR_DEVICE_LOST` (the work did run:
/// the fault is injected after the real wait, so no resource is freed under the device).
pub const WAIT: &str = "amp::wait";
/// A wait for a batch times out at once ([`Error::Timeout`](crate::Error::Timeout)); the batch
/// stays in flight, as after a real timeout.
pub const TIMEOUT: &str = "amp::timeout";
/// Mapping a buffer's memory for a host read or write fails (`VK_ERROR_MEMORY_MAP_FAILED`).
pub const MAP: &str = "amp::map";
/// A task of a native launch (a chunk of its work items, on a pool thread) panics.
pub const NATIVE_TASK: &str = "amp::native-task";

/// Every failpoint, for tests that sweep them.
pub const ALL: [&str; 7] = [
    BUFFER_ALLOC,
    HOST_ALLOC,
    SUBMIT,
    WAIT,
    TIMEOUT,
    MAP,
    NATIVE_TASK,
];

/// `Err(error())` when failpoint `name` fails now.
#[inline(always)]
pub(crate) fn check(name: &str, error: impl FnOnce() -> crate::Error) -> Result<(), crate::Error> {
    match fires(name) {
        true => Err(error()),
        false => Ok(()),
    }
}

/// Whether failpoint `name` fails now (a configured `panic` panics here).
#[inline(always)]
pub(crate) fn fires(name: &str) -> bool {
    #[cfg(feature = "fault-injection")]
    {
        fail::eval(name, |_| ()).is_some()
    }
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = name;
        false
    }
}
