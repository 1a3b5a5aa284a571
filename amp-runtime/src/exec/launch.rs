//! Launches: [`parallel_for_each`] and [`parallel_for_each_on`], run as named steps: shape
//! checks, argument encoding, the grid, specialization, binding, and enqueueing (recording
//! into the view's batch, marking written views, waiting where the launch must).

use std::sync::Arc;

use ash::vk;

use super::args::encode_args;
use super::bounds::OobReport;
use super::cache::cached;
use super::call::{mark_written, Arg, ComputeDomain, KernelArg, Plan};
use super::checks::{check_shape, check_spec_words};
use super::grid::{simple_grid, tiled_grid};
use super::native::launch_native;
use super::pipeline::{ImageDescriptor, Pipeline, Specialization};
use super::plan::{plan_for, LaunchPlan, Layout};
use crate::data::Prepared;
use crate::device::{
    sync_launches, Accelerator, AcceleratorView, Backend, Check, Device, KernelTime, LaunchTarget,
    Queue, Reported, Timed, Touches, TuneRequest,
};
use crate::kernel::{spec_id, ElemType, KernelInfo, ParamKind, ScalarType, Shape, TextureAccess};
use crate::texture::{Filter, Image};
use crate::Error;

/// The accelerator the arrays among `args` live on, if any.
fn home<'a>(args: &'a [KernelArg<'_>]) -> Result<Option<&'a Accelerator>, Error> {
    let mut home: Option<&Accelerator> = None;
    for arg in args {
        let acc = match &arg.0 {
            Arg::Buffer { buf, .. } => buf.home(),
            Arg::Texture { target, .. } => Some(&target.acc),
            _ => None,
        };
        {
            if let Some(acc) = acc {
                match &home {
                    Some(h) if *h != acc => {
                        return Err(Error::AcceleratorMismatch {
                            array: acc.name().to_owned(),
                            launch: h.name().to_owned(),
                        })
                    }
                    Some(_) => {}
                    None => home = Some(acc),
                }
            }
        }
    }
    Ok(home)
}

/// Runs `call` once for every index of `domain` (C++ AMP's `parallel_for_each`), on the
/// default view of the accelerator the call's [`Array`](crate::Array)s and textures live on, or else of the
/// default accelerator.
///
/// The launch is recorded and the call returns without waiting for the device (see
/// [`AcceleratorView`]): reading an array or view the kernel uses waits for it, and so does
/// [`AcceleratorView::wait`]. A launch that uses host memory in place (a view of a host slice
/// the device imported, see `docs/data-model.md`) waits for its work before returning, so the
/// device never outlives the slice's borrow.
///
/// Errors known at launch (argument mismatches, [`Error::NotDivisible`], device limits) are
/// returned here; errors the device reports later ([`Error::IndexOutOfBounds`] of a checked
/// kernel, a lost device) by the launch when it waits, else by the next
/// [`AcceleratorView::wait`] of its view and the next host access of its buffers, once.
///
/// `domain` is an [`Extent<N>`](crate::Extent) for a simple kernel or a [`TiledExtent`](crate::TiledExtent) (from
/// [`Extent::tile`](crate::Extent::tile)) for a tiled one; see [`ComputeDomain`]. A tiled launch needs every
/// dimension of the extent to be a multiple of the tile's ([`Error::NotDivisible`] otherwise;
/// see [`TiledExtent::pad`](crate::TiledExtent::pad) and [`TiledExtent::truncate`](crate::TiledExtent::truncate)).
///
/// Views are copied to the device as needed; views the kernel writes have their device copy
/// marked newer (see [`ArrayViewMut::synchronize`](crate::ArrayViewMut::synchronize)).
///
/// ```ignore
/// parallel_for_each(sum.extent(), add(&a, &b, &mut sum))?;
/// parallel_for_each(c.extent().tile::<16, 16>(), matmul_tiled(&a, &b, &mut c))?;
/// ```
pub fn parallel_for_each<D: ComputeDomain>(domain: D, call: D::Call<'_>) -> Result<(), Error> {
    let plan = domain.plan(call);
    // The view is found before `plan` moves (the home accelerator is borrowed from it).
    let view = match home(&plan.args)? {
        Some(acc) => acc.default_view(),
        None => Accelerator::default()?.default_view(),
    };
    launch(&view, plan)
}

/// [`parallel_for_each`] on a chosen accelerator (its default view) or
/// [`AcceleratorView`]. Arrays in the call must live on its accelerator.
///
/// Launches on one view run in the order they are made. Like [`parallel_for_each`] it returns
/// without waiting for the device, unless the launch uses host memory in place.
///
/// ```text
/// parallel_for_each_on(&acc, out.extent(), kernel(&a, &mut out))?;
/// let view = acc.create_view()?;
/// parallel_for_each_on(&view, out.extent(), kernel(&a, &mut out))?;
/// ```
pub fn parallel_for_each_on<T: LaunchTarget + ?Sized, D: ComputeDomain>(
    target: &T,
    domain: D,
    call: D::Call<'_>,
) -> Result<(), Error> {
    launch(&target.accelerator_view(), domain.plan(call))
}

/// Runs `plan` on `view`.
fn launch(view: &AcceleratorView, plan: Plan<'_>) -> Result<(), Error> {
    let acc = view.accelerator();
    // The fields are read only when a subscriber wants the span (docs/tracing.md).
    let _span = tracing::info_span!(
        "launch",
        kernel = plan.info.name,
        extent = ?&plan.domain[..],
        tile = plan.tiling.as_ref().map(|t| tracing::field::debug(t.tile)),
        device = acc.device_path(),
    )
    .entered();
    let device = match acc.backend() {
        Backend::Vulkan(device) => device,
        Backend::Native(native) => {
            let nv = view.native_view();
            if let Some(nv) = nv {
                nv.launches
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let timed = nv.filter(|nv| nv.profiler.on());
            let kernel = plan.info.name;
            let start = timed.map(|_| std::time::Instant::now());
            let result = launch_native(acc, native, plan);
            // A launch that ran (an out-of-bounds access is found after it ran) has a time.
            if let (Some(nv), Some(start)) = (timed, start) {
                if matches!(result, Ok(()) | Err(Error::IndexOutOfBounds { .. })) {
                    let seconds = start.elapsed().as_secs_f64();
                    nv.profiler
                        .push(KernelTime::measured(kernel.to_owned(), start, seconds));
                }
            }
            return result;
        }
    };
    let Plan {
        info,
        args,
        spec,
        domain,
        tiling,
        native: _,
    } = plan;
    let total = check_shape(info, &domain, tiling.as_ref())?;
    check_capabilities(info, device)?;
    check_spec_words(info, &spec)?;
    if total == 0 {
        // An empty domain launches nothing, as a loop over an empty range runs nothing; the
        // arguments and the tile are checked all the same.
        let mut specialization = Specialization::default();
        let mut push = vec![0u8; info.push_constant_size as usize];
        encode_args(info, &args, &domain, &mut push, &mut specialization)?;
        if let Some(t) = &tiling {
            tiled_grid(info, &domain, t, device.limits(), &mut specialization)?;
        }
        return Ok(());
    }

    // A simple kernel whose shape the runtime chooses may be tuned: its launch runs the
    // shape the autotuner gives, timed when it is one of the tries.
    let (shape, tune) = match (&tiling, info.shape) {
        (None, Shape::Chosen { loops, .. }) => {
            let request = TuneRequest {
                id: info as *const KernelInfo as usize,
                name: info.name,
                module: info.hash,
                spec: &spec,
                indices: total,
                one_index: loops && device.limits().max_loop_iterations.is_some(),
            };
            device
                .tuner()
                .shape_for(&request)
                .map_or((None, None), |(shape, tune)| (Some(shape), tune))
        }
        _ => (None, None),
    };
    let layout = Layout {
        args: &args,
        spec: &spec,
        domain: &domain,
        tiling: tiling.as_ref(),
        shape,
    };
    let plan = plan_for(device, info, &layout, || {
        let mut specialization = Specialization::default();
        let mut push = vec![0u8; info.push_constant_size as usize];
        encode_args(info, &args, &domain, &mut push, &mut specialization)?;
        let groups = match &tiling {
            None => simple_grid(
                info,
                &args,
                total,
                device.limits(),
                shape.unwrap_or(device.launch_shape()),
                &mut specialization,
            )?,
            Some(t) => tiled_grid(info, &domain, t, device.limits(), &mut specialization)?,
        };
        push_spec_constants(info, &spec, &mut specialization);
        if !info.loop_lines.is_empty() {
            let limit = device.limits().max_loop_iterations.unwrap_or(0);
            specialization.push(spec_id::LOOP_LIMIT, &[limit]);
        }
        if crate::config::force_exact_paths() {
            specialization.push(spec_id::FORCE_EXACT_PATHS, &[1]);
        } else if device.limits().rounds_f32_exactly {
            specialization.push(spec_id::DEVICE_ROUNDS_EXACTLY, &[1]);
        }
        if device.fences_as_atomics() {
            specialization.push(spec_id::FENCES_AS_ATOMICS, &[1]);
        }
        let pipeline = cached(device, info, &specialization)?;
        Ok(LaunchPlan {
            push,
            groups,
            pipeline,
        })
    })?;
    let (pipeline, push, groups) = (&plan.pipeline, &plan.push[..], plan.groups);

    // The thread's binding lists, reused so that a launch does not allocate them (a launch
    // made while they are out, from a destructor, gets new ones).
    let (mut bindings, mut prepared) = SCRATCH.take();
    let result = (|| {
        let (_, queue) = vulkan_queue(view)?;
        let oob_report = bind(acc, queue, info, &args, &mut bindings, &mut prepared)?;
        let (images, image_owners) = bind_images(acc, info, &args)?;
        let report = oob_report.map(|r| (r, info));
        enqueue(
            view,
            Timed {
                kernel: info.name,
                tune,
            },
            pipeline,
            &bindings,
            &prepared,
            &images,
            image_owners,
            report,
            push,
            groups,
            || mark_written(&args, acc),
        )
    })();
    bindings.clear();
    prepared.clear();
    SCRATCH.set((bindings, prepared));
    result
}

thread_local! {
    /// A launch's buffers and whether it writes each, kept (empty) between launches.
    static TOUCHED: std::cell::Cell<Vec<(vk::Buffer, bool)>> = const {
        std::cell::Cell::new(Vec::new())
    };
    /// A launch's buffer bindings and prepared buffers, kept (empty) between launches.
    static SCRATCH: std::cell::Cell<(Bindings, Vec<Prepared>)> = const {
        std::cell::Cell::new((Vec::new(), Vec::new()))
    };
}

/// Checks that the device can run the kernel: `f64` support and the push-constant size.
fn check_capabilities(info: &KernelInfo, device: &Device) -> Result<(), Error> {
    if info.uses_float64 && !device.supports_float64() {
        return Err(Error::MissingCapability {
            kernel: info.name.to_owned(),
            capability: "shaderFloat64",
            device: device.name().to_owned(),
        });
    }
    let limit = device.limits().max_push_constants_size;
    if info.push_constant_size > limit {
        return Err(Error::PushConstantsTooLarge {
            kernel: info.name.to_owned(),
            size: info.push_constant_size,
            limit,
        });
    }
    Ok(())
}

/// Adds the call's specialization constants (`SpecId` 3, 4, ...) to `specialization`.
fn push_spec_constants(info: &KernelInfo, spec: &[u32], specialization: &mut Specialization) {
    let mut words = spec;
    for (i, ty) in info.spec_constants.iter().enumerate() {
        let (value, rest) = words.split_at(ty.push_size() as usize / 4);
        specialization.push(spec_id::FIRST_OUTER_CONST + i as u32, value);
        words = rest;
    }
}

/// How many of a batch's most recent buffers a launch looks through for its own (a buffer the
/// batch holds already is not added again).
const RECENT_SINKS: usize = 16;

/// Binding numbers with the buffer ranges bound there.
pub(super) type Bindings = Vec<(u32, vk::DescriptorBufferInfo)>;

/// The device and queue a Vulkan launch on `view` records into.
fn vulkan_queue(view: &AcceleratorView) -> Result<(&Arc<Device>, &Arc<Queue>), Error> {
    view.queue().ok_or_else(|| Error::NativeUnsupported {
        what: "a Vulkan dispatch".into(),
        reason: "the native CPU accelerator has no Vulkan queue".into(),
    })
}

/// The launch's descriptor bindings, into `bindings` and `prepared` (empty): each buffer
/// argument made current on `acc` (uploads recorded on the launch's `queue`), then the
/// out-of-bounds report of a checked kernel (returned too, to be read after the launch).
fn bind(
    acc: &Accelerator,
    queue: &Arc<Queue>,
    info: &KernelInfo,
    args: &[KernelArg<'_>],
    bindings: &mut Bindings,
    prepared: &mut Vec<Prepared>,
) -> Result<Option<OobReport>, Error> {
    for (param, arg) in info.params.iter().zip(args) {
        if let (
            ParamKind::Buffer {
                binding, writable, ..
            },
            Arg::Buffer { buf, .. },
        ) = (param.kind, &arg.0)
        {
            let mut p = buf.prepare(acc, queue)?;
            p.writes = writable;
            bindings.push((binding, p.info));
            prepared.push(p);
        }
    }
    let oob_report = OobReport::for_launch(acc.vulkan("a Vulkan launch")?, info)?;
    bindings.extend(oob_report.as_ref().map(OobReport::binding));
    Ok(oob_report)
}

/// Binding numbers with the images and samplers bound there.
type ImageBindings = Vec<(u32, ImageDescriptor)>;

/// The launch's texture and sampler bindings, and the images the batch must keep: checks
/// that each texture lives on `acc`, can be used as the kernel uses it, and is not both read
/// and written.
fn bind_images(
    acc: &Accelerator,
    info: &KernelInfo,
    args: &[KernelArg<'_>],
) -> Result<(ImageBindings, Vec<Arc<Image>>), Error> {
    if !args
        .iter()
        .any(|a| matches!(a.0, Arg::Texture { .. } | Arg::Sampler(_)))
    {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut images = Vec::new();
    let mut owners: Vec<(Arc<Image>, TextureAccess)> = Vec::new();
    let device = acc.vulkan("textures")?;
    let linear_sampler = args
        .iter()
        .any(|a| matches!(&a.0, Arg::Sampler(s) if s.filter() == Filter::Linear));
    for (param, arg) in info.params.iter().zip(args) {
        match (param.kind, &arg.0) {
            (
                ParamKind::Texture { binding, .. },
                Arg::Texture {
                    target,
                    access,
                    texel,
                },
            ) => {
                if target.acc != *acc {
                    return Err(Error::AcceleratorMismatch {
                        array: target.acc.name().to_owned(),
                        launch: acc.name().to_owned(),
                    });
                }
                let unsupported = |reason: &str| Error::UnsupportedFormat {
                    format: target.format.clone(),
                    device: device.name().to_owned(),
                    reason: format!("parameter `{}`: {reason}", param.name),
                };
                let image = target.texels.image(&target.acc, acc.name())?;
                let descriptor = match access {
                    TextureAccess::Read => {
                        let filtered = !matches!(
                            texel,
                            ElemType::Scalar(ScalarType::I32 | ScalarType::U32)
                                | ElemType::Vector(ScalarType::I32 | ScalarType::U32, _)
                        );
                        if linear_sampler && filtered && !image.linear {
                            return Err(unsupported(
                                "the format has no linear filtering (SAMPLED_IMAGE_FILTER_LINEAR); sample it with `Filter::Nearest` or use 8 bits per scalar",
                            ));
                        }
                        ImageDescriptor::Sampled(image.view())
                    }
                    TextureAccess::Write => {
                        if !image.storage {
                            return Err(unsupported(
                                "kernels cannot write the format (no STORAGE_IMAGE feature); write another bit width",
                            ));
                        }
                        if !device.storage_image_write_without_format() {
                            return Err(Error::MissingCapability {
                                kernel: info.name.to_owned(),
                                capability: "shaderStorageImageWriteWithoutFormat",
                                device: device.name().to_owned(),
                            });
                        }
                        ImageDescriptor::Storage(image.view())
                    }
                };
                if owners
                    .iter()
                    .any(|(o, a)| Arc::ptr_eq(o, image) && a != access)
                {
                    return Err(Error::ArgumentMismatch {
                        kernel: info.name.to_owned(),
                        reason: format!(
                            "parameter `{}`: the texture is both read and written in this launch (a `TextureView` and a `WriteonlyTextureView` of one texture); write into a second texture",
                            param.name
                        ),
                    });
                }
                owners.push((image.clone(), *access));
                images.push((binding, descriptor));
            }
            (ParamKind::Sampler { binding }, Arg::Sampler(s)) => {
                images.push((binding, ImageDescriptor::Sampler(s.vk(device)?)));
            }
            _ => {}
        }
    }
    Ok((images, owners.into_iter().map(|(o, _)| o).collect()))
}

/// Records one dispatch of `pipeline` (of the kernel `kernel`, for timing) into `view`'s open batch, after the work of other
/// views that uses its buffers (waited for on the host); the batch keeps the buffers (and the
/// out-of-bounds report, read when the batch finished) alive. `mark` runs once the dispatch
/// is recorded (marking the written views). Waits for the batch when a buffer is host memory
/// used in place or `AMP_SYNC_LAUNCHES=1`, and then returns the launch's device error.
#[allow(clippy::too_many_arguments)]
pub(super) fn enqueue(
    view: &AcceleratorView,
    timed: Timed<'_>,
    pipeline: &Pipeline,
    bindings: &[(u32, vk::DescriptorBufferInfo)],
    prepared: &[Prepared],
    images: &[(u32, ImageDescriptor)],
    image_owners: Vec<Arc<Image>>,
    report: Option<(OobReport, &'static KernelInfo)>,
    push: &[u8],
    groups: [u32; 3],
    mark: impl FnOnce(),
) -> Result<(), Error> {
    let (device, queue) = vulkan_queue(view)?;
    for p in prepared {
        p.buffer.wait_for_other_views(queue)?;
    }
    for image in &image_owners {
        image.pending().wait(device, Some(queue), false, false)?;
    }
    let must_wait = sync_launches() || prepared.iter().any(|p| p.in_place);
    // The launch's own error, when the kernel is checked.
    let cell = report.as_ref().map(|_| Arc::new(Reported::default()));
    let buffers = || prepared.iter().map(|p| &p.buffer);
    let descriptors = (bindings.len() + images.len()) as u32;
    // A launch depends on the earlier ones that wrote what it reads or touched what it writes
    // (textures: on every earlier one).
    let mut touched = TOUCHED.take();
    touched.extend(prepared.iter().map(|p| (p.buffer.raw(), p.writes)));
    let touches = if image_owners.is_empty() {
        Touches::Buffers(&touched)
    } else {
        Touches::Everything
    };
    let recorded = queue.record(
        device,
        descriptors,
        Some(timed),
        touches,
        |rec| pipeline.record(rec, bindings, images, push, groups),
        |work| {
            for image in &image_owners {
                work.keep.push(image.clone());
                work.sinks.push(image.pending().clone());
            }
            for b in buffers() {
                // The batch keeps each buffer once: a chain of launches over a few arrays
                // finds them among its most recent ones.
                let recent = work.sinks.len().saturating_sub(RECENT_SINKS);
                let held = work.sinks[recent..]
                    .iter()
                    .any(|p| Arc::ptr_eq(p, b.pending()));
                if !held {
                    work.keep.push(b.clone());
                    work.sinks.push(b.pending().clone());
                }
            }
            if let (Some((report, info)), Some(cell)) = (report, &cell) {
                // A launch that waits reports its error itself, and only there.
                let sinks = if must_wait {
                    Vec::new()
                } else {
                    buffers().map(|b| b.pending().clone()).collect()
                };
                work.checks.push(Check {
                    run: Box::new(move || report.check(info).err()),
                    cell: cell.clone(),
                    sinks,
                    to_view: !must_wait,
                });
            }
        },
    );
    touched.clear();
    TOUCHED.set(touched);
    let ((), ticket) = recorded?;
    // Every launch notes its ticket on its buffers itself, also where the batch held the
    // buffer already: the launch that put it there adds its own ticket only after the queue's
    // lock is released, so a wait in between must not depend on it.
    for b in buffers() {
        b.pending().add(&ticket);
    }
    for image in &image_owners {
        image.pending().add(&ticket);
    }
    mark();
    if must_wait {
        let waited = queue.wait_for(device, ticket.serial(), false);
        if matches!(waited, Err(Error::Timeout { .. })) && prepared.iter().any(|p| p.in_place) {
            // The device uses the caller's host memory in place: the launch may not return
            // while it does, whatever the timeout (the borrow would end with the call, and a
            // view forgotten after it would let the memory be freed under the device). It
            // reports the timeout once the work is done.
            queue.wait_for(device, ticket.serial(), true)?;
        }
        waited?;
        if let Some(e) = cell.and_then(|c| c.take()) {
            return Err(e);
        }
    }
    Ok(())
}
