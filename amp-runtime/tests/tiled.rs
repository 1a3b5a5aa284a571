//! Tiled launches (C++ AMP's tiled model) and specialization constants, with hand-written GLSL
//! kernels that follow the contract of `amp_runtime::KernelInfo`: workgroup size from
//! specialization constants 0, 1, 2 (x = last tile dimension), the call's constants from 3 on.

mod common;

use std::sync::OnceLock;

use amp_runtime::{
    parallel_for_each, parallel_for_each_on, Accelerator, Array, ArrayView, ArrayViewMut,
    DeviceBuffer, DeviceBufferMut, Error, Extent, KernelArg, KernelCall, KernelInfo, ParamInfo,
    ScalarType, TiledExtent, TiledIndex, TiledKernelCall,
};
use common::{add, assert_clean, buffer, compile, init};

#[allow(clippy::too_many_arguments)]
fn kernel_info(
    name: &'static str,
    spirv: &'static [u32],
    rank: u32,
    params: Vec<ParamInfo>,
    push_constant_size: u32,
    tile_rank: u32,
    spec_constants: &'static [ScalarType],
    uses_float64: bool,
) -> &'static KernelInfo {
    Box::leak(Box::new(KernelInfo {
        name,
        spirv,
        spirv_narrow_storage: &[],
        entry_point: "main",
        rank,
        params: Box::leak(params.into_boxed_slice()),
        push_constant_size,
        workgroup_size: if tile_rank == 0 {
            [64, 1, 1]
        } else {
            [1, 1, 1]
        },
        shape: amp_runtime::Shape::Fixed,
        uses_float64,
        hash: spirv.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
            (h ^ u64::from(w)).wrapping_mul(0x0100_0000_01b3)
        }),
        tile_rank,
        spec_constants,
        report: "",
        report_binding: None,
        bounds_checked: false,
        loop_lines: &[],
    }))
}

/// Rank 1, any tile size: `s[tile] = SCALE * sum of a over the tile`, through shared memory.
/// Push: domain @0, a @4 (extent, offset), s @12. Spec: 3 = SCALE (u32).
fn tile_sum() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint SCALE = 1;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) writeonly buffer S { uint s[]; };
layout(push_constant) uniform P { uint d0; uint a0; uint a_off; uint s0; uint s_off; } pc;
shared uint part[gl_WorkGroupSize.x];
void main() {
    uint T = gl_WorkGroupSize.x;
    uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (tile >= pc.d0 / T) return; // whole workgroups past the end (folded grid)
    uint local = gl_LocalInvocationID.x;
    part[local] = a[tile * T + local];
    barrier();
    if (local == 0u) {
        uint sum = 0u;
        for (uint i = 0u; i < T; i++) sum += part[i];
        s[tile] = sum * SCALE;
    }
}
"#;
        kernel_info(
            "tile_sum",
            compile("tile_sum", src),
            1,
            vec![
                buffer("a", 0, ScalarType::U32, 1, false, 4),
                buffer("s", 1, ScalarType::U32, 1, true, 12),
            ],
            20,
            1,
            &[ScalarType::U32],
            false,
        )
    })
}

fn tile_sum_call<'k, const T: usize>(
    a: &'k impl DeviceBuffer,
    s: &'k mut impl DeviceBufferMut,
    scale: u32,
) -> TiledKernelCall<'k, T> {
    TiledKernelCall::new(
        tile_sum(),
        vec![KernelArg::read(a), KernelArg::write(s)],
        vec![scale],
        4 * T as u32,
    )
}

fn check_tile_sums<const T: usize>(acc: &Accelerator, tiles: usize, scale: u32) {
    let n = tiles * T;
    let a: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
        .collect();
    let mut sums = vec![0u32; tiles];
    {
        let av = ArrayView::new([n], &a).unwrap();
        let mut sv = ArrayViewMut::new([tiles], &mut sums).unwrap();
        sv.discard_data();
        parallel_for_each_on(
            acc,
            Extent::new([n]).tile::<T>(),
            tile_sum_call::<T>(&av, &mut sv, scale),
        )
        .unwrap();
    }
    for (t, s) in sums.iter().enumerate() {
        let expect = a[t * T..(t + 1) * T]
            .iter()
            .fold(0u32, |acc, &v| acc.wrapping_add(v))
            .wrapping_mul(scale);
        assert_eq!(*s, expect, "tile {t} of {tiles} (tile size {T})");
    }
}

#[test]
fn rank1_tile_sums_and_one_pipeline_per_tile_shape() {
    init();
    let acc = Accelerator::default().unwrap();
    // One kernel, three tile shapes and two values of its constant: each specialization gets
    // its own pipeline, and each is right (also when run again after the others).
    check_tile_sums::<7>(&acc, 100, 1);
    check_tile_sums::<64>(&acc, 50, 1);
    check_tile_sums::<7>(&acc, 33, 3);
    check_tile_sums::<1>(&acc, 10, 5);
    check_tile_sums::<64>(&acc, 3, 1);
    check_tile_sums::<7>(&acc, 100, 1);
    assert_clean();
}

#[test]
fn rank1_tile_at_the_device_limit() {
    init();
    let acc = Accelerator::default().unwrap();
    let l = acc.limits();
    if l.max_threads_per_workgroup >= 1024 && l.max_workgroup_size[0] >= 1024 {
        check_tile_sums::<1024>(&acc, 5, 2);
    } else {
        let a = vec![0u32; 1024];
        let mut s = vec![0u32; 1];
        let av = ArrayView::new([1024], &a).unwrap();
        let mut sv = ArrayViewMut::new([1], &mut s).unwrap();
        let e = parallel_for_each_on(
            &acc,
            Extent::new([1024]).tile::<1024>(),
            tile_sum_call::<1024>(&av, &mut sv, 1),
        )
        .unwrap_err();
        assert!(matches!(e, Error::TileTooLarge { .. }), "{e}");
    }
    assert_clean();
}

#[test]
fn rank1_tiles_fold_onto_y() {
    init();
    let acc = Accelerator::default().unwrap();
    let max_x = acc.limits().max_workgroup_count[0] as usize;
    // More tiles than one grid dimension allows: the grid folds onto y and the kernel returns
    // from the workgroups past the last tile.
    let tiles = max_x * 2 + 5;
    let n = tiles * 2;
    if n > common::FOLD_TEST_MAX_ELEMENTS {
        eprintln!(
            "{}: {max_x} workgroups in x; no launch this test can afford folds",
            acc.name()
        );
        return;
    }
    let a: Vec<u32> = (0..n as u32).collect();
    let av = Array::from_slice([n], &a).unwrap();
    let mut sv = Array::<u32, 1>::new([tiles]).unwrap();
    parallel_for_each(
        Extent::new([n]).tile::<2>(),
        tile_sum_call::<2>(&av, &mut sv, 1),
    )
    .unwrap();
    let sums = sv.to_vec().unwrap();
    for (t, s) in sums.iter().enumerate() {
        let t = t as u32;
        assert_eq!(*s, 4 * t + 1, "tile {t}");
    }
    assert_clean();
}

/// Rank 2, any tile: `c = a[mirror] + b` where `mirror` reflects the position within its tile,
/// read from a shared copy of `a`'s tile (zero past `a`'s extent), so the result depends on the
/// barrier. Threads past `c`'s extent (a padded domain) write nothing.
/// Push: domain @0..8, a @8 (extent, offset, row stride), b @24, c @40.
fn mirror_add() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uvec2 d; uvec2 ae; uvec2 a_os; uvec2 be; uvec2 b_os; uvec2 ce; uvec2 c_os; } pc;
shared float t[gl_WorkGroupSize.y][gl_WorkGroupSize.x];
void main() {
    uint row = gl_GlobalInvocationID.y;
    uint col = gl_GlobalInvocationID.x;
    uint lr = gl_LocalInvocationID.y;
    uint lc = gl_LocalInvocationID.x;
    bool inside = row < pc.ae.x && col < pc.ae.y;
    t[lr][lc] = inside ? a[row * pc.ae.y + col] : 0.0;
    barrier();
    if (row < pc.ce.x && col < pc.ce.y) {
        float m = t[gl_WorkGroupSize.y - 1u - lr][gl_WorkGroupSize.x - 1u - lc];
        c[row * pc.ce.y + col] = m + b[row * pc.be.y + col];
    }
}
"#;
        kernel_info(
            "mirror_add",
            compile("mirror_add", src),
            2,
            vec![
                buffer("a", 0, ScalarType::F32, 2, false, 8),
                buffer("b", 1, ScalarType::F32, 2, false, 24),
                buffer("c", 2, ScalarType::F32, 2, true, 40),
            ],
            56,
            2,
            &[],
            false,
        )
    })
}

fn mirror_add_call<'k, const T0: usize, const T1: usize>(
    a: &'k impl DeviceBuffer,
    b: &'k impl DeviceBuffer,
    c: &'k mut impl DeviceBufferMut,
) -> TiledKernelCall<'k, T0, T1> {
    TiledKernelCall::new(
        mirror_add(),
        vec![KernelArg::read(a), KernelArg::read(b), KernelArg::write(c)],
        vec![],
        (4 * T0 * T1) as u32,
    )
}

/// What `mirror_add` computes for a `rows x cols` matrix and the tiles `T0 x T1`.
fn mirror_add_reference<const T0: usize, const T1: usize>(
    a: &[f32],
    b: &[f32],
    rows: usize,
    cols: usize,
) -> Vec<f32> {
    let mut c = vec![0.0; rows * cols];
    for r in 0..rows {
        for col in 0..cols {
            let t = TiledIndex::<T0, T1>::new(&[r, col]);
            let mr = t.tile_origin[0] + T0 - 1 - t.local[0];
            let mc = t.tile_origin[1] + T1 - 1 - t.local[1];
            let m = if mr < rows && mc < cols {
                a[mr * cols + mc]
            } else {
                0.0
            };
            c[r * cols + col] = m + b[r * cols + col];
        }
    }
    c
}

fn run_mirror_add<const T0: usize, const T1: usize>(
    rows: usize,
    cols: usize,
    pad: bool,
) -> Result<(), Error> {
    let a: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..rows * cols).map(|i| (i % 13) as f32 * 0.5).collect();
    let mut c = vec![-1.0f32; rows * cols];
    {
        let av = ArrayView::new([rows, cols], &a)?;
        let bv = ArrayView::new([rows, cols], &b)?;
        let mut cv = ArrayViewMut::new([rows, cols], &mut c)?;
        let mut domain = cv.extent().tile::<T0, T1>();
        if pad {
            domain = domain.pad();
        }
        parallel_for_each(domain, mirror_add_call::<T0, T1>(&av, &bv, &mut cv))?;
    }
    assert_eq!(c, mirror_add_reference::<T0, T1>(&a, &b, rows, cols));
    Ok(())
}

#[test]
fn rank2_tiles_with_shared_memory() {
    init();
    // 9 * 49 = 441 threads per tile; x is the last dimension (49), y the first (9).
    run_mirror_add::<9, 49>(18, 98, false).unwrap();
    run_mirror_add::<9, 49>(27, 49, false).unwrap();
    // Another tile shape of the same kernel.
    run_mirror_add::<4, 4>(8, 12, false).unwrap();
    run_mirror_add::<1, 16>(3, 32, false).unwrap();
    assert_clean();
}

#[test]
fn not_divisible_then_pad_and_truncate() {
    init();
    let e = run_mirror_add::<9, 49>(20, 100, false).unwrap_err();
    assert!(matches!(e, Error::NotDivisible { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("[20, 100]") && msg.contains("[9, 49]"),
        "{msg}"
    );
    assert!(
        msg.contains(".pad()") && msg.contains(".truncate()"),
        "{msg}"
    );
    // Padded: the domain is [27, 147]; the kernel skips the threads past the data.
    let t = Extent::new([20, 100]).tile::<9, 49>();
    assert_eq!(t.pad().extent(), &[27, 147]);
    assert_eq!(t.truncate().extent(), &[18, 98]);
    assert_eq!(t.pad().num_tiles(), 9);
    run_mirror_add::<9, 49>(20, 100, true).unwrap();

    // Truncated: only the whole tiles are summed.
    let acc = Accelerator::default().unwrap();
    let a: Vec<u32> = (0..710).collect();
    let mut s = vec![0u32; 101];
    {
        let av = ArrayView::new([710], &a).unwrap();
        let mut sv = ArrayViewMut::new([101], &mut s).unwrap();
        let domain = Extent::new([710]).tile::<7>();
        let e =
            parallel_for_each_on(&acc, domain, tile_sum_call::<7>(&av, &mut sv, 1)).unwrap_err();
        assert!(matches!(e, Error::NotDivisible { .. }), "{e}");
        assert_eq!(domain.truncate().extent(), &[707]);
        parallel_for_each_on(&acc, domain.truncate(), tile_sum_call::<7>(&av, &mut sv, 1)).unwrap();
    }
    for (t, v) in s.iter().enumerate() {
        let t = t as u32;
        assert_eq!(*v, (7 * t..7 * t + 7).sum::<u32>(), "tile {t}");
    }
    // A dimension smaller than its tile truncates to nothing.
    {
        let av = ArrayView::new([710], &a).unwrap();
        let mut sv = ArrayViewMut::new([101], &mut s).unwrap();
        parallel_for_each_on(
            &acc,
            Extent::new([5]).tile::<7>().truncate(),
            tile_sum_call::<7>(&av, &mut sv, 1),
        )
        .unwrap();
    }
    assert_clean();
}

/// Rank 3, any tile: each thread writes its tile and local position (as `tile * 1000 + local`,
/// decimal digits per dimension), after checking that a neighbour's write to shared memory is
/// visible behind the barrier. Push: domain @0..12, out @12..24.
fn positions3() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };
layout(push_constant) uniform P { uint d0; uint d1; uint d2; uint o0; uint o1; uint o2; uint o_off; uint o_s0; uint o_s1; } pc;
shared uint ids[gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z];
void main() {
    uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    uint lin = gl_LocalInvocationIndex;
    ids[lin] = lin;
    barrier();
    uvec3 g = gl_GlobalInvocationID;
    uvec3 t = gl_WorkGroupID;
    uvec3 l = gl_LocalInvocationID;
    uint v = (t.z * 100u + t.y * 10u + t.x) * 1000u + l.z * 100u + l.y * 10u + l.x;
    if (ids[(lin + 1u) % n] != (lin + 1u) % n) v = 0xffffffffu;
    o[(g.z * pc.o1 + g.y) * pc.o2 + g.x] = v;
}
"#;
        kernel_info(
            "positions3",
            compile("positions3", src),
            3,
            vec![buffer("out", 0, ScalarType::U32, 3, true, 12)],
            36,
            3,
            &[],
            false,
        )
    })
}

fn positions3_call<'k, const T0: usize, const T1: usize, const T2: usize>(
    out: &'k mut impl DeviceBufferMut,
) -> TiledKernelCall<'k, T0, T1, T2> {
    TiledKernelCall::new(
        positions3(),
        vec![KernelArg::write(out)],
        vec![],
        (4 * T0 * T1 * T2) as u32,
    )
}

fn check_positions3<const T0: usize, const T1: usize, const T2: usize>(dims: [usize; 3]) {
    let mut out = Array::<u32, 3>::new(dims).unwrap();
    parallel_for_each(
        out.extent().tile::<T0, T1, T2>(),
        positions3_call::<T0, T1, T2>(&mut out),
    )
    .unwrap();
    let v = out.to_vec().unwrap();
    for i in 0..dims[0] {
        for j in 0..dims[1] {
            for k in 0..dims[2] {
                let t = TiledIndex::<T0, T1, T2>::new(&[i, j, k]);
                assert_eq!(t.global.as_array(), [i, j, k]);
                assert_eq!(t.tile_extent.as_array(), [T0, T1, T2]);
                for d in 0..3 {
                    assert_eq!(t.tile_origin[d] + t.local[d], t.global[d]);
                    assert_eq!(t.tile[d] * t.tile_extent[d], t.tile_origin[d]);
                }
                let expect = ((t.tile[0] * 100 + t.tile[1] * 10 + t.tile[2]) * 1000
                    + t.local[0] * 100
                    + t.local[1] * 10
                    + t.local[2]) as u32;
                assert_eq!(
                    v[(i * dims[1] + j) * dims[2] + k],
                    expect,
                    "[{i}, {j}, {k}]"
                );
            }
        }
    }
}

#[test]
fn rank3_tiles() {
    init();
    check_positions3::<2, 3, 7>([4, 6, 14]);
    check_positions3::<2, 3, 7>([2, 9, 7]);
    check_positions3::<4, 1, 2>([8, 3, 4]);
    assert_clean();
}

#[test]
fn launch_errors() {
    init();
    let acc = Accelerator::default().unwrap();
    let a = vec![1u32; 64];
    let mut s = vec![0u32; 64];
    let av = ArrayView::new([64], &a).unwrap();
    let mut sv = ArrayViewMut::new([64], &mut s).unwrap();
    let domain = Extent::new([64]).tile::<8>();

    // More tile_static memory than the device has.
    let call = TiledKernelCall::<8>::new(
        tile_sum(),
        vec![KernelArg::read(&av), KernelArg::write(&mut sv)],
        vec![1],
        1 << 20,
    );
    let e = parallel_for_each_on(&acc, domain, call).unwrap_err();
    match &e {
        Error::TileStaticTooLarge { needed, limit, .. } => {
            assert_eq!(*needed, 1 << 20);
            assert_eq!(*limit, acc.limits().max_shared_memory_bytes);
        }
        e => panic!("{e}"),
    }
    assert!(e.to_string().contains("maxComputeSharedMemorySize"), "{e}");

    // Specialization words that do not match the kernel's constants.
    for spec in [vec![], vec![1, 2]] {
        let call = TiledKernelCall::<8>::new(
            tile_sum(),
            vec![KernelArg::read(&av), KernelArg::write(&mut sv)],
            spec,
            32,
        );
        let e = parallel_for_each_on(&acc, domain, call).unwrap_err();
        assert!(matches!(e, Error::ArgumentMismatch { .. }), "{e}");
    }

    // A simple kernel over a tiled domain, a tiled kernel over a plain extent.
    let fv = vec![1.0f32; 64];
    let mut fo = vec![0.0f32; 64];
    {
        let fa = ArrayView::new([64], &fv).unwrap();
        let mut fs = ArrayViewMut::new([64], &mut fo).unwrap();
        let call = TiledKernelCall::<8>::new(
            common::add_kernel(),
            vec![
                KernelArg::read(&fa),
                KernelArg::read(&fa),
                KernelArg::write(&mut fs),
                KernelArg::scalar(1.0f32),
            ],
            vec![],
            0,
        );
        let e = parallel_for_each_on(&acc, domain, call).unwrap_err();
        assert!(matches!(e, Error::ArgumentMismatch { .. }), "{e}");
        assert!(e.to_string().contains("not tiled"), "{e}");
        // The same kernel through its simple launcher works.
        parallel_for_each_on(&acc, fs.extent(), add(&fa, &fa, &mut fs, 1.0)).unwrap();
    }
    let call = KernelCall::<1>::new(
        tile_sum(),
        vec![KernelArg::read(&av), KernelArg::write(&mut sv)],
    )
    .with_spec(vec![1]);
    let e = parallel_for_each_on(&acc, Extent::new([64]), call).unwrap_err();
    assert!(matches!(e, Error::ArgumentMismatch { .. }), "{e}");
    assert!(e.to_string().contains("tile::<"), "{e}");

    // A kernel whose tile rank differs from the domain's.
    let call = TiledKernelCall::<8>::new(mirror_add(), vec![], vec![], 0);
    let e = parallel_for_each_on(&acc, domain, call).unwrap_err();
    assert!(matches!(e, Error::ArgumentMismatch { .. }), "{e}");

    // More tiles along x than the device can dispatch (checked before any upload; tiles
    // along y would fold onto z).
    let max_x = acc.limits().max_workgroup_count[0] as usize;
    let small = vec![0.0f32; 4];
    let mut small_out = vec![0.0f32; 4];
    {
        let x = ArrayView::new([2, 2], &small).unwrap();
        let mut y = ArrayViewMut::new([2, 2], &mut small_out).unwrap();
        let e = parallel_for_each_on(
            &acc,
            Extent::new([1, max_x + 1]).tile::<1, 1>(),
            mirror_add_call::<1, 1>(&x, &x, &mut y),
        )
        .unwrap_err();
        assert!(matches!(e, Error::TooManyWorkgroups { .. }), "{e}");
    }
    drop(sv);
    assert!(s.iter().all(|&v| v == 0));
    assert_clean();
}

/// A simple kernel with specialization constants 3 (u32), 4 (f32), 5 (bool):
/// `out[i] = (NEG ? -1 : 1) * (in[i] * K + F)`. Push: domain @0, in @4, out @8.
fn spec_simple() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x = 64) in;
layout(constant_id = 3) const uint K = 1;
layout(constant_id = 4) const float F = 0.0;
layout(constant_id = 5) const bool NEG = false;
layout(set = 0, binding = 0) readonly buffer I { float v[]; } inp;
layout(set = 0, binding = 1) writeonly buffer O { float v[]; } outp;
layout(push_constant) uniform P { uint d0; uint in0; uint in_off; uint out0; uint out_off; } pc;
void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (id >= pc.d0) return;
    float r = inp.v[id] * float(K) + F;
    outp.v[id] = NEG ? -r : r;
}
"#;
        kernel_info(
            "spec_simple",
            compile("spec_simple", src),
            1,
            vec![
                buffer("input", 0, ScalarType::F32, 1, false, 4),
                buffer("output", 1, ScalarType::F32, 1, true, 12),
            ],
            20,
            0,
            &[ScalarType::U32, ScalarType::F32, ScalarType::Bool],
            false,
        )
    })
}

#[test]
fn spec_constants_of_a_simple_kernel() {
    init();
    let input: Vec<f32> = (0..300).map(|i| i as f32).collect();
    for (k, f, neg) in [
        (3u32, 0.5f32, false),
        (1, -2.0, true),
        (3, 0.5, false),
        (7, 0.0, true),
    ] {
        let mut out = vec![0.0f32; 300];
        {
            let iv = ArrayView::new([300], &input).unwrap();
            let mut ov = ArrayViewMut::new([300], &mut out).unwrap();
            let call = KernelCall::<1>::new(
                spec_simple(),
                vec![KernelArg::read(&iv), KernelArg::write(&mut ov)],
            )
            .with_spec(vec![k, f.to_bits(), u32::from(neg)]);
            parallel_for_each(Extent::new([300]), call).unwrap();
        }
        for (i, v) in out.iter().enumerate() {
            let r = i as f32 * k as f32 + f;
            assert_eq!(*v, if neg { -r } else { r }, "element {i} with K={k}");
        }
    }
    // Missing constants are an error, not a default.
    let mut out = vec![0.0f32; 300];
    let iv = ArrayView::new([300], &input).unwrap();
    let mut ov = ArrayViewMut::new([300], &mut out).unwrap();
    let call = KernelCall::<1>::new(
        spec_simple(),
        vec![KernelArg::read(&iv), KernelArg::write(&mut ov)],
    );
    let e = parallel_for_each(Extent::new([300]), call).unwrap_err();
    assert!(matches!(e, Error::ArgumentMismatch { .. }), "{e}");
    assert_clean();
}

#[test]
fn f64_spec_constant() {
    init();
    let acc = Accelerator::default().unwrap();
    if !acc.supports_double_precision() {
        return;
    }
    let src = r#"
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const double D = 0.0;
layout(constant_id = 4) const int I = 0;
layout(set = 0, binding = 0) buffer O { double o[]; };
layout(push_constant) uniform P { uint d0; uint o0; uint o_off; } pc;
void main() {
    uint g = gl_GlobalInvocationID.x;
    o[g] = o[g] * D + double(I);
}
"#;
    let info = kernel_info(
        "f64_spec",
        compile("f64_spec", src),
        1,
        vec![buffer("o", 0, ScalarType::F64, 1, true, 4)],
        12,
        1,
        &[ScalarType::F64, ScalarType::I32],
        true,
    );
    let d = 1.0f64 + f64::EPSILON * 3.0;
    let bits = d.to_bits();
    let mut o = Array::<f64, 1>::from_slice_on(&acc, [16], &[2.0; 16]).unwrap();
    let call: TiledKernelCall<'_, 4> = TiledKernelCall::new(
        info,
        vec![KernelArg::write(&mut o)],
        vec![bits as u32, (bits >> 32) as u32, (-5i32) as u32],
        0,
    );
    let domain: TiledExtent<4> = Extent::new([16]).tile::<4>();
    parallel_for_each(domain, call).unwrap();
    assert!(o.to_vec().unwrap().iter().all(|&v| v == 2.0 * d - 5.0));
    assert_clean();
}
