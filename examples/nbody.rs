//! N-body gravity with `Float3` vectors: every body attracts every other (softened Newtonian
//! gravity, G = 1), integrated with a kick-drift step on the device, the same steps on the CPU,
//! and a comparison: positions must agree within a tolerance, and the relative drift of the
//! total energy is printed.
//!
//! ```text
//! cargo run --release --example nbody -- [bodies] [steps]
//! ```
use amp::prelude::*;

/// Softening length squared: keeps close encounters finite.
pub const SOFTENING2: f32 = 0.01;

/// One time step for body `idx`: its acceleration from every body, then the kick (velocity)
/// and the drift (position), into the `next` buffers.
#[kernel(amp)]
fn step(
    idx: Index<1>,
    pos: &Array<Float3, 1>,
    vel: &Array<Float3, 1>,
    mass: &Array<f32, 1>,
    next_pos: &mut Array<Float3, 1>,
    next_vel: &mut Array<Float3, 1>,
    dt: f32,
) {
    let p = pos[idx];
    let mut acc = Float3::splat(0.0);
    for j in 0..pos.extent()[0] {
        let d = pos[j] - p;
        let r2 = d.dot(d) + SOFTENING2;
        let inv_r3 = 1.0 / (r2 * r2.sqrt());
        acc += d * (mass[j] * inv_r3);
    }
    let v = vel[idx] + acc * dt;
    next_vel[idx] = v;
    next_pos[idx] = p + v * dt;
}

/// A system of bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct Bodies {
    /// Positions.
    pub pos: Vec<Float3>,
    /// Velocities.
    pub vel: Vec<Float3>,
    /// Masses.
    pub mass: Vec<f32>,
}

/// `n` bodies on a jittered disc, orbiting its centre roughly; deterministic.
pub fn initial(n: usize) -> Bodies {
    let mut state = 0x9e37_79b9_u32;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32
    };
    let mut bodies = Bodies {
        pos: Vec::with_capacity(n),
        vel: Vec::with_capacity(n),
        mass: Vec::with_capacity(n),
    };
    for i in 0..n {
        let angle = i as f32 / n as f32 * std::f32::consts::TAU;
        let radius = 1.0 + random();
        let (s, c) = angle.sin_cos();
        bodies
            .pos
            .push(Float3::new(radius * c, radius * s, 0.1 * (random() - 0.5)));
        let speed = 0.3 / radius.sqrt();
        bodies.vel.push(Float3::new(-speed * s, speed * c, 0.0));
        bodies.mass.push(1.0 / n as f32 * (0.5 + random()));
    }
    bodies
}

/// `steps` steps of `dt` on the device.
pub fn simulate(bodies: &Bodies, steps: usize, dt: f32) -> Result<Bodies, amp::Error> {
    let n = bodies.pos.len();
    let mass = Array::from_slice([n], &bodies.mass)?;
    let mut pos = Array::from_slice([n], &bodies.pos)?;
    let mut vel = Array::from_slice([n], &bodies.vel)?;
    let mut next_pos = Array::new([n])?;
    let mut next_vel = Array::new([n])?;
    for _ in 0..steps {
        parallel_for_each(
            pos.extent(),
            step(&pos, &vel, &mass, &mut next_pos, &mut next_vel, dt),
        )?;
        std::mem::swap(&mut pos, &mut next_pos);
        std::mem::swap(&mut vel, &mut next_vel);
    }
    Ok(Bodies {
        pos: pos.to_vec()?,
        vel: vel.to_vec()?,
        mass: bodies.mass.clone(),
    })
}

/// The same steps on the CPU, in the kernel's order of operations.
pub fn simulate_cpu(bodies: &Bodies, steps: usize, dt: f32) -> Bodies {
    let mut b = bodies.clone();
    for _ in 0..steps {
        let acc: Vec<Float3> = b
            .pos
            .iter()
            .map(|&p| {
                let mut acc = Float3::splat(0.0);
                for (&q, &m) in b.pos.iter().zip(&b.mass) {
                    let d = q - p;
                    let r2 = d.dot(d) + SOFTENING2;
                    acc += d * (m / (r2 * r2.sqrt()));
                }
                acc
            })
            .collect();
        for ((p, v), a) in b.pos.iter_mut().zip(&mut b.vel).zip(acc) {
            *v += a * dt;
            *p += *v * dt;
        }
    }
    b
}

/// Total energy: kinetic plus (softened) potential, in `f64`.
pub fn energy(b: &Bodies) -> f64 {
    let n = b.pos.len();
    let mut e = 0.0;
    for i in 0..n {
        let v = b.vel[i];
        e += 0.5 * f64::from(b.mass[i]) * f64::from(v.dot(v));
        for j in i + 1..n {
            let d = b.pos[j] - b.pos[i];
            let r = (f64::from(d.dot(d)) + f64::from(SOFTENING2)).sqrt();
            e -= f64::from(b.mass[i]) * f64::from(b.mass[j]) / r;
        }
    }
    e
}

/// The largest distance between corresponding bodies of two systems.
pub fn max_position_error(a: &Bodies, b: &Bodies) -> f32 {
    a.pos
        .iter()
        .zip(&b.pos)
        .map(|(&p, &q)| (p - q).length())
        .fold(0.0, f32::max)
}

#[allow(dead_code)]
fn main() -> Result<(), amp::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (n, steps) = (
        args.first().copied().unwrap_or(1024),
        args.get(1).copied().unwrap_or(20),
    );
    let dt = 0.001;
    let start = initial(n);
    let t = std::time::Instant::now();
    let device = simulate(&start, steps, dt)?;
    let device_time = t.elapsed();
    let t = std::time::Instant::now();
    let cpu = simulate_cpu(&start, steps, dt);
    let cpu_time = t.elapsed();
    let error = max_position_error(&device, &cpu);
    let (e0, e1) = (energy(&start), energy(&device));
    println!(
        "{n} bodies, {steps} steps: device {device_time:.2?}, CPU {cpu_time:.2?}; \
         max position difference {error:.2e}; relative energy drift {:.3e}",
        (e1 - e0) / e0.abs()
    );
    assert!(error < 1e-3, "device and CPU disagree by {error}");
    Ok(())
}
