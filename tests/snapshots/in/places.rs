//! Places: compound assignments to struct fields, vector components and buffer elements, and
//! atomics on a buffer element.
use amp::prelude::*;

#[derive(Clone, Copy, DeviceStruct)]
#[repr(C)]
struct Particle {
    pos: Float2,
    mass: f32,
}

#[kernel(amp)]
fn step(idx: Index<1>, ps: ArrayViewMut<Particle, 1>, hist: ArrayViewMut<u32, 1>, dt: f32) {
    let mut p = ps[idx];
    p.pos.x += dt * p.mass;
    p.mass *= 0.5;
    ps[idx] = p;
    atomic_fetch_add(&mut hist[[(p.mass as usize) % 8]], 1);
}
