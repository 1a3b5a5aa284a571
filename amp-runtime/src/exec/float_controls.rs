//! Adapting a kernel's float-controls request (`SignedZeroInfNanPreserve`) to what the
//! device supports, and asking for denormals to be kept where the device can.

use crate::device::FloatControls;

const OP_EXTENSION: u32 = 10;
const OP_EXECUTION_MODE: u32 = 16;
const OP_CAPABILITY: u32 = 17;
const CAPABILITY_DENORM_PRESERVE: u32 = 4464;
const CAPABILITY_PRESERVE: u32 = 4466;
const MODE_DENORM_PRESERVE: u32 = 4459;
const MODE_PRESERVE: u32 = 4461;

/// The module as this device can load it. Kernels ask for `SignedZeroInfNanPreserve` (Rust's
/// float semantics); on a device that cannot keep NaN, infinities and signed zeros for a width,
/// that request is dropped (and with it, when no width is left, the capability and extension),
/// so the kernel still runs, with the driver free to fold `x * 0.0` and the like. For each
/// width whose request is kept, `DenormPreserve` is added where the device can keep denormals
/// (Rust never flushes them; without the mode a GPU may, as NVIDIA's do).
pub(super) fn float_controls_for(
    words: &[u32],
    controls: FloatControls,
) -> std::borrow::Cow<'_, [u32]> {
    let width = |w: u32, of: [bool; 2]| match w {
        32 => of[0],
        64 => of[1],
        _ => false,
    };
    let mut out = Vec::with_capacity(words.len() + 16);
    out.extend_from_slice(&words[..words.len().min(5)]);
    let (mut dropped, mut kept, mut denormals) = (false, false, false);
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        at += count;
        if inst[0] & 0xffff == OP_EXECUTION_MODE && inst.get(2) == Some(&MODE_PRESERVE) {
            let w = inst.get(3).copied().unwrap_or(0);
            if !width(w, controls.preserve_specials) {
                dropped = true;
                continue;
            }
            kept = true;
            if width(w, controls.preserve_denormals) {
                out.extend_from_slice(inst);
                out.extend([
                    (4 << 16) | OP_EXECUTION_MODE,
                    inst[1],
                    MODE_DENORM_PRESERVE,
                    w,
                ]);
                denormals = true;
                continue;
            }
        }
        out.extend_from_slice(inst);
    }
    if !dropped && !denormals {
        return std::borrow::Cow::Borrowed(words);
    }
    if !kept {
        out = strip_float_controls_declarations(&out);
    } else if denormals {
        // The capability goes beside the module's other capabilities (they come first).
        let at = capability_end(&out);
        out.splice(
            at..at,
            [(2 << 16) | OP_CAPABILITY, CAPABILITY_DENORM_PRESERVE],
        );
    }
    std::borrow::Cow::Owned(out)
}

/// The word after the module's last `OpCapability` (they follow the header).
fn capability_end(words: &[u32]) -> usize {
    let mut at = 5.min(words.len());
    while at < words.len() && words[at] & 0xffff == OP_CAPABILITY {
        at += ((words[at] >> 16) as usize).max(1);
    }
    at
}

fn strip_float_controls_declarations(words: &[u32]) -> Vec<u32> {
    let name: Vec<u32> = b"SPV_KHR_float_controls\0\0"
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..words.len().min(5)]);
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        at += count;
        let op = inst[0] & 0xffff;
        let is_capability = op == OP_CAPABILITY && inst.get(1) == Some(&CAPABILITY_PRESERVE);
        let is_extension = op == OP_EXTENSION && inst[1..] == name[..];
        if !is_capability && !is_extension {
            out.extend_from_slice(inst);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::float_controls_for;
    use crate::device::FloatControls;

    fn controls(specials: [bool; 2], denormals: [bool; 2]) -> FloatControls {
        FloatControls {
            preserve_specials: specials,
            preserve_denormals: denormals,
        }
    }

    /// A module header plus `OpCapability SignedZeroInfNanPreserve`,
    /// `OpExtension "SPV_KHR_float_controls"` and `OpExecutionMode %1 SignedZeroInfNanPreserve 32`.
    fn module() -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0300, 0, 10, 0];
        w.extend([(2 << 16) | 17, 4466]);
        let name: Vec<u32> = b"SPV_KHR_float_controls\0\0"
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        w.push(((1 + name.len() as u32) << 16) | 10);
        w.extend(&name);
        w.extend([(4 << 16) | 16, 1, 4461, 32]);
        w
    }

    #[test]
    fn kept_where_supported() {
        let m = module();
        assert_eq!(
            &*float_controls_for(&m, controls([true, false], [false, false])),
            &m[..]
        );
    }

    #[test]
    fn stripped_where_unsupported() {
        let m = module();
        assert_eq!(
            &*float_controls_for(&m, controls([false, true], [true, true])),
            &m[..5]
        );
    }

    #[test]
    fn denormals_kept_where_supported() {
        let m = module();
        let out = float_controls_for(&m, controls([true, false], [true, false]));
        // The capability after the first, the mode after the first mode.
        assert_eq!(&out[5..9], &[(2 << 16) | 17, 4466, (2 << 16) | 17, 4464]);
        assert_eq!(
            &out[out.len() - 8..],
            &[(4 << 16) | 16, 1, 4461, 32, (4 << 16) | 16, 1, 4459, 32]
        );
        // Not for a width the device cannot keep.
        let out = float_controls_for(&m, controls([true, true], [false, true]));
        assert_eq!(&*out, &m[..]);
    }
}
