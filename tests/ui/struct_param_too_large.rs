use amp::prelude::*;

// By-value structs travel in the push constants: 144 bytes do not fit the 128 every device has.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct)]
struct Big {
    a: Double4,
    b: Double4,
    c: Double4,
    d: Double4,
    e: Double2,
}

#[kernel(amp)]
fn uses_big(idx: Index<1>, big: Big, out: ArrayViewMut<f64, 1>) {
    out[idx] = big.e.x;
}

fn main() {}
