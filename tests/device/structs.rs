//! `#[derive(DeviceStruct)]` structs as view and array elements: field reads and writes,
//! whole-struct loads and stores, struct locals and struct expressions in kernels, on the
//! device, with layouts that match the host's `#[repr(C)]` (explicit padding, nested structs,
//! short-vector fields packed).

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// A `u32` then an `f64`: C puts 4 bytes of padding between them, written out as a field
/// (`bytemuck::Pod` rules out implicit padding); the kernel must read `weight` at byte 8.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
)]
struct Sample {
    count: u32,
    _pad: u32,
    weight: f64,
}

#[kernel(amp)]
fn scale_samples(idx: Index<1>, s: ArrayView<Sample, 1>, out: ArrayViewMut<Sample, 1>) {
    let x = s[idx];
    out[idx] = Sample {
        count: x.count * 2,
        _pad: 0,
        weight: x.weight * x.count as f64,
    };
    out[idx].weight += 0.5;
}

#[test]
fn padded_struct_round_trips() -> Result<(), amp::Error> {
    assert_eq!(std::mem::size_of::<Sample>(), 16);
    assert_eq!(std::mem::offset_of!(Sample, weight), 8);
    let n = 33;
    let input: Vec<Sample> = (0..n)
        .map(|i| Sample {
            count: i as u32,
            _pad: 0xdead_beef,
            weight: 1.0 / (i as f64 + 1.0),
        })
        .collect();
    let mut out = vec![Sample::default(); n];
    {
        let iv = ArrayView::new([n], &input)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(iv.extent(), scale_samples(&iv, &mut ov))?;
    }
    for (x, y) in input.iter().zip(&out) {
        assert_eq!(y.count, x.count * 2);
        assert_eq!(y._pad, 0);
        assert_eq!(y.weight, x.weight * f64::from(x.count) + 0.5);
    }
    assert_validation_clean();
    Ok(())
}

/// Short-vector fields are packed: `pos` at 0 (12 bytes), `mass` at 12, 16 bytes in all
/// (std430's `vec3` would put `mass` at 12 too, but a `Float3` then `f32` then `Float3`
/// would differ; see `Segment`).
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
)]
struct Particle {
    pos: Float3,
    mass: f32,
}

/// A struct inside a struct, and a vector after a scalar (at byte 16, not 32 as std430's
/// `vec3` alignment would give).
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
)]
struct Segment {
    start: Particle,
    tag: i32,
    dir: Float3,
}

#[kernel(amp)]
fn move_segments(idx: Index<1>, segs: ArrayView<Segment, 1>, out: ArrayViewMut<Segment, 1>) {
    let s = segs[idx];
    let mut p = s.start;
    p.pos = p.pos + s.dir * p.mass;
    p.pos.z = -p.pos.z;
    let moved = Segment {
        start: p,
        tag: s.tag + 1,
        dir: s.dir.zyx(),
    };
    out[idx] = moved;
    out[idx].start.mass *= 2.0;
    out[idx].dir.y = s.start.pos.x;
}

#[test]
fn nested_struct_with_vector_fields() -> Result<(), amp::Error> {
    assert_eq!(std::mem::size_of::<Particle>(), 16);
    assert_eq!(std::mem::size_of::<Segment>(), 32);
    assert_eq!(std::mem::offset_of!(Segment, dir), 20);
    let n = 50;
    let segs: Vec<Segment> = (0..n)
        .map(|i| {
            let f = i as f32;
            Segment {
                start: Particle {
                    pos: Float3::new(f, f + 1.0, f + 2.0),
                    mass: 0.5 + f,
                },
                tag: -(i as i32),
                dir: Float3::new(1.0, -2.0, 0.25 * f),
            }
        })
        .collect();
    let mut out = vec![Segment::default(); n];
    {
        let sv = ArrayView::new([n], &segs)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(sv.extent(), move_segments(&sv, &mut ov))?;
    }
    for (s, o) in segs.iter().zip(&out) {
        let mut pos = s.start.pos + s.dir * s.start.mass;
        pos.z = -pos.z;
        let want = Segment {
            start: Particle {
                pos,
                mass: s.start.mass * 2.0,
            },
            tag: s.tag + 1,
            dir: Float3::new(s.dir.z, s.start.pos.x, s.dir.x),
        };
        assert_eq!(*o, want);
    }
    assert_validation_clean();
    Ok(())
}

/// Structs in device `Array`s, read-modify-written in place.
#[kernel(amp)]
fn accumulate(idx: Index<1>, ps: &mut Array<Particle, 1>, dt: f32) {
    let p = ps[idx];
    ps[idx].pos += Float3::splat(p.mass * dt);
    ps[idx].mass = p.mass + 1.0;
}

#[test]
fn structs_in_device_arrays() -> Result<(), amp::Error> {
    let n = 20;
    let host: Vec<Particle> = (0..n)
        .map(|i| Particle {
            pos: Float3::splat(i as f32),
            mass: 2.0,
        })
        .collect();
    let mut arr = Array::from_slice([n], &host)?;
    parallel_for_each(arr.extent(), accumulate(&mut arr, 0.5))?;
    parallel_for_each(arr.extent(), accumulate(&mut arr, 0.5))?;
    let back = arr.to_vec()?;
    for (i, p) in back.iter().enumerate() {
        assert_eq!(p.pos, Float3::splat(i as f32 + 1.0 + 1.5));
        assert_eq!(p.mass, 4.0);
    }
    assert_validation_clean();
    Ok(())
}

/// A struct view read inside a loop every thread runs the same way (an n-body step): the
/// native back end runs such a loop for a batch of threads at once, a variant whose struct
/// types are its own beside the one-thread variant's.
#[kernel(amp)]
fn pull(idx: Index<1>, ps: ArrayView<Particle, 1>, out: ArrayViewMut<f32, 1>) {
    let me = ps[idx];
    let mut f = 0.0f32;
    for j in 0..ps.extent()[0] {
        let o = ps[j];
        f += o.mass * (o.pos.x - me.pos.x);
    }
    out[idx] = f;
}

#[test]
fn struct_reads_in_a_loop_every_thread_runs_alike() -> Result<(), amp::Error> {
    let n = 300;
    let ps: Vec<Particle> = (0..n)
        .map(|i| Particle {
            pos: Float3::new(i as f32 * 0.25, 1.0, -(i as f32)),
            mass: 1.0 + (i % 7) as f32,
        })
        .collect();
    let mut out = vec![0.0f32; n];
    {
        let pv = ArrayView::new([n], &ps)?;
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        parallel_for_each(pv.extent(), pull(&pv, &mut ov))?;
    }
    for (i, got) in out.iter().enumerate() {
        let mut f = 0.0f32;
        for o in &ps {
            f += o.mass * (o.pos.x - ps[i].pos.x);
        }
        assert_eq!(got.to_bits(), f.to_bits(), "thread {i}");
    }
    assert_validation_clean();
    Ok(())
}

/// A struct from another module, named by its path (the kernel fetches its definition through
/// `shapes::__amp_device_struct_Body!`).
mod shapes {
    use amp::prelude::*;

    #[repr(C)]
    #[derive(
        Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
    )]
    pub struct Body {
        pub pos: Float2,
        pub id: u32,
    }
}

#[kernel(amp)]
fn shift_bodies(idx: Index<1>, bodies: ArrayViewMut<shapes::Body, 1>) {
    bodies[idx].pos.x += 1.0;
    let id = bodies[idx].id;
    bodies[idx].id = id * 10;
}

#[test]
fn struct_from_another_module() -> Result<(), amp::Error> {
    let mut bodies: Vec<shapes::Body> = (0..9)
        .map(|i| shapes::Body {
            pos: Float2::new(i as f32, -1.0),
            id: i,
        })
        .collect();
    {
        let mut bv = ArrayViewMut::new([9], &mut bodies)?;
        parallel_for_each(bv.extent(), shift_bodies(&mut bv))?;
    }
    for (i, b) in bodies.iter().enumerate() {
        assert_eq!(b.pos, Float2::new(i as f32 + 1.0, -1.0));
        assert_eq!(b.id, 10 * i as u32);
    }
    assert_validation_clean();
    Ok(())
}

// ----- structs as by-value kernel parameters -----

/// Parameters of a step, passed by value: a vector field then a scalar.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
)]
struct SimParams {
    gravity: Float3,
    dt: f32,
}

/// `Sample` (a `u32`, 4 bytes of padding, an `f64`) by value after an `f32`: it starts at the
/// next 8-byte boundary (16), `weight` at 24; `bias` follows at 32. `SimParams` then a scalar.
#[kernel(amp)]
fn weigh(
    idx: Index<1>,
    scale: f32,
    s: Sample,
    bias: u32,
    params: SimParams,
    last: i32,
    out: ArrayViewMut<f64, 1>,
    ps: ArrayViewMut<Particle, 1>,
) {
    let i = idx[0] as f64;
    out[idx] = s.weight * i + (s.count + bias) as f64 * scale as f64 + last as f64;
    let mut p = ps[idx];
    p.pos += params.gravity * params.dt;
    p.mass = params.dt * last as f32;
    ps[idx] = p;
}

#[test]
fn structs_by_value_between_scalars_match_the_cpu() -> Result<(), amp::Error> {
    let n = 13;
    let s = Sample {
        count: 3,
        _pad: 0xdead_beef,
        weight: 0.125,
    };
    let params = SimParams {
        gravity: Float3::new(0.0, -9.5, 1.0),
        dt: 0.25,
    };
    let (scale, bias, last) = (2.5f32, 4u32, -6i32);
    let mut out = vec![0.0f64; n];
    let start: Vec<Particle> = (0..n)
        .map(|i| Particle {
            pos: Float3::new(i as f32, 1.0, -(i as f32)),
            mass: 1.0,
        })
        .collect();
    let mut ps = start.clone();
    {
        let mut ov = ArrayViewMut::new([n], &mut out)?;
        let mut pv = ArrayViewMut::new([n], &mut ps)?;
        let call = weigh(scale, s, bias, params, last, &mut ov, &mut pv);
        parallel_for_each(Extent::new([n]), call)?;
    }
    for i in 0..n {
        let e =
            s.weight * i as f64 + f64::from(s.count + bias) * f64::from(scale) + f64::from(last);
        assert_eq!(out[i], e, "element {i}");
        let mut p = start[i];
        p.pos += params.gravity * params.dt;
        p.mass = params.dt * last as f32;
        assert_eq!(ps[i], p, "element {i}");
    }
    assert_validation_clean();
    Ok(())
}
