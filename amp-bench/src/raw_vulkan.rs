//! Floors written directly against `ash`, with nothing of amp's runtime in between, each on
//! its own instance and device (the same physical device the runtime picked, found by name).
//!
//! - [`RawLoop`], the launch-overhead floor: one compute pipeline with no bindings and no push
//!   constants, and one command buffer recorded once; each round trip is reset fence, submit,
//!   wait.
//! - [`RawChain`], the floor of a chain of dependent launches: the same dispatches recorded by
//!   hand into one command buffer, a compute-to-compute barrier between consecutive ones, one
//!   submission, one wait.

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

/// The physical device at `index` of the enumeration if it is named `name`, else the first
/// one named `name`; with its first compute queue family and that family's timestamp bits.
pub(crate) fn find_device(
    instance: &ash::Instance,
    index: Option<usize>,
    name: &str,
) -> Result<(vk::PhysicalDevice, u32, u32), BoxError> {
    // SAFETY: a live instance.
    let physicals = unsafe { instance.enumerate_physical_devices()? };
    let named = |p: &vk::PhysicalDevice| {
        // SAFETY: `p` comes from this instance.
        let props = unsafe { instance.get_physical_device_properties(*p) };
        props
            .device_name_as_c_str()
            .ok()
            .and_then(|n| n.to_str().ok())
            == Some(name)
    };
    let physical = index
        .and_then(|i| physicals.get(i).copied())
        .filter(named)
        .or_else(|| physicals.iter().copied().find(named))
        .ok_or_else(|| format!("no Vulkan device named `{name}`"))?;
    // SAFETY: as above.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let (family, props) = families
        .iter()
        .enumerate()
        .find(|(_, f)| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or_else(|| format!("`{name}` has no compute queue"))?;
    Ok((physical, family as u32, props.timestamp_valid_bits))
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
        let (physical, family, _) = find_device(&instance, None, device_name)?;
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

/// The floor of a chain of dependent launches: a pipeline with two storage buffers and a
/// push constant (`n`), two descriptor sets (buffer 0 to 1 and 1 to 0), and a command buffer
/// recorded anew for every chain.
pub struct RawChain {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    descriptor_pool: vk::DescriptorPool,
    sets: [vk::DescriptorSet; 2],
    buffers: [vk::Buffer; 2],
    memory: [vk::DeviceMemory; 2],
    mapped: [*mut u32; 2],
    n: u32,
}

impl Drop for RawChain {
    fn drop(&mut self) {
        // SAFETY: every handle was created by this struct; no work is pending (each chain
        // waits for its fence).
        unsafe {
            let d = &self.device;
            let _ = d.device_wait_idle();
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            for i in 0..2 {
                d.destroy_buffer(self.buffers[i], None);
                d.free_memory(self.memory[i], None);
            }
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
            d.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

impl RawChain {
    /// Sets up the chain on the physical device named `device_name` for the compute shader
    /// `spirv` (entry point `main`, 64 threads per workgroup, buffers at bindings 0 and 1, a
    /// `uint` push constant: the element count) over two buffers of `n` 4-byte elements.
    pub fn new(device_name: &str, spirv: &[u32], n: usize) -> Result<RawChain, BoxError> {
        // SAFETY: loading the system's Vulkan loader; every call below uses live handles
        // created just before it. Errors leak the objects made so far (a benchmark aborts).
        unsafe {
            let entry = ash::Entry::load()?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
            let instance = entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )?;
            let (physical, family, _) = find_device(&instance, None, device_name)?;
            let priorities = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&priorities)];
            let device = instance.create_device(
                physical,
                &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                None,
            )?;
            let queue = device.get_device_queue(family, 0);
            let pool = device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
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
            let bindings: Vec<_> = (0..2)
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let set_layout = device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )?;
            let ranges = [vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::COMPUTE,
                offset: 0,
                size: 4,
            }];
            let set_layouts = [set_layout];
            let layout = device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(&ranges),
                None,
            )?;
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
            let bytes = (n * 4) as u64;
            let memory_types = instance.get_physical_device_memory_properties(physical);
            let wanted =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let mut buffers = [vk::Buffer::null(); 2];
            let mut memory = [vk::DeviceMemory::null(); 2];
            let mut mapped = [std::ptr::null_mut(); 2];
            for i in 0..2 {
                buffers[i] = device.create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(bytes)
                        .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                    None,
                )?;
                let req = device.get_buffer_memory_requirements(buffers[i]);
                let type_index = (0..memory_types.memory_type_count)
                    .find(|&t| {
                        req.memory_type_bits & (1 << t) != 0
                            && memory_types.memory_types[t as usize]
                                .property_flags
                                .contains(wanted)
                    })
                    .ok_or("no host-visible coherent memory")?;
                memory[i] = device.allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(type_index),
                    None,
                )?;
                device.bind_buffer_memory(buffers[i], memory[i], 0)?;
                mapped[i] = device
                    .map_memory(memory[i], 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())?
                    .cast::<u32>();
            }
            let sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 4,
            }];
            let descriptor_pool = device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(2)
                    .pool_sizes(&sizes),
                None,
            )?;
            let layouts = [set_layout, set_layout];
            let allocated = device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(descriptor_pool)
                    .set_layouts(&layouts),
            )?;
            let sets = [allocated[0], allocated[1]];
            for (s, (src, dst)) in [(0, 1), (1, 0)].into_iter().enumerate() {
                let infos = [src, dst].map(|b| {
                    [vk::DescriptorBufferInfo {
                        buffer: buffers[b],
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }]
                });
                let writes: Vec<_> = (0..2)
                    .map(|b| {
                        vk::WriteDescriptorSet::default()
                            .dst_set(sets[s])
                            .dst_binding(b as u32)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .buffer_info(&infos[b])
                    })
                    .collect();
                device.update_descriptor_sets(&writes, &[]);
            }
            Ok(RawChain {
                _entry: entry,
                instance,
                device,
                queue,
                pool,
                cmd,
                fence,
                module,
                set_layout,
                layout,
                pipeline,
                descriptor_pool,
                sets,
                buffers,
                memory,
                mapped,
                n: n as u32,
            })
        }
    }

    /// Zeroes both buffers.
    pub fn reset(&self) {
        for p in self.mapped {
            // SAFETY: the mapping holds `n` `u32`s; no work is pending.
            unsafe { std::ptr::write_bytes(p, 0, self.n as usize) };
        }
    }

    /// Records `launches` dispatches into one command buffer (even ones read buffer 0 and
    /// write buffer 1, odd ones the reverse), with a compute-to-compute memory barrier before
    /// each and a compute-to-host one at the end, submits it and waits; returns buffer 0 (as
    /// bits).
    pub fn run(&self, launches: usize) -> Result<Vec<u32>, BoxError> {
        let d = &self.device;
        let groups = self.n.div_ceil(64);
        let barrier = |src: vk::PipelineStageFlags, dst, dst_access| {
            let b = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(dst_access)];
            // SAFETY: the command buffer is recording.
            unsafe {
                d.cmd_pipeline_barrier(
                    self.cmd,
                    src,
                    dst,
                    vk::DependencyFlags::empty(),
                    &b,
                    &[],
                    &[],
                )
            };
        };
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        // SAFETY: the command buffer is idle (the last chain was waited for); every handle is
        // live.
        unsafe {
            d.begin_command_buffer(
                self.cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )?;
            d.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_push_constants(
                self.cmd,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &self.n.to_ne_bytes(),
            );
            for i in 0..launches {
                if i > 0 {
                    barrier(
                        compute,
                        compute,
                        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                    );
                }
                d.cmd_bind_descriptor_sets(
                    self.cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.layout,
                    0,
                    &[self.sets[i % 2]],
                    &[],
                );
                d.cmd_dispatch(self.cmd, groups, 1, 1);
            }
            barrier(
                compute,
                vk::PipelineStageFlags::HOST,
                vk::AccessFlags::HOST_READ,
            );
            d.end_command_buffer(self.cmd)?;
            let cmds = [self.cmd];
            d.reset_fences(&[self.fence])?;
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                self.fence,
            )?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)?;
            Ok(std::slice::from_raw_parts(self.mapped[0], self.n as usize).to_vec())
        }
    }
}
