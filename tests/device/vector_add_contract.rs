//! The vector-addition program from the crate documentation, exactly as a user writes it, run as
//! a test: the public contract of `#[kernel(amp)]`, views and `parallel_for_each`.
use amp::prelude::*;

#[kernel(amp)]
fn add(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<i32, 1>, sum: ArrayViewMut<i32, 1>) {
    sum[idx] = a[idx] + b[idx];
}

#[test]
fn vector_add_contract() -> Result<(), amp::Error> {
    let a = vec![1, 2, 3, 4, 5];
    let b = vec![6, 7, 8, 9, 10];
    let mut out = vec![0; 5];
    {
        let a = ArrayView::new([5], &a)?;
        let b = ArrayView::new([5], &b)?;
        let mut sum = ArrayViewMut::new([5], &mut out)?;
        sum.discard_data();
        parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
        sum.synchronize()?;
    }
    assert_eq!(out, [7, 9, 11, 13, 15]);
    if std::env::var_os("AMP_VALIDATION").is_some_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
    Ok(())
}
