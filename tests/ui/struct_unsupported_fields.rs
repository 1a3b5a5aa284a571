use amp::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Flags {
    on: bool,
    count: usize,
}

#[repr(C)]
#[derive(Clone, DeviceStruct)]
struct Samples {
    data: Vec<f32>,
}

fn main() {}
