//! The staging-buffer path discrete GPUs take (forced with `AMP_FORCE_STAGING=1`), validated.

mod common;

use amp_runtime::{parallel_for_each, Array, ArrayView, ArrayViewMut};
use common::{add, assert_clean, init};

#[test]
fn staging_copies_are_correct_and_clean() {
    amp_runtime::Config::new()
        .force_staging(true)
        .apply()
        .expect("set before the first transfer");
    init();
    let a_vec: Vec<f32> = (0..3000).map(|i| i as f32).collect();
    let mut out = vec![1.0f32; 3000];
    {
        let a = ArrayView::new([3000], &a_vec).unwrap();
        let b = Array::from_slice([3000], &a_vec).unwrap();
        let mut s = ArrayViewMut::new([3000], &mut out).unwrap();
        parallel_for_each(s.extent(), add(&a, &b, &mut s, 2.0)).unwrap();
        s.synchronize().unwrap();
        assert_eq!(s.data().unwrap()[7], 21.0);

        let mut arr = Array::<f32, 1>::new([3000]).unwrap();
        assert_eq!(arr.to_vec().unwrap(), vec![0.0; 3000]);
        parallel_for_each(arr.extent(), add(&a, &b, &mut arr, 1.0)).unwrap();
        let c = arr.try_clone().unwrap();
        arr.copy_from_slice(&vec![9.0; 3000]).unwrap();
        let expect: Vec<f32> = (0..3000).map(|i| 2.0 * i as f32).collect();
        assert_eq!(c.to_vec().unwrap(), expect);
        assert_eq!(arr.to_vec().unwrap(), vec![9.0; 3000]);
        // Read the device result of one launch as the input of the next.
        parallel_for_each(s.extent(), add(&c, &arr, &mut s, 1.0)).unwrap();
    }
    assert_eq!(out[10], 20.0 + 9.0);
    assert_clean();
}
