//! Range loops: how `for i in a..b`, `a..=b` and `(a..b).step_by(s)` test and step their
//! counter, so that a loop runs exactly the iterations Rust's would, without overflowing
//! past the counter type's end.

use crate::ir::{Expr, RangeLoop};

/// How a range loop runs: its test, then its step at the end of each iteration.
pub(crate) struct RangeShape<'a> {
    /// The test before each iteration.
    pub(crate) test: RangeTest,
    /// How the counter moves on.
    pub(crate) step: RangeStep<'a>,
}

/// The test of a range loop's counter `c` against its end `e`, in the counter's type (signed
/// or not as it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RangeTest {
    /// `c < e` (`a..b`).
    Below,
    /// `c <= e` (`a..=b`).
    UpTo,
}

/// How a range loop's counter moves on.
pub(crate) enum RangeStep<'a> {
    /// `c += 1`, with nothing else to track: `a..b` cannot step past `b`.
    One,
    /// By `step` (the literal 1 for an inclusive range without one), with a `done` flag: it is
    /// set before the loop when the step is 0 (where Rust's `step_by(0)` panics, the loop runs
    /// zero times) and after each iteration when no value is left, tested as `step > e - c`
    /// (`..=`) or `step >= e - c` (`..`) on the unsigned distance, so the counter never has to
    /// pass the type's end to stop; the test is then `c < e && !done` (or `<=`).
    By(Step<'a>),
}

/// The step of a stepped range loop.
#[derive(Clone, Copy)]
pub(crate) enum Step<'a> {
    /// `.step_by(step)`'s value, converted to the counter's type.
    Given(&'a Expr),
    /// An inclusive range's implied step of 1.
    Unit,
}

/// The shape of range loop `r`.
pub(crate) fn range_shape(r: &RangeLoop) -> RangeShape<'_> {
    let test = match r.inclusive {
        true => RangeTest::UpTo,
        false => RangeTest::Below,
    };
    let step = match &r.step {
        Some(step) => RangeStep::By(Step::Given(step)),
        None if r.inclusive => RangeStep::By(Step::Unit),
        None => RangeStep::One,
    };
    RangeShape { test, step }
}
