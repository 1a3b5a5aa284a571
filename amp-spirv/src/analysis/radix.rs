//! Mixed-radix write indices: a component `c1 * v1 + c2 * v2 + .. + top` whose digits `v`
//! (the thread's `t.local[e]`, the variables of enclosing `for v in 0..n` loops) each stay below
//! their range, every coefficient at least the one below it times that digit's range, and the
//! last digit the thread's tile `t.tile[d]` (`t.tile_origin[d]` is it times the tile's size) or
//! its own index: a register-tiled product's `t.tile[0] * (TS * RT) + t.local[0] + i * TS` for
//! `i` in `0..RT`, a tile's coarsened `t.tile[0] * (TS * K) + t.local[0] + k * TS`, a tiled
//! transpose's `t.tile_origin[1] + t.local[0]`. Such a component is a number written in a
//! mixed radix: it tells apart the threads that differ in its tile or lane coordinates,
//! whatever their loops' variables, and the write is unique per thread when the components
//! together tell apart every coordinate of the thread.
//!
//! Coefficients and ranges may be named constants (`TS`, const generics): a coefficient is
//! compared with the product below it as a literal times a multiset of named factors, which
//! must be the same names (a name could be 0, so an extra one proves nothing) and a literal at
//! least as large. In 32-bit indices the products may wrap onto another thread's elements, so
//! this, like a blocked index, holds only as long as no index wraps (`Access::blocked`).

use super::index::{key_invariant, IndexKey};
use super::Walker;
use crate::ir::*;

/// What a digit of the component is.
#[derive(Clone, Copy, PartialEq)]
enum Digit {
    /// `t.local[d]`: below the tile's size in `d`.
    Lane(u32),
    /// `t.tile[d]`: unbounded, the top digit.
    Tile(u32),
    /// The thread's own index component `d` (`t.global[d]`, `idx[d]`): unbounded, the top
    /// digit, with no lane below it (it includes its own).
    Own(u32),
    /// The variable of an enclosing `for v in 0..n`: below `n`.
    Loop(LocalId),
}

/// A product of a literal and named factors (launch-wide keys).
#[derive(Clone, Debug)]
struct Product {
    lit: u128,
    names: Vec<IndexKey>,
}

impl Product {
    fn one() -> Product {
        Product {
            lit: 1,
            names: Vec::new(),
        }
    }

    /// `self * factor`, for a launch-wide key (`None` when the literal overflows).
    fn times(mut self, factor: &IndexKey) -> Option<Product> {
        match factor {
            IndexKey::Int(v) => self.lit = self.lit.checked_mul(*v)?,
            IndexKey::Binary(BinOp::Mul, a, b) => return self.times(a)?.times(b),
            IndexKey::Cast(a, _) => return self.times(a),
            other => self.names.push(other.clone()),
        }
        Some(self)
    }

    fn product(self, other: &Product) -> Option<Product> {
        let mut p = self;
        p.lit = p.lit.checked_mul(other.lit)?;
        p.names.extend(other.names.iter().cloned());
        Some(p)
    }

    /// Whether `self >= other` for every value of the names: the same names, and a literal at
    /// least as large.
    fn at_least(&self, other: &Product) -> bool {
        let mut left = other.names.clone();
        for n in &self.names {
            match left.iter().position(|x| x == n) {
                Some(i) => {
                    left.swap_remove(i);
                }
                None => return false,
            }
        }
        left.is_empty() && self.lit >= other.lit
    }
}

/// One digit with its coefficient and range (`None`: the unbounded top digit).
struct Place {
    digit: Digit,
    coef: Product,
    range: Option<Product>,
}

/// The most monomials [`monomials`] expands a component into.
const MAX_MONOMIALS: usize = 16;

/// `key` as a sum of monomials, each a list of factors: products distributed over sums
/// (`(first + t.tile[0]) * BS` is `first * BS + t.tile[0] * BS`), launch-wide subtrahends
/// dropped (a shift of every thread's index by one value keeps them apart). `None` for a
/// difference of varying values, or too many monomials.
fn monomials(key: &IndexKey) -> Option<Vec<Vec<&IndexKey>>> {
    Some(match key {
        IndexKey::Binary(BinOp::Add, a, b) => {
            let mut m = monomials(a)?;
            m.extend(monomials(b)?);
            m
        }
        IndexKey::Binary(BinOp::Sub, a, b) if key_invariant(b) => monomials(a)?,
        IndexKey::Binary(BinOp::Mul, a, b) => {
            let (ma, mb) = (monomials(a)?, monomials(b)?);
            if ma.len() * mb.len() > MAX_MONOMIALS {
                return None;
            }
            let mut out = Vec::new();
            for x in &ma {
                for y in &mb {
                    out.push(x.iter().chain(y).copied().collect());
                }
            }
            out
        }
        IndexKey::Binary(BinOp::Sub, ..) => return None,
        IndexKey::Cast(a, _) => monomials(a)?,
        other => vec![vec![other]],
    })
}

impl Walker<'_> {
    /// When `key` is a mixed-radix component (see the module docs): the thread's coordinates
    /// it tells apart, `(d, false)` for the tile's in dimension `d`, `(d, true)` for the lane's
    /// (both for an own index component).
    pub(super) fn radix_component(&self, key: &IndexKey) -> Option<Vec<(u32, bool)>> {
        let mut places: Vec<Place> = Vec::new();
        for fs in monomials(key)? {
            if fs.iter().all(|f| key_invariant(f)) {
                continue;
            }
            let mut digit = None;
            let mut coef = Product::one();
            for f in fs {
                match self.digit(f) {
                    Some(d) if digit.is_none() => digit = Some(d),
                    Some(_) => return None,
                    None if key_invariant(f) => coef = coef.times(f)?,
                    // `t.tile_origin[d]`: the tile's digit times the tile's size.
                    None => {
                        let d = self.origin_dim(f)?;
                        if digit.is_some() {
                            return None;
                        }
                        digit = Some(Digit::Tile(d));
                        coef = coef.times(&self.tile_size(d)?)?;
                    }
                }
            }
            let digit = digit?;
            if coef.lit == 0 || places.iter().any(|p| p.digit == digit) {
                return None;
            }
            let range = self.digit_range(digit)?;
            places.push(Place { digit, coef, range });
        }
        // One top digit, a tile's or the own index (then no lane: it includes its own).
        let tops: Vec<usize> = (0..places.len())
            .filter(|&i| places[i].range.is_none())
            .collect();
        let [top] = tops[..] else { return None };
        let lanes = places.iter().filter_map(|p| match p.digit {
            Digit::Lane(e) => Some((e, true)),
            _ => None,
        });
        let covered: Vec<(u32, bool)> = match places[top].digit {
            Digit::Tile(d) => std::iter::once((d, false)).chain(lanes).collect(),
            Digit::Own(d) if lanes.count() == 0 => vec![(d, false), (d, true)],
            _ => return None,
        };
        let top = places.remove(top);
        chain(&places, &top.coef).then_some(covered)
    }

    /// What `f` is as a digit, if it is one.
    fn digit(&self, f: &IndexKey) -> Option<Digit> {
        if let IndexKey::Local(v) = f {
            return self
                .runs
                .iter()
                .any(|(r, _)| r == v)
                .then_some(Digit::Loop(*v));
        }
        let IndexKey::Element(base, d) = f else {
            return None;
        };
        let (IndexKey::Local(id), IndexKey::Int(d)) = (&**base, &**d) else {
            return None;
        };
        let d = *d as u32;
        match &self.k.tiled {
            Some(t) if *id == t.local => Some(Digit::Lane(d)),
            Some(t) if *id == t.tile => Some(Digit::Tile(d)),
            Some(t) if *id == t.global => Some(Digit::Own(d)),
            None if *id == self.k.index_local => Some(Digit::Own(d)),
            _ => None,
        }
    }

    /// The dimension `d` when `f` is `t.tile_origin[d]`.
    fn origin_dim(&self, f: &IndexKey) -> Option<u32> {
        let t = self.k.tiled.as_ref()?;
        (0..self.k.rank).find(|&d| *f == IndexKey::component(t.tile_origin, d))
    }

    /// The tile's size in dimension `d`, as a key: a literal, or the outer constant it names.
    fn tile_size(&self, d: u32) -> Option<IndexKey> {
        let t = self.k.tiled.as_ref()?;
        Some(match t.dims.get(d as usize)? {
            TileDim::Lit(n) => IndexKey::Int(u128::from(*n)),
            TileDim::Named(name) => {
                let c = self
                    .k
                    .consts
                    .iter()
                    .position(|c| c.ident == *name && c.path.is_empty())?;
                IndexKey::Const(c)
            }
        })
    }

    /// A digit's range as a product (`Some(None)` for the unbounded top digit; `None` when
    /// the range is not launch-wide or not known).
    fn digit_range(&self, digit: Digit) -> Option<Option<Product>> {
        match digit {
            Digit::Tile(_) | Digit::Own(_) => Some(None),
            Digit::Lane(d) => Some(Some(Product::one().times(&self.tile_size(d)?)?)),
            Digit::Loop(v) => {
                let (_, end) = self.runs.iter().rev().find(|(r, _)| *r == v)?;
                key_invariant(end).then_some(())?;
                Some(Some(Product::one().times(end)?))
            }
        }
    }
}

/// Whether the bounded `places`, in some order, form a mixed radix below `top`: the first
/// coefficient a literal of at least 1, each next one at least the one before times its range,
/// and `top` at least the last one times its range.
fn chain(places: &[Place], top: &Product) -> bool {
    fn extend(places: &[Place], used: &mut Vec<bool>, below: &Product, top: &Product) -> bool {
        if used.iter().all(|&u| u) {
            return top.at_least(below);
        }
        for i in 0..places.len() {
            if used[i] || !places[i].coef.at_least(below) {
                continue;
            }
            let Some(next) = places[i]
                .range
                .as_ref()
                .and_then(|r| places[i].coef.clone().product(r))
            else {
                continue;
            };
            used[i] = true;
            if extend(places, used, &next, top) {
                return true;
            }
            used[i] = false;
        }
        false
    }
    let mut used = vec![false; places.len()];
    extend(places, &mut used, &Product::one(), top)
}
