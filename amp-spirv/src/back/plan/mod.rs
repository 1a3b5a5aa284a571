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

/// What both back ends consult about one kernel: its range facts and its bounds-check mode.
#[derive(Clone, Copy)]
pub(crate) struct Plan<'k> {
    /// What the range analysis proved about index values.
    ranges: &'k Ranges,
    /// Whether buffer accesses are checked.
    checks: BoundsChecks,
}

impl<'k> Plan<'k> {
    /// The plan of a kernel with range facts `ranges`, compiled with `checks`.
    pub(crate) fn new(ranges: &'k Ranges, checks: BoundsChecks) -> Self {
        Plan { ranges, checks }
    }

    /// Whether buffer accesses are checked.
    pub(crate) fn checks(&self) -> BoundsChecks {
        self.checks
    }
}
