//! The per-device pipeline cache: the pipeline of each kernel and specialization, built on
//! first use and destroyed with the device.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

use super::pipeline::{Pipeline, Specialization};
use crate::device::{Device, DeviceState};
use ash::vk;

use crate::kernel::{KernelInfo, ParamKind, TextureAccess};
use crate::sync::lock;
use crate::Error;

/// A device's cached pipelines (its [`DeviceState`]).
#[derive(Default)]
struct Pipelines(Mutex<PipelineCache>);

impl DeviceState for Pipelines {
    unsafe fn destroy(&self, device: &Device) {
        for p in lock(&self.0).drain() {
            // SAFETY: per the function's contract.
            unsafe { p.destroy(device.vk()) };
        }
    }
}

/// The per-device pipeline cache: pipelines by the address of their kernel's SPIR-V words,
/// then by kernel and specialization.
///
/// Looked up on every launch, so a lookup neither allocates nor hashes bytes: the address is
/// hashed as one word, and the few pipelines of one kernel (one per specialization) are
/// compared in place.
#[derive(Default)]
struct PipelineCache {
    by_spirv: HashMap<usize, Vec<CachedPipeline>, BuildHasherDefault<AddressHasher>>,
}

struct CachedPipeline {
    hash: u64,
    name: &'static str,
    spirv_len: usize,
    /// The specialization's bytes (workgroup size of tiled kernels, the call's constants).
    spec: Vec<u8>,
    pipeline: Arc<Pipeline>,
}

impl PipelineCache {
    fn get(&self, info: &KernelInfo, spec: &[u8]) -> Option<&Arc<Pipeline>> {
        self.by_spirv
            .get(&(info.spirv.as_ptr() as usize))?
            .iter()
            .find(|c| {
                c.hash == info.hash
                    && c.name == info.name
                    && c.spirv_len == info.spirv.len()
                    && c.spec == spec
            })
            .map(|c| &c.pipeline)
    }

    fn insert(&mut self, info: &'static KernelInfo, spec: &[u8], pipeline: Arc<Pipeline>) {
        self.by_spirv
            .entry(info.spirv.as_ptr() as usize)
            .or_default()
            .push(CachedPipeline {
                hash: info.hash,
                name: info.name,
                spirv_len: info.spirv.len(),
                spec: spec.to_vec(),
                pipeline,
            });
    }

    /// Empties the cache, returning every pipeline (for destruction with the device).
    fn drain(&mut self) -> impl Iterator<Item = Arc<Pipeline>> + '_ {
        self.by_spirv
            .drain()
            .flat_map(|(_, list)| list.into_iter().map(|c| c.pipeline))
    }
}

/// Hashes an address (the only key of [`PipelineCache`]): a multiply spreads its bits, which
/// is all a pointer needs (SipHash is built for untrusted keys and costs more per launch).
#[derive(Default)]
pub(super) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// The cached pipeline for `info` specialized with `spec` on `device`, built on first use.
pub(crate) fn cached(
    device: &Device,
    info: &'static KernelInfo,
    spec: &Specialization,
) -> Result<Arc<Pipeline>, Error> {
    let pipelines = device.state::<Pipelines>();
    let mut cache = lock(&pipelines.0);
    if let Some(p) = cache.get(info, &spec.data) {
        return Ok(p.clone());
    }
    let _span = tracing::info_span!(
        "pipeline_create",
        kernel = info.name,
        device = device.device_path()
    )
    .entered();
    let bindings: Vec<(u32, vk::DescriptorType)> = info
        .params
        .iter()
        .filter_map(|p| match p.kind {
            ParamKind::Buffer { binding, .. } => {
                Some((binding, vk::DescriptorType::STORAGE_BUFFER))
            }
            ParamKind::Texture {
                binding, access, ..
            } => Some((
                binding,
                match access {
                    TextureAccess::Read => vk::DescriptorType::SAMPLED_IMAGE,
                    TextureAccess::Write => vk::DescriptorType::STORAGE_IMAGE,
                },
            )),
            ParamKind::Sampler { binding } => Some((binding, vk::DescriptorType::SAMPLER)),
            ParamKind::Scalar { .. } | ParamKind::Value { .. } => None,
        })
        .chain(
            info.report_binding
                .map(|b| (b, vk::DescriptorType::STORAGE_BUFFER)),
        )
        .collect();
    let p = Arc::new(Pipeline::create(
        device,
        info.name,
        device.kernel_module(info),
        info.entry_point,
        &bindings,
        info.push_constant_size,
        Some(spec),
        info.bounds_checked,
    )?);
    cache.insert(info, &spec.data, p.clone());
    Ok(p)
}
