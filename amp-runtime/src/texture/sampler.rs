//! Samplers: C++ AMP 1.2's `sampler` (a filter and an address mode), built on the host and
//! passed to kernels by value; each device keeps one Vulkan sampler per combination.

use std::collections::HashMap;
use std::sync::Mutex;

use ash::vk;

use crate::device::{Device, DeviceState};
use crate::sync::lock;
use crate::Error;

/// How a sample between texel centres is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// The nearest texel.
    Nearest,
    /// Linear interpolation of the nearest 2 (rank 1), 4 (rank 2) or 8 (rank 3) texels.
    Linear,
}

/// What a coordinate outside `[0, 1]` samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// The texture repeats.
    Wrap,
    /// The texture repeats, every other copy mirrored.
    Mirror,
    /// The nearest edge texel.
    Clamp,
    /// The border colour: transparent black (all components 0), C++ AMP's default.
    Border,
}

/// A texture sampler (C++ AMP's `sampler`): how [`TextureView::sample`] filters and what it
/// does outside the texture. Cheap to copy; pass it to a kernel by value.
///
/// Coordinates are normalized: `0.0` is the left (top, front) edge of the texture and `1.0`
/// the right one, so texel `i` of `n` has its centre at `(i + 0.5) / n`.
///
/// [`TextureView::sample`]: crate::TextureView
///
/// ```
/// use amp_runtime::{AddressMode, Filter, Sampler};
/// let s = Sampler::new(Filter::Linear, AddressMode::Clamp);
/// assert_eq!(s.filter(), Filter::Linear);
/// assert_eq!(s.address_mode(), AddressMode::Clamp);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sampler {
    filter: Filter,
    address_mode: AddressMode,
}

impl Sampler {
    /// A sampler with `filter` and `address_mode` in every dimension.
    pub fn new(filter: Filter, address_mode: AddressMode) -> Sampler {
        Sampler {
            filter,
            address_mode,
        }
    }

    /// The filter.
    pub fn filter(&self) -> Filter {
        self.filter
    }

    /// The address mode.
    pub fn address_mode(&self) -> AddressMode {
        self.address_mode
    }

    /// The native run-time's sampler.
    pub(crate) fn native(&self) -> amp_native_rt::Smp {
        amp_native_rt::Smp {
            linear: self.filter == Filter::Linear,
            address: match self.address_mode {
                AddressMode::Wrap => amp_native_rt::Address::Wrap,
                AddressMode::Mirror => amp_native_rt::Address::Mirror,
                AddressMode::Clamp => amp_native_rt::Address::Clamp,
                AddressMode::Border => amp_native_rt::Address::Border,
            },
        }
    }

    /// The device's Vulkan sampler for this one, created on first use and kept until the
    /// device goes.
    pub(crate) fn vk(&self, device: &Device) -> Result<vk::Sampler, Error> {
        let samplers = device.state::<Samplers>();
        let mut map = lock(&samplers.0);
        if let Some(&s) = map.get(self) {
            return Ok(s);
        }
        let filter = match self.filter {
            Filter::Nearest => vk::Filter::NEAREST,
            Filter::Linear => vk::Filter::LINEAR,
        };
        let mode = match self.address_mode {
            AddressMode::Wrap => vk::SamplerAddressMode::REPEAT,
            AddressMode::Mirror => vk::SamplerAddressMode::MIRRORED_REPEAT,
            AddressMode::Clamp => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::Border => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        };
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(mode)
            .address_mode_v(mode)
            .address_mode_w(mode)
            .min_lod(0.0)
            .max_lod(0.0)
            .border_color(vk::BorderColor::FLOAT_TRANSPARENT_BLACK)
            .unnormalized_coordinates(false);
        // SAFETY: valid create info on a live device.
        let s = unsafe { device.vk().create_sampler(&info, None) }
            .map_err(Error::vk("vkCreateSampler"))?;
        map.insert(*self, s);
        Ok(s)
    }
}

/// A device's Vulkan samplers.
#[derive(Default)]
struct Samplers(Mutex<HashMap<Sampler, vk::Sampler>>);

impl DeviceState for Samplers {
    unsafe fn destroy(&self, device: &Device) {
        for (_, s) in lock(&self.0).drain() {
            // SAFETY: per the trait's contract, no work uses the sampler.
            unsafe { device.vk().destroy_sampler(s, None) };
        }
    }
}
