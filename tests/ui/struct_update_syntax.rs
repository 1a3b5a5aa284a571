use amp::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct)]
struct Particle {
    pos: Float3,
    mass: f32,
}

// A struct expression names every field: there is no `..base`.
#[kernel(amp)]
fn heavier(idx: Index<1>, ps: ArrayViewMut<Particle, 1>) {
    let p = ps[idx];
    ps[idx] = Particle { mass: 2.0, ..p };
}

fn main() {}
