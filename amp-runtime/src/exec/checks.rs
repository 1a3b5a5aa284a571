//! The checks every launch gets before it runs, on Vulkan or natively: the domain against the
//! kernel's rank and model, and the outer constants' words against their types.

use super::call::Tiling;
use crate::dims::dims_list;
use crate::extent::validate_dims;
use crate::kernel::KernelInfo;
use crate::Error;

/// Checks the domain (usable, the kernel's rank) and the model (a tiled kernel over a tiled
/// extent of the kernel's tile rank, a simple kernel over a plain one); returns the domain's
/// element count.
pub(super) fn check_shape(
    info: &KernelInfo,
    domain: &[usize],
    tiling: Option<&Tiling>,
) -> Result<u64, Error> {
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

/// Checks the call's specialization-constant words against the kernel's constants' types.
pub(super) fn check_spec_words(info: &KernelInfo, spec: &[u32]) -> Result<(), Error> {
    let expected_words: usize = info
        .spec_constants
        .iter()
        .map(|t| t.push_size() as usize / 4)
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
