//! Rust's integer methods on the small integers (`i8`, `u8`, `i16`, `u16`), written with the
//! 32-bit methods over the receiver's bits: both back ends then compute them as they compute
//! the 32-bit ones, and the result is Rust's at the receiver's width (`200u8.leading_zeros()`
//! is 0, `1i8.rotate_right(1)` is `i8::MIN`, `200u8.saturating_add(100)` is 255).

use super::*;

impl BodyChecker<'_> {
    /// `f` on the small integer `receiver` of type `s`, its argument (if any) already checked:
    /// the receiver and the argument bound once to locals, and the method written over them.
    pub(super) fn small_int_method(
        &mut self,
        f: IntMethod,
        s: Scalar,
        receiver: Expr,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        use IntMethod::*;
        let at = span.start;
        let mut stmts = Vec::new();
        self.scopes.push(Vec::new());
        let x = self.declare("__amp_x", receiver.ty.clone(), false);
        stmts.push(Stmt::Let(x, Some(receiver)));
        if let Some(arg) = args.into_iter().next() {
            let y = self.declare("__amp_y", arg.ty.clone(), false);
            stmts.push(Stmt::Let(y, Some(arg)));
        }
        let t = quote::format_ident!("{}", s.name());
        let bits = s.narrow_bits().unwrap_or(32);
        let unsigned = quote::format_ident!("u{bits}");
        let wide = quote::format_ident!("{}", if s.is_signed_int() { "i32" } else { "u32" });
        // The receiver's bits, zero-extended to a `u32`.
        let z: syn::Expr = syn::parse_quote_spanned!(at=> (__amp_x as #unsigned as u32));
        let pad = 32 - bits;
        let (min, max) = s.int_range().unwrap_or((0, 0));
        let magnitude = proc_macro2::Literal::u64_unsuffixed(min.unsigned_abs());
        let min = if min < 0 {
            quote::quote!((-#magnitude))
        } else {
            quote::quote!(#magnitude)
        };
        let max = proc_macro2::Literal::i64_unsuffixed(max);
        let value: syn::Expr = match f {
            CountOnes => syn::parse_quote_spanned!(at=> #z.count_ones()),
            CountZeros => syn::parse_quote_spanned!(at=> #bits - #z.count_ones()),
            LeadingZeros => syn::parse_quote_spanned!(at=> #z.leading_zeros() - #pad),
            TrailingZeros => syn::parse_quote_spanned!(at=> #z.trailing_zeros().min(#bits)),
            LeadingOnes => syn::parse_quote_spanned!(at=> {
                ((!__amp_x) as #unsigned as u32).leading_zeros() - #pad
            }),
            TrailingOnes => syn::parse_quote_spanned!(at=> #z.trailing_ones()),
            ReverseBits => syn::parse_quote_spanned!(at=> (#z.reverse_bits() >> #pad) as #t),
            SwapBytes if bits == 8 => syn::parse_quote_spanned!(at=> __amp_x),
            SwapBytes => syn::parse_quote_spanned!(at=> {
                (((#z & 0xff) << 8) | (#z >> 8)) as #t
            }),
            RotateLeft | RotateRight => {
                let (first, second) = if f == RotateLeft {
                    (quote::quote!(<<), quote::quote!(>>))
                } else {
                    (quote::quote!(>>), quote::quote!(<<))
                };
                syn::parse_quote_spanned!(at=> {
                    let __amp_k: u32 = __amp_y % #bits;
                    ((#z #first __amp_k) | (#z #second ((#bits - __amp_k) % #bits))) as #t
                })
            }
            Pow => syn::parse_quote_spanned!(at=> (__amp_x as #wide).pow(__amp_y) as #t),
            AbsDiff => syn::parse_quote_spanned!(at=> {
                ((__amp_x as i32) - (__amp_y as i32)).abs() as #unsigned
            }),
            SaturatingAdd | SaturatingSub => {
                let op = if f == SaturatingAdd {
                    quote::quote!(+)
                } else {
                    quote::quote!(-)
                };
                syn::parse_quote_spanned!(at=> {
                    ((__amp_x as i32) #op (__amp_y as i32)).max(#min).min(#max) as #t
                })
            }
            RemEuclid => {
                syn::parse_quote_spanned!(at=> (__amp_x as #wide).rem_euclid(__amp_y as #wide) as #t)
            }
            DivEuclid => {
                syn::parse_quote_spanned!(at=> (__amp_x as #wide).div_euclid(__amp_y as #wide) as #t)
            }
            Signum => syn::parse_quote_spanned!(at=> (__amp_x as i32).signum() as #t),
            IsPowerOfTwo => syn::parse_quote_spanned!(at=> (__amp_x as u32).is_power_of_two()),
            NextPowerOfTwo => {
                syn::parse_quote_spanned!(at=> (__amp_x as u32).next_power_of_two() as #t)
            }
            DivCeil => {
                syn::parse_quote_spanned!(at=> (__amp_x as u32).div_ceil(__amp_y as u32) as #t)
            }
            NextMultipleOf => syn::parse_quote_spanned!(at=> {
                (__amp_x as u32).next_multiple_of(__amp_y as u32) as #t
            }),
        };
        let value = self.expr(&value);
        self.scopes.pop();
        let ty = value.ty.clone();
        Expr {
            kind: ExprKind::Block(Block {
                stmts,
                tail: Some(Box::new(value)),
            }),
            ty,
            span,
        }
    }
}
