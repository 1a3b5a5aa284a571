//! Which items of a batch need a barrier before them: only those that depend on an earlier item
//! since the last barrier (they read or write a buffer it wrote, or write a buffer it read).
//! Independent launches and copies then run without one, so a GPU may overlap them.

use ash::vk;

/// What one item of a batch (a launch or a copy) touches.
#[derive(Clone, Copy)]
pub(crate) enum Touches<'a> {
    /// These buffers, each with whether the item writes it.
    Buffers(&'a [(vk::Buffer, bool)]),
    /// Not known (images, raw kernels): always ordered after everything before it.
    Everything,
}

/// Most buffers tracked since the last barrier; past it the next item gets a barrier anyway.
const MAX_TRACKED: usize = 64;

/// The buffers the items of a batch touched since its last barrier.
#[derive(Default)]
pub(super) struct Hazards {
    /// Buffer and whether an item wrote it.
    since_barrier: Vec<(vk::Buffer, bool)>,
    /// An item since the last barrier touched what is not known, or none came since the
    /// batch began (work of earlier batches on the queue must be ordered too).
    unknown: bool,
}

impl Hazards {
    /// For a new batch: its first item gets a barrier.
    pub(super) fn new() -> Hazards {
        Hazards {
            since_barrier: Vec::new(),
            unknown: true,
        }
    }

    /// Whether an item touching `touches` needs a barrier before it, and notes what it touches
    /// (after that barrier, if any).
    pub(super) fn before(&mut self, touches: Touches<'_>) -> bool {
        let needed = self.unknown
            || match touches {
                Touches::Everything => true,
                Touches::Buffers(list) => {
                    self.since_barrier.len() + list.len() > MAX_TRACKED
                        || list.iter().any(|&(b, writes)| {
                            self.since_barrier
                                .iter()
                                .any(|&(seen, wrote)| seen == b && (writes || wrote))
                        })
                }
            };
        if needed {
            self.since_barrier.clear();
            self.unknown = false;
        }
        match touches {
            Touches::Everything => self.unknown = true,
            Touches::Buffers(list) => {
                for &(b, writes) in list {
                    match self.since_barrier.iter_mut().find(|(seen, _)| *seen == b) {
                        Some((_, wrote)) => *wrote |= writes,
                        None => self.since_barrier.push((b, writes)),
                    }
                }
            }
        }
        needed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    fn buf(n: u64) -> vk::Buffer {
        vk::Buffer::from_raw(n)
    }

    #[test]
    fn only_dependent_items_get_a_barrier() {
        let (a, b, c, d) = (buf(1), buf(2), buf(3), buf(4));
        let mut h = Hazards::new();
        // The first item of a batch always does.
        assert!(h.before(Touches::Buffers(&[(a, false), (b, true)])));
        // Reads a and writes c: independent of the first.
        assert!(!h.before(Touches::Buffers(&[(a, false), (c, true)])));
        // Reads b, which the first wrote: read after write.
        assert!(h.before(Touches::Buffers(&[(b, false), (d, true)])));
        // Writes b, which the item before read: write after read.
        assert!(h.before(Touches::Buffers(&[(b, true)])));
        // Writes b again: write after write.
        assert!(h.before(Touches::Buffers(&[(b, true)])));
        assert!(!h.before(Touches::Buffers(&[(a, true)])));
        // Unknown items are ordered both ways.
        assert!(h.before(Touches::Everything));
        assert!(h.before(Touches::Buffers(&[(c, false)])));
        assert!(!h.before(Touches::Buffers(&[(d, false)])));
    }
}
