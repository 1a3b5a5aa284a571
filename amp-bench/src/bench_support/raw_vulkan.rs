//! The launch-overhead floor: a minimal submit-and-wait loop written directly against `ash`,
//! with nothing of amp's runtime in between. One instance, one device (the same physical device
//! the runtime picked, found by name), one compute pipeline with no bindings and no push
//! constants, and one command buffer recorded once; each round trip is reset fence, submit,
//! wait.

use std::ffi::CStr;

use ash::vk;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Owns every Vulkan object of the loop and destroys them in reverse order.
pub struct RawLoop {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Drop for RawLoop {
    fn drop(&mut self) {
        // SAFETY: every handle was created by this struct, and no work is pending (each round
        // trip waits for its fence).
        unsafe {
            let d = &self.device;
            let _ = d.device_wait_idle();
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
            d.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

impl RawLoop {
    /// Sets up the loop on the physical device named `device_name` for the compute shader
    /// `spirv` (entry point `main`, no bindings, no push constants).
    pub fn new(device_name: &str, spirv: &[u32]) -> Result<RawLoop, BoxError> {
        // SAFETY: loading the system's Vulkan loader.
        let entry = unsafe { ash::Entry::load()? };
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info.
        let instance = unsafe { entry.create_instance(&info, None)? };
        match Self::with_instance(entry, instance.clone(), device_name, spirv) {
            Ok(l) => Ok(l),
            Err(e) => {
                // SAFETY: nothing else was created from the instance.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn with_instance(
        entry: ash::Entry,
        instance: ash::Instance,
        device_name: &str,
        spirv: &[u32],
    ) -> Result<RawLoop, BoxError> {
        // SAFETY: a live instance.
        let physicals = unsafe { instance.enumerate_physical_devices()? };
        let (physical, family) = physicals
            .into_iter()
            .find_map(|p| {
                // SAFETY: `p` comes from this instance.
                let props = unsafe { instance.get_physical_device_properties(p) };
                let name = props.device_name_as_c_str().ok()?.to_str().ok()?;
                if name != device_name {
                    return None;
                }
                // SAFETY: as above.
                let families = unsafe { instance.get_physical_device_queue_family_properties(p) };
                let family = families
                    .iter()
                    .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))?;
                Some((p, family as u32))
            })
            .ok_or_else(|| format!("no device named `{device_name}` with a compute queue"))?;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: valid create info for a device of this instance.
        let device = unsafe { instance.create_device(physical, &info, None)? };
        // SAFETY: every call below uses live handles created just before it.
        unsafe {
            let queue = device.get_device_queue(family, 0);
            let pool = device.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                None,
            )?;
            let cmd = device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )?[0];
            let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)?;
            let layout =
                device.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)?;
            let name: &CStr = c"main";
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(name);
            let pipeline = device
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(layout)],
                    None,
                )
                .map_err(|(_, e)| e)?[0];
            device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            device.cmd_dispatch(cmd, 1, 1, 1);
            device.end_command_buffer(cmd)?;
            Ok(RawLoop {
                _entry: entry,
                instance,
                device,
                queue,
                pool,
                cmd,
                fence,
                module,
                layout,
                pipeline,
            })
        }
    }

    /// One round trip: reset the fence, submit the recorded dispatch, wait.
    pub fn round_trip(&self) -> Result<(), BoxError> {
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: the command buffer is recorded and idle (the last submission was waited for).
        unsafe {
            self.device.reset_fences(&[self.fence])?;
            self.device.queue_submit(self.queue, &submit, self.fence)?;
            self.device.wait_for_fences(&[self.fence], true, u64::MAX)?;
        }
        Ok(())
    }
}
