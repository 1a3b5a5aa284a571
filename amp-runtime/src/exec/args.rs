//! Argument encoding: a call's arguments checked against the kernel's parameters and written
//! into the push-constant block, with each view's layout facts for the specialization.

use super::call::{Arg, KernelArg};
use super::pipeline::Specialization;
use crate::kernel::{
    buffer_layout, texture_fact, KernelInfo, ParamKind, TextureAccess, LAYOUT_SPEC_ID_BASE,
};
use crate::texture::TexelKind;
use crate::Error;

/// Checks `args` against the kernel's parameters and writes them into the push-constant block
/// `push`: the domain's extent, then per buffer its extent, element offset and strides, per
/// scalar or value its bits. Each buffer's layout facts go into `specialization`.
pub(super) fn encode_args(
    info: &KernelInfo,
    args: &[KernelArg<'_>],
    domain: &[usize],
    push: &mut [u8],
    specialization: &mut Specialization,
) -> Result<(), Error> {
    let mismatch = |reason: String| Error::ArgumentMismatch {
        kernel: info.name.to_owned(),
        reason,
    };
    if args.len() != info.params.len() {
        return Err(mismatch(format!(
            "expected {} arguments, got {}",
            info.params.len(),
            args.len()
        )));
    }
    put(push, 0, dim_words(domain), info, "the domain extent")?;
    for (param, arg) in info.params.iter().zip(args) {
        match (param.kind, &arg.0) {
            (
                ParamKind::Buffer {
                    elem,
                    rank,
                    writable,
                    extent_offset,
                    binding,
                },
                Arg::Buffer { buf, writable: w },
            ) => {
                if buf.elem() != elem {
                    return Err(mismatch(format!(
                        "parameter `{}` has element type {} but the argument has {}",
                        param.name,
                        elem,
                        buf.elem()
                    )));
                }
                if buf.dims().len() != rank as usize {
                    return Err(mismatch(format!(
                        "parameter `{}` has rank {rank} but the argument has rank {}",
                        param.name,
                        buf.dims().len()
                    )));
                }
                if writable && !w {
                    return Err(mismatch(format!(
                        "parameter `{}` is written by the kernel but was passed read-only",
                        param.name
                    )));
                }
                let dims = buf.dims();
                let strides = buf.strides();
                let offset_at = extent_offset + 4 * buffer_layout::offset_word(rank);
                let strides_at = extent_offset + 4 * buffer_layout::strides_word(rank);
                put(push, extent_offset, dim_words(dims), info, param.name)?;
                put(push, offset_at, [buf.offset() as u32], info, param.name)?;
                put(push, strides_at, dim_words(&strides), info, param.name)?;
                // What this launch's view looks like, for the pipeline's specialization.
                specialization.push(
                    LAYOUT_SPEC_ID_BASE + binding,
                    &[layout_facts(buf.offset(), dims, &strides, domain)],
                );
            }
            (ParamKind::Scalar { ty, offset }, Arg::Scalar { ty: t, bits }) => {
                if ty != *t {
                    return Err(mismatch(format!(
                        "parameter `{}` has type {} but the argument has type {}",
                        param.name,
                        ty.name(),
                        t.name()
                    )));
                }
                // A host `usize` past what the kernel's 32-bit `usize` holds.
                if ty.push_size() == 4 && *bits > u64::from(u32::MAX) {
                    return Err(mismatch(format!(
                        "parameter `{}` is {bits}, more than a kernel's 32-bit `usize` holds ({})",
                        param.name,
                        u32::MAX
                    )));
                }
                // An 8-byte scalar is two words in host byte order.
                let (lo, hi) = (*bits as u32, (*bits >> 32) as u32);
                let (first, second) = if cfg!(target_endian = "little") {
                    (lo, hi)
                } else {
                    (hi, lo)
                };
                match ty.push_size() {
                    8 => put(push, offset, [first, second], info, param.name)?,
                    _ => put(push, offset, [lo], info, param.name)?,
                }
            }
            (ParamKind::Value { elem, offset }, Arg::Value { elem: e, bytes }) => {
                if elem != *e {
                    return Err(mismatch(format!(
                        "parameter `{}` has type {elem} but the argument has type {e}",
                        param.name
                    )));
                }
                let words = bytes
                    .chunks_exact(4)
                    .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
                put(push, offset, words, info, param.name)?;
            }
            (
                ParamKind::Texture {
                    binding,
                    texel,
                    rank,
                    access,
                    extent_offset,
                },
                Arg::Texture {
                    target,
                    texel: t,
                    access: a,
                },
            ) => {
                if texel != *t {
                    return Err(mismatch(format!(
                        "parameter `{}` has texel type {texel} but the argument has {t}",
                        param.name
                    )));
                }
                if target.dims.len() != rank as usize {
                    return Err(mismatch(format!(
                        "parameter `{}` has rank {rank} but the texture has rank {}",
                        param.name,
                        target.dims.len()
                    )));
                }
                if access != *a {
                    return Err(mismatch(format!(
                        "parameter `{}` is a {} but a {} was passed",
                        param.name,
                        texture_name(access),
                        texture_name(*a)
                    )));
                }
                put(
                    push,
                    extent_offset,
                    dim_words(&target.dims),
                    info,
                    param.name,
                )?;
                if access == TextureAccess::Write && target.kind == TexelKind::Float {
                    // A 16-bit float texture: the kernel rounds to nearest even itself.
                    let half = if target.bits == 16 {
                        texture_fact::HALF_FLOAT
                    } else {
                        0
                    };
                    specialization.push(LAYOUT_SPEC_ID_BASE + binding, &[half]);
                }
                if matches!(target.kind, TexelKind::Unorm | TexelKind::Norm) {
                    // The kernel decodes the components as the host does, from their codes,
                    // or (written) computes the host's codes itself.
                    let sixteen = if target.bits == 16 {
                        texture_fact::SIXTEEN_BITS
                    } else {
                        0
                    };
                    specialization.push(LAYOUT_SPEC_ID_BASE + binding, &[sixteen]);
                }
            }
            (ParamKind::Sampler { .. }, Arg::Sampler(_)) => {}
            (kind, arg) => {
                return Err(mismatch(format!(
                    "parameter `{}` is a {} but a {} was passed",
                    param.name,
                    kind_name(kind),
                    arg_name(arg)
                )))
            }
        }
    }
    Ok(())
}

/// Writes `words` (host byte order) into the push-constant block at byte `offset`.
fn put<I>(
    block: &mut [u8],
    offset: u32,
    words: I,
    kernel: &KernelInfo,
    what: &str,
) -> Result<(), Error>
where
    I: IntoIterator<Item = u32>,
    I::IntoIter: ExactSizeIterator,
{
    let words = words.into_iter();
    let start = offset as usize;
    let Some(dst) = block.get_mut(start..start + 4 * words.len()) else {
        return Err(Error::InvalidKernel {
            kernel: kernel.name.to_owned(),
            reason: format!(
                "{what} at byte {offset} does not fit the {}-byte push-constant block",
                block.len()
            ),
        });
    };
    for (slot, w) in dst.chunks_exact_mut(4).zip(words) {
        slot.copy_from_slice(&w.to_ne_bytes());
    }
    Ok(())
}

/// What a parameter is, for argument-mismatch messages.
fn kind_name(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Buffer { .. } => "buffer",
        ParamKind::Scalar { .. } => "scalar",
        ParamKind::Value { .. } => "by-value vector or struct",
        ParamKind::Texture { access, .. } => texture_name(access),
        ParamKind::Sampler { .. } => "Sampler",
    }
}

fn texture_name(access: TextureAccess) -> &'static str {
    match access {
        TextureAccess::Read => "TextureView",
        TextureAccess::Write => "WriteonlyTextureView",
    }
}

/// What an argument is, for argument-mismatch messages.
fn arg_name(arg: &Arg<'_>) -> String {
    match arg {
        Arg::Buffer { .. } => "buffer".into(),
        Arg::Scalar { ty, .. } => format!("{} scalar", ty.name()),
        Arg::Value { elem, .. } => format!("{elem} value"),
        Arg::Texture { access, .. } => texture_name(*access).into(),
        Arg::Sampler(_) => "Sampler".into(),
    }
}

/// `dims` as push-constant words (`u32` each; extents were validated to fit).
fn dim_words(dims: &[usize]) -> impl ExactSizeIterator<Item = u32> + '_ {
    dims.iter().map(|&d| d as u32)
}

/// The layout facts ([`crate::kernel::layout_fact`]) of a view with element offset `offset`,
/// extent `dims` and strides `strides` (all but the last dimension's) in a launch over
/// `domain`.
fn layout_facts(offset: usize, dims: &[usize], strides: &[usize], domain: &[usize]) -> u32 {
    use crate::kernel::layout_fact::*;
    let mut facts = 0;
    if offset == 0 {
        facts |= ZERO_OFFSET;
    }
    let mut row_major = true;
    let mut expected = 1;
    for d in (0..dims.len()).rev() {
        if d + 1 < dims.len() {
            row_major &= strides.get(d) == Some(&expected);
        }
        expected *= dims[d];
    }
    if row_major {
        facts |= DENSE;
    }
    if dims.len() == domain.len() {
        if dims.iter().zip(domain).all(|(e, d)| e >= d) {
            facts |= COVERS_DOMAIN;
        }
        for (d, (e, n)) in dims.iter().zip(domain).enumerate() {
            if e == n {
                facts |= EQUALS_DOMAIN_DIM0 << d;
            }
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_facts_of_views() {
        use crate::kernel::layout_fact::*;
        // A whole [4, 6] array in a [4, 6] domain: everything.
        assert_eq!(
            layout_facts(0, &[4, 6], &[6], &[4, 6]),
            ZERO_OFFSET | DENSE | COVERS_DOMAIN | EQUALS_DOMAIN_DIM0 | EQUALS_DOMAIN_DIM0 << 1
        );
        // A [2, 3] section at offset 7 of a [4, 6] array, in a [2, 6] domain.
        assert_eq!(layout_facts(7, &[2, 3], &[6], &[2, 6]), EQUALS_DOMAIN_DIM0);
        // A [8, 6] view in a [4, 6] domain: covers, equal in dimension 1 only.
        assert_eq!(
            layout_facts(0, &[8, 6], &[6], &[4, 6]),
            ZERO_OFFSET | DENSE | COVERS_DOMAIN | EQUALS_DOMAIN_DIM0 << 1
        );
        // Rank 1 in a rank-2 domain: no domain facts; rank 3 strides.
        assert_eq!(layout_facts(0, &[5], &[], &[5, 5]), ZERO_OFFSET | DENSE);
        assert_eq!(
            layout_facts(0, &[2, 3, 4], &[12, 4], &[9]),
            ZERO_OFFSET | DENSE
        );
        assert_eq!(layout_facts(0, &[2, 3, 4], &[24, 4], &[9]), ZERO_OFFSET);
    }
}
