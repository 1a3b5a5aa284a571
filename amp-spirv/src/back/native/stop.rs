//! Why the native back end stops: a construct it does not translate yet, or a broken
//! invariant of its own.

use super::Invariant;
use crate::diag::Span;
use std::fmt;

/// A construct the native back end does not translate yet: the kernel runs on Vulkan only.
#[derive(Clone, Debug)]
pub struct Unsupported {
    /// What it is, in words (`"tiled kernels"`, `"short vectors"`).
    pub construct: String,
    /// Where it is in the kernel.
    pub span: Span,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the native back end does not support {} yet",
            self.construct
        )
    }
}

impl std::error::Error for Unsupported {}

/// Why the native back end stopped: a construct it does not translate yet (the kernel runs on
/// Vulkan only), or a broken invariant of its own (a bug in amp-rs, reported as such).
#[derive(Clone, Debug)]
pub enum Stop {
    /// A construct the native back end does not translate yet.
    Unsupported(Unsupported),
    /// A bug: what broke, and where in the kernel the back end was.
    Internal {
        /// The invariant that does not hold.
        invariant: Invariant,
        /// Where the back end was.
        span: Span,
    },
}

pub(crate) type Res<T> = Result<T, Stop>;
