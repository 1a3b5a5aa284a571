//! The image behind a texture: a Vulkan image in `GENERAL` layout from creation on (so
//! kernels sample it, write it and copies reach it without layout transitions), its memory
//! from gpu-allocator, and one image view; all freed on drop, after the work that uses them.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::device::{Device, Pending, Touches};
use crate::memory::Pooled;
use crate::Error;

/// A texture's image. Shared (`Arc`) by the texture, its views and the batches that use it.
pub(crate) struct Image {
    device: Arc<Device>,
    raw: vk::Image,
    view: vk::ImageView,
    allocation: Option<Allocation>,
    pending: Arc<Pending>,
    /// Width, height, depth (`x` is the last dimension of the extent).
    size: vk::Extent3D,
    /// Bytes of one texel in the image.
    texel_bytes: u32,
    /// The format can be a storage image (written by kernels).
    pub(crate) storage: bool,
    /// The format can be sampled with linear filtering.
    pub(crate) linear: bool,
}

impl Drop for Image {
    fn drop(&mut self) {
        // Batches that use the image hold it; only their bookkeeping can remain.
        let _ = self.pending.wait(&self.device, None, true, false);
        let d = self.device.vk();
        // SAFETY: no device work uses the image any more.
        unsafe {
            d.destroy_image_view(self.view, None);
            d.destroy_image(self.raw, None);
        }
        if let (Some(a), Some(alloc)) = (self.allocation.take(), self.device.allocator().as_mut()) {
            let _ = alloc.free(a);
        }
    }
}

/// Width, height and depth of an image for the extent `dims` (dimension 0 first).
pub(crate) fn image_size(dims: &[usize]) -> vk::Extent3D {
    let mut size = [1u32; 3];
    for (k, &d) in dims.iter().rev().enumerate() {
        size[k] = d as u32;
    }
    vk::Extent3D {
        width: size[0],
        height: size[1],
        depth: size[2],
    }
}

impl Image {
    /// An image of `format` and extent `dims` (rank 1 to 3), its texels zero.
    pub(crate) fn new(
        device: &Arc<Device>,
        format: vk::Format,
        texel_bytes: u32,
        dims: &[usize],
        format_name: &str,
    ) -> Result<Arc<Image>, Error> {
        let features = device.format_features(format);
        let unsupported = |reason: &str| Error::UnsupportedFormat {
            format: format_name.to_owned(),
            device: device.name().to_owned(),
            reason: reason.to_owned(),
        };
        let needed = vk::FormatFeatureFlags::SAMPLED_IMAGE
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST;
        if !features.contains(needed) {
            return Err(unsupported(
                "it cannot be sampled and copied (no SAMPLED_IMAGE, TRANSFER_SRC and TRANSFER_DST features with optimal tiling)",
            ));
        }
        let storage = features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE);
        let linear = features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR);
        let size = image_size(dims);
        let limit = match dims.len() {
            1 => device.limits().max_image_dimension[0],
            2 => device.limits().max_image_dimension[1],
            _ => device.limits().max_image_dimension[2],
        };
        if let Some(&too_big) = dims.iter().find(|&&d| d as u64 > u64::from(limit)) {
            return Err(Error::ExtentTooLarge {
                what: match dims.len() {
                    1 => "a rank-1 texture dimension (maxImageDimension1D)",
                    2 => "a rank-2 texture dimension (maxImageDimension2D)",
                    _ => "a rank-3 texture dimension (maxImageDimension3D)",
                },
                value: too_big as u64,
                limit: u64::from(limit),
            });
        }
        let (image_type, view_type) = match dims.len() {
            1 => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D),
            2 => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D),
            _ => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D),
        };
        let mut usage = vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST;
        if storage {
            usage |= vk::ImageUsageFlags::STORAGE;
        }
        let d = device.vk();
        let info = vk::ImageCreateInfo::default()
            .image_type(image_type)
            .format(format)
            .extent(size)
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info on a live device.
        let raw = unsafe { d.create_image(&info, None) }.map_err(Error::vk("vkCreateImage"))?;
        let mut image = Image {
            device: device.clone(),
            raw,
            view: vk::ImageView::null(),
            allocation: None,
            pending: Arc::default(),
            size,
            texel_bytes,
            storage,
            linear,
        };
        // SAFETY: `raw` is a live image.
        let requirements = unsafe { d.get_image_memory_requirements(raw) };
        let allocation = match device.allocator().as_mut() {
            Some(alloc) => alloc.allocate(&AllocationCreateDesc {
                name: "amp texture",
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })?,
            None => return Err(Error::Allocation("the device is shutting down".into())),
        };
        // SAFETY: the memory handle only binds this image while the allocation lives.
        let (memory, offset) = (unsafe { allocation.memory() }, allocation.offset());
        image.allocation = Some(allocation);
        // SAFETY: memory from the allocator with the image's requirements.
        unsafe { d.bind_image_memory(raw, memory, offset) }
            .map_err(Error::vk("vkBindImageMemory"))?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(view_type)
            .format(format)
            .subresource_range(Self::whole());
        // SAFETY: a view of a live, bound image.
        image.view = unsafe { d.create_image_view(&view_info, None) }
            .map_err(Error::vk("vkCreateImageView"))?;
        let image = Arc::new(image);
        image.clear()?;
        Ok(image)
    }

    /// Records a layout transition of the whole image (with the memory dependency between
    /// compute and transfer work around it).
    fn transition(
        r: &crate::device::Recording<'_>,
        raw: vk::Image,
        from: vk::ImageLayout,
        to: vk::ImageLayout,
    ) {
        let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        // The accesses each layout allows (the best-practices layer checks them).
        let access = |layout| match layout {
            vk::ImageLayout::TRANSFER_DST_OPTIMAL => vk::AccessFlags::TRANSFER_WRITE,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL => vk::AccessFlags::TRANSFER_READ,
            _ => {
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE
            }
        };
        let barrier = vk::ImageMemoryBarrier::default()
            .src_access_mask(access(from))
            .dst_access_mask(access(to))
            .old_layout(from)
            .new_layout(to)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(raw)
            .subresource_range(Self::whole());
        // SAFETY: the image is live and the command buffer is recording.
        unsafe {
            r.vk().cmd_pipeline_barrier(
                r.cmd(),
                stages,
                stages,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            )
        };
    }

    fn whole() -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        }
    }

    /// Moves the new image to `GENERAL` and zeroes it.
    fn clear(self: &Arc<Self>) -> Result<(), Error> {
        let raw = self.raw;
        self.device.submit(
            &[&self.pending],
            Some(self.clone()),
            Touches::Everything,
            |r| {
                let to_general = vk::ImageMemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::empty())
                    .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::GENERAL)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(raw)
                    .subresource_range(Self::whole());
                // SAFETY: the image is live and the command buffer is recording.
                unsafe {
                    r.vk().cmd_pipeline_barrier(
                        r.cmd(),
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &[to_general],
                    );
                    r.vk().cmd_clear_color_image(
                        r.cmd(),
                        raw,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearColorValue::default(),
                        &[Self::whole()],
                    );
                }
                Ok(())
            },
        )
    }

    /// Bytes of the whole image as the host sees them tightly packed.
    pub(crate) fn byte_len(&self) -> u64 {
        u64::from(self.size.width)
            * u64::from(self.size.height)
            * u64::from(self.size.depth)
            * u64::from(self.texel_bytes)
    }

    fn copy_region(&self) -> vk::BufferImageCopy {
        vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            })
            .image_extent(self.size)
    }

    /// A mapped staging buffer of the image's size in `location`, from the device's pool.
    fn staging(&self, location: MemoryLocation) -> Result<Arc<Pooled>, Error> {
        Ok(Arc::new(Pooled::take(
            &self.device,
            self.byte_len(),
            location,
        )?))
    }

    /// Copies tightly packed texels (`byte_len` bytes) into the image.
    pub(crate) fn write(self: &Arc<Self>, bytes: &[u8]) -> Result<(), Error> {
        debug_assert_eq!(bytes.len() as u64, self.byte_len());
        let _span = tracing::info_span!(
            "texture_upload",
            bytes = bytes.len(),
            device = self.device.device_path()
        )
        .entered();
        self.pending.wait(&self.device, None, false, true)?;
        let staging = self.staging(MemoryLocation::CpuToGpu)?;
        staging.write(bytes)?;
        let (src, dst, region) = (staging.raw(), self.raw, self.copy_region());
        let keep: Arc<dyn std::any::Any + Send + Sync> = Arc::new((staging, self.clone()));
        self.device
            .submit(&[&self.pending], Some(keep), Touches::Everything, |r| {
                let dst_layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
                Self::transition(r, dst, vk::ImageLayout::GENERAL, dst_layout);
                // SAFETY: both are live; the image is in the transfer layout.
                unsafe {
                    r.vk()
                        .cmd_copy_buffer_to_image(r.cmd(), src, dst, dst_layout, &[region])
                };
                Self::transition(r, dst, dst_layout, vk::ImageLayout::GENERAL);
                Ok(())
            })
    }

    /// Copies the image's texels, tightly packed, into `out` (`byte_len` bytes).
    pub(crate) fn read(self: &Arc<Self>, out: &mut [u8]) -> Result<(), Error> {
        debug_assert_eq!(out.len() as u64, self.byte_len());
        let _span = tracing::info_span!(
            "texture_download",
            bytes = out.len(),
            device = self.device.device_path()
        )
        .entered();
        self.pending.wait(&self.device, None, false, true)?;
        let staging = self.staging(MemoryLocation::GpuToCpu)?;
        let (src, dst, region) = (self.raw, staging.raw(), self.copy_region());
        let keep: Arc<dyn std::any::Any + Send + Sync> = Arc::new((staging.clone(), self.clone()));
        self.device.submit(
            &[&self.pending, staging.pending()],
            Some(keep),
            Touches::Everything,
            |r| {
                let src_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                Self::transition(r, src, vk::ImageLayout::GENERAL, src_layout);
                // SAFETY: both are live; the image is in the transfer layout.
                unsafe {
                    r.vk()
                        .cmd_copy_image_to_buffer(r.cmd(), src, src_layout, dst, &[region])
                };
                Self::transition(r, src, src_layout, vk::ImageLayout::GENERAL);
                Ok(())
            },
        )?;
        // The copy finished (the submission was waited for).
        staging.read(out)
    }

    /// The image view, for descriptors.
    pub(crate) fn view(&self) -> vk::ImageView {
        self.view
    }

    /// The batches that use the image.
    pub(crate) fn pending(&self) -> &Arc<Pending> {
        &self.pending
    }
}
