//! The generator: random device functions in the part of the kernel language that is also plain
//! Rust, written as source text so that the same text goes to `amp_spirv` (the device) and to
//! rustc (the host, the oracle).
//!
//! Every expression is fully parenthesized and every literal and `let` is typed, so that rustc
//! and the kernel front end cannot infer different types. The generator keeps out only what Rust
//! itself leaves open or what is not Rust (see the module documentation of `main.rs`):
//! - the sign of a zero from `min`/`max` of `-0.0` and `+0.0`: their results get `+ 0.0`, which
//!   maps both zeros to `+0.0` and changes nothing else;
//! - the sign of a NaN: `copysign` takes its sign from a test function's parameter or a
//!   literal, whose bits are fixed, never from a computed value (a helper's parameters are its
//!   callers' computed values);
//! - `usize` arithmetic (64 bits on the host, 32 on the device): `usize` appears only as
//!   `(e % N) as usize` indices of local arrays, which are in bounds on both;
//! - loops run at most a few dozen iterations (llvmpipe ends loops after 65,535, see
//!   docs/semantics.md);
//! - transcendental functions (which neither Rust nor Vulkan rounds correctly) appear only as the
//!   last operation of a test function, with an argument clamped to the range where
//!   docs/math.md measures them, and are compared within a tolerance ([`Check::Approx`]).
//!
//! Integer `/` and `%` by zero and `i32::MIN / -1` do appear: the host panics there (Rust leaves
//! no value), so those inputs are skipped; the device's defined values are tested elsewhere
//! (`tests/device/numeric.rs`).

use std::fmt::Write;

/// The value types of generated code.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    I32,
    U32,
    F32,
    F64,
    Bool,
}

impl Ty {
    pub const PARAMS: [Ty; 4] = [Ty::I32, Ty::U32, Ty::F32, Ty::F64];
    const LOCALS: [Ty; 5] = [Ty::I32, Ty::U32, Ty::F32, Ty::F64, Ty::Bool];

    pub fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::U32)
    }
}

/// A deterministic random stream (SplitMix64): one seed replays a whole run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// How a test function's result is compared with the host's.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Bit for bit (any NaN equals any NaN).
    Exact,
    /// The function ends in `func` (a transcendental function): equal, or within `ulps` units
    /// in the last place, or within `abs` absolutely.
    Approx {
        #[allow(dead_code)] // read through `Debug` in failure reports
        func: &'static str,
        ulps: u64,
        abs: f64,
    },
}

/// A generated test function: `fn name(p0: T0, ..) -> ret`.
pub struct TestFn {
    pub name: String,
    pub params: Vec<Ty>,
    pub ret: Ty,
    pub source: String,
    pub check: Check,
}

/// A generated device function that test functions (and later helpers) call.
pub struct Helper {
    pub name: String,
    pub params: Vec<Ty>,
    pub ret: Ty,
    pub source: String,
}

impl Helper {
    /// A hand-written helper (for replays).
    pub fn new(name: String, params: Vec<Ty>, ret: Ty, source: String) -> Helper {
        Helper {
            name,
            params,
            ret,
            source,
        }
    }
}

/// One round's functions: helpers first, then the test functions that call them.
pub struct Program {
    pub helpers: Vec<Helper>,
    pub tests: Vec<TestFn>,
}

impl Program {
    /// Every function's source, helpers first.
    pub fn source(&self) -> String {
        let mut s = String::new();
        for h in &self.helpers {
            s.push_str(&h.source);
            s.push('\n');
        }
        for t in &self.tests {
            s.push_str(&t.source);
            s.push('\n');
        }
        s
    }
}

/// Generates `tests` test functions (and a few helpers for them to call), named with `prefix`.
pub fn program(rng: &mut Rng, prefix: &str, tests: usize) -> Program {
    let mut helpers: Vec<Helper> = Vec::new();
    let count = (tests / 8).clamp(2, 12);
    for i in 0..count {
        let name = format!("{prefix}h{i}");
        let params = (0..1 + rng.below(3))
            .map(|_| rng.pick(&Ty::PARAMS))
            .collect::<Vec<_>>();
        let ret = rng.pick(&Ty::PARAMS);
        // Calls are inlined, so nesting multiplies code: the first half of the helpers call
        // nothing, the second half only the first half, tests any helper (at most two levels).
        let callable = &helpers[..helpers.len().min(count / 2)];
        let source = {
            let mut g = Gen::new(rng, callable, ret, 4);
            // A helper's parameters are whatever its callers pass, NaN of either sign
            // included: not a sign `copysign` may take.
            g.function(&name, &params, None, false)
        };
        helpers.push(Helper {
            name,
            params,
            ret,
            source,
        });
    }
    let mut out = Vec::new();
    for i in 0..tests {
        let name = format!("{prefix}t{i}");
        let params = (0..1 + rng.below(3))
            .map(|_| rng.pick(&Ty::PARAMS))
            .collect::<Vec<_>>();
        let ret = rng.pick(&Ty::PARAMS);
        let approx = if ret.is_float() && rng.chance(0.3) {
            Some(rng.pick(&APPROX))
        } else {
            None
        };
        let (source, check) = {
            let mut g = Gen::new(rng, &helpers, ret, 7);
            let source = g.function(&name, &params, approx, true);
            let check = approx.map_or(Check::Exact, |a| a.check(ret));
            (source, check)
        };
        out.push(TestFn {
            name,
            params,
            ret,
            source,
            check,
        });
    }
    Program {
        helpers,
        tests: out,
    }
}

/// A transcendental function, the range its argument is clamped to, and its tolerances
/// (f32, f64) as (ULP, absolute): above the maxima docs/math.md measures on lavapipe against
/// Rust's std, within the bounds Vulkan sets for `GLSL.std.450`.
#[derive(Clone, Copy)]
struct Approx {
    func: &'static str,
    /// The argument range; for two-argument functions, the second argument's range follows.
    range: (f64, f64),
    second: Option<(f64, f64)>,
    f32_tol: (u64, f64),
    f64_tol: (u64, f64),
}

impl Approx {
    fn check(self, ty: Ty) -> Check {
        let (ulps, abs) = if ty == Ty::F32 {
            self.f32_tol
        } else {
            self.f64_tol
        };
        Check::Approx {
            func: self.func,
            ulps,
            abs,
        }
    }
}

const fn approx(
    func: &'static str,
    range: (f64, f64),
    f32_tol: (u64, f64),
    f64_tol: (u64, f64),
) -> Approx {
    Approx {
        func,
        range,
        second: None,
        f32_tol,
        f64_tol,
    }
}

const PI: f64 = std::f64::consts::PI;

const APPROX: [Approx; 23] = [
    approx("sin", (-PI, PI), (4, 1e-6), (2, 0.0)),
    approx("cos", (-PI, PI), (4, 1e-6), (2, 0.0)),
    approx("tan", (-1.4, 1.4), (8, 2e-6), (4, 0.0)),
    approx("asin", (-1.0, 1.0), (8192, 1e-3), (4, 0.0)),
    approx("acos", (-1.0, 1.0), (8192, 1e-3), (4, 0.0)),
    approx("atan", (-100.0, 100.0), (1024, 1e-5), (2, 0.0)),
    approx("sinh", (-10.0, 10.0), (256, 1e-6), (4, 0.0)),
    approx("cosh", (-10.0, 10.0), (64, 0.0), (4, 0.0)),
    approx("tanh", (-10.0, 10.0), (256, 1e-6), (4, 0.0)),
    approx("asinh", (-100.0, 100.0), (8192, 1e-5), (2, 0.0)),
    approx("acosh", (1.0, 100.0), (64, 1e-5), (32, 0.0)),
    approx("atanh", (-0.99, 0.99), (8192, 1e-5), (32, 0.0)),
    approx("exp", (-80.0, 80.0), (256, 0.0), (2, 0.0)),
    approx("exp2", (-100.0, 100.0), (16, 0.0), (2, 0.0)),
    approx("exp_m1", (-5.0, 5.0), (2048, 1e-4), (4, 0.0)),
    approx("ln", (1e-6, 1e6), (4, 2e-6), (2, 0.0)),
    approx("log2", (1e-6, 1e6), (4, 2e-6), (2, 0.0)),
    approx("log10", (1e-6, 1e6), (8, 2e-6), (2, 0.0)),
    approx("ln_1p", (-0.5, 100.0), (1024, 1e-6), (4, 0.0)),
    approx("cbrt", (-1e6, 1e6), (32, 0.0), (2, 0.0)),
    Approx {
        func: "atan2",
        range: (-100.0, 100.0),
        second: Some((-100.0, 100.0)),
        f32_tol: (1024, 1e-5),
        f64_tol: (2, 0.0),
    },
    Approx {
        func: "powf",
        range: (0.5, 100.0),
        second: Some((-4.0, 4.0)),
        f32_tol: (1024, 0.0),
        f64_tol: (4, 0.0),
    },
    Approx {
        func: "hypot",
        range: (-1e3, 1e3),
        second: Some((-1e3, 1e3)),
        f32_tol: (4, 0.0),
        f64_tol: (4, 0.0),
    },
];

struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    /// A parameter: its bits are fixed, so `copysign` may take its sign.
    param: bool,
}

struct Array {
    name: String,
    ty: Ty,
    len: u32,
}

/// The state of one function's generation.
pub(crate) struct Gen<'a> {
    pub(crate) rng: &'a mut Rng,
    helpers: &'a [Helper],
    /// Helper calls this function may still make (each is inlined on the device).
    calls_left: u32,
    ret: Ty,
    scopes: Vec<(Vec<Var>, Vec<Array>)>,
    next_name: usize,
    loops: u32,
    /// The labels of the loops around the code being generated (`None`: unlabelled).
    labels: Vec<Option<String>>,
    /// Statements left for the whole function.
    budget: usize,
    out: String,
    indent: usize,
}

impl<'a> Gen<'a> {
    fn new(rng: &'a mut Rng, helpers: &'a [Helper], ret: Ty, budget: usize) -> Gen<'a> {
        Gen {
            rng,
            helpers,
            calls_left: 3,
            ret,
            scopes: Vec::new(),
            next_name: 0,
            loops: 0,
            labels: Vec::new(),
            budget,
            out: String::new(),
            indent: 1,
        }
    }

    /// A function of `params`; `fixed_params`: the parameters hold the test's inputs (fixed
    /// bits), not values computed by a caller.
    fn function(
        &mut self,
        name: &str,
        params: &[Ty],
        approx: Option<Approx>,
        fixed_params: bool,
    ) -> String {
        self.scopes.push((Vec::new(), Vec::new()));
        let mut sig = Vec::new();
        for (i, &ty) in params.iter().enumerate() {
            let pname = format!("p{i}");
            sig.push(format!("{pname}: {}", ty.name()));
            self.scopes[0].0.push(Var {
                name: pname,
                ty,
                mutable: false,
                param: fixed_params,
            });
        }
        let n = 1 + self.rng.below(self.budget);
        self.statements(n, 0);
        let result = match approx {
            Some(a) => self.approx_tail(a),
            None => self.expr(self.ret, 4),
        };
        self.line(&result);
        format!(
            "#[amp::device]\nfn {name}({}) -> {} {{\n{}}}\n",
            sig.join(", "),
            self.ret.name(),
            self.out
        )
    }

    fn approx_tail(&mut self, a: Approx) -> String {
        let ty = self.ret;
        let arg = self.expr(ty, 3);
        let x = format!(
            "({arg}).clamp({}, {})",
            float_lit(ty, a.range.0),
            float_lit(ty, a.range.1)
        );
        match a.second {
            None => format!("({x}).{}()", a.func),
            Some((lo, hi)) => {
                let arg2 = self.expr(ty, 3);
                format!(
                    "({x}).{}(({arg2}).clamp({}, {}))",
                    a.func,
                    float_lit(ty, lo),
                    float_lit(ty, hi)
                )
            }
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.next_name += 1;
        format!("{stem}{}", self.next_name)
    }

    fn vars(&self) -> impl Iterator<Item = &Var> {
        self.scopes.iter().flat_map(|s| s.0.iter())
    }

    fn arrays(&self) -> impl Iterator<Item = &Array> {
        self.scopes.iter().flat_map(|s| s.1.iter())
    }

    fn declare(&mut self, name: String, ty: Ty, mutable: bool) {
        self.scopes.last_mut().unwrap().0.push(Var {
            name,
            ty,
            mutable,
            param: false,
        });
    }

    /// A block of statements in a new scope.
    fn block(&mut self, n: usize, depth: u32) {
        self.scopes.push((Vec::new(), Vec::new()));
        self.indent += 1;
        self.statements(n, depth);
        self.indent -= 1;
        self.scopes.pop();
    }

    fn statements(&mut self, n: usize, depth: u32) {
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.statement(depth);
        }
    }

    fn statement(&mut self, depth: u32) {
        let nested = depth < 3;
        match self.rng.below(16) {
            0..=3 => self.let_stmt(),
            4 | 5 => self.assign(),
            6 if nested && self.rng.chance(0.3) => self.match_stmt(depth),
            6 if nested => self.if_stmt(depth),
            7 if nested && self.loops < 2 => self.for_loop(depth),
            8 if nested && self.loops < 2 => self.while_loop(depth),
            9 if nested && self.loops < 2 => self.loop_break(depth),
            10 => self.array_decl(),
            11 => self.array_store(),
            12 if self.rng.chance(0.5) => self.deferred_let(),
            12 => self.shadow_or_const(),
            13 => self.tuple_let(),
            14 if self.rng.chance(0.3) => {
                let c = self.expr(Ty::Bool, 2);
                let e = self.expr(self.ret, 2);
                self.line(&format!("if {c} {{ return {e}; }}"));
            }
            15 if self.loops > 0 => {
                let c = self.expr(Ty::Bool, 2);
                let kw = if self.rng.chance(0.5) {
                    "break"
                } else {
                    "continue"
                };
                // Sometimes out of a labelled loop further out.
                let labels: Vec<String> = self.labels.iter().flatten().cloned().collect();
                let target = if !labels.is_empty() && self.rng.chance(0.5) {
                    format!(" '{}", labels[self.rng.below(labels.len())])
                } else {
                    String::new()
                };
                self.line(&format!("if {c} {{ {kw}{target}; }}"));
            }
            _ => self.let_stmt(),
        }
    }

    fn let_stmt(&mut self) {
        let ty = self.rng.pick(&Ty::LOCALS);
        let mutable = self.rng.chance(0.6);
        let e = self.expr(ty, 3);
        let name = self.fresh("v");
        let m = if mutable { "mut " } else { "" };
        self.line(&format!("let {m}{name}: {} = {e};", ty.name()));
        self.declare(name, ty, mutable);
    }

    fn assign(&mut self) {
        let targets: Vec<(String, Ty)> = self
            .vars()
            .filter(|v| v.mutable)
            .map(|v| (v.name.clone(), v.ty))
            .collect();
        if targets.is_empty() {
            return self.let_stmt();
        }
        let (name, ty) = targets[self.rng.below(targets.len())].clone();
        let op = match ty {
            Ty::Bool => self.rng.pick(&["=", "&=", "|=", "^="]),
            Ty::I32 | Ty::U32 => self.rng.pick(&[
                "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
            ]),
            _ => self.rng.pick(&["=", "+=", "-=", "*=", "/=", "%="]),
        };
        let e = self.expr(ty, 3);
        self.line(&format!("{name} {op} {e};"));
    }

    fn if_stmt(&mut self, depth: u32) {
        let c = self.expr(Ty::Bool, 3);
        self.line(&format!("if {c} {{"));
        let n = 1 + self.rng.below(3);
        self.block(n, depth + 1);
        if self.rng.chance(0.25) {
            let c = self.expr(Ty::Bool, 2);
            self.line(&format!("}} else if {c} {{"));
            let n = 1 + self.rng.below(2);
            self.block(n, depth + 1);
        }
        if self.rng.chance(0.5) {
            self.line("} else {");
            let n = 1 + self.rng.below(3);
            self.block(n, depth + 1);
        }
        self.line("}");
    }

    fn for_loop(&mut self, depth: u32) {
        let i = self.fresh("i");
        let ty = self.rng.pick(&[Ty::I32, Ty::U32]);
        let lo = self.rng.below(4) as i64 - if ty == Ty::I32 { 2 } else { 0 };
        let hi = lo + self.rng.below(7) as i64;
        let (t, range) = (ty.name(), if self.rng.chance(0.3) { "..=" } else { ".." });
        let step = if self.rng.chance(0.2) {
            format!(".step_by({})", 1 + self.rng.below(3))
        } else {
            String::new()
        };
        let label = self.label();
        let head = if step.is_empty() {
            format!("{label}for {i} in ({lo}{t}){range}({hi}{t}) {{")
        } else {
            format!("{label}for {i} in (({lo}{t}){range}({hi}{t})){step} {{")
        };
        self.line(&head);
        self.scopes.push((
            vec![Var {
                name: i,
                ty,
                mutable: false,
                param: false,
            }],
            Vec::new(),
        ));
        self.loops += 1;
        let n = 1 + self.rng.below(3);
        self.block(n, depth + 1);
        self.loops -= 1;
        self.labels.pop();
        self.scopes.pop();
        self.line("}");
    }

    /// A label for the loop about to be written (`'l3: `), or none; pushed on the stack of
    /// labels until the loop's body is done.
    fn label(&mut self) -> String {
        if self.rng.chance(0.4) {
            let name = self.fresh("l");
            self.labels.push(Some(name.clone()));
            format!("'{name}: ")
        } else {
            self.labels.push(None);
            String::new()
        }
    }

    /// `match` as a statement: an integer or `bool` scrutinee, arms of blocks.
    fn match_stmt(&mut self, depth: u32) {
        let ty = self.rng.pick(&[Ty::I32, Ty::U32, Ty::Bool]);
        let scrutinee = self.expr(ty, 2);
        self.line(&format!("match {scrutinee} {{"));
        let arms = self.patterns(ty);
        let last = arms.len() - 1;
        for (i, (pat, guarded)) in arms.into_iter().enumerate() {
            let guard = if guarded {
                format!(" if {}", self.expr(Ty::Bool, 2))
            } else {
                String::new()
            };
            self.line(&format!("{pat}{guard} => {{"));
            let n = 1 + self.rng.below(2);
            self.block(n, depth + 1);
            self.line(if i == last { "}" } else { "}," });
        }
        self.line("}");
    }

    /// The patterns of a `match` on `ty`, each with whether it gets a guard; the last covers
    /// every value left (`_`, a binding, or `true`/`false` completing a `bool` match).
    pub(crate) fn patterns(&mut self, ty: Ty) -> Vec<(String, bool)> {
        let mut arms = Vec::new();
        if ty == Ty::Bool {
            let first = self.rng.chance(0.5);
            arms.push((first.to_string(), self.rng.chance(0.3)));
            arms.push(((!first).to_string(), false));
            if arms[0].1 {
                arms.push(("_".to_string(), false));
            }
            return arms;
        }
        let t = ty.name();
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            let a = if ty == Ty::I32 {
                self.rng.below(41) as i64 - 20
            } else {
                self.rng.below(41) as i64
            };
            let b = a + self.rng.below(10) as i64;
            // A pattern takes a negative literal as it is (no parentheses).
            let lit = |v: i64| format!("{v}{t}");
            let pat = match self.rng.below(6) {
                0 | 1 => lit(a),
                2 => format!("{}..={}", lit(a), lit(b)),
                3 => format!("{}..{}", lit(a), lit(b + 1)),
                4 => format!("{} | {}", lit(a), lit(b + 3)),
                _ if ty == Ty::I32 => format!("{t}::MIN..={}", lit(a)),
                _ => format!("{}..", lit(b)),
            };
            arms.push((pat, self.rng.chance(0.25)));
        }
        arms.push(("_".to_string(), false));
        arms
    }

    fn while_loop(&mut self, depth: u32) {
        let w = self.fresh("w");
        let bound = 1 + self.rng.below(6);
        self.line(&format!("let mut {w}: u32 = 0u32;"));
        let extra = if self.rng.chance(0.5) {
            format!(" && {}", self.expr(Ty::Bool, 2))
        } else {
            String::new()
        };
        let label = self.label();
        self.line(&format!("{label}while {w} < {bound}u32{extra} {{"));
        self.indent += 1;
        self.line(&format!("{w} += 1u32;"));
        self.indent -= 1;
        self.loop_body(depth);
    }

    fn loop_break(&mut self, depth: u32) {
        let w = self.fresh("w");
        let bound = 1 + self.rng.below(6);
        self.line(&format!("let mut {w}: u32 = 0u32;"));
        let label = self.label();
        self.line(&format!("{label}loop {{"));
        self.indent += 1;
        self.line(&format!("{w} += 1u32;"));
        self.line(&format!("if {w} > {bound}u32 {{ break; }}"));
        self.indent -= 1;
        self.loop_body(depth);
    }

    /// A loop's body, as a block one level deeper, and its closing brace.
    fn loop_body(&mut self, depth: u32) {
        self.loops += 1;
        let n = 1 + self.rng.below(3);
        self.block(n, depth + 1);
        self.loops -= 1;
        self.labels.pop();
        self.line("}");
    }

    fn array_decl(&mut self) {
        let ty = self.rng.pick(&Ty::PARAMS);
        let len = 1 + self.rng.below(6) as u32;
        let name = self.fresh("a");
        let init = if self.rng.chance(0.5) {
            format!("[{}; {len}]", self.literal(ty))
        } else {
            let items: Vec<String> = (0..len).map(|_| self.expr(ty, 2)).collect();
            format!("[{}]", items.join(", "))
        };
        self.line(&format!("let mut {name}: [{}; {len}] = {init};", ty.name()));
        self.scopes
            .last_mut()
            .unwrap()
            .1
            .push(Array { name, ty, len });
    }

    fn array_store(&mut self) {
        let arrays: Vec<(String, Ty, u32)> = self
            .arrays()
            .map(|a| (a.name.clone(), a.ty, a.len))
            .collect();
        if arrays.is_empty() {
            return self.array_decl();
        }
        let (name, ty, len) = arrays[self.rng.below(arrays.len())].clone();
        let i = self.array_index(len);
        let op = if ty.is_int() {
            self.rng.pick(&["=", "+=", "^="])
        } else {
            self.rng.pick(&["=", "+=", "*="])
        };
        let e = self.expr(ty, 3);
        self.line(&format!("{name}[{i}] {op} {e};"));
    }

    fn array_index(&mut self, len: u32) -> String {
        if self.rng.chance(0.3) {
            return format!("{}", self.rng.below(len as usize));
        }
        let e = self.expr(Ty::U32, 2);
        format!("(({e}) % {len}u32) as usize")
    }

    /// `let y: T;` assigned once on each path.
    fn deferred_let(&mut self) {
        let ty = self.rng.pick(&Ty::PARAMS);
        let name = self.fresh("d");
        let c = self.expr(Ty::Bool, 2);
        let (a, b) = (self.expr(ty, 3), self.expr(ty, 3));
        self.line(&format!("let {name}: {};", ty.name()));
        self.line(&format!(
            "if {c} {{ {name} = {a}; }} else {{ {name} = {b}; }}"
        ));
        self.declare(name, ty, false);
    }

    /// `let x: T = x op e;` shadowing a variable, or a `const` item in the body.
    fn shadow_or_const(&mut self) {
        // Only variables of the innermost scope: the shadowed one goes out of sight with it.
        let vars: Vec<(String, Ty)> = self
            .scopes
            .last()
            .unwrap()
            .0
            .iter()
            // `const` items (named `K..`) cannot be shadowed by a `let`.
            .filter(|v| v.ty != Ty::Bool && !v.param && !v.name.starts_with('K'))
            .map(|v| (v.name.clone(), v.ty))
            .collect();
        if !vars.is_empty() && self.rng.chance(0.6) {
            let (name, ty) = vars[self.rng.below(vars.len())].clone();
            let e = self.expr(ty, 2);
            let op = self.rng.pick(&["+", "-", "*"]);
            self.line(&format!("let {name}: {} = ({name} {op} {e});", ty.name()));
            // The shadowing variable is immutable.
            self.scopes.last_mut().unwrap().0.retain(|v| v.name != name);
            self.declare(name, ty, false);
        } else {
            let ty = self.rng.pick(&Ty::PARAMS);
            let name = format!("K{}", self.next_name + 1);
            self.next_name += 1;
            let value = self.literal(ty);
            self.line(&format!("const {name}: {} = {value};", ty.name()));
            self.declare(name, ty, false);
        }
    }

    fn tuple_let(&mut self) {
        let (t1, t2) = (self.rng.pick(&Ty::LOCALS), self.rng.pick(&Ty::LOCALS));
        let (a, b) = (self.expr(t1, 2), self.expr(t2, 2));
        let (n1, n2) = (self.fresh("q"), self.fresh("q"));
        // The kernel language takes this form untyped; every expression here has its type.
        // Sometimes through a tuple local and its components.
        if self.rng.chance(0.3) {
            let t = self.fresh("t");
            self.line(&format!(
                "let {t}: ({}, {}) = ({a}, {b});",
                t1.name(),
                t2.name()
            ));
            self.line(&format!("let ({n1}, {n2}) = ({t}.0, {t}.1);"));
        } else {
            self.line(&format!("let ({n1}, {n2}) = ({a}, {b});"));
        }
        self.declare(n1, t1, false);
        self.declare(n2, t2, false);
    }

    // ----- expressions -----

    pub(crate) fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.rng.chance(0.2) {
            return self.leaf(ty);
        }
        match ty {
            Ty::Bool => self.bool_expr(depth - 1),
            Ty::I32 | Ty::U32 => self.int_expr(ty, depth - 1),
            Ty::F32 | Ty::F64 => self.float_expr(ty, depth - 1),
        }
    }

    fn leaf(&mut self, ty: Ty) -> String {
        let names: Vec<String> = self
            .vars()
            .filter(|v| v.ty == ty)
            .map(|v| v.name.clone())
            .collect();
        if !names.is_empty() && self.rng.chance(0.75) {
            names[self.rng.below(names.len())].clone()
        } else {
            self.literal(ty)
        }
    }

    /// Shared forms: a cast from another type, `if` as an expression, a helper call, a local
    /// array element, a block.
    fn common(&mut self, ty: Ty, depth: u32) -> Option<String> {
        match self.rng.below(6) {
            0 => {
                let from = self.rng.pick(&Ty::LOCALS);
                if ty == Ty::Bool || from == Ty::Bool && ty.is_float() {
                    return None;
                }
                let e = self.expr(from, depth);
                Some(format!("(({e}) as {})", ty.name()))
            }
            1 => {
                let c = self.expr(Ty::Bool, depth);
                let (a, b) = (self.expr(ty, depth), self.expr(ty, depth));
                Some(format!("(if {c} {{ {a} }} else {{ {b} }})"))
            }
            2 if self.calls_left > 0 => {
                self.calls_left -= 1;
                let callable: Vec<usize> = (0..self.helpers.len())
                    .filter(|&i| self.helpers[i].ret == ty)
                    .collect();
                if callable.is_empty() {
                    return None;
                }
                let h = callable[self.rng.below(callable.len())];
                let params = self.helpers[h].params.clone();
                let args: Vec<String> = params.iter().map(|&p| self.expr(p, depth)).collect();
                Some(format!("{}({})", self.helpers[h].name, args.join(", ")))
            }
            3 => {
                let arrays: Vec<(String, u32)> = self
                    .arrays()
                    .filter(|a| a.ty == ty)
                    .map(|a| (a.name.clone(), a.len))
                    .collect();
                if arrays.is_empty() {
                    return None;
                }
                let (name, len) = arrays[self.rng.below(arrays.len())].clone();
                let i = self.array_index(len);
                Some(format!("{name}[{i}]"))
            }
            4 => {
                let t = self.rng.pick(&Ty::LOCALS);
                let e = self.expr(t, depth);
                let name = self.fresh("b");
                self.scopes.push((Vec::new(), Vec::new()));
                self.declare(name.clone(), t, false);
                let body = self.expr(ty, depth);
                self.scopes.pop();
                Some(format!("{{ let {name}: {} = {e}; {body} }}", t.name()))
            }
            5 if self.rng.chance(0.06) => Some(self.tuple_match_expr(ty, depth)),
            5 if self.rng.chance(0.5) => {
                let t = self.rng.pick(&[Ty::I32, Ty::U32, Ty::Bool]);
                let scrutinee = self.expr(t, depth);
                let mut arms = Vec::new();
                for (pat, guarded) in self.patterns(t) {
                    let guard = if guarded {
                        format!(" if {}", self.expr(Ty::Bool, depth))
                    } else {
                        String::new()
                    };
                    arms.push(format!("{pat}{guard} => {}", self.expr(ty, depth)));
                }
                Some(format!("(match {scrutinee} {{ {} }})", arms.join(", ")))
            }
            5 => {
                // `loop` as a value: a counted loop that leaves with `break value`.
                let w = self.fresh("w");
                let bound = 1 + self.rng.below(6);
                self.scopes.push((Vec::new(), Vec::new()));
                self.declare(w.clone(), Ty::U32, false);
                let c = self.expr(Ty::Bool, depth);
                let (a, b) = (self.expr(ty, depth), self.expr(ty, depth));
                self.scopes.pop();
                Some(format!(
                    "{{ let mut {w}: u32 = 0u32; loop {{ {w} += 1u32; if {c} {{ break {a}; }} \
                     if {w} > {bound}u32 {{ break {b}; }} }} }}"
                ))
            }
            _ => None,
        }
    }

    fn bool_expr(&mut self, depth: u32) -> String {
        if self.rng.chance(0.2) {
            if let Some(e) = self.common(Ty::Bool, depth) {
                return e;
            }
        }
        match self.rng.below(6) {
            0..=2 => {
                let t = self.rng.pick(&Ty::PARAMS);
                let (a, b) = (self.expr(t, depth), self.expr(t, depth));
                let op = self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
                format!("({a} {op} {b})")
            }
            3 => {
                let (a, b) = (self.expr(Ty::Bool, depth), self.expr(Ty::Bool, depth));
                let op = self.rng.pick(&["&&", "||", "==", "!=", "^", "&", "|"]);
                format!("({a} {op} {b})")
            }
            4 => format!("(!{})", self.expr(Ty::Bool, depth)),
            _ => {
                let t = self.rng.pick(&[Ty::F32, Ty::F64]);
                let m = self.rng.pick(&["is_nan", "is_infinite", "is_finite"]);
                format!("({}).{m}()", self.expr(t, depth))
            }
        }
    }

    fn int_expr(&mut self, ty: Ty, depth: u32) -> String {
        if self.rng.chance(0.3) {
            if let Some(e) = self.common(ty, depth) {
                return e;
            }
        }
        match self.rng.below(9) {
            0..=3 => {
                let op = self
                    .rng
                    .pick(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]);
                let a = self.expr(ty, depth);
                let b = if matches!(op, "/" | "%") && self.rng.chance(0.5) {
                    self.nonzero_literal(ty)
                } else {
                    self.expr(ty, depth)
                };
                format!("({a} {op} {b})")
            }
            4 if ty == Ty::I32 => format!("(-{})", self.expr(ty, depth)),
            4 => format!("(!{})", self.expr(ty, depth)),
            5 => {
                let m = self.rng.pick(&["min", "max"]);
                let (a, b) = (self.expr(ty, depth), self.expr(ty, depth));
                match self.rng.below(3) {
                    0 => format!("std::cmp::{m}({a}, {b})"),
                    1 => format!("{}::{m}({a}, {b})", ty.name()),
                    _ => format!("({a}).{m}({b})"),
                }
            }
            6 if ty == Ty::I32 => format!("({}).abs()", self.expr(ty, depth)),
            7 => self.int_method(ty, depth),
            8 if self.rng.chance(0.4) => self.small_int_expr(ty, depth),
            _ => self.leaf(ty),
        }
    }

    /// One of Rust's integer methods on an expression of `ty`, of type `ty` (a `u32` result
    /// cast to `i32`).
    fn int_method(&mut self, ty: Ty, depth: u32) -> String {
        let a = self.expr(ty, depth);
        let as_ty = |e: String| {
            if ty == Ty::I32 {
                format!("(({e}) as i32)")
            } else {
                e
            }
        };
        match self.rng.below(6) {
            5 => {
                // `overflowing_*`: a component of the tuple, or both folded into one value.
                let (m, arg) = match self.rng.below(6) {
                    0 => ("overflowing_add", Some(ty)),
                    1 => ("overflowing_sub", Some(ty)),
                    2 => ("overflowing_mul", Some(ty)),
                    3 => ("overflowing_shl", Some(Ty::U32)),
                    4 => ("overflowing_shr", Some(Ty::U32)),
                    _ => ("overflowing_neg", None),
                };
                let b = arg.map(|t| self.expr(t, depth)).unwrap_or_default();
                let call = format!("({a}).{m}({b})");
                match self.rng.below(3) {
                    0 => format!("{call}.0"),
                    1 => as_ty(format!("(({call}.1) as u32)")),
                    _ => format!("{{ let (r, o) = {call}; if o {{ !r }} else {{ r }} }}"),
                }
            }
            0 => {
                let m = self.rng.pick(&[
                    "count_ones",
                    "count_zeros",
                    "leading_zeros",
                    "trailing_zeros",
                    "leading_ones",
                    "trailing_ones",
                ]);
                as_ty(format!("({a}).{m}()"))
            }
            1 => {
                let m = if ty == Ty::I32 {
                    self.rng
                        .pick(&["reverse_bits", "swap_bytes", "signum", "wrapping_neg"])
                } else {
                    self.rng.pick(&[
                        "reverse_bits",
                        "swap_bytes",
                        "next_power_of_two",
                        "wrapping_neg",
                    ])
                };
                format!("({a}).{m}()")
            }
            2 => {
                let m = self.rng.pick(&[
                    "rotate_left",
                    "rotate_right",
                    "pow",
                    "wrapping_pow",
                    "wrapping_shl",
                    "wrapping_shr",
                ]);
                let n = self.expr(Ty::U32, depth);
                format!("({a}).{m}({n})")
            }
            3 => {
                let b = self.expr(ty, depth);
                as_ty(format!("({a}).abs_diff({b})"))
            }
            _ => {
                let m = self.rng.pick(&[
                    "saturating_add",
                    "saturating_sub",
                    "rem_euclid",
                    "div_euclid",
                    "wrapping_add",
                    "wrapping_sub",
                    "wrapping_mul",
                ]);
                let b = self.expr(ty, depth);
                format!("({a}).{m}({b})")
            }
        }
    }

    fn float_expr(&mut self, ty: Ty, depth: u32) -> String {
        if self.rng.chance(0.25) {
            if let Some(e) = self.common(ty, depth) {
                return e;
            }
        }
        let a = self.expr(ty, depth);
        match self.rng.below(12) {
            0..=4 => {
                let op = self.rng.pick(&["+", "-", "*", "/", "%"]);
                let b = self.expr(ty, depth);
                format!("({a} {op} {b})")
            }
            5 => format!("(-{a})"),
            6..=8 => {
                let m = self.rng.pick(&[
                    "abs",
                    "floor",
                    "ceil",
                    "round",
                    "trunc",
                    "fract",
                    "sqrt",
                    "signum",
                    "recip",
                    "to_degrees",
                    "to_radians",
                ]);
                if self.rng.chance(0.3) {
                    // Through the type: `f32::sqrt(x)`.
                    format!("{}::{m}({a})", ty.name())
                } else {
                    format!("({a}).{m}()")
                }
            }
            9 => {
                let (b, c) = (self.expr(ty, depth), self.expr(ty, depth));
                format!("({a}).mul_add({b}, {c})")
            }
            10 => {
                let m = self.rng.pick(&["min", "max"]);
                let b = self.expr(ty, depth);
                // `+ 0.0` makes the zero's sign defined (Rust leaves it open for -0.0 vs +0.0).
                format!("(({a}).{m}({b}) + {})", float_lit(ty, 0.0))
            }
            _ => {
                if self.rng.chance(0.5) {
                    let lo = self.rng.pick(&[-2.0, -1.0, -0.5, 0.0, 0.25, 1.0]);
                    let hi = lo + self.rng.pick(&[0.0, 0.5, 1.0, 3.0, 100.0]);
                    format!("({a}).clamp({}, {})", float_lit(ty, lo), float_lit(ty, hi))
                } else {
                    // The sign comes from bits that are fixed: a parameter or a literal.
                    let params: Vec<String> = self
                        .vars()
                        .filter(|v| v.param && v.ty == ty)
                        .map(|v| v.name.clone())
                        .collect();
                    let sign = if !params.is_empty() && self.rng.chance(0.6) {
                        params[self.rng.below(params.len())].clone()
                    } else {
                        self.literal(ty)
                    };
                    format!("({a}).copysign({sign})")
                }
            }
        }
    }

    fn nonzero_literal(&mut self, ty: Ty) -> String {
        let v = self.rng.pick(&[1i64, 2, 3, 7, 10, 255, -1, -3, 1 << 20]);
        if ty == Ty::U32 {
            format!("{}u32", v.unsigned_abs())
        } else if v < 0 {
            format!("({v}i32)")
        } else {
            format!("{v}i32")
        }
    }

    fn literal(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Bool => self.rng.pick(&["true", "false"]).to_string(),
            Ty::I32 => match self.rng.below(12) {
                0 => "i32::MAX".into(),
                1 => "i32::MIN".into(),
                2 => int_lit(self.rng.next_u64() as i32 as i64, "i32"),
                3 | 4 => int_lit(self.rng.below(2001) as i64 - 1000, "i32"),
                _ => int_lit(self.rng.pick(&[0, 1, -1, 2, 3, 5, 31, 32, 33, -7]), "i32"),
            },
            Ty::U32 => match self.rng.below(10) {
                0 => "u32::MAX".into(),
                1 => format!("{}u32", self.rng.next_u64() as u32),
                2 | 3 => format!("{}u32", self.rng.below(1000)),
                _ => format!("{}u32", self.rng.pick(&[0, 1, 2, 3, 5, 31, 32, 33])),
            },
            Ty::F32 | Ty::F64 => {
                let t = ty.name();
                match self.rng.below(16) {
                    0 => format!("{t}::INFINITY"),
                    1 => format!("{t}::NEG_INFINITY"),
                    2 => format!("{t}::NAN"),
                    3 => format!("{t}::MAX"),
                    4 => format!("{t}::MIN_POSITIVE"),
                    5 => format!("{t}::EPSILON"),
                    6 => float_lit(
                        ty,
                        self.rng.pick(&[1e-40, -3e-39, 1e30, -1e-30, 1e10, 3e-310]),
                    ),
                    7 | 8 => {
                        let x = (self.rng.below(20001) as f64 - 10000.0) / 64.0;
                        float_lit(ty, x)
                    }
                    _ => float_lit(
                        ty,
                        self.rng
                            .pick(&[0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1.5, -2.5, 0.1, 3.0]),
                    ),
                }
            }
        }
    }
}

fn int_lit(v: i64, suffix: &str) -> String {
    if v < 0 {
        format!("({v}{suffix})")
    } else {
        format!("{v}{suffix}")
    }
}

/// `x` as a literal of `ty` (rounded to `f32` by rustc and by the kernel compiler alike).
pub fn float_lit(ty: Ty, x: f64) -> String {
    let mut s = if ty == Ty::F32 {
        format!("{:?}", x as f32)
    } else {
        format!("{x:?}")
    };
    if !s.contains(['.', 'e']) {
        s.push_str(".0");
    }
    let lit = format!("{}{}", s.trim_start_matches('-'), ty.name());
    if s.starts_with('-') {
        format!("(-{lit})")
    } else {
        lit
    }
}

/// Writes `f`'s source with line numbers, for failure reports.
pub fn numbered(source: &str) -> String {
    let mut s = String::new();
    for (i, l) in source.lines().enumerate() {
        let _ = writeln!(s, "{:4} | {l}", i + 1);
    }
    s
}
