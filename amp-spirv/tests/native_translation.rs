//! The native back end: kernels translated to Rust source for one thread, compiled
//! by rustc into a small program linked against amp-native-rt (their run-time support), run
//! over a domain, and their results checked against docs/semantics.md (the device's defined
//! values where Rust would panic).

use amp_spirv::{compile_native, NativeError, Options};
use std::process::Command;

/// Compiles each kernel natively (`fn_name` = the kernel's name) into one program with `main`,
/// runs it and returns its standard output.
fn run(kernels: &[(&str, Options)], main: &str) -> String {
    let mut items = String::new();
    for (k, options) in kernels {
        let func: syn::ItemFn = syn::parse_str(k).expect("a function");
        let name = func.sig.ident.to_string();
        let native = compile_native(&func, options, "crate::rt", &name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        items.push_str(&native.code.to_string());
    }
    run_source(&items, main)
}

/// Compiles generated `items`, linked against amp-native-rt, and `main` into a program, runs it and returns
/// its standard output.
fn run_source(items: &str, main: &str) -> String {
    let mut src = String::from("#![allow(warnings)]\nuse amp_native_rt as rt;\n");
    src.push_str(
        "fn buf<T, const R: usize>(v: &mut [T], extent: [u32; R]) -> rt::Buf<T, R> {\n\
         \x20   let mut strides = [1u32; R];\n\
         \x20   for d in (0..R.saturating_sub(1)).rev() { strides[d] = strides[d + 1] * extent[d + 1]; }\n\
         \x20   rt::Buf { ptr: v.as_mut_ptr(), extent, offset: 0, strides, covers: false }\n}\n",
    );
    src.push_str(items);
    if std::env::var_os("AMP_NATIVE_DUMP").is_some() {
        eprintln!("{src}");
    }
    src.push_str("fn main() {\n");
    src.push_str(main);
    src.push_str("\n}\n");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("native.rs");
    let exe = dir.path().join("native");
    std::fs::write(&file, &src).unwrap();
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .args(["--edition", "2021", "-C", "opt-level=1"])
        .args(amp_native_rt::rustc_extern_args())
        .arg("-o")
        .arg(&exe)
        .arg(&file)
        .output()
        .expect("rustc runs");
    assert!(
        out.status.success(),
        "rustc failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        numbered(&src)
    );
    let run = Command::new(&exe).output().expect("the program runs");
    assert!(
        run.status.success(),
        "the program failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout).unwrap()
}

fn numbered(s: &str) -> String {
    s.lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} {l}\n", i + 1))
        .collect()
}

fn plain(k: &str) -> (&str, Options) {
    (k, Options::default())
}

#[test]
fn integer_division_and_shifts_have_the_device_values() {
    let div = "fn div(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<i32, 1>, \
               q: ArrayViewMut<i32, 1>, r: ArrayViewMut<i32, 1>) { \
               q[idx] = a[idx] / b[idx]; r[idx] = a[idx] % b[idx]; }";
    let udiv = "fn udiv(idx: Index<1>, a: ArrayView<u32, 1>, b: ArrayView<u32, 1>, \
                q: ArrayViewMut<u32, 1>, r: ArrayViewMut<u32, 1>) { \
                q[idx] = a[idx] / b[idx]; r[idx] = a[idx] % b[idx]; }";
    let shifts =
        "fn shifts(idx: Index<1>, a: ArrayView<i32, 1>, n: u32, out: ArrayViewMut<i32, 1>) { \
                  let x = a[idx]; out[idx] = (x << n) ^ (x >> 33); \
                  let mut y = x; y <<= n; y += i32::MAX; out[idx] = out[idx] ^ y; }";
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![7i32, i32::MIN, i32::MIN, -7, 0];
        let mut b = vec![0i32, -1, 0, 2, 0];
        let (mut q, mut r) = (vec![9i32; 5], vec![9i32; 5]);
        let (pa, pb, pq, pr) = (buf(&mut a, [5]), buf(&mut b, [5]), buf(&mut q, [5]), buf(&mut r, [5]));
        for i in 0..5 { unsafe { div([i], pa, pb, pq, pr, &oob) } }
        println!("{:?} {:?}", q, r);
        let mut a = vec![7u32, u32::MAX, 0];
        let mut b = vec![0u32, 0, 3];
        let (mut q, mut r) = (vec![9u32; 3], vec![9u32; 3]);
        let (pa, pb, pq, pr) = (buf(&mut a, [3]), buf(&mut b, [3]), buf(&mut q, [3]), buf(&mut r, [3]));
        for i in 0..3 { unsafe { udiv([i], pa, pb, pq, pr, &oob) } }
        println!("{:?} {:?}", q, r);
        let mut a = vec![-5i32, 1, i32::MIN];
        let mut out = vec![0i32; 3];
        let (pa, po) = (buf(&mut a, [3]), buf(&mut out, [3]));
        for i in 0..3 { unsafe { shifts([i], pa, 33, po, &oob) } }
        println!("{:?}", out);
        println!("{:?}", oob.read());
    "#;
    let out = run(&[plain(div), plain(udiv), plain(shifts)], main);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{:?} {:?}",
            [-1, i32::MIN, -1, -3, -1],
            [7, 0, i32::MIN, -1, 0]
        )
    );
    assert_eq!(
        lines[1],
        format!("{:?} {:?}", [u32::MAX, u32::MAX, 0], [7, u32::MAX, 0])
    );
    let expect: Vec<i32> = [-5i32, 1, i32::MIN]
        .iter()
        .map(|&x| {
            let first = x.wrapping_shl(33) ^ x.wrapping_shr(33);
            let y = x.wrapping_shl(33).wrapping_add(i32::MAX);
            first ^ y
        })
        .collect();
    assert_eq!(lines[2], format!("{expect:?}"));
    assert_eq!(
        lines[3],
        format!("{:?}", [0u32; 9]),
        "nothing out of bounds"
    );
}

#[test]
fn casts_saturate_and_nan_becomes_zero() {
    let k = "fn casts(idx: Index<1>, a: ArrayView<f32, 1>, i: ArrayViewMut<i32, 1>, \
             u: ArrayViewMut<u32, 1>, m: ArrayViewMut<f32, 1>) { \
             let x = a[idx]; i[idx] = x as i32; u[idx] = x as u32; \
             m[idx] = x.min(1.0) + f32::from_bits(x.to_bits() ^ 0) * 0.0 + (x.max(-2.0)).clamp(-1.0, 1.0); }";
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.5, 3e9, 2.7];
        let (mut i, mut u, mut m) = (vec![7i32; 6], vec![7u32; 6], vec![0f32; 6]);
        let (pa, pi, pu, pm) = (buf(&mut a, [6]), buf(&mut i, [6]), buf(&mut u, [6]), buf(&mut m, [6]));
        for t in 0..6 { unsafe { casts([t], pa, pi, pu, pm, &oob) } }
        println!("{:?}", i);
        println!("{:?}", u);
        println!("{:?}", m.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!("{:?}", [0, i32::MAX, i32::MIN, -1, i32::MAX, 2])
    );
    assert_eq!(
        lines[1],
        format!("{:?}", [0, u32::MAX, 0, 0, 3_000_000_000, 2])
    );
    let expect: Vec<u32> = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.5, 3e9, 2.7]
        .iter()
        .map(|&x: &f32| {
            (x.min(1.0) + f32::from_bits(x.to_bits()) * 0.0 + x.max(-2.0).clamp(-1.0, 1.0))
                .to_bits()
        })
        .collect();
    assert_eq!(lines[2], format!("{expect:?}"));
}

#[test]
fn out_of_bounds_reads_give_zero_and_are_reported() {
    let k = "fn shifted(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) { \
             out[idx] = a[[idx[0] + 2]] + 1; out[[idx[0] + 10]] = 5; }";
    let unchecked = "fn inside(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) { \
                     out[idx] = a[idx] * 2; }";
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![10i32, 20, 30, 40];
        let mut out = vec![0i32; 4];
        let (pa, po) = (buf(&mut a, [4]), buf(&mut out, [4]));
        for t in 0..4 { unsafe { shifted([t], pa, po, &oob) } }
        println!("{:?}", out);
        println!("{:?}", oob.read());
        let clean = rt::OobReport::new();
        for t in 0..4 { unsafe { inside([t], pa, po, &clean) } }
        println!("{:?}", out);
        println!("{:?}", clean.read());
    "#;
    let unchecked_options = Options {
        unchecked: true,
        ..Options::default()
    };
    let out = run(&[plain(k), (unchecked, unchecked_options)], main);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[31, 41, 1, 1]");
    // The first failure: thread 0's write to out[10] or thread 2's read of a[4], whichever a
    // thread met first; threads run in order here, so thread 0's write (param 1).
    assert_eq!(lines[1], "[1, 1, 1, 10, 0, 0, 4, 0, 0]");
    assert_eq!(lines[2], "[20, 40, 60, 80]");
    assert_eq!(lines[3], format!("{:?}", [0u32; 9]));
}

#[test]
fn control_flow_locals_and_arrays() {
    let k = r#"fn flow(idx: Index<1>, a: ArrayView<i32, 1>, n: i32, out: ArrayViewMut<i32, 1>) {
        let x = a[idx];
        let mut acc = [0i32; 4];
        let y: i32;
        if x > 0 { y = 1; } else { y = -1; }
        for i in 0..4usize { acc[i] = x * i as i32 + y; }
        for i in (1..=9).step_by(3) { acc[3] += i; }
        let mut k = 0;
        while k < 100 { k += 7; if k % 2 == 0 { continue; } if k > n { break; } }
        let mut s = 0;
        loop { s += 1; if s >= 3 { break; } }
        let x = acc[(x as usize) % 8] + acc[1] + k;
        let z = { let t = x * 2; t - 1 };
        out[idx] = if z > 10 { z } else if z < -10 { -z } else { 0 } + s;
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![-3i32, 0, 1, 5, 7, 100];
        let mut out = vec![0i32; 6];
        let (pa, po) = (buf(&mut a, [6]), buf(&mut out, [6]));
        for t in 0..6 { unsafe { flow([t], pa, 40, po, &oob) } }
        println!("{:?}", out);
    "#;
    let reference = |x: i32, n: i32| -> i32 {
        let mut acc = [0i32; 4];
        let y = if x > 0 { 1 } else { -1 };
        for (i, a) in acc.iter_mut().enumerate() {
            *a = x.wrapping_mul(i as i32).wrapping_add(y);
        }
        for i in (1..=9).step_by(3) {
            acc[3] += i;
        }
        let mut k = 0;
        while k < 100 {
            k += 7;
            if k % 2 == 0 {
                continue;
            }
            if k > n {
                break;
            }
        }
        let s = 3;
        // An index past the end reads the last element (the device's clamp).
        let i = ((x as u32 as usize) % 8).min(3);
        let x = acc[i] + acc[1] + k;
        let z = x * 2 - 1;
        (if z > 10 {
            z
        } else if z < -10 {
            -z
        } else {
            0
        }) + s
    };
    let expect: Vec<i32> = [-3, 0, 1, 5, 7, 100]
        .iter()
        .map(|&x| reference(x, 40))
        .collect();
    assert_eq!(run(&[plain(k)], main).trim(), format!("{expect:?}"));
}

#[test]
fn atomics_on_buffer_elements() {
    let k = r#"fn count(idx: Index<1>, a: ArrayView<i32, 1>, c: ArrayViewMut<u32, 1>, s: ArrayViewMut<f32, 1>, m: ArrayViewMut<i32, 1>) {
        atomic_fetch_add(&mut c[0], 1u32);
        atomic_fetch_add(&mut s[0], 0.5f32);
        atomic_fetch_max(&mut m[0], a[idx]);
        atomic_fetch_min(&mut m[1], a[idx]);
        let mut e = 0i32;
        if atomic_compare_exchange(&mut m[2], &mut e, a[idx]) { atomic_fetch_inc(&mut c[1]); }
        atomic_fetch_add(&mut c[5], 1u32);
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![3i32, -8, 12, 5];
        let (mut c, mut s, mut m) = (vec![0u32; 2], vec![1f32], vec![0i32, 0, 0]);
        let (pa, pc, ps, pm) = (buf(&mut a, [4]), buf(&mut c, [2]), buf(&mut s, [1]), buf(&mut m, [3]));
        for t in 0..4 { unsafe { count([t], pa, pc, ps, pm, &oob) } }
        println!("{:?} {:?} {:?}", c, s, m);
        println!("{:?}", oob.read());
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[4, 1] [3.0] [12, -8, 3]");
    assert_eq!(lines[1], "[1, 1, 1, 5, 0, 0, 2, 0, 0]");
}

#[test]
fn device_functions_and_math() {
    let helper = "fn poly(x: f64, n: u32) -> f64 { let mut r = 0.0; for i in 0..n { if i == 3 { return r; } r = r.mul_add(x, 1.5); } r }";
    let k = "fn m(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>) { \
             let x = a[idx]; out[idx] = poly(x, 5) + x.sqrt().floor() + x.powf(0.5) + (x * 3.0) % 2.5; }";
    let options = Options {
        device_fns: vec![amp_spirv::DeviceFnSource::new(
            &[],
            syn::parse_str(helper).unwrap(),
        )],
        ..Options::default()
    };
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![0.0f64, 2.0, -1.0, 1e300, 7.25];
        let mut out = vec![0f64; 5];
        let (pa, po) = (buf(&mut a, [5]), buf(&mut out, [5]));
        for t in 0..5 { unsafe { m([t], pa, po, &oob) } }
        println!("{:?}", out.iter().map(|x| if x.is_nan() { 0 } else { x.to_bits() }).collect::<Vec<_>>());
    "#;
    let reference = |x: f64| {
        let mut r = 0.0f64;
        for _ in 0..3 {
            r = r.mul_add(x, 1.5);
        }
        let v = r + x.sqrt().floor() + x.powf(0.5) + (x * 3.0) % 2.5;
        if v.is_nan() {
            0
        } else {
            v.to_bits()
        }
    };
    let expect: Vec<u64> = [0.0, 2.0, -1.0, 1e300, 7.25].map(reference).to_vec();
    assert_eq!(run(&[(k, options)], main).trim(), format!("{expect:?}"));
}

#[test]
fn tiled_sum_with_barriers_in_loops_breaks_and_returns() {
    // Stride halving in a `while`, in a `for` with a `continue`, and in a `loop` left by a
    // uniform `break` taken inside a work-item loop; tile 2 returns before its barriers.
    let k = r#"fn tsum(t: TiledIndex<64>, data: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 3>) {
        #[tile_static]
        let mut s: [i32; 64];
        let me = t.local[0];
        if t.tile[0] == 2 { return; }
        let x = data[t.global];
        s[me] = x;
        t.barrier.wait();
        let mut stride = 32;
        while stride > 0 {
            if me < stride { s[me] += s[me + stride]; }
            t.barrier.wait();
            stride /= 2;
        }
        if me == 0 { sums[[t.tile[0], 0, 0]] = s[0]; }
        t.barrier.wait();
        s[me] = x * 2;
        t.barrier.wait_with_tile_static_memory_fence();
        for k in 0..7usize {
            if k == 0 { continue; }
            let half = 64 >> k;
            if me < half { s[me] += s[me + half]; }
            t.barrier.wait();
        }
        if me == 0 { sums[[t.tile[0], 0, 1]] = s[0]; }
        t.barrier.wait();
        s[me] = x + 1;
        let mut half = 32;
        loop {
            t.barrier.wait();
            if half == 0 { break; }
            if me < half { s[me] += s[me + half]; }
            half = half / 2;
        }
        if me != 0 { return; }
        sums[[t.tile[0], 0, 2]] = s[0];
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut data: Vec<i32> = (0..256).map(|i| (i * 7 % 23) - 11).collect();
        let mut sums = vec![-1i32; 12];
        let (pd, ps) = (buf(&mut data, [256]), buf(&mut sums, [4, 1, 3]));
        for tile in 0..4 { unsafe { tsum([tile], pd, ps, &oob) } }
        println!("{:?}", sums);
        println!("{:?}", oob.read());
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    let data: Vec<i32> = (0..256).map(|i| (i * 7 % 23) - 11).collect();
    let mut expect = vec![-1i32; 12];
    for tile in [0, 1, 3] {
        let c = &data[tile * 64..tile * 64 + 64];
        let sum: i32 = c.iter().sum();
        expect[tile * 3] = sum;
        expect[tile * 3 + 1] = 2 * sum;
        expect[tile * 3 + 2] = sum + 64;
    }
    assert_eq!(lines[0], format!("{expect:?}"));
    assert_eq!(lines[1], format!("{:?}", [0u32; 9]));
}

#[test]
fn tiled_matmul_with_named_tile_dims_and_transpose() {
    let mm = r#"fn mm(t: TiledIndex<TS, TS>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
        let (row, col) = (t.local[0], t.local[1]);
        #[tile_static]
        let mut la: [[f32; 4]; 4];
        #[tile_static]
        let mut lb: [[f32; 4]; 4];
        let mut sum = 0.0;
        let mut i = 0;
        while i < a.extent()[1] {
            la[row][col] = a[[t.global[0], col + i]];
            lb[row][col] = b[[row + i, t.global[1]]];
            t.barrier.wait();
            for k in 0..TS {
                sum += la[row][k] * lb[k][col];
            }
            t.barrier.wait();
            i += TS;
        }
        c[t.global] = sum;
    }"#;
    let tr = r#"fn tr(t: TiledIndex<4, 4>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 2>) {
        #[tile_static]
        let mut s: [[i32; 4]; 4];
        s[t.local[0]][t.local[1]] = a[t.global];
        t.barrier.wait();
        out[[t.tile_origin[1] + t.local[0], t.tile_origin[0] + t.local[1]]] = s[t.local[1]][t.local[0]];
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let (n, m, p) = (8usize, 12usize, 8usize);
        let mut a: Vec<f32> = (0..n * m).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
        let mut b: Vec<f32> = (0..m * p).map(|i| ((i * 3) % 11) as f32 - 5.0).collect();
        let mut c = vec![0f32; n * p];
        let (pa, pb, pc) = (buf(&mut a, [8, 12]), buf(&mut b, [12, 8]), buf(&mut c, [8, 8]));
        for t0 in 0..2 { for t1 in 0..2 { unsafe { mm([t0, t1], pa, pb, pc, 4, &oob) } } }
        println!("{:?}", c);
        let mut x: Vec<i32> = (0..8 * 12).collect();
        let mut y = vec![0i32; 12 * 8];
        let (px, py) = (buf(&mut x, [8, 12]), buf(&mut y, [12, 8]));
        for t0 in 0..2 { for t1 in 0..3 { unsafe { tr([t0, t1], px, py, &oob) } } }
        println!("{:?}", y);
        println!("{:?}", oob.read());
    "#;
    let out = run(&[plain(mm), plain(tr)], main);
    let lines: Vec<&str> = out.lines().collect();
    let (n, m, p) = (8usize, 12usize, 8usize);
    let a: Vec<f32> = (0..n * m).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..m * p).map(|i| ((i * 3) % 11) as f32 - 5.0).collect();
    let mut c = vec![0f32; n * p];
    for i in 0..n {
        for j in 0..p {
            c[i * p + j] = (0..m).map(|k| a[i * m + k] * b[k * p + j]).sum();
        }
    }
    assert_eq!(lines[0], format!("{c:?}"));
    let mut y = vec![0i32; 12 * 8];
    for i in 0..8 {
        for j in 0..12 {
            y[j * 8 + i] = (i * 12 + j) as i32;
        }
    }
    assert_eq!(lines[1], format!("{y:?}"));
    assert_eq!(lines[2], format!("{:?}", [0u32; 9]));
}

#[test]
fn tiled_kernel_without_barriers_and_its_index_fields() {
    let k = r#"fn nb(t: TiledIndex<3, 2>, out: ArrayViewMut<u32, 2>) {
        if t.local[1] == 1 && t.tile[0] == 1 { return; }
        let mut v = t.tile[0] * 100 + t.tile[1] * 10 + t.local[0];
        v += (t.tile_extent[0] * 10 + t.tile_extent[1]) * 1000 + t.tile_origin[1] * 100000;
        for i in 0..t.local[1] { v += 1000000; }
        out[t.global] = v as u32;
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut out = vec![0u32; 6 * 4];
        let po = buf(&mut out, [6, 4]);
        for t0 in 0..2 { for t1 in 0..2 { unsafe { nb([t0, t1], po, &oob) } } }
        println!("{:?}", out);
    "#;
    let out = run(&[plain(k)], main);
    let mut expect = vec![0u32; 24];
    for g0 in 0..6u32 {
        for g1 in 0..4u32 {
            let (t0, t1, l0, l1) = (g0 / 3, g1 / 2, g0 % 3, g1 % 2);
            if l1 == 1 && t0 == 1 {
                continue;
            }
            expect[(g0 * 4 + g1) as usize] =
                t0 * 100 + t1 * 10 + l0 + 32 * 1000 + t1 * 2 * 100000 + l1 * 1000000;
        }
    }
    assert_eq!(out.trim(), format!("{expect:?}"));
}

#[test]
fn short_vectors_in_buffers_params_and_locals() {
    let k = r#"fn vecs(idx: Index<1>, a: ArrayView<Float3, 1>, b: ArrayViewMut<Float3, 1>, k: Float2,
                      i: ArrayViewMut<Int4, 1>, d: ArrayViewMut<Double2, 1>, u: ArrayViewMut<UInt2, 1>) {
        let v = a[idx];
        let mut w = v * 2.0 + Float3::new(1.0, k.x, k.y);
        w.y += 0.5;
        w -= v.zyx();
        b[idx] = w.normalize() * v.length() + v.cross(w) - Float3::splat(k.dot(k));
        b[idx].x = v.dot(w);
        let mut q = Int4::new(idx[0] as i32, -3, 7, i32::MIN);
        q = q / Int4::new(2, 0, -1, -1) + q % Int4::splat(3);
        i[idx] = -q;
        i[idx] += Int4::new(1, 2, 3, 4);
        let mut e = Double2::new(v.x as f64, 0.25);
        e *= 4.0;
        d[idx] = e.yx() + e;
        let m = UInt2::new(7, 9);
        u[idx] = m.max(UInt2::splat(idx[0] as u32 * 4)) - UInt2::new(1, 1);
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a: Vec<[f32; 3]> = vec![[1.0, 2.0, 3.0], [-0.5, 4.0, 0.25], [0.0, 0.0, 1.0]];
        let mut b = vec![[0f32; 3]; 3];
        let mut i = vec![[0i32; 4]; 3];
        let mut d = vec![[0f64; 2]; 3];
        let mut u = vec![[0u32; 2]; 3];
        let (pa, pb, pi, pd, pu) = (buf(&mut a, [3]), buf(&mut b, [3]), buf(&mut i, [3]), buf(&mut d, [3]), buf(&mut u, [3]));
        for t in 0..3 { unsafe { vecs([t], pa, pb, [0.5, -2.0], pi, pd, pu, &oob) } }
        println!("{:?}", b.iter().map(|v| v.map(f32::to_bits)).collect::<Vec<_>>());
        println!("{:?}", i);
        println!("{:?}", d);
        println!("{:?}", u);
        println!("{:?}", oob.read());
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    let a = [[1.0f32, 2.0, 3.0], [-0.5, 4.0, 0.25], [0.0, 0.0, 1.0]];
    let k = [0.5f32, -2.0];
    let mut b = Vec::new();
    let mut iv = Vec::new();
    let mut dv = Vec::new();
    let mut uv = Vec::new();
    for (t, v) in a.iter().enumerate() {
        let mut w = [v[0] * 2.0 + 1.0, v[1] * 2.0 + k[0], v[2] * 2.0 + k[1]];
        w[1] += 0.5;
        w = [w[0] - v[2], w[1] - v[1], w[2] - v[0]];
        let dot = |x: [f32; 3], y: [f32; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        let len_w = dot(w, w).sqrt();
        let len_v = dot(*v, *v).sqrt();
        let cross = [
            v[1] * w[2] - v[2] * w[1],
            v[2] * w[0] - v[0] * w[2],
            v[0] * w[1] - v[1] * w[0],
        ];
        let kk = k[0] * k[0] + k[1] * k[1];
        let mut r = [0f32; 3];
        for c in 0..3 {
            r[c] = (w[c] / len_w) * len_v + cross[c] - kk;
        }
        r[0] = dot(*v, w);
        b.push(r.map(f32::to_bits));
        let q = [t as i32, -3, 7, i32::MIN];
        let dvs = [2, 0, -1, -1];
        let mut q2 = [0i32; 4];
        for c in 0..4 {
            let div = if dvs[c] == 0 {
                -1
            } else {
                q[c].wrapping_div(dvs[c])
            };
            q2[c] = div.wrapping_add(q[c] % 3);
        }
        iv.push([
            q2[0].wrapping_neg() + 1,
            q2[1].wrapping_neg() + 2,
            q2[2].wrapping_neg() + 3,
            q2[3].wrapping_neg().wrapping_add(4),
        ]);
        let e = [v[0] as f64 * 4.0, 0.25 * 4.0];
        dv.push([e[1] + e[0], e[0] + e[1]]);
        uv.push([7u32.max(t as u32 * 4) - 1, 9u32.max(t as u32 * 4) - 1]);
    }
    assert_eq!(lines[0], format!("{b:?}"));
    assert_eq!(lines[1], format!("{iv:?}"));
    assert_eq!(lines[2], format!("{dv:?}"));
    assert_eq!(lines[3], format!("{uv:?}"));
    assert_eq!(lines[4], format!("{:?}", [0u32; 9]));
}

#[test]
fn normalized_scalars_and_vectors_clamp_like_the_host() {
    let k = r#"fn fade(idx: Index<1>, img: ArrayView<Unorm4, 1>, out: ArrayViewMut<Unorm4, 1>, k: Unorm,
                      n: ArrayView<Norm, 1>, no: ArrayViewMut<Norm, 1>, x: ArrayView<f32, 1>) {
        let c = img[idx];
        let mut d = c * Unorm4::splat(k) + Unorm4::from_f32_array([0.1, 0.1, 0.1, 0.0]);
        d.w = c.w;
        out[idx] = d;
        let grey = c.to_f32_array();
        out[idx].x = Unorm::new(0.3 * grey[0] + 0.59 * grey[1] + 0.11 * grey[2]);
        let a = n[idx];
        let b = Norm::new(x[idx]);
        let mut r = a / b;
        r -= Norm::from(Unorm::new(x[idx]));
        no[idx] = -(r * a) + Norm::new(f32::from(a) * 3.0);
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut img: Vec<[f32; 4]> = vec![[0.5, 1.0, 0.0, 0.25], [1.0, 1.0, 1.0, 1.0], [0.0, 0.2, 0.9, 0.5], [0.3, 0.6, 0.1, 0.0]];
        let mut out = vec![[0f32; 4]; 4];
        let mut n = vec![-0.5f32, 0.0, 1.0, -0.0];
        let mut no = vec![0f32; 4];
        let mut x = vec![0.0f32, f32::NAN, -3.0, 0.75];
        let (pi, po, pn, pno, px) = (buf(&mut img, [4]), buf(&mut out, [4]), buf(&mut n, [4]), buf(&mut no, [4]), buf(&mut x, [4]));
        for t in 0..4 { unsafe { fade([t], pi, po, 0.75, pn, pno, px, &oob) } }
        println!("{:?}", out.iter().map(|v| v.map(f32::to_bits)).collect::<Vec<_>>());
        println!("{:?}", no.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    let unorm = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let norm = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(-1.0, 1.0) };
    let img = [
        [0.5f32, 1.0, 0.0, 0.25],
        [1.0, 1.0, 1.0, 1.0],
        [0.0, 0.2, 0.9, 0.5],
        [0.3, 0.6, 0.1, 0.0],
    ];
    let n = [-0.5f32, 0.0, 1.0, -0.0];
    let x = [0.0f32, f32::NAN, -3.0, 0.75];
    let mut o = Vec::new();
    let mut no = Vec::new();
    for t in 0..4 {
        let c = img[t];
        let add = [0.1f32, 0.1, 0.1, 0.0];
        let mut d = [0f32; 4];
        for j in 0..4 {
            d[j] = unorm(unorm(c[j] * 0.75) + unorm(add[j]));
        }
        d[3] = c[3];
        d[0] = unorm(0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2]);
        o.push(d.map(f32::to_bits));
        let a = n[t];
        let b = norm(x[t]);
        let mut r = norm(a / b);
        r = norm(r - unorm(x[t]));
        no.push(norm(-norm(r * a) + norm(a * 3.0)).to_bits());
    }
    assert_eq!(lines[0], format!("{o:?}"));
    assert_eq!(lines[1], format!("{no:?}"));
}

#[test]
fn device_structs_in_buffers_params_and_locals() {
    let file = r#"
        #[repr(C)]
        #[derive(Clone, Copy, DeviceStruct)]
        struct Particle { pos: Float3, mass: f64, id: u32, tint: Unorm2 }
        #[repr(C)]
        #[derive(Clone, Copy, DeviceStruct)]
        struct Pair { a: Particle, k: i32 }

        #[kernel(amp)]
        fn step(idx: Index<1>, ps: ArrayViewMut<Particle, 1>, pairs: ArrayView<Pair, 1>, g: Particle, out: ArrayViewMut<f64, 1>) {
            let mut p = ps[idx];
            p.pos += g.pos * 2.0;
            p.mass = p.mass * g.mass;
            p.tint.x = p.tint.x + Unorm::new(0.75);
            let q = pairs[idx];
            ps[idx] = p;
            ps[idx].id = q.a.id + q.k as u32;
            let mut arr = [q; 2];
            arr[1].a.pos.y = 9.0;
            let made = Pair { a: Particle { pos: Float3::splat(1.0), mass: 0.5, id: 3, tint: Unorm2::splat(Unorm::ONE) }, k: -1 };
            out[idx] = arr[1].a.pos.y as f64 + arr[0].a.mass + made.a.mass * made.k as f64;
        }"#;
    let parsed = syn::parse_file(file).expect("a Rust file");
    let options = Options::from_file(&parsed);
    let kernel = amp_spirv::kernels_in_file(&parsed).remove(0);
    let native =
        compile_native(&kernel, &options, "crate::rt", "step").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        native.structs,
        vec![
            ("Particle".to_string(), "step_Particle".to_string()),
            ("Pair".to_string(), "step_Pair".to_string())
        ]
    );
    let k = native.code.to_string();
    let main = r#"
        // The host's layout: the generated twins checked their sizes and offsets when compiled.
        assert_eq!(std::mem::size_of::<step_Particle>(), 40);
        assert_eq!(std::mem::size_of::<step_Pair>(), 48);
        let oob = rt::OobReport::new();
        let mk = |i: u32| step_Particle { f0: [i as f32, 1.0, 2.0], f1: 1.5 * i as f64, f2: 10 * i, f3: [0.5, 0.1] };
        let mut ps: Vec<step_Particle> = (0..3).map(mk).collect();
        let mut pairs: Vec<step_Pair> = (0..3).map(|i| step_Pair { f0: mk(i + 5), f1: i as i32 * 2 }).collect();
        let mut out = vec![0f64; 3];
        let g = step_Particle { f0: [0.25, -1.0, 0.0], f1: 2.0, f2: 0, f3: [0.0, 0.0] };
        let (pp, pq, po) = (buf(&mut ps, [3]), buf(&mut pairs, [3]), buf(&mut out, [3]));
        for t in 0..3 { unsafe { step([t], pp, pq, g, po, &oob) } }
        for p in &ps { println!("{:?} {} {} {:?}", p.f0, p.f1, p.f2, p.f3); }
        println!("{:?}", out);
    "#;
    let out = run_source(&k, main);
    let lines: Vec<&str> = out.lines().collect();
    for i in 0..3u32 {
        let pos = [i as f32 + 0.5, 1.0 - 2.0, 2.0];
        let id = 10 * (i + 5) + 2 * i;
        assert_eq!(
            lines[i as usize],
            format!(
                "{:?} {} {} {:?}",
                pos,
                1.5 * i as f64 * 2.0,
                id,
                [1.0f32, 0.1]
            )
        );
    }
    let expect: Vec<f64> = (0..3).map(|i| 9.0 + 1.5 * (i + 5) as f64 - 0.5).collect();
    assert_eq!(lines[3], format!("{expect:?}"));
}

#[test]
fn tile_static_arrays_of_named_length_and_tile_static_atomics() {
    // The shared matmul fixture: tile_static arrays `[[f32; TS]; TS]` with TS a runtime constant.
    let mm = amp_test_support::MATMUL_TILED;
    // The examples' histogram, with the bin count a constant and atomics on tile_static memory.
    let hist = r#"fn count(t: TiledIndex<NB>, data: ArrayView<u32, 1>, bins: ArrayViewMut<u32, 1>, stride: u32) {
        #[tile_static]
        let mut local: [u32; NB];
        local[t.local[0]] = 0;
        t.barrier.wait();
        let len = data.extent()[0];
        let mut i = t.global[0];
        while i < len {
            atomic_fetch_add(&mut local[(data[[i]] % NB as u32) as usize], 1);
            i += stride as usize;
        }
        t.barrier.wait();
        let n = local[t.local[0]];
        if n > 0 {
            atomic_fetch_add(&mut bins[t.local[0]], n);
        }
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let (n, m, p) = (6usize, 9usize, 6usize);
        let mut a: Vec<f32> = (0..n * m).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
        let mut b: Vec<f32> = (0..m * p).map(|i| ((i * 3) % 11) as f32 - 5.0).collect();
        let mut c = vec![0f32; n * p];
        let (pa, pb, pc) = (buf(&mut a, [6, 9]), buf(&mut b, [9, 6]), buf(&mut c, [6, 6]));
        for t0 in 0..2 { for t1 in 0..2 { unsafe { matmul_tiled([t0, t1], pa, pb, pc, 3, &oob) } } }
        println!("{:?}", c);
        let mut data: Vec<u32> = (0..100u32).map(|i| i * i + 3).collect();
        let mut bins = vec![0u32; 5];
        let (pd, pbins) = (buf(&mut data, [100]), buf(&mut bins, [5]));
        // 2 tiles of 5 threads, each thread counting every 10th value.
        for t in 0..2 { unsafe { count([t], pd, pbins, 10, 5, &oob) } }
        println!("{:?}", bins);
        println!("{:?}", oob.read());
    "#;
    let out = run(&[plain(mm), plain(hist)], main);
    let lines: Vec<&str> = out.lines().collect();
    let (n, m, p) = (6usize, 9usize, 6usize);
    let a: Vec<f32> = (0..n * m).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..m * p).map(|i| ((i * 3) % 11) as f32 - 5.0).collect();
    let mut c = vec![0f32; n * p];
    for i in 0..n {
        for j in 0..p {
            c[i * p + j] = (0..m).map(|k| a[i * m + k] * b[k * p + j]).sum();
        }
    }
    assert_eq!(lines[0], format!("{c:?}"));
    let mut bins = vec![0u32; 5];
    for i in 0..100u32 {
        bins[((i * i + 3) % 5) as usize] += 1;
    }
    assert_eq!(lines[1], format!("{bins:?}"));
    assert_eq!(lines[2], format!("{:?}", [0u32; 9]));
}

#[test]
fn tile_level_if_chains_step_by_and_nested_loops() {
    let k = r#"fn flow(t: TiledIndex<4, 2>, out: ArrayViewMut<i32, 2>, n: i32) {
        #[tile_static]
        let mut s: [[i32; 2]; 4];
        let (r, c) = (t.local[0], t.local[1]);
        let mut acc = 0i32;
        s[r][c] = (r * 2 + c) as i32;
        t.barrier.wait();
        if n > 10 {
            acc += 1000;
            t.barrier.wait();
        } else if n > 5 {
            acc += s[3 - r][1 - c] * 100;
            t.barrier.wait_with_global_memory_fence();
        } else {
            t.barrier.wait();
            acc -= 1;
        }
        for k in (0..=6).step_by(3) {
            let mut j = 0;
            while j < 10 {
                j += 1;
                if j % 2 == 0 { continue; }
                if j > 5 { break; }
                s[r][c] += k as i32 + j;
                t.barrier.wait();
            }
            t.barrier.wait();
            acc += s[(r + 1) % 4][c];
            t.barrier.wait();
        }
        out[t.global] = acc;
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        for n in [7, 20, 0] {
            let mut out = vec![0i32; 8 * 6];
            let po = buf(&mut out, [8, 6]);
            for t0 in 0..2 { for t1 in 0..3 { unsafe { flow([t0, t1], po, n, &oob) } } }
            println!("{:?}", out);
        }
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    for (line, n) in lines.iter().zip([7, 20, 0]) {
        let mut expect = vec![0i32; 48];
        for g0 in 0..8usize {
            for g1 in 0..6usize {
                let (r, c) = (g0 % 4, g1 % 2);
                let mut s = [[0i32; 2]; 4];
                for (rr, row) in s.iter_mut().enumerate() {
                    for (cc, x) in row.iter_mut().enumerate() {
                        *x = (rr * 2 + cc) as i32;
                    }
                }
                let mut acc = if n > 10 {
                    1000
                } else if n > 5 {
                    s[3 - r][1 - c] * 100
                } else {
                    -1
                };
                for k in [0, 3, 6] {
                    for row in s.iter_mut() {
                        for x in row.iter_mut() {
                            *x += 3 * k + 9;
                        }
                    }
                    acc += s[(r + 1) % 4][c];
                }
                expect[g0 * 6 + g1] = acc;
            }
        }
        assert_eq!(*line, format!("{expect:?}"), "n = {n}");
    }
}

#[test]
fn barriers_outside_statements_are_unsupported_not_a_panic() {
    let k: syn::ItemFn = syn::parse_str(
        "fn t(t: TiledIndex<4>, a: ArrayViewMut<i32, 1>) { let x = { t.barrier.wait(); 1 }; a[t.global] = x; }",
    )
    .unwrap();
    match compile_native(&k, &Options::default(), "rt", "t") {
        Err(NativeError::Unsupported(u)) => assert!(u.to_string().contains("barrier"), "{u}"),
        Err(NativeError::Invalid(_)) => {}
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn precise_math_helpers_frexp_ldexp_nextafter() {
    let k = "fn pm(idx: Index<1>, a: ArrayView<f32, 1>, m: ArrayViewMut<f32, 1>, e: ArrayViewMut<i32, 1>, \
             l: ArrayViewMut<f32, 1>, n: ArrayViewMut<f32, 1>) { \
             let x = a[idx]; let (mm, ee) = precise_math::frexp(x); m[idx] = mm; e[idx] = ee; \
             l[idx] = precise_math::ldexp(x, -130); n[idx] = precise_math::nextafter(x, 2.0); }";
    let main = r#"
        let oob = rt::OobReport::new();
        let mut a = vec![8.0f32, 1e-40, -0.0, 1.5, f32::INFINITY];
        let (mut m, mut e, mut l, mut n) = (vec![0f32; 5], vec![0i32; 5], vec![0f32; 5], vec![0f32; 5]);
        let (pa, pm_, pe, pl, pn) = (buf(&mut a, [5]), buf(&mut m, [5]), buf(&mut e, [5]), buf(&mut l, [5]), buf(&mut n, [5]));
        for t in 0..5 { unsafe { pm([t], pa, pm_, pe, pl, pn, &oob) } }
        for v in [&m, &l, &n] { println!("{:?}", v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()); }
        println!("{:?}", e);
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    let bits = |v: [f32; 5]| format!("{:?}", v.map(f32::to_bits));
    let tiny_m = (1e-40f32 as f64 * 2f64.powi(132)) as f32; // 1e-40 = m * 2^-132, m in [0.5, 1)
    assert_eq!(lines[0], bits([0.5, tiny_m, -0.0, 0.75, f32::INFINITY]));
    let ldexp = |x: f32| (x as f64 * 2f64.powi(-130)) as f32;
    assert_eq!(
        lines[1],
        bits([8.0, 1e-40, -0.0, 1.5, f32::INFINITY].map(ldexp))
    );
    assert_eq!(
        lines[2],
        bits([
            f32::from_bits(8.0f32.to_bits() - 1),
            f32::from_bits(1e-40f32.to_bits() + 1),
            f32::from_bits(1),
            f32::from_bits(1.5f32.to_bits() + 1),
            f32::MAX
        ])
    );
    assert_eq!(lines[3], "[4, -132, 0, 1, 0]");
}

/// Runs `kernel` (a simple kernel with a 2-D domain `m x n`, parameters given by `args`)
/// thread by thread and batch by batch (its batched function for each row's full batches and
/// for the shorter last one), printing the `out` buffer of each run on its own line.
fn thread_and_batched(kernel: &str, setup: &str, args: &str) -> (String, String) {
    let func: syn::ItemFn = syn::parse_str(kernel).expect("a function");
    let name = func.sig.ident.to_string();
    let native = compile_native(&func, &Options::default(), "crate::rt", &name)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let batched = native.batched.as_ref().expect("the kernel is batched");
    let items = format!("{}{}", native.code, batched.plain.code);
    let (lanes, batch) = (batched.lanes, &batched.plain.fn_name);
    let main = format!(
        r#"
        let oob = rt::OobReport::new();
        for by_batch in [false, true] {{
            {setup}
            let lanes = {lanes}u32;
            for i in 0..m {{
                if by_batch {{
                    for b in 0..n.div_ceil(lanes) {{
                        let count = lanes.min(n - b * lanes);
                        unsafe {{ {batch}([i, b], count, 1, {args}, &oob) }}
                    }}
                }} else {{
                    for j in 0..n {{ unsafe {{ {name}([i, j], {args}, &oob) }} }}
                }}
            }}
            println!("{{:?}}", out);
        }}
        "#
    );
    let out = run_source(&items, &main);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    (lines[0].to_string(), lines[1].to_string())
}

#[test]
fn batched_matmul_matches_thread_by_thread() {
    let k = r#"fn mm(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
        let row = idx[0];
        let col = idx[1];
        let mut sum = 0.0;
        for k in 0..a.extent()[1] {
            sum += a[[row, k]] * b[[k, col]];
        }
        c[idx] = sum;
    }"#;
    // 5 x 37: a full batch and a shorter one of 5 per row.
    let setup = r#"
        let (m, n, w) = (5u32, 37u32, 7u32);
        let mut a: Vec<f32> = (0..m * w).map(|x| (x % 11) as f32 - 3.5).collect();
        let mut b: Vec<f32> = (0..w * n).map(|x| (x % 7) as f32 * 0.25).collect();
        let mut out = vec![f32::NAN; (m * n) as usize];
        let (pa, pb, po) = (buf(&mut a, [m, w]), buf(&mut b, [w, n]), buf(&mut out, [m, n]));
    "#;
    let (thread, batched) = thread_and_batched(k, setup, "pa, pb, po");
    assert_eq!(thread, batched);
    let mut expect = vec![0f32; 5 * 37];
    for i in 0..5 {
        for j in 0..37 {
            let mut s = 0f32;
            for k in 0..7 {
                let a = ((i * 7 + k) % 11) as f32 - 3.5;
                let b = ((k * 37 + j) % 7) as f32 * 0.25;
                s += a * b;
            }
            expect[i * 37 + j] = s;
        }
    }
    // The same products summed in the same order as one thread: equal bit for bit.
    assert_eq!(thread, format!("{expect:?}"));
}

#[test]
fn batched_loops_with_returns_nested_ranges_and_uniform_locals() {
    // A thread that returns early (inside and before the hoisted loops), a triangular inner
    // loop over the outer loop's variable, a uniform `let`, a `break` in a nested `while`
    // (which stays inside its work-item loop), and a loop with a `continue` (not hoisted).
    let k = r#"fn flow(idx: Index<2>, out: ArrayViewMut<i32, 2>, n: i32) {
        let i = idx[0] as i32;
        let j = idx[1] as i32;
        if j == 3 { return; }
        let mut acc = i * 1000;
        let top = n + 2;
        for k in 0..top {
            if j == 5 && k == 2 { out[idx] = -7; return; }
            for q in 0..k {
                acc += q * j;
            }
            let mut w = 0;
            while w < 100 {
                w += 1;
                if w > j { break; }
                acc += 1;
            }
        }
        for k in 0..4 {
            if k == 1 { continue; }
            acc -= k;
        }
        out[idx] = acc;
    }"#;
    let setup = r#"
        let (m, n) = (3u32, 35u32);
        let mut out = vec![123456i32; (m * n) as usize];
        let po = buf(&mut out, [m, n]);
    "#;
    let (thread, batched) = thread_and_batched(k, setup, "po, 4");
    assert_eq!(thread, batched);
    let mut expect = vec![123456i32; 3 * 35];
    for i in 0..3i32 {
        for j in 0..35i32 {
            let at = (i * 35 + j) as usize;
            if j == 3 {
                continue;
            }
            if j == 5 {
                expect[at] = -7;
                continue;
            }
            let mut acc = i * 1000;
            for k in 0..6 {
                for q in 0..k {
                    acc += q * j;
                }
                acc += j.min(100);
            }
            acc -= 5;
            expect[at] = acc;
        }
    }
    assert_eq!(thread, format!("{expect:?}"));
}

#[test]
fn kernels_without_uniform_loops_are_not_batched() {
    for k in [
        // No loop.
        r#"fn add(idx: Index<1>, a: ArrayView<f32, 1>, c: ArrayViewMut<f32, 1>) { c[idx] = a[idx] + 1.0; }"#,
        // The range depends on the thread.
        r#"fn tri(idx: Index<1>, c: ArrayViewMut<u32, 1>) { let mut s = 0; for k in 0..idx[0] { s += k; } c[idx] = s as u32; }"#,
        // A `break` leaves the loop in some threads only.
        r#"fn brk(idx: Index<1>, c: ArrayViewMut<u32, 1>) { let mut s = 0; for k in 0..10 { if k == idx[0] { break; } s += k; } c[idx] = s as u32; }"#,
    ] {
        let func: syn::ItemFn = syn::parse_str(k).expect("a function");
        let native = compile_native(&func, &Options::default(), "crate::rt", "f").unwrap();
        assert!(native.batched.is_none(), "{k}");
    }
}

#[test]
fn tiled_kernels_run_uniform_loops_at_tile_level() {
    // A tiled kernel's loop with a tile-uniform range and no barrier runs once per tile with a
    // work-item loop inside (`batch::hoisted_tiled`): a thread that returns inside it stops,
    // the others go on; a loop inside a barrier loop is hoisted too.
    let returns = r#"fn tl(t: TiledIndex<2, 8>, out: ArrayViewMut<i32, 2>, n: i32) {
        let c = t.local[1];
        let mut acc = (t.global[0] * 100) as i32;
        for k in 0..n {
            if t.local[0] == 1 && c == 7 && k == 2 { out[t.global] = -1; return; }
            acc += k * c as i32;
        }
        out[t.global] = acc;
    }"#;
    let barriers = r#"fn tb(t: TiledIndex<2, 8>, out: ArrayViewMut<i32, 2>) {
        #[tile_static]
        let mut s: [i32; 8];
        let (r, c) = (t.local[0], t.local[1]);
        let mut acc = 0;
        for round in 0..2 {
            if r == 0 { s[c] = round + c as i32; }
            t.barrier.wait();
            for q in 0..8 {
                acc += s[q] * (r as i32 + 1);
            }
            t.barrier.wait();
        }
        out[t.global] = acc;
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut out = vec![0i32; 4 * 16];
        let po = buf(&mut out, [4, 16]);
        for t0 in 0..2 { for t1 in 0..2 { unsafe { tl([t0, t1], po, 5, &oob) } } }
        println!("{:?}", out);
        for t0 in 0..2 { for t1 in 0..2 { unsafe { tb([t0, t1], po, &oob) } } }
        println!("{:?}", out);
    "#;
    let out = run(&[plain(returns), plain(barriers)], main);
    let lines: Vec<&str> = out.lines().collect();
    let (mut first, mut second) = (vec![0i32; 64], vec![0i32; 64]);
    for g0 in 0..4i32 {
        for g1 in 0..16i32 {
            let (r, c) = (g0 % 2, g1 % 8);
            let at = (g0 * 16 + g1) as usize;
            first[at] = match r == 1 && c == 7 {
                true => -1,
                false => g0 * 100 + (0..5).map(|k| k * c).sum::<i32>(),
            };
            second[at] = (0..2)
                .map(|round| (0..8).map(|q| (round + q) * (r + 1)).sum::<i32>())
                .sum();
        }
    }
    assert_eq!(lines, [format!("{first:?}"), format!("{second:?}")]);
}

/// The native code of `k` as text.
fn native_text(k: &str) -> String {
    let func: syn::ItemFn = syn::parse_str(k).expect("a function");
    let name = func.sig.ident.to_string();
    compile_native(&func, &Options::default(), "crate::rt", &name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .code
        .to_string()
}

/// A loop every thread of a tile runs the same way runs at tile level around a work-item loop
/// (`batch::hoisted_tiled`) also where it ends the kernel's body without a `;`: the code is the
/// code of the same kernel with the `;`.
#[test]
fn a_loop_ending_a_tiled_kernel_is_hoisted_like_a_statement() {
    let body = |end: &str| {
        format!(
            "fn k(t: TiledIndex<16>, a: ArrayView<i32, 2>, out: ArrayViewMut<i32, 2>) {{
                #[tile_static] let mut s: [[i32; 16]; 16];
                let x = t.local[0];
                for y in 0..16 {{ s[y][x] = a[[t.tile[0] + y, x]]; }}
                t.barrier.wait();
                for y in 0..16 {{ out[[t.tile[0] + y, x]] = s[x][y]; }}{end}
            }}"
        )
    };
    let (tail, statement) = (native_text(&body("")), native_text(&body(";")));
    assert_eq!(tail, statement);
    // Two loops at tile level: the work-item loops (`'w`) are inside them.
    assert!(tail.matches("'w").count() >= 2, "{tail}");
}

/// Buffers whose elements threads may share with a writer are accessed with relaxed atomics
/// natively (a race there has a device's results, not undefined behaviour); buffers each thread
/// only touches at its own element, and buffers nobody writes, keep plain accesses.
#[test]
fn buffers_threads_may_share_with_a_writer_use_relaxed_atomics() {
    let private = [
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) { out[idx] = a[idx] + a[idx[0] + 1]; }",
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = out[idx] * 2.0; out[idx] += 1.0; }",
        "fn k(idx: Index<2>, out: ArrayViewMut<u32, 2>, s: u32) { out[[idx[1], idx[0] + s as usize]] = 1; }",
    ];
    for k in private {
        let code = native_text(k);
        assert!(
            !code.contains("relaxed"),
            "plain accesses expected: {k}\n{code}"
        );
    }
    let shared = [
        // Every thread writes element 0.
        "#[kernel(amp, allow(write_conflict))] fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { out[0] = idx[0] as u32; }",
        // A neighbour's element read while every thread writes its own.
        "#[kernel(amp, allow(flow_dependence))] fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { let n = out.extent()[0]; if idx[0] + 1 < n { out[idx] = out[idx[0] + 1]; } }",
        // A shift by a loop's variable is not one element per thread: thread 0 writes
        // element 1 at `j == 1`, thread 1 at `j == 0`.
        "#[kernel(amp, allow(write_conflict))] fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { for j in 0..2 { out[idx[0] + j] += 1; } }",
        // Two writes per thread at permuted indices: threads (a, b) and (b, a) share both.
        "#[kernel(amp, allow(write_conflict))] fn k(idx: Index<2>, out: ArrayViewMut<u32, 2>) { out[[idx[0], idx[1]]] = 1; out[[idx[1], idx[0]]] = 2; }",
        // A neighbour's element read after a barrier: ordered within a tile, but the neighbour
        // may be another tile's thread.
        "fn k(t: TiledIndex<4>, out: ArrayViewMut<u32, 1>) { out[t.global] = 1; t.barrier.wait_with_global_memory_fence(); let n = out.extent()[0]; if t.global[0] + 1 < n { let x = out[t.global[0] + 1]; out[t.global] = x; } }",
        // Plain and atomic accesses of one buffer.
        "#[kernel(amp, allow(write_conflict))] fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { out[idx] = 1; atomic_fetch_add(&mut out[0], 1u32); }",
        // A run per thread: no conflict to warn of, but `idx[0] * K` may wrap its 32 bits onto
        // another thread's run, so no proof for plain accesses.
        "fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { let base = idx[0] * K; for k in 0..K { out[base + k] = 1; } }",
        "fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { out[idx[0] * 2] = 1; out[idx[0] * 2 + 1] = 2; }",
    ];
    for k in shared {
        let code = native_text(k);
        assert!(
            code.contains("write_relaxed"),
            "relaxed stores expected: {k}\n{code}"
        );
    }
}

/// A kernel whose threads all write one element, and read-modify-write a neighbour's, runs
/// natively with relaxed atomics: the element holds one thread's value.
#[test]
fn racing_writes_keep_one_threads_value() {
    let k = r#"#[kernel(amp, allow(write_conflict, flow_dependence))]
    fn race(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
        out[0] = idx[0] as u32 + 100;
        let n = out.extent()[0];
        if idx[0] + 1 < n { out[idx[0] + 1] += 1; }
    }"#;
    let main = r#"
        let oob = rt::OobReport::new();
        let mut out = vec![0u32; 8];
        let p = buf(&mut out, [8]);
        let oob = &oob;
        std::thread::scope(|s| {
            for t in 0..8u32 { s.spawn(move || unsafe { race([t], p, oob) }); }
        });
        println!("{}", (100..108).contains(&out[0]));
        println!("{:?}", &out[1..]);
    "#;
    let out = run(&[plain(k)], main);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, ["true", "[1, 1, 1, 1, 1, 1, 1]"]);
}
