//! The algorithms that take a user's `#[amp::device]` function: [`reduce!`](crate::algorithms::reduce),
//! [`transform!`](crate::algorithms::transform),
//! [`transform_reduce!`](crate::algorithms::transform_reduce),
//! [`count_if!`](crate::algorithms::count_if), [`copy_if!`](crate::algorithms::copy_if),
//! [`partition!`](crate::algorithms::partition) and
//! [`reduce_by_key!`](crate::algorithms::reduce_by_key).
//!
//! The library's kernels are compiled when `amp` is built, before the user's function exists.
//! So each of these is a `macro_rules!` macro: it expands, in the caller's crate, to the kernels
//! that call the function (`#[amp::kernel(amp)]` functions in a block of their own, compiled by
//! the kernel attribute there, the function inlined as in any kernel), and to a call of a hidden
//! driver of `amp::algorithms` (`drivers.rs`) that launches them, pass after pass, with the
//! library's own kernels (scans, scatters).
//!
//! Each macro names the element types first (`reduce!(f32, ..)`, `transform!(f32 => u32, ..)`):
//! a kernel is compiled for concrete types, and a macro cannot see the types of its arguments.
//! The user's function is a path (`max_abs`, `ops::max_abs`, `my_crate::ops::max_abs`), reached
//! from the caller's module as a kernel's calls are.

/// `ArrayView<T, 1>` element types of the algorithms that take a function: the four scalars.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of `amp::algorithms`",
    label = "not `i32`, `u32`, `f32` or `f64`",
    note = "the algorithms work on views of `DeviceScalar` elements; for structs, sort or scan indices and gather"
)]
#[doc(hidden)]
pub trait AlgorithmElement: crate::DeviceScalar {}
impl AlgorithmElement for i32 {}
impl AlgorithmElement for u32 {}
impl AlgorithmElement for f32 {}
impl AlgorithmElement for f64 {}

/// The blocks kernel of a reduction (one partial per block of `256 * __FN_ITEMS` elements, combined
/// in order) named `$name`, reading `$in` elements and combining `$out` values with `$op`; each
/// element loaded through `$f` when there is one.
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_reduce_blocks {
    ($name:ident, $in:ident, $out:ident, [$($f:tt)*], $($op:ident)::+) => {
        /// One partial per block of `256 * __FN_ITEMS` elements, each thread combining `__FN_ITEMS`
        /// consecutive ones in order, then the tile's 256 in order (`part[l]` with `part[l + s]`):
        /// the operator need only be associative. `first` puts `init` before the first element.
        #[$crate::kernel(amp, allow(write_conflict))]
        fn $name(
            t: TiledIndex<256>,
            input: ArrayView<$in, 1>,
            partials: &mut Array<$out, 1>,
            init: $out,
            first: u32,
        ) {
            #[tile_static]
            let mut part: [$out; 256];
            let n = input.extent()[0];
            let l = t.local[0];
            let b = t.tile[0];
            let start = (b * 256 + l) * $crate::algorithms::__FN_ITEMS;
            let mut acc = init;
            if start < n {
                acc = $($f)*(input[start]);
                if first == 1 && start == 0 {
                    acc = $($op)::+(init, acc);
                }
                let end = min(start + $crate::algorithms::__FN_ITEMS, n);
                for i in start + 1..end {
                    acc = $($op)::+(acc, $($f)*(input[i]));
                }
            }
            part[l] = acc;
            t.barrier.wait();
            let mut s = 1;
            while s < 256 {
                if l % (2 * s) == 0 && (b * 256 + l + s) * $crate::algorithms::__FN_ITEMS < n {
                    part[l] = $($op)::+(part[l], part[l + s]);
                }
                t.barrier.wait();
                s *= 2;
            }
            if l == 0 {
                partials[b] = part[0];
            }
        }
    };
}

/// `op(init, x[0], x[1], ..)`: the elements of a view combined with `#[amp::device]` binary
/// function `op`, in order (Thrust's `reduce` with an operator, the C++ AMP Algorithms
/// Library's `reduce`).
///
/// `reduce!(T, &view, init, op)` with `view: &ArrayView<T, 1>`, `init: T` and
/// `op: fn(T, T) -> T`, a path to an `#[amp::device]` function; evaluates to
/// `Result<T, amp::Error>`, `Ok(init)` for an empty view. `T` is `i32`, `u32`, `f32` or `f64`.
///
/// `op` must be associative (`op(op(a, b), c) == op(a, op(b, c))`), but need not be
/// commutative: the elements are combined in order, in a tree (as floats associate only
/// approximately, a float result may round differently from a left-to-right loop).
///
/// ```no_run
/// use amp::prelude::*;
///
/// /// The larger magnitude.
/// #[amp::device]
/// fn max_abs(a: f32, b: f32) -> f32 {
///     if a.abs() >= b.abs() { a } else { b }
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1.0f32, -7.0, 3.0];
/// let largest = amp::algorithms::reduce!(f32, &ArrayView::new([3], &data)?, 0.0, max_abs)?;
/// assert_eq!(largest, -7.0);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_reduce {
    ($t:ident, $input:expr, $init:expr, $($op:ident)::+ $(,)?) => {{
        let __amp_input_arg = $input;
        let __amp_input_flat: ::core::result::Result<$crate::ArrayView<'_, $t, 1>, $crate::Error> =
            $crate::algorithms::__flat(__amp_input_arg, "reduce!");
        // Bound, so the borrows in the match end before the block's locals.
        let __amp_result = match __amp_input_flat {
            ::core::result::Result::Ok(__amp_input_view) => {
                let __amp_input = &__amp_input_view;
                let __amp_init: $t = $init;
                {
                    use $crate::prelude::*;
                    $crate::__amp_reduce_blocks!(__amp_reduce_blocks, $t, $t, [], $($op)::+);
                    $crate::algorithms::__reduce::<$t, $t>(
                        __amp_input,
                        __amp_init,
                        |input, partials, init, first| {
                            $crate::parallel_for_each(
                                $crate::algorithms::__tiles(partials.len()),
                                __amp_reduce_blocks(input, partials, init, first),
                            )
                        },
                        |input, partials, init, first| {
                            $crate::parallel_for_each(
                                $crate::algorithms::__tiles(partials.len()),
                                __amp_reduce_blocks(input, partials, init, first),
                            )
                        },
                    )
                }
            }
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        };
        __amp_result
    }};
}

/// `op(init, f(x[0]), f(x[1]), ..)`: each element mapped by `#[amp::device]` function `f`, the
/// results combined in order with `#[amp::device]` binary function `op` (Thrust's
/// `transform_reduce`), without storing the mapped values.
///
/// `transform_reduce!(A => B, &view, f, init, op)` with `view: &ArrayView<A, 1>`,
/// `f: fn(A) -> B`, `init: B` and `op: fn(B, B) -> B` (`transform_reduce!(T, ..)` when
/// `A = B = T`); evaluates to `Result<B, amp::Error>`, `Ok(init)` for an empty view. `op` must be
/// associative, as for [`reduce!`](crate::algorithms::reduce).
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn square(x: f32) -> f64 {
///     (x as f64) * (x as f64)
/// }
/// #[amp::device]
/// fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [3.0f32, 4.0];
/// let view = ArrayView::new([2], &data)?;
/// let norm2 = amp::algorithms::transform_reduce!(f32 => f64, &view, square, 0.0, add)?;
/// assert_eq!(norm2, 25.0);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_transform_reduce {
    ($a:ident => $b:ident, $input:expr, $($f:ident)::+, $init:expr, $($op:ident)::+ $(,)?) => {{
        let __amp_input_arg = $input;
        let __amp_input_flat: ::core::result::Result<$crate::ArrayView<'_, $a, 1>, $crate::Error> =
            $crate::algorithms::__flat(__amp_input_arg, "transform_reduce!");
        // Bound, so the borrows in the match end before the block's locals.
        let __amp_result = match __amp_input_flat {
            ::core::result::Result::Ok(__amp_input_view) => {
                let __amp_input = &__amp_input_view;
                let __amp_init: $b = $init;
                {
                    use $crate::prelude::*;
                    $crate::__amp_reduce_blocks!(__amp_map_blocks, $a, $b, [$($f)::+], $($op)::+);
                    $crate::__amp_reduce_blocks!(__amp_reduce_blocks, $b, $b, [], $($op)::+);
                    $crate::algorithms::__reduce::<$a, $b>(
                        __amp_input,
                        __amp_init,
                        |input, partials, init, first| {
                            $crate::parallel_for_each(
                                $crate::algorithms::__tiles(partials.len()),
                                __amp_map_blocks(input, partials, init, first),
                            )
                        },
                        |input, partials, init, first| {
                            $crate::parallel_for_each(
                                $crate::algorithms::__tiles(partials.len()),
                                __amp_reduce_blocks(input, partials, init, first),
                            )
                        },
                    )
                }
            }
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        };
        __amp_result
    }};
    ($t:ident, $($rest:tt)*) => {
        $crate::__amp_algorithms_transform_reduce!($t => $t, $($rest)*)
    };
}

/// `out[i] = f(input[i])` for every element, with `#[amp::device]` function `f` (Thrust's and
/// the C++ AMP Algorithms Library's `transform`).
///
/// `transform!(A => B, &input, &mut out, f)` with `input: &ArrayView<A, 1>`,
/// `out: &mut ArrayViewMut<B, 1>` and `f: fn(A) -> B` (`transform!(T, ..)` when `A = B = T`);
/// evaluates to `Result<(), amp::Error>`: [`Error::MismatchedLengths`](crate::Error) unless the
/// lengths agree.
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn bucket(x: f32) -> u32 {
///     (x * 10.0) as u32
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [0.05f32, 0.51, 0.99];
/// let mut out = [0u32; 3];
/// amp::algorithms::transform!(
///     f32 => u32,
///     &ArrayView::new([3], &data)?,
///     &mut ArrayViewMut::new([3], &mut out)?,
///     bucket
/// )?;
/// assert_eq!(out, [0, 5, 9]);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_transform {
    ($a:ident => $b:ident, $input:expr, $out:expr, $($f:ident)::+ $(,)?) => {{
        let __amp_input_arg = $input;
        let __amp_input_flat: ::core::result::Result<$crate::ArrayView<'_, $a, 1>, $crate::Error> =
            $crate::algorithms::__flat(__amp_input_arg, "transform!");
        let __amp_out_arg = $out;
        let __amp_out_flat: ::core::result::Result<$crate::ArrayViewMut<'_, $b, 1>, $crate::Error> =
            $crate::algorithms::__flat_mut(__amp_out_arg, "transform!");
        // Bound, so the borrows in the match end before the block's locals.
        let __amp_result = match (__amp_input_flat, __amp_out_flat) {
            (::core::result::Result::Ok(__amp_input_view), ::core::result::Result::Ok(mut __amp_out_view)) => {
                let __amp_input = &__amp_input_view;
                let __amp_out = &mut __amp_out_view;
                {
                    use $crate::prelude::*;
                    /// `out[i] = f(input[i])`.
                    #[$crate::kernel(amp)]
                    fn __amp_transform(idx: Index<1>, input: ArrayView<$a, 1>, out: ArrayViewMut<$b, 1>) {
                        out[idx] = $($f)::+(input[idx]);
                    }
                    $crate::algorithms::__transform::<$a, $b>(
                        __amp_input,
                        __amp_out,
                        |input, out| $crate::parallel_for_each(input.extent(), __amp_transform(input, out)),
                    )
                }
            }
            (::core::result::Result::Err(e), _) | (_, ::core::result::Result::Err(e)) => {
                ::core::result::Result::Err(e)
            }
        };
        __amp_result
    }};
    ($t:ident, $($rest:tt)*) => {
        $crate::__amp_algorithms_transform!($t => $t, $($rest)*)
    };
}

/// The flags kernel of a selection: `flags[i] = pred(input[i]) as u32`.
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_flags_kernel {
    ($t:ident, $($pred:ident)::+) => {
        /// `flags[i]` is 1 where `pred(input[i])`.
        #[$crate::kernel(amp)]
        fn __amp_flags(idx: Index<1>, input: ArrayView<$t, 1>, flags: &mut Array<u32, 1>) {
            flags[idx] = if $($pred)::+(input[idx]) { 1 } else { 0 };
        }
    };
}

/// How many elements satisfy `#[amp::device]` predicate `pred` (Thrust's `count_if`).
///
/// `count_if!(T, &view, pred)` with `view: &ArrayView<T, 1>` and `pred: fn(T) -> bool`;
/// evaluates to `Result<usize, amp::Error>`.
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn is_odd(x: i32) -> bool {
///     x % 2 != 0
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1, 2, 3, 5, 8];
/// assert_eq!(amp::algorithms::count_if!(i32, &ArrayView::new([5], &data)?, is_odd)?, 3);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_count_if {
    ($t:ident, $input:expr, $($pred:ident)::+ $(,)?) => {{
        let __amp_input_arg = $input;
        let __amp_input_flat: ::core::result::Result<$crate::ArrayView<'_, $t, 1>, $crate::Error> =
            $crate::algorithms::__flat(__amp_input_arg, "count_if!");
        // Bound, so the borrows in the match end before the block's locals.
        let __amp_result = match __amp_input_flat {
            ::core::result::Result::Ok(__amp_input_view) => {
                let __amp_input = &__amp_input_view;
                {
                    use $crate::prelude::*;
                    /// `partials[b]` counts the elements of block `b` (`256 * __FN_ITEMS`
                    /// elements) that satisfy the predicate.
                    #[$crate::kernel(amp)]
                    fn __amp_count_blocks(
                        t: TiledIndex<256>,
                        input: ArrayView<$t, 1>,
                        partials: &mut Array<u32, 1>,
                    ) {
                        #[tile_static]
                        let mut part: [u32; 256];
                        let n = input.extent()[0];
                        let l = t.local[0];
                        let b = t.tile[0];
                        let mut matches = 0u32;
                        for k in 0..$crate::algorithms::__FN_ITEMS {
                            let i = (b * $crate::algorithms::__FN_ITEMS + k) * 256 + l;
                            if i < n && $($pred)::+(input[i]) {
                                matches += 1;
                            }
                        }
                        part[l] = matches;
                        t.barrier.wait();
                        let mut stride = 128;
                        while stride > 0 {
                            if l < stride {
                                part[l] += part[l + stride];
                            }
                            t.barrier.wait();
                            stride /= 2;
                        }
                        if l == 0 {
                            partials[b] = part[0];
                        }
                    }
                    $crate::algorithms::__count_if::<$t>(__amp_input, |input, partials| {
                        $crate::parallel_for_each(
                            $crate::algorithms::__tiles(partials.len()),
                            __amp_count_blocks(input, partials),
                        )
                    })
                }
            }
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        };
        __amp_result
    }};
}

/// Copies the elements that satisfy `#[amp::device]` predicate `pred` to the front of `out`, in
/// their order, and returns how many (Thrust's `copy_if`, stable). The rest of `out` is left as
/// it was.
///
/// `copy_if!(T, &input, &mut out, pred)` with `input: &ArrayView<T, 1>`,
/// `out: &mut ArrayViewMut<T, 1>` and `pred: fn(T) -> bool`; evaluates to
/// `Result<usize, amp::Error>`: [`Error::MismatchedLengths`](crate::Error) when `out` is shorter
/// than the result.
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn positive(x: f32) -> bool {
///     x > 0.0
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1.0f32, -2.0, 3.0, 0.0];
/// let mut out = [0.0f32; 4];
/// let n = amp::algorithms::copy_if!(
///     f32,
///     &ArrayView::new([4], &data)?,
///     &mut ArrayViewMut::new([4], &mut out)?,
///     positive
/// )?;
/// assert_eq!(&out[..n], &[1.0, 3.0]);
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_copy_if {
    ($t:ident, $input:expr, $out:expr, $($pred:ident)::+ $(,)?) => {
        $crate::__amp_select!("copy_if", false, $t, $input, $out, $($pred)::+)
    };
}

/// `copy_if!` (`partition` false) and `partition!` (true): the flags kernel of the caller's
/// predicate, then the library's scan and scatter.
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_select {
    ($name:literal, $partition:literal, $t:ident, $input:expr, $out:expr, $($pred:ident)::+) => {{
        let __amp_input: &$crate::ArrayView<'_, $t, 1> = $input;
        let __amp_out: &mut $crate::ArrayViewMut<'_, $t, 1> = $out;
        {
            use $crate::prelude::*;
            $crate::__amp_flags_kernel!($t, $($pred)::+);
            /// The one pass over the input of a `copy_if` or `partition`: chunk `c`'s
            /// selected elements, in order, at the start of its own part of `scratch` (from
            /// `scratch[c * chunk]`), and `counts[c]` how many; with `partition == 1` its
            /// others too, from the part's end backwards (so the last of its part holds the
            /// first of them). (Checked, as every kernel of these macros: an `unchecked` one
            /// would need an `unsafe` block here, which a crate that forbids `unsafe_code`
            /// refuses.)
            #[$crate::kernel(amp, allow(write_conflict))]
            fn __amp_compact_chunks(
                idx: Index<1>,
                input: ArrayView<$t, 1>,
                scratch: &mut Array<$t, 1>,
                counts: &mut Array<u32, 1>,
                partition: u32,
                chunk: u32,
            ) {
                let n = input.extent()[0];
                let start = idx[0] * chunk as usize;
                let end = min(start + chunk as usize, n);
                let mut kept = start;
                let mut others = end;
                for i in start..end {
                    let x = input[i];
                    if $($pred)::+(x) {
                        scratch[kept] = x;
                        kept += 1;
                    } else if partition == 1 {
                        others -= 1;
                        scratch[others] = x;
                    }
                }
                counts[idx] = (kept - start) as u32;
            }
            $crate::algorithms::__select::<$t>(
                $name,
                $partition,
                __amp_input,
                __amp_out,
                &$crate::algorithms::__SelectKernels {
                    flags: &|input, flags| {
                        $crate::parallel_for_each(input.extent(), __amp_flags(input, flags))
                    },
                    chunks: $crate::algorithms::__ChunkSelect {
                        compact: &|input, scratch, counts, partition, chunk| {
                            $crate::parallel_for_each(
                                counts.extent(),
                                __amp_compact_chunks(input, scratch, counts, partition, chunk),
                            )
                        },
                    },
                },
            )
        }
    }};
}

/// Copies `input` to `out` with the elements that satisfy `#[amp::device]` predicate `pred`
/// first and the others after them, each group in its input order (Thrust's
/// `stable_partition_copy` into one output), and returns how many satisfy it.
///
/// `partition!(T, &input, &mut out, pred)` with `input: &ArrayView<T, 1>`,
/// `out: &mut ArrayViewMut<T, 1>` and `pred: fn(T) -> bool`; evaluates to
/// `Result<usize, amp::Error>`: [`Error::MismatchedLengths`](crate::Error) unless the lengths
/// agree.
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn is_even(x: u32) -> bool {
///     x % 2 == 0
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let data = [1u32, 2, 3, 4, 5];
/// let mut out = [0u32; 5];
/// let evens = amp::algorithms::partition!(
///     u32,
///     &ArrayView::new([5], &data)?,
///     &mut ArrayViewMut::new([5], &mut out)?,
///     is_even
/// )?;
/// assert_eq!((evens, out), (2, [2, 4, 1, 3, 5]));
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_partition {
    ($t:ident, $input:expr, $out:expr, $($pred:ident)::+ $(,)?) => {
        $crate::__amp_select!("partition", true, $t, $input, $out, $($pred)::+)
    };
}

/// For each run of consecutive equal keys, the key and its values combined in order with
/// `#[amp::device]` binary function `op` (Thrust's `reduce_by_key`); returns how many runs.
///
/// `reduce_by_key!(K, V, &keys, &values, &mut keys_out, &mut values_out, op)` with
/// `keys: &ArrayView<K, 1>`, `values: &ArrayView<V, 1>`, outputs `&mut ArrayViewMut<K, 1>` and
/// `&mut ArrayViewMut<V, 1>`, `op: fn(V, V) -> V`, associative; evaluates to
/// `Result<usize, amp::Error>`. Keys compare with `==` (as `unique`: a NaN key is a run of its
/// own, `-0.0` and `0.0` are one key, the first of the run is written). Errors:
/// [`Error::MismatchedLengths`](crate::Error) unless `keys` and `values` agree, or when an
/// output is shorter than the number of runs. The rest of the outputs is left as it was.
///
/// ```no_run
/// use amp::prelude::*;
///
/// #[amp::device]
/// fn add(a: f32, b: f32) -> f32 {
///     a + b
/// }
///
/// # fn main() -> Result<(), amp::Error> {
/// let keys = [1u32, 1, 2, 3, 3, 3];
/// let values = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let (mut k, mut v) = ([0u32; 6], [0.0f32; 6]);
/// let runs = amp::algorithms::reduce_by_key!(
///     u32,
///     f32,
///     &ArrayView::new([6], &keys)?,
///     &ArrayView::new([6], &values)?,
///     &mut ArrayViewMut::new([6], &mut k)?,
///     &mut ArrayViewMut::new([6], &mut v)?,
///     add
/// )?;
/// assert_eq!((&k[..runs], &v[..runs]), (&[1, 2, 3][..], &[3.0, 3.0, 15.0][..]));
/// # Ok(()) }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __amp_algorithms_reduce_by_key {
    ($k:ident, $v:ident, $keys:expr, $values:expr, $keys_out:expr, $values_out:expr,
     $($op:ident)::+ $(,)?) => {{
        let __amp_keys: &$crate::ArrayView<'_, $k, 1> = $keys;
        let __amp_values: &$crate::ArrayView<'_, $v, 1> = $values;
        let __amp_keys_out: &mut $crate::ArrayViewMut<'_, $k, 1> = $keys_out;
        let __amp_values_out: &mut $crate::ArrayViewMut<'_, $v, 1> = $values_out;
        {
            use $crate::prelude::*;
            /// Each thread walks its chunk of `__FN_ITEMS` values: the runs that start and end in
            /// it are written to `out` (run `positions[i] - 1` ends before head `i`); `pre[c]` is
            /// the part before the chunk's first head of a run that started earlier, `suf[c]` the
            /// part of the run of the chunk's last element, whose run is `last[c]`.
            #[$crate::kernel(amp, allow(write_conflict))]
            fn __amp_chunks(
                idx: Index<1>,
                values: ArrayView<$v, 1>,
                flags: &Array<u32, 1>,
                positions: &Array<u32, 1>,
                out: ArrayViewMut<$v, 1>,
                pre: &mut Array<$v, 1>,
                suf: &mut Array<$v, 1>,
                last: &mut Array<u32, 1>,
            ) {
                let c = idx[0];
                let n = values.extent()[0];
                let start = c * $crate::algorithms::__FN_ITEMS;
                let end = min(start + $crate::algorithms::__FN_ITEMS, n);
                let mut acc = values[start];
                let mut open = flags[start] == 0;
                for i in start + 1..end {
                    if flags[i] == 1 {
                        if open {
                            pre[c] = acc;
                            open = false;
                        } else {
                            out[(positions[i] - 1) as usize] = acc;
                        }
                        acc = values[i];
                    } else {
                        acc = $($op)::+(acc, values[i]);
                    }
                }
                suf[c] = acc;
                last[c] = positions[end - 1] + flags[end - 1] - 1;
            }
            /// The runs that reach a chunk's end: `whole[s]` is run `s` combined over the
            /// chunks whose last element it holds; the chunk where it ends adds its `pre`.
            #[$crate::kernel(amp, allow(write_conflict))]
            fn __amp_finish(
                idx: Index<1>,
                last: &Array<u32, 1>,
                pre: &Array<$v, 1>,
                flags: &Array<u32, 1>,
                whole: &Array<$v, 1>,
                out: ArrayViewMut<$v, 1>,
            ) {
                let c = idx[0];
                let chunks = last.extent()[0];
                let s = last[c] as usize;
                let end = c + 1 == chunks;
                if end || last[c + 1] as usize != s {
                    let mut v = whole[s];
                    if !end && flags[(c + 1) * $crate::algorithms::__FN_ITEMS] == 0 {
                        v = $($op)::+(v, pre[c + 1]);
                    }
                    out[s] = v;
                }
            }
            /// `counts[c]` counts the run heads of chunk `c` (`chunk` keys): the first key,
            /// and each key `!=` the one before it.
            #[$crate::kernel(amp)]
            fn __amp_count_heads(
                idx: Index<1>,
                keys: ArrayView<$k, 1>,
                counts: &mut Array<u32, 1>,
                chunk: u32,
            ) {
                let n = keys.extent()[0];
                let start = idx[0] * chunk as usize;
                let end = min(start + chunk as usize, n);
                let mut heads = 0u32;
                if start == 0 || keys[start] != keys[start - 1] {
                    heads = 1;
                }
                // The key before `i` carried in a local: one load per key.
                let mut previous = keys[start];
                for i in start + 1..end {
                    let key = keys[i];
                    if key != previous {
                        heads += 1;
                    }
                    previous = key;
                }
                counts[idx] = heads;
            }
            /// Chunk `c` walks its keys in order: each run that starts and ends in it is
            /// written (run `offsets[c]` is the one its first head starts), with the key of its
            /// last run; `pre[c]` is its part of the run it starts inside, `suf[c]` its part of
            /// its last run.
            #[$crate::kernel(amp, allow(write_conflict))]
            fn __amp_run_chunks(
                idx: Index<1>,
                keys: ArrayView<$k, 1>,
                values: ArrayView<$v, 1>,
                offsets: &Array<u32, 1>,
                keys_out: ArrayViewMut<$k, 1>,
                values_out: ArrayViewMut<$v, 1>,
                pre: &mut Array<$v, 1>,
                suf: &mut Array<$v, 1>,
                chunk: u32,
            ) {
                let c = idx[0];
                let n = keys.extent()[0];
                let start = c * chunk as usize;
                let end = min(start + chunk as usize, n);
                let mut inside = start > 0 && keys[start] == keys[start - 1];
                let mut run = offsets[c] as usize;
                // The current run's first key and the key before `i`, carried in locals.
                let mut head = keys[start];
                let mut previous = head;
                let mut acc = values[start];
                for i in start + 1..end {
                    let key = keys[i];
                    if key != previous {
                        if inside {
                            pre[c] = acc;
                            inside = false;
                        } else {
                            keys_out[run] = head;
                            values_out[run] = acc;
                            run += 1;
                        }
                        head = key;
                        acc = values[i];
                    } else {
                        acc = $($op)::+(acc, values[i]);
                    }
                    previous = key;
                }
                if inside {
                    pre[c] = acc;
                } else {
                    keys_out[run] = head;
                    suf[c] = acc;
                }
            }
            /// One thread joins the runs that reach a chunk's end, in chunk order: a chunk's
            /// last run (`suf`) combined with the `pre` of each chunk it goes on into.
            #[$crate::kernel(amp, allow(write_conflict))]
            fn __amp_join_chunks(
                idx: Index<1>,
                keys: ArrayView<$k, 1>,
                counts: &Array<u32, 1>,
                offsets: &Array<u32, 1>,
                pre: &Array<$v, 1>,
                suf: &Array<$v, 1>,
                values_out: ArrayViewMut<$v, 1>,
                chunk: u32,
            ) {
                let chunks = counts.extent()[0];
                // Chunk 0 starts with a head: its last run is the first to carry.
                let mut run = (counts[idx] - 1) as usize;
                let mut acc = suf[idx];
                for c in 1..chunks {
                    let start = c * chunk as usize;
                    if keys[start] == keys[start - 1] {
                        acc = $($op)::+(acc, pre[c]);
                    }
                    if counts[c] > 0 {
                        values_out[run] = acc;
                        run = (offsets[c] + counts[c] - 1) as usize;
                        acc = suf[c];
                    }
                }
                values_out[run] = acc;
            }
            $crate::algorithms::__reduce_by_key::<$k, $v>(
                __amp_keys,
                __amp_values,
                __amp_keys_out,
                __amp_values_out,
                &$crate::algorithms::__SegmentKernels {
                    chunks: &|values, flags, positions, out, pre, suf, last| {
                        $crate::parallel_for_each(
                            pre.extent(),
                            __amp_chunks(values, flags, positions, out, pre, suf, last),
                        )
                    },
                    finish: &|last, pre, flags, whole, out| {
                        $crate::parallel_for_each(
                            last.extent(),
                            __amp_finish(last, pre, flags, whole, out),
                        )
                    },
                    native: $crate::algorithms::__ChunkSegments {
                        count: &|keys, counts, chunk| {
                            $crate::parallel_for_each(
                                counts.extent(),
                                __amp_count_heads(keys, counts, chunk),
                            )
                        },
                        runs: &|keys, values, offsets, keys_out, values_out, pre, suf, chunk| {
                            $crate::parallel_for_each(
                                offsets.extent(),
                                __amp_run_chunks(
                                    keys, values, offsets, keys_out, values_out, pre, suf, chunk,
                                ),
                            )
                        },
                        join: &|keys, counts, offsets, pre, suf, values_out, chunk| {
                            $crate::parallel_for_each(
                                $crate::Extent::new([1]),
                                __amp_join_chunks(
                                    keys, counts, offsets, pre, suf, values_out, chunk,
                                ),
                            )
                        },
                    },
                },
            )
        }
    }};
}
