//! The compiler against `spirv-val`: every construct of the kernel language, compiled from
//! source with `amp_spirv::compile_str`, must give a module that the Khronos validator accepts
//! for Vulkan 1.1. Also: the diagnostics of invalid kernels (how many, which rules), and that no
//! input, however odd, makes the compiler panic.
//!
//! `spirv-val` is required: run `scripts/setup.sh` to install it. These tests fail, never skip,
//! when it is missing.

mod common;
use common::spirv_val_words;

/// Compiles a valid kernel and validates its module.
fn validate(src: &str) -> amp_spirv::CompiledKernel {
    let kernel = match amp_spirv::compile_str(src) {
        Ok(k) => k,
        Err(d) => panic!("this kernel should compile:\n{src}\nbut:\n{d}"),
    };
    assert_eq!(kernel.spirv[0], 0x0723_0203, "SPIR-V magic number");
    if let Err(msg) = spirv_val_words(&kernel.spirv) {
        panic!("spirv-val rejected the module of:\n{src}\n{msg}");
    }
    kernel
}

/// One `#[test]` per valid kernel.
macro_rules! valid {
    ($($name:ident: $src:expr;)*) => {
        $(
            #[test]
            fn $name() {
                validate($src);
            }
        )*
    };
}

// ----- types -----

valid! {
    rounded_f32_division_and_square_root: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<Float4, 1>, out: ArrayViewMut<f32, 1>, d: f32) {
            let i = idx[0];
            let v = b[idx] / Float4::new(a[idx], 2.0, d, 0.5);
            let z = (i - i) as f32;
            out[idx] = a[idx] / d + a[idx].sqrt() + d.recip() + v.x + v.w + a[idx] / z + 1.0 / a[idx];
        }"#;
    empty_body: "fn k(idx: Index<1>) {}";
    float_atomics_on_views_arrays_and_tile_static: r#"
        fn k(t: TiledIndex<64>, v: ArrayViewMut<f32, 1>, a: &mut Array<f32, 1>) {
            #[tile_static]
            let mut bins: [f32; 4];
            let x = t.global[0] as f32;
            let old = atomic_fetch_add(&mut v[t.global[0] % 4], x);
            atomic_exchange(&mut a[t.global], old);
            atomic_fetch_add(&mut bins[t.local[0] % 4], 0.25);
            let prev = atomic_exchange(&mut bins[0], x);
            v[t.global] = prev;
        }"#;
    scalar_params_of_every_type: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, a: i32, b: u32, c: f32, d: f64, e: bool) {
            let mut v = a as f32 + b as f32 + c + d as f32;
            if e { v = -v; }
            out[idx] = v;
        }"#;
    views_of_every_element_type: r#"
        fn k(idx: Index<1>, a: ArrayView<i32, 1>, b: ArrayView<u32, 1>, c: ArrayView<f32, 1>, d: ArrayView<f64, 1>,
             oa: ArrayViewMut<i32, 1>, ob: ArrayViewMut<u32, 1>, oc: ArrayViewMut<f32, 1>, od: ArrayViewMut<f64, 1>) {
            oa[idx] = a[idx] * 2;
            ob[idx] = b[idx] + 1;
            oc[idx] = c[idx] / 2.0;
            od[idx] = d[idx] - 0.5;
        }"#;
    array_params: r#"
        fn k(idx: Index<1>, a: &Array<f32, 1>, b: &mut Array<f32, 1>, c: &Array<i32, 2>) {
            let n = a.extent()[0] + c.extent()[1];
            b[idx] = a[idx] + n as f32 + c[[0, idx[0] % 2]] as f32;
            b[idx] *= 2.0;
        }"#;
    locals_of_every_type: r#"
        fn k(idx: Index<2>, v: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
            let a: i32 = -1;
            let b: u32 = 2;
            let c: f32 = 3.5;
            let d: f64 = 4.25;
            let e: bool = true;
            let f: usize = 6;
            let g: [f32; 3] = [1.0, 2.0, 3.0];
            let h: [[i32; 2]; 2] = [[1, 2], [3, 4]];
            let i: Index<2> = idx;
            let j: Extent<2> = v.extent();
            let k: [bool; 2] = [e, !e];
            let l: [f64; 2] = [d; 2];
            let mut s = a as f32 + b as f32 + c + d as f32 + f as f32 + g[2] + h[1][0] as f32 + l[1] as f32;
            if k[1] { s = 0.0; }
            out[i] = s + (j[0] * j[1]) as f32;
        }"#;
    rank_1: "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) { out[idx] = a[idx]; }";
    rank_2: r#"
        fn k(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
            let (i, j) = (idx[0], idx[1]);
            out[idx] = a[[j % a.extent()[0], i % a.extent()[1]]];
        }"#;
    rank_3: r#"
        fn k(idx: Index<3>, a: ArrayView<u32, 3>, out: ArrayViewMut<u32, 3>, flat: ArrayViewMut<u32, 1>) {
            let e = out.extent();
            out[idx] = a[idx] + (idx[0] * e[1] * e[2] + idx[1] * e[2] + idx[2]) as u32;
            flat[[idx[0] * e[1] * e[2] + idx[1] * e[2] + idx[2]]] = a[[idx[0], idx[1], idx[2]]];
        }"#;
    index_in_a_variable: r#"
        fn k(idx: Index<2>, out: ArrayViewMut<i32, 2>) {
            let copy = idx;
            let mut moved = idx;
            moved[1] = 0;
            out[copy] = 1;
            out[moved] += 2;
            out[[copy[0], copy[1]]] -= 1;
        }"#;
    view_extent_dynamic_index: r#"
        fn k(idx: Index<3>, a: ArrayView<f32, 3>, out: ArrayViewMut<f32, 1>) {
            let mut total = 0usize;
            for d in 0..3 {
                total += a.extent()[d] * idx[d];
            }
            out[[total % out.extent()[0]]] = total as f32;
        }"#;
    f64_everywhere: r#"
        fn k(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>, s: f64) {
            let mut acc = [0.0f64; 4];
            for i in 0..4 {
                acc[i] = a[idx] * s + i as f64;
            }
            let m = acc[0].max(acc[1]).min(f64::MAX) + (-acc[2]).abs();
            out[idx] = if m > 1e10 { f64::INFINITY } else { m / 3.0 % 2.0 };
        }"#;
}

// ----- operators -----

valid! {
    i32_operators: r#"
        fn k(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>, s: i32) {
            let x = a[idx];
            let mut r = x + s - x * s / (s | 1) % 7;
            r = r & 0xff | (r ^ 0x55) & !r;
            r = r << 3 >> 1;
            r = -r;
            let c = (x == s) as i32 + (x != s) as i32 + (x < s) as i32 + (x <= s) as i32 + (x > s) as i32 + (x >= s) as i32;
            r += c; r -= 1; r *= 3; r /= 2; r %= 1000;
            r &= 0xfff; r |= 1; r ^= 2; r <<= 1; r >>= 1;
            out[idx] = r;
        }"#;
    u32_operators: r#"
        fn k(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>, s: u32) {
            let x = a[idx];
            let mut r = x + s - x * s / (s | 1) % 7;
            r = r & 0xff | (r ^ 0x55) & !r;
            r = r << 3 >> 1;
            let c = (x == s) as u32 + (x != s) as u32 + (x < s) as u32 + (x <= s) as u32 + (x > s) as u32 + (x >= s) as u32;
            r += c; r -= 1; r *= 3; r /= 2; r %= 1000;
            r &= 0xfff; r |= 1; r ^= 2; r <<= 1; r >>= 1;
            out[idx] = r;
        }"#;
    usize_operators: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
            let i = idx[0];
            let mut r = i + 3 - i * 2 / 5 % 4;
            r = r & 7 | r ^ 1;
            r = !r >> 2 << 1;
            r += (i < 3) as usize;
            r %= out.extent()[0];
            out[[r]] = r as u32;
        }"#;
    f32_operators: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, s: f32) {
            let x = a[idx];
            let mut r = x + s - x * s / (s + 1.0) % 7.0;
            r = -r;
            let c = (x == s) as i32 + (x != s) as i32 + (x < s) as i32 + (x <= s) as i32 + (x > s) as i32 + (x >= s) as i32;
            r += c as f32; r -= 1.5; r *= 3.0; r /= 2.0; r %= 1000.0;
            out[idx] = r;
        }"#;
    f64_operators: r#"
        fn k(idx: Index<1>, a: ArrayView<f64, 1>, out: ArrayViewMut<f64, 1>, s: f64) {
            let x = a[idx];
            let mut r = x + s - x * s / (s + 1.0) % 7.0;
            r = -r;
            let c = (x == s) as i32 + (x != s) as i32 + (x < s) as i32 + (x <= s) as i32 + (x > s) as i32 + (x >= s) as i32;
            r += c as f64; r -= 1.5; r *= 3.0; r /= 2.0; r %= 1000.0;
            out[idx] = r;
        }"#;
    bool_operators: r#"
        fn k(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<u32, 1>, p: bool) {
            let q = a[idx] > 0;
            let mut r = (p & q) | (p ^ q) & !p;
            r = r == q || r != p && !(q && p);
            r &= q; r |= p; r ^= true;
            out[idx] = r as u32;
        }"#;
    shifts_with_mixed_types: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>, x: i32, y: u32) {
            let mut s = 0i32;
            s += x << y;
            s += x >> 3u32;
            s += (y << 2) as i32;
            s += (y >> x) as i32;
            s += (idx[0] << 2usize) as i32 + (1 << x) + (y << idx[0]) as i32;
            let mut z = 1u32;
            z <<= 3;
            z >>= x;
            s ^= z as i32;
            out[idx] = s;
        }"#;
    short_circuit_operators: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<u32, 1>, t: f32) {
            let i = idx[0];
            let n = a.extent()[0];
            let inside = i > 0 && i + 1 < n && a[[i - 1]] < t && a[[i + 1]] < t;
            let edge = i == 0 || i + 1 == n || (a[idx] > t && !inside);
            let both = (inside || edge) && (a[idx] >= 0.0 || a[idx] <= -1.0);
            out[idx] = inside as u32 + 2 * edge as u32 + 4 * both as u32;
        }"#;
    nested_short_circuit_in_conditions: r#"
        fn k(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
            let mut i = 0usize;
            let n = a.extent()[0];
            while i < n && (a[[i]] != 0 || i < 2) && !(i == 7 && a[[i]] == 3) {
                i += 1;
            }
            if (i == n || a[[i]] > 0) && (i > 0 || n == 0) {
                out[idx] = i as i32;
            }
        }"#;
}

// ----- casts, literals and constants -----

valid! {
    casts_between_all_scalars: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, x: f32, b: bool) {
            let i = x as i32; let u = x as u32; let z = x as usize; let d = x as f64; let f = d as f32;
            let di = d as i32; let du = d as u32; let dz = d as usize;
            let ii = i as i32; let iu = i as u32; let iz = i as usize; let if_ = i as f32; let id = i as f64;
            let ui = u as i32; let uz = u as usize; let uf = u as f32; let ud = u as f64;
            let zi = z as i32; let zu = z as u32; let zf = z as f32; let zd = z as f64;
            let bi = b as i32; let bu = b as u32; let bz = b as usize;
            let ff = x as f32;
            let sum = (ii + ui + zi + di + bi) as f64 + (iu + zu + du + bu) as f64 + (iz + uz + dz + bz) as f64
                + (if_ + uf + zf + f + ff) as f64 + id + ud + zd;
            out[idx] = sum as f32;
        }"#;
    literal_forms: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f64, 1>) {
            let a = 0x7fff_ffff + 0o17 + 0b1010 + 1_000;
            let b = 4_294_967_295u32;
            let c = 7usize + 2i32 as usize;
            let d = 1e-3 + 2.5e2f64 + 3f64;
            let e = 1.5e3f32 + 2f32 + 0.25_f32;
            let n = -2147483648;
            out[idx] = a as f64 + b as f64 + c as f64 + d + e as f64 + n as f64;
        }"#;
    named_constants: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f64, 1>) {
            let i = i32::MAX as f64 + i32::MIN as f64;
            let u = u32::MAX as f64 + u32::MIN as f64 + usize::MAX as f64 + usize::MIN as f64;
            let f = f32::MAX as f64 + f32::MIN as f64 + f32::EPSILON as f64 + f32::MIN_POSITIVE as f64;
            let g = f64::MAX + f64::MIN + f64::EPSILON + f64::MIN_POSITIVE;
            let inf = f32::INFINITY as f64 + f32::NEG_INFINITY as f64 + f64::INFINITY + f64::NEG_INFINITY;
            let nan = f32::NAN as f64 + f64::NAN;
            out[idx] = i + u + f + g + inf + nan;
        }"#;
    const_items: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            const N: usize = 4;
            const SCALE: f32 = 0.5;
            const LIMIT: i32 = i32::MAX;
            const ON: bool = true;
            let mut t = [0.0f32; 4];
            for i in 0..N {
                t[i] = i as f32 * SCALE;
            }
            if ON && LIMIT > 0 {
                out[idx] = t[N - 1];
            }
        }"#;
    builtin_functions_and_methods: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, x: f32, i: i32, u: u32, d: f64) {
            let a = x.abs().min(2.0).max(-1.0) + min(x, 1.0) + max(x, 0.5) + abs(x) + f32::max(x, 0.5) + f32::min(x, 2.0);
            let b = i.abs() + abs(i) + i.min(3) + i.max(-3) + std::cmp::min(i, 1) + std::cmp::max(i, 2) + core::cmp::min(i, 0)
                + i32::abs(i) + i32::max(i, 5) + cmp::min(i, 9);
            let c = u.min(3) + u.max(1) + std::cmp::max(u, 7) + u32::min(u, 2);
            let e = d.abs().min(1.0).max(f64::MIN) + idx[0].min(3) as f64;
            out[idx] = a + b as f32 + c as f32 + e as f32;
        }"#;
}

// ----- control flow -----

valid! {
    if_else_chains: r#"
        fn k(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
            let x = a[idx];
            if x < 0 {
                out[idx] = -1;
            } else if x == 0 {
                out[idx] = 0;
            } else if x < 10 {
                out[idx] = 1;
            } else {
                out[idx] = 2;
            }
            if x == 42 { out[idx] += 100; }
        }"#;
    if_expressions_with_values: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let x = a[idx];
            let sign = if x < 0.0 { -1.0 } else if x > 0.0 { 1.0 } else { 0.0 };
            let clamped = if x > 10.0 { 10.0 } else { if x < -10.0 { -10.0 } else { x } };
            let arr = if sign > 0.0 { [1.0f32, 2.0] } else { [3.0, 4.0] };
            let i = if x > 0.0 { 1usize } else { 0 };
            out[idx] = sign * clamped + arr[i] + if x == 0.0 { 1.0 } else { 2.0 } * (if true { 3.0 } else { 4.0 });
        }"#;
    block_expressions: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
            let a = { let t = idx[0] as i32; t * 2 };
            let b = { { { a + 1 } } };
            { out[idx] = a; }
            out[idx] += b + { 5 };
        }"#;
    while_loops: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
            let mut n = idx[0] as u32 + 1;
            let mut steps = 0u32;
            while n != 1 {
                n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
                steps += 1;
            }
            let mut i = 0;
            while i < 10 { i += 1; if i == 5 { continue; } steps += i; }
            while false {}
            out[idx] = steps;
        }"#;
    loop_with_break_and_continue: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
            let mut i = 0;
            let mut s = 0;
            loop {
                i += 1;
                if i % 3 == 0 { continue; }
                if i > 20 { break; }
                s += i;
            }
            loop { break; }
            loop { if s > 0 { break } else { s += 1; continue } }
            out[idx] = s;
        }"#;
    for_ranges: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>, n: u32) {
            let mut s = 0u32;
            for i in 0..n { s += i; }
            for i in 0..=n { s += i; }
            for i in (0..n).step_by(3) { s += i; }
            for i in (1..=n).step_by(2) { s ^= i; }
            for _ in 0..4 { s += 1; }
            for i in 5..5 { s += i; }
            for i in (0..10).step_by(idx[0] + 1) { s += i as u32; }
            for i in -5..5 { s += (i * i) as u32; }
            for i in (-9..=9).step_by(4) { s += (i + 10) as u32; }
            for mut i in 0..3usize { i += 1; s += i as u32; }
            for i in 0..=u32::MAX { if i > 3 { break; } s += i; }
            out[idx] = s;
        }"#;
    nested_loops_with_break_and_continue_in_ifs: r#"
        fn k(idx: Index<2>, a: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
            let n = a.extent()[0];
            let m = a.extent()[1];
            let mut acc = 0.0;
            let mut found = false;
            for i in 0..n {
                if found { break; }
                let mut j = 0;
                while j < m {
                    j += 1;
                    if a[[i, j - 1]] < 0.0 {
                        continue;
                    } else if a[[i, j - 1]] > 100.0 {
                        found = true;
                        break;
                    }
                    let mut k = 0;
                    loop {
                        k += 1;
                        if k > 3 { break; }
                        if k == 2 { continue; }
                        for t in 0..k {
                            if t == 1 { continue; }
                            if acc > 1000.0 { break; }
                            acc += a[[i, j - 1]] * t as f32;
                        }
                    }
                }
                if i % 2 == 1 { continue; }
                acc *= 0.5;
            }
            out[idx] = acc;
        }"#;
    early_return_inside_loops: r#"
        fn k(idx: Index<1>, a: ArrayView<i32, 1>, out: ArrayViewMut<i32, 1>) {
            if a[idx] < 0 { return; }
            for i in 0..a.extent()[0] {
                if a[[i]] == 7 {
                    out[idx] = i as i32;
                    return;
                }
                let mut j = 0;
                while j < 3 {
                    if a[[i]] + j == 100 { return; }
                    j += 1;
                }
                loop {
                    if a[[i]] > 5 { return; } else { break; }
                }
            }
            loop {
                return;
            }
        }"#;
    if_else_where_both_branches_return: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>, c: bool) {
            out[idx] = 1;
            if c { return; } else { return; }
        }"#;
    loop_that_only_returns: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) {
            let mut i = 0;
            loop {
                i += 1;
                if i == 10 { out[idx] = i; return; }
            }
        }"#;
    infinite_loop: "fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { out[idx] = 1; loop {} }";
    while_condition_that_returns: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, c: bool) {
            if c {
                while { out[idx] = 1.0; return; } { out[idx] = 2.0; }
            }
            loop {
                while (return) {}
            }
        }"#;
    empty_statements_and_unit_values: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            out[idx] = 1.0;;
            ();
            {};
            let _ = [(); 2];
            if out[idx] > 0.0 { () } else { () }
        }"#;
    break_inside_if_expression_value: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>, c: bool) {
            let mut s = 0;
            loop {
                let v = if c { break } else { 1 };
                s += v;
                if s > 10 { break; }
            }
            for i in 0..10 {
                s += if i == 3 { continue } else { i };
                out[idx] = if s > 100 { return } else { s };
            }
        }"#;
    diverging_operands: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, c: bool) {
            loop {
                let _ = c || { break };
                if c && { return } { out[idx] = 1.0; }
            }
            out[idx] = 2.0;
        }"#;
}

// ----- local arrays and bindings -----

valid! {
    local_arrays_1d: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let mut t = [0.0f32; 8];
            let list = [1.0, 2.0, 3.0, 4.0];
            let i = idx[0];
            t[i % 8] = a[idx];
            t[(i + 1) % 8] += list[i % 4];
            t[0] = list[3];
            let copy = t;
            t = [1.0; 8];
            out[idx] = copy[i % 8] + t[7] + [5.0f32, 6.0, 7.0][i % 3] + [1, 2, 3][2] as f32;
        }"#;
    local_arrays_2d_dynamic_indices: r#"
        fn k(idx: Index<2>, m: ArrayView<f32, 2>, out: ArrayViewMut<f32, 2>) {
            let mut t = [[0.0f32; 4]; 4];
            for i in 0..4 {
                for j in 0..4 {
                    t[i][j] = (i * 4 + j) as f32;
                }
            }
            let r = idx[0] % 4;
            let c = idx[1] % 4;
            t[r][c] += m[idx];
            t[c][r] *= 2.0;
            let row = t[r];
            let mut u = t;
            u[0] = row;
            u[3][3] = -1.0;
            out[idx] = t[r][c] + t[c][r] + row[c] + u[0][r] + u[3][c];
        }"#;
    local_arrays_3d_and_bool: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
            let mut cube = [[[0u32; 2]; 3]; 4];
            let mut seen = [false; 5];
            let i = idx[0];
            cube[i % 4][i % 3][i % 2] = 7;
            cube[1][2][1] += 1;
            seen[i % 5] = true;
            seen[0] = !seen[1];
            out[idx] = cube[3][i % 3][1] + seen[i % 5] as u32 + cube[i % 4][2][i % 2];
        }"#;
    large_local_array: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let mut t = [0.0f32; 256];
            for i in 0..256 { t[i] = i as f32; }
            out[idx] = t[idx[0] % 256];
        }"#;
    tuple_let: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, x: f32) {
            let (a, b) = (x, 2.0f32);
            let (mut c, d, _) = (1, a > b, 0u32);
            c += 1;
            let (i, j) = (idx[0], idx[0] + 1);
            out[idx] = a + b + c as f32 + d as i32 as f32 + (i + j) as f32;
        }"#;
    let_without_value: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, c: bool) {
            let mut x: f32;
            let mut t: [i32; 3];
            x = 1.0;
            t = [1, 2, 3];
            if c { x = 2.0; t[0] = 5; }
            out[idx] = x + t[0] as f32;
        }"#;
    shadowing_and_unused_variables: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let x = 1;
            let unused = 5.0;
            let _ = x + 2;
            let _ignored = [0u32; 2];
            let x = x as f32 * 2.0;
            let x = [x, x];
            {
                let x = 3u32;
                let _ = x;
            }
            for x in 0..2 { let _ = x; }
            out[idx] = x[1];
        }"#;
    dead_code_after_return_and_break: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            loop {
                break;
                out[idx] = 1.0;
            }
            for i in 0..4 {
                continue;
                out[idx] = i as f32;
            }
            while true {
                return;
                out[idx] = 2.0;
            }
            out[idx] = 3.0;
            return;
            out[idx] = 4.0;
        }"#;
    deeply_nested_blocks: r#"
        fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            {{{{{{{{{{{{{{{{ let x = 1.0; {{{{ out[idx] = x; }}}} }}}}}}}}}}}}}}}}
        }"#;
}

// ----- launch parameters -----

valid! {
    many_parameters_at_the_push_constant_limit: r#"
        fn k(idx: Index<3>, a: ArrayView<f32, 3>, b: ArrayView<f32, 3>, c: ArrayViewMut<f32, 3>,
             s0: f64, s1: f32, s2: i32, s3: u32, s4: bool, s5: f64, s6: f32) {
            c[idx] = a[idx] + b[idx] + (s0 + s5) as f32 + s1 + s6 + s2 as f32 + s3 as f32 + s4 as i32 as f32;
        }"#;
    same_element_type_in_many_buffers: r#"
        fn k(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 2>, c: &Array<f32, 1>, d: ArrayViewMut<f32, 1>, e: &mut Array<f32, 3>) {
            d[idx] = a[idx] + b[[0, 0]] + c[idx];
            e[[0, 0, idx[0]]] = d[idx];
        }"#;
}

#[test]
fn compiled_kernel_metadata() {
    let k = validate("fn k(idx: Index<2>, a: ArrayView<f64, 1>, out: ArrayViewMut<f32, 2>, s: f32, t: bool) { out[idx] = s; }");
    assert_eq!(k.name, "k");
    assert_eq!(k.rank, 2);
    assert!(k.uses_float64, "an f64 view needs shaderFloat64");
    assert_eq!(k.params.len(), 4);
    assert_eq!(k.params[0].binding, Some(0));
    assert_eq!(k.params[1].binding, Some(1));
    assert_eq!(k.params[2].binding, None);
    assert!(k.push_constant_size <= amp_spirv::MAX_PUSH_CONSTANT_BYTES);
    let plain = validate("fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = 1.0; }");
    assert!(!plain.uses_float64);
    // Stable across compilations.
    let again = validate("fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = 1.0; }");
    assert_eq!(plain.hash, again.hash);
    assert_eq!(plain.spirv, again.spirv);
}

#[test]
fn push_constants_exactly_at_the_limit() {
    // The domain (12 bytes) and 3 rank-3 buffer layouts (extent, offset, strides: 24 bytes
    // each) take 84 bytes, 4 bytes of padding align the f64s, 5 f64 scalars take the last 40.
    let k = validate(
        "fn k(idx: Index<3>, a: ArrayView<f32, 3>, b: ArrayView<f32, 3>, c: ArrayViewMut<f32, 3>,
              s0: f64, s1: f64, s2: f64, s3: f64, s4: f64) {
            c[idx] = a[idx] + b[idx] + (s0 + s1 + s2 + s3 + s4) as f32;
        }",
    );
    assert_eq!(k.push_constant_size, amp_spirv::MAX_PUSH_CONSTANT_BYTES);
    assert_eq!(k.params.last().map(|p| p.offset), Some(120));
}

// ----- diagnostics -----

/// Compiles a kernel that must fail and checks its diagnostics, in order: one entry per expected
/// error, whose ` ++ `-separated parts must all appear in that error's message or help.
#[track_caller]
fn assert_errors(src: &str, expected: &[&str]) {
    let diags = match amp_spirv::compile_str(src) {
        Ok(_) => panic!("this kernel should not compile:\n{src}"),
        Err(d) => d,
    };
    let messages: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages.len(),
        expected.len(),
        "expected {} diagnostics for\n{src}\ngot:\n{}",
        expected.len(),
        messages.join("\n")
    );
    for (m, e) in messages.iter().zip(expected) {
        for part in e.split(" ++ ") {
            assert!(
                m.contains(part),
                "expected a diagnostic containing {part:?}, got {m:?} (kernel:\n{src})"
            );
        }
    }
    for d in diags.iter() {
        assert!(!d.message.is_empty());
    }
}

#[test]
fn diagnostics_for_unsupported_types() {
    assert_errors(
        "fn k(idx: Index<1>) { let x: u64 = 1; }",
        &["type `u64` is not supported ++ use `u32`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, n: i64) {}",
        &["type `i64` is not supported ++ use `i32`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, v: Vec<f32>) {}",
        &["type `Vec<f32>` is not supported ++ fixed-size array"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let s: String = 1; let b: Box<f32> = 1.0; let o: Option<i32> = 1; let t: (f32, ()) = 1.0; }",
        &["type `String`", "type `Box<f32>`", "type `Option<i32>`", "a tuple in a kernel holds values"],
    );
    assert_errors(
        "fn k(idx: Index<1>, v: ArrayView<u64, 1>) {}",
        &["type `u64` is not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>, v: ArrayView<usize, 1>) {}",
        &["`usize` is not supported as an element type"],
    );
    assert_errors(
        "fn k(idx: Index<1>, a: Array<f32, 1>) {}",
        &["must be taken by reference"],
    );
    assert_errors(
        "fn k(idx: Index<1>, a: &f32) {}",
        &["references are not allowed in kernel parameters"],
    );
    assert_errors(
        "fn k(idx: Index<1>, a: [f32; 4]) {}",
        &["kernel parameters of type `[f32; 4]` are not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x: [f32; 0]; let y = [0; 0]; let z = []; }",
        &["zero-length arrays", "zero-length arrays", "empty arrays"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 5u64; let y = 1.0f16; let s = \"hi\"; }",
        &[
            "literals of type `u64`",
            "literals of type `f16`",
            "only numeric and `bool` literals",
        ],
    );
}

#[test]
fn diagnostics_for_the_signature() {
    assert_errors(
        "fn k(n: u32) {}",
        &["first parameter must be its index, of type `Index<N>`"],
    );
    assert_errors("fn k() {}", &["first parameter must be its index"]);
    assert_errors("fn k(idx: Index) {}", &["missing rank"]);
    assert_errors("fn k(idx: Index<4>) {}", &["ranks 1, 2 and 3"]);
    assert_errors(
        "fn k(idx: Index<N>) {}",
        &["the rank must be an integer literal"],
    );
    assert_errors(
        "fn k(idx: Index<1>) -> f32 { return; }",
        &["a kernel cannot return a value"],
    );
    assert_errors(
        "fn k<T>(idx: Index<1>) {}",
        &["generic type and lifetime parameters are not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) where u32: Copy {}",
        &["`where` clauses"],
    );
    assert_errors("unsafe fn k(idx: Index<1>) {}", &["cannot be `unsafe`"]);
    assert_errors("async fn k(idx: Index<1>) {}", &["cannot be `async`"]);
    assert_errors("const fn k(idx: Index<1>) {}", &["cannot be `const fn`"]);
    assert_errors("extern \"C\" fn k(idx: Index<1>) {}", &["`extern` ABI"]);
    assert_errors(
        "fn k(idx: Index<1>, j: Index<1>) {}",
        &["exactly one index parameter"],
    );
    assert_errors(
        "fn k(idx: Index<1>, (a, b): (f32, f32)) {}",
        &["plain names"],
    );
    assert_errors(
        "fn k(idx: Index<1>, a: f32, a: f32) {}",
        &["parameter `a` is declared more than once"],
    );
    assert_errors(
        "fn k(idx: Index<1>, idx: f32) {}",
        &["parameter `idx` is declared more than once"],
    );
    assert_errors(
        "fn k(idx: Index<1>, v: ArrayView<f32>) {}",
        &["expected an element type and a rank"],
    );
    // The domain and 3 rank-3 extents take 48 bytes, 10 f64 scalars 80 more: one f32 is too many.
    assert_errors(
        "fn k(idx: Index<3>, a: ArrayView<f32, 3>, b: ArrayView<f32, 3>, c: ArrayView<f32, 3>,
              s0: f64, s1: f64, s2: f64, s3: f64, s4: f64, s5: f64, s6: f64, s7: f64, s8: f64, s9: f64, s10: f32) {}",
        &["more than the 128 bytes of push constants"],
    );
}

#[test]
fn diagnostics_for_unsupported_expressions() {
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let f = |x: f32| x;
            let x = 1.0;
            let r = &x;
            let d = *r;
            unsafe { out[idx] = 1.0; }
        }",
        &[
            "closures are not allowed",
            "references are not allowed",
            "dereferencing is not allowed",
            "`unsafe` is not allowed",
        ],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let x = match 1.0 { _ => 2 };
            let y = out.len;
            let r = 0..4;
            let z = foo()?;
            let w = async { 1 };
            let s = S { x: 1 };
            let t = (1, ());
        }",
        &[
            "`match` in kernels is on integers and `bool`",
            "field access is not supported",
            "ranges are only allowed as the iterator of a `for` loop",
            "the `?` operator is not allowed",
            "`async` and `.await` are not allowed",
            "struct expressions are not supported",
            "a tuple in a kernel holds values, not `()`",
        ],
    );
    assert_errors(
        "fn k(idx: Index<1>) { println!(\"{}\", 1); panic!(\"x\"); let v = vec![1.0]; assert!(true); }",
        &["`println!` cannot run on the device", "`panic!`", "`vec!`", "`assert!`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { static X: f32 = 1.0; fn helper() {} }",
        &[
            "`static` items are not allowed",
            "nested functions are not allowed",
        ],
    );
    assert_errors(
        "fn k(idx: Index<1>) { use std::cmp::min; struct S; }",
        &["`use` is not allowed", "items"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = if let Some(y) = 1 { 1 } else { 2 }; }",
        &["`if let` is not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let Some(z) = 1 else { return; }; }",
        &["`let ... else`", "this pattern is not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = i32::FOO; let y = Color::RED; }",
        &[
            "`i32::FOO` is not supported",
            "`Color::RED` is not supported",
        ],
    );
}

#[test]
fn diagnostics_for_views_and_assignments() {
    assert_errors(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>) { a[idx] = 1.0; }",
        &["cannot write to `a`: it is read-only ++ ArrayViewMut<f32, _>"],
    );
    assert_errors(
        "fn k(idx: Index<1>, a: &Array<f32, 1>) { a[idx] += 1.0; }",
        &["cannot write to `a`: it is read-only"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 1.0; x = 2.0; }",
        &["cannot assign to `x`: it is not declared `mut` ++ let mut x"],
    );
    assert_errors(
        "fn k(idx: Index<1>, s: f32) { s = 1.0; }",
        &["cannot assign to kernel parameter `s`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out = 1.0; }",
        &["cannot assign to the whole of `out`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { let q = out; }",
        &["`out` is a view or array"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[[idx[0], 0]] = 1.0; }",
        &["`out` has rank 1 but is indexed with 2 components"],
    );
    assert_errors(
        "fn k(idx: Index<2>, out: ArrayViewMut<f32, 1>) { out[idx] = 1.0; }",
        &["`out` has rank 1 but the index has rank 2"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 2>) { out[idx[0]] = 1.0; }",
        &["cannot index rank-2 `out`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx][0] = 1.0; }",
        &["too many indices"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let t = [1.0f32; 4]; let x = t[4]; }",
        &["index out of bounds: the length is 4 but the index is 4"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let mut t = [[1.0f32; 4]; 2]; t[2][0] = 1.0; }",
        &["index out of bounds: the length is 2 but the index is 2"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = idx[1]; }",
        &["index out of bounds: the length is 1"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let a = [0u32; 4]; let b = a[1.0]; let d = 5; let e = d[0]; }",
        &[
            "expected `usize`, found `{float}`",
            "cannot index a value of type `{integer}`",
        ],
    );
}

#[test]
fn diagnostics_for_control_flow() {
    assert_errors(
        "fn k(idx: Index<1>) { break; }",
        &["`break` outside of a loop"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { continue; }",
        &["`continue` outside of a loop"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { 'outer: loop { break 'inner; } }",
        &["use of undeclared label `'inner`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { 'a: { let x = 1; } }",
        &["labelled blocks are not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let v = loop { if true { break 5u32; } break 1.0f32; }; }",
        &["leave it with different types: `u32` and `f32`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, c: bool) { let v = if c { 1.0 }; }",
        &["`if` without `else` cannot produce a value"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { loop { while { break } {} } }",
        &["`break` is not allowed in the condition of a `while` loop"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { for i in 0..3 { while { continue } {} } }",
        &["`continue` is not allowed in the condition"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { return 1; }",
        &["a kernel cannot return a value"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { 1u32 }",
        &["a kernel cannot return a value (this is `u32`)"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { loop { 1u32 } }",
        &["a loop body cannot produce a value"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { for i in 0.0..1.0 {} }",
        &["cannot iterate over a range of `{float}`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { for x in out {} }",
        &["iterate over integer ranges only"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { for i in (0..4).step_by(0) {} }",
        &["`step_by(0)` would loop forever"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { for i in 0.. {} }",
        &["needs a start and an end"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = loop { break; }; }",
        &["cannot bind `()` to a variable"],
    );
}

#[test]
fn diagnostics_for_types_of_expressions() {
    assert_errors(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>) { let x = a[idx] * 2; }",
        &["cannot apply `*` to `f32` and `{integer}` ++ write the integer literal as a float literal"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 1.0f32 + 2i32; }",
        &["cannot apply `+` to `f32` and `i32` ++ convert one side with `as`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { out[idx] = 1.0; }",
        &["mismatched types in this assignment: expected `u32`, found `{float}`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x: f32 = 1; }",
        &["expected `f32`, found `{integer}`"],
    );
    assert_errors("fn k(idx: Index<1>) { let x = if 1 { 2 } else { 3 }; while 1.0 {} let y = if true { 1 } else { 2.0 }; }", &[
        "in this `if` condition: expected `bool`",
        "in this `while` condition: expected `bool`",
        "`if` and `else` have different types",
    ]);
    assert_errors("fn k(idx: Index<1>, out: ArrayViewMut<u32, 1>) { let x = -out[idx]; let y = !1.0; let z = 1.0 & 2.0; let w = true + false; }", &[
        "cannot negate a value of type `u32`",
        "cannot apply `!` to a value of type `{float}`",
        "cannot apply `&` to values of type `{float}`",
        "cannot apply `+` to values of type `bool`",
    ]);
    assert_errors("fn k(idx: Index<1>) { let x = 1.0 as bool; let y = [1; 2] as u32; let z = 1 as [u32; 1]; }", &[
        "cannot cast `{float}` as `bool`",
        "cannot cast `[{integer}; 2]` as `u32`",
        "cannot cast to `[u32; 1]`",
    ]);
    assert_errors(
        "fn k(idx: Index<1>) { let x = min(1); let y = abs(1u32); let z = max(true, false); }",
        &[
            "`min` takes 2 argument(s), found 1",
            "`abs` is not defined for `u32`",
            "`max` is not defined for `bool`",
        ],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let a = [1u32, 2.0]; let b: [u32; 2] = [1, 2, 3]; }",
        &[
            "mismatched types in this array",
            "expected `[u32; 2]`, found `[{integer}; 3]`",
        ],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 1.0 << 2; }",
        &["cannot shift with a value of type `{float}`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let b = true < false; }",
        &["cannot apply `<` to values of type `bool`"],
    );
    // Types settled after the check: `-1` and `abs` on what turns out to be unsigned.
    assert_errors(
        "fn k(idx: Index<1>) { let a = [0u32; 4]; let c = a[-1]; let x: u32 = -1; }",
        &[
            "cannot negate a value of type `usize`",
            "cannot negate a value of type `u32`",
        ],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x: u32 = abs(5); }",
        &["`abs` is not defined for `u32`"],
    );
    // Literal ranges, as rustc's `overflowing_literals`.
    assert_errors("fn k(idx: Index<1>) { let a: i32 = 2147483648; let b: u32 = 4294967296; let c = -2147483649; let d = 1e40f32; }", &[
        "literal out of range for `i32`",
        "literal out of range for `u32`",
        "literal out of range for `i32`",
        "literal out of range for `f32`",
    ]);
    assert_errors(
        "fn k(idx: Index<1>) { let i = 5usize; let x = 4294967296usize; }",
        &["literal out of range for `usize`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 1e999; let y = 2e400f32; }",
        &["float literal out of range", "float literal out of range"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let mut x = 1.0; x[0] = 2.0; }",
        &["cannot index a value of type `{float}`"],
    );
}

#[test]
fn diagnostics_for_names_and_calls() {
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = y; }",
        &["cannot find `y` in this kernel"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { z = 1; }",
        &["cannot find `z` in this kernel"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = foo(1.0); }",
        &["calling `foo` is not supported ++ mark `foo` with `#[amp::device]` ++ `min`, `max`, `abs`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = std::mem::swap(1, 2); }",
        &["calling `std::mem::swap` is not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 2.0f32.powi(2); }",
        &["method `powi` is not supported"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = 2.0f32.min::<f32>(1.0); }",
        &["turbofish"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let x = (0..4).step_by(2); }",
        &["`step_by` is supported only as the range of a `for` loop"],
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { let e = out.extent(1); }",
        &["`extent()` takes no arguments"],
    );
}

#[test]
fn rejected_parameters_do_not_cascade() {
    // Their uses in the body are neither unknown names nor type errors.
    assert_errors(
        "fn k(i: u32, out: ArrayViewMut<f32, 1>) { out[i as usize] = 1.0; }",
        &["must be its index, of type `Index<N>`"],
    );
    assert_errors(
        "fn k(idx: Index<1>, n: i64, data: Vec<f32>, out: ArrayViewMut<f32, 1>) {
            out[idx] = data[idx] * n as f32;
            data[idx] = 1.0;
            let mut m = n;
            m += 1;
        }",
        &["type `i64`", "type `Vec<f32>`"],
    );
    // Nor do the follow-ups of an `if` without `else` or a `break` with a value out of a `for`.
    assert_errors("fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>, c: bool) { let v = if c { 1.0 }; out[idx] = v + 1.0; }", &[
        "`if` without `else`",
    ]);
    assert_errors("fn k(idx: Index<1>, out: ArrayViewMut<i32, 1>) { for i in 0..4 { break 5; } out[idx] = 1; }", &["`break` with a value can only leave a `loop`"]);
}

#[test]
fn every_error_of_a_kernel_is_reported() {
    assert_errors(
        "fn k(idx: Index<1>, inp: ArrayView<f32, 1>, n: i64) {
            let x: u64 = 1;
            inp[idx] = y;
            let f = |a: f32| a;
            let z = 1.0f32 + 1i32;
            println!(\"{}\", z);
        }",
        &[
            "type `i64` is not supported",
            "type `u64` is not supported",
            "cannot write to `inp`",
            "cannot find `y`",
            "closures are not allowed",
            "cannot apply `+` to `f32` and `i32`",
            "`println!` cannot run on the device",
        ],
    );
}

#[test]
fn diagnostics_point_at_the_offending_tokens() {
    // With span locations on, each diagnostic starts where its tokens are.
    let src =
        "fn k(idx: Index<1>, v: ArrayView<f32, 1>) {\n    let x: u64 = 1;\n    v[idx] = 2.0;\n}";
    let diags = amp_spirv::compile_str(src).expect_err("two errors");
    let starts: Vec<(usize, usize)> = diags
        .iter()
        .map(|d| (d.span.start().line, d.span.start().column))
        .collect();
    assert_eq!(starts, [(2, 11), (3, 4)], "{diags}");
}

#[test]
fn parse_errors_are_diagnostics() {
    let d = amp_spirv::compile_str("fn k(idx: Index<1>) {").expect_err("not a function");
    assert_eq!(d.len(), 1);
    let d = amp_spirv::compile_str("struct S;").expect_err("not a function");
    assert_eq!(d.len(), 1);
}

// ----- robustness -----

/// Odd inputs, valid and invalid: the compiler must answer each without panicking, and what it
/// accepts must validate.
#[test]
fn odd_inputs_never_panic() {
    let inputs = [
        "fn k(idx: Index<1>) {}",
        "fn k(idx: Index<1>) { return; }",
        "fn k(idx: Index<1>) { return }",
        "fn k(idx: Index<1>) { loop {} }",
        "fn k(idx: Index<1>) { loop { loop {} } }",
        "fn k(idx: Index<1>) { loop { loop { break; } } }",
        "fn k(idx: Index<1>) { let x = loop { break; }; }",
        "fn k(idx: Index<1>) { let x = loop {}; }",
        "fn k(idx: Index<1>) { let x = return; }",
        "fn k(idx: Index<1>) { let x: f32 = return; }",
        "fn k(idx: Index<1>) { let x: [f32; 2] = [return; 2]; }",
        "fn k(idx: Index<1>) { let v = [return; 4]; }",
        "fn k(idx: Index<1>) { let v = [return, return]; }",
        "fn k(idx: Index<1>) { let v = [{}; 4]; v[1]; v[idx[0] % 4]; let u = [[{}; 2]; 2]; let e = u[0]; let f = u[idx[0] % 2]; }",
        "fn k(idx: Index<1>) { let x: [(); 2]; }",
        "fn k(idx: Index<1>, c: bool) { let v = if c { [return; 2] } else { [return; 2] }; }",
        "fn k(idx: Index<1>, c: bool) { if c { return; } else { return; } }",
        "fn k(idx: Index<1>, c: bool) { let x: f32 = if c { return } else { return }; }",
        "fn k(idx: Index<1>, c: bool) { let v = if c { 1.0 } else { return; }; }",
        "fn k(idx: Index<1>) { {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}} }",
        "fn k(idx: Index<1>) { ((((((((((((((((1)))))))))))))))); }",
        "fn k(idx: Index<1>) { return; let x = 1; loop {} }",
        "fn k(idx: Index<1>) { loop { break; break; continue; } }",
        "fn k(idx: Index<1>) { let a = 1; let b = 2.0; let c = [true; 3]; }",
        "fn k(idx: Index<1>) { let x = 1; let x = x + 1; let x = x as f32; let x = [x; 2]; }",
        "fn k(idx: Index<1>) { while true {} }",
        "fn k(idx: Index<1>) { while (return) {} }",
        "fn k(idx: Index<1>) { while { loop { break; } false } {} }",
        "fn k(idx: Index<1>) { loop { while { break } {} } }",
        "fn k(idx: Index<1>) { if (return) {} }",
        "fn k(idx: Index<1>, c: bool) { let x = c && return; }",
        "fn k(idx: Index<1>, c: bool) { let x = (return) && c; }",
        "fn k(idx: Index<1>, c: bool) { loop { let _ = c || { break }; } }",
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = 1.0 + return; }",
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = return; }",
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[return] = 1.0; }",
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { let a = [1.0f32; 4]; out[idx] = a[return]; }",
        "fn k(idx: Index<1>) { let x = (return) as f32; let y = -(return); let z = !(return); }",
        "fn k(idx: Index<1>) { for i in 0..3 { return; } }",
        "fn k(idx: Index<1>) { for i in 0..(return) {} }",
        "fn k(idx: Index<1>) { for i in (0..3).step_by(return) {} }",
        "fn k(idx: Index<1>) { let x = min(return, 1); let y = (return).abs(); }",
        "fn k(idx: Index<1>) { let x = { return; }; }",
        "fn k(idx: Index<1>) { let x: f32; }",
        "fn k(idx: Index<1>) { let x; }",
        "fn k(idx: Index<1>) { let _ = 1; let _ = [0; 3]; }",
        "fn k(idx: Index<1>) { (); }",
        "fn k(idx: Index<1>) { let x = (); }",
        "fn k(idx: Index<1>) { {} {} ; ; }",
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) { out[idx] = 1.0;; ; }",
        "fn k(idx: Index<1>) { let x = 1 + 2 * 3 - 4 / 5 % 6; }",
        "fn k(idx: Index<1>) { let x = 1 / 0; let y = 1 % 0; let z = 1.0 / 0.0; }",
        "fn k(idx: Index<1>) { let x = i32::MAX + 1; let y = 0u32 - 1; }",
        "fn k(idx: Index<1>) { let x = 1 << 40; let y = -1 >> 33; }",
        "fn k(idx: Index<1>) { let a = [[[[1u32; 2]; 2]; 2]; 2]; let b = a[1][1][1][1]; let c = a[idx[0] % 2][0][1][idx[0] % 2]; }",
        "fn k(idx: Index<1>) { let x = idx[0][0]; }",
        "fn k(idx: Index<1>) { let i = idx; let j = i[0 + 0]; }",
        "fn k(idx: Index<1>) { idx[0] = 1; }",
        "fn k(idx: Index<1>) { let x = 1; x += 1; }",
        "fn k(idx: Index<1>) { let x = 99999999999999999999999999999999999999999999; }",
        "fn k(idx: Index<1>) { let x = 1e999; let y = 1e999f32; }",
        "fn k(idx: Index<1>) { let x = [0u32; 16385]; }",
        "fn k(idx: Index<1>) { let x = [0u32; 16384]; }",
        "fn k(idx: Index<1>, v: ArrayView<f32, 1>) { let x = v[[]]; }",
        "fn k(idx: Index<3>, v: ArrayView<f32, 3>) { let x = v[[0, 0]]; let y = v[[0, 0, 0, 0]]; }",
        "fn k(idx: Index<1>, v: ArrayView<f32, 1>) { let x = v.extent().extent(); }",
        "fn k(idx: Index<1>, v: ArrayView<f32, 1>) { let x = v[v.extent()]; }",
        "fn k(idx: Index<1>, v: ArrayView<f32, 1>) { let x = v[idx][idx]; }",
        "fn k(idx: Index<1>) { let x = (1)(2); let y = [1, 2](0); }",
        "fn k(idx: Index<1>) { let x = 1.min(2).max(3).abs().min(4); }",
        "fn k(idx: Index<1>) { let x = self; }",
        "fn k(self) {}",
        "fn k(&self, idx: Index<1>) {}",
        "fn k(idx: Index<1>, _: f32) {}",
        "fn k(idx: Index<1>) { const X: i32 = X; }",
        "fn k(idx: Index<1>) { const X: [f32; 2] = [1.0; 2]; let y = X[1]; }",
        "fn k(idx: Index<1>) { let x = true as f32; }",
        "fn k(idx: Index<1>) { let (a, b) = (1, 2, 3); }",
        "fn k(idx: Index<1>) { let (a, (b, c)) = (1, (2, 3)); }",
        "fn k(idx: Index<1>) { let [a, b] = [1, 2]; }",
        "fn k(idx: Index<1>) { let ref x = 1; }",
        "fn k(idx: Index<1>) { x!(); }",
        "fn k(idx: Index<1>) { let x = 'a'; let y = b'a'; let z = b\"ab\"; }",
        "fn k(idx: Index<1>) { let x: Index<1> = idx; let y: Extent<0> = idx; }",
        "fn k(idx: Index<1>) { let x: ! = return; }",
        "fn k(idx: Index<1>) { let x: _ = 1; }",
        "fn k(idx: Index<1>) { let x: std::primitive::f32 = 1.0; }",
        "fn k(idx: Index<1>) { let x = 1 as _; }",
        "fn k(idx: Index<1>) { let x: <f32 as Foo>::Bar = 1.0; }",
        "fn k(idx: Index<1>) { yield 1; }",
        "fn k(idx: Index<1>) { let x = 1..; let y = ..; }",
    ];
    for src in inputs {
        let result = std::panic::catch_unwind(|| amp_spirv::compile_str(src));
        match result {
            Err(_) => panic!("the compiler panicked on:\n{src}"),
            Ok(Ok(k)) => {
                if let Err(msg) = spirv_val_words(&k.spirv) {
                    panic!("spirv-val rejected the module of:\n{src}\n{msg}");
                }
            }
            Ok(Err(d)) => assert!(!d.is_empty(), "an Err holds at least one diagnostic: {src}"),
        }
    }
}

/// An operator with an operand that leaves (`return`) still runs it: the module returns there
/// (found by the fuzz test: the comparison used to be dropped, and `&&` then panicked).
#[test]
fn operators_with_a_returning_operand_compile() {
    for src in [
        "fn k(idx: Index<1>, x0: i32) { let b = (x0 > 0) && ((return) != 0); }",
        "fn k(idx: Index<1>, x0: i32) { let b = false && ([return; 2][0] != 0); }",
        "fn k(idx: Index<1>, x0: i32, out: ArrayViewMut<i32, 1>) { let v = x0 + (return); out[idx] = v; }",
    ] {
        validate(src);
    }
}

/// `let y: T;` without `mut`: assigned once on every path, as Rust allows (docs/kernel-language.md).
#[test]
fn variables_declared_without_a_value_are_assigned_once_per_path() {
    validate(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
            let y: f32;
            if a[idx] > 0.0 { y = 1.0; } else if a[idx] < 0.0 { y = 2.0; } else { y = 3.0; }
            let z: i32;
            if a[idx] > 1.0 { out[idx] = y; return; }
            z = 4;
            let w: f32;
            for i in 0..4 { let v: f32; v = i as f32; out[idx] += v; }
            w = { let u: f32; u = y + z as f32; u };
            out[idx] = w;
        }",
    );
    assert_errors(
        "fn k(idx: Index<1>) { let y: f32; y = 1.0; y = 2.0; }",
        &["cannot assign twice to immutable variable `y` ++ let mut y"],
    );
    assert_errors(
        "fn k(idx: Index<1>, a: ArrayView<f32, 1>) { let y: f32; if a[idx] > 0.0 { y = 1.0; } y = 2.0; }",
        &["cannot assign twice to immutable variable `y`"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let y: f32; for i in 0..2 { y = 1.0; } }",
        &["cannot assign twice to immutable variable `y`: this assignment is in a loop"],
    );
    assert_errors(
        "fn k(idx: Index<1>) { let y: f32; y += 1.0; let a: [f32; 2]; a[0] = 1.0; }",
        &[
            "cannot modify `y`: it is not declared `mut`",
            "cannot modify `a`: it is not declared `mut`",
        ],
    );
}

/// `fast_math` keeps the device's own instructions: no rounded-operation functions.
#[test]
fn fast_math_uses_the_devices_division_and_square_root() {
    let src = "fn k(idx: Index<1>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>, d: f32) { out[idx] = a[idx] / d + a[idx].sqrt(); }";
    let func: syn::ItemFn = syn::parse_str(src).expect("parses");
    let functions = |options: &amp_spirv::Options| {
        let kernel = amp_spirv::compile_with(&func, options).expect("compiles");
        if let Err(msg) = spirv_val_words(&kernel.spirv) {
            panic!("spirv-val rejected the module of:\n{src}\n{msg}");
        }
        let module = rspirv::dr::load_words(&kernel.spirv).expect("loads");
        module.functions.len()
    };
    let fast = amp_spirv::Options {
        fast_math: true,
        ..Default::default()
    };
    assert_eq!(
        functions(&amp_spirv::Options::default()),
        functions(&fast) + 2,
        "amp_div_f32 and amp_sqrt_f32 beside main"
    );
}

/// Tuple `let`s: a deferred one declares each name, typed or not; an initializer that is not a
/// tuple of the pattern's arity is one error, and later uses of the names raise no more (as
/// `cannot find` errors once did, one per use).
#[test]
fn tuple_lets_and_no_error_cascades() {
    validate(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let (speed, power): (f32, f32);
            speed = 1.5;
            power = 2.0;
            out[idx] = speed * power + speed;
        }",
    );
    // Untyped, as rayon-demo's n-body writes it: the assignments give the types.
    validate(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let (speed, power);
            speed = 1.5f32;
            power = 2.0f32;
            out[idx] = speed * power + speed;
        }",
    );
    assert_errors(
        "fn k(idx: Index<1>, out: ArrayViewMut<f32, 1>) {
            let (a, b) = out.extent();
            out[idx] = a as f32 + b as f32 + a as f32;
        }",
        &["this pattern takes a tuple of 2, found `[usize; 1]`"],
    );
}
