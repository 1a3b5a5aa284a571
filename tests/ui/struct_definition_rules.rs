use amp::prelude::*;

// Device structs are concrete and have named fields.
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Pair<T> {
    a: T,
    b: T,
}

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Point(f32, f32);

// ... and at least one field: a zero-byte element has no place in device memory.
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct Nothing {}

fn main() {}
