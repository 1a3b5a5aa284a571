//! Adapting a kernel's float-controls request (`SignedZeroInfNanPreserve`) to what the
//! device supports.

/// The module as this device can load it: kernels ask for `SignedZeroInfNanPreserve` (Rust's
/// float semantics); on a device that cannot keep NaN, infinities and signed zeros for a width,
/// that request is dropped (and with it, when no width is left, the capability and extension),
/// so the kernel still runs, with the driver free to fold `x * 0.0` and the like.
pub(super) fn float_controls_for(
    words: &[u32],
    preserve: [bool; 2],
) -> std::borrow::Cow<'_, [u32]> {
    const OP_EXTENSION: u32 = 10;
    const OP_EXECUTION_MODE: u32 = 16;
    const OP_CAPABILITY: u32 = 17;
    const CAPABILITY_PRESERVE: u32 = 4466;
    const MODE_PRESERVE: u32 = 4461;
    let supported = |width: u32| match width {
        32 => preserve[0],
        64 => preserve[1],
        _ => false,
    };
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..words.len().min(5)]);
    let mut dropped = false;
    let mut kept = false;
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let inst = &words[at..(at + count).min(words.len())];
        at += count;
        if inst[0] & 0xffff == OP_EXECUTION_MODE && inst.get(2) == Some(&MODE_PRESERVE) {
            if inst.get(3).is_some_and(|&w| supported(w)) {
                kept = true;
            } else {
                dropped = true;
                continue;
            }
        }
        out.extend_from_slice(inst);
    }
    if !dropped {
        return std::borrow::Cow::Borrowed(words);
    }
    if !kept {
        out = strip_float_controls_declarations(
            &out,
            OP_CAPABILITY,
            CAPABILITY_PRESERVE,
            OP_EXTENSION,
        );
    }
    std::borrow::Cow::Owned(out)
}

fn strip_float_controls_declarations(
    words: &[u32],
    op_capability: u32,
    capability: u32,
    op_extension: u32,
) -> Vec<u32> {
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
        let is_capability = op == op_capability && inst.get(1) == Some(&capability);
        let is_extension = op == op_extension && inst[1..] == name[..];
        if !is_capability && !is_extension {
            out.extend_from_slice(inst);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::float_controls_for;

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
        assert_eq!(&*float_controls_for(&m, [true, false]), &m[..]);
    }

    #[test]
    fn stripped_where_unsupported() {
        let m = module();
        assert_eq!(&*float_controls_for(&m, [false, true]), &m[..5]);
    }
}
