//! `lower_bound`, `upper_bound` and `merge`: a binary search per element (a merge places each
//! element at its own index plus its rank in the other input).

use super::{accelerator_of, check_lengths};
use crate::prelude::*;

/// Whether `v` goes before `q`: `v < q`, or `v <= q` where `upper`.
#[amp::device]
fn before<T: DeviceScalar>(v: T, q: T, upper: bool) -> bool {
    if upper {
        v <= q
    } else {
        v < q
    }
}

/// Where `q` goes in `sorted`: the first index whose element does not go before `q`, as
/// `slice::partition_point`, by its algorithm: the range halves until one element is left,
/// whatever the comparisons say, so the number of steps (`ceil(log2 n)`, the bit length of
/// `n - 1`) depends on the length alone. Every thread then runs the same steps: natively a batch
/// of threads searches in lockstep with their loads in flight together, and a GPU's threads do
/// not diverge.
#[amp::device]
fn bound<T: DeviceScalar>(sorted: &ArrayView<T, 1>, q: T, upper: bool) -> usize {
    let n = sorted.extent()[0];
    let steps = 32 - ((n.max(1) - 1) as u32).leading_zeros();
    let mut base = 0;
    let mut size = n;
    for _step in 0..steps {
        let half = size / 2;
        if before(sorted[base + half], q, upper) {
            base += half;
        }
        size -= half;
    }
    if n > 0 && before(sorted[base], q, upper) {
        base + 1
    } else {
        base
    }
}

#[kernel(amp)]
fn bounds<T: DeviceScalar, const UPPER: bool>(
    idx: Index<1>,
    sorted: ArrayView<T, 1>,
    queries: ArrayView<T, 1>,
    out: ArrayViewMut<u32, 1>,
) {
    out[idx] = bound(&sorted, queries[idx], UPPER) as u32;
}

/// `out[i]` is the index in `from` before which `from[i]`'s element goes in the merge: its own
/// index plus how many elements of `other` go before it (`other`'s elements `< x` when `from`
/// is the first input, `<= x` when it is the second, so equal elements of the first come first).
#[kernel(amp, allow(write_conflict))]
fn place<T: DeviceScalar, const SECOND: bool>(
    idx: Index<1>,
    from: ArrayView<T, 1>,
    other: ArrayView<T, 1>,
    out: ArrayViewMut<T, 1>,
) {
    let x = from[idx];
    let rank = bound(&other, x, SECOND);
    out[idx[0] + rank] = x;
}

fn search<T: DeviceScalar, const UPPER: bool>(
    operation: &'static str,
    sorted: &ArrayView<'_, T, 1>,
    queries: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, u32, 1>,
) -> Result<(), Error> {
    let m = queries.extent()[0];
    check_lengths(operation, ("queries", m), ("out", out.extent()[0]))?;
    if m == 0 {
        return Ok(());
    }
    let acc = accelerator_of(sorted.accelerator())?;
    parallel_for_each_on(
        &acc,
        queries.extent(),
        bounds::<T, UPPER>(sorted, queries, out),
    )?;
    out.synchronize()
}

/// For each query, the first index of `sorted` whose element is not less than it (Thrust's
/// vectorized `lower_bound`): what `sorted.partition_point(|x| x < q)` answers. `sorted` is
/// ascending (for floats, by `<`: with NaNs in it the answers are unspecified).
///
/// Errors: [`Error::MismatchedLengths`] when `queries` and `out` differ in length, and the
/// launch errors.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let sorted = [1, 3, 3, 5];
/// let queries = [0, 3, 4, 9];
/// let mut out = [0u32; 4];
/// amp::algorithms::lower_bound(
///     &ArrayView::new([4], &sorted)?,
///     &ArrayView::new([4], &queries)?,
///     &mut ArrayViewMut::new([4], &mut out)?,
/// )?;
/// assert_eq!(out, [0, 1, 3, 4]);
/// # Ok(()) }
/// ```
pub fn lower_bound<T: DeviceScalar>(
    sorted: &ArrayView<'_, T, 1>,
    queries: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, u32, 1>,
) -> Result<(), Error> {
    search::<T, false>("lower_bound", sorted, queries, out)
}

/// For each query, the first index of `sorted` whose element is greater than it:
/// `sorted.partition_point(|x| x <= q)`. As [`lower_bound`] otherwise.
pub fn upper_bound<T: DeviceScalar>(
    sorted: &ArrayView<'_, T, 1>,
    queries: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, u32, 1>,
) -> Result<(), Error> {
    search::<T, true>("upper_bound", sorted, queries, out)
}

/// Merges the ascending inputs `a` and `b` into `out`, stably: equal elements of `a` come
/// before those of `b` (Thrust's `merge`). For floats the inputs are ascending by `<` (with
/// NaNs the order is unspecified).
///
/// Errors: [`Error::MismatchedLengths`] unless `out` holds exactly `a` and `b`, and the launch
/// errors.
///
/// ```no_run
/// # use amp::prelude::*;
/// # fn main() -> Result<(), amp::Error> {
/// let (a, b) = ([1, 4, 4], [2, 4, 9]);
/// let mut out = [0; 6];
/// amp::algorithms::merge(
///     &ArrayView::new([3], &a)?,
///     &ArrayView::new([3], &b)?,
///     &mut ArrayViewMut::new([6], &mut out)?,
/// )?;
/// assert_eq!(out, [1, 2, 4, 4, 4, 9]);
/// # Ok(()) }
/// ```
pub fn merge<T: DeviceScalar>(
    a: &ArrayView<'_, T, 1>,
    b: &ArrayView<'_, T, 1>,
    out: &mut ArrayViewMut<'_, T, 1>,
) -> Result<(), Error> {
    let (n, m) = (a.extent()[0], b.extent()[0]);
    check_lengths("merge", ("a and b", n + m), ("out", out.extent()[0]))?;
    let acc = accelerator_of(a.accelerator().or(b.accelerator()))?;
    if super::host::merge(a, b, out, &acc).is_some() {
        return Ok(());
    }
    parallel_for_each_on(&acc, a.extent(), place::<T, false>(a, b, out))?;
    parallel_for_each_on(&acc, b.extent(), place::<T, true>(b, a, out))?;
    out.synchronize()
}
