//! Differential tests of the kernel language, device against CPU: for every scalar type and
//! every operator, a one-line kernel is run over random vectors (proptest) and compared with
//! the same operation in Rust on the host. Then casts between every pair of types, `bool`
//! scalars, compound assignments, and kernels with control flow whose body is compiled twice
//! from the same tokens: once by `#[kernel(amp)]` and once by rustc for the host.
//!
//! Semantics checked (the kernel language follows Rust's release-mode behaviour): integer
//! arithmetic wraps, shift amounts are masked by 31, float-to-int `as` saturates with NaN to 0,
//! float `min`/`max` ignore NaN. Integer division by zero (and `i32::MIN / -1`) is undefined on
//! the device and is kept out of the inputs. Floats: `+ - *` must be exact (a device may flush
//! subnormal results to zero, as Vulkan allows); `/` within 3 ULP (Vulkan allows 2.5); `%`
//! as Vulkan defines OpFRem (see `float_rem_check!`). f64 kernels run where the device has
//! `shaderFloat64` and must fail with `Error::MissingCapability` elsewhere.

use crate::common;
use common::assert_validation_clean;
use std::cmp::Ordering;
use std::fmt::Debug;

use amp::prelude::*;
use amp::{DeviceElement, KernelCall};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn fail(e: amp::Error) -> TestCaseError {
    TestCaseError::fail(format!("amp error: {e}"))
}

/// Every test case ends here: validation (when asked for) is on and reported nothing.
fn check_clean() -> Result<(), TestCaseError> {
    common::validation_clean().map_err(TestCaseError::fail)
}

fn double_supported() -> bool {
    Accelerator::default()
        .expect("a Vulkan device")
        .supports_double_precision()
}

/// Launches `call`; `Ok(false)` when the kernel needs `shaderFloat64` and the device does not
/// have it, in which case the launch must have failed with `MissingCapability`.
fn launch(domain: Extent<1>, call: KernelCall<'_, 1>) -> Result<bool, TestCaseError> {
    let needs_f64 = call.kernel().uses_float64;
    let result = parallel_for_each(domain, call);
    if needs_f64 && !double_supported() {
        prop_assert!(
            matches!(result, Err(amp::Error::MissingCapability { capability: "shaderFloat64", .. })),
            "an f64 kernel on a device without shaderFloat64 must fail with MissingCapability, got {result:?}"
        );
        return Ok(false);
    }
    result.map_err(fail)?;
    Ok(true)
}

/// Runs a kernel `(a, b) -> out` over two equally long vectors; `None` when the device lacks
/// `shaderFloat64` for an f64 kernel.
fn device2<A: DeviceElement, B: DeviceElement, R: DeviceElement + Default>(
    a: &[A],
    b: &[B],
    kernel: impl for<'k, 'v> Fn(
        &'k ArrayView<'v, A, 1>,
        &'k ArrayView<'v, B, 1>,
        &'k mut ArrayViewMut<'v, R, 1>,
    ) -> KernelCall<'k, 1>,
) -> Result<Option<Vec<R>>, TestCaseError> {
    let n = a.len();
    let mut out = vec![R::default(); n];
    {
        let av = ArrayView::new([n], a).map_err(fail)?;
        let bv = ArrayView::new([n], b).map_err(fail)?;
        let mut ov = ArrayViewMut::new([n], &mut out).map_err(fail)?;
        ov.discard_data();
        if !launch(ov.extent(), kernel(&av, &bv, &mut ov))? {
            return Ok(None);
        }
        ov.synchronize().map_err(fail)?;
    }
    Ok(Some(out))
}

/// Runs a kernel `a -> out`.
fn device1<A: DeviceElement, R: DeviceElement + Default>(
    a: &[A],
    kernel: impl for<'k, 'v> Fn(
        &'k ArrayView<'v, A, 1>,
        &'k mut ArrayViewMut<'v, R, 1>,
    ) -> KernelCall<'k, 1>,
) -> Result<Option<Vec<R>>, TestCaseError> {
    let n = a.len();
    let mut out = vec![R::default(); n];
    {
        let av = ArrayView::new([n], a).map_err(fail)?;
        let mut ov = ArrayViewMut::new([n], &mut out).map_err(fail)?;
        ov.discard_data();
        if !launch(ov.extent(), kernel(&av, &mut ov))? {
            return Ok(None);
        }
        ov.synchronize().map_err(fail)?;
    }
    Ok(Some(out))
}

/// Two vectors of the same length (1..=300), each pair passed through `fix` (to keep undefined
/// inputs, such as a zero divisor, out).
fn pairs<A: Debug + Clone + 'static, B: Debug + Clone + 'static>(
    a: impl Strategy<Value = A> + Clone + 'static,
    b: impl Strategy<Value = B> + Clone + 'static,
    fix: fn(A, B) -> (A, B),
) -> impl Strategy<Value = (Vec<A>, Vec<B>)> {
    prop::collection::vec((a, b), 1..=300)
        .prop_map(move |v| v.into_iter().map(|(x, y)| fix(x, y)).unzip())
}

fn keep<A, B>(a: A, b: B) -> (A, B) {
    (a, b)
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

fn i32s() -> BoxedStrategy<i32> {
    prop_oneof![
        4 => any::<i32>(),
        3 => -100i32..100,
        2 => prop::sample::select(vec![0, 1, -1, 2, 7, 31, 32, 33, -32, i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 1]),
    ]
    .boxed()
}

fn u32s() -> BoxedStrategy<u32> {
    prop_oneof![
        4 => any::<u32>(),
        3 => 0u32..200,
        2 => prop::sample::select(vec![0, 1, 2, 7, 31, 32, 33, 0x7fff_ffff, 0x8000_0000, u32::MAX, u32::MAX - 1]),
    ]
    .boxed()
}

/// Small magnitudes (`0..32`), both signs: shift amounts and bounded operands.
fn small_i32s() -> BoxedStrategy<i32> {
    prop_oneof![3 => 0i32..32, 1 => -64i32..64, 1 => any::<i32>()].boxed()
}

fn f32_specials() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        0.999_999_94,
        -0.999_999_94,
        1.5,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::EPSILON,
        16_777_216.0,
        2_147_483_520.0, // the largest f32 below 2^31
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0, // the next f32 below -2^31
        4_294_967_040.0,  // the largest f32 below 2^32
        4_294_967_296.0,
        1e10,
        -1e10,
        1e30,
        -1e30,
    ]
}

fn f64_specials() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        0.999_999_999_999,
        -0.999_999_999_999,
        1.5,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f32::MAX as f64 * 2.0,
        f32::MIN_POSITIVE as f64,
        16_777_217.0,
        2_147_483_647.0,
        2_147_483_647.9,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_648.9,
        -2_147_483_649.0,
        4_294_967_295.0,
        4_294_967_295.9,
        4_294_967_296.0,
        1e10,
        -1e10,
        1e300,
        -1e300,
    ]
}

/// Finite values of every magnitude, small integers, and the special values (NaN, infinities,
/// signed zeros, the bounds of i32 and u32); no subnormals, which a device may flush to zero.
fn f32s() -> BoxedStrategy<f32> {
    use proptest::num::f32 as f;
    prop_oneof![
        3 => -1000.0f32..1000.0,
        2 => (-64i32..=64).prop_map(|v| v as f32),
        3 => f::POSITIVE | f::NEGATIVE | f::NORMAL,
        2 => prop::sample::select(f32_specials()),
    ]
    .boxed()
}

fn f64s() -> BoxedStrategy<f64> {
    use proptest::num::f64 as f;
    prop_oneof![
        3 => -1000.0f64..1000.0,
        2 => (-64i32..=64).prop_map(|v| v as f64),
        3 => f::POSITIVE | f::NEGATIVE | f::NORMAL,
        2 => prop::sample::select(f64_specials()),
    ]
    .boxed()
}

/// Finite normal values whose magnitudes stay in `[2^-100, 2^100]`, where Vulkan's division
/// precision guarantee applies.
fn f32_divisors() -> BoxedStrategy<f32> {
    prop_oneof![
        3 => (1e-3f32..1e3, any::<bool>()).prop_map(|(v, neg)| if neg { -v } else { v }),
        2 => (1i32..=64, any::<bool>()).prop_map(|(v, neg)| if neg { -v as f32 } else { v as f32 }),
        2 => (-100i32..100, 1.0f32..2.0).prop_map(|(e, m)| m * 2f32.powi(e)),
    ]
    .boxed()
}

fn f64_divisors() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => (1e-3f64..1e3, any::<bool>()).prop_map(|(v, neg)| if neg { -v } else { v }),
        2 => (1i32..=64, any::<bool>()).prop_map(|(v, neg)| if neg { -v as f64 } else { v as f64 }),
        2 => (-100i32..100, 1.0f64..2.0).prop_map(|(e, m)| m * 2f64.powi(e)),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------------------------

/// How device results are compared with the CPU's.
trait Compare: Copy + Debug {
    /// Bit-exact (any NaN matches any NaN; a subnormal expected result may be flushed to zero).
    fn exact(got: Self, want: Self) -> bool;
    /// Equal as values: like `exact`, but `-0.0` matches `0.0` (for `min`/`max`, where Rust
    /// leaves the choice between zeros open).
    fn value(got: Self, want: Self) -> bool;
    /// Within 3 ULP (floats); exact for integers.
    fn ulps3(got: Self, want: Self) -> bool;
}

macro_rules! int_compare {
    ($($t:ty),*) => {$(
        impl Compare for $t {
            fn exact(got: Self, want: Self) -> bool { got == want }
            fn value(got: Self, want: Self) -> bool { got == want }
            fn ulps3(got: Self, want: Self) -> bool { got == want }
        }
    )*};
}
int_compare!(i32, u32);

macro_rules! float_compare {
    ($($t:ident),*) => {$(
        impl Compare for $t {
            fn exact(got: Self, want: Self) -> bool {
                (got.is_nan() && want.is_nan())
                    || got.to_bits() == want.to_bits()
                    // A device may flush denormal results, judged before rounding: a result
                    // that rounds up to the smallest normal may be flushed too.
                    || ((want.is_subnormal() || want.abs() == $t::MIN_POSITIVE) && got == 0.0)
            }
            fn value(got: Self, want: Self) -> bool {
                Self::exact(got, want) || got == want
            }
            fn ulps3(got: Self, want: Self) -> bool {
                if Self::exact(got, want) {
                    return true;
                }
                if got.is_nan() || want.is_nan() || got.is_infinite() || want.is_infinite() {
                    return false;
                }
                // Results near the subnormal range may be flushed.
                if want.abs() < $t::MIN_POSITIVE * 4.0 && got.abs() < $t::MIN_POSITIVE * 4.0 {
                    return true;
                }
                if got.is_sign_negative() != want.is_sign_negative() {
                    return false;
                }
                let (g, w) = (got.abs().to_bits(), want.abs().to_bits());
                g.max(w) - g.min(w) <= 3
            }
        }
    )*};
}
float_compare!(f32, f64);

// The checks the test macros take: `(device, cpu, first input, second input)`; unary tests pass
// `()` as the second input.

fn exact<T: Compare, A, B>(got: T, want: T, _: A, _: B) -> bool {
    T::exact(got, want)
}

fn value<T: Compare, A, B>(got: T, want: T, _: A, _: B) -> bool {
    T::value(got, want)
}

fn ulps3<T: Compare, A, B>(got: T, want: T, _: A, _: B) -> bool {
    T::ulps3(got, want)
}

/// Float `%`: Vulkan defines OpFRem's precision as "inherited from `x - y * trunc(x / y)`", and
/// a device may compute it that way (lavapipe does) instead of an exact `fmod`. So the result
/// must be within a few ULP of `max(|x|, |y|)` of Rust's `x % y`, keep its sign convention (the
/// sign of `x`, not of `y`), or, only where `x / y` is within rounding of an integer, be off
/// by one quotient step (`x % y -/+ y`).
macro_rules! float_rem_check {
    ($($fname:ident: $t:ident),*) => {$(
        fn $fname(got: $t, want: $t, x: $t, y: $t) -> bool {
            if $t::exact(got, want) {
                return true;
            }
            if got.is_nan() || want.is_nan() {
                return false;
            }
            let tol = 8.0 * $t::EPSILON * x.abs().max(y.abs());
            if (got - want).abs() <= tol {
                return true;
            }
            let near_integer_quotient = want.abs() <= tol || y.abs() - want.abs() <= tol;
            near_integer_quotient && ((got - (want - y)).abs() <= tol || (got - (want + y)).abs() <= tol)
        }
    )*};
}
float_rem_check!(rem_f32: f32, rem_f64: f64);

// ---------------------------------------------------------------------------------------------
// One kernel and one proptest per (type, operation)
// ---------------------------------------------------------------------------------------------

/// `binary!(name: (A, B) -> R { kernel body over a, b, out, idx }, strategy_a, strategy_b,
/// fix, cpu, compare)`: a kernel `name` and a test `name::matches_cpu`.
macro_rules! binary {
    ($name:ident: ($ta:ident, $tb:ident) -> $tr:ident { $($body:tt)* }, $sa:expr, $sb:expr, $fix:expr, $cpu:expr, $cmp:expr) => {
        #[kernel(amp)]
        fn $name(idx: Index<1>, a: ArrayView<$ta, 1>, b: ArrayView<$tb, 1>, out: ArrayViewMut<$tr, 1>) {
            $($body)*
        }

        mod $name {
            use super::*;

            proptest! {
                #![proptest_config(config())]
                #[test]
                fn matches_cpu((a, b) in pairs($sa, $sb, $fix)) {
                    let cpu: fn($ta, $tb) -> $tr = $cpu;
                    if let Some(got) = device2(&a, &b, super::$name)? {
                        for i in 0..a.len() {
                            let want = cpu(a[i], b[i]);
                            prop_assert!(
                                $cmp(got[i], want, a[i], b[i]),
                                "{}: a = {:?}, b = {:?}: device {:?}, cpu {:?}",
                                stringify!($name), a[i], b[i], got[i], want
                            );
                        }
                    }
                    check_clean()?;
                }
            }
        }
    };
}

/// `unary!(name: A -> R { kernel body over a, out, idx }, strategy, cpu, compare)`.
macro_rules! unary {
    ($name:ident: $ta:ident -> $tr:ident { $($body:tt)* }, $sa:expr, $cpu:expr, $cmp:expr) => {
        #[kernel(amp)]
        fn $name(idx: Index<1>, a: ArrayView<$ta, 1>, out: ArrayViewMut<$tr, 1>) {
            $($body)*
        }

        mod $name {
            use super::*;

            proptest! {
                #![proptest_config(config())]
                #[test]
                fn matches_cpu(a in prop::collection::vec($sa, 1..=300)) {
                    let cpu: fn($ta) -> $tr = $cpu;
                    if let Some(got) = device1(&a, super::$name)? {
                        for i in 0..a.len() {
                            let want = cpu(a[i]);
                            prop_assert!(
                                $cmp(got[i], want, a[i], ()),
                                "{}: a = {:?}: device {:?}, cpu {:?}",
                                stringify!($name), a[i], got[i], want
                            );
                        }
                    }
                    check_clean()?;
                }
            }
        }
    };
}

/// `a[idx] op b[idx]` for operators whose result has the operand type.
macro_rules! arith {
    ($t:ident, $sa:expr, $sb:expr, $cmp:expr; $($name:ident: $op:tt, $fix:expr, $cpu:expr;)*) => {$(
        binary!($name: ($t, $t) -> $t { out[idx] = a[idx] $op b[idx]; }, $sa, $sb, $fix, $cpu, $cmp);
    )*};
}

/// Comparisons, written to the output as `u32` 0 or 1.
macro_rules! compare {
    ($t:ident, $s:expr; $($name:ident: $op:tt;)*) => {$(
        binary!(
            $name: ($t, $t) -> u32 { out[idx] = (a[idx] $op b[idx]) as u32; },
            $s, $s, keep, |x, y| u32::from(x $op y), exact
        );
    )*};
}

fn nonzero_i32(x: i32, y: i32) -> (i32, i32) {
    if y == 0 || (x == i32::MIN && y == -1) {
        (x, 1)
    } else {
        (x, y)
    }
}

fn nonzero_u32(x: u32, y: u32) -> (u32, u32) {
    (x, if y == 0 { 1 } else { y })
}

// ----- i32 -----

arith!(i32, i32s(), i32s(), exact;
    i32_add: +, keep, |x, y| x.wrapping_add(y);
    i32_sub: -, keep, |x, y| x.wrapping_sub(y);
    i32_mul: *, keep, |x, y| x.wrapping_mul(y);
    i32_div: /, nonzero_i32, |x, y| x.wrapping_div(y);
    i32_rem: %, nonzero_i32, |x, y| x.wrapping_rem(y);
    i32_and: &, keep, |x, y| x & y;
    i32_or: |, keep, |x, y| x | y;
    i32_xor: ^, keep, |x, y| x ^ y;
);
arith!(i32, i32s(), small_i32s(), exact;
    i32_shl: <<, keep, |x, y| x.wrapping_shl(y as u32);
    i32_shr: >>, keep, |x, y| x.wrapping_shr(y as u32);
);
compare!(i32, i32s();
    i32_eq: ==; i32_ne: !=; i32_lt: <; i32_le: <=; i32_gt: >; i32_ge: >=;
);

// ----- u32 -----

arith!(u32, u32s(), u32s(), exact;
    u32_add: +, keep, |x, y| x.wrapping_add(y);
    u32_sub: -, keep, |x, y| x.wrapping_sub(y);
    u32_mul: *, keep, |x, y| x.wrapping_mul(y);
    u32_div: /, nonzero_u32, |x, y| x / y;
    u32_rem: %, nonzero_u32, |x, y| x % y;
    u32_and: &, keep, |x, y| x & y;
    u32_or: |, keep, |x, y| x | y;
    u32_xor: ^, keep, |x, y| x ^ y;
);
arith!(u32, u32s(), small_i32s().prop_map(|v| v as u32), exact;
    u32_shl: <<, keep, |x, y| x.wrapping_shl(y);
    u32_shr: >>, keep, |x, y| x.wrapping_shr(y);
);
compare!(u32, u32s();
    u32_eq: ==; u32_ne: !=; u32_lt: <; u32_le: <=; u32_gt: >; u32_ge: >=;
);

// Shift amounts of the other integer type.
binary!(i32_shl_u32: (i32, u32) -> i32 { out[idx] = a[idx] << b[idx]; },
    i32s(), small_i32s().prop_map(|v| v as u32), keep, |x, y| x.wrapping_shl(y), exact);
binary!(i32_shr_u32: (i32, u32) -> i32 { out[idx] = a[idx] >> b[idx]; },
    i32s(), small_i32s().prop_map(|v| v as u32), keep, |x, y| x.wrapping_shr(y), exact);
binary!(u32_shl_i32: (u32, i32) -> u32 { out[idx] = a[idx] << b[idx]; },
    u32s(), small_i32s(), keep, |x, y| x.wrapping_shl(y as u32), exact);
binary!(u32_shr_i32: (u32, i32) -> u32 { out[idx] = a[idx] >> b[idx]; },
    u32s(), small_i32s(), keep, |x, y| x.wrapping_shr(y as u32), exact);

// ----- f32 -----

arith!(f32, f32s(), f32s(), exact;
    f32_add: +, keep, |x, y| x + y;
    f32_sub: -, keep, |x, y| x - y;
    f32_mul: *, keep, |x, y| x * y;
);
arith!(f32, f32s(), f32_divisors(), ulps3;
    f32_div: /, keep, |x, y| x / y;
);
compare!(f32, f32s();
    f32_eq: ==; f32_ne: !=; f32_lt: <; f32_le: <=; f32_gt: >; f32_ge: >=;
);

// ----- f64 -----

arith!(f64, f64s(), f64s(), exact;
    f64_add: +, keep, |x, y| x + y;
    f64_sub: -, keep, |x, y| x - y;
    f64_mul: *, keep, |x, y| x * y;
);
arith!(f64, f64s(), f64_divisors(), ulps3;
    f64_div: /, keep, |x, y| x / y;
);
compare!(f64, f64s();
    f64_eq: ==; f64_ne: !=; f64_lt: <; f64_le: <=; f64_gt: >; f64_ge: >=;
);

/// Keeps `|x / y|` below 2^20 for float `%`: beyond that, a result computed as
/// `x - y * trunc(x / y)` (which Vulkan allows) has no correct digits left to compare.
macro_rules! bounded_quotient {
    ($($fname:ident: $t:ident),*) => {$(
        fn $fname(x: $t, y: $t) -> ($t, $t) {
            let limit = 1_048_576.0;
            if x.is_finite() && (x / y).abs() > limit {
                (x % (y * limit), y)
            } else {
                (x, y)
            }
        }
    )*};
}
bounded_quotient!(bounded_quotient_f32: f32, bounded_quotient_f64: f64);

arith!(f32, f32s(), f32_divisors(), rem_f32;
    f32_rem: %, bounded_quotient_f32, |x, y| x % y;
);
arith!(f64, f64s(), f64_divisors(), rem_f64;
    f64_rem: %, bounded_quotient_f64, |x, y| x % y;
);

// ----- unary operators, min / max / abs -----

unary!(i32_neg: i32 -> i32 { out[idx] = -a[idx]; }, i32s(), |x| x.wrapping_neg(), exact);
unary!(f32_neg: f32 -> f32 { out[idx] = -a[idx]; }, f32s(), |x| -x, exact);
unary!(f64_neg: f64 -> f64 { out[idx] = -a[idx]; }, f64s(), |x| -x, exact);
unary!(i32_not: i32 -> i32 { out[idx] = !a[idx]; }, i32s(), |x| !x, exact);
unary!(u32_not: u32 -> u32 { out[idx] = !a[idx]; }, u32s(), |x| !x, exact);

unary!(i32_abs_fn: i32 -> i32 { out[idx] = abs(a[idx]); }, i32s(), |x| x.wrapping_abs(), exact);
unary!(i32_abs_method: i32 -> i32 { out[idx] = a[idx].abs(); }, i32s(), |x| x.wrapping_abs(), exact);
unary!(f32_abs_fn: f32 -> f32 { out[idx] = abs(a[idx]); }, f32s(), |x| x.abs(), exact);
unary!(f32_abs_method: f32 -> f32 { let x = a[idx]; out[idx] = x.abs(); }, f32s(), |x| x.abs(), exact);
unary!(f64_abs_fn: f64 -> f64 { out[idx] = abs(a[idx]); }, f64s(), |x| x.abs(), exact);
unary!(f64_abs_method: f64 -> f64 { out[idx] = a[idx].abs(); }, f64s(), |x| x.abs(), exact);

/// `min` and `max` in their free-function and method forms (and the `T::min` / `std::cmp`
/// paths); float versions ignore NaN like Rust's `f32::min`.
macro_rules! min_max {
    ($t:ident, $s:expr; $($name:ident { $($body:tt)* } => $cpu:expr;)*) => {$(
        binary!($name: ($t, $t) -> $t { $($body)* }, $s, $s, keep, $cpu, value);
    )*};
}

min_max!(i32, i32s();
    i32_min_fn { out[idx] = min(a[idx], b[idx]); } => |x, y| x.min(y);
    i32_max_fn { out[idx] = max(a[idx], b[idx]); } => |x, y| x.max(y);
    i32_min_method { out[idx] = a[idx].min(b[idx]); } => |x, y| x.min(y);
    i32_max_method { out[idx] = a[idx].max(b[idx]); } => |x, y| x.max(y);
    i32_min_path { out[idx] = std::cmp::min(a[idx], b[idx]); } => |x, y| x.min(y);
);
min_max!(u32, u32s();
    u32_min_fn { out[idx] = min(a[idx], b[idx]); } => |x, y| x.min(y);
    u32_max_fn { out[idx] = max(a[idx], b[idx]); } => |x, y| x.max(y);
    u32_min_method { out[idx] = a[idx].min(b[idx]); } => |x, y| x.min(y);
    u32_max_method { let x = a[idx]; out[idx] = x.max(b[idx]); } => |x, y| x.max(y);
    u32_max_path { out[idx] = u32::max(a[idx], b[idx]); } => |x, y| x.max(y);
);
min_max!(f32, f32s();
    f32_min_fn { out[idx] = min(a[idx], b[idx]); } => |x, y| x.min(y);
    f32_max_fn { out[idx] = max(a[idx], b[idx]); } => |x, y| x.max(y);
    f32_min_method { out[idx] = a[idx].min(b[idx]); } => |x, y| x.min(y);
    f32_max_method { out[idx] = a[idx].max(b[idx]); } => |x, y| x.max(y);
    f32_min_path { out[idx] = f32::min(a[idx], b[idx]); } => |x, y| x.min(y);
);
min_max!(f64, f64s();
    f64_min_fn { out[idx] = min(a[idx], b[idx]); } => |x, y| x.min(y);
    f64_max_fn { out[idx] = max(a[idx], b[idx]); } => |x, y| x.max(y);
    f64_min_method { out[idx] = a[idx].min(b[idx]); } => |x, y| x.min(y);
    f64_max_method { out[idx] = a[idx].max(b[idx]); } => |x, y| x.max(y);
    f64_max_path { out[idx] = f64::max(a[idx], b[idx]); } => |x, y| x.max(y);
);

// ----- `as` between every pair of scalar types -----

macro_rules! casts {
    ($($name:ident: $from:ident -> $to:ident, $s:expr;)*) => {$(
        unary!($name: $from -> $to { out[idx] = a[idx] as $to; }, $s, |x| x as $to, exact);
    )*};
}

casts!(
    i32_as_i32: i32 -> i32, i32s();
    i32_as_u32: i32 -> u32, i32s();
    i32_as_f32: i32 -> f32, i32s();
    i32_as_f64: i32 -> f64, i32s();
    u32_as_i32: u32 -> i32, u32s();
    u32_as_u32: u32 -> u32, u32s();
    u32_as_f32: u32 -> f32, u32s();
    u32_as_f64: u32 -> f64, u32s();
    f32_as_i32: f32 -> i32, f32s();
    f32_as_u32: f32 -> u32, f32s();
    f32_as_f32: f32 -> f32, f32s();
    f32_as_f64: f32 -> f64, f32s();
    f64_as_i32: f64 -> i32, f64s();
    f64_as_u32: f64 -> u32, f64s();
    f64_as_f32: f64 -> f32, f64s();
    f64_as_f64: f64 -> f64, f64s();
);

// `usize` is 32 bits on the device; through `as u32` the host's 64-bit `usize` gives the same
// bits for these conversions.
unary!(i32_as_usize_as_u32: i32 -> u32 { out[idx] = a[idx] as usize as u32; }, i32s(), |x| x as usize as u32, exact);
unary!(u32_as_usize_as_i32: u32 -> i32 { out[idx] = a[idx] as usize as i32; }, u32s(), |x| x as usize as i32, exact);
unary!(
    f32_as_usize_as_u32: f32 -> u32 { out[idx] = a[idx] as usize as u32; },
    prop_oneof![-1e3f32..4e9, prop::sample::select(vec![f32::NAN, f32::NEG_INFINITY, -0.5, 4_294_967_040.0])],
    |x| x as usize as u32,
    exact
);
// A chain of conversions in one expression.
unary!(
    f64_cast_chain: f64 -> i32 { out[idx] = a[idx] as f32 as u32 as i32; },
    f64s(),
    |x| x as f32 as u32 as i32,
    exact
);

// ----- compound assignment -----
//
// Each type writes through a different kind of place: i32 a local, u32 a view element, f32 a
// local array element, f64 a view element again.

macro_rules! compound_i32 {
    ($($name:ident: $op:tt, $sb:expr, $fix:expr, $cpu:expr;)*) => {$(
        binary!($name: (i32, i32) -> i32 { let mut x = a[idx]; x $op b[idx]; out[idx] = x; }, i32s(), $sb, $fix, $cpu, exact);
    )*};
}
compound_i32!(
    i32_add_assign: +=, i32s(), keep, |x, y| x.wrapping_add(y);
    i32_sub_assign: -=, i32s(), keep, |x, y| x.wrapping_sub(y);
    i32_mul_assign: *=, i32s(), keep, |x, y| x.wrapping_mul(y);
    i32_div_assign: /=, i32s(), nonzero_i32, |x, y| x.wrapping_div(y);
    i32_rem_assign: %=, i32s(), nonzero_i32, |x, y| x.wrapping_rem(y);
    i32_and_assign: &=, i32s(), keep, |x, y| x & y;
    i32_or_assign: |=, i32s(), keep, |x, y| x | y;
    i32_xor_assign: ^=, i32s(), keep, |x, y| x ^ y;
    i32_shl_assign: <<=, small_i32s(), keep, |x, y| x.wrapping_shl(y as u32);
    i32_shr_assign: >>=, small_i32s(), keep, |x, y| x.wrapping_shr(y as u32);
);

macro_rules! compound_u32 {
    ($($name:ident: $op:tt, $sb:expr, $fix:expr, $cpu:expr;)*) => {$(
        binary!($name: (u32, u32) -> u32 { out[idx] = a[idx]; out[idx] $op b[idx]; }, u32s(), $sb, $fix, $cpu, exact);
    )*};
}
compound_u32!(
    u32_add_assign: +=, u32s(), keep, |x, y| x.wrapping_add(y);
    u32_sub_assign: -=, u32s(), keep, |x, y| x.wrapping_sub(y);
    u32_mul_assign: *=, u32s(), keep, |x, y| x.wrapping_mul(y);
    u32_div_assign: /=, u32s(), nonzero_u32, |x, y| x / y;
    u32_rem_assign: %=, u32s(), nonzero_u32, |x, y| x % y;
    u32_and_assign: &=, u32s(), keep, |x, y| x & y;
    u32_or_assign: |=, u32s(), keep, |x, y| x | y;
    u32_xor_assign: ^=, u32s(), keep, |x, y| x ^ y;
    u32_shl_assign: <<=, small_i32s().prop_map(|v| v as u32), keep, |x, y| x.wrapping_shl(y);
    u32_shr_assign: >>=, small_i32s().prop_map(|v| v as u32), keep, |x, y| x.wrapping_shr(y);
);
// A shift amount of the other type, into a view element.
binary!(i32_shl_assign_u32: (i32, u32) -> i32 { out[idx] = a[idx]; out[idx] <<= b[idx]; },
    i32s(), small_i32s().prop_map(|v| v as u32), keep, |x, y| x.wrapping_shl(y), exact);

macro_rules! compound_f32 {
    ($($name:ident: $op:tt, $sb:expr, $fix:expr, $cpu:expr, $cmp:expr;)*) => {$(
        binary!(
            $name: (f32, f32) -> f32 {
                let mut v = [a[idx]; 3];
                v[idx[0] % 3] $op b[idx];
                out[idx] = v[idx[0] % 3];
            },
            f32s(), $sb, $fix, $cpu, $cmp
        );
    )*};
}
compound_f32!(
    f32_add_assign: +=, f32s(), keep, |x, y| x + y, exact;
    f32_sub_assign: -=, f32s(), keep, |x, y| x - y, exact;
    f32_mul_assign: *=, f32s(), keep, |x, y| x * y, exact;
    f32_div_assign: /=, f32_divisors(), keep, |x, y| x / y, ulps3;
    f32_rem_assign: %=, f32_divisors(), bounded_quotient_f32, |x, y| x % y, rem_f32;
);

macro_rules! compound_f64 {
    ($($name:ident: $op:tt, $sb:expr, $fix:expr, $cpu:expr, $cmp:expr;)*) => {$(
        binary!($name: (f64, f64) -> f64 { out[idx] = a[idx]; out[idx] $op b[idx]; }, f64s(), $sb, $fix, $cpu, $cmp);
    )*};
}
compound_f64!(
    f64_add_assign: +=, f64s(), keep, |x, y| x + y, exact;
    f64_sub_assign: -=, f64s(), keep, |x, y| x - y, exact;
    f64_mul_assign: *=, f64s(), keep, |x, y| x * y, exact;
    f64_div_assign: /=, f64_divisors(), keep, |x, y| x / y, ulps3;
    f64_rem_assign: %=, f64_divisors(), bounded_quotient_f64, |x, y| x % y, rem_f64;
);

// ---------------------------------------------------------------------------------------------
// Kernels compiled twice: for the device by `#[kernel(amp)]` and for the host by rustc
// ---------------------------------------------------------------------------------------------

/// Host stand-ins for the kernel's index and views, so a kernel body also compiles as plain
/// Rust: `a[idx]`, `a[[i]]`, `idx[0]`, `a.extent()[0]`, `out[idx] = v`.
mod host {
    use std::ops::{Index, IndexMut};

    /// The kernel language's free functions `min`, `max` and `abs`, with the semantics of the
    /// inherent methods (floats ignore NaN in `min` / `max`).
    pub trait Builtins: Copy {
        fn min_(self, other: Self) -> Self;
        fn max_(self, other: Self) -> Self;
        fn abs_(self) -> Self;
    }

    macro_rules! builtins {
        ($($t:ty),*) => {$(
            impl Builtins for $t {
                fn min_(self, other: Self) -> Self { self.min(other) }
                fn max_(self, other: Self) -> Self { self.max(other) }
                fn abs_(self) -> Self { self.abs() }
            }
        )*};
    }
    builtins!(i32, f32, f64);

    impl Builtins for u32 {
        fn min_(self, other: Self) -> Self {
            self.min(other)
        }
        fn max_(self, other: Self) -> Self {
            self.max(other)
        }
        fn abs_(self) -> Self {
            self
        }
    }

    pub fn min<T: Builtins>(a: T, b: T) -> T {
        a.min_(b)
    }

    pub fn max<T: Builtins>(a: T, b: T) -> T {
        a.max_(b)
    }

    #[allow(dead_code)]
    pub fn abs<T: Builtins>(a: T) -> T {
        a.abs_()
    }

    #[derive(Clone, Copy, Debug)]
    pub struct Idx(pub [usize; 1]);

    impl Index<usize> for Idx {
        type Output = usize;
        fn index(&self, k: usize) -> &usize {
            &self.0[k]
        }
    }

    pub struct View<'a, T>(pub &'a [T]);

    impl<T> View<'_, T> {
        pub fn extent(&self) -> [usize; 1] {
            [self.0.len()]
        }
    }

    impl<T> Index<Idx> for View<'_, T> {
        type Output = T;
        fn index(&self, i: Idx) -> &T {
            &self.0[i.0[0]]
        }
    }

    impl<T> Index<[usize; 1]> for View<'_, T> {
        type Output = T;
        fn index(&self, i: [usize; 1]) -> &T {
            &self.0[i[0]]
        }
    }

    pub struct ViewMut<'a, T>(pub &'a mut [T]);

    impl<T> ViewMut<'_, T> {
        pub fn extent(&self) -> [usize; 1] {
            [self.0.len()]
        }
    }

    impl<T> Index<Idx> for ViewMut<'_, T> {
        type Output = T;
        fn index(&self, i: Idx) -> &T {
            &self.0[i.0[0]]
        }
    }

    impl<T> IndexMut<Idx> for ViewMut<'_, T> {
        fn index_mut(&mut self, i: Idx) -> &mut T {
            &mut self.0[i.0[0]]
        }
    }

    impl<T> Index<[usize; 1]> for ViewMut<'_, T> {
        type Output = T;
        fn index(&self, i: [usize; 1]) -> &T {
            &self.0[i[0]]
        }
    }

    impl<T> IndexMut<[usize; 1]> for ViewMut<'_, T> {
        fn index_mut(&mut self, i: [usize; 1]) -> &mut T {
            &mut self.0[i[0]]
        }
    }
}

use host::{Idx, View, ViewMut};

/// `twin! { fn name(kernel parameters) host(host parameters) { body } }`: the kernel `name`
/// and `name::cpu`, the same body compiled for the host.
macro_rules! twin {
    (fn $name:ident($($kp:tt)*) host($($hp:tt)*) $body:tt) => {
        // Attributes other than `#[kernel(amp)]` go to the launcher.
        #[allow(clippy::too_many_arguments)]
        #[kernel(amp)]
        fn $name($($kp)*) $body

        mod $name {
            #[allow(unused_imports)]
            use super::host::*;

            #[allow(clippy::all, unused_mut, unused_parens, unused_variables, unused_assignments, unused_braces)]
            pub fn cpu($($hp)*) $body
        }
    };
}

twin! {
    fn flow_i32(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, s: i32)
    host(idx: Idx, a: View<i32>, out: &mut ViewMut<i32>, s: i32)
    {
        let x = a[idx];
        let i = idx[0];
        // Early return.
        if x < -900 {
            out[idx] = -1;
            return;
        }
        // A local array, filled by `for a..b`.
        let mut arr = [0; 8];
        for k in 0..8 {
            arr[k] = x * (k as i32) - s;
        }
        let mut copy = [x; 4];
        // `while` with `continue`.
        let mut acc = 0;
        let mut j = 0;
        while j < 8 {
            j += 1;
            if arr[j - 1] % 3 == 0 {
                continue;
            }
            acc += arr[j - 1];
        }
        // `loop` with `break`.
        let mut n = 0;
        loop {
            n += 1;
            if n * n > x.abs() % 50 {
                break;
            }
        }
        // `step_by` and an inclusive range.
        let mut t = 0;
        for k in (0..20).step_by(3) {
            t += k;
        }
        for k in 1..=(i % 5) {
            t -= k as i32;
            copy[k % 4] += 1;
        }
        // `if` / `else if` / `else` as an expression.
        let sign = if x > 0 { 1 } else if x < 0 { -1 } else { 0 };
        // Early return from inside a loop; `break` out of a `for`.
        for k in 0..a.extent()[0] {
            if k == 7 && x % 2 == 0 {
                out[idx] = acc + n + t + sign + i32::MAX % 1000;
                return;
            }
            if k > 7 {
                break;
            }
        }
        // Nested loops with a flag instead of a labelled break.
        let mut found = -1;
        let mut r = 0;
        while r < 4 && found < 0 {
            for c in 0..4 {
                if (r * 4 + c) as i32 == (x.abs() + s.abs()) % 16 {
                    found = (r * 10 + c) as i32;
                    break;
                }
            }
            r += 1;
        }
        // The free-function forms of the builtins; the output's extent.
        let m = max(abs(x), min(s.abs(), 500)) % 17 + (out.extent()[0] % 3) as i32;
        out[idx] = acc + n * 1000 + t + sign * 7 + copy[0] + copy[1] * 2 + copy[2] * 3 + copy[3] * 4 + found * 100_000 + m;
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn flow_i32_matches_cpu(a in prop::collection::vec(-1000i32..1000, 1..=300), s in -1000i32..1000) {
        let n = a.len();
        let mut got = vec![0; n];
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            launch(ov.extent(), flow_i32(&av, &mut ov, s))?;
            ov.synchronize().map_err(fail)?;
        }
        let mut want = vec![0; n];
        for i in 0..n {
            flow_i32::cpu(Idx([i]), View(&a), &mut ViewMut(&mut want), s);
        }
        prop_assert_eq!(got, want);
        check_clean()?;
    }
}

twin! {
    fn flow_f32(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, scale: f32)
    host(idx: Idx, a: View<f32>, b: View<f32>, out: &mut ViewMut<f32>, scale: f32)
    {
        let x = a[idx];
        let y = b[[idx[0]]];
        let mut buf: [f32; 8] = [0.0; 8];
        let mut k = 0;
        while k < 8 {
            buf[k] = x * (k as f32) + y;
            k += 1;
        }
        let mut best = f32::NEG_INFINITY;
        let mut sum = 0.0;
        for v in 0..8 {
            let e = buf[v];
            if e.abs() > 300.0 {
                continue;
            }
            best = best.max(e);
            sum += if e < 0.0 { -e } else { e * scale };
        }
        if best == f32::NEG_INFINITY {
            out[idx] = -0.0;
            return;
        }
        let mut steps = 0;
        let mut z = sum;
        loop {
            if z < 1.0 || steps >= 40 {
                break;
            }
            z = z * 0.5;
            steps += 1;
        }
        out[idx] = best + sum * 0.25 - (steps as f32) + z + min(x, y) - y.max(x).abs();
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn flow_f32_matches_cpu(
        (a, b) in pairs((-64i32..64).prop_map(|v| v as f32), (-64i32..64).prop_map(|v| v as f32), keep),
        scale in prop::sample::select(vec![0.5f32, 1.0, 2.0, 3.0, -1.5]),
    ) {
        let n = a.len();
        let mut got = vec![0.0; n];
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let bv = ArrayView::new([n], &b).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            launch(ov.extent(), flow_f32(&av, &bv, &mut ov, scale))?;
            ov.synchronize().map_err(fail)?;
        }
        let mut want = vec![0.0; n];
        for i in 0..n {
            flow_f32::cpu(Idx([i]), View(&a), View(&b), &mut ViewMut(&mut want), scale);
        }
        for i in 0..n {
            prop_assert!(f32::exact(got[i], want[i]), "a = {}, b = {}: device {}, cpu {}", a[i], b[i], got[i], want[i]);
        }
        check_clean()?;
    }
}

twin! {
    fn flow_f64(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>, limit: f64, rounds: u32)
    host(idx: Idx, a: View<f64>, out: &mut ViewMut<f64>, limit: f64, rounds: u32)
    {
        let x = a[idx];
        let mut hist = [0.0f64; 8];
        let mut v = x;
        let mut round = 0u32;
        while round < rounds {
            let slot = (round % 8) as usize;
            hist[slot] = hist[slot] + v;
            v = if v > limit { v - limit * 2.0 } else if v < -limit { v + limit * 3.0 } else { v * 2.0 };
            round += 1;
            if v == 0.0 {
                break;
            }
        }
        let mut total = 0.0;
        for s in (0..8).step_by(2) {
            total += hist[s] - hist[s + 1];
        }
        out[idx] = total + v;
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn flow_f64_matches_cpu(
        a in prop::collection::vec((-1000i32..1000).prop_map(|v| v as f64 / 8.0), 1..=300),
        limit in 1.0f64..500.0,
        rounds in 0u32..30,
    ) {
        let limit = limit.round();
        let n = a.len();
        let mut got = vec![0.0; n];
        let ran;
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            ran = launch(ov.extent(), flow_f64(&av, &mut ov, limit, rounds))?;
            ov.synchronize().map_err(fail)?;
        }
        if ran {
            let mut want = vec![0.0; n];
            for i in 0..n {
                flow_f64::cpu(Idx([i]), View(&a), &mut ViewMut(&mut want), limit, rounds);
            }
            for i in 0..n {
                prop_assert!(f64::exact(got[i], want[i]), "a = {}: device {}, cpu {}", a[i], got[i], want[i]);
            }
        }
        check_clean()?;
    }
}

// ----- bool scalars, logic, short-circuit evaluation -----

twin! {
    fn logic(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<i32, 1>, out: ArrayViewMut<u32, 1>, p: bool, q: bool)
    host(idx: Idx, a: View<i32>, b: View<i32>, out: &mut ViewMut<u32>, p: bool, q: bool)
    {
        let x = a[idx] < b[idx];
        let y = a[idx] == b[idx] || p;
        let z = !q && x;
        let w = (x ^ p) | (y & q);
        let v = x == p;
        let u = y != q;
        let mut count = 0u32;
        if p {
            count += 1;
        }
        if !q {
            count += 2;
        }
        let c = if x && !y { 1 } else { 0 };
        let mut flags = [false; 4];
        flags[0] = p && q;
        flags[1] = p || q;
        flags[2] = !(p ^ q);
        flags[3] = flags[0] != x;
        // The right operand runs only when the left one does not decide.
        let mut evaluated = 0;
        let s1 = a[idx] > 0 && {
            evaluated += 1;
            b[idx] > 0
        };
        let s2 = a[idx] > 0 || {
            evaluated += 10;
            b[idx] < 0
        };
        out[idx] = (x as u32)
            | ((y as u32) << 1)
            | ((z as u32) << 2)
            | ((w as u32) << 3)
            | ((v as u32) << 4)
            | ((u as u32) << 5)
            | (count << 6)
            | ((c as u32) << 8)
            | ((flags[0] as u32) << 9)
            | ((flags[1] as u32) << 10)
            | ((flags[2] as u32) << 11)
            | ((flags[3] as u32) << 12)
            | ((s1 as u32) << 13)
            | ((s2 as u32) << 14)
            | ((evaluated as u32) << 16)
            | (((p as i32 - q as i32 + 1) as u32) << 24);
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn logic_matches_cpu((a, b) in pairs(-3i32..3, -3i32..3, keep), p in any::<bool>(), q in any::<bool>()) {
        let n = a.len();
        let mut got = vec![0; n];
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let bv = ArrayView::new([n], &b).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            launch(ov.extent(), logic(&av, &bv, &mut ov, p, q))?;
            ov.synchronize().map_err(fail)?;
        }
        let mut want = vec![0; n];
        for i in 0..n {
            logic::cpu(Idx([i]), View(&a), View(&b), &mut ViewMut(&mut want), p, q);
        }
        prop_assert_eq!(got, want);
        check_clean()?;
    }
}

// ----- scalar parameters of every type -----

twin! {
    fn scalars(
        idx: Index<1>, a: ArrayView<i32, 1>, out_i: ArrayViewMut<i32, 1>, out_u: ArrayViewMut<u32, 1>,
        out_f: ArrayViewMut<f32, 1>, si: i32, flag: bool, su: u32, sf: f32
    )
    host(
        idx: Idx, a: View<i32>, out_i: &mut ViewMut<i32>, out_u: &mut ViewMut<u32>,
        out_f: &mut ViewMut<f32>, si: i32, flag: bool, su: u32, sf: f32
    )
    {
        let x = a[idx];
        out_i[idx] = x * si + flag as i32;
        out_u[idx] = (x as u32) ^ su;
        out_f[idx] = x as f32 * sf + if flag { 0.5 } else { -0.25 };
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn scalars_match_cpu(
        a in prop::collection::vec(-30000i32..30000, 1..=300),
        si in -30000i32..30000,
        flag in any::<bool>(),
        su in any::<u32>(),
        sf in (-64i32..64).prop_map(|v| v as f32 / 4.0),
    ) {
        let n = a.len();
        let (mut gi, mut gu, mut gf) = (vec![0; n], vec![0; n], vec![0.0; n]);
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut oi = ArrayViewMut::new([n], &mut gi).map_err(fail)?;
            let mut ou = ArrayViewMut::new([n], &mut gu).map_err(fail)?;
            let mut of = ArrayViewMut::new([n], &mut gf).map_err(fail)?;
            launch(oi.extent(), scalars(&av, &mut oi, &mut ou, &mut of, si, flag, su, sf))?;
            oi.synchronize().map_err(fail)?;
            ou.synchronize().map_err(fail)?;
            of.synchronize().map_err(fail)?;
        }
        let (mut wi, mut wu, mut wf) = (vec![0; n], vec![0; n], vec![0.0; n]);
        for i in 0..n {
            scalars::cpu(Idx([i]), View(&a), &mut ViewMut(&mut wi), &mut ViewMut(&mut wu), &mut ViewMut(&mut wf), si, flag, su, sf);
        }
        prop_assert_eq!(gi, wi);
        prop_assert_eq!(gu, wu);
        prop_assert_eq!(gf, wf);
        check_clean()?;
    }
}

// f64 scalars between 4-byte ones: the push-constant block must align them to 8 bytes.
twin! {
    fn scalars_f64(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>, flag: bool, d: f64, u: u32, e: f64, f: f32, i: i32)
    host(idx: Idx, a: View<f64>, out: &mut ViewMut<f64>, flag: bool, d: f64, u: u32, e: f64, f: f32, i: i32)
    {
        let base = a[idx] * d + e;
        out[idx] = if flag { base + u as f64 } else { base - f as f64 } + i as f64;
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn scalars_f64_match_cpu(
        a in prop::collection::vec(f64s(), 1..=300),
        flag in any::<bool>(),
        d in f64s(),
        u in u32s(),
        e in f64s(),
        f in f32s(),
        i in i32s(),
    ) {
        let n = a.len();
        let mut got = vec![0.0; n];
        let ran;
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            ran = launch(ov.extent(), scalars_f64(&av, &mut ov, flag, d, u, e, f, i))?;
            ov.synchronize().map_err(fail)?;
        }
        if ran {
            let mut want = vec![0.0; n];
            for k in 0..n {
                scalars_f64::cpu(Idx([k]), View(&a), &mut ViewMut(&mut want), flag, d, u, e, f, i);
            }
            for k in 0..n {
                prop_assert!(f64::exact(got[k], want[k]), "a = {}: device {}, cpu {}", a[k], got[k], want[k]);
            }
        }
        check_clean()?;
    }
}

// ----- ranges at the ends of their types, `continue` in stepped loops, `for mut` -----

twin! {
    fn ranges(
        idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>,
        lo: i32, hi: i32, ulo: u32, uhi: u32, step: u32
    )
    host(
        idx: Idx, a: View<i32>, out: &mut ViewMut<i32>,
        lo: i32, hi: i32, ulo: u32, uhi: u32, step: u32
    )
    {
        let x = a[idx];
        let mut count = 0;
        let mut acc = 0;
        // Inclusive ranges that may end at i32::MAX / u32::MAX must stop there.
        for k in lo..=hi {
            count += 1;
            acc ^= k;
        }
        for k in lo..hi {
            count += 100;
            acc ^= k >> 3;
        }
        for k in ulo..=uhi {
            count += 10_000;
            acc ^= k as i32;
        }
        // A step that overflows the counter past the end of the range.
        for k in (ulo..uhi).step_by(step as usize) {
            count += 1_000_000;
            acc ^= (k as i32) << 1;
        }
        for k in (ulo..=uhi).step_by(step as usize) {
            count += 100_000;
            acc ^= (k as i32) << 2;
        }
        for k in (lo..=hi).step_by(2) {
            count += 1_000;
            acc ^= k << 4;
        }
        for k in (0..uhi).step_by((uhi / 3 + 1) as usize) {
            count += 10_000_000;
            acc ^= (k % 1000) as i32;
        }
        // `continue` in a stepped loop still advances; changing a `for mut` variable does not
        // change the iteration.
        let mut odd = 0;
        for k in (x.abs() % 7..40).step_by((step % 5 + 1) as usize) {
            if k % 2 == 0 {
                continue;
            }
            odd += k;
        }
        for mut k in 0..5 {
            k += 10;
            odd += k;
        }
        let mut inclusive_continue = 0;
        for k in 0..=9 {
            if k < 5 {
                continue;
            }
            inclusive_continue += k;
        }
        out[idx] = (count + odd * 7 + inclusive_continue) ^ acc;
    }
}

/// Range bounds near the ends of i32 and u32: `(start, end)` with `end - start` in `-2..6`.
fn range_i32() -> impl Strategy<Value = (i32, i32)> {
    (
        prop_oneof![i32::MAX - 8..=i32::MAX, i32::MIN..=i32::MIN + 8, -10i32..10],
        -2i32..6,
    )
        .prop_map(|(lo, len)| (lo, lo.saturating_add(len)))
}

fn range_u32() -> impl Strategy<Value = (u32, u32)> {
    (
        prop_oneof![
            u32::MAX - 8..=u32::MAX,
            0u32..10,
            0x7fff_fff0u32..0x8000_0010
        ],
        -2i32..6,
    )
        .prop_map(|(lo, len)| (lo, lo.saturating_add_signed(len)))
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn ranges_match_cpu(
        a in prop::collection::vec(-1000i32..1000, 1..=300),
        (lo, hi) in range_i32(),
        (ulo, uhi) in range_u32(),
        step in prop_oneof![1u32..4, Just(u32::MAX / 2), Just(0x8000_0000u32)],
    ) {
        let n = a.len();
        let mut got = vec![0; n];
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            launch(ov.extent(), ranges(&av, &mut ov, lo, hi, ulo, uhi, step))?;
            ov.synchronize().map_err(fail)?;
        }
        let mut want = vec![0; n];
        for i in 0..n {
            ranges::cpu(Idx([i]), View(&a), &mut ViewMut(&mut want), lo, hi, ulo, uhi, step);
        }
        prop_assert_eq!(got, want);
        check_clean()?;
    }
}

// ----- locals: array copies, nested arrays, shadowing, tuples, evaluation order -----

twin! {
    fn locals(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, big: u32)
    host(idx: Idx, a: View<i32>, out: &mut ViewMut<i32>, big: u32)
    {
        let x = a[idx];
        let mut arr = [x, x + 1, x + 2, x + 3];
        // Arrays are values: changing a copy leaves the original alone.
        let mut c = arr;
        c[0] = 99;
        let mut m = [[0; 3]; 2];
        m[1][2] = x;
        m[0][idx[0] % 3] = 7;
        let row = m[1];
        m[1][0] = -5;
        // Shadowing, also in a nested block.
        let y = x;
        let y = y * 2;
        {
            let y = 1000;
            arr[1] += y;
        }
        // `let (a, b) = (x, y)` binds after evaluating both values: this swaps.
        let (p, q) = (y, x);
        let (p, q) = (q, p);
        // For primitive compound assignment Rust evaluates the right side first, so the
        // place uses the updated `i`.
        let mut i = 0;
        arr[i] += {
            i += 1;
            10
        };
        // A block as a value.
        let z = {
            let t = x * 3;
            t - 1
        };
        // u32 arithmetic (wrapping is covered by the one-operator tests: the host build of this
        // body would panic on overflow).
        let w = big / 2 + 1;
        let w2 = !big >> 3;
        out[idx] = arr[0] + arr[1] * 3 + arr[2] * 5 + arr[3] + c[0] + c[1] * 2
            + m[0][0] + m[0][1] * 2 + m[0][2] * 3 + m[1][0] * 4 + m[1][2]
            + row[0] + row[2] * 5 + p * 7 + q * 11 + z * 13 + (i as i32) * 17
            + (w % 1000) as i32 + (w2 % 1000) as i32;
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn locals_match_cpu(
        a in prop::collection::vec(-1000i32..1000, 1..=300),
        big in prop_oneof![Just(u32::MAX), Just(0u32), any::<u32>()],
    ) {
        let n = a.len();
        let mut got = vec![0; n];
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            launch(ov.extent(), locals(&av, &mut ov, big))?;
            ov.synchronize().map_err(fail)?;
        }
        let mut want = vec![0; n];
        for i in 0..n {
            locals::cpu(Idx([i]), View(&a), &mut ViewMut(&mut want), big);
        }
        prop_assert_eq!(got, want);
        check_clean()?;
    }
}

// ----- literals and constants -----

twin! {
    fn constants(idx: Index<1>, out_f: ArrayViewMut<f32, 1>, out_i: ArrayViewMut<i32, 1>, out_u: ArrayViewMut<u32, 1>)
    host(idx: Idx, out_f: &mut ViewMut<f32>, out_i: &mut ViewMut<i32>, out_u: &mut ViewMut<u32>)
    {
        let k = idx[0];
        let mut f = [0.0f32; 16];
        f[0] = 0.1;
        f[1] = -0.0;
        f[2] = f32::MAX;
        f[3] = f32::MIN;
        f[4] = f32::MIN_POSITIVE;
        f[5] = f32::EPSILON;
        f[6] = f32::INFINITY;
        f[7] = f32::NEG_INFINITY;
        f[8] = f32::NAN;
        // `3.4028235e38` (how Rust prints f32::MAX) is rejected: see
        // `f32_max_literal_is_accepted` below.
        f[9] = 3.4028234e38;
        f[10] = 16777217.0;
        f[11] = 1e-37;
        f[12] = 2.5;
        f[13] = -1.5e10;
        f[14] = 0.3;
        f[15] = 1.0e-5;
        let mut i = [0; 16];
        i[0] = i32::MIN;
        i[1] = i32::MAX;
        i[2] = -2147483648;
        i[3] = 0x7fff_ffff;
        i[4] = 0b1010_1010;
        i[5] = 0o777;
        i[6] = 1_000_000;
        i[7] = -1;
        i[8] = 0;
        i[9] = -0x8000;
        let mut u = [0u32; 16];
        u[0] = u32::MAX;
        u[1] = u32::MIN;
        u[2] = 0xdead_beef;
        u[3] = 0x8000_0000;
        u[4] = 4294967295;
        u[5] = 0b1111_0000_1111_0000_1111_0000_1111_0000;
        out_f[idx] = f[k];
        out_i[idx] = i[k];
        out_u[idx] = u[k];
    }
}

#[test]
fn literals_and_constants_match_rust() -> Result<(), amp::Error> {
    let (mut gf, mut gi, mut gu) = (vec![0.0f32; 16], vec![0i32; 16], vec![0u32; 16]);
    {
        let mut of = ArrayViewMut::new([16], &mut gf)?;
        let mut oi = ArrayViewMut::new([16], &mut gi)?;
        let mut ou = ArrayViewMut::new([16], &mut gu)?;
        parallel_for_each(of.extent(), constants(&mut of, &mut oi, &mut ou))?;
        of.synchronize()?;
        oi.synchronize()?;
        ou.synchronize()?;
    }
    let (mut wf, mut wi, mut wu) = (vec![0.0f32; 16], vec![0i32; 16], vec![0u32; 16]);
    for k in 0..16 {
        constants::cpu(
            Idx([k]),
            &mut ViewMut(&mut wf),
            &mut ViewMut(&mut wi),
            &mut ViewMut(&mut wu),
        );
    }
    for k in 0..16 {
        assert!(
            f32::exact(gf[k], wf[k]),
            "f32 constant {k}: device {:e}, rust {:e}",
            gf[k],
            wf[k]
        );
    }
    assert_eq!(gi, wi);
    assert_eq!(gu, wu);
    assert_validation_clean();
    Ok(())
}

// Regression: f32 literals must be rounded once from their digits. Through f64, a literal just
// below the midpoint between two f32s rounds twice and lands on the wrong neighbour. rustc
// parses `1.0000001788139343261718749f32` to 1.0000001 (0x3f80_0001); the kernel stores
// 1.0000002 (0x3f80_0002).
#[kernel(amp)]
fn f32_literal_rounding(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
    out[idx] = 1.0000001788139343261718749;
}

#[test]
fn f32_literals_round_once() -> Result<(), amp::Error> {
    let mut got = [0.0f32; 1];
    {
        let mut ov = ArrayViewMut::new([1], &mut got)?;
        parallel_for_each(ov.extent(), f32_literal_rounding(&mut ov))?;
        ov.synchronize()?;
    }
    #[allow(clippy::excessive_precision)]
    let want = 1.0000001788139343261718749f32;
    assert_eq!(
        got[0].to_bits(),
        want.to_bits(),
        "device {:e}, rust {:e}",
        got[0],
        want
    );
    assert_validation_clean();
    Ok(())
}

// Regression: a float literal in an f32 context was rejected as "literal out of range for
// `f32`" when its decimal value is above f32::MAX, even if it rounds to f32::MAX, as rustc
// accepts. `3.4028235e38` is how Rust itself prints f32::MAX (`{:e}`). The kernel cannot be
// written with `#[kernel(amp)]` (it would not build), so this checks the compiler directly.
#[test]
fn f32_max_literal_is_accepted() {
    assert_eq!(format!("{:e}", f32::MAX), "3.4028235e38");
    #[allow(clippy::excessive_precision)]
    let rust = 3.4028235e38f32;
    assert_eq!(rust, f32::MAX);
    let source =
        "fn max_literal(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = 3.4028235e38; }";
    if let Err(diags) = amp_spirv::compile_str(source) {
        panic!("the kernel compiler rejects a literal rustc accepts: {diags:?}");
    }
}

// ----- a full push-constant block -----

// 128 bytes, the most every device has: the domain and two buffer layouts (extent, offset:
// 20 bytes), then 4-byte and 8-byte scalars interleaved so the f64s need padding.
twin! {
    fn full_block(
        idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>,
        u: u32, d0: f64, i: i32, d1: f64, flag: bool, d2: f64, f: f32,
        d3: f64, d4: f64, d5: f64, d6: f64, d7: f64, d8: f64, d9: f64
    )
    host(
        idx: Idx, a: View<f64>, out: &mut ViewMut<f64>,
        u: u32, d0: f64, i: i32, d1: f64, flag: bool, d2: f64, f: f32,
        d3: f64, d4: f64, d5: f64, d6: f64, d7: f64, d8: f64, d9: f64
    )
    {
        let mut s = a[idx] + u as f64 * 2.0 + d0 * 3.0 + i as f64 * 5.0 + d1 * 7.0;
        if flag {
            s += 1.0;
        }
        s = s + d2 * 11.0 + f as f64 * 13.0 + d3 * 17.0 + d4 * 19.0 + d5 * 23.0;
        out[idx] = s + d6 * 29.0 + d7 * 31.0 + d8 * 37.0 + d9 * 41.0;
    }
}

#[test]
fn full_push_constant_block() -> Result<(), amp::Error> {
    let layout_size = full_block_layout_size();
    assert_eq!(
        layout_size, 128,
        "this kernel is meant to fill the whole push-constant block"
    );
    let a: Vec<f64> = (0..100).map(|v| v as f64).collect();
    let d: Vec<f64> = (1..=10).map(|v| (v * 1000) as f64).collect();
    let mut got = vec![0.0; a.len()];
    let ran;
    {
        let av = ArrayView::new([a.len()], &a)?;
        let mut ov = ArrayViewMut::new([a.len()], &mut got)?;
        let domain = ov.extent();
        let call = full_block(
            &av, &mut ov, 70_000, d[0], -9, d[1], true, d[2], 0.5, d[3], d[4], d[5], d[6], d[7],
            d[8], d[9],
        );
        ran = launch(domain, call).unwrap_or_else(|e| panic!("{e}"));
        ov.synchronize()?;
    }
    if ran {
        let mut want = vec![0.0; a.len()];
        for k in 0..a.len() {
            full_block::cpu(
                Idx([k]),
                View(&a),
                &mut ViewMut(&mut want),
                70_000,
                d[0],
                -9,
                d[1],
                true,
                d[2],
                0.5,
                d[3],
                d[4],
                d[5],
                d[6],
                d[7],
                d[8],
                d[9],
            );
        }
        assert_eq!(got, want);
    }
    assert_validation_clean();
    Ok(())
}

/// The push-constant size the compiler gives `full_block` (compiled again from its source).
fn full_block_layout_size() -> u32 {
    let source = "fn full_block(
        idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>,
        u: u32, d0: f64, i: i32, d1: f64, flag: bool, d2: f64, f: f32,
        d3: f64, d4: f64, d5: f64, d6: f64, d7: f64, d8: f64, d9: f64
    ) { out[idx] = a[idx]; }";
    amp_spirv::compile_str(source)
        .expect("compiles")
        .push_constant_size
}

// ----- negated comparisons with NaN, zero minus a float -----

// `!(a < b)` is not `a >= b` when either side is NaN.
binary!(f32_not_lt: (f32, f32) -> u32 { out[idx] = (!(a[idx] < b[idx])) as u32; },
    f32s(), f32s(), keep, |x, y| u32::from(x.partial_cmp(&y) != Some(Ordering::Less)), exact);
binary!(f32_not_eq: (f32, f32) -> u32 { let e = a[idx] == b[idx]; out[idx] = if !e { 1 } else { 0 }; },
    f32s(), f32s(), keep, |x, y| u32::from(x != y), exact);
binary!(f64_not_ge: (f64, f64) -> u32 { out[idx] = (!(a[idx] >= b[idx])) as u32; },
    f64s(), f64s(), keep, |x, y| u32::from(!matches!(x.partial_cmp(&y), Some(Ordering::Greater | Ordering::Equal))), exact);
binary!(f64_nan_branch: (f64, f64) -> f64 {
        if a[idx] > b[idx] { out[idx] = 1.0; } else if a[idx] <= b[idx] { out[idx] = 2.0; } else { out[idx] = 3.0; }
    },
    f64s(), f64s(), keep, |x, y| if x > y { 1.0 } else if x <= y { 2.0 } else { 3.0 }, exact);

// ----- `usize` (index components, extents) is 32 bits on the device and wraps -----

#[kernel(amp)]
fn usize_wraps(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    let i = idx[0];
    let big = a[idx] as usize;
    let mut r = (i * 3_000_000_000 + 7) as u32;
    r ^= (big + 4_000_000_000) as u32;
    r ^= (i - 1) as u32;
    if big + 3_000_000_000 > 2_000_000_000 {
        r ^= 0x100;
    }
    r ^= (big / 3 % 1000) as u32;
    out[idx] = r;
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn usize_is_32_bit(a in prop::collection::vec(u32s(), 1..=300)) {
        let got = device1(&a, usize_wraps)?.expect("no f64 in this kernel");
        for (i, (&g, &x)) in got.iter().zip(&a).enumerate() {
            let i = i as u32;
            let mut r = i.wrapping_mul(3_000_000_000).wrapping_add(7);
            r ^= x.wrapping_add(4_000_000_000);
            r ^= i.wrapping_sub(1);
            if x.wrapping_add(3_000_000_000) > 2_000_000_000 {
                r ^= 0x100;
            }
            r ^= x / 3 % 1000;
            prop_assert_eq!(g, r, "index {}, a = {}", i, x);
        }
        check_clean()?;
    }
}

// ----- reading the host data of an output view that was not discarded -----

#[kernel(amp)]
fn accumulate(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
    out[idx] += a[idx];
    out[idx] = out[idx] * 3;
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn output_view_keeps_host_data((a, init) in pairs(i32s(), i32s(), keep)) {
        let n = a.len();
        let mut out = init.clone();
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut out).map_err(fail)?;
            launch(ov.extent(), accumulate(&av, &mut ov))?;
            ov.synchronize().map_err(fail)?;
        }
        let want: Vec<i32> = init.iter().zip(&a).map(|(&o, &x)| o.wrapping_add(x).wrapping_mul(3)).collect();
        prop_assert_eq!(out, want);
        check_clean()?;
    }
}

// ----- more control flow: diverging branches, arrays from `if`, blocks as loop conditions -----

twin! {
    fn misc_flow(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, s: i32)
    host(idx: Idx, a: View<i32>, out: &mut ViewMut<i32>, s: i32)
    {
        let x = a[idx];
        // A branch that returns has type `!` and fits any `if`.
        let v = if x > -950 {
            x + s
        } else {
            out[idx] = 12345;
            return;
        };
        // Arrays chosen by an `if`, with a type annotation.
        let pair: [i32; 2] = if v % 2 == 0 { [v, 1] } else { [2, v] };
        // A block as a `while` condition.
        let mut i = 0;
        let mut acc = 0;
        while {
            i += 1;
            i < 6
        } {
            acc += i * pair[(i % 2) as usize];
        }
        // Reading back what this thread wrote to its output element.
        out[idx] = acc;
        out[idx] = out[idx] + pair[0] - pair[1];
        // `loop` that only leaves through `return`.
        let mut k = 0;
        loop {
            k += 1;
            if k * k >= v.abs() % 100 {
                out[idx] = out[idx] * 10 + k;
                return;
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn misc_flow_matches_cpu(a in prop::collection::vec(-1000i32..1000, 1..=300), s in -1000i32..1000) {
        let n = a.len();
        let mut got = vec![0; n];
        {
            let av = ArrayView::new([n], &a).map_err(fail)?;
            let mut ov = ArrayViewMut::new([n], &mut got).map_err(fail)?;
            ov.discard_data();
            launch(ov.extent(), misc_flow(&av, &mut ov, s))?;
            ov.synchronize().map_err(fail)?;
        }
        let mut want = vec![0; n];
        for i in 0..n {
            misc_flow::cpu(Idx([i]), View(&a), &mut ViewMut(&mut want), s);
        }
        prop_assert_eq!(got, want);
        check_clean()?;
    }
}

// ----- IEEE identities -----
//
// Kernels declare `SignedZeroInfNanPreserve` (SPV_KHR_float_controls) and mark float operations
// `NoContraction`, so a driver must not simplify float arithmetic as if there were no NaN or
// infinities: `x - x` is NaN for NaN and ±inf, as in Rust. (lavapipe 22.3 still rewrites a
// multiplication or addition by a *literal* zero while building LLVM IR, whatever the module asks
// for; docs/kernel-language.md documents that deviation.)

macro_rules! identities {
    ($($name:ident, $test:ident: $t:ident;)*) => {$(
        #[kernel(amp)]
        fn $name(idx: Index<1>, a: ArrayView<$t, 1>, minus_self: ArrayViewMut<$t, 1>) {
            let x = a[idx];
            minus_self[idx] = x - x;
        }

        #[test]
        fn $test() -> Result<(), amp::Error> {
            let a: Vec<$t> = vec![0.0, -0.0, 1.0, -1.0, $t::NAN, $t::INFINITY, $t::NEG_INFINITY, 2.5];
            let n = a.len();
            let mut out = vec![0.0; n];
            let ran;
            {
                let av = ArrayView::new([n], &a)?;
                let mut ov = ArrayViewMut::new([n], &mut out)?;
                ran = launch(ov.extent(), $name(&av, &mut ov)).unwrap_or_else(|e| panic!("{e}"));
                ov.synchronize()?;
            }
            if ran {
                for (&x, &got) in a.iter().zip(&out) {
                    assert!($t::exact(got, x - x), "x - x with x = {x:?}: device {got:?}, rust {:?}", x - x);
                }
            }
            assert_validation_clean();
            Ok(())
        }
    )*};
}
identities!(identities_f32, float_identities_f32: f32; identities_f64, float_identities_f64: f64;);
