use amp::prelude::*;

// C puts 4 bytes of padding after `count` (so that `weight` is 8-aligned): the device would read
// bytes the host never defined.
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Sample {
    count: u32,
    weight: f64,
}

// A field of a type that is no device element, under a name the kernel would not know.
#[derive(Clone, Copy)]
struct Opaque {
    _bits: u32,
}

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Holder {
    inner: Opaque,
}

#[kernel(amp)]
fn k(idx: Index<1>, s: ArrayViewMut<Sample, 1>) {
    s[idx].count += 1;
}

fn main() {}
