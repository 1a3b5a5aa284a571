//! `bool` view and array elements: one byte each, 0 or 1, as the host's `bool`. Conway's life
//! on a grid of `bool`s and a sieve of `bool`s against the host; neighbouring threads storing
//! `bool`s of one word; `bool`s read, negated, compared and counted; `tile_static` `bool`s;
//! and what keeps every byte 0 or 1: `reinterpret_as` refuses to show other bytes as `bool`s
//! and to write a `bool`'s bytes as another type, `discard_data` keeps a `bool` view's data,
//! and a `RawKernel` cannot bind `bool`s. On every accelerator, packed in words too.

use crate::common;
use amp::prelude::*;
use common::assert_validation_clean;

/// One generation of Conway's life on a torus.
#[kernel(amp)]
fn life_step(idx: Index<2>, cur: ArrayView<bool, 2>, next: ArrayViewMut<bool, 2>) {
    let (h, w) = (cur.extent()[0], cur.extent()[1]);
    let (r, c) = (idx[0], idx[1]);
    let mut live = 0u32;
    for dr in 0..3 {
        for dc in 0..3 {
            if dr != 1 || dc != 1 {
                let rr = (r + h + dr - 1) % h;
                let cc = (c + w + dc - 1) % w;
                if cur[[rr, cc]] {
                    live += 1;
                }
            }
        }
    }
    let alive = cur[idx];
    next[idx] = live == 3 || (alive && live == 2);
}

fn life_host(cur: &[bool], h: usize, w: usize) -> Vec<bool> {
    let mut next = vec![false; h * w];
    for r in 0..h {
        for c in 0..w {
            let mut live = 0;
            for dr in 0..3 {
                for dc in 0..3 {
                    if dr != 1 || dc != 1 {
                        let rr = (r + h + dr - 1) % h;
                        let cc = (c + w + dc - 1) % w;
                        live += u32::from(cur[rr * w + cc]);
                    }
                }
            }
            let alive = cur[r * w + c];
            next[r * w + c] = live == 3 || (alive && live == 2);
        }
    }
    next
}

#[test]
fn life_on_a_grid_of_bools_matches_the_host() -> Result<(), amp::Error> {
    // An odd width: rows start inside words.
    let (h, w) = (37usize, 53usize);
    let mut seed = 0x2545_f491_u32;
    let start: Vec<bool> = (0..h * w)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed.is_multiple_of(3)
        })
        .collect();
    let mut a = Array::<bool, 2>::from_slice([h, w], &start)?;
    let mut b = Array::<bool, 2>::new([h, w])?;
    let mut want = start;
    for generation in 0..20 {
        if generation % 2 == 0 {
            parallel_for_each(a.extent(), life_step(&a.view(), &mut b.view_mut()))?;
        } else {
            parallel_for_each(b.extent(), life_step(&b.view(), &mut a.view_mut()))?;
        }
        want = life_host(&want, h, w);
    }
    assert_eq!(a.to_vec()?, want);
    assert!(want.iter().any(|&x| x), "the pattern died out");
    assert_validation_clean();
    Ok(())
}

/// Marks the multiples of `p` from `2p` on.
#[kernel(amp, allow(write_conflict))]
fn bool_sieve_step(idx: Index<1>, composite: ArrayViewMut<bool, 1>, p: u32) {
    let m = (idx[0] as u32 + 2) * p;
    if (m as usize) < composite.extent()[0] {
        composite[[m as usize]] = true;
    }
}

#[test]
fn a_sieve_of_bools_finds_the_primes() -> Result<(), amp::Error> {
    let n = 30_011usize;
    let mut composite = Array::<bool, 1>::new([n])?;
    let mut p = 2;
    while p * p < n {
        if !composite.to_vec()?[p] {
            parallel_for_each(
                Extent::new([n / p]),
                bool_sieve_step(&mut composite.view_mut(), p as u32),
            )?;
        }
        p += 1;
    }
    let got = composite.to_vec()?;
    assert_eq!(got[2..].iter().filter(|&&c| !c).count(), 3245);
    assert_validation_clean();
    Ok(())
}

/// `bool`s read, combined and stored, by neighbouring threads (four to a word when packed),
/// with a count of the `true`s read and a `bool` scalar parameter.
#[kernel(amp)]
fn bool_ops(
    idx: Index<1>,
    a: ArrayView<bool, 1>,
    b: ArrayView<bool, 1>,
    out: ArrayViewMut<bool, 2>,
    count: ArrayViewMut<u32, 1>,
    flip: bool,
) {
    let i = idx[0];
    let (x, y) = (a[idx], b[idx]);
    out[[i, 0]] = x && y;
    out[[i, 1]] = x || y;
    out[[i, 2]] = x ^ y;
    out[[i, 3]] = !x;
    out[[i, 4]] = x == y;
    out[[i, 5]] = x != flip;
    out[[i, 6]] = x as u32 + y as u32 == 1;
    out[[i, 7]] = i % 3 == 0;
    count[idx] = x as u32 + y as u32 * 2;
}

#[test]
fn bools_are_read_combined_and_stored_by_neighbouring_threads() -> Result<(), amp::Error> {
    for n in [1usize, 3, 4, 5, 1001] {
        let a: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
        let b: Vec<bool> = (0..n).map(|i| i % 3 == 1).collect();
        // The host slice of the outputs starts inside a word and has neighbours.
        let mut data = vec![true; 8 * n + 2];
        let mut count = vec![0u32; n];
        {
            let av = ArrayView::new([n], &a)?;
            let bv = ArrayView::new([n], &b)?;
            let mut out = ArrayViewMut::new([n, 8], &mut data[1..1 + 8 * n])?;
            let mut cv = ArrayViewMut::new([n], &mut count)?;
            parallel_for_each(av.extent(), bool_ops(&av, &bv, &mut out, &mut cv, true))?;
            out.synchronize()?;
            cv.synchronize()?;
        }
        assert!(
            data[0] && data[8 * n + 1],
            "the neighbours of the view, {n}"
        );
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x && y,
                x || y,
                x ^ y,
                !x,
                x == y,
                !x,
                u32::from(x) + u32::from(y) == 1,
                i % 3 == 0,
            ];
            assert_eq!(&data[1 + 8 * i..1 + 8 * i + 8], &want, "element {i} of {n}");
            assert_eq!(count[i], u32::from(x) + 2 * u32::from(y));
        }
    }
    assert_validation_clean();
    Ok(())
}

/// A tile's `bool`s in `tile_static` memory, and a local array of them.
#[kernel(amp)]
fn tile_bools(t: TiledIndex<64>, a: ArrayView<bool, 1>, out: ArrayViewMut<u32, 1>) {
    #[tile_static]
    let mut seen: [bool; 64];
    seen[t.local[0]] = a[t.global];
    t.barrier.wait();
    let mut mine = [false; 2];
    mine[0] = seen[(t.local[0] + 1) % 64];
    mine[1] = seen[(t.local[0] + 63) % 64];
    out[t.global] = mine[0] as u32 + 2 * mine[1] as u32;
}

#[test]
fn tile_static_and_local_arrays_of_bools() -> Result<(), amp::Error> {
    let n = 256;
    let a: Vec<bool> = (0..n).map(|i| i % 5 < 2).collect();
    let av = ArrayView::new([n], &a)?;
    let mut out = Array::<u32, 1>::new([n])?;
    parallel_for_each(
        av.extent().tile::<64>(),
        tile_bools(&av, &mut out.view_mut()),
    )?;
    let got = out.to_vec()?;
    for i in 0..n {
        let base = i / 64 * 64;
        let next = a[base + (i % 64 + 1) % 64];
        let prev = a[base + (i % 64 + 63) % 64];
        assert_eq!(got[i], u32::from(next) + 2 * u32::from(prev), "{i}");
    }
    assert_validation_clean();
    Ok(())
}

#[test]
fn nothing_shows_other_bytes_as_bools() -> Result<(), amp::Error> {
    let bytes = [0u8, 1, 2, 255];
    let view = ArrayView::new([4], &bytes)?;
    let refused = view.reinterpret_as::<bool>();
    assert!(
        matches!(refused, Err(amp::Error::Reinterpret { .. })),
        "{refused:?}"
    );
    // A `bool`'s bytes read as `u8`s are fine; written as `u8`s they are not.
    let mut flags = vec![true, false, true, true];
    {
        let mut v = ArrayViewMut::new([4], &mut flags)?;
        assert_eq!(v.reinterpret_as::<u8>()?.to_vec()?, [1, 0, 1, 1]);
        let refused = v.reinterpret_as_mut::<u8>().map(|_| ());
        assert!(
            matches!(refused, Err(amp::Error::Reinterpret { .. })),
            "{refused:?}"
        );
        // `discard_data` is a hint a `bool` view does not take: its data stays.
        v.discard_data();
        assert_eq!(v.to_vec()?, [true, false, true, true]);
    }
    Ok(())
}

#[test]
fn a_raw_kernel_cannot_bind_bools() -> Result<(), amp::Error> {
    common::vulkan_only!("raw SPIR-V kernels need Vulkan");
    // A hand-written kernel may store any byte, here a 2.
    let f: syn::ItemFn =
        syn::parse_str("fn raw_twos(idx: Index<1>, v: ArrayViewMut<u8, 1>) { v[idx] = 2; }")
            .expect("parses");
    let k = amp_spirv::compile(&f).expect("compiles");
    let acc = Accelerator::default()?;
    // Binding 0 is the view, binding 1 the kernel's out-of-bounds report.
    let raw = amp::RawKernel::new(&acc, &k.spirv, k.entry_point, 2, k.push_constant_size)?;
    let mut flags = Array::<bool, 1>::new_on(&acc, [4])?;
    let mut report = Array::<u32, 1>::new_on(&acc, [16])?;
    let push = vec![0u8; k.push_constant_size as usize];
    let args = vec![
        amp::KernelArg::write(&mut flags),
        amp::KernelArg::write(&mut report),
    ];
    let refused = raw.dispatch([1, 1, 1], args, &push);
    assert!(
        matches!(refused, Err(amp::Error::ArgumentMismatch { .. })),
        "{refused:?}"
    );
    assert_eq!(flags.to_vec()?, [false; 4]);
    assert_validation_clean();
    Ok(())
}

/// Every test above again with `AMP_PACKED_SMALL_INTS=1` (in a process of its own), so that
/// `bool`s packed in 32-bit words are tested where the device has 8-bit storage.
#[test]
fn the_same_with_bools_packed_in_words() -> Result<(), amp::Error> {
    const NAME: &str = "bool_elems::the_same_with_bools_packed_in_words";
    if common::in_child(NAME) {
        life_on_a_grid_of_bools_matches_the_host()?;
        a_sieve_of_bools_finds_the_primes()?;
        bools_are_read_combined_and_stored_by_neighbouring_threads()?;
        return tile_static_and_local_arrays_of_bools();
    }
    if !common::on_native() {
        common::run_child(NAME, &[("AMP_PACKED_SMALL_INTS", "1")], &[]);
    }
    Ok(())
}
