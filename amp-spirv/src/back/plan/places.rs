//! Places: the type of what an assignment, a compound assignment or an atomic writes.

use crate::ir::{Expr, ExprKind, Kernel, Lit, ParamKind, Place};
use crate::types::{StructDef, Ty};

/// A place the checked IR should not hold (a broken invariant of the front end).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PlaceError {
    /// An index applied to a value that has no elements.
    #[error("indexing `{0}`")]
    NotIndexable(String),
    /// A struct field chosen by a value that is not a literal.
    #[error("a struct field chosen at run time")]
    FieldNotLiteral,
    /// A struct field the struct does not have.
    #[error("field {field} of `{name}`")]
    NoField { field: usize, name: String },
    /// A buffer place on a parameter that is not a buffer.
    #[error("parameter `{0}` as a buffer")]
    NotABuffer(String),
}

/// The type of `place` in kernel `k`: a local's type indexed down through arrays, vectors
/// and struct fields, or a buffer's element type.
pub(crate) fn place_ty(k: &Kernel, place: &Place) -> Result<Ty, PlaceError> {
    match place {
        Place::Local(id, idx) => {
            let mut ty = k.locals[*id].ty.clone();
            for i in idx {
                ty = match ty {
                    Ty::Array(e, _) => *e,
                    Ty::Vector(s, _) => Ty::Scalar(s),
                    Ty::Struct(def) => field(&def, i)?.1,
                    Ty::Tuple(items) => tuple_item(&items, i)?.1,
                    other => return Err(PlaceError::NotIndexable(other.to_string())),
                };
            }
            Ok(ty)
        }
        Place::Buffer(p, _) => match &k.params[*p].kind {
            ParamKind::Buffer { elem, .. } => Ok(elem.ty()),
            _ => Err(PlaceError::NotABuffer(k.params[*p].name.clone())),
        },
    }
}

/// The number and type of the field of `def` that a member access's index (a literal in the
/// IR) names.
pub(crate) fn field(def: &StructDef, index: &Expr) -> Result<(usize, Ty), PlaceError> {
    let ExprKind::Lit(Lit::Int(k)) = index.kind else {
        return Err(PlaceError::FieldNotLiteral);
    };
    let k = k as usize;
    match def.fields.get(k) {
        Some(f) => Ok((k, f.ty.clone())),
        None => Err(PlaceError::NoField {
            field: k,
            name: def.name.clone(),
        }),
    }
}

/// The number and type of the component of a tuple of `items` that an element access's index
/// (a literal in the IR) names.
pub(crate) fn tuple_item(items: &[Ty], index: &Expr) -> Result<(usize, Ty), PlaceError> {
    let ExprKind::Lit(Lit::Int(k)) = index.kind else {
        return Err(PlaceError::FieldNotLiteral);
    };
    let k = k as usize;
    match items.get(k) {
        Some(t) => Ok((k, t.clone())),
        None => Err(PlaceError::NoField {
            field: k,
            name: Ty::Tuple(items.to_vec()).to_string(),
        }),
    }
}
