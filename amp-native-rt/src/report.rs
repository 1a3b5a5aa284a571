//! [`OobReport`]: the out-of-bounds report a launch's threads share.

use std::sync::atomic::{AtomicU32, Ordering};

/// The out-of-bounds report of a launch, shared by its threads: `[flag, param, rank,
/// index[3], extent[3]]` as amp-abi's `OOB_REPORT_WORDS`; the first failing access moves `flag`
/// from 0 to 1 and writes the rest.
#[derive(Debug, Default)]
pub struct OobReport {
    /// The words.
    pub words: [AtomicU32; 9],
}

impl OobReport {
    /// An empty report.
    pub const fn new() -> OobReport {
        OobReport {
            words: [
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
            ],
        }
    }

    /// Records a failed access unless one was recorded before.
    #[cold]
    #[inline(never)]
    ///
    /// The index and extent come by value: a reference would make the caller's buffer (or the
    /// index) live at an address for every access of a hot loop, where LLVM otherwise keeps
    /// them in registers.
    pub fn record<const R: usize>(&self, param: u32, index: [u32; R], extent: [u32; R]) {
        if self.words[0]
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        self.words[1].store(param, Ordering::Relaxed);
        self.words[2].store(R as u32, Ordering::Relaxed);
        for d in 0..3 {
            self.words[3 + d].store(index.get(d).copied().unwrap_or(0), Ordering::Relaxed);
            self.words[6 + d].store(extent.get(d).copied().unwrap_or(0), Ordering::Relaxed);
        }
    }

    /// The report's words (read after the launch).
    pub fn read(&self) -> [u32; 9] {
        let mut out = [0; 9];
        for (o, w) in out.iter_mut().zip(&self.words) {
            *o = w.load(Ordering::Acquire);
        }
        out
    }
}
