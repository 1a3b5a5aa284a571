use amp::prelude::*;

#[derive(Clone, Copy, DeviceStruct)]
struct Point {
    x: f32,
    y: f32,
}

fn main() {}
