//! The compile report of a kernel, in the spirit of OpenACC's `-Minfo=accel`: how it will run,
//! what memory it uses, how each binding is accessed, and what the analyses found.

use super::CompiledKernel;
use crate::analysis::loops::{Loops, Trips, DEVICE_LOOP_LIMIT};
use crate::ir::{walk_expr, Expr, ExprKind, Kernel, ParamKind, Storage, TileDim, Visitor};
use crate::types::Len;
use std::fmt::Write;

/// Renders the report of a compiled kernel.
pub fn render(
    kernel: &Kernel,
    compiled: &CompiledKernel,
    access: &[(bool, bool)],
    shared: &[bool],
    loops: &Loops,
) -> String {
    let mut out = String::new();
    let name = &compiled.name;
    match &compiled.tile {
        Some(dims) => {
            let shape: Vec<String> = dims
                .iter()
                .map(|d| match d {
                    TileDim::Lit(n) => n.to_string(),
                    TileDim::Named(i) => i.to_string(),
                })
                .collect();
            let threads: Option<u64> = dims
                .iter()
                .map(|d| match d {
                    TileDim::Lit(n) => Some(*n as u64),
                    TileDim::Named(_) => None,
                })
                .product();
            let threads = threads.map_or(String::new(), |t| format!(" = {t} threads"));
            let _ = writeln!(
                out,
                "kernel `{name}`: tiled, rank {}, tiles of {}{threads}",
                compiled.rank,
                shape.join(" x ")
            );
        }
        None => {
            let _ = writeln!(
                out,
                "kernel `{name}`: simple, rank {}, the device's launch shape",
                compiled.rank
            );
        }
    }
    let statics: Vec<String> = kernel
        .locals
        .iter()
        .filter(|l| l.storage == Storage::TileStatic)
        .map(|l| format!("`{}`: {}", l.name, l.ty))
        .collect();
    if !statics.is_empty() {
        let bytes: Option<u64> = compiled
            .tile_static
            .iter()
            .map(|v| {
                v.dims
                    .iter()
                    .map(|d| match d {
                        Len::Lit(n) => Some(*n as u64),
                        Len::Const(..) => None,
                    })
                    .product::<Option<u64>>()
                    .map(|n| n * v.elem_bytes as u64)
            })
            .sum();
        let bytes = bytes.map_or("depends on constants".to_string(), |b| format!("{b} bytes"));
        let _ = writeln!(out, "  tile_static: {bytes} ({})", statics.join(", "));
    }
    for (i, p) in compiled.params.iter().enumerate() {
        match (p.kind.clone(), p.binding) {
            (
                ParamKind::Buffer {
                    elem,
                    rank,
                    writable,
                    ..
                },
                Some(binding),
            ) => {
                let (read, written) = access.get(i).copied().unwrap_or((false, false));
                let used = match (read, written) {
                    (true, true) => "read and written",
                    (true, false) => "read",
                    (false, true) => "written",
                    (false, false) => "unused",
                };
                let declared = if writable { "writable" } else { "read-only" };
                let _ = writeln!(
                    out,
                    "  binding {binding}: `{}` {}, rank {rank}, {declared}, {used}",
                    p.name,
                    elem.name()
                );
            }
            (ParamKind::Scalar(s), _) => {
                let _ = writeln!(
                    out,
                    "  scalar `{}`: {} at push-constant byte {}",
                    p.name,
                    s.name(),
                    p.offset
                );
            }
            (ParamKind::Value(elem), _) => {
                let _ = writeln!(
                    out,
                    "  value `{}`: {} at push-constant byte {}",
                    p.name,
                    elem.name(),
                    p.offset
                );
            }
            _ => {}
        }
    }
    let _ = writeln!(
        out,
        "  push constants: {} bytes",
        compiled.push_constant_size
    );
    for (i, c) in compiled.consts.iter().enumerate() {
        let _ = writeln!(
            out,
            "  specialization constant {}: `{}` ({})",
            i + 3,
            c.ident,
            c.ty.name()
        );
    }
    let _ = writeln!(
        out,
        "  capabilities: {}",
        capabilities(&compiled.spirv).join(", ")
    );
    let subgroup = subgroup_operations(kernel);
    if !subgroup.is_empty() {
        let _ = writeln!(
            out,
            "  subgroup operations: {} (the device's subgroup size; 32 lanes natively)",
            subgroup.join(", ")
        );
    }
    let _ = writeln!(out, "  SPIR-V: {} words", compiled.spirv.len());
    render_loops(&mut out, loops);
    let shared: Vec<&str> = kernel
        .params
        .iter()
        .zip(shared)
        .filter(|(_, &s)| s)
        .map(|(p, _)| p.name.as_str())
        .collect();
    if !shared.is_empty() {
        let _ = writeln!(
            out,
            "  elements threads may share with a writer (relaxed atomics natively): {}",
            shared.join(", ")
        );
    }
    if compiled.warnings.is_empty() {
        let _ = writeln!(out, "  findings: none");
    } else {
        for w in &compiled.warnings {
            let at = w.span.start();
            let _ = writeln!(
                out,
                "  warning [{}] at {}:{}: {}",
                w.lint.name(),
                at.line,
                at.column + 1,
                w.message
            );
        }
    }
    out
}

/// The subgroup operations a kernel calls, by their method names, in order of first use.
fn subgroup_operations(kernel: &Kernel) -> Vec<String> {
    struct Search(Vec<String>);
    impl<'a> Visitor<'a> for Search {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let ExprKind::Subgroup(op, _) = &expr.kind {
                let name = op.method_name();
                if !self.0.contains(&name) {
                    self.0.push(name);
                }
            }
            walk_expr(self, expr);
        }
    }
    let mut search = Search(Vec::new());
    search.visit_block(&kernel.body);
    search.0
}

/// The capabilities a module declares (`SignedZeroInfNanPreserve` is dropped by the runtime on
/// devices without it).
fn capabilities(words: &[u32]) -> Vec<String> {
    const OP_CAPABILITY: u32 = 17;
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        if words[at] & 0xffff == OP_CAPABILITY {
            if let Some(&c) = words.get(at + 1) {
                out.push(match rspirv::spirv::Capability::from_u32(c) {
                    Some(known) => format!("{known:?}"),
                    None => format!("capability {c}"),
                });
            }
        }
        at += count;
    }
    out
}

/// The loops line: each loop's trip count (literal bounds, data-dependent, unbounded), and
/// whether a device's loop limit could cut them, so the kernel watches them.
fn render_loops(out: &mut String, loops: &Loops) {
    if loops.loops.is_empty() {
        return;
    }
    let each: Vec<String> = loops
        .loops
        .iter()
        .map(|l| {
            let trips = match l.trips {
                Trips::Bounded(n) => format!("{n} trips"),
                Trips::DataDependent => "data-dependent trips".to_owned(),
                Trips::Unbounded => "unbounded".to_owned(),
            };
            let watched = if loops.watched() && l.watched {
                ", watched"
            } else {
                ""
            };
            format!("`{}` at line {} ({trips}{watched})", l.keyword, l.line)
        })
        .collect();
    let _ = writeln!(out, "  loops: {}", each.join(", "));
    let watched = if loops.watched() {
        "the watched loops make a device that ends loops by itself (lavapipe) fail the \
         launch with LoopLimit instead of returning wrong results"
    } else {
        "never reach a device's loop limit"
    };
    let _ = writeln!(
        out,
        "  loop limit ({DEVICE_LOOP_LIMIT} iterations per thread group on lavapipe): {watched}"
    );
}
