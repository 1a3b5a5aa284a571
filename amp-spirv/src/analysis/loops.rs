//! Loop trip counts: how many times each loop of a kernel can run, and whether a device that
//! ends loops after a fixed number of iterations could cut one of them short.
//!
//! lavapipe (Mesa's llvmpipe) keeps one counter per shader invocation group, starts it at
//! [`DEVICE_LOOP_LIMIT`], takes one off at the end of every iteration of every loop (a nest
//! counts all its inner iterations), and leaves whichever loop is running when it reaches 0,
//! without an error. A kernel whose loops cannot take that many iterations in all is never
//! cut; the others are *watched*: the SPIR-V back end lowers their outermost loops so that a
//! thread that leaves a loop its code did not end notes which loop it was, and the launch
//! fails with a typed error naming it (`back/spv/loops.rs`). Loops inside a watched loop are
//! covered by it ([`watches`]).

use crate::ir::*;

/// The iterations a device may run in all before it ends a loop by itself: lavapipe's
/// `LP_MAX_TGSI_LOOP_ITERATIONS`, the only such limit known among Vulkan drivers.
pub const DEVICE_LOOP_LIMIT: u64 = 65_535;

/// The work [`Loops::thread_work`] assumes of a thread with a loop of unknown trips.
pub const UNKNOWN_THREAD_WORK: u32 = 1024;

/// How many times a loop's body can run each time the loop is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trips {
    /// A range loop with literal bounds: exactly this many.
    Bounded(u64),
    /// A range loop whose bounds are values the launch gives (parameters, extents, constants
    /// from outside the kernel) or the kernel computes.
    DataDependent,
    /// A `while` loop (as many as its condition says) or a `loop` (until a `break`).
    Unbounded,
}

/// One loop of a kernel, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopFact {
    /// The line of its `for`, `while` or `loop` keyword.
    pub line: usize,
    /// `for`, `while` or `loop`.
    pub keyword: &'static str,
    /// Its trip count.
    pub trips: Trips,
    /// Whether it is watched itself in a watched kernel ([`watches`]).
    pub watched: bool,
}

/// The loops of a kernel and the most iterations they can run in all.
#[derive(Clone, Debug, Default)]
pub struct Loops {
    /// Every loop, in source order (device functions' loops where they are called).
    pub loops: Vec<LoopFact>,
    /// The most loop iterations one thread can run in all (every loop's trips times those of
    /// the loops around it), when every loop is [`Trips::Bounded`].
    pub total_bound: Option<u64>,
}

impl Loops {
    /// The loops of `kernel`.
    pub fn of(kernel: &Kernel) -> Loops {
        let mut walk = Walk {
            loops: Vec::new(),
            total: Some(0),
            around: Some(1),
            covering: 0,
        };
        walk.visit_block(&kernel.body);
        Loops {
            loops: walk.loops,
            total_bound: walk.total,
        }
    }

    /// An estimate of one thread's work in loop iterations, for splitting a launch among CPU
    /// threads: the most iterations it can run in all when every loop is bounded (at least
    /// 1), else [`UNKNOWN_THREAD_WORK`] (a loop whose trips the launch decides is taken to be
    /// a long one: splitting a launch of light threads too finely costs little, running a
    /// launch of heavy ones on one core costs the other cores' share).
    pub fn thread_work(&self) -> u32 {
        match self.total_bound {
            Some(total) => u32::try_from(total.max(1)).unwrap_or(u32::MAX),
            None => UNKNOWN_THREAD_WORK,
        }
    }

    /// Whether a device with a loop limit could end one of the kernel's loops early: its loops
    /// can run more than [`DEVICE_LOOP_LIMIT`] iterations in all, or no bound is known.
    pub fn watched(&self) -> bool {
        !self.loops.is_empty() && self.total_bound.is_none_or(|t| t > DEVICE_LOOP_LIMIT)
    }
}

struct Walk {
    loops: Vec<LoopFact>,
    /// Iterations counted so far, `None` once one loop has no bound.
    total: Option<u64>,
    /// The product of the trips of the loops around the current point.
    around: Option<u64>,
    /// How many watched loops around the current point cover the loops inside them.
    covering: u32,
}

impl Walk {
    fn enter(
        &mut self,
        expr: &Expr,
        keyword: &'static str,
        trips: Trips,
        ends: bool,
    ) -> Option<u64> {
        self.loops.push(LoopFact {
            line: expr.span.start().line,
            keyword,
            trips,
            watched: watches(self.covering > 0, ends),
        });
        let own = match trips {
            Trips::Bounded(n) => Some(n),
            Trips::DataDependent | Trips::Unbounded => None,
        };
        let runs = own.zip(self.around).map(|(n, a)| n.saturating_mul(a));
        self.total = self.total.zip(runs).map(|(t, r)| t.saturating_add(r));
        std::mem::replace(&mut self.around, runs)
    }
}

impl<'a> Visitor<'a> for Walk {
    fn visit_expr(&mut self, expr: &'a Expr) {
        let (keyword, trips) = match &expr.kind {
            ExprKind::For(r) => ("for", range_trips(r)),
            ExprKind::While(..) => ("while", Trips::Unbounded),
            ExprKind::Loop(_) => ("loop", Trips::Unbounded),
            _ => return walk_expr(self, expr),
        };
        let (body, ends) = match &expr.kind {
            ExprKind::For(r) => (&r.body, true),
            ExprKind::While(_, b) => (b, true),
            ExprKind::Loop(b) => (b, breaks_out(b)),
            _ => return,
        };
        let outer = self.enter(expr, keyword, trips, ends);
        let covers = watches(self.covering > 0, ends) && covers_inner_loops(body);
        self.covering += u32::from(covers);
        walk_expr(self, expr);
        self.covering -= u32::from(covers);
        self.around = outer;
    }
}

/// Whether a loop of a watched kernel is watched itself: every loop is but one inside a
/// watched loop that covers it ([`covers_inner_loops`]): a device that ends it, out of
/// iterations, ends the loop around it too, at that loop's next back edge, which sees the
/// cut (and names the outer loop). A `loop` that only a cut can end (`ends` false: no
/// `break`) stays watched, so that what follows it is never run. Inner loops keep their
/// plain form, which drivers unroll and optimise as they would without a limit.
pub fn watches(covered: bool, ends: bool) -> bool {
    !covered || !ends
}

/// Whether a `loop` body has a `break` that leaves it (one inside a nested loop leaves that
/// loop instead).
pub fn breaks_out(body: &Block) -> bool {
    let mut finder = BreakFinder(false);
    finder.visit_block(body);
    finder.0
}

/// Whether a watched loop with this body covers the literal loops inside it: every way out of
/// a watched loop goes through one last back edge, but `return`, which ends the thread.
pub fn covers_inner_loops(body: &Block) -> bool {
    struct FindReturn(bool);
    impl<'a> Visitor<'a> for FindReturn {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if matches!(expr.kind, ExprKind::Return) {
                self.0 = true;
            } else if !self.0 {
                walk_expr(self, expr);
            }
        }
    }
    let mut find = FindReturn(false);
    find.visit_block(body);
    !find.0
}

/// The trips of a range loop whose start, end and step are literals.
pub fn range_trips(r: &RangeLoop) -> Trips {
    let lit = |e: &Expr| match e.kind {
        // Negative literals of signed types are stored as their bits: above `i64::MAX`.
        ExprKind::Lit(Lit::Int(v)) if v <= i64::MAX as u128 => Some(v as u64),
        _ => None,
    };
    let step = match &r.step {
        None => Some(1),
        Some(s) => lit(s),
    };
    match (lit(&r.start), lit(&r.end), step) {
        (Some(start), Some(end), Some(step)) if step > 0 => {
            let span = end.saturating_sub(start) + u64::from(r.inclusive && end >= start);
            Trips::Bounded(span.div_ceil(step))
        }
        _ => Trips::DataDependent,
    }
}

/// Looks for a `break` that leaves the loop whose body it walks.
struct BreakFinder(bool);

impl Visitor<'_> for BreakFinder {
    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Break => self.0 = true,
            // A break inside a nested loop leaves that loop, not this one.
            ExprKind::While(c, _) => self.visit_expr(c),
            ExprKind::Loop(_) => {}
            ExprKind::For(r) => {
                self.visit_expr(&r.start);
                self.visit_expr(&r.end);
                if let Some(step) = &r.step {
                    self.visit_expr(step);
                }
            }
            // Not looked into, as before the walker existed: a `break` in these operands
            // would leave the merge block marked unreachable.
            ExprKind::Math(..) | ExprKind::Atomic(_) => {}
            _ => walk_expr(self, e),
        }
    }
}
