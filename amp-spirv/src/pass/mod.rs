//! Rewrites of the checked IR into IR of the same meaning, which a back end asks for before it
//! emits (naga's `proc` beside its back ends): each takes a [`Kernel`](crate::ir::Kernel) and
//! returns a new one, or `None` when it changes nothing.
//!
//! - [`collectives`]: every subgroup operation that combines lanes as a statement of its own;
//! - [`batch`]: a simple kernel's neighbouring threads as the tiles of a tiled kernel, and the
//!   loops every thread of a tile runs the same way marked to run at tile level, with per-lane
//!   masks under an `if` whose condition differs between threads;
//! - [`uniform`]: the values and statements those rewrites may place at tile level.
//!
//! The native back end runs them today (`back/native`): its tiles run their threads as loops on
//! one OS thread, where these forms are what make the loops fast.

pub(crate) mod batch;
pub(crate) mod collectives;
pub(crate) mod uniform;
