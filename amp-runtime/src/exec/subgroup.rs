//! The host side of `t.subgroup()`: the type kernels name and its documentation.

use crate::short_vector::UInt4;

/// The subgroup of a tile's thread (Vulkan's subgroup, CUDA's warp, a wave elsewhere),
/// reached in a kernel as `t.subgroup()`, usually bound once with `let sg = t.subgroup();`.
///
/// A tile's threads are cut into subgroups of [`size`](Self::size) lanes that run together;
/// the operations below move and combine values between the lanes of one subgroup without
/// `tile_static` memory or a barrier. The size is the device's: 32 on NVIDIA GPUs and on the
/// native CPU accelerator, 64 on many AMD GPUs, 8 on lavapipe
/// ([`Limits::subgroup_size`](crate::Limits::subgroup_size)); portable kernels ask
/// `sg.size()`.
///
/// Rules (docs/kernel-language.md, "Subgroups"):
///
/// - every operation except `size`, `lane`, `index` and `count` combines the lanes' values,
///   so every thread of the tile must reach it, as a barrier (rule `subgroup-uniformity`);
/// - lane operands and masks are taken modulo `size()`; a lane past the end of a partial last
///   subgroup (a tile whose thread count is not a multiple of the size) reads an unspecified
///   value on a GPU and the type's zero on the native accelerator;
/// - integer arithmetic wraps; float `min`/`max` pass over NaN (`f32::min`) from the identity
///   `+inf`/`-inf`; float `add` combines in an order of the device's, so its rounding may
///   differ between devices (lane order on the native accelerator).
///
/// Which threads share a subgroup is the device's choice (consecutive local indices on NVIDIA);
/// the native accelerator takes the tile's threads in row-major order, 32 at a time. Kernels
/// should use `lane()` and `index()`, not assume the mapping, and give the tile's last
/// dimension a multiple of the subgroup size (lavapipe cuts each row of the last dimension into
/// subgroups of its own, where its `index()` no longer tells them apart).
///
/// On the host (where kernels never run, and reference implementations may call these) a
/// thread is a subgroup of one lane: the values below are that subgroup's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Subgroup;

/// The values subgroup arithmetic works on: `i32`, `u32`, `f32`, `f64`.
pub trait SubgroupNumber: Copy {
    /// The identities of add, min and max.
    #[doc(hidden)]
    const IDENTITIES: [Self; 3];
}

macro_rules! subgroup_number {
    ($($t:ty: $min:expr, $max:expr;)+) => {$(
        impl SubgroupNumber for $t {
            const IDENTITIES: [Self; 3] = [0 as $t, $min, $max];
        }
    )+};
}

subgroup_number! {
    i32: i32::MAX, i32::MIN;
    u32: u32::MAX, u32::MIN;
    f32: f32::INFINITY, f32::NEG_INFINITY;
    f64: f64::INFINITY, f64::NEG_INFINITY;
}

impl Subgroup {
    /// Lanes per subgroup on this device (a power of two).
    pub fn size(&self) -> u32 {
        1
    }

    /// This thread's lane in its subgroup, `0..size()`.
    pub fn lane(&self) -> u32 {
        0
    }

    /// Which of the tile's subgroups this thread is in, `0..count()`.
    pub fn index(&self) -> u32 {
        0
    }

    /// How many subgroups the tile has.
    pub fn count(&self) -> u32 {
        1
    }

    /// `true` in exactly one lane of the subgroup: the lowest.
    pub fn elect(&self) -> bool {
        true
    }

    /// Whether `b` holds in every lane.
    pub fn all(&self, b: bool) -> bool {
        b
    }

    /// Whether `b` holds in some lane.
    pub fn any(&self, b: bool) -> bool {
        b
    }

    /// The lanes where `b` holds, as bits: lane `i` is bit `i % 32` of component `i / 32`.
    pub fn ballot(&self, b: bool) -> UInt4 {
        UInt4::new(u32::from(b), 0, 0, 0)
    }

    /// How many lanes have `b`.
    pub fn count_true(&self, b: bool) -> u32 {
        u32::from(b)
    }

    /// How many lanes below this one have `b` (a compaction's output slot).
    pub fn exclusive_count_true(&self, _b: bool) -> u32 {
        0
    }

    /// `v` of lane `lane % size()`, the same in every lane.
    pub fn broadcast<T: Copy>(&self, v: T, _lane: u32) -> T {
        v
    }

    /// `v` of the lowest lane.
    pub fn broadcast_first<T: Copy>(&self, v: T) -> T {
        v
    }

    /// `v` of lane `lane % size()`, each thread naming its own lane.
    pub fn shuffle<T: Copy>(&self, v: T, _lane: u32) -> T {
        v
    }

    /// `v` of lane `lane() ^ (mask % size())`: the butterfly of tree reductions.
    pub fn shuffle_xor<T: Copy>(&self, v: T, _mask: u32) -> T {
        v
    }

    /// The sum of every lane's `v` (wrapping for integers).
    pub fn add<T: SubgroupNumber>(&self, v: T) -> T {
        v
    }

    /// The smallest `v` of the subgroup.
    pub fn min<T: SubgroupNumber>(&self, v: T) -> T {
        v
    }

    /// The largest `v` of the subgroup.
    pub fn max<T: SubgroupNumber>(&self, v: T) -> T {
        v
    }

    /// `v` of every lane combined with `&` (`i32`, `u32`, `bool`).
    pub fn and<T: Copy>(&self, v: T) -> T {
        v
    }

    /// `v` of every lane combined with `|`.
    pub fn or<T: Copy>(&self, v: T) -> T {
        v
    }

    /// `v` of every lane combined with `^`.
    pub fn xor<T: Copy>(&self, v: T) -> T {
        v
    }

    /// The sum of `v` over the lanes up to and including this one.
    pub fn inclusive_add<T: SubgroupNumber>(&self, v: T) -> T {
        v
    }

    /// The sum of `v` over the lanes below this one (`0` in lane 0).
    pub fn exclusive_add<T: SubgroupNumber>(&self, _v: T) -> T {
        T::IDENTITIES[0]
    }

    /// The smallest `v` of the lanes up to and including this one.
    pub fn inclusive_min<T: SubgroupNumber>(&self, v: T) -> T {
        v
    }

    /// The smallest `v` of the lanes below this one (`MAX` or `+inf` in lane 0).
    pub fn exclusive_min<T: SubgroupNumber>(&self, _v: T) -> T {
        T::IDENTITIES[1]
    }

    /// The largest `v` of the lanes up to and including this one.
    pub fn inclusive_max<T: SubgroupNumber>(&self, v: T) -> T {
        v
    }

    /// The largest `v` of the lanes below this one (`MIN` or `-inf` in lane 0).
    pub fn exclusive_max<T: SubgroupNumber>(&self, _v: T) -> T {
        T::IDENTITIES[2]
    }
}
