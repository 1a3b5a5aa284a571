//! The generator's `match` on tuples: a pair of integer or `bool` expressions, arms of tuple
//! patterns made of the scalar `match`'s patterns and `_`, some with guards, and a last `_`.

use crate::gen::{Gen, Ty};

impl Gen<'_> {
    /// A `match` on a tuple of two scalars, as an expression of `ty`.
    /// Its parts are one level shallower than the expression it stands for: a `match` has
    /// up to six sub-expressions, and the functions (their host and device compiles) must stay
    /// small.
    pub(crate) fn tuple_match_expr(&mut self, ty: Ty, depth: u32) -> String {
        let depth = depth.saturating_sub(1);
        let types = [
            self.rng.pick(&[Ty::I32, Ty::U32, Ty::Bool]),
            self.rng.pick(&[Ty::I32, Ty::U32, Ty::Bool]),
        ];
        let scrutinee: Vec<String> = types.iter().map(|&t| self.expr(t, depth)).collect();
        // Each component's patterns, the last of which (`_` or its like) is left out but for
        // `_` itself, so that the arms test something.
        let choices: Vec<Vec<String>> = types
            .iter()
            .map(|&t| {
                let mut p: Vec<String> = self.patterns(t).into_iter().map(|(p, _)| p).collect();
                p.pop();
                p.push("_".to_string());
                p
            })
            .collect();
        let mut arms = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let pats: Vec<String> = choices
                .iter()
                .map(|c| c[self.rng.below(c.len())].clone())
                .collect();
            let guard = if self.rng.chance(0.25) {
                format!(" if {}", self.expr(Ty::Bool, depth))
            } else {
                String::new()
            };
            arms.push(format!(
                "({}, {}){guard} => {}",
                pats[0],
                pats[1],
                self.expr(ty, depth)
            ));
        }
        arms.push(format!("_ => {}", self.expr(ty, depth)));
        format!(
            "(match ({}, {}) {{ {} }})",
            scrutinee[0],
            scrutinee[1],
            arms.join(", ")
        )
    }
}
