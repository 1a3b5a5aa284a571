//! Type inference for numeric literals: Rust's `{integer}` and `{float}` variables, unified with
//! the types they meet and defaulted to `i32` and `f64` when nothing constrains them.

use crate::types::{Scalar, Ty};

#[derive(Clone, Debug)]
enum VarState {
    /// An unsettled integer literal type.
    Int,
    /// An unsettled float literal type.
    Float,
    /// An outer constant whose type only its uses tell (any scalar).
    Any,
    /// An outer constant that met an integer literal: an integer, `usize` unless told otherwise
    /// (the type constants used as sizes and bounds have in Rust).
    AnyInt,
    /// A local declared without a type or a value (`let x;`): whatever its first assignment
    /// gives it, as in Rust.
    Unknown,
    /// Settled (possibly to another variable).
    Bound(Ty),
}

/// What kind of type a (partially inferred) type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `i32`, `u32`, `usize` or `{integer}`.
    Int,
    /// `f32`, `f64` or `{float}`.
    Float,
    /// `bool`.
    Bool,
    /// `Norm` or `Unorm`: `+ - * /` and comparisons with their own type only, no casts.
    Normalized,
    /// `!`: fits anywhere (also used for expressions that already failed to check).
    Never,
    /// Arrays and `()`.
    Other,
}

/// The inference table.
#[derive(Default)]
pub struct Infer {
    vars: Vec<VarState>,
}

impl Infer {
    /// A fresh `{integer}`.
    pub fn new_int(&mut self) -> Ty {
        self.vars.push(VarState::Int);
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// A fresh type for an outer constant, settled by its uses (`usize` if none).
    pub fn new_any(&mut self) -> Ty {
        self.vars.push(VarState::Any);
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// A fresh type for `let x;`, settled by what is assigned to it.
    pub fn new_unknown(&mut self) -> Ty {
        self.vars.push(VarState::Unknown);
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// Whether `ty` is still a `let x;` type nothing has settled.
    pub fn is_unknown(&self, ty: &Ty) -> bool {
        matches!(self.shallow(ty), Ty::Var(v) if matches!(self.vars[v as usize], VarState::Unknown))
    }

    /// A fresh `{float}`.
    pub fn new_float(&mut self) -> Ty {
        self.vars.push(VarState::Float);
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// Follows variable bindings at the top level.
    pub fn shallow(&self, ty: &Ty) -> Ty {
        let mut ty = ty.clone();
        while let Ty::Var(v) = ty {
            match &self.vars[v as usize] {
                VarState::Bound(t) => ty = t.clone(),
                _ => return ty,
            }
        }
        ty
    }

    /// The class of a type as far as it is known.
    pub fn class(&self, ty: &Ty) -> Class {
        match self.shallow(ty) {
            Ty::Var(v) => match self.vars[v as usize] {
                VarState::Float => Class::Float,
                // Unknown yet: accept what the use asks for; unification settles it.
                VarState::Any | VarState::Unknown => Class::Never,
                VarState::AnyInt => Class::Int,
                _ => Class::Int,
            },
            Ty::Scalar(s) if s.is_int() => Class::Int,
            Ty::Scalar(s) if s.is_float() => Class::Float,
            Ty::Scalar(s) if s.is_normalized() => Class::Normalized,
            Ty::Scalar(_) => Class::Bool,
            Ty::Never => Class::Never,
            _ => Class::Other,
        }
    }

    /// Makes `a` and `b` the same type; returns the unified type, or `None` when they cannot be.
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Option<Ty> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (&a, &b) {
            (Ty::Never, _) => Some(b),
            (_, Ty::Never) => Some(a),
            (Ty::Var(x), _) if matches!(self.vars[*x as usize], VarState::Unknown) => {
                if a != b {
                    self.vars[*x as usize] = VarState::Bound(b.clone());
                }
                Some(b)
            }
            (_, Ty::Var(y)) if matches!(self.vars[*y as usize], VarState::Unknown) => {
                self.vars[*y as usize] = VarState::Bound(a.clone());
                Some(a)
            }
            (Ty::Var(x), Ty::Var(y)) => {
                if x == y {
                    return Some(a);
                }
                let (sx, sy) = (&self.vars[*x as usize], &self.vars[*y as usize]);
                // An outer constant meeting an integer literal stays the constant: its default is
                // `usize`, not the literal's `i32`.
                let (x, y, sx, sy) = match (sx, sy) {
                    (VarState::Int, VarState::Any | VarState::AnyInt) => {
                        (*y, *x, sy.clone(), sx.clone())
                    }
                    _ => (*x, *y, sx.clone(), sy.clone()),
                };
                let (a, b) = (Ty::Var(x), Ty::Var(y));
                match (&sx, &sy) {
                    (VarState::Any | VarState::AnyInt, VarState::Int) => {
                        self.vars[x as usize] = VarState::AnyInt;
                        self.vars[y as usize] = VarState::Bound(a.clone());
                        return Some(a);
                    }
                    (VarState::Any, _) => {
                        self.vars[x as usize] = VarState::Bound(b.clone());
                        return Some(b);
                    }
                    (_, VarState::Any) => {
                        self.vars[y as usize] = VarState::Bound(a.clone());
                        return Some(a);
                    }
                    (VarState::AnyInt, VarState::AnyInt) => {
                        self.vars[y as usize] = VarState::Bound(a.clone());
                        return Some(a);
                    }
                    _ => {}
                }
                if std::mem::discriminant(&sx) != std::mem::discriminant(&sy) {
                    return None;
                }
                self.vars[x as usize] = VarState::Bound(b.clone());
                Some(b)
            }
            (Ty::Var(v), Ty::Scalar(s)) | (Ty::Scalar(s), Ty::Var(v)) => {
                let fits = match self.vars[*v as usize] {
                    VarState::Int => s.is_int(),
                    VarState::Float => s.is_float(),
                    // An outer constant is an integer, a float or a `bool`.
                    VarState::Any => !s.is_normalized(),
                    VarState::AnyInt => s.is_int(),
                    // `shallow()` follows bindings, so a bound variable never gets here.
                    VarState::Bound(_) | VarState::Unknown => false,
                };
                if !fits {
                    return None;
                }
                self.vars[*v as usize] = VarState::Bound(Ty::Scalar(*s));
                Some(Ty::Scalar(*s))
            }
            (Ty::Array(ea, na), Ty::Array(eb, nb)) => {
                if na != nb {
                    return None;
                }
                let e = self.unify(ea, eb)?;
                Some(Ty::Array(Box::new(e), na.clone()))
            }
            (Ty::Tuple(xs), Ty::Tuple(ys)) => {
                if xs.len() != ys.len() {
                    return None;
                }
                let items = xs
                    .iter()
                    .zip(ys)
                    .map(|(x, y)| self.unify(x, y))
                    .collect::<Option<Vec<_>>>()?;
                Some(Ty::Tuple(items))
            }
            _ if a == b => Some(a),
            _ => None,
        }
    }

    /// The final type: every variable resolved, unsettled literals defaulted as Rust does.
    pub fn finish(&self, ty: &Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Var(v) => match self.vars[v as usize] {
                VarState::Float => Ty::Scalar(Scalar::F64),
                VarState::Any | VarState::AnyInt => Ty::Scalar(Scalar::Usize),
                // Never assigned (the checker reports it): no value to hold.
                VarState::Unknown => Ty::Unit,
                _ => Ty::Scalar(Scalar::I32),
            },
            Ty::Array(e, n) => Ty::Array(Box::new(self.finish(&e)), n),
            Ty::Tuple(items) => Ty::Tuple(items.iter().map(|t| self.finish(t)).collect()),
            other => other,
        }
    }

    /// A type for messages (`{integer}` / `{float}` for unsettled literals).
    pub fn describe(&self, ty: &Ty) -> String {
        match self.shallow(ty) {
            Ty::Var(v) => match self.vars[v as usize] {
                VarState::Float => "{float}".into(),
                VarState::Any | VarState::Unknown => "_".into(),
                VarState::AnyInt => "{integer}".into(),
                _ => "{integer}".into(),
            },
            Ty::Array(e, n) => format!("[{}; {n}]", self.describe(&e)),
            Ty::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|t| self.describe(t)).collect();
                format!("({})", items.join(", "))
            }
            other => other.to_string(),
        }
    }
}
