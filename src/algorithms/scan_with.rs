//! [`inclusive_scan!`](crate::algorithms::inclusive_scan!) and
//! [`exclusive_scan!`](crate::algorithms::exclusive_scan!): prefix scans with a user's
//! `#[amp::device]` operator, which need only be associative (not commutative, and with no
//! identity: Thrust's `inclusive_scan` with a binary operator, rayon-demo's prefix product).
//!
//! Reduce-then-scan, as the library's own scans (`scan.rs`), in the caller's crate as the other
//! algorithms that take a function (`with_fn.rs`): one total per block of `256 * __FN_ITEMS`
//! elements (the reduction's blocks kernel), an inclusive scan of the totals (the same algorithm,
//! recursively), then each tile scans its block from the totals before it. Without an identity,
//! each part of a prefix is combined only where it exists, left to right.

/// The scan kernel of [`inclusive_scan!`](crate::algorithms::inclusive_scan!) and
/// [`exclusive_scan!`](crate::algorithms::exclusive_scan!), named `$name`: tile `b` scans block `b`
/// (`256 * __FN_ITEMS` elements, each thread `__FN_ITEMS` consecutive ones) starting from
/// `carries[b - 1]` (the inclusive scan of the blocks' totals), after `init` when `exclusive` is 1.
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_scan_blocks {
    ($name:ident, $t:ident, $($op:ident)::+) => {
        // Each element is written once, by the thread that owns it (the analysis does not
        // prove it for a thread's run of `__FN_ITEMS`).
        #[$crate::kernel(amp, allow(write_conflict))]
        fn $name(
            t: TiledIndex<256>,
            input: ArrayView<$t, 1>,
            carries: ArrayView<$t, 1>,
            output: ArrayViewMut<$t, 1>,
            init: $t,
            exclusive: u32,
        ) {
            #[tile_static]
            let mut totals: [$t; 256];
            #[tile_static]
            let mut groups: [$t; 16];
            let n = input.extent()[0];
            let l = t.local[0];
            let b = t.tile[0];
            let first = b * 256 * $crate::algorithms::__FN_ITEMS;
            let start = first + l * $crate::algorithms::__FN_ITEMS;
            let end = min(start + $crate::algorithms::__FN_ITEMS, n);
            // The threads that own elements: 0..used (a launched block has at least one).
            let items = $crate::algorithms::__FN_ITEMS;
            let used = min(256, (n - first + items - 1) / items);
            if start < n {
                let mut acc = input[start];
                for i in start + 1..end {
                    acc = $($op)::+(acc, input[i]);
                }
                totals[l] = acc;
            }
            t.barrier.wait();
            // The threads' totals: 16 groups of 16 scanned in order, then the groups' totals.
            if l < 16 && l * 16 < used {
                let last = min(l * 16 + 16, used);
                let mut acc = totals[l * 16];
                for k in l * 16 + 1..last {
                    acc = $($op)::+(acc, totals[k]);
                    totals[k] = acc;
                }
                groups[l] = acc;
            }
            t.barrier.wait();
            if l == 0 {
                let mut acc = groups[0];
                for g in 1..(used + 15) / 16 {
                    acc = $($op)::+(acc, groups[g]);
                    groups[g] = acc;
                }
            }
            t.barrier.wait();
            if start < n {
                // What comes before this thread's elements, left to right: `init`, the blocks
                // before this one, the groups before this thread's, the threads before it in
                // its group.
                let mut have = exclusive == 1;
                let mut run = init;
                if b > 0 {
                    let c = carries[b - 1];
                    run = if have { $($op)::+(run, c) } else { c };
                    have = true;
                }
                if l >= 16 {
                    let g = groups[l / 16 - 1];
                    run = if have { $($op)::+(run, g) } else { g };
                    have = true;
                }
                if l % 16 != 0 {
                    let p = totals[l - 1];
                    run = if have { $($op)::+(run, p) } else { p };
                    have = true;
                }
                for i in start..end {
                    let x = input[i];
                    if exclusive == 1 {
                        output[i] = run;
                        run = $($op)::+(run, x);
                    } else {
                        run = if have { $($op)::+(run, x) } else { x };
                        have = true;
                        output[i] = run;
                    }
                }
            }
        }
    };
}

/// The body of both scan macros: `$init` is `None` for an inclusive scan, `Some(init)` for an
/// exclusive one.
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_scan_with {
    ($operation:literal, $t:ident, $input:expr, $output:expr, $init:expr, $($op:ident)::+) => {{
        // Views of any rank, in row-major order (contiguous ones: `NotContiguous` otherwise).
        match (
            $crate::algorithms::__flat($input, $operation),
            $crate::algorithms::__flat_mut($output, $operation),
        ) {
            (::core::result::Result::Err(e), _) | (_, ::core::result::Result::Err(e)) => {
                ::core::result::Result::Err(e)
            }
            (::core::result::Result::Ok(__amp_flat_input), ::core::result::Result::Ok(mut __amp_flat_output)) => {
        let __amp_input: &$crate::ArrayView<'_, $t, 1> = &__amp_flat_input;
        let __amp_output: &mut $crate::ArrayViewMut<'_, $t, 1> = &mut __amp_flat_output;
        let __amp_init: ::core::option::Option<$t> = $init;
        {
            use $crate::prelude::*;
            $crate::__amp_reduce_blocks!(__amp_scan_totals, $t, $t, [], $($op)::+);
            $crate::__amp_scan_blocks!(__amp_scan_blocks, $t, $($op)::+);
            $crate::algorithms::__scan_with::<$t>(
                $operation,
                __amp_input,
                __amp_output,
                __amp_init,
                &|input, totals| {
                    $crate::parallel_for_each(
                        $crate::algorithms::__tiles(totals.len()),
                        __amp_scan_totals(
                            input,
                            totals,
                            <$t as ::core::default::Default>::default(),
                            0,
                        ),
                    )
                },
                &|blocks, input, carries, output, init, exclusive| {
                    $crate::parallel_for_each(
                        $crate::algorithms::__tiles(blocks),
                        __amp_scan_blocks(input, carries, output, init, exclusive),
                    )
                },
            )
        }
            }
        }
    }};
}

/// `output[i] = op(op(input[0], input[1]), .. input[i])`: the inclusive prefix scan of a view with
/// `#[amp::device]` binary function `op` (Thrust's `inclusive_scan` with an operator).
///
/// `inclusive_scan!(T, &input, &mut output, op)` with `input: &ArrayView<T, N>`,
/// `output: &mut ArrayViewMut<T, N>` of the same length and `op: fn(T, T) -> T`, a path to an
/// `#[amp::device]` function; evaluates to `Result<(), amp::Error>`
/// ([`Error::MismatchedLengths`](crate::Error::MismatchedLengths) when the lengths differ,
/// [`Error::NotContiguous`](crate::Error::NotContiguous) for a view whose elements are not one
/// contiguous run). Views of rank 2 and 3 are scanned in row-major order.
/// `T` is `i32`, `u32`, `f32` or `f64`.
///
/// `op` must be associative (`op(op(a, b), c) == op(a, op(b, c))`), but need not be
/// commutative or have an identity: the elements are combined in order, in a tree (a float
/// result may round differently from a left-to-right loop). The function-free
/// [`inclusive_scan`](crate::algorithms::inclusive_scan()) adds.
///
/// ```no_run
/// use amp::prelude::*;
///
/// /// The running maximum's position trick: keep the larger, the later on ties.
/// #[amp::device]
/// fn max_of(a: i32, b: i32) -> i32 {
///     if b >= a { b } else { a }
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [3, 1, 4, 1, 5, 9, 2, 6];
/// let mut out = [0; 8];
/// amp::algorithms::inclusive_scan!(
///     i32,
///     &ArrayView::new([8], &data)?,
///     &mut ArrayViewMut::new([8], &mut out)?,
///     max_of
/// )?;
/// assert_eq!(out, [3, 3, 4, 4, 5, 9, 9, 9]);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_inclusive_scan {
    ($t:ident, $input:expr, $output:expr, $($op:ident)::+ $(,)?) => {
        $crate::__amp_scan_with!(
            "inclusive_scan!",
            $t,
            $input,
            $output,
            ::core::option::Option::None,
            $($op)::+
        )
    };
}

/// `output[0] = init`, `output[i] = op(.. op(init, input[0]) .., input[i - 1])`: the exclusive
/// prefix scan of a view with `#[amp::device]` binary function `op`, starting from `init`
/// (Thrust's `exclusive_scan` with an operator).
///
/// `exclusive_scan!(T, &input, &mut output, init, op)`, as
/// [`inclusive_scan!`](crate::algorithms::inclusive_scan!) with `init: T` first: `init` need not
/// be `op`'s identity, and `op` need only be associative.
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn times(a: u32, b: u32) -> u32 {
///     a.wrapping_mul(b)
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [2u32, 3, 4, 5];
/// let mut out = [0u32; 4];
/// amp::algorithms::exclusive_scan!(
///     u32,
///     &ArrayView::new([4], &data)?,
///     &mut ArrayViewMut::new([4], &mut out)?,
///     10,
///     times
/// )?;
/// assert_eq!(out, [10, 20, 60, 240]);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_exclusive_scan {
    ($t:ident, $input:expr, $output:expr, $init:expr, $($op:ident)::+ $(,)?) => {
        $crate::__amp_scan_with!(
            "exclusive_scan!",
            $t,
            $input,
            $output,
            ::core::option::Option::Some::<$t>($init),
            $($op)::+
        )
    };
}
