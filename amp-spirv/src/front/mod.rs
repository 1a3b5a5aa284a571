//! The front end: syn's AST of a `#[kernel(amp)]` function to the typed IR.

mod body;
mod infer;
mod signature;

use crate::diag::Diagnostics;
use crate::ir::Kernel;

pub use signature::value_type;

/// Checks a kernel function and builds its IR; every problem found is in the error.
pub fn lower(func: &syn::ItemFn) -> Result<Kernel, Diagnostics> {
    let mut diags = Diagnostics::default();
    let sig = signature::check_signature(func, &mut diags);
    let mut checker = body::BodyChecker::new(&mut diags, &sig.params);
    let index_local =
        checker.declare_index(sig.index_name.as_deref().unwrap_or("#index"), sig.rank);
    for name in &sig.rejected {
        checker.declare_rejected(name);
    }
    let (locals, body) = checker.check_body(&func.block);
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Kernel {
        name: func.sig.ident.to_string(),
        rank: sig.rank,
        index_local,
        params: sig.params,
        locals,
        body,
    })
}
