//! Races and dependences through buffers: write conflicts and flow dependences, judged from the
//! accesses the walk collected. (Races on `tile_static` memory are found during the walk.)

use super::index::IndexKey;
use super::{Lint, Walker};
use crate::diag::Span;
use crate::ir::*;

/// A write or read of a buffer, for the dependence checks.
pub(super) struct Access {
    /// The buffer.
    pub(super) param: ParamId,
    /// The keys of its indices.
    pub(super) key: Vec<IndexKey>,
    /// The access in the source.
    pub(super) span: Span,
    /// Whether the index is proven to be a different element for every thread (judged for
    /// writes only).
    pub(super) unique: bool,
    /// For reads: the buffer was written earlier and a barrier fencing global memory came
    /// since, so the threads of a tile see each other's writes (communication through global
    /// memory within a tile).
    pub(super) after_barrier: bool,
    /// An atomic operation: never a conflict or a dependence.
    pub(super) atomic: bool,
}

/// Per parameter of `n`: whether threads may share an element of it with a writer. A buffer
/// nobody writes is never shared; one written only by atomics needs nothing more. Otherwise
/// the plain accesses are private to their thread only when every write is at an index unique
/// per thread (or per tile: the threads of a tile run on one OS thread natively) and every
/// plain access, read or write, is at that one index; a buffer that is also accessed
/// atomically is shared (an atomic and a plain access of one element must not meet).
pub(super) fn shared_elements(n: usize, writes: &[Access], reads: &[Access]) -> Vec<bool> {
    (0..n)
        .map(|p| {
            let w: Vec<&Access> = writes.iter().filter(|a| a.param == p).collect();
            let r: Vec<&Access> = reads.iter().filter(|a| a.param == p).collect();
            if w.is_empty() {
                return false;
            }
            let atomic = w.iter().chain(&r).filter(|a| a.atomic).count();
            let all = w.len() + r.len();
            if atomic == all {
                return false;
            }
            if atomic > 0 || w.iter().any(|a| !a.unique) {
                return true;
            }
            let key = &w[0].key;
            !w.iter().chain(&r).all(|a| a.key == *key)
        })
        .collect()
}

impl Walker<'_> {
    /// Whether `p` was written earlier in this walk and a barrier fencing global memory came
    /// since.
    pub(super) fn written_before(&self, p: ParamId) -> bool {
        self.writes.iter().any(|w| w.param == p) && !self.dirty_buffers.contains(&p)
    }

    /// Write conflicts and flow dependences, from the accesses of the last walk.
    pub(super) fn dependences(&mut self) {
        let writes = std::mem::take(&mut self.writes);
        let reads = std::mem::take(&mut self.reads);
        for w in &writes {
            let name = self.k.params[w.param].name.clone();
            if !w.unique {
                self.warn(
                    Lint::WriteConflict,
                    w.span,
                    format!("`{name}` is written at an index that is not proven unique per thread: several threads may write the same element, and the last one wins (an output dependence)"),
                    "write each thread's result to its own element (index with the thread's index), or combine the values with an atomic or a tile reduction".into(),
                );
            }
        }
        for r in &reads {
            if r.after_barrier {
                continue;
            }
            if r.atomic {
                continue;
            }
            let own_write = writes
                .iter()
                .find(|w| w.param == r.param && w.unique && !w.atomic);
            if let Some(w) = own_write {
                if w.key != r.key {
                    let name = self.k.params[r.param].name.clone();
                    self.warn(
                        Lint::FlowDependence,
                        r.span,
                        format!("`{name}` is read here at another thread's element while every thread writes its own: the value read depends on the order the threads run (a flow or anti dependence)"),
                        "read from one view and write to another (double buffering), or split the work into two kernels".into(),
                    );
                }
            }
        }
    }
}
