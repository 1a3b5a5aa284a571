//! Diagnostics: every error carries the span of the tokens it is about, the rule it breaks and,
//! where there is one, the fix. The compiler collects them all instead of stopping at the first.

use std::fmt;

mod rule;

pub use rule::Rule;

/// The source range a diagnostic is about: its first and last token. (Stable Rust cannot join
/// two spans into one, so both ends are kept and the macro spans the error across them.)
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// The first token.
    pub start: proc_macro2::Span,
    /// The last token.
    pub end: proc_macro2::Span,
}

impl Span {
    /// The range of a syntax node's tokens.
    pub fn of(node: &(impl quote::ToTokens + ?Sized)) -> Span {
        let mut tokens = node.to_token_stream().into_iter();
        let Some(first) = tokens.next() else {
            return Span::from(proc_macro2::Span::call_site());
        };
        let start = first.span();
        let end = tokens.last().map_or(start, |t| t.span());
        Span { start, end }
    }

    /// Where the range starts (line and column), with `proc-macro2`'s span locations.
    pub fn start(&self) -> proc_macro2::LineColumn {
        self.start.start()
    }
}

impl From<proc_macro2::Span> for Span {
    fn from(span: proc_macro2::Span) -> Self {
        Span {
            start: span,
            end: span,
        }
    }
}

/// `.span()` on syntax nodes, returning the whole range (`syn`'s returns the first token only
/// on stable Rust).
pub trait Spanned {
    /// The node's range.
    fn span(&self) -> Span;
}

impl<T: quote::ToTokens + ?Sized> Spanned for T {
    fn span(&self) -> Span {
        Span::of(self)
    }
}

/// One compile error in a kernel.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The rule the error reports (its section of `docs/restrictions.md`).
    pub rule: Rule,
    /// The tokens the error is about.
    pub span: Span,
    /// What is wrong, naming the rule.
    pub message: String,
    /// How to fix it, when there is an obvious way.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error against `rule` at `span`.
    pub fn error(rule: Rule, span: impl Into<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            rule,
            span: span.into(),
            message: message.into(),
            help: None,
        }
    }

    /// A bug in amp-rs met at `span` (`what`: while doing what, and what broke): never the
    /// kernel's fault, so it asks for a report (rule `internal-error`).
    pub fn internal(span: impl Into<Span>, what: impl std::fmt::Display) -> Self {
        Diagnostic::error(Rule::InternalError, span, format!("internal error in amp-rs {what}"))
            .with_help("this is a bug in amp-rs, not in the kernel: please report it with the kernel's source (and `AMP_REPORT=1` output)")
    }

    /// Adds a suggested fix.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\nhelp: {help}")?;
        }
        Ok(())
    }
}

/// The errors of one kernel, in source order of discovery.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records an error.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    /// Records an error against `rule` at `span` with a message.
    pub fn error(&mut self, rule: Rule, span: impl Into<Span>, message: impl Into<String>) {
        self.push(Diagnostic::error(rule, span, message));
    }

    /// Whether no error was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The recorded errors.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }

    /// Number of recorded errors.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Forgets the errors recorded after the first `len` (those of a speculative check).
    pub fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.list.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "error: {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
