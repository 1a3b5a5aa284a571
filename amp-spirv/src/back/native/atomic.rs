//! Atomics as Rust: on view and array elements through amp-native-rt's atomic views of the
//! element (relaxed, as the device's), on `tile_static` memory as plain read-modify-writes (the
//! tile's threads run one at a time on one OS thread).

use super::invariant::Invariant;
use super::{broken, unsupported, Emitter, Res};
use crate::diag::Span;
use crate::ir::*;
use crate::types::Scalar;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote_spanned};

impl Emitter<'_> {
    /// An atomic on a buffer element, relaxed; in a checked kernel an element outside its view
    /// is a constant 0 (the operation does nothing and returns 0; a compare-exchange succeeds
    /// iff `expected` is 0), as on the device.
    pub(super) fn atomic(&mut self, a: &Atomic, span: Span) -> Res<TokenStream> {
        let at = self.at;
        let value = match &a.value {
            Some(v) => Some(self.expr(v)?),
            None => None,
        };
        let (s, ptr) = match &a.target {
            Place::Buffer(p, idx) => {
                let s = self.buffer_elem_ty(*p, span)?;
                (s, self.checked_ptr(*p, idx)?)
            }
            // `tile_static` memory: the tile's threads run one at a time on one OS thread, so
            // the atomic on the tile function's local is only a read-modify-write.
            place @ Place::Local(..) => {
                let ty = self.place_ty(place, span)?;
                let s = self.scalar_of(&ty, span)?;
                return self.local_atomic(a, s, value, place, span);
            }
        };
        let t = self.scalar(s, span)?;
        let rt = self.rt.clone();
        let zero = quote_spanned!(at=> (0 as #t));
        let atom = match s {
            Scalar::F32 => format_ident!("atom_f32"),
            Scalar::I32 => format_ident!("atom_i32"),
            _ => format_ident!("atom_u32"),
        };
        let op = match (a.op, s) {
            (AtomicOp::Add, Scalar::F32) => quote_spanned!(at=> #rt::atomic_add_f32(ptr, tv)),
            (AtomicOp::Exchange, Scalar::F32) => quote_spanned!(at=>
                f32::from_bits(#rt::atom_f32(ptr).swap((tv).to_bits(), #rt::RELAXED))
            ),
            (AtomicOp::CompareExchange, _) => {
                let Some(expected) = &a.expected else {
                    return unsupported("compare-exchange without an expected value", span);
                };
                let e = self.local_place(expected, span)?;
                let (ex, tv, old) = match s {
                    Scalar::F32 => (
                        quote_spanned!(at=> ex.to_bits()),
                        quote_spanned!(at=> tv.to_bits()),
                        quote_spanned!(at=> f32::from_bits),
                    ),
                    _ => (
                        quote_spanned!(at=> ex),
                        quote_spanned!(at=> tv),
                        TokenStream::new(),
                    ),
                };
                let value = value.unwrap_or_default();
                return Ok(quote_spanned!(at=> {
                    let tv = #value; let ptr = #ptr; let ep: *mut #t = &mut #e; let ex = *ep;
                    let old = match ptr {
                        Some(ptr) => #old(match #rt::#atom(ptr).compare_exchange(
                            #ex, #tv, #rt::RELAXED, #rt::RELAXED
                        ) { Ok(o) | Err(o) => o }),
                        None => #zero,
                    };
                    *ep = old; old == ex
                }));
            }
            (_, Scalar::F32) => {
                return unsupported(format!("{:?} on `f32`", a.op), span);
            }
            (op, _) => {
                let (method, arg) = match op {
                    AtomicOp::Add => ("fetch_add", quote_spanned!(at=> tv)),
                    AtomicOp::Sub => ("fetch_sub", quote_spanned!(at=> tv)),
                    AtomicOp::Min => ("fetch_min", quote_spanned!(at=> tv)),
                    AtomicOp::Max => ("fetch_max", quote_spanned!(at=> tv)),
                    AtomicOp::And => ("fetch_and", quote_spanned!(at=> tv)),
                    AtomicOp::Or => ("fetch_or", quote_spanned!(at=> tv)),
                    AtomicOp::Xor => ("fetch_xor", quote_spanned!(at=> tv)),
                    AtomicOp::Exchange => ("swap", quote_spanned!(at=> tv)),
                    AtomicOp::Inc => ("fetch_add", quote_spanned!(at=> (1 as #t))),
                    AtomicOp::Dec => ("fetch_sub", quote_spanned!(at=> (1 as #t))),
                    AtomicOp::CompareExchange => return broken(Invariant::MatchedAbove, span),
                };
                let method = Ident::new(method, at);
                quote_spanned!(at=> #rt::#atom(ptr).#method(#arg, #rt::RELAXED))
            }
        };
        let bind = match &value {
            Some(value) => quote_spanned!(at=> let tv = #value;),
            None => TokenStream::new(),
        };
        Ok(quote_spanned!(at=> { #bind match #ptr { Some(ptr) => #op, None => #zero } }))
    }

    /// An atomic on `tile_static` memory (or another local): the tile's threads run one at a
    /// time on one OS thread, so it is a plain read-modify-write with the operation's result
    /// (wrapping integer arithmetic, `min`/`max` of the element type, an `f32` sum rounded
    /// once), returning the old value; a compare-exchange stores only on a match, and returns
    /// whether it did, the old value going to `expected`.
    fn local_atomic(
        &mut self,
        a: &Atomic,
        s: Scalar,
        value: Option<TokenStream>,
        place: &Place,
        span: Span,
    ) -> Res<TokenStream> {
        let at = self.at;
        let t = self.scalar(s, span)?;
        let p = self.local_place(place, span)?;
        let value = value.unwrap_or_else(|| quote_spanned!(at=> (0 as #t)));
        let new = match (a.op, s) {
            (AtomicOp::Add, Scalar::F32) => quote_spanned!(at=> old + tv),
            (AtomicOp::Exchange, _) => quote_spanned!(at=> tv),
            (AtomicOp::CompareExchange, _) => {
                let Some(expected) = &a.expected else {
                    return unsupported("compare-exchange without an expected value", span);
                };
                let e = self.local_place(expected, span)?;
                // Integers compare as values; an `f32` by its bits, as the device's
                // compare-exchange on the word does.
                let same = match s {
                    Scalar::F32 => quote_spanned!(at=> old.to_bits() == ex.to_bits()),
                    _ => quote_spanned!(at=> old == ex),
                };
                return Ok(quote_spanned!(at=> {
                    let tv: #t = #value; let ptr: *mut #t = &mut #p; let ep: *mut #t = &mut #e;
                    let ex = *ep; let old = *ptr; let hit = #same; if hit { *ptr = tv; } *ep = old; hit
                }));
            }
            (_, Scalar::F32) => return unsupported(format!("{:?} on `f32`", a.op), span),
            (AtomicOp::Add, _) => quote_spanned!(at=> old.wrapping_add(tv)),
            (AtomicOp::Sub, _) => quote_spanned!(at=> old.wrapping_sub(tv)),
            (AtomicOp::Min, _) => quote_spanned!(at=> old.min(tv)),
            (AtomicOp::Max, _) => quote_spanned!(at=> old.max(tv)),
            (AtomicOp::And, _) => quote_spanned!(at=> old & tv),
            (AtomicOp::Or, _) => quote_spanned!(at=> old | tv),
            (AtomicOp::Xor, _) => quote_spanned!(at=> old ^ tv),
            (AtomicOp::Inc, _) => quote_spanned!(at=> old.wrapping_add(1 as #t)),
            (AtomicOp::Dec, _) => quote_spanned!(at=> old.wrapping_sub(1 as #t)),
        };
        Ok(quote_spanned!(at=> {
            let tv: #t = #value; let ptr: *mut #t = &mut #p; let old = *ptr; *ptr = #new; old
        }))
    }
}
