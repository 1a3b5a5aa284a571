//! Device structs and a kernel in a crate whose only dependency is `amp`: the structs derive
//! `Clone, Copy, DeviceStruct` and nothing else (no `bytemuck`, no `Debug`).

use amp::prelude::*;

/// A body of a simulation: a short-vector field, a nested device struct and a scalar, laid out
/// without padding (12 + 8 + 4 = 24 bytes).
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
pub struct Body {
    /// Position.
    pub pos: Float3,
    /// Velocity in the plane, a nested device struct.
    pub vel: Planar,
    /// Mass.
    pub mass: f32,
}

/// A 2-D velocity.
#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
pub struct Planar {
    /// x component.
    pub x: f32,
    /// y component.
    pub y: f32,
}

/// Advances each body by `dt` (gravity on its vertical velocity) and doubles its mass.
#[kernel(amp)]
pub fn advance(idx: Index<1>, bodies: ArrayViewMut<Body, 1>, dt: f32) {
    let b = bodies[idx];
    bodies[idx] = Body {
        pos: b.pos + Float3::new(b.vel.x, b.vel.y, 0.0) * dt,
        vel: Planar {
            x: b.vel.x,
            y: b.vel.y - 9.75 * dt,
        },
        mass: b.mass,
    };
    bodies[idx].mass *= 2.0;
}

/// Runs [`advance`] over `bodies` on the default accelerator.
pub fn step(bodies: &mut [Body], dt: f32) -> Result<(), amp::Error> {
    let n = bodies.len();
    let mut v = ArrayViewMut::new([n], bodies)?;
    parallel_for_each(v.extent(), advance(&mut v, dt))?;
    v.synchronize()
}
