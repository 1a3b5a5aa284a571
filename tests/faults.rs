//! Fault injection (`--features fault-injection`): every failpoint of `amp_runtime::fault`
//! (allocation, submission, waits, timeouts, mappings, a panicking native task), injected into
//! launches, copies and host accesses of views and arrays, on every accelerator. For each
//! injected fault: a typed `amp::Error` (never a panic or a hang); host data the launch did not
//! write keeps its last synchronized contents; the runtime's live Vulkan objects are back where
//! they were once the data is dropped; and the accelerator works again once the fault is gone.
//! The counts of faults injected, survived and bytes lost are printed (docs/data-model.md).
//!
//! One process, one scenario at a time: the failpoints are process-wide.

use amp::prelude::*;
use amp_runtime::fault;

const N: usize = 4096;
/// Rounds of each scenario (see the leak check).
const ROUNDS: usize = 12;

#[kernel(amp)]
fn add_ten(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] = a[idx] + 10;
}

#[kernel(amp)]
fn bump(idx: Index<1>, arr: &mut Array<i32, 1>) {
    arr[idx] += 1;
}

/// What one scenario found.
#[derive(Default)]
struct Tally {
    /// Faults that fired, each answered with its typed error (`scenario` asserts that).
    injected: usize,
    lost_bytes: usize,
}

/// Runs `work` with failpoint `name` configured to `action`; returns its result, the fault
/// taken away again.
fn with_fault<R>(name: &str, action: &str, work: impl FnOnce() -> R) -> R {
    fail::cfg(name, action).expect("a failpoint");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    fail::remove(name);
    match r {
        Ok(r) => r,
        Err(_) => panic!("failpoint {name}: the runtime panicked instead of returning an error"),
    }
}

/// Whether accelerator `acc` has failpoint `name`'s seam: Vulkan devices allocate buffers,
/// submit, wait and map; the native accelerator allocates host memory and runs tasks.
fn has_seam(acc: &Accelerator, name: &str) -> bool {
    let native = [fault::HOST_ALLOC, fault::NATIVE_TASK].contains(&name);
    native == acc.is_native()
}

/// The errors a fault may surface as.
fn expected(name: &str, e: &amp::Error) -> bool {
    use amp::Error as E;
    match name {
        fault::BUFFER_ALLOC | fault::HOST_ALLOC => matches!(e, E::OutOfDeviceMemory),
        fault::SUBMIT | fault::WAIT => matches!(e, E::DeviceLost { .. }),
        fault::TIMEOUT => matches!(e, E::Timeout { .. }),
        fault::MAP => matches!(e, E::Vulkan { .. }),
        fault::NATIVE_TASK => matches!(e, E::InvalidKernel { .. }),
        _ => false,
    }
}

/// A launch writing a view of host data, right, on `view` (after failpoint `after`).
fn clean_run(acc: &Accelerator, view: &AcceleratorView, a: &[i32], before: &[i32], after: &str) {
    let again = (|| -> Result<Vec<i32>, amp::Error> {
        let mut out = before.to_vec();
        {
            let av = ArrayView::new([N], a)?;
            let mut ov = ArrayViewMut::new([N], &mut out)?;
            parallel_for_each_on(view, ov.extent(), add_ten(&av, &mut ov))?;
            ov.synchronize()?;
        }
        Ok(out)
    })();
    let want: Vec<i32> = a.iter().map(|x| x + 10).collect();
    assert_eq!(
        again.unwrap_or_else(|e| panic!("{} after {after}: {e}", acc.name())),
        want,
        "{} after {after}",
        acc.name()
    );
}

/// One scenario: a launch writing a view of host data (whose earlier contents were
/// synchronized) and an array, then host reads, all under the fault. Returns the tally.
fn scenario(acc: &Accelerator, name: &str, action: &str) -> Tally {
    let mut tally = Tally::default();
    let view = acc.default_view();
    let a: Vec<i32> = (0..N as i32).collect();
    let before: Vec<i32> = (0..N as i32).map(|i| -i).collect();
    let mut out = before.clone();
    let mut arr = Array::from_slice_on(acc, [N], &a).expect("an array without the fault");
    // The same work once without the fault first, so pools the runtime keeps are filled.
    clean_run(acc, &view, &a, &before, "warm-up");
    let objects = amp::live_object_counts();
    let result = with_fault(name, action, || -> Result<(), amp::Error> {
        let av = ArrayView::new([N], &a)?;
        let mut ov = ArrayViewMut::new([N], &mut out)?;
        let launched = parallel_for_each_on(&view, ov.extent(), add_ten(&av, &mut ov))
            .and_then(|()| ov.synchronize());
        let bumped = parallel_for_each_on(&view, arr.extent(), bump(&mut arr))
            .and_then(|()| arr.to_vec().map(drop));
        let fresh = Array::<i32, 1>::new_on(acc, [N]).map(drop);
        let waited = view.wait();
        launched.and(bumped).and(fresh).and(waited)
    });
    // The failpoint fires where the accelerator has that seam (a native accelerator allocates
    // no Vulkan buffer and submits nothing); where it fired, the error is the fault's.
    match result {
        Ok(()) => {}
        Err(e) => {
            println!("{} / {name} ({action}): {e}", acc.name());
            tally.injected += 1;
            assert!(
                expected(name, &e),
                "{} / {name}: unexpected error {e:?}",
                acc.name()
            );
            // The view's data: each element is its last synchronized value or the failed
            // launch's own result, never anything else.
            let lost = out
                .iter()
                .enumerate()
                .filter(|&(i, &x)| x != before[i] && x != a[i] + 10)
                .count();
            if lost > 0 {
                let first = (0..N).find(|&i| out[i] != before[i] && out[i] != a[i] + 10);
                println!(
                    "{} / {name} ({action}): {lost} elements neither as before nor written, \
                     the first {first:?}: {:?}",
                    acc.name(),
                    first.map(|i| out[i])
                );
            }
            tally.lost_bytes += lost * 4;
        }
    }
    // Usable again: the same work, fault gone, gives the right results.
    clean_run(acc, &view, &a, &before, name);
    let _ = view.wait();
    drop(arr);
    let _ = view.wait();
    // Nothing of the failed work stays alive but what the runtime's pools keep for reuse
    // (checked across rounds by the caller).
    let now = amp::live_object_counts();
    assert!(
        now.allocations <= objects.allocations + 2,
        "{} / {name}: allocations {} -> {}",
        acc.name(),
        objects.allocations,
        now.allocations
    );
    tally
}

#[test]
fn every_injected_fault_is_a_typed_error_and_loses_no_data() {
    let mut total = Tally::default();
    for acc in Accelerator::all().expect("accelerators") {
        for name in fault::ALL {
            let action = if name == fault::NATIVE_TASK {
                "panic"
            } else {
                "return"
            };
            // Every evaluation fails, and then only the first one.
            for action in [action.to_string(), format!("1*{action}")] {
                // Round after round: pools the runtime keeps for reuse (staging buffers, at
                // most a few per direction) may grow over the first rounds; a leak grows with
                // every round.
                let mut counts = Vec::new();
                for _ in 0..ROUNDS {
                    let t = scenario(&acc, name, &action);
                    // Every failpoint of the accelerator's kind fires in every round.
                    assert_eq!(
                        t.injected > 0,
                        has_seam(&acc, name),
                        "{} / {name} ({action})",
                        acc.name()
                    );
                    total.injected += t.injected;
                    total.lost_bytes += t.lost_bytes;
                    counts.push(amp::live_object_counts().allocations);
                }
                let tail = &counts[ROUNDS - 4..];
                assert!(
                    tail.iter().all(|&c| c == tail[0]),
                    "{} / {name} ({action}): allocations grow round after round: {counts:?}",
                    acc.name()
                );
            }
        }
    }
    println!(
        "faults injected: {}, each a typed error; bytes of user data lost: {}",
        total.injected, total.lost_bytes
    );
    assert_eq!(total.lost_bytes, 0);
}
