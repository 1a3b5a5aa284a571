//! Immutable locals declared without a value (`let y: f32;`). Rust lets a program assign such a
//! local once on every path and nowhere twice: `if c { y = 1.0; } else { y = 2.0; }` is
//! valid, `y = 1.0; y = 2.0;` and an assignment in a loop are not. The checker follows the path
//! it is checking and keeps the set of those locals that may already hold a value there, as
//! rustc's borrow checker does with its "maybe initialized" set.
//!
//! In the IR such a local is mutable (it is written after its declaration); the rule is the
//! front end's alone, so the analyses that treat an immutable local as its initializer never
//! see one without an initializer.

use super::*;
use std::collections::{BTreeSet, HashMap};

/// The deferred locals and what the path being checked has assigned.
pub(super) struct DeferredInit {
    /// Each deferred local and the number of loops around its declaration.
    declared: HashMap<LocalId, usize>,
    /// The deferred locals that may hold a value on the path being checked; `None` where the
    /// path cannot be reached (after `return`, `break` or `continue`).
    maybe_assigned: Option<BTreeSet<LocalId>>,
    /// The loops around the code being checked (a `while` condition counts: it runs again).
    loop_depth: usize,
}

impl Default for DeferredInit {
    fn default() -> Self {
        DeferredInit {
            declared: HashMap::new(),
            maybe_assigned: Some(BTreeSet::new()),
            loop_depth: 0,
        }
    }
}

/// What the path has assigned at one point, to check another branch from there.
#[derive(Clone)]
pub(super) struct PathState(Option<BTreeSet<LocalId>>);

impl DeferredInit {
    /// The state at this point of the path.
    pub(super) fn save(&self) -> PathState {
        PathState(self.maybe_assigned.clone())
    }

    /// Checks on from `state` (the start of another branch, or the code after a loop),
    /// returning the state the path had reached.
    pub(super) fn restart(&mut self, state: PathState) -> PathState {
        PathState(std::mem::replace(&mut self.maybe_assigned, state.0))
    }

    /// Joins the end of another branch into this one: a local assigned on either may hold a
    /// value; a branch that cannot reach the join adds nothing.
    pub(super) fn join(&mut self, other: PathState) {
        match (&mut self.maybe_assigned, other.0) {
            (Some(mine), Some(theirs)) => mine.extend(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }

    /// The path ends here (`return`, `break`, `continue`).
    pub(super) fn diverge(&mut self) {
        self.maybe_assigned = None;
    }

    pub(super) fn enter_loop(&mut self) {
        self.loop_depth += 1;
    }

    pub(super) fn leave_loop(&mut self) {
        self.loop_depth -= 1;
    }
}

impl BodyChecker<'_> {
    /// Declares `name`, an immutable local without a value, to be assigned later.
    pub(super) fn declare_deferred(&mut self, name: &str, ty: Ty) -> LocalId {
        let id = self.declare(name, ty, true);
        let depth = self.deferred.loop_depth;
        self.deferred.declared.insert(id, depth);
        id
    }

    /// Whether the local `id` may be written here: mutable locals always; a deferred one by a
    /// plain assignment (`whole`) where no value can have reached it yet. Reports the error
    /// otherwise.
    pub(super) fn check_local_write(&mut self, id: LocalId, name: &str, whole: bool, span: Span) {
        let Some(&depth) = self.deferred.declared.get(&id) else {
            if !self.locals[id].mutable {
                self.err(
                    Diagnostic::error(
                        Rule::Assignments,
                        span,
                        format!("cannot assign to `{name}`: it is not declared `mut`"),
                    )
                    .with_help(format!("declare it with `let mut {name}`")),
                );
            }
            return;
        };
        let problem = if !whole {
            Some(format!(
                "cannot modify `{name}`: it is not declared `mut` (a variable declared without a value can only be assigned as a whole, once)"
            ))
        } else if depth < self.deferred.loop_depth {
            Some(format!(
                "cannot assign twice to immutable variable `{name}`: this assignment is in a loop"
            ))
        } else if self
            .deferred
            .maybe_assigned
            .as_ref()
            .is_some_and(|s| s.contains(&id))
        {
            Some(format!(
                "cannot assign twice to immutable variable `{name}`"
            ))
        } else {
            None
        };
        match problem {
            Some(message) => self.err(
                Diagnostic::error(Rule::Assignments, span, message)
                    .with_help(format!("declare it with `let mut {name}`")),
            ),
            None => {
                if let Some(s) = &mut self.deferred.maybe_assigned {
                    s.insert(id);
                }
            }
        }
    }
}
