//! User structs in kernel bodies: field reads (in [`vector`](super::vector)'s member code,
//! shared with vector components) and struct expressions `Particle { pos, mass }`.
//!
//! A struct value is built as an [`ExprKind::ArrayList`] of its fields in declaration order,
//! typed [`Ty::Struct`]; a field is an [`ExprKind::Element`] with a literal index.

use super::*;
use crate::types::StructDef;
use std::sync::Arc;

impl BodyChecker<'_> {
    /// The index and type of field `member` of struct `def`, reporting an unknown one.
    pub(super) fn struct_field(
        &mut self,
        def: &StructDef,
        member: &syn::Member,
    ) -> Option<(u32, Ty)> {
        let name = match member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        if let Some(k) = def.fields.iter().position(|f| f.name == name) {
            return Some((k as u32, def.fields[k].ty.clone()));
        }
        let names: Vec<String> = def.fields.iter().map(|f| format!("`{}`", f.name)).collect();
        self.err(
            Diagnostic::error(
                Rule::StructExpressions,
                member.span(),
                format!("no field `{name}` on type `{}`", def.name),
            )
            .with_help(format!(
                "`{}` has the fields {}",
                def.name,
                names.join(", ")
            )),
        );
        None
    }

    /// Whether a struct expression builds a device struct of this kernel.
    pub(super) fn is_device_struct(&self, s: &syn::ExprStruct) -> bool {
        s.qself.is_none()
            && s.path
                .segments
                .last()
                .is_some_and(|seg| self.structs.by_name(&seg.ident.to_string()).is_some())
    }

    /// `Particle { pos: p, mass }`: every field exactly once, no `..base`.
    pub(super) fn struct_literal(&mut self, s: &syn::ExprStruct) -> Expr {
        let span = s.span();
        let Some(last) = s.path.segments.last() else {
            return self.internal(span, "a struct path has a segment");
        };
        let name = last.ident.to_string();
        let Some(def) = self.structs.by_name(&name).cloned() else {
            return self.internal(span, "is_device_struct() found the struct");
        };
        let def: Arc<StructDef> = def;
        if let Some(rest) = &s.rest {
            self.err(
                Diagnostic::error(
                    Rule::StructExpressions,
                    rest.span(),
                    "`..` in struct expressions is not supported in kernels",
                )
                .with_help("name every field"),
            );
        }
        let mut values: Vec<Option<Expr>> = vec![None; def.fields.len()];
        for fv in &s.fields {
            let value = self.expr(&fv.expr);
            let Some((k, ty)) = self.struct_field(&def, &fv.member) else {
                continue;
            };
            let slot = &mut values[k as usize];
            if slot.is_some() {
                self.err(Diagnostic::error(
                    Rule::StructExpressions,
                    fv.member.span(),
                    format!("field `{}` is given twice", def.fields[k as usize].name),
                ));
                continue;
            }
            self.expect_ty(&ty, &value, "in this field");
            *slot = Some(value);
        }
        let missing: Vec<String> = def
            .fields
            .iter()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|(f, _)| format!("`{}`", f.name))
            .collect();
        if s.rest.is_some() {
            // Reported above; the fields `..` stood for are not missing ones.
            return Self::error_expr(span);
        }
        if !missing.is_empty() {
            let all: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
            self.err(
                Diagnostic::error(
                    Rule::StructExpressions,
                    span,
                    format!("missing field(s) {} in `{name}`", missing.join(", ")),
                )
                .with_help(format!(
                    "a struct expression names every field: `{name} {{ {} }}`",
                    all.join(", ")
                )),
            );
            return Self::error_expr(span);
        }
        Expr {
            kind: ExprKind::ArrayList(
                values
                    .into_iter()
                    .map(|v| v.unwrap_or_else(|| Self::error_expr(span)))
                    .collect(),
            ),
            ty: Ty::Struct(def),
            span,
        }
    }
}
