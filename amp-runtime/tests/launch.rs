//! Launches on a real Vulkan device (lavapipe in CI) with the validation layer on.

mod common;

use std::sync::OnceLock;

use amp_runtime::{
    parallel_for_each, parallel_for_each_on, Accelerator, Array, ArrayView, ArrayViewMut,
    DeviceBuffer, DeviceBufferMut, Error, Extent, KernelArg, KernelCall, RawKernel,
};
use amp_runtime::{KernelInfo, ScalarType};
use common::{add, assert_clean, buffer, compile, info, init, scalar, FOLD_TEST_MAX_ELEMENTS};

/// `out[i] = in[i] * 2 + c` (u32), workgroup 64. Push: domain @0, in @4 (extent, offset),
/// out @12, c @20.
fn twice_plus() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer I { uint v[]; } inp;
layout(set = 0, binding = 1) writeonly buffer O { uint v[]; } outp;
layout(push_constant) uniform P { uint domain0; uint in0; uint in_off; uint out0; uint out_off; uint c; } pc;
void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (id >= pc.domain0) return;
    outp.v[id] = inp.v[id] * 2u + pc.c;
}
"#;
        info(
            "twice_plus",
            compile("twice_plus", src),
            1,
            vec![
                buffer("input", 0, ScalarType::U32, 1, false, 4),
                buffer("output", 1, ScalarType::U32, 1, true, 12),
                scalar("c", ScalarType::U32, 20),
            ],
            24,
            64,
            false,
        )
    })
}

fn twice_plus_call<'k>(
    input: &'k impl DeviceBuffer,
    output: &'k mut impl DeviceBufferMut,
    c: u32,
) -> KernelCall<'k, 1> {
    KernelCall::new(
        twice_plus(),
        vec![
            KernelArg::read(input),
            KernelArg::write(output),
            KernelArg::scalar(c),
        ],
    )
}

/// `s[i] += a[i]` (i32, reads and writes `s`). Push: domain @0, a @4, s @12.
fn accumulate() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { int a[]; };
layout(set = 0, binding = 1) buffer S { int s[]; };
layout(push_constant) uniform P { uint domain0; uint a0; uint a_off; uint s0; uint s_off; } pc;
void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 32u;
    if (id >= pc.domain0) return;
    s[id] += a[id];
}
"#;
        info(
            "accumulate",
            compile("accumulate", src),
            1,
            vec![
                buffer("a", 0, ScalarType::I32, 1, false, 4),
                buffer("s", 1, ScalarType::I32, 1, true, 12),
            ],
            20,
            32,
            false,
        )
    })
}

fn accumulate_call<'k>(
    a: &'k impl DeviceBuffer,
    s: &'k mut impl DeviceBufferMut,
) -> KernelCall<'k, 1> {
    KernelCall::new(accumulate(), vec![KernelArg::read(a), KernelArg::write(s)])
}

/// Rank 2: `out[r][c] = (r * 1000 + c) * (negate ? -1 : 1)`. Push: domain @0..8,
/// out extent @8..16, offset @16, row stride @20, negate (bool) @24.
fn iota2d() -> &'static KernelInfo {
    static K: OnceLock<&'static KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let src = r#"
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer O { int o[]; };
layout(push_constant) uniform P { uint d0; uint d1; uint o0; uint o1; uint o_off; uint o_stride0; uint negate; } pc;
void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (id >= pc.d0 * pc.d1) return;
    uint r = id / pc.d1;
    uint c = id % pc.d1;
    int v = int(r * 1000u + c);
    o[r * pc.o1 + c] = pc.negate != 0u ? -v : v;
}
"#;
        info(
            "iota2d",
            compile("iota2d", src),
            2,
            vec![
                buffer("out", 0, ScalarType::I32, 2, true, 8),
                scalar("negate", ScalarType::Bool, 24),
            ],
            28,
            64,
            false,
        )
    })
}

#[test]
fn add_views() {
    init();
    let a_vec: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let b_vec: Vec<f32> = (0..1000).map(|i| (2 * i) as f32).collect();
    let mut out = vec![0.0f32; 1000];
    {
        let a = ArrayView::new([1000], &a_vec).unwrap();
        let b = ArrayView::new([1000], &b_vec).unwrap();
        let mut sum = ArrayViewMut::new([1000], &mut out).unwrap();
        sum.discard_data();
        parallel_for_each(sum.extent(), add(&a, &b, &mut sum, 0.5)).unwrap();
        sum.synchronize().unwrap();
        assert_eq!(sum.get([10]).unwrap(), Some(20.0));
        // The device copies of `a` and `b` are reused; the result is overwritten.
        parallel_for_each(sum.extent(), add(&a, &b, &mut sum, 1.0)).unwrap();
        assert_eq!(sum.data().unwrap()[999], 999.0 + 1998.0);
        assert_eq!(a[[3]], 3.0);
    }
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, 3.0 * i as f32, "element {i}");
    }
    assert_clean();
}

#[test]
fn drop_synchronizes() {
    init();
    let a_vec = vec![1.0f32; 100];
    let mut out = vec![0.0f32; 100];
    {
        let a = ArrayView::new([100], &a_vec).unwrap();
        let mut sum = ArrayViewMut::new([100], &mut out).unwrap();
        parallel_for_each(Extent::new([100]), add(&a, &a, &mut sum, 2.0)).unwrap();
    }
    assert!(out.iter().all(|&v| v == 3.0));
    assert_clean();
}

#[test]
fn domain_folds_onto_y() {
    init();
    let acc = Accelerator::default().unwrap();
    let max_x = acc.limits().max_workgroup_count[0] as usize;
    // More workgroups than one dimension allows: the grid folds onto y.
    let n = max_x * 64 + 1000;
    if n > FOLD_TEST_MAX_ELEMENTS {
        eprintln!(
            "{}: {max_x} workgroups in x; no launch this test can afford folds",
            acc.name()
        );
        return;
    }
    let input: Vec<u32> = (0..n as u32).collect();
    let inp = Array::from_slice([n], &input).unwrap();
    let mut out = Array::<u32, 1>::new([n]).unwrap();
    parallel_for_each(out.extent(), twice_plus_call(&inp, &mut out, 7)).unwrap();
    let result = out.to_vec().unwrap();
    for (i, v) in result.iter().enumerate() {
        assert_eq!(*v, (i as u32).wrapping_mul(2) + 7, "element {i}");
    }
    assert_clean();
}

#[test]
fn array_round_trips() {
    init();
    let data: Vec<i32> = (0..500).map(|i| i * 3 - 100).collect();
    let a = Array::from_slice([20, 25], &data).unwrap();
    assert_eq!(a.extent(), Extent::new([20, 25]));
    assert_eq!(a.len(), 500);
    assert_eq!(a.to_vec().unwrap(), data);
    let mut copy = vec![0; 500];
    a.copy_to_slice(&mut copy).unwrap();
    assert_eq!(copy, data);
    assert!(matches!(
        a.copy_to_slice(&mut [0; 3]),
        Err(Error::MismatchedLengths {
            first: 500,
            second: 3,
            ..
        })
    ));

    let mut b = a.try_clone().unwrap();
    b.copy_from_slice(&vec![5; 500]).unwrap();
    assert_eq!(a.to_vec().unwrap(), data, "deep copy");
    assert_eq!(b.to_vec().unwrap(), vec![5; 500]);

    let z = Array::<f32, 3>::new([2, 3, 4]).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![0.0; 24]);
    assert_eq!(z.accelerator(), &Accelerator::default().unwrap());
    assert_clean();
}

#[test]
fn arrays_and_views_mix() {
    init();
    let a = Array::from_slice([256], &vec![1i32; 256]).unwrap();
    let mut s = Array::from_slice([256], &(0..256).collect::<Vec<i32>>()).unwrap();
    for _ in 0..3 {
        parallel_for_each(s.extent(), accumulate_call(&a, &mut s)).unwrap();
    }
    assert_eq!(s.to_vec().unwrap(), (3..259).collect::<Vec<i32>>());

    // A writable view that is read, accumulated twice on the device, then synchronized.
    let mut host = vec![10i32; 256];
    {
        let mut v = ArrayViewMut::new([256], &mut host).unwrap();
        parallel_for_each(v.extent(), accumulate_call(&a, &mut v)).unwrap();
        parallel_for_each(v.extent(), accumulate_call(&s, &mut v)).unwrap();
        v.synchronize().unwrap();
        assert_eq!(v.data().unwrap()[0], 10 + 1 + 3);
        // Host edits are uploaded after data_mut (or refresh).
        v.data_mut().unwrap()[0] = 100;
        parallel_for_each(v.extent(), accumulate_call(&a, &mut v)).unwrap();
        assert_eq!(v.get([0]).unwrap(), Some(101));
    }
    assert_eq!(host[1], 10 + 1 + 4 + 1);

    // Read-only use of a writable view and of an array as inputs.
    let mut host2 = vec![2i32; 256];
    let v2 = ArrayViewMut::new([256], &mut host2).unwrap();
    let mut t = Array::<i32, 1>::new([256]).unwrap();
    parallel_for_each(t.extent(), accumulate_call(&v2, &mut t)).unwrap();
    assert_eq!(t.to_vec().unwrap(), vec![2; 256]);
    drop(v2);
    assert_clean();
}

#[test]
fn refresh_reuploads() {
    init();
    let ones = vec![1i32; 64];
    let a = ArrayView::new([64], &ones).unwrap();
    let mut host = vec![0i32; 64];
    let mut v = ArrayViewMut::new([64], &mut host).unwrap();
    parallel_for_each(v.extent(), accumulate_call(&a, &mut v)).unwrap();
    v.synchronize().unwrap();
    v.refresh();
    parallel_for_each(v.extent(), accumulate_call(&a, &mut v)).unwrap();
    assert_eq!(v.data().unwrap(), &[2; 64][..]);
    drop(v);
    assert_eq!(host, vec![2; 64]);
    assert_clean();
}

#[test]
fn rank2_push_constants_and_bool() {
    init();
    let mut host = vec![0i32; 3 * 700];
    {
        let mut o = ArrayViewMut::new([3, 700], &mut host).unwrap();
        o.discard_data();
        let call = KernelCall::new(
            iota2d(),
            vec![KernelArg::write(&mut o), KernelArg::scalar(true)],
        );
        parallel_for_each(Extent::new([3, 700]), call).unwrap();
    }
    assert_eq!(host[0], 0);
    assert_eq!(host[701], -1001);
    assert_eq!(host[2 * 700 + 699], -2699);
    let mut a = Array::<i32, 2>::new([4, 5]).unwrap();
    let call = KernelCall::new(
        iota2d(),
        vec![KernelArg::write(&mut a), KernelArg::scalar(false)],
    );
    parallel_for_each(Extent::new([4, 5]), call).unwrap();
    assert_eq!(a.to_vec().unwrap()[3 * 5 + 4], 3004);
    assert_clean();
}

#[test]
fn float64_kernel_or_clear_error() {
    init();
    let src = r#"
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { double a[]; };
layout(set = 0, binding = 1) writeonly buffer S { double s[]; };
layout(push_constant) uniform P { uint domain0; uint a0; uint a_off; uint s0; uint s_off; double x; } pc;
void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (id >= pc.domain0) return;
    s[id] = a[id] * pc.x;
}
"#;
    let k = info(
        "dscale",
        compile("dscale", src),
        1,
        vec![
            buffer("a", 0, ScalarType::F64, 1, false, 4),
            buffer("s", 1, ScalarType::F64, 1, true, 12),
            scalar("x", ScalarType::F64, 24),
        ],
        32,
        64,
        true,
    );
    let data: Vec<f64> = (0..100).map(|i| i as f64 + 0.25).collect();
    let a = ArrayView::new([100], &data).unwrap();
    let mut out = vec![0.0f64; 100];
    let mut s = ArrayViewMut::new([100], &mut out).unwrap();
    let call = KernelCall::new(
        k,
        vec![
            KernelArg::read(&a),
            KernelArg::write(&mut s),
            KernelArg::scalar(1e-3f64),
        ],
    );
    let result = parallel_for_each(Extent::new([100]), call);
    if Accelerator::default().unwrap().supports_double_precision() {
        result.unwrap();
        s.synchronize().unwrap();
        drop(s);
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, (i as f64 + 0.25) * 1e-3);
        }
    } else {
        let e = result.unwrap_err();
        assert!(matches!(e, Error::MissingCapability { .. }));
        assert!(e.to_string().contains("shaderFloat64"));
    }
    assert_clean();
}

#[test]
fn error_cases() {
    init();
    let empty: [f32; 0] = [];
    assert!(ArrayView::new([0], &empty).is_ok());
    assert!(matches!(
        ArrayView::new([2, 3], &[1.0f32; 5]),
        Err(Error::ExtentMismatch { extent: 6, len: 5 })
    ));
    let mut five = [0i32; 5];
    assert!(matches!(
        ArrayViewMut::new([4], &mut five),
        Err(Error::ExtentMismatch { extent: 4, len: 5 })
    ));
    assert!(Array::<u32, 2>::new([0, 4]).is_ok());
    assert!(matches!(
        Array::<u32, 1>::from_slice([3], &[1, 2]),
        Err(Error::ExtentMismatch { extent: 3, len: 2 })
    ));
    assert!(matches!(
        Array::<u32, 1>::new([u32::MAX as usize + 1]),
        Err(Error::ExtentTooLarge { .. })
    ));

    let ones = vec![1.0f32; 8];
    let a = ArrayView::new([8], &ones).unwrap();
    let mut out = vec![0.0f32; 8];
    let mut sum = ArrayViewMut::new([8], &mut out).unwrap();
    assert!(parallel_for_each(Extent::new([0]), add(&a, &a, &mut sum, 1.0)).is_ok());
    assert!(matches!(
        parallel_for_each(
            Extent::new([u32::MAX as usize + 1]),
            add(&a, &a, &mut sum, 1.0)
        ),
        Err(Error::ExtentTooLarge { .. })
    ));

    // Arguments that do not match the kernel's parameters.
    let ints = vec![1i32; 8];
    let ai = ArrayView::new([8], &ints).unwrap();
    let call = KernelCall::<1>::new(
        common::add_kernel(),
        vec![
            KernelArg::read(&ai),
            KernelArg::read(&a),
            KernelArg::write(&mut sum),
            KernelArg::scalar(1.0f32),
        ],
    );
    let e = parallel_for_each(Extent::new([8]), call).unwrap_err();
    assert!(matches!(e, Error::ArgumentMismatch { .. }), "{e}");
    let call = KernelCall::<1>::new(
        common::add_kernel(),
        vec![
            KernelArg::read(&a),
            KernelArg::read(&a),
            KernelArg::write(&mut sum),
            KernelArg::scalar(1u32),
        ],
    );
    assert!(matches!(
        parallel_for_each(Extent::new([8]), call),
        Err(Error::ArgumentMismatch { .. })
    ));
    let call = KernelCall::<1>::new(common::add_kernel(), vec![KernelArg::read(&a)]);
    assert!(matches!(
        parallel_for_each(Extent::new([8]), call),
        Err(Error::ArgumentMismatch { .. })
    ));
    // A writable parameter passed read-only.
    let call = KernelCall::<1>::new(
        common::add_kernel(),
        vec![
            KernelArg::read(&a),
            KernelArg::read(&a),
            KernelArg::read(&a),
            KernelArg::scalar(1.0f32),
        ],
    );
    assert!(matches!(
        parallel_for_each(Extent::new([8]), call),
        Err(Error::ArgumentMismatch { .. })
    ));
    // Push constants the device cannot hold.
    let acc = Accelerator::default().unwrap();
    let big = acc.limits().max_push_constants_size + 4;
    let k = info(
        "big",
        compile("add", common::ADD_SRC),
        1,
        vec![],
        big,
        64,
        false,
    );
    assert!(matches!(
        parallel_for_each_on(&acc, Extent::new([8]), KernelCall::new(k, vec![])),
        Err(Error::PushConstantsTooLarge { .. })
    ));
    // Not SPIR-V.
    let k = info(
        "junk",
        Box::leak(vec![1u32, 2, 3, 4, 5, 6].into_boxed_slice()),
        1,
        vec![],
        4,
        64,
        false,
    );
    assert!(matches!(
        parallel_for_each(Extent::new([8]), KernelCall::new(k, vec![])),
        Err(Error::InvalidKernel { .. })
    ));
    drop(sum);
    assert_eq!(out, vec![0.0; 8], "failed launches leave the output alone");
    assert_clean();
}

#[test]
fn raw_kernel_dispatch() {
    init();
    let acc = Accelerator::default().unwrap();
    let words = twice_plus().spirv();
    let k = RawKernel::new(&acc, words, "main", 2, 24).unwrap();
    let input: Vec<u32> = (0..1000).collect();
    let inp = Array::from_slice_on(&acc, [1000], &input).unwrap();
    let mut host = vec![0u32; 1000];
    let mut out = ArrayViewMut::new([1000], &mut host).unwrap();
    // domain, input extent and offset, output extent and offset, c
    let push: Vec<u8> = [1000u32, 1000, 0, 1000, 0, 3]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    k.dispatch(
        [16, 1, 1],
        vec![KernelArg::read(&inp), KernelArg::write(&mut out)],
        &push,
    )
    .unwrap();
    assert!(matches!(
        k.dispatch([16, 1, 1], vec![KernelArg::read(&inp)], &push),
        Err(Error::ArgumentMismatch { .. })
    ));
    assert!(matches!(
        k.dispatch(
            [16, 1, 1],
            vec![KernelArg::read(&inp), KernelArg::write(&mut out)],
            &push[..4]
        ),
        Err(Error::ArgumentMismatch { .. })
    ));
    drop(out);
    assert_eq!(host[999], 2001);
    drop(k);
    assert_clean();
}

#[test]
fn concurrent_launches() {
    init();
    std::thread::scope(|scope| {
        for t in 0..4 {
            scope.spawn(move || {
                let a_vec: Vec<f32> = (0..4096).map(|i| (i + t) as f32).collect();
                let mut out = vec![0.0f32; 4096];
                for _ in 0..5 {
                    let a = ArrayView::new([4096], &a_vec).unwrap();
                    let mut s = ArrayViewMut::new([4096], &mut out).unwrap();
                    s.discard_data();
                    parallel_for_each(s.extent(), add(&a, &a, &mut s, 1.0)).unwrap();
                }
                assert_eq!(out[100], 2.0 * (100 + t) as f32);
            });
        }
    });
    assert_clean();
}

#[test]
fn accelerator_info() {
    init();
    let acc = Accelerator::default().unwrap();
    assert!(!acc.name().is_empty());
    let l = acc.limits();
    assert!(l.max_workgroup_count[0] >= 65535);
    assert!(l.max_push_constants_size >= 128);
    assert!(l.max_threads_per_workgroup >= 128);
    let all = Accelerator::all().unwrap();
    assert!(all.contains(&acc));
    // Handles to one device share it.
    assert_eq!(Accelerator::default().unwrap(), acc.clone());
    let _ = format!("{acc:?} {:?}", acc.device_type());
    assert_clean();
}

#[test]
fn extent_and_index() {
    let e = Extent::new([2, 3, 4]);
    assert_eq!(e.size(), 24);
    assert_eq!(e.rank(), 3);
    assert_eq!(e[2], 4);
    assert_eq!(e.to_string(), "[2, 3, 4]");
    assert_eq!(Extent::from([5]).as_array(), [5]);
    let i = amp_runtime::Index::from([1, 2]);
    assert_eq!(i[1], 2);
    assert_eq!(i.to_string(), "[1, 2]");
    let data = [1, 2, 3, 4, 5, 6];
    let v = ArrayView::new([2, 3], &data).unwrap();
    assert_eq!(v[amp_runtime::Index::new([1, 1])], 5);
    assert_eq!(v.get([2, 0]), None);
}

#[test]
fn handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Accelerator>();
    check::<Array<f32, 2>>();
    check::<ArrayView<'static, f64, 1>>();
    check::<ArrayViewMut<'static, i32, 3>>();
    check::<RawKernel>();
    check::<Error>();
}
