//! Textures and samplers of the native thread ABI: [`Tex`] (a texture view's texels in host
//! memory, in the texture's own format), [`Smp`] (a sampler), the per-component conversions
//! between a format and the host's 4-byte components ([`decode`], [`encode`], shared with the
//! runtime's `from_slice` / `to_vec`), and texel fetches, stores, samples and gathers with the
//! Vulkan semantics the SPIR-V back end gets from the device.
//!
//! Texels are stored row-major (dimension 0 slowest, the last dimension `x` fastest), tightly
//! packed: `components * bits / 8` bytes each, components little-endian, exactly the layout of
//! a Vulkan buffer-image copy, so a texture's bytes move between the host and a device image
//! unchanged.

// Loops over dimensions index several per-dimension arrays at once.
#![allow(clippy::needless_range_loop)]

use crate::report::OobReport;

/// How a texture stores its components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexKind {
    /// Floats: 16 (IEEE half) or 32 bits; read as `f32`.
    Float,
    /// Signed integers: 8, 16 or 32 bits; read as `i32`.
    Sint,
    /// Unsigned integers: 8, 16 or 32 bits; read as `u32`.
    Uint,
    /// Unsigned normalized: `[0, 1]` in 8 or 16 bits; read as `f32`.
    Unorm,
    /// Signed normalized: `[-1, 1]` in 8 or 16 bits; read as `f32`.
    Norm,
}

/// An `f32` rounded to the nearest IEEE half (ties to even), as its bits: overflow gives an
/// infinity, NaN stays a (quiet) NaN, results below the smallest normal are denormals.
#[inline]
pub fn f32_to_f16(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

/// The `f32` of IEEE half bits `h` (exact).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// `1 / (2^b - 1)` rounded to an `f32` (from its `f64`) for `b` = 7, 8, 15, 16: the factor
/// normalized components are read with. Vulkan drivers multiply (`c * (1 / 255)`) rather than
/// divide, and so do we, so texel reads agree bit for bit (the product can be an ulp away from
/// the quotient `c / 255`). Constants, because a texel read is in the inner loop of a sampling
/// kernel (a division per component cost a linear sample more than the rest of it).
#[inline(always)]
fn recip(b: u32) -> f32 {
    const R7: f32 = (1.0 / 127.0f64) as f32;
    const R8: f32 = (1.0 / 255.0f64) as f32;
    const R15: f32 = (1.0 / 32767.0f64) as f32;
    const R16: f32 = (1.0 / 65535.0f64) as f32;
    match b {
        7 => R7,
        8 => R8,
        15 => R15,
        16 => R16,
        _ => (1.0 / ((1u64 << b) - 1) as f64) as f32,
    }
}

/// The host word (an `f32`'s, `i32`'s or `u32`'s bits) of one stored component of `kind`, `bits`
/// wide, from its little-endian bytes (`bits / 8` of them): integers are extended, normalized
/// values are `c * (1 / (2^b - 1))` (`Unorm`) or `max(c * (1 / (2^(b-1) - 1)), -1)` (`Norm`)
/// in `f32`, halves are widened exactly.
#[inline]
pub fn decode(kind: TexKind, bits: u32, bytes: &[u8]) -> u32 {
    let step = bits as usize / 8;
    let mut raw = [0u8; 4];
    raw[..step].copy_from_slice(&bytes[..step]);
    decode_raw(kind, bits, u32::from_le_bytes(raw))
}

/// [`decode`] of a component already read: its `bits` low bits in `unsigned`.
#[inline(always)]
fn decode_raw(kind: TexKind, bits: u32, unsigned: u32) -> u32 {
    if bits == 32 {
        return unsigned;
    }
    let signed = ((unsigned << (32 - bits)) as i32) >> (32 - bits);
    match kind {
        TexKind::Float => f16_to_f32(unsigned as u16).to_bits(),
        TexKind::Sint => signed as u32,
        TexKind::Uint => unsigned,
        TexKind::Unorm => (unsigned as f32 * recip(bits)).to_bits(),
        TexKind::Norm => (signed as f32 * recip(bits - 1)).max(-1.0).to_bits(),
    }
}

/// Stores host word `w` as one component of `kind`, `bits` wide, into `out` (`bits / 8` bytes,
/// little-endian): integers saturate, normalized values are clamped (NaN to 0) and rounded to
/// the nearest step (ties to even, as Vulkan drivers round), floats to 16 bits round to nearest
/// even.
#[inline]
pub fn encode(kind: TexKind, bits: u32, w: u32, out: &mut [u8]) {
    let step = bits as usize / 8;
    let v: u64 = match (kind, bits) {
        (_, 32) => u64::from(w),
        (TexKind::Float, _) => u64::from(f32_to_f16(f32::from_bits(w))),
        (TexKind::Sint, b) => i64::from(w as i32).clamp(-(1 << (b - 1)), (1 << (b - 1)) - 1) as u64,
        (TexKind::Uint, b) => u64::from(w).min((1 << b) - 1),
        (TexKind::Unorm, b) => {
            let max = ((1u64 << b) - 1) as f32;
            let x = f32::from_bits(w);
            let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            crate::m32::round_ties_even(x * max) as u64
        }
        (TexKind::Norm, b) => {
            let max = ((1u64 << (b - 1)) - 1) as f32;
            let x = f32::from_bits(w);
            let x = if x.is_nan() { 0.0 } else { x.clamp(-1.0, 1.0) };
            crate::m32::round_ties_even(x * max) as i64 as u64
        }
    };
    out[..step].copy_from_slice(&v.to_le_bytes()[..step]);
}

/// A component type texels are read and written as: `f32` (float and normalized textures),
/// `i32` or `u32` (integer textures), through its bits.
pub trait Comp: Copy {
    /// From a host word.
    fn from_word(w: u32) -> Self;
    /// To a host word.
    fn to_word(self) -> u32;
}

impl Comp for f32 {
    #[inline(always)]
    fn from_word(w: u32) -> Self {
        f32::from_bits(w)
    }
    #[inline(always)]
    fn to_word(self) -> u32 {
        self.to_bits()
    }
}

impl Comp for i32 {
    #[inline(always)]
    fn from_word(w: u32) -> Self {
        w as i32
    }
    #[inline(always)]
    fn to_word(self) -> u32 {
        self as u32
    }
}

impl Comp for u32 {
    #[inline(always)]
    fn from_word(w: u32) -> Self {
        w
    }
    #[inline(always)]
    fn to_word(self) -> u32 {
        self
    }
}

/// A sampler's address mode (Vulkan's names in the comments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// `REPEAT`: the texel index modulo the size.
    Wrap,
    /// `MIRRORED_REPEAT`: every other repetition mirrored.
    Mirror,
    /// `CLAMP_TO_EDGE`: the nearest edge texel.
    Clamp,
    /// `CLAMP_TO_BORDER`: transparent black (every component 0) outside.
    Border,
}

/// A sampler of the native thread ABI: linear or nearest filtering, one address mode for
/// every dimension, normalized coordinates, level 0 only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Smp {
    /// Linear (`true`) or nearest filtering.
    pub linear: bool,
    /// The address mode.
    pub address: Address,
}

impl Address {
    /// Texel index `i` of a dimension of `size` texels after the address mode; `None` for a
    /// border texel.
    #[inline]
    pub fn wrap(self, i: i64, size: u32) -> Option<u32> {
        let n = i64::from(size);
        let j = match self {
            Address::Wrap => i.rem_euclid(n),
            Address::Mirror => {
                let t = i.rem_euclid(2 * n) - n;
                let m = if t >= 0 { t } else { -(1 + t) };
                (n - 1) - m
            }
            Address::Clamp => i.clamp(0, n - 1),
            Address::Border if (0..n).contains(&i) => i,
            Address::Border => return None,
        };
        Some(j as u32)
    }
}

/// A texture view of the native thread ABI: the texels' memory and the texture's format.
///
/// The runtime builds it from a texture it holds for the whole launch: `ptr` points at
/// `extent`'s product of texels of `comps * bits / 8` bytes each, row-major and tightly
/// packed; the texture is read-only or written only through this view during the launch.
#[derive(Clone, Copy, Debug)]
pub struct Tex<const R: usize> {
    /// The first texel's first byte.
    pub ptr: *mut u8,
    /// Texels per dimension, dimension 0 slowest.
    pub extent: [u32; R],
    /// How the components are stored.
    pub kind: TexKind,
    /// Bits per component: 8, 16 or 32.
    pub bits: u32,
    /// Components per texel: 1, 2 or 4.
    pub comps: u32,
}

// SAFETY: a `Tex` is an address and a layout; the threads of a launch share it as they share
// the texture on a device (see the crate's docs for who keeps the accesses apart).
unsafe impl<const R: usize> Send for Tex<R> {}
// SAFETY: as above.
unsafe impl<const R: usize> Sync for Tex<R> {}

impl<const R: usize> Tex<R> {
    /// Whether every component of `i` is below the extent.
    #[inline(always)]
    pub fn inside(&self, i: [u32; R]) -> bool {
        i.iter().zip(&self.extent).all(|(i, e)| i < e)
    }

    /// The first byte of texel `i` (computed with `wrapping_add`; dereferenced only inside).
    #[inline(always)]
    fn at(&self, i: [u32; R]) -> *mut u8 {
        let mut linear = 0usize;
        for d in 0..R {
            linear = linear * self.extent[d] as usize + i[d] as usize;
        }
        let texel = (self.comps * self.bits / 8) as usize;
        self.ptr.wrapping_add(linear * texel)
    }

    /// Texel `i` as four host words: its components, then `0` for a missing green or blue and
    /// one (`1.0` or `1`) for a missing alpha, as Vulkan expands a format to four components.
    ///
    /// # Safety
    /// `i` is inside the extent and the view's memory holds the texel (the type's contract).
    #[inline(always)]
    pub unsafe fn fetch_words(&self, i: [u32; R]) -> [u32; 4] {
        let p = self.at(i);
        if self.bits == 8 && self.comps == 4 && self.kind == TexKind::Unorm {
            // RGBA8, the format of most images: one load, four products (the general path
            // below computes the same words component by component).
            // SAFETY: the texel's four bytes lie inside the view's memory (contract).
            let w = u32::from_le(unsafe { p.cast::<u32>().read_unaligned() });
            let r = recip(8);
            return [0, 8, 16, 24].map(|shift| (((w >> shift) & 0xff) as f32 * r).to_bits());
        }
        let one = match self.kind {
            TexKind::Float | TexKind::Unorm | TexKind::Norm => 1.0f32.to_bits(),
            TexKind::Sint | TexKind::Uint => 1,
        };
        let mut out = [0, 0, 0, one];
        for (c, o) in out.iter_mut().enumerate().take(self.comps as usize) {
            // SAFETY: component `c` of texel `i` lies inside the view's memory (contract); the
            // reads are unaligned-safe, and little-endian as the texels are stored.
            let raw = unsafe {
                match self.bits {
                    8 => u32::from(*p.add(c)),
                    16 => u32::from(u16::from_le(p.add(2 * c).cast::<u16>().read_unaligned())),
                    _ => u32::from_le(p.add(4 * c).cast::<u32>().read_unaligned()),
                }
            };
            *o = decode_raw(self.kind, self.bits, raw);
        }
        out
    }

    /// Stores the first `comps` of four host words as texel `i`, byte by byte with relaxed
    /// atomic stores: threads of a launch may write one texel (a texture written in a launch
    /// is only written in it, never read, so every access of its texels is such a store), and
    /// the last store wins per byte, as on a device, without a data race.
    ///
    /// # Safety
    /// `i` is inside the extent and the view's memory holds the texel; during the launch every
    /// access of the texture's memory is a store through this function.
    #[inline]
    pub unsafe fn store_words(&self, i: [u32; R], v: [u32; 4]) {
        let step = (self.bits / 8) as usize;
        let p = self.at(i);
        let mut bytes = [0u8; 4];
        for (c, &w) in v.iter().enumerate().take(self.comps as usize) {
            encode(self.kind, self.bits, w, &mut bytes);
            for (k, &b) in bytes.iter().enumerate().take(step) {
                // SAFETY: byte `k` of component `c` of texel `i` lies inside the view's memory
                // (contract), which every thread accesses only through these atomic stores.
                let a = unsafe { std::sync::atomic::AtomicU8::from_ptr(p.add(c * step + k)) };
                a.store(b, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// `tex[i]` in a checked kernel: the texel's four components (see
    /// [`fetch_words`](Self::fetch_words)), or zeros for an index outside, recorded in `oob`
    /// as parameter `param`.
    ///
    /// # Safety
    /// The view's memory holds every texel of its extent (the type's contract).
    #[inline]
    pub unsafe fn load<C: Comp>(&self, i: [u32; R], param: u32, oob: &OobReport) -> [C; 4] {
        if self.inside(i) {
            // SAFETY: `i` is inside; the memory holds it (contract).
            unsafe { self.load_unchecked(i) }
        } else {
            oob.record(param, i, self.extent);
            [C::from_word(0); 4]
        }
    }

    /// `tex[i]` in an unchecked kernel.
    ///
    /// # Safety
    /// `i` is inside the extent and the view's memory holds the texel.
    #[inline]
    pub unsafe fn load_unchecked<C: Comp>(&self, i: [u32; R]) -> [C; 4] {
        // SAFETY: the caller's contract is `fetch_words`'s.
        unsafe { self.fetch_words(i) }.map(C::from_word)
    }

    /// `tex.set(i, v)` in a checked kernel (`v` widened to four components; the format keeps
    /// the ones it has): skipped for an index outside, recorded in `oob` as parameter `param`.
    ///
    /// # Safety
    /// The view's memory holds every texel of its extent, and no other thread accesses texel
    /// `i` during the store.
    #[inline]
    pub unsafe fn store<C: Comp>(&self, i: [u32; R], v: [C; 4], param: u32, oob: &OobReport) {
        if self.inside(i) {
            // SAFETY: `i` is inside; the rest is the caller's contract.
            unsafe { self.store_unchecked(i, v) }
        } else {
            oob.record(param, i, self.extent);
        }
    }

    /// `tex.set(i, v)` in an unchecked kernel.
    ///
    /// # Safety
    /// As [`store_words`](Self::store_words).
    #[inline]
    pub unsafe fn store_unchecked<C: Comp>(&self, i: [u32; R], v: [C; 4]) {
        // SAFETY: the caller's contract is `store_words`'s.
        unsafe { self.store_words(i, v.map(C::to_word)) }
    }

    /// Texel `(i0, i1, ..)` (one signed index per dimension, before the address mode) as four
    /// `f32`s, or transparent black for a border texel.
    ///
    /// # Safety
    /// The view's memory holds every texel of its extent, and the texture is not written
    /// during the launch.
    #[inline(always)]
    unsafe fn texel_at<C: Comp>(&self, s: Smp, i: [i64; R]) -> [C; 4] {
        let mut j = [0u32; R];
        for d in 0..R {
            match s.address.wrap(i[d], self.extent[d]) {
                Some(x) => j[d] = x,
                None => return [C::from_word(0); 4],
            }
        }
        // SAFETY: `wrap` gives indices inside the extent; the rest is the caller's contract.
        unsafe { self.load_unchecked(j) }
    }

    /// `tex.sample(&s, coord)`: `coord` is normalized, `coord[0]` (`x`) along the last
    /// dimension. As Vulkan at level 0: the unnormalized coordinate is `u = x * width`; nearest
    /// filtering reads texel `floor(u)`, linear filtering weighs texels `floor(u - 0.5)` and the
    /// next by the fraction of `u - 0.5` (in `f32`, without the device's quantization of the
    /// weights); the address mode maps each texel index (a border texel is transparent black).
    /// Components the format lacks read as 0 (alpha 1).
    ///
    /// # Safety
    /// The view's memory holds every texel of its extent, its extent has no zero, and the
    /// texture is not written during the launch.
    #[inline(always)]
    pub unsafe fn sample(&self, s: Smp, coord: [f32; R]) -> [f32; 4] {
        // Dimension d of the extent takes coordinate component R - 1 - d.
        let mut u = [0f32; R];
        for d in 0..R {
            u[d] = coord[R - 1 - d] * self.extent[d] as f32;
        }
        if !s.linear {
            let i = u.map(|x| crate::m32::floor(x) as i64);
            // SAFETY: the caller's contract.
            return unsafe { self.texel_at(s, i) };
        }
        let mut base = [0i64; R];
        let mut frac = [0f32; R];
        for d in 0..R {
            let x = u[d] - 0.5;
            let f = crate::m32::floor(x);
            base[d] = f as i64;
            frac[d] = x - f;
        }
        if R == 2 {
            // The common case, straight-line: each axis's two indices mapped once, four
            // texels, the same weights and sums in the same order as the general loop below.
            let (ys, xs) = (
                [
                    s.address.wrap(base[0], self.extent[0]),
                    s.address.wrap(base[0].wrapping_add(1), self.extent[0]),
                ],
                [
                    s.address.wrap(base[1], self.extent[1]),
                    s.address.wrap(base[1].wrapping_add(1), self.extent[1]),
                ],
            );
            let (wy, wx) = ([1.0 - frac[0], frac[0]], [1.0 - frac[1], frac[1]]);
            // A texel of weight 0 adds a zero: `sum` starts at +0.0 and so is never -0.0,
            // and `sum + ±0.0 == sum`. Skipping it changes nothing for finite texels (all but
            // float formats' infinities and NaNs, whose product with 0 is NaN), and a sample
            // at a texel's centre, as a blur takes them, reads one texel instead of four.
            let finite = self.kind != TexKind::Float;
            let mut sum = [0f32; 4];
            for (cy, y) in ys.iter().enumerate() {
                if finite && wy[cy] == 0.0 {
                    continue;
                }
                for (cx, x) in xs.iter().enumerate() {
                    if finite && wx[cx] == 0.0 {
                        continue;
                    }
                    let t: [f32; 4] = match (y, x) {
                        (Some(y), Some(x)) => {
                            let mut j = [0u32; R];
                            (j[0], j[1]) = (*y, *x);
                            // SAFETY: `wrap` gives indices inside the extent; the rest is the
                            // caller's contract.
                            unsafe { self.load_unchecked(j) }
                        }
                        _ => [0.0; 4],
                    };
                    let w = wy[cy] * wx[cx];
                    for c in 0..4 {
                        sum[c] += w * t[c];
                    }
                }
            }
            return sum;
        }
        // SAFETY: the caller's contract.
        unsafe { self.linear_corners(s, base, frac) }
    }

    /// A linear sample's weighted sum over the `2^R` texels from `base` (the texel below the
    /// coordinate in each dimension) with the coordinate's fractions `frac`: the general form,
    /// corner by corner.
    ///
    /// # Safety
    /// As [`sample`](Self::sample).
    #[inline(always)]
    unsafe fn linear_corners(&self, s: Smp, base: [i64; R], frac: [f32; R]) -> [f32; 4] {
        let mut sum = [0f32; 4];
        for corner in 0..(1u32 << R) {
            let mut i = base;
            let mut w = 1.0f32;
            for d in 0..R {
                if (corner >> (R - 1 - d)) & 1 == 1 {
                    i[d] = i[d].wrapping_add(1);
                    w *= frac[d];
                } else {
                    w *= 1.0 - frac[d];
                }
            }
            // SAFETY: the caller's contract.
            let t: [f32; 4] = unsafe { self.texel_at(s, i) };
            for c in 0..4 {
                sum[c] += w * t[c];
            }
        }
        sum
    }
}

impl Tex<2> {
    /// `tex.gather_red(&s, coord)` .. `gather_alpha` (`component` 0 .. 3): that component of
    /// the four texels a linear sample at `coord` weighs, in Vulkan's order `(x0, y1), (x1, y1),
    /// (x1, y0), (x0, y0)`, after the address mode (border texels give 0).
    ///
    /// # Safety
    /// As [`sample`](Self::sample).
    #[inline]
    pub unsafe fn gather<C: Comp>(&self, s: Smp, coord: [f32; 2], component: usize) -> [C; 4] {
        let x = coord[0] * self.extent[1] as f32 - 0.5;
        let y = coord[1] * self.extent[0] as f32 - 0.5;
        let (x0, y0) = (crate::m32::floor(x) as i64, crate::m32::floor(y) as i64);
        let (x1, y1) = (x0.wrapping_add(1), y0.wrapping_add(1));
        let at = |y: i64, x: i64| -> C {
            // SAFETY: the caller's contract.
            let t: [C; 4] = unsafe { self.texel_at(s, [y, x]) };
            t[component]
        };
        [at(y1, x0), at(y1, x1), at(y0, x1), at(y0, x0)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_round_trip_and_saturate() {
        let mut b = [0u8; 4];
        encode(TexKind::Unorm, 8, 0.5f32.to_bits(), &mut b);
        assert_eq!(b[0], 128);
        assert_eq!(
            f32::from_bits(decode(TexKind::Unorm, 8, &b)),
            128.0 * (1.0 / 255.0)
        );
        encode(TexKind::Norm, 8, (-2.0f32).to_bits(), &mut b);
        assert_eq!(b[0] as i8, -127);
        assert_eq!(f32::from_bits(decode(TexKind::Norm, 8, &[0x80])), -1.0);
        encode(TexKind::Sint, 16, (-70000i32) as u32, &mut b);
        assert_eq!(i16::from_le_bytes([b[0], b[1]]), i16::MIN);
        encode(TexKind::Uint, 8, 300, &mut b);
        assert_eq!(b[0], 255);
        encode(TexKind::Unorm, 16, f32::NAN.to_bits(), &mut b);
        assert_eq!(u16::from_le_bytes([b[0], b[1]]), 0);
    }

    #[test]
    fn address_modes_map_indices_as_vulkan() {
        let n = 4;
        let map = |a: Address| (-5..9).map(|i| a.wrap(i, n)).collect::<Vec<_>>();
        let s = |v: &[u32]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        assert_eq!(
            map(Address::Wrap),
            s(&[3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0])
        );
        assert_eq!(
            map(Address::Mirror),
            s(&[3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0])
        );
        assert_eq!(
            map(Address::Clamp),
            s(&[0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3])
        );
        let border = map(Address::Border);
        assert_eq!(border[5..9], s(&[0, 1, 2, 3]));
        assert!(border[..5].iter().chain(&border[9..]).all(Option::is_none));
    }

    /// The straight-line 2-D linear sample gives the general corner loop's sums bit for bit
    /// (texels of weight 0 skipped only where that is exact), for every address mode, at
    /// texel centres, edges and random coordinates, with finite and non-finite texels.
    #[test]
    fn linear_2d_sample_matches_the_general_form() {
        let (h, w) = (5u32, 7u32);
        // A Weyl sequence, its high bits first: varied bytes and coordinates, no RNG needed.
        let mut i = 0u32;
        let mut next = move || {
            i = i.wrapping_add(1);
            i.wrapping_mul(0x9E37_79B9).rotate_left(16)
        };
        for (kind, bits) in [
            (TexKind::Unorm, 8),
            (TexKind::Float, 32),
            (TexKind::Float, 16),
        ] {
            let step = (bits / 8) as usize;
            let mut bytes: Vec<u8> = (0..h * w * 4 * step as u32).map(|_| next() as u8).collect();
            if kind == TexKind::Float && bits == 32 {
                // An infinity and a NaN among the texels.
                bytes[..4].copy_from_slice(&f32::INFINITY.to_le_bytes());
                bytes[20..24].copy_from_slice(&f32::NAN.to_le_bytes());
            }
            let t = texture([h, w], &mut bytes, kind, bits, 4);
            for address in [
                Address::Wrap,
                Address::Mirror,
                Address::Clamp,
                Address::Border,
            ] {
                let s = Smp {
                    linear: true,
                    address,
                };
                for n in 0..2000 {
                    let coord = match n % 3 {
                        // Texel centres, where one texel has all the weight.
                        0 => [
                            ((next() % 9) as f32 - 0.5) / w as f32,
                            ((next() % 7) as f32 - 0.5) / h as f32,
                        ],
                        _ => [
                            (next() % 4000) as f32 / 1000.0 - 1.5,
                            (next() % 4000) as f32 / 1000.0 - 1.5,
                        ],
                    };
                    // SAFETY: `bytes` holds every texel of the extent and is not written.
                    let fast = unsafe { t.sample(s, coord) };
                    let u = [coord[1] * h as f32 - 0.5, coord[0] * w as f32 - 0.5];
                    let base = u.map(|x| x.floor() as i64);
                    let frac = [u[0] - u[0].floor(), u[1] - u[1].floor()];
                    // SAFETY: as above.
                    let general = unsafe { t.linear_corners(s, base, frac) };
                    let same = fast
                        .iter()
                        .zip(&general)
                        .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
                    assert!(
                        same,
                        "{kind:?} {bits} {address:?} {coord:?}: {fast:?} vs {general:?}"
                    );
                }
            }
        }
    }

    fn texture<const R: usize>(
        extent: [u32; R],
        bytes: &mut [u8],
        kind: TexKind,
        bits: u32,
        comps: u32,
    ) -> Tex<R> {
        Tex {
            ptr: bytes.as_mut_ptr(),
            extent,
            kind,
            bits,
            comps,
        }
    }

    #[test]
    fn texels_load_store_and_report_outside() {
        // A 2 x 3 texture of 8-bit Unorm2 texels.
        let mut bytes = vec![0u8; 2 * 3 * 2];
        let t = texture([2, 3], &mut bytes, TexKind::Unorm, 8, 2);
        let oob = OobReport::new();
        // SAFETY: `bytes` holds the 6 texels and outlives `t`; one thread.
        unsafe {
            t.store([1, 2], [1.0f32, 0.5, 7.0, 7.0], 4, &oob);
            assert_eq!(
                t.load::<f32>([1, 2], 4, &oob),
                [1.0, 128.0 * (1.0 / 255.0), 0.0, 1.0]
            );
            assert_eq!(oob.read()[0], 0);
            t.store([2, 0], [1.0f32; 4], 4, &oob);
            assert_eq!(t.load::<f32>([0, 3], 4, &oob), [0.0; 4]);
        }
        assert_eq!(&bytes[10..], &[255, 128]);
        assert_eq!(bytes[..10].iter().filter(|&&b| b != 0).count(), 0);
        assert_eq!(oob.read(), [1, 4, 2, 2, 0, 0, 2, 3, 0]);
    }

    #[test]
    fn linear_samples_weigh_the_neighbouring_texels() {
        // f32 texels 0, 10, 20, 30 in a row.
        let mut bytes: Vec<u8> = [0.0f32, 10.0, 20.0, 30.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t = texture([4], &mut bytes, TexKind::Float, 32, 1);
        let at = |linear, address, u: f32| {
            // SAFETY: `bytes` holds the 4 texels; nobody writes them.
            let v = unsafe { t.sample(Smp { linear, address }, [u]) };
            v[0]
        };
        assert_eq!(at(false, Address::Clamp, 0.3), 10.0);
        assert_eq!(at(true, Address::Clamp, 0.5), 15.0);
        assert_eq!(at(true, Address::Clamp, 0.375), 10.0);
        assert_eq!(at(true, Address::Clamp, 0.0), 0.0);
        assert_eq!(at(true, Address::Wrap, 0.0), 15.0);
        assert_eq!(at(true, Address::Border, 0.0), 0.0);
        assert_eq!(at(true, Address::Border, 1.0), 15.0);
        assert_eq!(at(true, Address::Mirror, 1.0), 30.0);
        assert_eq!(at(false, Address::Mirror, 1.1), 30.0);
        assert_eq!(at(false, Address::Border, -0.1), 0.0);
    }

    #[test]
    fn gathers_follow_vulkans_order() {
        // 2 x 2 u32 texels: [y][x] = 10 * y + x.
        let mut bytes: Vec<u8> = [0u32, 1, 10, 11]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t = texture([2, 2], &mut bytes, TexKind::Uint, 32, 1);
        let s = Smp {
            linear: false,
            address: Address::Clamp,
        };
        // SAFETY: `bytes` holds the 4 texels; nobody writes them.
        let g: [u32; 4] = unsafe { t.gather(s, [0.5, 0.5], 0) };
        assert_eq!(g, [10, 11, 1, 0]);
        // SAFETY: as above.
        let a: [u32; 4] = unsafe { t.gather(s, [0.5, 0.5], 3) };
        assert_eq!(a, [1; 4]);
    }
}
