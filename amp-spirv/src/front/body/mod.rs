//! The body checker: resolves names, infers and checks types, enforces the kernel subset, and
//! builds the typed IR. It records every error and keeps going, so one build shows them all.
//!
//! The checker is one [`BodyChecker`] whose methods are split by the syntax they check, as
//! naga splits its front ends: this module holds the checker's state, its scopes and
//! declarations and the helpers every part uses; [`stmt`] checks blocks and statements,
//! [`expr`] expressions and operators, [`place`] assignment targets and indexing, [`control`]
//! `if` and loops, [`matching`] `match`, [`deferred`] variables declared without a value, [`tiled`] the tiled index and its barrier, [`call`] calls and methods of the
//! kernel language, [`builtin`] math and `min`/`max`/`abs`, [`atomic`] the atomics,
//! [`device_fn`] calls of device functions (inlined), [`vector`] short vectors and [`structs`]
//! user structs, [`tuples`] tuples; [`finish`] settles the types once the body is checked.

use super::infer::{Class, Infer};
use super::signature::{literal_len, literal_usize, value_type};
use super::MAX_TILE_STATIC_BYTES;
use crate::diag::Span;
use crate::diag::Spanned;
use crate::diag::{Diagnostic, Diagnostics, Rule};
use crate::ir::*;
use crate::math::{self, MathFn};
use crate::structs::StructTable;
use crate::types::{vector_from_name, Elem, Len, Scalar, Ty};

mod atomic;
mod builtin;
mod call;
mod control;
mod deferred;
mod device_fn;
mod device_sig;
mod expr;
mod finish;
mod generic_call;
mod index_arith;
mod match_tuple;
mod matching;
mod normalized;
mod place;
mod repeat;
mod small_int;
mod stmt;
mod structs;
mod subgroup;
mod texture;
mod tiled;
mod tuples;
mod vector;

use control::LoopFrame;
use finish::Finisher;
use generic_call::is_generic;

pub use device_sig::{
    callee_path, check_device_fn, closure_names, device_calls, device_fn_consts, is_device_fn_path,
};

#[derive(Clone, Copy)]
enum Binding {
    Local(LocalId),
    Param(ParamId),
    /// `let sg = t.subgroup();`: the tile's subgroup (see `subgroup.rs`).
    Subgroup,
}

/// Checks a body against its signature and builds the IR's locals and block.
pub struct BodyChecker<'a> {
    diags: &'a mut Diagnostics,
    params: &'a [Param],
    /// The device structs the body may name.
    structs: &'a StructTable,
    locals: Vec<Local>,
    scopes: Vec<Vec<(String, Binding)>>,
    infer: Infer,
    /// How many of the functions being checked are instances of generic ones (see
    /// `front::generic`): there, what the scalar traits offer every member is accepted.
    generic_instances: u32,
    loops: Vec<LoopFrame>,
    /// How many `while` conditions are being checked (the enclosing loops are hidden there).
    while_conditions: u32,
    /// Constants from outside the body, with their (inferred) types.
    consts: Vec<(OuterConst, Ty)>,
    /// The tiled index's name and the locals behind its fields, in a tiled kernel.
    tiled: Option<(String, TiledLocals)>,
    /// The simple index's name, in a simple kernel.
    simple_index: Option<String>,
    /// The device functions the body may call, and those being inlined.
    device: device_fn::DeviceState<'a>,
    /// Immutable locals declared without a value, and which the path may have assigned.
    deferred: deferred::DeferredInit,
    /// Bytes of the `tile_static` variables of literal sizes declared so far.
    tile_static_bytes: u64,
    /// The locals that hold the body's `const` items (a `match` pattern naming one compares
    /// with it rather than binding a new name).
    body_consts: std::collections::BTreeSet<LocalId>,
    /// The types of `let x;` declarations without a type, where they were declared and the
    /// name: each must be settled by an assignment by the end of the body.
    untyped_lets: Vec<(Ty, Span, String)>,
}

/// The hidden locals behind `t.global`, `t.local`, `t.tile`, `t.tile_origin`, `t.tile_extent`.
#[derive(Clone, Copy)]
pub struct TiledLocals {
    /// `t.global`.
    pub global: LocalId,
    /// `t.local`.
    pub local: LocalId,
    /// `t.tile`.
    pub tile: LocalId,
    /// `t.tile_origin`.
    pub tile_origin: LocalId,
    /// `t.tile_extent`.
    pub tile_extent: LocalId,
}

impl<'a> BodyChecker<'a> {
    /// A checker for a kernel with these parameters, whose body may name these structs.
    pub fn new(diags: &'a mut Diagnostics, params: &'a [Param], structs: &'a StructTable) -> Self {
        let mut scopes = vec![Vec::new()];
        for (i, p) in params.iter().enumerate() {
            scopes[0].push((p.name.clone(), Binding::Param(i)));
        }
        BodyChecker {
            diags,
            params,
            structs,
            locals: Vec::new(),
            scopes,
            infer: Infer::default(),
            generic_instances: 0,
            loops: Vec::new(),
            while_conditions: 0,
            consts: Vec::new(),
            tiled: None,
            simple_index: None,
            device: device_fn::DeviceState::default(),
            deferred: deferred::DeferredInit::default(),
            tile_static_bytes: 0,
            body_consts: std::collections::BTreeSet::new(),
            untyped_lets: Vec::new(),
        }
    }

    /// Declares the kernel's const-generic parameters, so the body can read them.
    pub fn declare_const_generics(&mut self, generics: &[(proc_macro2::Ident, Scalar)]) {
        for (ident, ty) in generics {
            let c = OuterConst {
                path: proc_macro2::TokenStream::new(),
                ident: ident.clone(),
                accessor: false,
                ty: *ty,
                generic: true,
            };
            self.consts.push((c, Ty::Scalar(*ty)));
        }
    }

    /// Declares a tiled index named `name` of the given rank: its fields become hidden locals.
    pub fn declare_tiled_index(&mut self, name: &str, rank: u32) -> TiledLocals {
        let ty = Ty::array(Ty::USIZE, rank);
        let locals = TiledLocals {
            global: self.hidden_immutable("#global", ty.clone()),
            local: self.hidden_immutable("#local", ty.clone()),
            tile: self.hidden_immutable("#tile", ty.clone()),
            tile_origin: self.hidden_immutable("#tile_origin", ty.clone()),
            tile_extent: self.hidden_immutable("#tile_extent", ty),
        };
        self.tiled = Some((name.to_string(), locals));
        locals
    }

    /// Registers a tile dimension's name as an outer constant of type `usize`.
    pub fn tile_dim_const(&mut self, ident: &proc_macro2::Ident) {
        let (_, ty) = self.outer_const(ident);
        if self.infer.unify(&ty, &Ty::USIZE).is_none() {
            self.err(Diagnostic::error(
                Rule::TileShape,
                ident.span(),
                format!("`{ident}` is used as a tile size, so it must be a `usize`"),
            ));
        }
    }

    /// Declares the index parameter as an immutable local of type `[usize; rank]`.
    pub fn declare_index(&mut self, name: &str, rank: u32) -> LocalId {
        self.simple_index = Some(name.to_string());
        self.declare(name, Ty::array(Ty::USIZE, rank), false)
    }

    /// Declares a parameter whose type was rejected, typed `!` so that its uses in the body
    /// neither report it as unknown nor cascade into type errors.
    pub fn declare_rejected(&mut self, name: &str) {
        self.declare(name, Ty::Never, true);
    }

    /// Checks the function body; returns the locals and the block with every type settled.
    /// Checks the body as an instance of a generic kernel (see `front::generic`).
    pub fn set_generic_instance(&mut self) {
        self.generic_instances = 1;
    }

    pub fn check_body(mut self, body: &syn::Block) -> (Vec<Local>, Block, Vec<OuterConst>) {
        let mut block = self.block(body);
        if let Some(tail) = &block.tail {
            if self.infer.unify(&tail.ty, &Ty::Unit).is_none() {
                let ty = self.infer.describe(&tail.ty);
                self.err(
                    Diagnostic::error(
                        Rule::NoValuesOut,
                        tail.span,
                        format!("a kernel cannot return a value (this is `{ty}`)"),
                    )
                    .with_help(
                        "end the expression with `;`, or write the value into an `ArrayViewMut`",
                    ),
                );
            }
        }
        for (ty, span, name) in std::mem::take(&mut self.untyped_lets) {
            if self.infer.is_unknown(&ty) {
                self.err(
                    Diagnostic::error(
                        Rule::LetPatterns,
                        span,
                        format!("type annotations needed for `{name}`: nothing is assigned to it"),
                    )
                    .with_help(format!("give it a type (`let {name}: f32;`) or a value")),
                );
            }
        }
        let mut finisher = Finisher {
            infer: &self.infer,
            diags: self.diags,
        };
        finisher.visit_block_mut(&mut block);
        let locals = self
            .locals
            .iter()
            .map(|l| Local {
                name: l.name.clone(),
                ty: self.infer.finish(&l.ty),
                mutable: l.mutable,
                storage: l.storage,
            })
            .collect();
        let consts = self
            .consts
            .iter()
            .map(|(c, ty)| OuterConst {
                ty: self.infer.finish(ty).scalar().unwrap_or(Scalar::Usize),
                ..c.clone()
            })
            .collect();
        (locals, block, consts)
    }

    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// A broken invariant of the checker itself (a bug in amp-rs, never the kernel's): an
    /// internal-error diagnostic at `span`, and an expression that cascades into nothing.
    fn internal(&mut self, span: Span, invariant: &str) -> Expr {
        self.err(Diagnostic::internal(
            span,
            format!("while checking this kernel: broken invariant ({invariant})"),
        ));
        Self::error_expr(span)
    }

    fn error_expr(span: Span) -> Expr {
        // `!` unifies with everything, so one error does not cascade into more.
        Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty: Ty::Never,
            span,
        }
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool) -> LocalId {
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            mutable,
            storage: Storage::Function,
        });
        let id = self.locals.len() - 1;
        if self.scopes.is_empty() {
            // Always one open (the body's); a scope for the name all the same.
            self.scopes.push(Vec::new());
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), Binding::Local(id)));
        }
        id
    }

    fn hidden(&mut self, name: &str, ty: Ty) -> LocalId {
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            mutable: true,
            storage: Storage::Function,
        });
        self.locals.len() - 1
    }

    fn hidden_immutable(&mut self, name: &str, ty: Ty) -> LocalId {
        let id = self.hidden(name, ty);
        self.locals[id].mutable = false;
        id
    }

    /// The outer constant named `ident` (registered at its first use) and its type. In the body
    /// of a device function that left public copies of its constants, it is the copy, read by
    /// the function's path.
    fn outer_const(&mut self, ident: &proc_macro2::Ident) -> (usize, Ty) {
        self.outer_const_at(&[], ident)
    }

    /// The outer constant at `path` (the segments before the name, as written: `super`,
    /// `crate`, module names) named `ident`, and its type.
    fn outer_const_at(&mut self, path: &[syn::Ident], ident: &proc_macro2::Ident) -> (usize, Ty) {
        let (prefix, ident, accessor) = match self.device.accessor(path, ident) {
            Some((prefix, ident)) => (prefix, ident, true),
            None => {
                let mut prefix = proc_macro2::TokenStream::new();
                for seg in path {
                    prefix.extend(quote::quote!(#seg ::));
                }
                (prefix, ident.clone(), false)
            }
        };
        let key = prefix.to_string();
        if let Some(i) = self
            .consts
            .iter()
            .position(|(c, _)| c.ident == ident && c.path.to_string() == key)
        {
            return (i, self.consts[i].1.clone());
        }
        let ty = self.infer.new_any();
        let c = OuterConst {
            path: prefix,
            ident,
            accessor,
            ty: Scalar::Usize,
            generic: false,
        };
        self.consts.push((c, ty.clone()));
        (self.consts.len() - 1, ty)
    }

    /// Whether a name not bound in the kernel refers to a constant of the surroundings: a
    /// const-generic parameter, or a name in Rust's constant style (`TS`, `BLOCK_2`). Other
    /// unknown names are reported as unknown rather than guessed at.
    fn is_outer_const_name(&self, ident: &proc_macro2::Ident) -> bool {
        let name = ident.to_string();
        self.consts.iter().any(|(c, _)| c.ident == name)
            || (name.chars().any(|c| c.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    }

    /// The type `ty` names in the body: a value type, array lengths resolved as the body's.
    fn value_type(&mut self, ty: &syn::Type) -> Result<Ty, Diagnostic> {
        let structs = self.structs;
        value_type(ty, structs, &mut |e| self.array_len(e))
    }

    /// An array length: a literal, or an outer constant (a specialization constant).
    fn array_len(&mut self, len: &syn::Expr) -> Result<Len, Diagnostic> {
        if literal_usize(len).is_some() {
            return literal_len(len);
        }
        if let syn::Expr::Path(p) = strip(len) {
            if let Some(ident) = p.path.get_ident() {
                if self.lookup(&ident.to_string()).is_none() && self.is_outer_const_name(ident) {
                    let (index, ty) = self.outer_const(ident);
                    if self.infer.unify(&ty, &Ty::USIZE).is_none() {
                        return Err(Diagnostic::error(
                            Rule::ArrayLengths,
                            len.span(),
                            format!(
                                "`{ident}` is used as an array length, so it must be a `usize`"
                            ),
                        ));
                    }
                    return Ok(Len::Const(index as u32, ident.to_string()));
                }
            }
        }
        Err(Diagnostic::error(Rule::ArrayLengths, len.span(), "array lengths must be integer literals or constants")
            .with_help("write a literal (`[f32; 16]`) or name a `const` item or const-generic parameter (`[f32; TS]`)"))
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| *b)
    }

    fn expect_ty(&mut self, expected: &Ty, e: &Expr, context: &str) -> Ty {
        match self.infer.unify(expected, &e.ty) {
            Some(t) => t,
            None => {
                let (want, got) = (self.infer.describe(expected), self.infer.describe(&e.ty));
                self.err(
                    Diagnostic::error(
                        Rule::MismatchedTypes,
                        e.span,
                        format!("mismatched types {context}: expected `{want}`, found `{got}`"),
                    )
                    .with_help("kernels do no implicit conversions; convert with `as`"),
                );
                expected.clone()
            }
        }
    }

    /// Whether `e` names a parameter or local whose type was rejected (typed `!`).
    fn is_rejected(&self, e: &syn::Expr) -> bool {
        match strip(e) {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                matches!(self.lookup(&i.to_string()), Some(Binding::Local(id)) if self.locals[id].ty == Ty::Never)
            }),
            syn::Expr::Field(f) => self.is_rejected(&f.base),
            _ => false,
        }
    }

    fn unify_or_report(&mut self, want: &Ty, got: &Ty, span: Span) {
        if self.infer.unify(want, got).is_none() {
            let (a, b) = (self.infer.describe(want), self.infer.describe(got));
            self.err(Diagnostic::error(
                Rule::MismatchedTypes,
                span,
                format!("mismatched types: expected `{a}`, found `{b}`"),
            ));
        }
    }
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn is_error_expr(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(Lit::Bool(false))) && e.ty == Ty::Never
}
