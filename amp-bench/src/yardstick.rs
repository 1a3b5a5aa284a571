//! The yardsticks of the memory-bound rows, written directly against `ash` on a Vulkan device
//! of their own (the physical device the runtime picked), with nothing of amp's runtime in
//! between:
//!
//! - `vkCmdCopyBuffer` from one device-local buffer into another: the driver's own copy;
//! - a hand-written GLSL `uvec4` grid-stride copy kernel over the same two buffers
//!   ([`G_COPY4`]);
//! - the same kernel with `uint` loads and stores ([`G_COPY1`]), the same workgroups each
//!   running four times the indices: beside the `uvec4` copy it tells whether 4-byte accesses
//!   or the launch shape hold a GPU's simple kernels below its bandwidth;
//! - the `uvec4` kernel's loop with four `uint` accesses per step ([`G_COPY1X4`]): whether the
//!   driver merges neighbouring 4-byte accesses into 16-byte ones by itself.
//!
//! Each is timed with two timestamp queries around each of its dispatches (after an untimed
//! one), and its copy is checked on the device: the source holds a pattern of distinct words,
//! the destination is cleared before each method, and a check kernel counts the words that
//! differ. [`Yardsticks::warm_up`] is the GPU profile's warm-up: the copy kernel in a loop.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ash::vk;

use crate::glsl::compile_glsl;
use crate::raw_vulkan::find_device;
use crate::BoxError;

/// Warnings and errors the validation layer reported on the yardsticks' instance.
static MESSAGES: AtomicUsize = AtomicUsize::new(0);

/// Warnings and errors the validation layer reported on the yardsticks' devices so far (with
/// `AMP_VALIDATION` on; each is printed to stderr).
pub(crate) fn validation_messages() -> usize {
    MESSAGES.load(Ordering::SeqCst)
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    MESSAGES.fetch_add(1, Ordering::SeqCst);
    // SAFETY: the layer passes a valid callback-data struct for the duration of the call.
    let message = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) }
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    eprintln!("[amp-bench yardstick validation {severity:?}] {message}");
    vk::FALSE
}

/// Threads per workgroup of the yardstick kernels.
const LOCAL: u32 = 256;

/// The source pattern: distinct words (an odd multiplier is a bijection of `u32`).
const PATTERN: &str = "
uvec4 pattern(uint i) { uint w = i * 4u; return uvec4(w, w + 1u, w + 2u, w + 3u) * 2654435761u; }
";

/// Fills the source with the pattern.
const G_FILL4: &str = "
layout(std430, binding = 0) writeonly buffer S { uvec4 src[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) src[i] = pattern(i);
}
";

/// The copy yardstick: `uvec4` loads and stores, each thread striding over the whole buffer.
pub(crate) const G_COPY4: &str = "
layout(std430, binding = 0) readonly buffer S { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer D { uvec4 dst[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) dst[i] = src[i];
}
";

/// The copy yardstick with 4-byte loads and stores: the same buffers and workgroups as
/// [`G_COPY4`], each thread striding over the words.
pub(crate) const G_COPY1: &str = "
layout(std430, binding = 0) readonly buffer S { uint src[]; };
layout(std430, binding = 1) writeonly buffer D { uint dst[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    uint words = pc.n * 4u;
    for (uint i = gl_GlobalInvocationID.x; i < words; i += stride) dst[i] = src[i];
}
";

/// The `uvec4` copy's loop with its 16-byte accesses written as four neighbouring `uint`
/// ones (16-byte aligned: the buffers start at offset 0).
pub(crate) const G_COPY1X4: &str = "
layout(std430, binding = 0) readonly buffer S { uint src[]; };
layout(std430, binding = 1) writeonly buffer D { uint dst[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
        uint w = i * 4u;
        uint a = src[w], b = src[w + 1u], c = src[w + 2u], d = src[w + 3u];
        dst[w] = a; dst[w + 1u] = b; dst[w + 2u] = c; dst[w + 3u] = d;
    }
}
";

/// How a yardstick copies: the driver's buffer copy or one of the copy kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyMethod {
    /// `vkCmdCopyBuffer`.
    Driver,
    /// [`G_COPY4`].
    Uvec4Kernel,
    /// [`G_COPY1`].
    UintKernel,
    /// [`G_COPY1X4`].
    UintRunKernel,
}

/// Counts the destination's words that differ from the pattern.
const G_CHECK4: &str = "
layout(std430, binding = 1) readonly buffer D { uvec4 dst[]; };
layout(std430, binding = 2) buffer C { uint bad; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride)
        if (any(notEqual(dst[i], pattern(i)))) atomicAdd(bad, 1u);
}
";

/// What every yardstick kernel starts with: 256 threads, `n` (the `uvec4`s of a buffer) as a
/// push constant, the pattern.
fn shader(body: &str) -> String {
    format!(
        "#version 450\nlayout(local_size_x = {LOCAL}) in;\n\
         layout(push_constant) uniform P {{ uint n; }} pc;\n{PATTERN}{body}"
    )
}

/// Workgroups of a grid-stride launch over `n4` `uvec4`s: about four per thread, at most
/// 65535 (every device's minimum workgroup count).
pub(crate) fn groups(n4: u64) -> u32 {
    n4.div_ceil(4 * u64::from(LOCAL)).clamp(1, 65535) as u32
}

/// Owns every Vulkan object of the yardsticks; destroys them in reverse order (null handles
/// of a setup that failed half-way are ignored, as Vulkan allows).
pub(crate) struct Yardsticks {
    _entry: ash::Entry,
    instance: ash::Instance,
    /// The validation layer's messenger, when the layer is on.
    messenger: Option<Messenger>,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    queries: vk::QueryPool,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    modules: Vec<vk::ShaderModule>,
    /// Fill, `uvec4` copy, check, `uint` copy, four-`uint` copy.
    pipelines: Vec<vk::Pipeline>,
    descriptor_pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    /// Source, destination, counter.
    buffers: [vk::Buffer; 3],
    memory: [vk::DeviceMemory; 3],
    counter: *const u32,
    bytes: u64,
    n4: u32,
    groups: u32,
    /// Nanoseconds per timestamp tick, and the bits that count.
    tick_ns: f64,
    valid_mask: u64,
    /// Timestamp queries in `queries`.
    query_count: u32,
}

impl Drop for Yardsticks {
    fn drop(&mut self) {
        // SAFETY: every handle was created by this struct from this device (or is null); no
        // work is pending once the device is idle.
        unsafe {
            let d = &self.device;
            let _ = d.device_wait_idle();
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            for i in 0..3 {
                d.destroy_buffer(self.buffers[i], None);
                d.free_memory(self.memory[i], None);
            }
            for &p in &self.pipelines {
                d.destroy_pipeline(p, None);
            }
            for &m in &self.modules {
                d.destroy_shader_module(m, None);
            }
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_query_pool(self.queries, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
            d.destroy_device(None);
            destroy_instance(&self.instance, self.messenger.take());
        }
    }
}

/// The validation layer's messenger and the loader of its extension.
type Messenger = (ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT);

/// An instance for Vulkan 1.1; with `validation` (and the layer installed), with the Khronos
/// validation layer, synchronization validation where the layer offers it, and a messenger
/// that counts and prints its warnings and errors ([`validation_messages`]).
fn create_instance(
    entry: &ash::Entry,
    validation: bool,
) -> Result<(ash::Instance, Option<Messenger>), BoxError> {
    let layer: &CStr = c"VK_LAYER_KHRONOS_validation";
    let (validation, sync_validation) = if validation {
        layer_support(entry, layer)
    } else {
        (false, false)
    };
    let mut layers = Vec::new();
    let mut extensions = Vec::new();
    if validation {
        layers.push(layer.as_ptr());
        extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        if sync_validation {
            extensions.push(ash::ext::validation_features::NAME.as_ptr());
        }
    }
    let sync = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&sync);
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let mut info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    if sync_validation {
        info = info.push_next(&mut features);
    }
    // SAFETY: valid create info; every name and chained struct outlives the call.
    let instance = unsafe { entry.create_instance(&info, None)? };
    if !validation {
        return Ok((instance, None));
    }
    let loader = ash::ext::debug_utils::Instance::new(entry, &instance);
    let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message));
    // SAFETY: the extension is enabled on this live instance.
    match unsafe { loader.create_debug_utils_messenger(&messenger_info, None) } {
        Ok(m) => Ok((instance, Some((loader, m)))),
        Err(e) => {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            Err(e.into())
        }
    }
}

/// Destroys `messenger` and `instance`.
///
/// # Safety
///
/// Nothing else made from `instance` may be left.
unsafe fn destroy_instance(instance: &ash::Instance, messenger: Option<Messenger>) {
    // SAFETY: the messenger and the instance are live, and nothing else uses them.
    unsafe {
        if let Some((loader, m)) = messenger {
            loader.destroy_debug_utils_messenger(m, None);
        }
        instance.destroy_instance(None);
    }
}

/// The Vulkan loader: the library `AMP_VULKAN_LIBRARY` names (as the runtime reads it), else
/// the system's.
fn load_entry() -> Result<ash::Entry, BoxError> {
    match std::env::var_os("AMP_VULKAN_LIBRARY").filter(|p| !p.is_empty()) {
        // SAFETY: loading the Vulkan loader the user named, as the runtime does.
        Some(path) => Ok(unsafe { ash::Entry::load_from(path) }?),
        // SAFETY: loading the system's Vulkan loader, as the runtime does.
        None => Ok(unsafe { ash::Entry::load() }?),
    }
}

/// Whether the instance can have the Khronos validation layer with `VK_EXT_debug_utils`, and
/// whether `VK_EXT_validation_features` too (for synchronization validation).
fn layer_support(entry: &ash::Entry, layer: &CStr) -> (bool, bool) {
    // SAFETY: plain enumeration calls on a loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
    if !layers
        .iter()
        .any(|l| l.layer_name_as_c_str().ok() == Some(layer))
    {
        return (false, false);
    }
    let extensions = [None, Some(layer)]
        .into_iter()
        .flat_map(|l| {
            // SAFETY: as above.
            unsafe { entry.enumerate_instance_extension_properties(l) }.unwrap_or_default()
        })
        .filter_map(|e| e.extension_name_as_c_str().ok().map(CStr::to_owned))
        .collect::<Vec<_>>();
    let has = |n: &CStr| extensions.iter().any(|e| e.as_c_str() == n);
    (
        has(ash::ext::debug_utils::NAME),
        has(ash::ext::validation_features::NAME),
    )
}

/// The first memory type allowed by `bits` with `want`, else the first with `fallback`.
fn memory_type(
    props: &vk::PhysicalDeviceMemoryProperties,
    bits: u32,
    want: vk::MemoryPropertyFlags,
    fallback: vk::MemoryPropertyFlags,
) -> Result<u32, BoxError> {
    let find = |flags: vk::MemoryPropertyFlags| {
        (0..props.memory_type_count).find(|&t| {
            bits & (1 << t) != 0
                && props.memory_types[t as usize]
                    .property_flags
                    .contains(flags)
        })
    };
    find(want)
        .or_else(|| find(fallback))
        .ok_or_else(|| "no memory type for the yardstick's buffers".into())
}

impl Yardsticks {
    /// Sets up the yardsticks on the Vulkan device at `device_path` (`vulkan:<index>:<name>`,
    /// as `Accelerator::device_path` gives it) named `name`, over two buffers of `bytes` bytes
    /// (a multiple of 16), with room for `samples` timed dispatches per measurement; with the
    /// Khronos validation layer when `validation` (and the layer is installed).
    pub(crate) fn new(
        device_path: &str,
        name: &str,
        bytes: u64,
        samples: u32,
        validation: bool,
    ) -> Result<Yardsticks, BoxError> {
        if bytes == 0 || !bytes.is_multiple_of(16) || bytes / 16 > u64::from(u32::MAX) {
            return Err(format!("a yardstick copy of {bytes} bytes is not whole uvec4s").into());
        }
        let index = device_path
            .strip_prefix("vulkan:")
            .and_then(|rest| rest.split(':').next()?.parse().ok());
        let spirv = [
            compile_glsl("yardstick_fill", &shader(G_FILL4))?,
            compile_glsl("yardstick_copy", &shader(G_COPY4))?,
            compile_glsl("yardstick_check", &shader(G_CHECK4))?,
            compile_glsl("yardstick_copy_uint", &shader(G_COPY1))?,
            compile_glsl("yardstick_copy_uint_x4", &shader(G_COPY1X4))?,
        ];
        let entry = load_entry()?;
        let (instance, messenger) = create_instance(&entry, validation)?;
        let found = find_device(&instance, index, name);
        let (physical, family, valid_bits) = match found {
            Ok(f) => f,
            Err(e) => {
                // SAFETY: nothing but the messenger was created from the instance.
                unsafe { destroy_instance(&instance, messenger) };
                return Err(e);
            }
        };
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: valid create info for a device of this instance.
        let device = match unsafe { instance.create_device(physical, &info, None) } {
            Ok(d) => d,
            Err(e) => {
                // SAFETY: as above.
                unsafe { destroy_instance(&instance, messenger) };
                return Err(e.into());
            }
        };
        // SAFETY: a device of this instance, and the family it was created with.
        let queue = unsafe { device.get_device_queue(family, 0) };
        // SAFETY: `physical` comes from this instance.
        let props = unsafe { instance.get_physical_device_properties(physical) };
        let n4 = (bytes / 16) as u32;
        // From here on, dropping `y` destroys whatever was made.
        let mut y = Yardsticks {
            _entry: entry,
            instance,
            messenger,
            device,
            queue,
            pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            queries: vk::QueryPool::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            modules: Vec::new(),
            pipelines: Vec::new(),
            descriptor_pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            buffers: [vk::Buffer::null(); 3],
            memory: [vk::DeviceMemory::null(); 3],
            counter: std::ptr::null(),
            bytes,
            n4,
            groups: groups(u64::from(n4)),
            tick_ns: f64::from(props.limits.timestamp_period),
            valid_mask: match valid_bits {
                0 => 0,
                64.. => u64::MAX,
                b => (1u64 << b) - 1,
            },
            query_count: 2 * samples.max(1),
        };
        if y.valid_mask == 0 || y.tick_ns <= 0.0 {
            return Err(format!("`{name}`'s compute queue cannot write timestamps").into());
        }
        y.build(physical, family, &spirv)?;
        y.fill()?;
        Ok(y)
    }

    /// Creates the command buffer, fence, queries, pipelines, buffers and descriptor set.
    fn build(
        &mut self,
        physical: vk::PhysicalDevice,
        family: u32,
        spirv: &[Vec<u32>; 5],
    ) -> Result<(), BoxError> {
        let d = self.device.clone();
        // SAFETY: every call uses live handles of this device, created just before it; each is
        // stored in `self` at once, so an error leaves them to `Drop`.
        unsafe {
            self.pool = d.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )?;
            self.cmd = d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )?[0];
            self.fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
            self.queries = d.create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(self.query_count),
                None,
            )?;
            let bindings: Vec<_> = (0..3)
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            self.set_layout = d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )?;
            let ranges = [vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::COMPUTE,
                offset: 0,
                size: 4,
            }];
            let set_layouts = [self.set_layout];
            self.layout = d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(&ranges),
                None,
            )?;
            for words in spirv {
                let module = d.create_shader_module(
                    &vk::ShaderModuleCreateInfo::default().code(words),
                    None,
                )?;
                self.modules.push(module);
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(c"main");
                let pipeline = d
                    .create_compute_pipelines(
                        vk::PipelineCache::null(),
                        &[vk::ComputePipelineCreateInfo::default()
                            .stage(stage)
                            .layout(self.layout)],
                        None,
                    )
                    .map_err(|(_, e)| e)?[0];
                self.pipelines.push(pipeline);
            }
            let memory_props = self
                .instance
                .get_physical_device_memory_properties(physical);
            let copy_usage = vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST;
            let host =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            for (i, (size, usage, want, fallback)) in [
                (
                    self.bytes,
                    copy_usage,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                    vk::MemoryPropertyFlags::empty(),
                ),
                (
                    self.bytes,
                    copy_usage,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                    vk::MemoryPropertyFlags::empty(),
                ),
                (16, copy_usage, host, host),
            ]
            .into_iter()
            .enumerate()
            {
                self.buffers[i] = d.create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )?;
                let req = d.get_buffer_memory_requirements(self.buffers[i]);
                let type_index = memory_type(&memory_props, req.memory_type_bits, want, fallback)?;
                self.memory[i] = d.allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(type_index),
                    None,
                )?;
                d.bind_buffer_memory(self.buffers[i], self.memory[i], 0)?;
            }
            self.counter = d
                .map_memory(
                    self.memory[2],
                    0,
                    vk::WHOLE_SIZE,
                    vk::MemoryMapFlags::empty(),
                )?
                .cast::<u32>();
            let sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 3,
            }];
            self.descriptor_pool = d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )?;
            self.set = d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.descriptor_pool)
                    .set_layouts(&set_layouts),
            )?[0];
            let infos = self.buffers.map(|buffer| {
                [vk::DescriptorBufferInfo {
                    buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            });
            let writes: Vec<_> = infos
                .iter()
                .enumerate()
                .map(|(b, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(self.set)
                        .dst_binding(b as u32)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
        }
        Ok(())
    }

    /// Records the commands `body` writes into the command buffer, submits them and waits.
    fn submit(&self, body: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Result<(), BoxError> {
        let (d, cmd) = (&self.device, self.cmd);
        // SAFETY: the command buffer is idle (every submission is waited for) and its pool
        // allows resets; every handle `body` records is live.
        unsafe {
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )?;
            body(d, cmd);
            d.end_command_buffer(cmd)?;
            let cmds = [cmd];
            d.reset_fences(&[self.fence])?;
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                self.fence,
            )?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)?;
        }
        Ok(())
    }

    /// Records a dispatch of pipeline `which` (0 fill, 1 `uvec4` copy, 2 check, 3 `uint` copy,
    /// 4 four-`uint` copy) over the buffers.
    fn dispatch(&self, d: &ash::Device, cmd: vk::CommandBuffer, which: usize) {
        // SAFETY: `cmd` is recording; the pipeline, layout and set are live.
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipelines[which]);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &self.n4.to_ne_bytes(),
            );
            d.cmd_dispatch(cmd, self.groups, 1, 1);
        }
    }

    /// Records the buffer copy of the source into the destination.
    fn copy_buffer(&self, d: &ash::Device, cmd: vk::CommandBuffer) {
        let region = [vk::BufferCopy {
            src_offset: 0,
            dst_offset: 0,
            size: self.bytes,
        }];
        // SAFETY: `cmd` is recording; both buffers are live and `bytes` long.
        unsafe { d.cmd_copy_buffer(cmd, self.buffers[0], self.buffers[1], &region) };
    }

    /// Records a barrier that makes every earlier transfer and compute write visible to later
    /// transfers, compute and (with `host`) the host.
    fn barrier(d: &ash::Device, cmd: vk::CommandBuffer, host: bool) {
        let work = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        let (dst_stage, dst_access) = if host {
            (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ)
        } else {
            (
                work,
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            )
        };
        let b = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(dst_access)];
        // SAFETY: `cmd` is recording.
        unsafe {
            d.cmd_pipeline_barrier(
                cmd,
                work,
                dst_stage,
                vk::DependencyFlags::empty(),
                &b,
                &[],
                &[],
            )
        };
    }

    /// Fills the source with the pattern and clears the destination.
    fn fill(&self) -> Result<(), BoxError> {
        self.submit(|d, cmd| {
            self.dispatch(d, cmd, 0);
            // SAFETY: `cmd` is recording; the destination is live.
            unsafe { d.cmd_fill_buffer(cmd, self.buffers[1], 0, vk::WHOLE_SIZE, 0) };
            Self::barrier(d, cmd, false);
        })
    }

    /// Clears the destination, then times `samples` copies by `method`, after one untimed
    /// copy; returns the seconds of each and the number of `uvec4`s of the destination that
    /// then differ from the source.
    pub(crate) fn time(
        &self,
        method: CopyMethod,
        samples: u32,
    ) -> Result<(Vec<f64>, u32), BoxError> {
        let samples = samples.clamp(1, self.query_count / 2);
        let op = |d: &ash::Device, cmd| match method {
            CopyMethod::Driver => self.copy_buffer(d, cmd),
            CopyMethod::Uvec4Kernel => self.dispatch(d, cmd, 1),
            CopyMethod::UintKernel => self.dispatch(d, cmd, 3),
            CopyMethod::UintRunKernel => self.dispatch(d, cmd, 4),
        };
        self.submit(|d, cmd| {
            // SAFETY: `cmd` is recording; the destination and the query pool are live.
            unsafe {
                d.cmd_fill_buffer(cmd, self.buffers[1], 0, vk::WHOLE_SIZE, 0);
                d.cmd_reset_query_pool(cmd, self.queries, 0, 2 * samples);
            }
            // SAFETY: `cmd` is recording; each query written was reset above.
            let stamp = |query: u32| unsafe {
                d.cmd_write_timestamp(
                    cmd,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    self.queries,
                    query,
                )
            };
            // The first run is untimed; run `i` writes queries 2(i - 1) and 2(i - 1) + 1.
            for i in 0..=samples {
                Self::barrier(d, cmd, false);
                if i > 0 {
                    stamp(2 * (i - 1));
                }
                op(d, cmd);
                if i > 0 {
                    stamp(2 * (i - 1) + 1);
                }
            }
            Self::barrier(d, cmd, false);
        })?;
        let mut ticks = vec![0u64; 2 * samples as usize];
        // SAFETY: the queries were written by the submission just waited for.
        unsafe {
            self.device.get_query_pool_results(
                self.queries,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )?
        };
        let secs = ticks
            .chunks(2)
            .map(|t| (t[1].wrapping_sub(t[0]) & self.valid_mask) as f64 * self.tick_ns * 1e-9)
            .collect();
        Ok((secs, self.mismatches()?))
    }

    /// The `uvec4`s of the destination that differ from the source's pattern.
    fn mismatches(&self) -> Result<u32, BoxError> {
        self.submit(|d, cmd| {
            // SAFETY: `cmd` is recording; the counter buffer is live.
            unsafe { d.cmd_fill_buffer(cmd, self.buffers[2], 0, vk::WHOLE_SIZE, 0) };
            Self::barrier(d, cmd, false);
            self.dispatch(d, cmd, 2);
            Self::barrier(d, cmd, true);
        })?;
        // SAFETY: the mapping holds the counter; the submission that wrote it was waited for
        // and its writes made visible to the host.
        Ok(unsafe { self.counter.read_volatile() })
    }

    /// Runs the copy kernel in a loop until at least `secs` seconds passed; returns the
    /// seconds and the dispatches.
    pub(crate) fn warm_up(&self, secs: f64) -> Result<(f64, usize), BoxError> {
        const PER_SUBMIT: usize = 16;
        let t0 = Instant::now();
        let mut dispatches = 0;
        while t0.elapsed().as_secs_f64() < secs {
            self.submit(|d, cmd| {
                for _ in 0..PER_SUBMIT {
                    Self::barrier(d, cmd, false);
                    self.dispatch(d, cmd, 1);
                }
            })?;
            dispatches += PER_SUBMIT;
        }
        Ok((t0.elapsed().as_secs_f64(), dispatches))
    }

    /// Workgroups of each copy-kernel dispatch.
    pub(crate) fn groups(&self) -> u32 {
        self.groups
    }
}
