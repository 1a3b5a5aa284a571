//! Launches: [`parallel_for_each`] and [`parallel_for_each_on`], run as named steps: shape
//! checks, argument encoding, the grid, specialization, binding, and finishing (marking
//! written views, reading the out-of-bounds report).

use ash::vk;

use super::args::{encode_args, push_block, INLINE_PUSH_BYTES};
use super::bounds::OobReport;
use super::cache::cached;
use super::call::{mark_written, Arg, ComputeDomain, KernelArg, Plan, Tiling};
use super::grid::{simple_grid, tiled_grid};
use super::pipeline::{Pipeline, Specialization};
use crate::device::{Accelerator, AcceleratorView, Device, LaunchTarget};
use crate::dims::dims_list;
use crate::extent::validate_dims;
use crate::kernel::{spec_id, KernelInfo, ParamKind};
use crate::Error;

/// The accelerator the arrays among `args` live on, if any.
fn home(args: &[KernelArg<'_>]) -> Result<Option<Accelerator>, Error> {
    let mut home: Option<Accelerator> = None;
    for arg in args {
        if let Arg::Buffer { buf, .. } = &arg.0 {
            if let Some(acc) = buf.home() {
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
/// default view of the accelerator the call's [`Array`](crate::Array)s live on, or else of the
/// default accelerator, and waits for it to finish.
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
    let acc = match home(&plan.args)? {
        Some(acc) => acc,
        None => Accelerator::default()?,
    };
    launch(&acc.default_view(), plan)
}

/// [`parallel_for_each`] on a chosen accelerator (its default view) or
/// [`AcceleratorView`]. Arrays in the call must live on its accelerator.
///
/// Launches on one view run in the order they are made. Like [`parallel_for_each`] it returns
/// once the device has finished the launch (see [`AcceleratorView`]).
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

/// Runs `plan` on `view` and waits for it.
fn launch(view: &AcceleratorView, plan: Plan<'_>) -> Result<(), Error> {
    let acc = view.accelerator();
    let device = acc.device();
    let Plan {
        info,
        args,
        spec,
        domain,
        tiling,
    } = plan;
    let total = check_shape(info, &domain, tiling.as_ref())?;
    check_capabilities(info, device)?;
    check_spec_words(info, &spec)?;

    let mut specialization = Specialization::default();
    let mut inline = [0u8; INLINE_PUSH_BYTES];
    let mut heap = Vec::new();
    let push = push_block(&mut inline, &mut heap, info.push_constant_size);
    encode_args(info, &args, &domain, push, &mut specialization)?;
    let groups = match &tiling {
        None => simple_grid(info, total, device.limits())?,
        Some(t) => tiled_grid(info, &domain, t, device.limits(), &mut specialization)?,
    };
    push_spec_constants(info, &spec, &mut specialization);
    let pipeline = cached(device, info, &specialization)?;

    let (bindings, oob_report) = bind(acc, info, &args, &pipeline)?;
    let ran = pipeline.run(device, view.submitter(), &bindings, push, groups);
    finish(ran, acc, info, &args, oob_report)
}

/// Checks the domain (usable, the kernel's rank) and the model (a tiled kernel over a tiled
/// extent of the kernel's tile rank, a simple kernel over a plain one); returns the domain's
/// element count.
fn check_shape(info: &KernelInfo, domain: &[usize], tiling: Option<&Tiling>) -> Result<u64, Error> {
    let mismatch = |reason: String| Error::ArgumentMismatch {
        kernel: info.name.to_owned(),
        reason,
    };
    let total = validate_dims(domain)? as u64;
    let rank = domain.len();
    if info.rank as usize != rank {
        return Err(mismatch(format!(
            "the kernel's index has rank {} but the domain has rank {rank}",
            info.rank
        )));
    }
    match tiling {
        None if info.tile_rank != 0 => Err(mismatch(format!(
            "the kernel is tiled (tile rank {}); launch it over a tiled extent \
             (`extent.tile::<...>()`)",
            info.tile_rank
        ))),
        Some(_) if info.tile_rank == 0 => Err(mismatch(
            "the kernel is not tiled; launch it over a plain extent".into(),
        )),
        Some(t) if info.tile_rank as usize != t.tile.len() => Err(mismatch(format!(
            "the kernel's tile has rank {} but the domain's tile {} has rank {}",
            info.tile_rank,
            dims_list(t.tile),
            t.tile.len()
        ))),
        _ => Ok(total),
    }
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

/// Checks the call's specialization-constant words against the kernel's constants' types.
fn check_spec_words(info: &KernelInfo, spec: &[u32]) -> Result<(), Error> {
    let expected_words: usize = info
        .spec_constants
        .iter()
        .map(|t| t.size() as usize / 4)
        .sum();
    if spec.len() != expected_words {
        return Err(Error::ArgumentMismatch {
            kernel: info.name.to_owned(),
            reason: format!(
                "the kernel has {} specialization constants ({expected_words} words) but the \
                 call supplies {} words",
                info.spec_constants.len(),
                spec.len()
            ),
        });
    }
    Ok(())
}

/// Adds the call's specialization constants (`SpecId` 3, 4, ...) to `specialization`.
fn push_spec_constants(info: &KernelInfo, spec: &[u32], specialization: &mut Specialization) {
    let mut words = spec;
    for (i, ty) in info.spec_constants.iter().enumerate() {
        let (value, rest) = words.split_at(ty.size() as usize / 4);
        specialization.push(spec_id::FIRST_OUTER_CONST + i as u32, value);
        words = rest;
    }
}

/// Binding numbers with the buffer ranges bound there.
type Bindings = Vec<(u32, vk::DescriptorBufferInfo)>;

/// The launch's descriptor bindings: each buffer argument made current on `acc`, then the
/// out-of-bounds report of a checked kernel (returned too, to be read after the launch).
fn bind(
    acc: &Accelerator,
    info: &KernelInfo,
    args: &[KernelArg<'_>],
    pipeline: &Pipeline,
) -> Result<(Bindings, Option<OobReport>), Error> {
    let mut bindings = Vec::with_capacity(pipeline.bindings as usize);
    for (param, arg) in info.params.iter().zip(args) {
        if let (ParamKind::Buffer { binding, .. }, Arg::Buffer { buf, .. }) = (param.kind, &arg.0) {
            bindings.push((binding, buf.prepare(acc)?));
        }
    }
    let oob_report = OobReport::for_launch(acc.device(), info)?;
    bindings.extend(oob_report.as_ref().map(OobReport::binding));
    Ok((bindings, oob_report))
}

/// After the dispatch: marks the written views and turns a failed access into
/// [`Error::IndexOutOfBounds`]. A launch whose wait timed out is still running: its writes
/// will land, so the views are marked written (reading them waits for it), and its report
/// goes back to the pool only once it is done.
fn finish(
    ran: Result<(), Error>,
    acc: &Accelerator,
    info: &KernelInfo,
    args: &[KernelArg<'_>],
    oob_report: Option<OobReport>,
) -> Result<(), Error> {
    if let Err(Error::Timeout { .. }) = ran {
        mark_written(args, acc);
        if let Some(report) = oob_report {
            report.give_back_after_abandoned_work();
        }
        return ran;
    }
    ran?;
    mark_written(args, acc);
    // The in-bounds writes happened (the views are marked above); now the failed accesses.
    match oob_report {
        Some(report) => report.check(info),
        None => Ok(()),
    }
}
