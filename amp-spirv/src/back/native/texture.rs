//! Texture operations as Rust: texel reads, writes, samples and gathers on the thread ABI's
//! `Tex` (the texture's texels in host memory, in their own format) with a `Smp`, through the
//! helpers of amp-native-rt, which give Vulkan's semantics (see the SPIR-V back end's
//! `texture.rs`): a texel read and a sample give four components, a write takes four, and the
//! texel type keeps its own. Checked kernels compare every index component with the extent,
//! as the SPIR-V back end does for textures.

use super::{broken, Emitter, Res};
use crate::back::BoundsChecks;
use crate::ir::*;
use crate::types::{Scalar, Ty};

impl Emitter<'_> {
    /// The component type texture `p`'s texels are read and written as (`f32` for float and
    /// normalized texels, `i32` or `u32` for integer ones), and the texel's component count
    /// (`None` for a scalar texel).
    fn texel_shape(&self, p: ParamId) -> Res<(&'static str, Option<u32>)> {
        let ParamKind::Texture { texel, .. } = &self.k.params[p].kind else {
            return broken(
                "texture operations name texture parameters",
                self.k.params[p].span,
            );
        };
        let ty = texel.ty();
        let comp = match ty.component() {
            Some(Scalar::I32) => "i32",
            Some(Scalar::U32) => "u32",
            _ => "f32",
        };
        let n = match ty {
            Ty::Vector(_, n) => Some(n),
            _ => None,
        };
        Ok((comp, n))
    }

    /// The texel of `n` components (`None`: a scalar) in the first components of `v4`.
    fn texel_from4(v4: &str, n: Option<u32>) -> String {
        match n {
            Some(4) => v4.to_string(),
            Some(n) => {
                let parts: Vec<String> = (0..n).map(|k| format!("tv4[{k}]")).collect();
                format!("{{ let tv4 = {v4}; [{}] }}", parts.join(", "))
            }
            None => format!("({v4}[0])"),
        }
    }

    /// The texel `v` of `n` components as the four a write takes (zeros after them).
    fn texel_to4(v: &str, comp: &str, n: Option<u32>) -> String {
        let zero = format!("(0 as {comp})");
        match n {
            Some(4) => v.to_string(),
            Some(n) => {
                let parts: Vec<String> = (0..4)
                    .map(|k| match k < n {
                        true => format!("tv[{k}]"),
                        false => zero.clone(),
                    })
                    .collect();
                format!("{{ let tv = {v}; [{}] }}", parts.join(", "))
            }
            None => format!("[{v}, {zero}, {zero}, {zero}]"),
        }
    }

    /// A texture operation (`ExprKind::Texture`).
    pub(super) fn texture_op(
        &mut self,
        op: TextureOp,
        p: ParamId,
        operands: &[Expr],
    ) -> Res<String> {
        let checked = self.checks == BoundsChecks::On;
        let (comp, n) = self.texel_shape(p)?;
        Ok(match op {
            TextureOp::Extent => format!("p{p}.extent"),
            TextureOp::Load => {
                let index = self.indices(operands)?;
                let v4 = if checked {
                    format!("p{p}.load::<{comp}>({index}, {p}, oob)")
                } else {
                    format!("p{p}.load_unchecked::<{comp}>({index})")
                };
                Self::texel_from4(&v4, n)
            }
            TextureOp::Store => {
                let (idx, value) = operands.split_at(operands.len() - 1);
                // The value first, then the index, as the SPIR-V back end evaluates them.
                let v = self.expr(&value[0])?;
                let index = self.indices(idx)?;
                let v4 = Self::texel_to4("tval", comp, n);
                let store = if checked {
                    format!("p{p}.store::<{comp}>(bix, {v4}, {p}, oob)")
                } else {
                    format!("p{p}.store_unchecked::<{comp}>(bix, {v4})")
                };
                format!("{{ let tval = {v}; let bix = {index}; {store}; }}")
            }
            TextureOp::Sample(s) => {
                let coord = self.coord(&operands[0])?;
                Self::texel_from4(&format!("p{p}.sample(p{s}, {coord})"), n)
            }
            TextureOp::Gather(s, component) => {
                let coord = self.coord(&operands[0])?;
                format!("p{p}.gather::<{comp}>(p{s}, {coord}, {component})")
            }
        })
    }

    /// A sample's coordinate as the `[f32; R]` the helpers take (an `f32` for rank 1).
    fn coord(&mut self, e: &Expr) -> Res<String> {
        let c = self.expr(e)?;
        Ok(match e.ty {
            Ty::Scalar(_) => format!("[{c}]"),
            _ => c,
        })
    }
}
