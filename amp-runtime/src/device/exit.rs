//! Work still running on a device when the process ends. Deferred launches return before
//! their work ran, so a program may end (its `main` returns, or it calls
//! `std::process::exit`) with batches in flight. The devices are process-wide and never
//! destroyed, but a driver's own exit-time teardown (its static destructors) then runs while
//! its worker threads still execute those batches: Mesa's lavapipe crashes the ending process
//! that way (a double free or a segmentation fault after `main` returned). An exit hook,
//! registered when the first device is opened and so run before the teardown of the drivers
//! loaded before it, waits for every open device's submitted work first; it is registered once
//! more when the first batch finished, to run before the teardown a driver registers at its
//! first compile too.
//!
//! A driver's compiler registers that teardown when it first compiles, which lavapipe does on
//! its own thread at a kernel's first dispatch: a process that ends before any batch finished
//! ran the compiler's teardown first and crashed in the compile still running (one ending
//! process in about twenty, with Mesa's shader cache off). So each thread that submits work
//! also waits for every open device's submitted work when it ends: the C library runs the
//! ending thread's thread-local destructors before any exit handler.

use std::sync::{MutexGuard, Once, OnceLock};

use ash::vk;

use super::submit::{default_timeout, timeout_nanos};
use super::Device;
use crate::sync::lock;

/// The hook [`at_exit`] registered, for [`again_after_first_work`].
static HOOK: OnceLock<extern "C" fn()> = OnceLock::new();

/// What a thread that submitted work runs when it ends ([`at_exit`]'s `wait`): passed in by
/// the accelerator module, which depends on this one (no module cycle).
static AT_THREAD_END: OnceLock<fn()> = OnceLock::new();

/// Registers `hook` (the accelerator module's, which waits for each open device's submitted
/// work with [`Device::finish_submitted_at_exit`], and does nothing when it ran already) to
/// run when the process ends, once per process; `wait` (which waits for each open device's
/// submitted work with [`Device::finish_submitted`]) is what each thread that submits work
/// runs when it ends ([`on_submit`]).
pub(super) fn at_exit(hook: extern "C" fn(), wait: fn()) {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        let _ = HOOK.set(hook);
        let _ = AT_THREAD_END.set(wait);
        register(hook);
    });
}

/// Runs the registered wait when the thread that holds it ends.
struct ThreadEnd;

impl Drop for ThreadEnd {
    fn drop(&mut self) {
        if let Some(wait) = AT_THREAD_END.get() {
            wait();
        }
    }
}

thread_local! {
    static THREAD_END: ThreadEnd = const { ThreadEnd };
}

/// Called by a thread that submitted work: when it ends, normally or by ending the process,
/// it waits for every open device's submitted work (once per thread; a thread ending while
/// the process tears its thread-locals down already skips it).
pub(super) fn on_submit() {
    let _ = THREAD_END.try_with(|_| {});
}

/// Registers the exit hook once more, the first time a batch finished. Exit handlers run in
/// the reverse order of their registration, and a driver registers some of its teardown only
/// when it first compiles a kernel (LLVM's lazily made statics, in lavapipe: after the device
/// was opened, at its first dispatch); registered again after that, the hook runs before that
/// teardown, so a kernel still compiling on the driver's threads when the process ends (one
/// recorded late, at its first dispatch) finishes with the compiler intact.
pub(super) fn again_after_first_work() {
    static REGISTERED: Once = Once::new();
    if let Some(&hook) = HOOK.get() {
        REGISTERED.call_once(|| register(hook));
    }
}

fn register(hook: extern "C" fn()) {
    // SAFETY: `atexit` stores a plain function that takes nothing; the hook never unwinds (its
    // locks ignore poisoning and it ignores Vulkan's errors). A failed registration (the C
    // runtime's table is full) leaves the process as it was without this registration.
    unsafe {
        libc::atexit(hook);
    }
}

impl Device {
    /// Waits, up to the launch timeout (`AMP_LAUNCH_TIMEOUT_MS`), until every batch submitted
    /// to the queue finished, and keeps the queue locked so that nothing is submitted after.
    /// Only for the exit hook: the queue stays locked for the rest of the process.
    pub(super) fn finish_submitted_at_exit(&self) {
        let queue = lock(&self.queue);
        self.wait_submitted(*queue, None);
        // Other threads still running while the process ends must not submit more work.
        std::mem::forget(queue);
    }

    /// Waits, up to the launch timeout, until every batch submitted to the queue so far
    /// finished (for a thread that submitted work, when it ends), the queue free for others
    /// while it waits.
    pub(super) fn finish_submitted(&self) {
        let queue = lock(&self.queue);
        self.wait_submitted(*queue, Some(queue));
    }

    /// Submits nothing with a fence on `queue` (the caller holds its lock) and waits for the
    /// fence; `release`, that lock, is dropped before the wait, so that other threads may
    /// submit meanwhile.
    fn wait_submitted(&self, queue: vk::Queue, release: Option<MutexGuard<'_, vk::Queue>>) {
        // SAFETY: the queue is externally synchronized by its lock, held for the submission.
        // An empty submission's fence signals once all work submitted to the queue before it
        // completed (the fence's first synchronization scope includes every earlier
        // submission); the fence is destroyed after its wait, and not at all if the wait timed
        // out (it may still be pending).
        unsafe {
            let Ok(fence) = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
            else {
                return;
            };
            if self.device.queue_submit(queue, &[], fence).is_err() {
                self.device.destroy_fence(fence, None);
                return;
            }
            drop(release);
            let done = self
                .device
                .wait_for_fences(&[fence], true, timeout_nanos(default_timeout()))
                .is_ok();
            if done {
                self.device.destroy_fence(fence, None);
            }
        }
    }
}
