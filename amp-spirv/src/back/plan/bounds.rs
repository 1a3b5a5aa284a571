//! Bounds: which components of a buffer access are checked against the view's extent, and
//! how a local array's index is kept inside the array (docs/semantics.md).

use super::Plan;
use crate::back::BoundsChecks;
use crate::ir::{any_expr, block_has, Expr, ExprKind, Kernel, Lit, ParamId, Place, Probe};
use crate::range::Sym;
use crate::types::Len;

/// How one component of a buffer index is checked against the buffer's extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IndexCheck {
    /// The range analysis proved it in range: no check.
    Proven,
    /// It is below the launch domain's extent in the same dimension: in range whenever the
    /// view covers the domain, which the runtime states per launch (a specialization constant
    /// on Vulkan, a launch-wide flag natively), so the compare folds away then; compared
    /// otherwise.
    Covered,
    /// Compared with the extent.
    Compared,
}

/// How an index into a local (or `tile_static`) array is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArrayIndex {
    /// A literal index into an array of literal length (the front end rejected one past the
    /// end).
    Literal(u32),
    /// The range analysis proved it below the length: used as it is.
    Proven,
    /// Clamped to the last element: an index past the end reads and writes the last element
    /// (docs/semantics.md), where it would be undefined behaviour on a device.
    Clamped,
}

impl Plan<'_> {
    /// The check of each component of an access to buffer `p` at `idx` in a kernel of rank
    /// `rank`; `None` when nothing is checked: the kernel is `unchecked`, or every component
    /// is proven in range.
    pub(crate) fn buffer_checks(
        &self,
        rank: u32,
        p: ParamId,
        idx: &[Expr],
    ) -> Option<Vec<IndexCheck>> {
        if self.checks == BoundsChecks::Off {
            return None;
        }
        // Only an index of the domain's rank can be below the domain's extent component-wise.
        let same_rank = idx.len() as u32 == rank;
        let checks: Vec<IndexCheck> = idx
            .iter()
            .enumerate()
            .map(|(d, i)| {
                let d = d as u32;
                if self.ranges.below(i, Sym::Extent(p, d)) {
                    IndexCheck::Proven
                } else if same_rank && self.ranges.below_domain(i) == Some(d) {
                    IndexCheck::Covered
                } else {
                    IndexCheck::Compared
                }
            })
            .collect();
        match checks.iter().all(|&c| c == IndexCheck::Proven) {
            true => None,
            false => Some(checks),
        }
    }

    /// How `index` into an array of length `len` is used.
    pub(crate) fn array_index(&self, index: &Expr, len: &Len) -> ArrayIndex {
        if let (ExprKind::Lit(Lit::Int(v)), Len::Lit(n)) = (&index.kind, len) {
            if *v < u128::from(*n) {
                return ArrayIndex::Literal(*v as u32);
            }
        }
        match self.ranges.below_len(index, len) {
            true => ArrayIndex::Proven,
            false => ArrayIndex::Clamped,
        }
    }

    /// Whether some buffer access of kernel `k` compares an index component with the view's
    /// extent ([`IndexCheck::Compared`]): a check that neither the range facts nor a view
    /// covering the domain decide, such as an offset index's.
    pub(crate) fn compares_extents(&self, k: &Kernel) -> bool {
        let compared = |p: ParamId, idx: &[Expr]| {
            self.buffer_checks(k.rank, p, idx)
                .is_some_and(|c| c.contains(&IndexCheck::Compared))
        };
        let in_expr = |e: &Expr| {
            any_expr(e, |x| {
                let place = match &x.kind {
                    ExprKind::BufferLoad(p, idx) => return hit(compared(*p, idx)),
                    ExprKind::Assign(place, _) | ExprKind::CompoundAssign(_, place, _) => place,
                    ExprKind::Atomic(a) => &a.target,
                    _ => return Probe::Descend,
                };
                match place {
                    Place::Buffer(p, idx) if compared(*p, idx) => Probe::Hit,
                    _ => Probe::Descend,
                }
            })
        };
        block_has(&k.body, in_expr)
    }
}

/// [`Probe::Hit`] when `found`, else [`Probe::Descend`].
fn hit(found: bool) -> Probe {
    match found {
        true => Probe::Hit,
        false => Probe::Descend,
    }
}
