use amp::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct)]
struct Particle {
    pos: Float3,
    mass: f32,
}

#[kernel(amp)]
fn kick(idx: Index<1>, ps: ArrayViewMut<Particle, 1>) {
    let p = ps[idx];
    ps[idx].velocity = p.pos;
    ps[idx] = Particle { pos: p.pos };
}

fn main() {}
