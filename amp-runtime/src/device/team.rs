//! The native CPU accelerator's launch team: the thread that launches a kernel and helper
//! threads that stay awake for a moment after each launch, so that a program's next launch
//! starts at once (OpenMP's runtimes do the same: a team spins before it sleeps, for as long
//! as `KMP_BLOCKTIME` or `GOMP_SPINCOUNT` say).
//!
//! Why not the `rayon` pool alone: a launch handed to a pool whose workers sleep waits for the
//! OS to wake one, and the launching thread then sleeps until the last piece is done and is
//! woken in turn. On a 2-core VM that round trip cost 12-13 us, and a worker woken for a piece
//! of 40 us of work often started after the other had finished: a loop of 99 such launches
//! (Rodinia's pathfinder) ran no faster on two threads than on one, and 1,022 small launches
//! (its LU decomposition) spent most of their time there. A team whose helpers spin on the
//! launch counter between launches takes a launch in well under a microsecond, and the
//! launching thread works on the launch itself instead of sleeping beside it.
//!
//! The pieces of a launch are claimed from a shared counter, a share of what is left at a
//! time, by the launching thread and the helpers alike, so a slow or preempted thread holds up
//! only its own share.
//! The launch returns once every piece has run, and resumes on its own thread the first panic
//! any piece raised (generated code does not panic; the fault-injection tests make it).

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sync::lock;

/// How long a helper waits awake for the next launch before it sleeps: long enough for the
/// host code between a program's launches (a loop over pivots or anti-diagonals), short
/// enough that a process between bursts of launches leaves the cores to others.
const AWAKE: Duration = Duration::from_micros(200);

/// Spins between two looks at the clock (and between two offers of the core to another
/// thread, so that a busy machine's other work is not starved by a waiting helper).
const SPINS: u32 = 64;

/// One launch's work: `pieces` calls of `run`, each claimed once.
struct Job {
    /// The launch's piece function, valid until every piece has run (see [`Team::try_run`]).
    run: *const (dyn Fn(usize) + Sync),
    pieces: usize,
    /// The threads that may claim pieces: the launching thread and the helpers.
    members: usize,
    /// The next piece to claim; a claim at or past `pieces` finds none.
    next: AtomicUsize,
    /// Pieces that have run (or panicked).
    done: AtomicUsize,
    /// The first panic a piece raised.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `run` points at a `Sync` closure, and it is called only between a successful claim
// of a piece and that piece's `done` increment, which `Team::try_run` waits for before the
// closure's borrow ends; the rest of `Job` is atomics and a mutex.
unsafe impl Send for Job {}
// SAFETY: as for `Send`: every thread only calls the `Sync` closure or touches atomics and the
// mutex.
unsafe impl Sync for Job {}

impl Job {
    /// Claims and runs pieces until none is left. Each claim takes a share of what is left
    /// (OpenMP's guided schedule): a claim is an atomic operation on a cache line every thread
    /// writes, and one per piece cost a launch of 2,048 pieces of a microsecond each (a tiled
    /// kernel's runs of 16 tiles) as much again as its work; with shares, a thread makes a
    /// few claims, and the last pieces still go one by one to whichever thread is free.
    fn work(&self) {
        let mut next = self.next.load(Ordering::Relaxed);
        loop {
            if next >= self.pieces {
                return;
            }
            let take = ((self.pieces - next) / (2 * self.members)).max(1);
            match self.next.compare_exchange_weak(
                next,
                next + take,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {}
                Err(now) => {
                    next = now;
                    continue;
                }
            }
            // SAFETY: pieces `next..next + take` are claimed and not yet done, so the launch
            // that made this job is still waiting in `Team::try_run` and its closure is alive
            // (see `Job::run`).
            let run = unsafe { &*self.run };
            for k in next..next + take {
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| run(k))) {
                    lock(&self.panic).get_or_insert(p);
                }
            }
            self.done.fetch_add(take, Ordering::Release);
            next = self.next.load(Ordering::Relaxed);
        }
    }
}

/// What the launching thread and the helpers share.
struct Shared {
    /// Bumped by each launch (and by the team's drop, to wake the helpers for good).
    launches: AtomicU64,
    /// The latest launch's job.
    current: Mutex<Option<Arc<Job>>>,
    /// Helpers asleep (or about to be).
    sleeping: AtomicUsize,
    stop: AtomicBool,
}

/// The launching thread's helpers: `threads - 1` of them, so that a launch runs on as many
/// threads as the accelerator has.
pub(crate) struct Team {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
    /// Held by the launch the team runs: a launch from another thread meanwhile is run
    /// elsewhere (see [`Team::try_run`]).
    busy: Mutex<()>,
}

impl Team {
    /// A team for `threads` threads (`threads - 1` helpers, named `amp-cpu-team-<i>`, with
    /// `stack` bytes of stack each). `None` when a helper could not start.
    pub(crate) fn new(threads: usize, stack: usize) -> Option<Team> {
        let shared = Arc::new(Shared {
            launches: AtomicU64::new(0),
            current: Mutex::new(None),
            sleeping: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let mut team = Team {
            shared: shared.clone(),
            helpers: Vec::new(),
            busy: Mutex::new(()),
        };
        for i in 1..threads {
            let shared = shared.clone();
            let helper = std::thread::Builder::new()
                .name(format!("amp-cpu-team-{i}"))
                .stack_size(stack)
                .spawn(move || help(&shared, 0))
                .ok()?;
            team.helpers.push(helper);
        }
        Some(team)
    }

    /// Runs `run(k)` for every `k` in `0..pieces` on the calling thread and the helpers, and
    /// returns when all have run: `true`. `false`, running nothing, when the team is running
    /// another thread's launch.
    pub(crate) fn try_run(&self, pieces: usize, run: &(dyn Fn(usize) + Sync)) -> bool {
        // A launch whose piece panicked leaves the lock poisoned; the team is consistent.
        let _busy = match self.busy.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        // SAFETY: only the lifetime is erased; `Job::run` says why the pointer is not used
        // after this function returns.
        let run: *const (dyn Fn(usize) + Sync + 'static) =
            unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), _>(run) };
        let job = Arc::new(Job {
            run,
            pieces,
            members: self.helpers.len() + 1,
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            panic: Mutex::new(None),
        });
        let s = &*self.shared;
        *lock(&s.current) = Some(job.clone());
        // `SeqCst` here and in a helper's way to sleep: either the helper sees this launch
        // before it sleeps, or this sees the helper asleep and wakes it.
        s.launches.fetch_add(1, Ordering::SeqCst);
        if s.sleeping.load(Ordering::SeqCst) > 0 {
            for h in &self.helpers {
                h.thread().unpark();
            }
        }
        job.work();
        let mut spins = 0u32;
        while job.done.load(Ordering::Acquire) < pieces {
            wait_step(&mut spins);
        }
        *lock(&s.current) = None;
        if let Some(p) = lock(&job.panic).take() {
            resume_unwind(p);
        }
        true
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.stop.store(true, Ordering::SeqCst);
        s.launches.fetch_add(1, Ordering::SeqCst);
        for h in &self.helpers {
            h.thread().unpark();
        }
        for h in self.helpers.drain(..) {
            let _ = h.join();
        }
    }
}

/// One step of a wait: a spin, or every [`SPINS`]th step an offer of the core to another
/// thread, which is also when a waiter looks at the clock (`true`).
fn wait_step(spins: &mut u32) -> bool {
    *spins = spins.wrapping_add(1);
    if spins.is_multiple_of(SPINS) {
        std::thread::yield_now();
        true
    } else {
        std::hint::spin_loop();
        false
    }
}

/// A helper's life: wait for a launch after the first `seen` (awake for [`AWAKE`], then
/// asleep), work on it, again; return once the team is dropped. `seen` is the count the team
/// started with, not the count when the thread starts: a team dropped before its helper first
/// ran has bumped it already, and a helper that took that bump for its starting point would
/// wait for another forever.
fn help(s: &Shared, mut seen: u64) {
    loop {
        let mut since = Instant::now();
        let mut spins = 0u32;
        while s.launches.load(Ordering::Acquire) == seen {
            if !wait_step(&mut spins) || since.elapsed() < AWAKE {
                continue;
            }
            s.sleeping.fetch_add(1, Ordering::SeqCst);
            if s.launches.load(Ordering::SeqCst) == seen {
                // An unpark between the check and here makes this return at once.
                std::thread::park();
            }
            s.sleeping.fetch_sub(1, Ordering::SeqCst);
            since = Instant::now();
        }
        seen = s.launches.load(Ordering::Acquire);
        if s.stop.load(Ordering::SeqCst) {
            return;
        }
        let job = lock(&s.current).clone();
        if let Some(job) = job {
            job.work();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_piece_runs_once_across_launches_and_sleeps() {
        let team = Team::new(3, 1 << 20).unwrap();
        for round in 0..200 {
            let hits: Vec<AtomicU32> = (0..97).map(|_| AtomicU32::new(0)).collect();
            assert!(team.try_run(hits.len(), &|k| {
                hits[k].fetch_add(1, Ordering::Relaxed);
            }));
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            if round % 50 == 0 {
                // Past the helpers' awake time: the next launch wakes them.
                std::thread::sleep(AWAKE * 3);
            }
        }
    }

    #[test]
    fn a_team_dropped_before_its_helpers_first_ran_still_ends() {
        // Two threads creating the process's native device at once drop one of the two teams
        // at once, often before its helpers have run a single instruction.
        for _ in 0..200 {
            drop(Team::new(3, 1 << 20).unwrap());
        }
    }

    #[test]
    fn a_pieces_panic_is_resumed_after_every_piece_ran() {
        let team = Team::new(2, 1 << 20).unwrap();
        let ran = AtomicU32::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            team.try_run(40, &|k| {
                ran.fetch_add(1, Ordering::Relaxed);
                if k == 7 {
                    panic!("piece 7");
                }
            })
        }));
        assert!(r.is_err());
        assert_eq!(ran.load(Ordering::Relaxed), 40);
        // The team still runs launches afterwards.
        let after = AtomicU32::new(0);
        assert!(team.try_run(5, &|_| {
            after.fetch_add(1, Ordering::Relaxed);
        }));
        assert_eq!(after.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn a_launch_from_another_thread_meanwhile_is_refused_not_mixed() {
        let team = Team::new(2, 1 << 20).unwrap();
        let inner = AtomicU32::new(0);
        assert!(team.try_run(1, &|_| {
            // The team is busy with this launch: a second one is refused.
            std::thread::scope(|s| {
                s.spawn(|| assert!(!team.try_run(1, &|_| {})));
            });
            inner.fetch_add(1, Ordering::Relaxed);
        }));
        assert_eq!(inner.load(Ordering::Relaxed), 1);
    }
}
