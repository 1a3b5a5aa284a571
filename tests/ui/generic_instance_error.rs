use amp::prelude::*;

// `<<` is fine for i32 and u32 but not for the floats: the error names the instances.
#[kernel(amp)]
fn doubled<T: DeviceScalar>(idx: Index<1>, v: ArrayViewMut<T, 1>) {
    v[idx] = v[idx] << 1;
}

#[amp::device]
fn half<T: DeviceFloat>(x: T) -> T {
    x / (T::ONE + T::ONE)
}

// A call that makes `T` an integer where the device function needs a float.
#[kernel(amp)]
fn halves(idx: Index<1>, v: ArrayViewMut<i32, 1>) {
    v[idx] = half(v[idx]);
}

fn main() {}
