//! The tiled model (C++ AMP's `tiled_extent` and `tiled_index`): [`TiledExtent`],
//! [`TiledIndex`] and [`TileBarrier`].

use std::fmt;

use crate::dims::write_dims;
use crate::extent::{Extent, Index};

/// The most threads one tile may have on any device the runtime checks at compile time
/// (`T0 * T1 * T2`); the device's own limit (`maxComputeWorkGroupInvocations`, at least 128,
/// usually 1024) is checked again at launch.
pub const MAX_TILE_THREADS: usize = amp_abi::MAX_TILE_THREADS as usize;

/// A launch domain cut into tiles of `T0` (rank 1), `T0 x T1` (rank 2) or `T0 x T1 x T2`
/// (rank 3) threads: C++ AMP's `tiled_extent`. A tiled kernel runs one workgroup per tile, and
/// the threads of a tile share `tile_static` memory and barriers.
///
/// The rank is the number of nonzero tile dimensions (`T1 == 0`: rank 1; `T2 == 0`: rank at
/// most 2). Made by [`Extent::tile`]:
///
/// ```
/// use amp_runtime::Extent;
/// let t = Extent::new([100, 60]).tile::<16, 16>();
/// assert_eq!(t.extent(), &[100, 60]);
/// assert_eq!(t.tile_extent(), &[16, 16]);
/// assert_eq!(t.pad().extent(), &[112, 64]); // round up: launch, and skip the extra threads
/// assert_eq!(t.truncate().extent(), &[96, 48]); // round down: the rest is left out
/// assert_eq!(t.pad().num_tiles(), 7 * 4);
/// assert!(!t.is_divisible() && t.pad().is_divisible());
/// ```
///
/// A domain that is not a multiple of its tile is refused at launch
/// ([`Error::NotDivisible`](crate::Error::NotDivisible)). A tile dimension of zero, or a tile of
/// more than 1024 threads, is a compile error:
///
/// ```compile_fail
/// let t = amp_runtime::Extent::new([64]).tile::<0>();
/// ```
///
/// ```compile_fail
/// let t = amp_runtime::Extent::new([64, 64]).tile::<64, 64>(); // 4096 threads per tile
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TiledExtent<const T0: usize, const T1: usize = 0, const T2: usize = 0> {
    /// The domain's dimensions; entries past the rank are 1.
    dims: [usize; 3],
}

impl<const T0: usize, const T1: usize, const T2: usize> TiledExtent<T0, T1, T2> {
    /// The rank: the number of nonzero tile dimensions.
    pub const RANK: usize = if T1 == 0 {
        1
    } else if T2 == 0 {
        2
    } else {
        3
    };

    /// Threads per tile: the product of the tile's dimensions.
    pub const THREADS_PER_TILE: usize =
        T0 * if T1 == 0 { 1 } else { T1 } * if T2 == 0 { 1 } else { T2 };

    /// The tile shape, padded with 1s to three dimensions.
    const TILE: [usize; 3] = [
        T0,
        if T1 == 0 { 1 } else { T1 },
        if T2 == 0 { 1 } else { T2 },
    ];

    fn from_dims(dims: &[usize]) -> Self {
        let mut d = [1usize; 3];
        d[..dims.len()].copy_from_slice(dims);
        TiledExtent { dims: d }
    }

    /// The rank (1, 2 or 3).
    pub const fn rank(&self) -> usize {
        Self::RANK
    }

    /// The domain's extent: one entry per dimension, dimension 0 the slowest-varying.
    pub fn extent(&self) -> &[usize] {
        &self.dims[..Self::RANK]
    }

    /// The tile's extent: `[T0]`, `[T0, T1]` or `[T0, T1, T2]`.
    pub fn tile_extent(&self) -> &'static [usize] {
        let tile: &'static [usize; 3] = const { &Self::TILE };
        &tile[..Self::RANK]
    }

    /// The number of threads in the domain (the product of its extent).
    pub fn size(&self) -> usize {
        self.extent()
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX)
    }

    /// Whether every dimension of the extent is a multiple of the tile's (a launch requires it).
    pub fn is_divisible(&self) -> bool {
        self.extent()
            .iter()
            .zip(self.tile_extent())
            .all(|(&d, &t)| d % t == 0)
    }

    /// The number of whole tiles in the domain: the product of `extent[d] / tile[d]` (every
    /// tile when the domain [is divisible](Self::is_divisible)).
    pub fn num_tiles(&self) -> usize {
        self.extent()
            .iter()
            .zip(self.tile_extent())
            .try_fold(1usize, |acc, (&d, &t)| acc.checked_mul(d / t))
            .unwrap_or(usize::MAX)
    }

    /// The extent rounded **up** to a multiple of the tile in each dimension (C++ AMP's
    /// `tiled_extent::pad`). The kernel then runs for indices past the data too, and must skip
    /// them itself (compare `t.global` with a view's extent) without skipping a barrier.
    pub fn pad(self) -> Self {
        let mut dims = self.dims;
        for (d, &t) in dims.iter_mut().zip(&Self::TILE) {
            *d = d.div_ceil(t).checked_mul(t).unwrap_or(usize::MAX / t * t);
        }
        TiledExtent { dims }
    }

    /// The extent rounded **down** to a multiple of the tile in each dimension (C++ AMP's
    /// `tiled_extent::truncate`): the elements past the last whole tile are not visited. A
    /// dimension smaller than its tile becomes 0, and a launch over it runs nothing.
    pub fn truncate(self) -> Self {
        let mut dims = self.dims;
        for (d, &t) in dims.iter_mut().zip(&Self::TILE) {
            *d = *d / t * t;
        }
        TiledExtent { dims }
    }
}

impl<const T0: usize, const T1: usize, const T2: usize> fmt::Debug for TiledExtent<T0, T1, T2> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TiledExtent")
            .field("extent", &self.extent())
            .field("tile", &self.tile_extent())
            .finish()
    }
}

/// `[100, 60] tiled [16, 16]`.
impl<const T0: usize, const T1: usize, const T2: usize> fmt::Display for TiledExtent<T0, T1, T2> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims(f, self.extent())?;
        f.write_str(" tiled ")?;
        write_dims(f, self.tile_extent())
    }
}

impl Extent<1> {
    /// This extent cut into tiles of `T0` threads (C++ AMP's `extent<1>::tile<T0>()`).
    /// `T0` must be between 1 and 1024 (a compile error otherwise).
    ///
    /// ```
    /// let t = amp_runtime::Extent::new([1000]).tile::<250>();
    /// assert_eq!(t.num_tiles(), 4);
    /// ```
    pub fn tile<const T0: usize>(self) -> TiledExtent<T0> {
        const {
            assert!(T0 > 0, "a tile dimension must be at least 1");
            assert!(
                T0 <= MAX_TILE_THREADS,
                "a tile may have at most 1024 threads (T0)"
            );
        }
        TiledExtent::from_dims(self.as_slice())
    }
}

impl Extent<2> {
    /// This extent cut into tiles of `T0 x T1` threads (C++ AMP's
    /// `extent<2>::tile<T0, T1>()`). Each dimension must be at least 1 and the tile at most
    /// 1024 threads (a compile error otherwise).
    pub fn tile<const T0: usize, const T1: usize>(self) -> TiledExtent<T0, T1> {
        const {
            assert!(T0 > 0 && T1 > 0, "a tile dimension must be at least 1");
            assert!(
                T0 <= MAX_TILE_THREADS && T1 <= MAX_TILE_THREADS && T0 * T1 <= MAX_TILE_THREADS,
                "a tile may have at most 1024 threads (T0 * T1)"
            );
        }
        TiledExtent::from_dims(self.as_slice())
    }
}

impl Extent<3> {
    /// This extent cut into tiles of `T0 x T1 x T2` threads (C++ AMP's
    /// `extent<3>::tile<T0, T1, T2>()`). Each dimension must be at least 1 and the tile at most
    /// 1024 threads (a compile error otherwise).
    pub fn tile<const T0: usize, const T1: usize, const T2: usize>(
        self,
    ) -> TiledExtent<T0, T1, T2> {
        const {
            assert!(
                T0 > 0 && T1 > 0 && T2 > 0,
                "a tile dimension must be at least 1"
            );
            assert!(
                T0 <= MAX_TILE_THREADS
                    && T1 <= MAX_TILE_THREADS
                    && T2 <= MAX_TILE_THREADS
                    && T0 * T1 * T2 <= MAX_TILE_THREADS,
                "a tile may have at most 1024 threads (T0 * T1 * T2)"
            );
        }
        TiledExtent::from_dims(self.as_slice())
    }
}

/// The index of a thread of a tiled kernel (C++ AMP's `tiled_index`): the first parameter of a
/// tiled `#[kernel(amp)]` function, whose tile shape must match the launch domain's.
///
/// ```ignore
/// #[kernel(amp)]
/// fn tile_sums(t: TiledIndex<64>, a: ArrayView<f32, 1>, sums: ArrayViewMut<f32, 1>) {
///     #[tile_static] let mut part: [f32; 64];
///     part[t.local[0]] = a[t.global];
///     t.barrier.wait();
///     if t.local[0] == 0 { /* sum `part` into sums[t.tile[0]] */ }
/// }
/// parallel_for_each(a.extent().tile::<64>(), tile_sums(&a, &mut sums))?;
/// ```
///
/// Inside a kernel of rank `R` each position is an `Index<R>`: the fields a kernel reads are
/// `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent` (an `Extent<R>`) and
/// `t.barrier` ([`TileBarrier`]). They are related as in C++ AMP, per dimension `d`:
///
/// - `local[d] = global[d] % tile_extent[d]` (position within the tile),
/// - `tile[d] = global[d] / tile_extent[d]` (which tile),
/// - `tile_origin[d] = global[d] - local[d] = tile[d] * tile_extent[d]` (the tile's first thread).
///
/// This host-side type exists for the kernel signature and the documentation: kernels are
/// compiled from their source by `#[kernel(amp)]`, and no `TiledIndex` value ever reaches the
/// device. On the host its positions are stored with three dimensions, the ones past the rank
/// being 0 (and 1 in `tile_extent`); [`TiledIndex::new`] computes them for a global position, for
/// reference implementations on the CPU:
///
/// ```
/// use amp_runtime::TiledIndex;
/// let t = TiledIndex::<4, 8>::new(&[9, 19]);
/// assert_eq!(&t.local.as_array()[..2], &[1, 3]);
/// assert_eq!(&t.tile.as_array()[..2], &[2, 2]);
/// assert_eq!(&t.tile_origin.as_array()[..2], &[8, 16]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TiledIndex<const T0: usize, const T1: usize = 0, const T2: usize = 0> {
    /// The thread's position in the whole domain.
    pub global: Index<3>,
    /// The thread's position within its tile: `global % tile_extent`.
    pub local: Index<3>,
    /// The tile's position in the grid of tiles: `global / tile_extent`.
    pub tile: Index<3>,
    /// The tile's first position in the domain: `global - local`.
    pub tile_origin: Index<3>,
    /// The tile's shape: `[T0, T1, T2]` (1 past the rank).
    pub tile_extent: Extent<3>,
    /// The tile's barrier.
    pub barrier: TileBarrier,
}

impl<const T0: usize, const T1: usize, const T2: usize> TiledIndex<T0, T1, T2> {
    /// The rank: the number of nonzero tile dimensions.
    pub const RANK: usize = TiledExtent::<T0, T1, T2>::RANK;

    /// The tiled index of the thread at `global` (one coordinate per dimension, at most three;
    /// missing ones are 0). Tile dimensions of 0 count as 1.
    pub fn new(global: &[usize]) -> Self {
        let tile = TiledExtent::<T0, T1, T2>::TILE.map(|t| t.max(1));
        let mut g = [0usize; 3];
        for (dst, &src) in g.iter_mut().zip(global) {
            *dst = src;
        }
        let local = [g[0] % tile[0], g[1] % tile[1], g[2] % tile[2]];
        let which = [g[0] / tile[0], g[1] / tile[1], g[2] / tile[2]];
        TiledIndex {
            global: Index::new(g),
            local: Index::new(local),
            tile: Index::new(which),
            tile_origin: Index::new([g[0] - local[0], g[1] - local[1], g[2] - local[2]]),
            tile_extent: Extent::new(tile),
            barrier: TileBarrier,
        }
    }

    /// The thread's subgroup: `let sg = t.subgroup();`, then `sg.add(x)`,
    /// `sg.shuffle_xor(x, 1)`, ... (see [`Subgroup`](crate::Subgroup)).
    pub fn subgroup(&self) -> crate::Subgroup {
        crate::Subgroup
    }
}

/// The barrier of a tile (C++ AMP's `tile_barrier`), reached in a kernel as `t.barrier`.
///
/// Every thread of a tile must reach the same barrier calls (a barrier inside a branch that
/// only some threads take is a compile error). The methods exist on the host for the kernel
/// signature and the documentation only: they are never executed on the host, and do nothing
/// there. On the device each is a workgroup-scope control barrier with the memory fence its name
/// says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TileBarrier;

impl TileBarrier {
    /// Waits until every thread of the tile has arrived, and makes both global (view and
    /// array) and `tile_static` memory written before it visible to the tile's threads
    /// (C++ AMP's `wait`, which is `wait_with_all_memory_fence`).
    pub fn wait(&self) {}

    /// Waits for the tile's threads, with a fence on global memory only (views and arrays).
    pub fn wait_with_global_memory_fence(&self) {}

    /// Waits for the tile's threads, with a fence on `tile_static` memory only.
    pub fn wait_with_tile_static_memory_fence(&self) {}

    /// Waits for the tile's threads, with a fence on global and `tile_static` memory.
    pub fn wait_with_all_memory_fence(&self) {}
}
