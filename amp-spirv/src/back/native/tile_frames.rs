//! The memory of one call of a tile function beyond its scalars: `tile_static` arrays of a
//! named length and the per-thread frames, carved from one buffer of the OS thread's pool, so
//! that a launch of many small tiles makes one pool operation per tile, not one per array.

use super::{index_lit, local, numbered, Emitter, Res};
use crate::diag::Span;
use crate::ir::LocalId;
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::HashSet;

impl Emitter<'_> {
    /// The declarations of a tile call's locals that are not frames (`scalars`: plain locals,
    /// and `tile_static` arrays of a named length carved from the call's buffer) and of the
    /// frames of `frame` (with a `done` flag's where `done_flag`), each set to its zero unless
    /// every thread writes it before any reads it. A batch's frames are few
    /// (`pass::batch::LANES`): on the stack.
    pub(super) fn call_memory(
        &mut self,
        scalars: &[LocalId],
        frame: Option<&[LocalId]>,
        done_flag: bool,
        span: Span,
    ) -> Res<TokenStream> {
        let (k, rt) = (self.k, self.rt.clone());
        let mut s = TokenStream::new();
        // Frames every thread writes before any reads need no fill, unless threads may
        // leave early (a `done` flag) and skip the writes.
        let written_first = match done_flag {
            true => HashSet::new(),
            false => super::tile_locals::written_by_every_thread_first(k),
        };
        // The memory the call needs beyond its scalars, carved from one buffer of the OS
        // thread's pool (one allocation per call, not one per array: a tile of a subgroup sum
        // spent a third of its time taking and giving back three): `tile_static` arrays of a
        // named length, then the frames.
        let mut regions = Vec::new();
        for &id in scalars {
            let (l, ty) = (local(id), &k.locals[id].ty);
            if let Some((lens, inner)) = self.dyn_arrays.get(&id) {
                let total = lens
                    .iter()
                    .map(|n| quote!((#n as usize)))
                    .reduce(|a, b| quote!(#a * #b))
                    .unwrap_or_else(|| quote!(1usize));
                let (t, zero) = (self.ty(inner, span)?, self.zero(inner, span)?);
                // An array every thread writes before any reads it (`tile_statics.rs`) needs
                // no fill, and is reached through its pointer only.
                let unfilled = self.unfilled.contains(&id);
                regions.push(Region {
                    ty: t,
                    count: total,
                    zero: (!unfilled).then_some(zero),
                    named: match unfilled {
                        true => Named::Pointer(l),
                        false => Named::Slice(l),
                    },
                });
                continue;
            }
            let (t, zero) = (self.ty(ty, span)?, self.zero(ty, span)?);
            s.extend(quote!(let mut #l: #t = #zero;));
        }
        if let Some(frame) = frame {
            // The frames, one array per local (structure of arrays): lane `i` of a work-item
            // loop reads `fl<id>[i]`, so neighbouring lanes touch neighbouring elements and
            // LLVM can vectorize the loop. A batch's frames are few (`pass::batch::LANES`): on the
            // stack, no allocation; a tile's are allocated once per call.
            // (name, type, zero, whether every thread writes it before any reads it)
            let mut frames: Vec<(String, TokenStream, TokenStream, bool)> = Vec::new();
            if done_flag {
                frames.push(("done".into(), quote!(bool), quote!(false), false));
            }
            for &id in frame {
                let ty = &k.locals[id].ty;
                let overwritten = written_first.contains(&id);
                frames.push((
                    format!("l{id}"),
                    self.ty(ty, span)?,
                    self.zero(ty, span)?,
                    overwritten,
                ));
            }
            for (name, ty, zero, overwritten) in frames {
                let (v, f) = (numbered("v", &name), numbered("f", &name));
                if self.batch {
                    self.lane_frames = true;
                    let lanes = index_lit(crate::pass::batch::LANES);
                    s.extend(quote!(
                        let mut #v = [#zero; #lanes];
                        let #f: *mut #ty = #v.as_mut_ptr();
                    ));
                    continue;
                }
                // A frame every thread writes before any thread reads it needs no fill: it is
                // written and read through its pointer only.
                regions.push(Region {
                    ty,
                    count: quote!(nt),
                    zero: (!overwritten).then_some(zero),
                    named: Named::Pointer(f),
                });
            }
        }
        s.extend(carve(&rt, &regions));
        Ok(s)
    }
}

/// Where a region of a tile call's buffer is named: a `tile_static` array of a named length (a
/// slice), or a frame or such an array without a fill (a pointer to its first element).
enum Named {
    Slice(Ident),
    Pointer(Ident),
}

/// One region of a tile call's buffer: `count` values of type `ty`, each set to `zero` first
/// where there is one.
struct Region {
    ty: TokenStream,
    count: TokenStream,
    zero: Option<TokenStream>,
    named: Named,
}

/// The statements that take one buffer from the OS thread's pool for all of `regions` (each
/// starting at a 16-byte boundary) and name each region. The buffer (`__amp_frames`) lives to
/// the end of the call.
fn carve(rt: &TokenStream, regions: &[Region]) -> TokenStream {
    if regions.is_empty() {
        return TokenStream::new();
    }
    let mut s = TokenStream::new();
    let mut offsets = Vec::new();
    let mut total = quote!(0usize);
    for (i, r) in regions.iter().enumerate() {
        let (w, ty, count) = (numbered("__amp_words", i), &r.ty, &r.count);
        s.extend(quote!(let #w: usize = #rt::words_of::<#ty>(#count);));
        offsets.push(total.clone());
        total = quote!(#total + #w);
    }
    // SAFETY (of the generated code): every region is written before it is read: filled here,
    // or (a frame without a fill) written by every thread through its pointer first.
    s.extend(quote! {
        let mut __amp_frames = unsafe { #rt::frames_for_overwrite::<u128>(#total) };
        let __amp_base: *mut u128 = __amp_frames.as_mut_ptr();
    });
    for (r, at) in regions.iter().zip(offsets) {
        let (ty, count) = (&r.ty, &r.count);
        let start = quote!(unsafe { __amp_base.add(#at).cast::<#ty>() });
        let fill = r
            .zero
            .as_ref()
            .map(|z| quote!(for i in 0..(#count) { unsafe { p.add(i).write(#z) }; }));
        s.extend(match &r.named {
            Named::Pointer(f) => quote! {
                let #f: *mut #ty = { let p: *mut #ty = #start; #fill p };
            },
            Named::Slice(l) => quote! {
                let #l: &mut [#ty] = {
                    let p: *mut #ty = #start;
                    #fill
                    // SAFETY (of the generated code): the region holds `count` values, all
                    // written just above, in the call's buffer, which outlives the slice.
                    unsafe { ::core::slice::from_raw_parts_mut(p, #count) }
                };
            },
        });
    }
    s
}
