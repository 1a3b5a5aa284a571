//! The accelerators: the Vulkan device of the amp and glslang columns, and `--devices`' list.

use amp::prelude::*;
use amp::DeviceType;

use crate::BoxError;

/// The Vulkan device of the amp and glslang columns, made the process's default accelerator
/// (the bench launches with `parallel_for_each` and makes arrays with `Array::new`): the one
/// `AMP_DEVICE` names if set (not `cpu`), else the preferred Vulkan device (GPUs first, then
/// CPU drivers such as lavapipe). The default would be the native CPU accelerator on a machine
/// without a GPU; the native column uses that one explicitly.
pub(crate) fn vulkan_device() -> Result<Accelerator, BoxError> {
    let acc = match std::env::var("AMP_DEVICE") {
        Ok(want) if !want.is_empty() => Accelerator::default()?,
        _ => {
            let rank = |t: DeviceType| match t {
                DeviceType::DiscreteGpu => 0,
                DeviceType::IntegratedGpu => 1,
                DeviceType::VirtualGpu => 2,
                DeviceType::Cpu => 3,
                DeviceType::Other => 4,
            };
            let mut vulkan: Vec<Accelerator> = Accelerator::all()?
                .into_iter()
                .filter(|a| !a.is_native())
                .collect();
            // Stable: enumeration order breaks ties.
            vulkan.sort_by_key(|a| rank(a.device_type()));
            vulkan
                .into_iter()
                .next()
                .ok_or("no Vulkan device: the amp and glslang columns need one")?
        }
    };
    if acc.is_native() {
        return Err(
            "AMP_DEVICE names the native CPU accelerator: the amp and glslang columns \
                    need a Vulkan device (the native column always runs)"
                .into(),
        );
    }
    if !Accelerator::set_default(&acc) {
        return Err(format!(
            "the default accelerator was chosen before the benchmark picked {}",
            acc.name()
        )
        .into());
    }
    Ok(acc)
}

/// `--devices`: every accelerator with what a GPU report needs (name, kind, memory, limits).
pub fn list_devices() -> Result<(), BoxError> {
    for acc in Accelerator::all()? {
        let l = acc.limits();
        println!(
            "{}\n  path: {}\n  description: {}\n  type: {:?}; dedicated memory: {} MiB; \
             cpu-shared memory: {}; host-memory import: {}; f64: {}; denormals kept: {}; validation layer: {}\n  \
             limits: workgroup count {:?}, workgroup size {:?}, {} threads per workgroup, {} B \
             shared memory, {} B push constants\n  launch shape of simple kernels: {}",
            acc.name(),
            acc.device_path(),
            acc.description(),
            acc.device_type(),
            acc.dedicated_memory() >> 20,
            acc.supports_cpu_shared_memory(),
            acc.supports_host_memory_import(),
            acc.supports_double_precision(),
            acc.preserves_denormals(),
            if acc.validation_enabled() {
                "on"
            } else {
                "off"
            },
            l.max_workgroup_count,
            l.max_workgroup_size,
            l.max_threads_per_workgroup,
            l.max_shared_memory_bytes,
            l.max_push_constants_size,
            match acc.launch_shape() {
                Some(s) => format!(
                    "{} threads per workgroup, {} indices per thread",
                    s.workgroup_size, s.items_per_thread
                ),
                None => "the native accelerator's batches".into(),
            },
        );
    }
    Ok(())
}
