//! The generator's small integers: an `i32` or `u32` expression computed through `i8`, `u8`,
//! `i16` or `u16` operands (converted with `as`, Rust's truncation), one of their operators or
//! integer methods, and converted back; so every generated function that reaches here checks
//! the device's narrowing against rustc's own small types.

use crate::gen::{Gen, Ty};

const SMALL: [&str; 4] = ["i8", "u8", "i16", "u16"];

impl Gen<'_> {
    /// An expression of `ty` (`i32` or `u32`) computed in a small integer type.
    pub(crate) fn small_int_expr(&mut self, ty: Ty, depth: u32) -> String {
        let s = self.rng.pick(&SMALL);
        let signed = s.starts_with('i');
        let bits: u32 = s[1..].parse().unwrap_or(8);
        let a = format!("(({}) as {s})", self.expr(ty, depth));
        let value = match self.rng.below(5) {
            0 | 1 => {
                let op = self
                    .rng
                    .pick(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]);
                let b = if matches!(op, "<<" | ">>") {
                    format!("(({}) % {bits}u32)", self.expr(Ty::U32, depth))
                } else {
                    format!("(({}) as {s})", self.expr(ty, depth))
                };
                format!("({a} {op} {b})")
            }
            2 => {
                let m = self.rng.pick(&[
                    "count_ones",
                    "count_zeros",
                    "leading_zeros",
                    "trailing_zeros",
                    "leading_ones",
                    "trailing_ones",
                ]);
                return format!("(({a}).{m}() as {})", ty.name());
            }
            3 => {
                let m = self.rng.pick(&[
                    "reverse_bits",
                    "swap_bytes",
                    "wrapping_neg",
                    if signed {
                        "signum"
                    } else {
                        "next_power_of_two"
                    },
                ]);
                format!("({a}).{m}()")
            }
            _ => {
                let (m, arg) = self.rng.pick(&[
                    ("rotate_left", true),
                    ("rotate_right", true),
                    ("wrapping_pow", true),
                    ("saturating_add", false),
                    ("saturating_sub", false),
                    ("rem_euclid", false),
                    ("div_euclid", false),
                    ("wrapping_mul", false),
                    ("abs_diff", false),
                    ("max", false),
                ]);
                let b = if arg {
                    self.expr(Ty::U32, depth)
                } else {
                    format!("(({}) as {s})", self.expr(ty, depth))
                };
                format!("({a}).{m}({b})")
            }
        };
        format!("(({value}) as {})", ty.name())
    }
}
