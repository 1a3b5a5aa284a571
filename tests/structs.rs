//! `#[derive(DeviceStruct)]` structs as view and array elements: field reads and writes,
//! whole-struct loads and stores, struct locals and struct expressions in kernels, on the
//! device, with layouts that match the host's `#[repr(C)]` (explicit padding, nested structs,
//! short-vector fields packed).
use amp::prelude::*;

fn assert_validation_clean() {
    if std::env::var("AMP_VALIDATION").is_ok_and(|v| v == "1") {
        assert!(amp::validation_enabled());
    }
    assert_eq!(amp::validation_message_count(), 0);
}

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
