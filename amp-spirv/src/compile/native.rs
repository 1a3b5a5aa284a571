//! The native back end's driver: a kernel's source and options in, the Rust code of one of
//! its threads (or, for a tiled kernel, of one of its tiles) out (see `back::native` for the
//! thread and tile ABIs).

use super::{CheckedKernel, Options};
use crate::back::native;
use crate::diag::Diagnostics;
use crate::ir::{OuterConst, ParamKind, TileDim};

pub use native::{generic_type as native_generic_type, Unsupported};

/// A kernel compiled to native Rust source.
#[derive(Clone, Debug)]
pub struct NativeKernel {
    /// The kernel's name.
    pub name: String,
    /// The name of the generated thread function.
    pub fn_name: String,
    /// Rank of the launch domain (the length of the thread's index, or of a tiled kernel's
    /// tile index).
    pub rank: u32,
    /// The parameters after the index, in order (the function's arguments after `idx` or,
    /// for a tiled kernel's tile function, `tile`).
    pub params: Vec<(String, ParamKind)>,
    /// The outer constants, passed after the parameters.
    pub consts: Vec<OuterConst>,
    /// The const-generic parameters (by index in `consts`) every generated function is
    /// generic over (`const G<i>: T`, in this order; `T` from [`native_generic_type`]): all
    /// of them where a thread's local array takes one as its length, else none. Callers pass
    /// them (`::<G<i>, ..>`; the launcher's entry, the kernel's own parameters).
    pub generics: Vec<u32>,
    /// For a tiled kernel: its tile shape (`T0` first; a named dimension is the outer constant
    /// of that name, passed as its `c<i>` argument). The function then runs one tile.
    pub tile: Option<Vec<TileDim>>,
    /// The `#[derive(DeviceStruct)]` structs the source defines as `#[repr(C)]` twins with the
    /// host's layout (fields `f0, f1, ..`): (the struct's name, its generated name,
    /// `<fn_name>_<Name>`). Buffers of them are `Buf<twin, R>`, by-value ones the twin itself.
    pub structs: Vec<(String, String)>,
    /// The code: the struct twins, then the function, naming the `amp-native-rt` crate
    /// through the path given. For a tiled kernel it runs one whole tile (`back::native`'s
    /// tile ABI). The code of each kernel statement is located at that statement, so
    /// debuggers show the kernel's lines.
    pub code: proc_macro2::TokenStream,
    /// The variant for launches whose every view covers the domain (`Buf::covers`), when some
    /// bounds check depends on that: its checks of index components the range analysis bounds
    /// by the domain are gone, so LLVM can vectorize an elementwise kernel's loop.
    pub covering: Option<NativeVariant>,
    /// For a simple kernel with loops every thread runs the same way: the functions that run
    /// a batch of [`BatchedVariant::lanes`] threads at once with those loops hoisted out of
    /// the work-item loops (`back::native::native_batched`).
    pub batched: Option<BatchedVariant>,
    /// For a simple kernel with loops that has no batched functions: why (it runs one thread
    /// at a time), for the compile report.
    pub unbatched: Option<String>,
    /// One thread's work in loop iterations, as the loop analysis estimates it
    /// (`Loops::thread_work`): how finely a
    /// launch is split among the native accelerator's threads.
    pub thread_work: u32,
}

/// Another function of a native kernel: the variant for launches whose every view covers the
/// domain, or a batched one.
#[derive(Clone, Debug)]
pub struct NativeVariant {
    /// Its function's name (`<fn_name>_covering`, `<fn_name>_batch`, ..).
    pub fn_name: String,
    /// Its code (its own struct twins, then the function).
    pub code: proc_macro2::TokenStream,
}

/// The batched functions of a simple kernel: each runs threads `[t0, .., tn * lanes + l]` for
/// `l` in `0..n` when called with `([t0, .., tn], n)`, `n` at most `lanes` unless the batch is
/// `wide` (the tile ABI with tile shape `[1, .., 1, lanes]`, and the count of threads after
/// it); every one of them must be in the domain.
#[derive(Clone, Debug)]
pub struct BatchedVariant {
    /// Threads per call, along the domain's last dimension.
    pub lanes: u32,
    /// A call may run more than `lanes` threads (the batch keeps no per-thread frames): the
    /// executor then runs a run of a row's batches in one call where the batch function's
    /// `<fn_name>_fits` (its guard alone, with the same arguments) says that the call runs
    /// none of the checks the guard decides.
    pub wide: bool,
    /// The batch function (`<fn_name>_batch`).
    pub plain: NativeVariant,
    /// Its variant for launches whose every view covers the domain (`<fn_name>_batch_covering`).
    pub covering: Option<NativeVariant>,
}

/// Why a kernel has no native code: it is not a valid kernel, or it uses something the native
/// back end does not translate yet.
#[derive(Clone, Debug)]
pub enum NativeError {
    /// The kernel's errors, as [`compile_with`](super::compile_with) reports them.
    Invalid(Diagnostics),
    /// A construct the native back end does not support yet.
    Unsupported(Unsupported),
    /// A bug in the native back end: the internal-error diagnostic, at the kernel.
    Internal(Diagnostics),
}

impl std::fmt::Display for NativeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NativeError::Invalid(d) => {
                for diag in d.iter() {
                    writeln!(f, "{diag}")?;
                }
                Ok(())
            }
            NativeError::Unsupported(u) => write!(f, "{u}"),
            NativeError::Internal(d) => {
                for diag in d.iter() {
                    writeln!(f, "{diag}")?;
                }
                Ok(())
            }
        }
    }
}

/// Compiles a `#[kernel(amp)]` function to the Rust source of one thread (one tile for a tiled
/// kernel): a function called `fn_name` (after the structs it uses) that reaches its run-time
/// support (the `amp-native-rt` crate, or a re-export of it) through the path `rt`. For tests
/// and tools; `#[kernel(amp)]` checks once and calls [`CheckedKernel::native`].
pub fn compile_native(
    func: &syn::ItemFn,
    options: &Options,
    rt: &str,
    fn_name: &str,
) -> Result<NativeKernel, NativeError> {
    super::check(func, options)
        .map_err(NativeError::Invalid)?
        .native(rt, fn_name)
}

impl NativeKernel {
    /// The kernel's generated Rust, formatted: its struct twins and thread (or tile) function,
    /// then each variant's function (covering, batched), as a user reads it with
    /// `AMP_DUMP_NATIVE` and as the native snapshots keep it. Code that does not parse as Rust
    /// (a bug of the back end, which the macro reports) comes back as its tokens.
    pub fn source(&self) -> String {
        let mut code = self.code.clone();
        let variants = self.covering.iter().chain(
            self.batched
                .iter()
                .flat_map(|b| std::iter::once(&b.plain).chain(&b.covering)),
        );
        for v in variants {
            code.extend(v.code.clone());
        }
        match syn::parse2::<syn::File>(code.clone()) {
            Ok(file) => prettyplease::unparse(&file),
            Err(_) => code.to_string(),
        }
    }
}

impl CheckedKernel {
    /// The kernel as native Rust source (see [`compile_native`]), or the construct the native
    /// back end does not translate yet ([`NativeError::Unsupported`]), or the internal error
    /// of a bug in it ([`NativeError::Internal`]).
    pub fn native(&self, rt: &str, fn_name: &str) -> Result<NativeKernel, NativeError> {
        self.native_source(rt, fn_name).map_err(|stop| match stop {
            native::Stop::Unsupported(u) => NativeError::Unsupported(u),
            native::Stop::Internal { invariant, span } => NativeError::Internal(
                super::internal_error(self.name(), "native Rust", &invariant.to_string(), span),
            ),
        })
    }

    fn native_source(&self, rt: &str, fn_name: &str) -> Result<NativeKernel, native::Stop> {
        let (kernel, plan) = (&self.kernel, self.plan());
        let access = native::Access {
            shared: &self.findings.shared,
        };
        let native::NativeSource {
            code,
            structs,
            uses_covers,
            ..
        } = native::native(kernel, plan, access, rt, fn_name, false)?;
        let variant = |fn_name: String, v: native::NativeSource| NativeVariant {
            fn_name,
            code: v.code,
        };
        let covering = if uses_covers {
            let name = format!("{fn_name}_covering");
            let v = native::native(kernel, plan, access, rt, &name, true)?;
            Some(variant(name, v))
        } else {
            None
        };
        // A batch the back end cannot emit is no reason to lose the thread function: such a
        // kernel runs one thread at a time.
        let batched = |name: String, covers: bool| -> Result<_, native::Stop> {
            match native::native_batched(kernel, plan, access, rt, &name, covers) {
                Ok(v) => Ok(v.map(|v| ((v.uses_covers, !v.lane_frames), variant(name, v)))),
                Err(native::Stop::Unsupported(_)) => Ok(None),
                Err(internal) => Err(internal),
            }
        };
        let batched = match batched(format!("{fn_name}_batch"), false)? {
            None => None,
            Some(((uses_covers, wide), plain)) => {
                let covering = match uses_covers {
                    true => batched(format!("{fn_name}_batch_covering"), true)?,
                    false => None,
                };
                match (uses_covers, covering) {
                    // The covering variant is needed but cannot be emitted: no batches.
                    (true, None) => None,
                    // Both variants run wide calls, or neither does.
                    (_, covering) => Some(BatchedVariant {
                        lanes: native::LANES,
                        wide: wide && covering.as_ref().is_none_or(|((_, w), _)| *w),
                        plain,
                        covering: covering.map(|c| c.1),
                    }),
                }
            }
        };
        Ok(NativeKernel {
            name: kernel.name.clone(),
            fn_name: fn_name.to_string(),
            rank: kernel.rank,
            params: kernel
                .params
                .iter()
                .map(|p| (p.name.clone(), p.kind.clone()))
                .collect(),
            consts: kernel.consts.clone(),
            generics: native::native_generics(kernel),
            tile: kernel.tiled.as_ref().map(|t| t.dims.clone()),
            structs,
            code,
            covering,
            unbatched: native::unbatched_reason(kernel, batched.is_some()).map(str::to_owned),
            batched,
            thread_work: self.findings.loops.thread_work(),
        })
    }
}
