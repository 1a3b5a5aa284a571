//! Bounds: which components of a buffer access are checked against the view's extent, and
//! how a local array's index is kept inside the array (docs/semantics.md).

use super::Plan;
use crate::back::BoundsChecks;
use crate::ir::{Expr, ExprKind, Lit, ParamId};
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
}
