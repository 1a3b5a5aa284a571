//! Synchronization helpers every layer uses: [`lock`] (a mutex lock that ignores poisoning)
//! and [`Busy`] (a count of work in flight that waiters block on).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Locks a mutex, ignoring poisoning (the state it guards stays consistent across panics).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A count of work in flight that waiters block on: the background transfers (`copy_async`)
/// that use a buffer, so host access and launches wait for them even when their future was
/// leaked.
#[derive(Default)]
pub(crate) struct Busy {
    count: Mutex<u32>,
    /// `count`, written under its lock: read without the lock, it lets a launch over a buffer
    /// no transfer uses (the common case) skip the lock.
    active: AtomicU32,
    idle: Condvar,
}

impl Busy {
    /// Marks one more transfer in flight; the guard ends it when dropped.
    pub(crate) fn begin(self: &Arc<Self>) -> BusyGuard {
        let mut n = lock(&self.count);
        *n += 1;
        self.active.store(*n, Ordering::Release);
        drop(n);
        BusyGuard(self.clone())
    }

    /// Blocks until no transfer uses the buffer.
    #[inline]
    pub(crate) fn wait_idle(&self) {
        // No transfer in flight: the same answer the lock would give at this moment (the
        // acquire pairs with the release of the last transfer's end, so its writes are seen).
        if self.active.load(Ordering::Acquire) == 0 {
            return;
        }
        self.wait_idle_locked();
    }

    /// [`Busy::wait_idle`] past its lock-free check.
    #[inline(never)]
    fn wait_idle_locked(&self) {
        let mut n = lock(&self.count);
        while *n > 0 {
            n = self.idle.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// One transfer in flight on a buffer (see [`Busy`]).
pub(crate) struct BusyGuard(Arc<Busy>);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        let mut n = lock(&self.0.count);
        *n = n.saturating_sub(1);
        self.0.active.store(*n, Ordering::Release);
        self.0.idle.notify_all();
    }
}
