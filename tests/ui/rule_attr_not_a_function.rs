use amp::prelude::*;

#[kernel(amp)]
struct Kernel {
    scale: f32,
}

fn main() {}
