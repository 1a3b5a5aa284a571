//! The decisions about a kernel's meaning that both back ends honour, made once.
//!
//! A back end chooses instructions; what the kernel means is decided here, from the checked IR
//! and the range analysis, and asked by both (as naga's back ends ask `proc::index` which
//! accesses need a check): which components of a buffer index are compared with the view's
//! extent ([`bounds`]), whether a local array's index is taken as it is or clamped, what type a
//! place has ([`places`]), and how a range loop tests and steps its counter ([`loops`]).
//! The SPIR-V and native back ends differ only in how they carry a decision out (a structured
//! selection, a guard hoisted before a work-item loop), never in the decision.

mod bounds;
mod loops;
mod places;

pub(crate) use bounds::{ArrayIndex, IndexCheck};
pub(crate) use loops::{range_shape, RangeStep, RangeTest, Step};
pub(crate) use places::{field, place_ty, tuple_item, PlaceError};

use super::BoundsChecks;
use crate::range::Ranges;

/// What both back ends consult about one kernel: its range facts, its bounds-check mode and
/// which of its locals may differ between threads.
#[derive(Clone, Copy)]
pub(crate) struct Plan<'k> {
    /// What the range analysis proved about index values.
    ranges: &'k Ranges,
    /// Whether buffer accesses are checked.
    checks: BoundsChecks,
    /// Per local of the checked kernel: the analyses found that its value may differ between
    /// the threads of a tile (`Findings::varying`).
    varying: &'k [bool],
}

impl<'k> Plan<'k> {
    /// The plan of a kernel with range facts `ranges`, compiled with `checks`, whose analyses
    /// found the locals `varying` may differ between threads.
    pub(crate) fn new(ranges: &'k Ranges, checks: BoundsChecks, varying: &'k [bool]) -> Self {
        Plan {
            ranges,
            checks,
            varying,
        }
    }

    /// Whether the analyses found that local `id` may differ between the threads of a tile.
    /// A local a pass added after them (`id` past the checked kernel's locals) may.
    pub(crate) fn may_vary(&self, id: crate::ir::LocalId) -> bool {
        self.varying.get(id).copied().unwrap_or(true)
    }

    /// How many locals the analyses saw (the checked kernel's; a pass adds more after them).
    pub(crate) fn locals_analysed(&self) -> usize {
        self.varying.len()
    }

    /// Whether buffer accesses are checked.
    pub(crate) fn checks(&self) -> BoundsChecks {
        self.checks
    }
}
