//! Every kind of element type through every way the native back end runs a kernel: one thread
//! at a time, a batch of threads through a loop every thread runs alike, and a tile; each with
//! views that cover the launch (the variants without those checks) and sections that do not.
//! A type mismatch in generated code (a variant's own struct types) is a compile error here,
//! never a user's. On Vulkan devices the same kernels run as SPIR-V.

use crate::common;
use amp::prelude::*;

/// A struct with a vector field and padding-free `#[repr(C)]` layout.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable, DeviceStruct,
)]
struct Pair {
    at: Float2,
    id: u32,
    weight: f32,
}

macro_rules! every_variant {
    ($($name:ident: $t:tt = |$i:ident| $make:expr;)*) => { $(
        mod $name {
            use super::*;

            /// One thread per element.
            #[kernel(amp)]
            fn copy(idx: Index<1>, a: ArrayView<$t, 1>, out: ArrayViewMut<$t, 1>) {
                out[idx] = a[idx];
            }

            /// A loop every thread runs alike (a batch of threads at once natively), reading
            /// elements of the view; thread `i` keeps element `i`.
            #[kernel(amp)]
            fn pick(idx: Index<1>, a: ArrayView<$t, 1>, out: ArrayViewMut<$t, 1>) {
                let mut v = a[idx];
                for j in 0..a.extent()[0] {
                    let w = a[j];
                    if j == idx[0] {
                        v = w;
                    }
                }
                out[idx] = v;
            }

            /// A tile of 8 threads, each writing its neighbour's element after a barrier.
            #[kernel(amp)]
            fn swap_in_tile(t: TiledIndex<8>, a: ArrayView<$t, 1>, out: ArrayViewMut<$t, 1>) {
                let mine = a[t.global];
                t.barrier.wait();
                let g = t.global[0];
                out[[g ^ 1]] = mine;
            }

            fn value($i: usize) -> $t {
                $make
            }

            #[test]
            fn every_variant_moves_every_element() -> Result<(), amp::Error> {
                let n = 64;
                let input: Vec<$t> = (0..2 * n).map(value).collect();
                // Whole views (they cover the launch) and sections of bigger ones (they do not).
                for offset in [0, 3] {
                    let src = &input[offset..offset + n];
                    let mut copied = vec![<$t>::default(); n + offset];
                    let mut picked = vec![<$t>::default(); n + offset];
                    let mut swapped = vec![<$t>::default(); n + offset];
                    {
                        let a = ArrayView::new([n], src)?;
                        let mut c = ArrayViewMut::new([n + offset], &mut copied)?;
                        let mut c = c.section_mut([offset], [n])?;
                        parallel_for_each(a.extent(), copy(&a, &mut c))?;
                        let mut p = ArrayViewMut::new([n + offset], &mut picked)?;
                        let mut p = p.section_mut([offset], [n])?;
                        let call = pick(&a, &mut p);
                        let report = call.kernel().report();
                        assert!(report.contains("batches of"), "not batched natively:\n{report}");
                        parallel_for_each(a.extent(), call)?;
                        let mut s = ArrayViewMut::new([n + offset], &mut swapped)?;
                        let mut s = s.section_mut([offset], [n])?;
                        parallel_for_each(a.extent().tile::<8>(), swap_in_tile(&a, &mut s))?;
                    }
                    assert_eq!(&copied[offset..], src, "copy, offset {offset}");
                    assert_eq!(&picked[offset..], src, "pick, offset {offset}");
                    let want: Vec<$t> = (0..n).map(|i| src[i ^ 1]).collect();
                    assert_eq!(&swapped[offset..], &want[..], "tile, offset {offset}");
                }
                common::assert_validation_clean();
                Ok(())
            }
        }
    )* };
}

every_variant! {
    of_i32: i32 = |i| i as i32 * -3;
    of_u32: u32 = |i| i as u32 * 7 + 1;
    of_f32: f32 = |i| i as f32 * 0.5 - 3.0;
    of_float2: Float2 = |i| Float2::new(i as f32, -(i as f32));
    of_float3: Float3 = |i| Float3::new(i as f32, 1.5, -(i as f32));
    of_int4: Int4 = |i| Int4::new(i as i32, -1, 2, -(i as i32));
    of_uint2: UInt2 = |i| UInt2::new(i as u32, 9);
    of_pair: Pair = |i| Pair { at: Float2::new(i as f32, 2.0), id: i as u32, weight: 0.25 };
}
