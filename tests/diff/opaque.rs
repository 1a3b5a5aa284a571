//! Opaque constants: the same functions with every literal plus a zero the driver cannot see
//! (a kernel argument), so that no value is known when the driver compiles the kernel. A float
//! literal `0.0` becomes that zero itself (`0.0 + z` could fold back to a known zero), `-0.0` its
//! negation; a product with a run-time `1` would not do, as `0 * one` folds to a known zero. A function that disagrees with Rust as written but agrees in this form disagrees only
//! through the driver's compile-time folding (llvmpipe's zeros, docs/semantics.md, "lavapipe
//! and zeros"): the tester tells those apart from mistakes of the compiler this way.

use crate::gen::{Helper, Program, TestFn};
use syn::visit_mut::VisitMut;

/// The extra parameters every function gets, one zero per type.
pub const PARAMS: &str = "o_f32: f32, o_f64: f64, o_i32: i32, o_u32: u32";
const ARGS: [&str; 4] = ["o_f32", "o_f64", "o_i32", "o_u32"];

struct Opaque<'a> {
    functions: &'a [String],
    /// The `const` items seen so far, by name, with their type's opaque zero.
    consts: Vec<(String, &'static str)>,
}

fn one_of(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "f32" => "o_f32",
        "f64" => "o_f64",
        "i32" => "o_i32",
        "u32" => "o_u32",
        _ => return None,
    })
}

impl VisitMut for Opaque<'_> {
    // A `const` item stays constant (Rust requires it); its uses become opaque below.
    fn visit_item_const_mut(&mut self, c: &mut syn::ItemConst) {
        let ty = quote::ToTokens::to_token_stream(&c.ty).to_string();
        if let Some(zero) = one_of(&ty) {
            self.consts.push((c.ident.to_string(), zero));
        }
    }

    // A pattern stays as written: its literals and `MIN`/`MAX` must be constants.
    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // A call's callee (`f32::sqrt`) is a path, not a constant: only the arguments change.
        if let syn::Expr::Call(c) = e {
            for a in c.args.iter_mut() {
                self.visit_expr_mut(a);
            }
        } else {
            syn::visit_mut::visit_expr_mut(self, e);
        }
        let one = match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(f) if f.base10_parse::<f64>().is_ok_and(|v| v == 0.0) => {
                    if let Some(zero) = one_of(f.suffix()) {
                        *e = syn::parse_str(zero).unwrap();
                    }
                    return;
                }
                syn::Lit::Float(f) => one_of(f.suffix()),
                syn::Lit::Int(i) => one_of(i.suffix()),
                // `false` as `o_u32 != 0` (`o_u32` is 0), so `(false as i32) as f32` is no
                // known zero either.
                syn::Lit::Bool(b) => {
                    let opaque = if b.value {
                        "(o_u32 == 0)"
                    } else {
                        "(o_u32 != 0)"
                    };
                    *e = syn::parse_str(opaque).unwrap();
                    return;
                }
                _ => None,
            },
            // `f32::NAN`, `i32::MAX`, ...
            syn::Expr::Path(p)
                if p.path.segments.len() == 2
                    && p.path.segments[1]
                        .ident
                        .to_string()
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                one_of(&p.path.segments[0].ident.to_string())
            }
            syn::Expr::Call(c) => {
                if let syn::Expr::Path(p) = &*c.func {
                    if p.path
                        .get_ident()
                        .is_some_and(|i| self.functions.iter().any(|f| i == f))
                    {
                        for a in ARGS {
                            c.args.push(syn::parse_str(a).unwrap());
                        }
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(one) = one {
            let one: syn::Expr = syn::parse_str(one).unwrap();
            *e = syn::parse_quote!((#e + #one));
            return;
        }
        // A use of a `const` item: minus the zero, which keeps every value (`-0.0 - 0.0` is
        // `-0.0`, where `+` would give `0.0`), so `K - K` is no longer two known constants.
        if let syn::Expr::Path(p) = e {
            let zero = p.path.get_ident().and_then(|i| {
                self.consts
                    .iter()
                    .rev()
                    .find(|(name, _)| i == name)
                    .map(|&(_, zero)| zero)
            });
            if let Some(zero) = zero {
                let zero: syn::Expr = syn::parse_str(zero).unwrap();
                *e = syn::parse_quote!((#e - #zero));
            }
        }
    }
}

fn transform(source: &str, functions: &[String]) -> String {
    let mut f: syn::ItemFn = syn::parse_str(source).expect("a generated function");
    Opaque {
        functions,
        consts: Vec::new(),
    }
    .visit_block_mut(&mut f.block);
    for p in PARAMS.split(", ") {
        f.sig.inputs.push(syn::parse_str(p).unwrap());
    }
    format!("#[amp::device]\n{}\n", quote::ToTokens::to_token_stream(&f))
}

/// `program` with opaque constants.
pub fn program(program: &Program) -> Program {
    let functions: Vec<String> = program.helpers.iter().map(|h| h.name.clone()).collect();
    Program {
        helpers: program
            .helpers
            .iter()
            .map(|h| {
                Helper::new(
                    h.name.clone(),
                    h.params.clone(),
                    h.ret,
                    transform(&h.source, &functions),
                )
            })
            .collect(),
        tests: program
            .tests
            .iter()
            .map(|t| TestFn {
                name: t.name.clone(),
                params: t.params.clone(),
                ret: t.ret,
                source: transform(&t.source, &functions),
                check: t.check,
            })
            .collect(),
    }
}
