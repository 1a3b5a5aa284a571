//! Which simple kernels the native back end runs a batch of threads at a time, and the reason
//! it gives (for the compile report) when a kernel with loops runs one thread at a time.
//! Kernels without loops are batched in two and three dimensions, and where a check compares
//! an offset index with an extent.

use amp_spirv::{compile_native, NativeKernel, Options};

fn native(src: &str) -> NativeKernel {
    let func: syn::ItemFn = syn::parse_str(src).expect("a function");
    compile_native(&func, &Options::default(), "rt", "thread")
        .unwrap_or_else(|e| panic!("no native code: {e}"))
}

#[test]
fn a_loop_every_thread_runs_alike_is_batched() {
    let k = native(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let mut s = 0.0;
            for j in 0..a.extent()[0] { s += a[j]; }
            out[idx] = s;
        }",
    );
    assert!(k.batched.is_some());
    assert_eq!(k.unbatched, None);
}

#[test]
fn an_element_wise_kernel_without_loops_needs_no_batch_and_no_reason() {
    let k = native("fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { out[idx] = 1; }");
    assert!(k.batched.is_none());
    assert_eq!(k.unbatched, None);
}

#[test]
fn a_two_dimensional_kernel_without_loops_is_batched() {
    let k = native(
        "fn k(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
            let (i, j) = (idx[0] + 1, idx[1] + 1);
            out[[i, j]] = a[[i - 1, j]] + a[[i, j + 1]];
        }",
    );
    assert!(k.batched.is_some());
    assert_eq!(k.unbatched, None);
}

#[test]
fn a_loop_under_a_per_thread_if_is_batched_with_a_mask() {
    let k = native(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let mut s = 0.0;
            if idx[0] % 2 == 0 {
                for j in 0..a.extent()[0] { s += a[j]; }
            }
            out[idx] = s;
        }",
    );
    assert!(k.batched.is_some());
    assert_eq!(k.unbatched, None);
}

#[test]
fn nested_ifs_and_the_statements_around_the_loop_are_masked_too() {
    let k = native(
        "fn k(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
            let (i, j) = (idx[0], idx[1]);
            if j >= i {
                let mut s = 0.0;
                if i % 3 != 1 {
                    for r in 0..a.extent()[0] { s += a[[r, i]] * a[[r, j]]; }
                }
                out[idx] = s;
            }
        }",
    );
    assert!(k.batched.is_some());
}

#[test]
fn loops_in_both_branches_of_a_per_thread_if_else_are_batched_with_masks() {
    let k = native(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let mut s = 0.0;
            if idx[0] % 3 == 0 {
                for j in 0..a.extent()[0] { s += a[j]; }
            } else if idx[0] % 3 == 1 {
                s = 1.0;
            } else {
                for j in 0..a.extent()[0] { s -= a[j] * 2.0; }
            }
            out[idx] = s;
        }",
    );
    assert!(k.batched.is_some());
    assert_eq!(k.unbatched, None);
}

#[test]
fn a_loop_under_a_per_thread_while_runs_one_thread_at_a_time_and_says_why() {
    let k = native(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let mut s = 0.0;
            let mut n = idx[0];
            while n > 0 {
                for j in 0..a.extent()[0] { s += a[j]; }
                n /= 2;
            }
            out[idx] = s;
        }",
    );
    assert!(k.batched.is_none());
    let why = k.unbatched.expect("a reason");
    assert!(why.contains("not under a `while`"), "{why}");
}

#[test]
fn an_if_that_returns_keeps_its_loop_per_thread() {
    let k = native(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let mut s = 0.0;
            if idx[0] % 2 == 0 {
                for j in 0..a.extent()[0] { s += a[j]; }
                out[idx] = s;
                return;
            }
            out[idx] = 1.0;
        }",
    );
    assert!(k.batched.is_none());
    assert!(k.unbatched.is_some());
}
