//! Robustness of the compiler against random kernels, with proptest (no cargo-fuzz needed).
//!
//! Two phases, each a proptest run:
//!
//! - **generated**: kernels from a small typed grammar that covers the whole kernel language
//!   (simple and tiled signatures, every statement, operator, cast, builtin, view, local array,
//!   `tile_static`, barrier, fence and atomic), so that many compile and reach the back end, with
//!   deliberately invalid constructs (and signatures) mixed in at a low rate;
//! - **mutated**: valid kernels (hand-written ones and generated ones) with random mutations of
//!   their token trees (deleted, duplicated, swapped, copied over a sibling, a token inserted or
//!   overwritten) and of their statements (deleted, duplicated, swapped, moved to another block).
//!
//! Generation is driven by a sequence of choices that proptest shrinks, so a failure is reported
//! with a small kernel. For every input syn accepts (the others are skipped and counted):
//!
//! - `amp_spirv::compile` never panics (it runs under `catch_unwind`);
//! - on `Ok`, the module starts with the SPIR-V magic number, compiling again gives the same
//!   words, every warning has a message, a fix and a line inside the kernel, and the module passes
//!   `spirv-val --target-env vulkan1.1` (validated in one batch at the end, one process per file,
//!   spread over the cores);
//! - on `Err`, every diagnostic has a non-empty message and points at a line of the kernel.
//!
//! `AMP_FUZZ_CASES=n` sets the cases per phase (default 300, so 300 generated + 300 mutated);
//! `AMP_FUZZ_SEED=s` replays a run (the seed used is printed with the counts; run with
//! `--nocapture` to see them); `AMP_FUZZ_TRACE=file` writes each input there before compiling it,
//! for a run that dies without unwinding.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
mod common;
use common::spirv_val;
use std::process::Command;

// ----- types of the generator -----

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    I32,
    U32,
    F32,
    F64,
    Bool,
    Usize,
}

impl Ty {
    const ALL: [Ty; 6] = [Ty::I32, Ty::U32, Ty::F32, Ty::F64, Ty::Bool, Ty::Usize];
    const NUM: [Ty; 5] = [Ty::I32, Ty::U32, Ty::F32, Ty::F64, Ty::Usize];
    const ELEM: [Ty; 4] = [Ty::I32, Ty::U32, Ty::F32, Ty::F64];
    const INT: [Ty; 3] = [Ty::I32, Ty::U32, Ty::Usize];

    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
            Ty::Usize => "usize",
        }
    }

    fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::U32 | Ty::Usize)
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::I32 | Ty::F32 | Ty::F64)
    }

    /// The constant of the kernel's surroundings used for this type (a specialization constant).
    fn outer_const(self) -> &'static str {
        match self {
            Ty::I32 => "K_I",
            Ty::U32 => "K_U",
            Ty::F32 => "K_F",
            Ty::F64 => "K_D",
            Ty::Bool => "K_B",
            Ty::Usize => "TS",
        }
    }
}

/// A scalar local or parameter.
#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
}

/// A local array (also an `Index<N>` copy), or a `tile_static` array.
#[derive(Clone)]
struct Arr {
    name: String,
    elem: Ty,
    dims: Vec<u32>,
    mutable: bool,
    shared: bool,
}

/// A view or array parameter.
struct Buf {
    name: String,
    elem: Ty,
    rank: u32,
    writable: bool,
}

#[derive(Default)]
struct Scope {
    vars: Vec<Var>,
    arrs: Vec<Arr>,
}

/// Turns a sequence of choices into a kernel. Every decision takes the next choice modulo the
/// number of options; an exhausted sequence reads as zeros, and option 0 is always the simplest
/// valid one, so shorter and smaller sequences (what proptest shrinks towards) give smaller
/// kernels.
struct Gen<'c> {
    choices: &'c [u32],
    at: usize,
    scopes: Vec<Scope>,
    bufs: Vec<Buf>,
    params: Vec<Var>,
    rank: u32,
    tiled: bool,
    loops: u32,
    fresh: u32,
    budget: u32,
}

const MAX_EXPR_DEPTH: u32 = 4;
const MAX_BLOCK_DEPTH: u32 = 3;

impl<'c> Gen<'c> {
    fn new(choices: &'c [u32]) -> Self {
        Gen {
            choices,
            at: 0,
            scopes: vec![Scope::default()],
            bufs: Vec::new(),
            params: Vec::new(),
            rank: 1,
            tiled: false,
            loops: 0,
            fresh: 0,
            budget: 40,
        }
    }

    // ----- choices -----

    fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let c = self.choices.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        c as usize % n
    }

    /// True once in `n` decisions (never on an exhausted sequence).
    fn rare(&mut self, n: usize) -> bool {
        self.pick(n) == n - 1
    }

    fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.pick(items.len())]
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    // ----- scopes -----

    fn declare(&mut self, v: Var) {
        self.scopes.last_mut().expect("a scope").vars.push(v);
    }

    fn declare_arr(&mut self, a: Arr) {
        self.scopes.last_mut().expect("a scope").arrs.push(a);
    }

    /// Visible scalars (innermost declaration of each name), parameters last.
    fn visible_vars(&self) -> Vec<Var> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for scope in self.scopes.iter().rev() {
            for v in scope.vars.iter().rev() {
                if seen.insert(v.name.clone()) {
                    out.push(v.clone());
                }
            }
        }
        for p in &self.params {
            if !seen.contains(&p.name) {
                out.push(p.clone());
            }
        }
        out
    }

    fn vars_of(&self, ty: Ty, mutable: bool) -> Vec<String> {
        self.visible_vars()
            .into_iter()
            .filter(|v| v.ty == ty && (v.mutable || !mutable))
            .map(|v| v.name)
            .collect()
    }

    fn arrs(&self) -> Vec<Arr> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.arrs.iter().rev().cloned())
            .collect()
    }

    fn own_index(&self) -> &'static str {
        if self.tiled {
            "t.global"
        } else {
            "idx"
        }
    }

    // ----- expressions -----

    fn literal(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Bool => self.choose(&["true", "false"]).to_string(),
            Ty::I32 | Ty::U32 | Ty::Usize => {
                let n = self.choose(&[0u64, 1, 2, 3, 7, 16, 31, 32, 255, 1000, 65536]);
                match self.pick(6) {
                    0..=2 => n.to_string(),
                    3 | 4 => format!("{n}{}", ty.name()),
                    _ => match ty {
                        Ty::I32 => "2147483647i32".into(),
                        _ => format!("4294967295{}", ty.name()),
                    },
                }
            }
            Ty::F32 | Ty::F64 => {
                let x = self.choose(&["0.0", "1.0", "0.5", "2.5", "1e-3", "3.0e2", "100.25", "7"]);
                if x == "7" || self.pick(3) == 2 {
                    format!("{x}{}", ty.name())
                } else {
                    x.to_string()
                }
            }
        }
    }

    fn constant(&mut self, ty: Ty) -> Option<String> {
        let names: &[&str] = match ty {
            Ty::I32 | Ty::U32 | Ty::Usize => &["MAX", "MIN"],
            Ty::F32 | Ty::F64 => &[
                "MAX",
                "MIN",
                "EPSILON",
                "MIN_POSITIVE",
                "INFINITY",
                "NEG_INFINITY",
                "NAN",
            ],
            Ty::Bool => return None,
        };
        let name = self.choose(names);
        Some(format!("{}::{name}", ty.name()))
    }

    fn index_component(&mut self) -> String {
        let k = self.pick(self.rank as usize);
        if self.tiled {
            let field = self.choose(&["global", "local", "tile", "tile_origin", "tile_extent"]);
            format!("t.{field}[{k}]")
        } else {
            format!("idx[{k}]")
        }
    }

    /// The index of a view of rank `rank`: the thread's own index, an `Index<N>` copy, or
    /// components.
    fn buffer_index(&mut self, rank: u32, depth: u32) -> String {
        let copies: Vec<String> = self
            .arrs()
            .into_iter()
            .filter(|a| a.elem == Ty::Usize && a.dims == [rank])
            .map(|a| a.name)
            .collect();
        match self.pick(4) {
            0 if rank == self.rank => self.own_index().to_string(),
            1 if !copies.is_empty() => self.choose_string(&copies),
            2 if rank == 1 => self.expr(Ty::Usize, depth + 1),
            _ => {
                let parts: Vec<String> = (0..rank)
                    .map(|d| {
                        if d < self.rank && self.pick(2) == 0 {
                            format!("{}[{d}]", self.own_index())
                        } else {
                            self.expr(Ty::Usize, depth + 1)
                        }
                    })
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }

    fn choose_string(&mut self, items: &[String]) -> String {
        items[self.pick(items.len())].clone()
    }

    fn buffer_read(&mut self, ty: Ty, depth: u32) -> Option<String> {
        let bufs: Vec<(String, u32)> = self
            .bufs
            .iter()
            .filter(|b| b.elem == ty)
            .map(|b| (b.name.clone(), b.rank))
            .collect();
        if bufs.is_empty() {
            return None;
        }
        let (name, rank) = bufs[self.pick(bufs.len())].clone();
        let index = self.buffer_index(rank, depth);
        Some(format!("{name}[{index}]"))
    }

    /// An element of a local or `tile_static` array, with in-range or computed indices.
    fn array_read(&mut self, ty: Ty, depth: u32) -> Option<String> {
        let arrs: Vec<Arr> = self.arrs().into_iter().filter(|a| a.elem == ty).collect();
        if arrs.is_empty() {
            return None;
        }
        let a = arrs[self.pick(arrs.len())].clone();
        let mut out = a.name.clone();
        for len in &a.dims {
            let i = self.array_index(*len, depth);
            out.push_str(&format!("[{i}]"));
        }
        Some(out)
    }

    fn array_index(&mut self, len: u32, depth: u32) -> String {
        match self.pick(3) {
            0 => self.pick(len as usize).to_string(),
            1 => format!("({}) % {len}", self.expr(Ty::Usize, depth + 1)),
            _ => {
                // Computed (clamped on the device); a literal would be checked against `len`.
                let e = self.expr(Ty::Usize, depth + 1);
                if e.starts_with(|c: char| c.is_ascii_digit()) {
                    format!("({e}) % {len}")
                } else {
                    e
                }
            }
        }
    }

    fn leaf(&mut self, ty: Ty, depth: u32) -> String {
        let choice = self.pick(10);
        let found = match choice {
            1 | 2 => {
                let vars = self.vars_of(ty, false);
                (!vars.is_empty()).then(|| self.choose_string(&vars))
            }
            3 => self.constant(ty),
            4 => Some(ty.outer_const().to_string()),
            5 | 6 => self.buffer_read(ty, depth),
            7 if ty == Ty::Usize => Some(self.index_component()),
            7 if ty == Ty::Bool => Some(format!(
                "({} == {})",
                self.index_component(),
                self.literal(Ty::Usize)
            )),
            8 if ty == Ty::Usize && !self.bufs.is_empty() => {
                let b = self.pick(self.bufs.len());
                let k = self.pick(self.bufs[b].rank as usize);
                Some(format!("{}.extent()[{k}]", self.bufs[b].name))
            }
            9 => self.array_read(ty, depth),
            _ => None,
        };
        found.unwrap_or_else(|| self.literal(ty))
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if self.rare(120) {
            return self.invalid_expr();
        }
        let k = if depth >= MAX_EXPR_DEPTH {
            0
        } else {
            self.pick(15)
        };
        match k {
            0..=4 => self.leaf(ty, depth),
            5 | 6 => self.binary(ty, depth),
            7 => self.unary(ty, depth),
            8 => self.cast(ty, depth),
            9 => self.if_expr(ty, depth),
            10 => self.block_expr(ty, depth),
            11 => self.builtin(ty, depth),
            12 => {
                let n = 1 + self.pick(3);
                let elems: Vec<String> = (0..n).map(|_| self.expr(ty, depth + 1)).collect();
                let i = self.array_index(n as u32, depth);
                format!("[{}][{i}]", elems.join(", "))
            }
            13 => format!("({})", self.expr(ty, depth + 1)),
            _ => {
                let atomic = if self.pick(2) == 0 {
                    self.atomic(ty, depth)
                } else {
                    None
                };
                atomic
                    .or_else(|| self.buffer_read(ty, depth))
                    .or_else(|| self.array_read(ty, depth))
                    .unwrap_or_else(|| self.leaf(ty, depth))
            }
        }
    }

    /// An atomic on an `i32` / `u32` element of a writable view or array or of `tile_static`
    /// memory: its old value (`ty` the element's type), or the success of a compare-exchange
    /// (`ty` = `bool`).
    fn atomic(&mut self, ty: Ty, depth: u32) -> Option<String> {
        let elem = match ty {
            Ty::I32 | Ty::U32 => ty,
            Ty::Bool => self.choose(&[Ty::I32, Ty::U32]),
            _ => return None,
        };
        let bufs: Vec<(String, u32)> = self
            .bufs
            .iter()
            .filter(|b| b.writable && b.elem == elem)
            .map(|b| (b.name.clone(), b.rank))
            .collect();
        let shared: Vec<Arr> = self
            .arrs()
            .into_iter()
            .filter(|a| a.shared && a.elem == elem)
            .collect();
        let target = if !shared.is_empty() && (bufs.is_empty() || self.pick(2) == 0) {
            let a = shared[self.pick(shared.len())].clone();
            let mut place = a.name.clone();
            for len in &a.dims {
                let i = self.array_index(*len, depth);
                place.push_str(&format!("[{i}]"));
            }
            place
        } else if !bufs.is_empty() {
            let (name, rank) = bufs[self.pick(bufs.len())].clone();
            let index = self.buffer_index(rank, depth);
            format!("{name}[{index}]")
        } else {
            return None;
        };
        if ty == Ty::Bool {
            let expected = self.vars_of(elem, true);
            if expected.is_empty() {
                return None;
            }
            let e = self.choose_string(&expected);
            let new = self.expr(elem, depth + 1);
            return Some(format!(
                "atomic_compare_exchange(&mut {target}, &mut {e}, {new})"
            ));
        }
        let op = self.choose(&[
            "atomic_fetch_add",
            "atomic_fetch_sub",
            "atomic_fetch_min",
            "atomic_fetch_max",
            "atomic_fetch_and",
            "atomic_fetch_or",
            "atomic_fetch_xor",
            "atomic_exchange",
            "atomic_fetch_inc",
            "atomic_fetch_dec",
        ]);
        if op.ends_with("inc") || op.ends_with("dec") {
            Some(format!("{op}(&mut {target})"))
        } else {
            let v = self.expr(elem, depth + 1);
            Some(format!("{op}(&mut {target}, {v})"))
        }
    }

    fn binary(&mut self, ty: Ty, depth: u32) -> String {
        let d = depth + 1;
        match ty {
            Ty::Bool => match self.pick(4) {
                0 => {
                    let t = self.choose(&Ty::NUM);
                    let op = self.choose(&["==", "!=", "<", "<=", ">", ">="]);
                    format!("({} {op} {})", self.expr(t, d), self.expr(t, d))
                }
                1 => {
                    let op = self.choose(&["&&", "||"]);
                    format!(
                        "({} {op} {})",
                        self.expr(Ty::Bool, d),
                        self.expr(Ty::Bool, d)
                    )
                }
                2 => {
                    let op = self.choose(&["&", "|", "^", "==", "!="]);
                    format!(
                        "({} {op} {})",
                        self.expr(Ty::Bool, d),
                        self.expr(Ty::Bool, d)
                    )
                }
                _ => format!(
                    "({} < {})",
                    self.expr(Ty::Usize, d),
                    self.expr(Ty::Usize, d)
                ),
            },
            t if t.is_int() => {
                let op = self.choose(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]);
                let rhs = if op == "<<" || op == ">>" {
                    let s = self.choose(&Ty::INT);
                    self.expr(s, d)
                } else {
                    self.expr(ty, d)
                };
                format!("({} {op} {rhs})", self.expr(ty, d))
            }
            _ => {
                let op = self.choose(&["+", "-", "*", "/", "%"]);
                format!("({} {op} {})", self.expr(ty, d), self.expr(ty, d))
            }
        }
    }

    fn unary(&mut self, ty: Ty, depth: u32) -> String {
        let inner = self.expr(ty, depth + 1);
        if ty.is_signed() && (ty.is_float() || self.pick(2) == 0) {
            format!("(-{inner})")
        } else if ty.is_int() || ty == Ty::Bool {
            format!("(!{inner})")
        } else {
            inner
        }
    }

    fn cast(&mut self, ty: Ty, depth: u32) -> String {
        if ty == Ty::Bool {
            let t = self.choose(&Ty::NUM);
            let zero = if t.is_float() { "0.0" } else { "0" };
            return format!("({} != {zero})", self.expr(t, depth + 1));
        }
        let from = self.choose(&Ty::ALL);
        if from == Ty::Bool && !ty.is_int() {
            return format!(
                "(({} as u32) as {})",
                self.expr(Ty::Bool, depth + 1),
                ty.name()
            );
        }
        format!("({} as {})", self.expr(from, depth + 1), ty.name())
    }

    fn if_expr(&mut self, ty: Ty, depth: u32) -> String {
        let d = depth + 1;
        let c = self.expr(Ty::Bool, d);
        let a = self.value_block(ty, d);
        let out = match self.pick(3) {
            0 | 1 => format!("if {c} {a} else {}", self.value_block(ty, d)),
            _ => {
                let c2 = self.expr(Ty::Bool, d);
                let b = self.value_block(ty, d);
                format!(
                    "if {c} {a} else if {c2} {b} else {}",
                    self.value_block(ty, d)
                )
            }
        };
        format!("({out})")
    }

    /// `{ stmts; value }`.
    fn value_block(&mut self, ty: Ty, depth: u32) -> String {
        self.scopes.push(Scope::default());
        let stmts = if self.pick(4) == 3 {
            self.stmt(MAX_BLOCK_DEPTH)
        } else {
            String::new()
        };
        let value = self.expr(ty, depth);
        self.scopes.pop();
        format!("{{ {stmts}{value} }}")
    }

    fn block_expr(&mut self, ty: Ty, depth: u32) -> String {
        self.scopes.push(Scope::default());
        let t = self.choose(&Ty::ALL);
        let name = self.name("e");
        let init = self.expr(t, depth + 1);
        self.declare(Var {
            name: name.clone(),
            ty: t,
            mutable: false,
        });
        let value = self.expr(ty, depth + 1);
        self.scopes.pop();
        format!("{{ let {name}: {} = {init}; {value} }}", t.name())
    }

    fn builtin(&mut self, ty: Ty, depth: u32) -> String {
        let d = depth + 1;
        if ty == Ty::Bool {
            return self.binary(ty, depth);
        }
        if ty.is_signed() && self.pick(3) == 0 {
            let a = self.expr(ty, d);
            return match self.pick(3) {
                0 => format!("abs({a})"),
                1 => format!("({a}).abs()"),
                _ => format!("{}::abs({a})", ty.name()),
            };
        }
        let f = self.choose(&["min", "max"]);
        let (a, b) = (self.expr(ty, d), self.expr(ty, d));
        match self.pick(4) {
            0 => format!("{f}({a}, {b})"),
            1 => format!("({a}).{f}({b})"),
            2 => format!("{}::{f}({a}, {b})", ty.name()),
            _ if ty.is_int() => format!("std::cmp::{f}({a}, {b})"),
            _ => format!("{f}({a}, {b})"),
        }
    }

    // ----- statements -----

    /// `{ stmts }`, its statements at nesting `depth`.
    fn block(&mut self, depth: u32) -> String {
        self.scopes.push(Scope::default());
        let n = self.pick(4);
        let mut out = String::from("{\n");
        for _ in 0..n {
            let s = self.stmt(depth);
            indent_into(&mut out, &s, 1);
        }
        out.push('}');
        self.scopes.pop();
        out
    }

    fn stmt(&mut self, depth: u32) -> String {
        if self.budget == 0 {
            return String::new();
        }
        self.budget -= 1;
        if self.rare(50) {
            return self.invalid_stmt();
        }
        let nested = depth < MAX_BLOCK_DEPTH;
        match self.pick(17) {
            0 | 1 => self.let_stmt(depth),
            2 => self.assign(depth),
            3 => self.buffer_write(depth),
            4 => self.array_decl(depth),
            5 => self.array_write(depth),
            6 if nested => self.if_stmt(depth),
            7 if nested => self.while_stmt(depth),
            8 if nested => self.loop_stmt(depth),
            9 if nested => self.for_stmt(depth),
            10 if self.loops > 0 => {
                let kw = self.choose(&["break;", "continue;"]);
                if self.pick(3) == 0 {
                    kw.to_string()
                } else {
                    format!("if {} {{ {kw} }}", self.expr(Ty::Bool, 1))
                }
            }
            11 => {
                if self.pick(3) == 0 {
                    "return;".to_string()
                } else {
                    format!("if {} {{ return; }}", self.expr(Ty::Bool, 1))
                }
            }
            12 => {
                let ty = self.choose(&Ty::ALL);
                let name = self.name("C");
                let value = self.literal(ty);
                self.declare(Var {
                    name: name.clone(),
                    ty,
                    mutable: false,
                });
                format!("const {name}: {} = {value};", ty.name())
            }
            13 => {
                let (t1, t2) = (self.choose(&Ty::ALL), self.choose(&Ty::ALL));
                let (e1, e2) = (self.expr(t1, 1), self.expr(t2, 1));
                let (n1, n2) = (self.name("p"), self.name("q"));
                let m = self.pick(2) == 1;
                self.declare(Var {
                    name: n1.clone(),
                    ty: t1,
                    mutable: m,
                });
                self.declare(Var {
                    name: n2.clone(),
                    ty: t2,
                    mutable: false,
                });
                let mut_kw = if m { "mut " } else { "" };
                format!("let ({mut_kw}{n1}, {n2}) = ({e1}, {e2});")
            }
            14 if nested => self.block(depth + 1),
            15 if self.tiled => self.tiled_stmt(depth),
            16 => {
                // Shadow a visible local or parameter (not a `const`), maybe with a new type.
                let vars: Vec<Var> = self
                    .visible_vars()
                    .into_iter()
                    .filter(|v| !v.name.starts_with('C'))
                    .collect();
                if vars.is_empty() {
                    return self.let_stmt(depth);
                }
                let old = vars[self.pick(vars.len())].clone();
                let ty = self.choose(&Ty::ALL);
                let value = if ty == old.ty && self.pick(2) == 0 {
                    old.name.clone()
                } else {
                    self.expr(ty, 1)
                };
                self.declare(Var {
                    name: old.name.clone(),
                    ty,
                    mutable: false,
                });
                format!("let {}: {} = {value};", old.name, ty.name())
            }
            _ => {
                let t = self.choose(&Ty::ALL);
                format!("{};", self.expr(t, 1))
            }
        }
    }

    fn let_stmt(&mut self, _depth: u32) -> String {
        let ty = self.choose(&Ty::ALL);
        let name = self.name("v");
        let mutable = self.pick(2) == 1;
        let value = self.expr(ty, 0);
        let mut_kw = if mutable { "mut " } else { "" };
        let out = match self.pick(3) {
            0 => format!("let {mut_kw}{name}: {} = {value};", ty.name()),
            1 => format!("let {mut_kw}{name} = {value};"),
            _ if mutable => format!("let mut {name}: {};\n{name} = {value};", ty.name()),
            _ => format!("let {name}: {} = {value};", ty.name()),
        };
        self.declare(Var { name, ty, mutable });
        out
    }

    fn compound_op(&mut self, ty: Ty) -> &'static str {
        match ty {
            Ty::Bool => self.choose(&["=", "&=", "|=", "^="]),
            t if t.is_int() => self.choose(&[
                "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
            ]),
            _ => self.choose(&["=", "+=", "-=", "*=", "/=", "%="]),
        }
    }

    fn assign(&mut self, depth: u32) -> String {
        let ty = self.choose(&Ty::ALL);
        let vars = self.vars_of(ty, true);
        if vars.is_empty() {
            return self.let_stmt(depth);
        }
        let name = self.choose_string(&vars);
        let op = self.compound_op(ty);
        let value = if op == "<<=" || op == ">>=" {
            let s = self.choose(&Ty::INT);
            self.expr(s, 1)
        } else {
            self.expr(ty, 1)
        };
        format!("{name} {op} {value};")
    }

    fn buffer_write(&mut self, depth: u32) -> String {
        let writable: Vec<usize> = (0..self.bufs.len())
            .filter(|&i| self.bufs[i].writable)
            .collect();
        if writable.is_empty() {
            return self.let_stmt(depth);
        }
        let b = writable[self.pick(writable.len())];
        let (name, elem, rank) = (
            self.bufs[b].name.clone(),
            self.bufs[b].elem,
            self.bufs[b].rank,
        );
        let index = self.buffer_index(rank, 1);
        let op = self.compound_op(elem);
        let value = if op == "<<=" || op == ">>=" {
            self.expr(Ty::U32, 1)
        } else {
            self.expr(elem, 1)
        };
        format!("{name}[{index}] {op} {value};")
    }

    fn array_decl(&mut self, _depth: u32) -> String {
        let name = self.name("a");
        let mutable = self.pick(3) != 0;
        let mut_kw = if mutable { "mut " } else { "" };
        let (out, arr) = match self.pick(5) {
            0 | 1 => {
                let elem = self.choose(&Ty::ALL);
                let n = self.choose(&[1u32, 2, 4, 8]);
                let v = self.expr(elem, 1);
                (
                    format!("let {mut_kw}{name} = [{v}; {n}];"),
                    Arr {
                        name: name.clone(),
                        elem,
                        dims: vec![n],
                        mutable,
                        shared: false,
                    },
                )
            }
            2 => {
                let elem = self.choose(&Ty::ALL);
                let n = 1 + self.pick(4) as u32;
                let elems: Vec<String> = (0..n).map(|_| self.expr(elem, 1)).collect();
                (
                    format!(
                        "let {mut_kw}{name}: [{}; {n}] = [{}];",
                        elem.name(),
                        elems.join(", ")
                    ),
                    Arr {
                        name: name.clone(),
                        elem,
                        dims: vec![n],
                        mutable,
                        shared: false,
                    },
                )
            }
            3 => {
                let elem = self.choose(&Ty::ALL);
                let (n, m) = (self.choose(&[2u32, 3]), self.choose(&[2u32, 4]));
                let v = self.expr(elem, 1);
                (
                    format!("let {mut_kw}{name} = [[{v}; {m}]; {n}];"),
                    Arr {
                        name: name.clone(),
                        elem,
                        dims: vec![n, m],
                        mutable,
                        shared: false,
                    },
                )
            }
            _ => {
                // A copy of the thread's index or of an extent.
                let (ty, value, n) = if self.pick(2) == 0 || self.bufs.is_empty() {
                    let rank = self.rank;
                    (format!("Index<{rank}>"), self.own_index().to_string(), rank)
                } else {
                    let b = self.pick(self.bufs.len());
                    let rank = self.bufs[b].rank;
                    (
                        format!("Extent<{rank}>"),
                        format!("{}.extent()", self.bufs[b].name),
                        rank,
                    )
                };
                let dims = vec![n];
                (
                    format!("let {mut_kw}{name}: {ty} = {value};"),
                    Arr {
                        name: name.clone(),
                        elem: Ty::Usize,
                        dims,
                        mutable,
                        shared: false,
                    },
                )
            }
        };
        self.declare_arr(arr);
        out
    }

    fn array_write(&mut self, depth: u32) -> String {
        let arrs: Vec<Arr> = self.arrs().into_iter().filter(|a| a.mutable).collect();
        if arrs.is_empty() {
            return self.array_decl(depth);
        }
        let a = arrs[self.pick(arrs.len())].clone();
        let mut place = a.name.clone();
        for len in &a.dims {
            let i = self.array_index(*len, 1);
            place.push_str(&format!("[{i}]"));
        }
        let op = self.compound_op(a.elem);
        let value = if op == "<<=" || op == ">>=" {
            self.expr(Ty::U32, 1)
        } else {
            self.expr(a.elem, 1)
        };
        format!("{place} {op} {value};")
    }

    fn if_stmt(&mut self, depth: u32) -> String {
        let c = self.expr(Ty::Bool, 1);
        let then = self.block(depth + 1);
        match self.pick(3) {
            0 => format!("if {c} {then}"),
            1 => format!("if {c} {then} else {}", self.block(depth + 1)),
            _ => {
                let c2 = self.expr(Ty::Bool, 1);
                let b = self.block(depth + 1);
                format!(
                    "if {c} {then} else if {c2} {b} else {}",
                    self.block(depth + 1)
                )
            }
        }
    }

    fn loop_body(&mut self, depth: u32) -> String {
        self.loops += 1;
        let body = self.block(depth + 1);
        self.loops -= 1;
        body
    }

    fn while_stmt(&mut self, depth: u32) -> String {
        // No `break` in the condition: it would leave the enclosing loop (rejected, as in Rust).
        let outer = std::mem::take(&mut self.loops);
        let counted = self.pick(2) == 0;
        let (cond, counter) = if counted {
            let counter = self.name("w");
            let limit = self.expr(Ty::U32, 1);
            (format!("{counter} < {limit}"), counter)
        } else {
            (self.expr(Ty::Bool, 1), String::new())
        };
        self.loops = outer;
        let body = self.loop_body(depth);
        if counted {
            let mut out =
                format!("let mut {counter} = 0u32;\nwhile {cond} {{\n    {counter} += 1;\n");
            indent_into(&mut out, &body, 1);
            out.push('}');
            out
        } else {
            format!("while {cond} {body}")
        }
    }

    fn loop_stmt(&mut self, depth: u32) -> String {
        let exit = self.expr(Ty::Bool, 1);
        let body = self.loop_body(depth);
        let mut out = format!("loop {{\n    if {exit} {{\n        break;\n    }}\n");
        indent_into(&mut out, &body, 1);
        out.push('}');
        out
    }

    fn for_stmt(&mut self, depth: u32) -> String {
        let ty = self.choose(&Ty::INT);
        let (a, b) = (self.expr(ty, 2), self.expr(ty, 2));
        let range = match self.pick(3) {
            0 => format!("{a}..{b}"),
            1 => format!("{a}..={b}"),
            _ => format!("({a}..{b}).step_by({})", self.expr(Ty::Usize, 2)),
        };
        let var = if self.pick(5) == 0 {
            "_".to_string()
        } else {
            self.name("i")
        };
        self.scopes.push(Scope::default());
        if var != "_" {
            self.declare(Var {
                name: var.clone(),
                ty,
                mutable: false,
            });
        }
        let body = self.loop_body(depth);
        self.scopes.pop();
        format!("for {var} in {range} {body}")
    }

    fn tiled_stmt(&mut self, depth: u32) -> String {
        match self.pick(4) {
            0 => self
                .choose(&[
                    "t.barrier.wait();",
                    "t.barrier.wait_with_all_memory_fence();",
                    "t.barrier.wait_with_global_memory_fence();",
                    "t.barrier.wait_with_tile_static_memory_fence();",
                ])
                .to_string(),
            1 => self
                .choose(&[
                    "all_memory_fence(t.barrier);",
                    "global_memory_fence(t.barrier);",
                    "tile_static_memory_fence(t.barrier);",
                ])
                .to_string(),
            _ => self.array_write(depth),
        }
    }

    /// `#[tile_static]` declarations at the top of a tiled kernel.
    fn tile_statics(&mut self) -> String {
        let mut out = String::new();
        for _ in 0..self.pick(3) {
            let name = self.name("s");
            let elem = self.choose(&Ty::ALL);
            let dims: Vec<u32> = match self.pick(4) {
                0 => vec![self.choose(&[4u32, 16, 64])],
                1 => vec![self.choose(&[2u32, 8]), self.choose(&[32u32, 33, 4])],
                2 => vec![],
                _ => vec![2, 2, 4],
            };
            let mut ty = elem.name().to_string();
            for d in dims.iter().rev() {
                ty = format!("[{ty}; {d}]");
            }
            out.push_str(&format!("#[tile_static]\nlet mut {name}: {ty};\n"));
            if dims.is_empty() {
                self.declare(Var {
                    name,
                    ty: elem,
                    mutable: true,
                });
            } else {
                self.declare_arr(Arr {
                    name,
                    elem,
                    dims,
                    mutable: true,
                    shared: true,
                });
            }
        }
        out
    }

    // ----- signature -----

    fn signature(&mut self) -> (String, String) {
        self.tiled = self.pick(2) == 1;
        self.rank = 1 + self.pick(3) as u32;
        let mut generics = String::new();
        let index = if self.tiled {
            let dims: Vec<String> = match self.pick(4) {
                0 | 1 => {
                    let sizes: &[&[u32]] = &[&[64, 16, 8], &[8, 16, 4], &[4, 2, 2], &[1, 32, 1]];
                    let s = self.choose(sizes);
                    (0..self.rank as usize).map(|d| s[d].to_string()).collect()
                }
                2 => (0..self.rank)
                    .map(|d| if d == 0 { "TS".into() } else { "2".into() })
                    .collect(),
                _ => {
                    generics = "<const S: usize>".into();
                    (0..self.rank).map(|_| "S".to_string()).collect()
                }
            };
            format!("t: TiledIndex<{}>", dims.join(", "))
        } else {
            format!("idx: Index<{}>", self.rank)
        };
        let mut params = vec![index];
        for i in 0..self.pick(5) {
            let elem = self.choose(&Ty::ELEM);
            let rank = 1 + self.pick(3) as u32;
            let name = format!("b{i}");
            let (ty, writable) = match self.pick(4) {
                0 => (format!("ArrayView<{}, {rank}>", elem.name()), false),
                1 => (format!("ArrayViewMut<{}, {rank}>", elem.name()), true),
                2 => (format!("&Array<{}, {rank}>", elem.name()), false),
                _ => (format!("&mut Array<{}, {rank}>", elem.name()), true),
            };
            params.push(format!("{name}: {ty}"));
            self.bufs.push(Buf {
                name,
                elem,
                rank,
                writable,
            });
        }
        // Usually one writable view, as real kernels have.
        if self.pick(4) != 3 {
            let elem = self.choose(&Ty::ELEM);
            let rank = self.rank;
            params.push(format!("out: ArrayViewMut<{}, {rank}>", elem.name()));
            self.bufs.push(Buf {
                name: "out".into(),
                elem,
                rank,
                writable: true,
            });
        }
        for i in 0..self.pick(4) {
            let ty = self.choose(&[Ty::I32, Ty::U32, Ty::F32, Ty::F64, Ty::Bool]);
            let name = format!("x{i}");
            params.push(format!("{name}: {}", ty.name()));
            self.params.push(Var {
                name,
                ty,
                mutable: false,
            });
        }
        let mut head = format!("fn k{generics}({})", params.join(", "));
        if self.rare(25) {
            head = self.invalid_signature(&params);
        }
        (head, generics)
    }

    fn invalid_signature(&mut self, params: &[String]) -> String {
        let rest = params[1..].join(", ");
        let sep = if rest.is_empty() { "" } else { ", " };
        match self.pick(10) {
            0 => format!("fn k({}) -> f32", params.join(", ")),
            1 => format!("fn k<T>({})", params.join(", ")),
            2 => format!("fn k(idx: Index<4>{sep}{rest})"),
            3 => format!("fn k({rest})"),
            4 => format!("fn k({}, n: usize)", params.join(", ")),
            5 => format!("fn k({}, j: Index<1>)", params.join(", ")),
            6 => format!("unsafe fn k({})", params.join(", ")),
            7 => format!("fn k({}, r: &f32)", params.join(", ")),
            8 => format!("fn k(t: TiledIndex<64, 64>{sep}{rest})"),
            _ => format!("fn k({}, v: ArrayView<usize, 1>)", params.join(", ")),
        }
    }

    // ----- invalid constructs -----

    fn invalid_expr(&mut self) -> String {
        self.choose(&[
            "|x: f32| x",
            "match 1 { _ => 2 }",
            "println!(\"x\")",
            "&1",
            "*idx",
            "(1, 2)",
            "S { x: 1 }",
            "foo(1)",
            "(1.0f32).sqrt()",
            "1u8",
            "\"s\"",
            "'c'",
            "undefined_name",
            "(1.0 + 1u32)",
            "loop { break 5; }",
            "idx.len",
            "(0..4)",
            "async { 1 }",
            "unsafe { 1 }",
            "i32::FOO",
            "min(1)",
            "abs(1u32)",
            "(true as f32)",
            "[1u32; 0]",
            "[]",
            "(1 as [u32; 1])",
            "idx[5]",
            "t.barrier",
            "t.foo[0]",
            "t",
            "(-1u32)",
            "(1.0 & 2.0)",
            "(true < false)",
            "std::mem::swap(1, 2)",
            "2.0f32.min::<f32>(1.0)",
            "(0..4).step_by(2)",
            "out.extent(1)",
            "99999999999999999999999",
            "out",
            "(return)",
            "(loop {})",
            "{ return; }",
            "[return; 2][0]",
            "x0[0]",
            "1e999",
            "(2147483648 as i32)",
            "(1 << 40)",
            "(1 / 0)",
            "atomic_fetch_add(&mut out[0], 1.0)",
            "atomic_fetch_inc(out[0])",
            "atomic_fetch_add(&mut x0, 1)",
            "atomic_compare_exchange(&mut out[0], &mut out[1], 2)",
            "atomic_fetch_dec(&mut out[0], 1)",
        ])
        .to_string()
    }

    fn invalid_stmt(&mut self) -> String {
        self.choose(&[
            "break;",
            "continue;",
            "'l: loop { break 'l; }",
            "let q = loop { break 5; };",
            "static S: f32 = 1.0;",
            "fn h() {}",
            "use std::cmp::min;",
            "struct S;",
            "let Some(z) = 1 else { return; };",
            "let ref r = 1;",
            "let [a, b] = [1, 2];",
            "let x;",
            "let (a, b) = (1, 2, 3);",
            "idx = idx;",
            "out = 1.0;",
            "t.barrier.wait();",
            "#[tile_static] let mut q: [f32; 4];",
            "#[tile_static] let q: f32 = 1.0;",
            "#[tile_static] let mut q: [[f64; 128]; 64];",
            "all_memory_fence();",
            "for x in out {}",
            "for i in 0.. {}",
            "for i in (0..4).step_by(0) {}",
            "{ 1u32 } let z = 2;",
            "x9 += 1;",
            "while { break } {}",
            "let v = if true { 1.0 };",
            "return 1;",
            "if t.local[0] == 0 { t.barrier.wait(); }",
            "if idx[0] == 0 { return; } t.barrier.wait();",
            "let e: [f32; 20000] = [0.0; 20000];",
            "let c: char = 1;",
            "let s: &[f32] = 1;",
            "let p: *const f32 = 1;",
            "let o: Option<f32> = 1;",
            "loop {}",
            "return; let dead = 1;",
        ])
        .to_string()
    }

    // ----- the kernel -----

    fn kernel(&mut self) -> String {
        let (head, _) = self.signature();
        let mut body = String::new();
        if self.tiled {
            let statics = self.tile_statics();
            indent_into(&mut body, statics.trim_end(), 1);
        }
        let n = 1 + self.pick(10);
        for _ in 0..n {
            let s = self.stmt(0);
            indent_into(&mut body, &s, 1);
            // Barriers at the top level, where they are usually reached by the whole tile.
            if self.tiled && self.pick(3) == 2 {
                let b = self.tiled_stmt(0);
                indent_into(&mut body, &b, 1);
            }
        }
        format!("{head} {{\n{body}}}\n")
    }
}

fn indent_into(out: &mut String, text: &str, depth: u32) {
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        for _ in 0..depth {
            out.push_str("    ");
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// A kernel from a sequence of choices.
fn generate(choices: &[u32]) -> String {
    Gen::new(choices).kernel()
}

// ----- mutations -----

/// Valid kernels to mutate, besides generated ones.
const CORPUS: &[&str] = &[
    "fn add(idx: Index<1>, a: ArrayView<f32, 1>, b: ArrayView<f32, 1>, sum: ArrayViewMut<f32, 1>) {
        sum[idx] = a[idx] + b[idx];
    }",
    "fn matmul(idx: Index<2>, a: ArrayView<f32, 2>, b: ArrayView<f32, 2>, c: ArrayViewMut<f32, 2>) {
        let row = idx[0];
        let col = idx[1];
        let mut sum = 0.0;
        for k in 0..a.extent()[1] {
            sum += a[[row, k]] * b[[k, col]];
        }
        c[idx] = sum;
    }",
    amp_test_support::MATMUL_TILED,
    "fn tile_sum(t: TiledIndex<64>, data: ArrayView<i32, 1>, sums: ArrayViewMut<i32, 1>) {
        #[tile_static] let mut values: [i32; 64];
        values[t.local[0]] = data[t.global];
        t.barrier.wait();
        if t.local[0] == 0 {
            let mut total = 0;
            for i in 0..64 { total += values[i]; }
            sums[t.tile] = total;
        }
    }",
    "fn reduce(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
        #[tile_static] let mut s: [f32; 64];
        s[t.local[0]] = a[t.global];
        t.barrier.wait();
        let mut stride = 32;
        while stride > 0 {
            if t.local[0] < stride { s[t.local[0]] += s[t.local[0] + stride]; }
            t.barrier.wait_with_tile_static_memory_fence();
            stride /= 2;
        }
        if t.local[0] == 0 { out[t.tile] = s[0]; }
    }",
    "fn stencil(idx: Index<2>, inp: &Array<f64, 2>, out: &mut Array<f64, 2>, w: f64) {
        let (r, c) = (idx[0], idx[1]);
        let n = inp.extent();
        if r == 0 || c == 0 || r + 1 >= n[0] || c + 1 >= n[1] { out[idx] = inp[idx]; return; }
        out[idx] = w * (inp[[r - 1, c]] + inp[[r + 1, c]] + inp[[r, c - 1]] + inp[[r, c + 1]]) + (1.0 - 4.0 * w) * inp[idx];
    }",
    "fn misc(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<i32, 1>, k: i32, flag: bool) {
        const N: usize = 4;
        let mut acc = [0i32; 4];
        let mut i = 0;
        loop {
            if i >= N { break; }
            acc[i] = (a[idx] as i32).min(k) << (i as u32) ^ i32::MAX;
            i += 1;
        }
        let x = if flag { acc[0].abs() } else if k > 3 { max(acc[1], -k) } else { acc[2] % 7 };
        for j in (0..N).step_by(2) { if j == 2 { continue; } out[idx] += acc[j]; }
        let (p, q) = (x, -x);
        let p = p as f32;
        out[idx] = out[idx].max(p as i32 + q);
    }",
    "fn cube(t: TiledIndex<4, 4, 4>, v: ArrayViewMut<u32, 3>, s: u32) {
        #[tile_static] let mut tile: [[[u32; 4]; 4]; 4];
        #[tile_static] let mut count: u32;
        if t.local[0] == 0 && t.local[1] == 0 && t.local[2] == 0 { count = s; }
        tile[t.local[0]][t.local[1]][t.local[2]] = v[t.global];
        t.barrier.wait();
        let mut n = 0u32;
        while n < count { n += 1; t.barrier.wait(); }
        all_memory_fence(t.barrier);
        v[t.global] = tile[t.local[2]][t.local[1]][t.local[0]] + n + t.tile_extent[0] as u32;
    }",
    "fn histogram(t: TiledIndex<64>, data: ArrayView<u32, 1>, hist: ArrayViewMut<u32, 1>, bins: u32) {
        #[tile_static] let mut local: [u32; 16];
        if t.local[0] < 16 { local[t.local[0]] = 0; }
        t.barrier.wait();
        atomic_fetch_inc(&mut local[(data[t.global] % 16) as usize]);
        t.barrier.wait();
        if t.local[0] < 16 {
            let mut expected = 0u32;
            if !atomic_compare_exchange(&mut hist[t.local[0]], &mut expected, local[t.local[0]]) {
                atomic_fetch_add(&mut hist[t.local[0]], local[t.local[0]]);
            }
            atomic_fetch_max(&mut hist[16], bins);
        }
    }",
];

/// A kernel's tokens as a tree: mutations work on the token trees of one sequence (the
/// function's or one group's), so delimiters stay balanced and most mutants still parse.
#[derive(Clone)]
enum Node {
    /// An identifier, literal or punctuation character (`joint`: no space after it).
    Leaf(String, bool),
    /// A delimited group: the opening and closing text and what is inside.
    Group(&'static str, &'static str, Vec<Node>),
}

fn tree(ts: proc_macro2::TokenStream) -> Vec<Node> {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                Node::Group(open, close, tree(g.stream()))
            }
            TokenTree::Punct(p) => {
                Node::Leaf(p.as_char().to_string(), p.spacing() == Spacing::Joint)
            }
            TokenTree::Ident(i) => Node::Leaf(i.to_string(), false),
            TokenTree::Literal(l) => Node::Leaf(l.to_string(), false),
        })
        .collect()
}

fn render(nodes: &[Node], out: &mut String) {
    for n in nodes {
        match n {
            Node::Leaf(text, joint) => {
                out.push_str(text);
                if !joint {
                    out.push(' ');
                }
            }
            Node::Group(open, close, inner) => {
                out.push_str(open);
                render(inner, out);
                out.push_str(close);
                out.push(' ');
            }
        }
    }
}

/// Every token tree as (the path of its sequence, its position there): picking one of these
/// uniformly mutates the long sequences (bodies) more often than the short ones (`[0]`).
fn positions(nodes: &[Node], path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, usize)>) {
    for (i, n) in nodes.iter().enumerate() {
        out.push((path.clone(), i));
        if let Node::Group(_, _, inner) = n {
            path.push(i);
            positions(inner, path, out);
            path.pop();
        }
    }
}

/// The paths of the `{ }` groups (blocks, mostly).
fn blocks(nodes: &[Node], path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, n) in nodes.iter().enumerate() {
        if let Node::Group(open, _, inner) = n {
            path.push(i);
            if *open == "{" {
                out.push(path.clone());
            }
            blocks(inner, path, out);
            path.pop();
        }
    }
}

fn sequence_at<'a>(nodes: &'a mut Vec<Node>, path: &[usize]) -> &'a mut Vec<Node> {
    match path.split_first() {
        None => nodes,
        Some((&i, rest)) => match &mut nodes[i] {
            Node::Group(_, _, inner) => sequence_at(inner, rest),
            Node::Leaf(..) => unreachable!("paths lead to groups"),
        },
    }
}

/// A block's statements, roughly: runs of token trees ending at `;` or at a `{ }` not followed
/// by `else`.
fn statements(seq: Vec<Node>) -> Vec<Vec<Node>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    let mut it = seq.into_iter().peekable();
    while let Some(n) = it.next() {
        let ends = match &n {
            Node::Leaf(t, _) => t == ";",
            Node::Group(open, _, _) => {
                *open == "{" && !matches!(it.peek(), Some(Node::Leaf(t, _)) if t == "else")
            }
        };
        current.push(n);
        if ends {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Tokens inserted by mutations.
const VOCABULARY: &[&str] = &[
    "break",
    "continue",
    "return",
    ";",
    "-",
    "!",
    "as",
    "u32",
    "f64",
    "usize",
    "bool",
    "0",
    "1.5",
    "idx",
    "t",
    ".",
    "mut",
    "let",
    "if",
    "else",
    "loop",
    "while",
    "for",
    "in",
    "..",
    "..=",
    "&&",
    "||",
    "=",
    "+=",
    "<<",
    "<",
    "true",
    ",",
    "*",
    "&",
    "?",
    "::",
    "{}",
    "()",
    "[0]",
    "t.barrier.wait();",
    "#[tile_static]",
    "t.local[0]",
    "t.tile",
    "out",
    "abs",
    "return;",
    "break;",
    "{ t.barrier.wait(); }",
    "if idx[0] == 0 { return; }",
];

/// Applies `(kind, where, what)` mutations to a kernel's token trees: a token tree deleted,
/// duplicated, swapped with or overwritten by a sibling, a token inserted or overwritten, or a
/// whole statement deleted, duplicated, swapped with another of its block or moved to another
/// block. (Most token-level mutants do not parse; statement-level ones nearly all do.)
fn mutate(src: &str, mutations: &[(u8, u16, u16)]) -> Option<String> {
    let ts: proc_macro2::TokenStream = src.parse().ok()?;
    let mut nodes = tree(ts);
    for &(kind, a, b) in mutations {
        let kind = kind % 16;
        if kind >= 6 {
            mutate_statements(&mut nodes, kind, a as usize, b as usize);
            continue;
        }
        let word = Node::Leaf(VOCABULARY[b as usize % VOCABULARY.len()].to_string(), false);
        let mut all = Vec::new();
        positions(&nodes, &mut Vec::new(), &mut all);
        if all.is_empty() {
            nodes.push(word);
            continue;
        }
        let (path, i) = all[a as usize % all.len()].clone();
        let seq = sequence_at(&mut nodes, &path);
        let j = b as usize % seq.len();
        match kind {
            0 => {
                seq.remove(i);
            }
            1 => {
                let copy = seq[i].clone();
                seq.insert(i, copy);
            }
            2 => seq.swap(i, j),
            3 => seq[i] = seq[j].clone(),
            4 => seq.insert(i, word),
            _ => seq[i] = word,
        }
    }
    let mut out = String::new();
    render(&nodes, &mut out);
    Some(out)
}

/// The statement-level mutations (kinds 6 to 15).
fn mutate_statements(nodes: &mut Vec<Node>, kind: u8, a: usize, b: usize) {
    let mut paths = Vec::new();
    blocks(nodes, &mut Vec::new(), &mut paths);
    if paths.is_empty() {
        return;
    }
    let path = paths[a % paths.len()].clone();
    let seq = sequence_at(nodes, &path);
    let mut stmts = statements(std::mem::take(seq));
    if stmts.is_empty() {
        return;
    }
    let n = stmts.len();
    let (i, j) = (b % n, (b / 7 + a) % n);
    let mut moved = None;
    match kind {
        6..=8 => {
            stmts.remove(i);
        }
        9..=11 => {
            let copy = stmts[i].clone();
            stmts.insert(j, copy);
        }
        12..=14 => stmts.swap(i, j),
        _ => moved = Some(stmts.remove(i)),
    }
    *seq = stmts.into_iter().flatten().collect();
    // Into another block (or the same), at a statement boundary.
    if let Some(stmt) = moved {
        let mut paths = Vec::new();
        blocks(nodes, &mut Vec::new(), &mut paths);
        let target = paths[(a / 3 + b) % paths.len()].clone();
        let seq = sequence_at(nodes, &target);
        let mut stmts = statements(std::mem::take(seq));
        let at = (a + b / 5) % (stmts.len() + 1);
        stmts.insert(at, stmt);
        *seq = stmts.into_iter().flatten().collect();
    }
}

// ----- running the compiler -----

#[derive(Default)]
struct Stats {
    cases: u32,
    unparsable: u32,
    compiled: u32,
    /// Compiled tiled kernels, and those of them with a barrier.
    tiled: u32,
    barriers: u32,
    /// Compiled kernels with an atomic.
    atomics: u32,
    errored: u32,
    warned: u32,
    /// Modules to validate: the source and the words.
    modules: Vec<(String, Vec<u32>)>,
    /// How often each diagnostic (its first words) came up.
    messages: BTreeMap<String, u32>,
}

/// Compiles one input and checks everything but the validation; `Err` describes a failure.
fn check(src: &str, stats: &RefCell<Stats>) -> Result<(), String> {
    stats.borrow_mut().cases += 1;
    let func = match syn::parse_str::<syn::ItemFn>(src) {
        Ok(f) => f,
        Err(_) => {
            stats.borrow_mut().unparsable += 1;
            return Ok(());
        }
    };
    if let Some(path) = std::env::var_os("AMP_FUZZ_TRACE") {
        // The input under test, for a run that dies without unwinding (out of memory).
        let _ = std::fs::write(path, src);
    }
    let lines = src.lines().count().max(1);
    let in_kernel = |line: usize| (1..=lines).contains(&line);
    let result = catch_unwind(AssertUnwindSafe(|| amp_spirv::compile(&func)));
    match result {
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!("the compiler panicked ({msg}) on:\n{src}"))
        }
        Ok(Ok(k)) => {
            if k.spirv.first() != Some(&0x0723_0203) {
                return Err(format!("no SPIR-V magic number for:\n{src}"));
            }
            let again =
                amp_spirv::compile(&func).map_err(|d| format!("second compile failed: {d}"))?;
            if again.spirv != k.spirv {
                return Err(format!("two compilations differ for:\n{src}"));
            }
            if k.report.is_empty() {
                return Err(format!("empty report for:\n{src}"));
            }
            for w in &k.warnings {
                if w.message.trim().is_empty() || w.help.trim().is_empty() {
                    return Err(format!("a warning without message or help for:\n{src}"));
                }
                if !in_kernel(w.span.start().line) {
                    return Err(format!(
                        "warning `{}` points at line {}, outside the kernel:\n{src}",
                        w.message,
                        w.span.start().line
                    ));
                }
            }
            let mut s = stats.borrow_mut();
            s.compiled += 1;
            s.atomics += u32::from(src.contains("atomic_"));
            if k.tile.is_some() {
                s.tiled += 1;
                s.barriers += u32::from(src.contains("barrier"));
            }
            s.warned += u32::from(!k.warnings.is_empty());
            s.modules.push((src.to_string(), k.spirv));
            Ok(())
        }
        Ok(Err(diags)) => {
            if diags.is_empty() {
                return Err(format!("an Err without diagnostics for:\n{src}"));
            }
            let mut s = stats.borrow_mut();
            s.errored += 1;
            for d in diags.iter() {
                if d.message.trim().is_empty() {
                    return Err(format!("a diagnostic without a message for:\n{src}"));
                }
                if !in_kernel(d.span.start().line) {
                    return Err(format!(
                        "diagnostic `{}` points at line {}, outside the kernel:\n{src}",
                        d.message,
                        d.span.start().line
                    ));
                }
                let key: String = d
                    .message
                    .split_whitespace()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join(" ");
                *s.messages.entry(key).or_default() += 1;
            }
            Ok(())
        }
    }
}

fn cases_per_phase() -> u32 {
    std::env::var("AMP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

fn seed() -> u64 {
    std::env::var("AMP_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        })
}

fn runner(cases: u32, seed: u64) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: 4096,
        ..Config::default()
    })
}

// ----- validation in one batch -----

/// Validates every module (duplicates once), one `spirv-val` per file, on every core; returns
/// the failures as `(source, validator output)`.
fn validate_all(modules: &[(String, Vec<u32>)]) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for (i, (src, words)) in modules.iter().enumerate() {
        if !seen.insert(words.clone()) {
            continue;
        }
        let path = dir.path().join(format!("case{i}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).expect("writing a module");
        files.push((path, src.as_str()));
    }
    let val = spirv_val();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                let val = &val;
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for (path, src) in part {
                        let out = Command::new(val)
                            .args(["--target-env", "vulkan1.1"])
                            .arg(path)
                            .output()
                            .expect("running spirv-val");
                        if !out.status.success() {
                            failures.push((
                                src.to_string(),
                                format!(
                                    "{}{}",
                                    String::from_utf8_lossy(&out.stdout),
                                    String::from_utf8_lossy(&out.stderr)
                                ),
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a validation thread"))
            .collect()
    })
}

// ----- the test -----

#[test]
fn random_kernels_never_panic_and_compile_to_valid_spirv() {
    let start = std::time::Instant::now();
    let cases = cases_per_phase();
    let seed = seed();

    // Phase 1: generated kernels.
    let generated = RefCell::new(Stats::default());
    let result = runner(cases, seed).run(&vec(any::<u32>(), 0..700), |choices| {
        let src = generate(&choices);
        check(&src, &generated).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("generated kernels (AMP_FUZZ_SEED={seed}): {e}");
    }

    // Phase 2: mutations of hand-written and generated kernels.
    let mutated = RefCell::new(Stats::default());
    let strategy = (
        any::<u8>(),
        vec(any::<u32>(), 0..400),
        vec((any::<u8>(), any::<u16>(), any::<u16>()), 1..4),
    );
    let result =
        runner(cases, seed ^ 0x9e37_79b9_7f4a_7c15).run(&strategy, |(base, choices, muts)| {
            let original = match CORPUS.get(base as usize % (CORPUS.len() + 2)) {
                Some(k) => k.to_string(),
                None => generate(&choices),
            };
            match mutate(&original, &muts) {
                Some(src) => check(&src, &mutated).map_err(TestCaseError::fail),
                None => {
                    mutated.borrow_mut().unparsable += 1;
                    Ok(())
                }
            }
        });
    if let Err(e) = result {
        panic!("mutated kernels (AMP_FUZZ_SEED={seed}): {e}");
    }
    let compile_time = start.elapsed();

    // The corpus itself must compile (the mutations start from valid kernels).
    for k in CORPUS {
        if let Err(d) = amp_spirv::compile_str(k) {
            panic!("corpus kernel does not compile:\n{k}\n{d}");
        }
    }

    let (generated, mutated) = (generated.into_inner(), mutated.into_inner());
    let modules: Vec<(String, Vec<u32>)> = generated
        .modules
        .iter()
        .chain(&mutated.modules)
        .cloned()
        .collect();
    let failures = validate_all(&modules);

    for (phase, s) in [("generated", &generated), ("mutated", &mutated)] {
        println!(
            "fuzz {phase}: {} cases, {} rejected by syn, {} compiled ({} tiled, {} of them with barriers or fences; {} with atomics; {} with warnings), {} errored",
            s.cases,
            s.unparsable,
            s.compiled,
            s.tiled,
            s.barriers,
            s.atomics,
            s.warned,
            s.errored
        );
    }
    let mut messages: Vec<(&String, &u32)> =
        generated.messages.iter().chain(&mutated.messages).collect();
    messages.sort_by(|a, b| b.1.cmp(a.1));
    println!("most frequent diagnostics:");
    for (m, n) in messages.iter().take(12) {
        println!("  {n:5}  {m}");
    }
    println!(
        "fuzz: {} modules validated by spirv-val, {} rejected; seed {seed}; {:.1} s compiling, {:.1} s in all",
        modules.len(),
        failures.len(),
        compile_time.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    if let Some((src, msg)) = failures.first() {
        panic!(
            "spirv-val rejected {} module(s) (AMP_FUZZ_SEED={seed}); the first:\n{src}\n{msg}",
            failures.len()
        );
    }
    assert!(
        generated.compiled > 0,
        "some generated kernels must compile"
    );
    assert!(generated.errored > 0, "some generated kernels must fail");
}

/// The generator's output for a few fixed choice sequences, so that a change in the grammar
/// that breaks the generated syntax shows up here and not as skipped cases.
#[test]
fn generated_kernels_parse() {
    let mut parsed = 0;
    let total = 200;
    for seed in 0..total {
        let choices: Vec<u32> = (0..500u32)
            .map(|i| {
                (i ^ seed)
                    .wrapping_mul(0x9e37_79b9)
                    .rotate_left(seed % 31)
                    .wrapping_add(seed.wrapping_mul(7919))
            })
            .collect();
        let src = generate(&choices);
        if syn::parse_str::<syn::ItemFn>(&src).is_ok() {
            parsed += 1;
        } else {
            println!("unparsable:\n{src}");
        }
    }
    // Invalid constructs are rare and mostly still syntax; allow a few.
    assert!(parsed * 10 >= total * 9, "{parsed} of {total} parsed");
    // An empty sequence gives the simplest kernel.
    let simplest = generate(&[]);
    assert!(amp_spirv::compile_str(&simplest).is_ok(), "{simplest}");
}
