//! `tile_static` elements written and read between two barriers: whether a read can meet
//! another thread's write.
//!
//! A read meets no other thread's write where its indices are that write's (the thread's own
//! element), or where one component can never equal the write's: two different literals, or
//! the two halves of a double buffer, `x % 2` and `(x ± 1) % 2` (or any odd step), whose
//! parities differ for every `x` (also where `x ± 1` wraps its 32 bits, 2^32 being even), each
//! below the array's length there so that neither is clamped onto the other. A write's keys
//! name locals by their id: once a local is assigned, the keys that read it stand for another
//! value, so they are forgotten ([`Walker::forget_assigned`]) and any read of that array until
//! the next barrier counts as meeting them.

use super::index::IndexKey;
use super::Walker;
use crate::ir::*;
use crate::types::{Len, Ty};

impl Walker<'_> {
    /// Whether the element of `tile_static` array `id` at `read` can never be the element at
    /// `write` (keys of the indices, outermost first), in any two threads.
    pub(super) fn distinct_slots(
        &self,
        id: LocalId,
        write: &[IndexKey],
        read: &[IndexKey],
    ) -> bool {
        let mut ty = &self.k.locals[id].ty;
        for (w, r) in write.iter().zip(read) {
            let Ty::Array(elem, len) = ty else {
                return false;
            };
            if let Len::Lit(n) = len {
                let n = u128::from(*n);
                let apart = match (w, r) {
                    (IndexKey::Int(a), IndexKey::Int(b)) => a != b && *a < n && *b < n,
                    _ => n >= 2 && opposite_parities(w, r),
                };
                if apart {
                    return true;
                }
            }
            ty = elem;
        }
        false
    }

    /// Forgets the `tile_static` writes since the last barrier whose indices read local `id`,
    /// which was just assigned: their keys no longer name the elements written. Each becomes a
    /// write at an unknown element, which every read until the next barrier may meet.
    pub(super) fn forget_assigned(&mut self, id: LocalId, at: proc_macro2::LineColumn) {
        for writes in self.dirty_tile.values_mut() {
            if writes
                .iter()
                .any(|(key, _)| key.iter().any(|k| mentions(k, id)))
            {
                let kept = writes
                    .drain()
                    .map(
                        |(key, per_thread)| match key.iter().any(|k| mentions(k, id)) {
                            true => (vec![IndexKey::Opaque(at)], per_thread),
                            false => (key, per_thread),
                        },
                    )
                    .collect();
                *writes = kept;
            }
        }
    }
}

/// Whether `a` and `b` are `x % 2` and `y % 2` with `y` = `x` plus or minus an odd literal
/// (either way round).
fn opposite_parities(a: &IndexKey, b: &IndexKey) -> bool {
    fn half(k: &IndexKey) -> Option<&IndexKey> {
        match k {
            IndexKey::Binary(BinOp::Rem, x, two) if **two == IndexKey::Int(2) => Some(x),
            _ => None,
        }
    }
    let (Some(x), Some(y)) = (half(a), half(b)) else {
        return false;
    };
    let odd_step = |from: &IndexKey, to: &IndexKey| match to {
        IndexKey::Binary(BinOp::Add | BinOp::Sub, base, step) => {
            **base == *from && matches!(**step, IndexKey::Int(s) if s % 2 == 1)
        }
        _ => false,
    };
    odd_step(x, y) || odd_step(y, x)
}

/// Whether `key` reads local `id`.
fn mentions(key: &IndexKey, id: LocalId) -> bool {
    match key {
        IndexKey::Local(l) => *l == id,
        IndexKey::Element(a, b) | IndexKey::Binary(_, a, b) => mentions(a, id) || mentions(b, id),
        IndexKey::Unary(_, a) | IndexKey::Cast(a, _) => mentions(a, id),
        _ => false,
    }
}
