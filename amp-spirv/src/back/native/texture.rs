//! Texture operations as Rust: texel reads, writes, samples and gathers on the thread ABI's
//! `Tex` (the texture's texels in host memory, in their own format) with a `Smp`, through the
//! helpers of amp-native-rt, which give Vulkan's semantics (see the SPIR-V back end's
//! `texture.rs`): a texel read and a sample give four components, a write takes four, and the
//! texel type keeps its own. Checked kernels compare every index component with the extent,
//! as the SPIR-V back end does for textures.

use super::invariant::Invariant;
use super::{broken, index_lit, numbered, Emitter, Res};
use crate::back::BoundsChecks;
use crate::ir::*;
use crate::types::{Scalar, Ty};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote_spanned;

impl Emitter<'_> {
    /// The component type texture `p`'s texels are read and written as (`f32` for float and
    /// normalized texels, `i32` or `u32` for integer ones), and the texel's component count
    /// (`None` for a scalar texel).
    fn texel_shape(&self, p: ParamId) -> Res<(Ident, Option<u32>)> {
        let ParamKind::Texture { texel, .. } = &self.k.params[p].kind else {
            return broken(Invariant::TextureParam, self.k.params[p].span);
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
        Ok((Ident::new(comp, self.at), n))
    }

    /// The texel of `n` components (`None`: a scalar) in the first components of `v4`.
    fn texel_from4(at: Span, v4: TokenStream, n: Option<u32>) -> TokenStream {
        match n {
            Some(4) => v4,
            Some(n) => {
                let parts = (0..n).map(|k| {
                    let k = index_lit(k);
                    quote_spanned!(at=> tv4[#k])
                });
                quote_spanned!(at=> { let tv4 = #v4; [#(#parts),*] })
            }
            None => quote_spanned!(at=> (#v4[0])),
        }
    }

    /// The texel `v` of `n` components as the four a write takes (zeros after them).
    fn texel_to4(at: Span, v: TokenStream, comp: &Ident, n: Option<u32>) -> TokenStream {
        let zero = quote_spanned!(at=> (0 as #comp));
        match n {
            Some(4) => v,
            Some(n) => {
                let parts = (0..4).map(|k| match k < n {
                    true => {
                        let k = index_lit(k);
                        quote_spanned!(at=> tv[#k])
                    }
                    false => zero.clone(),
                });
                quote_spanned!(at=> { let tv = #v; [#(#parts),*] })
            }
            None => quote_spanned!(at=> [#v, #zero, #zero, #zero]),
        }
    }

    /// A texture operation (`ExprKind::Texture`).
    pub(super) fn texture_op(
        &mut self,
        op: TextureOp,
        p: ParamId,
        operands: &[Expr],
    ) -> Res<TokenStream> {
        let at = self.at;
        let checked = self.plan.checks() == BoundsChecks::On;
        let (comp, n) = self.texel_shape(p)?;
        let (pn, pl) = (numbered("p", p), index_lit(p));
        Ok(match op {
            TextureOp::Extent => quote_spanned!(at=> #pn.extent),
            TextureOp::Load => {
                let index = self.indices(operands)?;
                let v4 = match checked {
                    true => quote_spanned!(at=> #pn.load::<#comp>(#index, #pl, oob)),
                    false => quote_spanned!(at=> #pn.load_unchecked::<#comp>(#index)),
                };
                Self::texel_from4(at, v4, n)
            }
            TextureOp::Store => {
                let (idx, value) = operands.split_at(operands.len() - 1);
                // The value first, then the index, as the SPIR-V back end evaluates them.
                let v = self.expr(&value[0])?;
                let index = self.indices(idx)?;
                let v4 = Self::texel_to4(at, quote_spanned!(at=> tval), &comp, n);
                let store = match checked {
                    true => quote_spanned!(at=> #pn.store::<#comp>(bix, #v4, #pl, oob)),
                    false => quote_spanned!(at=> #pn.store_unchecked::<#comp>(bix, #v4)),
                };
                quote_spanned!(at=> { let tval = #v; let bix = #index; #store; })
            }
            TextureOp::Sample(s) => {
                let coord = self.coord(&operands[0])?;
                let sn = numbered("p", s);
                Self::texel_from4(at, quote_spanned!(at=> #pn.sample(#sn, #coord)), n)
            }
            TextureOp::Gather(s, component) => {
                let coord = self.coord(&operands[0])?;
                let (sn, c) = (numbered("p", s), index_lit(component));
                quote_spanned!(at=> #pn.gather::<#comp>(#sn, #coord, #c))
            }
        })
    }

    /// A sample's coordinate as the `[f32; R]` the helpers take (an `f32` for rank 1).
    fn coord(&mut self, e: &Expr) -> Res<TokenStream> {
        let at = self.at;
        let c = self.expr(e)?;
        Ok(match e.ty {
            Ty::Scalar(_) => quote_spanned!(at=> [#c]),
            _ => c,
        })
    }
}
