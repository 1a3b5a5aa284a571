//! The compiler's driver: a kernel's source and options in, a [`CompiledKernel`] (SPIR-V words
//! and what the runtime needs to launch them) or every diagnostic out. It runs the passes in
//! order: the structs are laid out, the front end lowers and checks, the analyses look for
//! non-uniform barriers and races, the launch parameters are laid out, the back end emits.

use crate::analysis::{self, Lint, Warning};
use crate::diag::{self, Diagnostic, Diagnostics, Rule};
use crate::front::DeviceFnSource;
use crate::ir::{self, OuterConst, ParamKind, TileDim};
use crate::structs::StructTable;
use crate::types::{self, Len, StructDef};
use crate::{back, front, MAX_PUSH_CONSTANT_BYTES};

mod native;
mod report;

pub use native::{
    compile_native, native_generic_type, BatchedVariant, NativeError, NativeKernel, NativeVariant,
    Unsupported,
};

/// One parameter of a compiled kernel, after the index.
#[derive(Clone, Debug)]
pub struct CompiledParam {
    /// Its name.
    pub name: String,
    /// How it is passed.
    pub kind: ParamKind,
    /// Binding in descriptor set 0, for buffers.
    pub binding: Option<u32>,
    /// Byte offset in the push-constant block: of the value for scalars, of the extent for
    /// buffers.
    pub offset: u32,
}

/// A kernel compiled to SPIR-V, with what the runtime needs to launch it.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// The function's name.
    pub name: String,
    /// The SPIR-V 1.3 module.
    pub spirv: Vec<u32>,
    /// The same kernel with its `i8` .. `u16` views and arrays in 8- and 16-bit storage, for
    /// devices that have it; empty for a kernel without such buffers.
    pub spirv_narrow_storage: Vec<u32>,
    /// Name of the entry point.
    pub entry_point: &'static str,
    /// Rank of the launch domain.
    pub rank: u32,
    /// Parameters after the index.
    pub params: Vec<CompiledParam>,
    /// Size of the push-constant block in bytes.
    pub push_constant_size: u32,
    /// Threads per workgroup (a simple kernel's default: the runtime chooses per device).
    pub workgroup_size: [u32; 3],
    /// Whether the body has a loop (`KernelInfo::shape`: a device with a loop limit runs
    /// such a simple kernel one index per invocation).
    pub has_loops: bool,
    /// Whether the module needs `shaderFloat64`.
    pub uses_float64: bool,
    /// FNV-1a hash of the module, stable across builds.
    pub hash: u64,
    /// The tile shape (`T0` first) of a tiled kernel.
    pub tile: Option<Vec<TileDim>>,
    /// Constants read from outside the body: specialization constants 3, 4, ... in order.
    pub consts: Vec<OuterConst>,
    /// The `tile_static` variables' sizes, for the launcher's limit check when a size is a
    /// constant the compiler cannot see.
    pub tile_static: Vec<TileStaticSize>,
    /// The outer constants (by index in `consts`) that give a thread's local array its length
    /// (`[f32; N]`, `[0.0; N]`), each once: the launcher checks each is a length the kernel
    /// language allows (1 to `MAX_LOCAL_ARRAY_LEN`), which the compiler cannot see.
    pub local_lengths: Vec<u32>,
    /// The binding (in set 0) of the kernel's report buffer (`amp_abi::REPORT_WORDS` `u32`s,
    /// zeroed before the launch): for a bounds-checked kernel with buffer parameters, or one
    /// whose loops are watched for a device's loop limit; `None` otherwise.
    pub report_binding: Option<u32>,
    /// Whether the kernel checks its buffer accesses and reports a failing one
    /// (`KernelInfo::bounds_checked`).
    pub bounds_checked: bool,
    /// The source line of each loop watched for a device's loop limit, by loop number
    /// (`KernelInfo::loop_lines`); empty when none is watched.
    pub loop_lines: Vec<u32>,
    /// Consecutive indices each invocation of a simple kernel runs at once (`KernelInfo`'s
    /// `Shape::Chosen::lanes`): 4 where its views move 16 bytes at a time, else 1.
    pub lanes: u32,
    /// In the quad form, the views that move 16 bytes at a time, the one the quads are
    /// aligned to first (`Shape::Chosen::quad_views`); else empty.
    pub quad_views: Vec<u32>,
    /// Races, dependences and bank conflicts found (those the options did not allow).
    pub warnings: Vec<Warning>,
    /// The compile report: shape, memory, bindings, capabilities, findings.
    pub report: String,
    /// The layouts of the structs the kernel was given, for the launcher's layout assertions.
    pub structs: Vec<StructDef>,
}

/// Options of a compilation (the arguments of `#[kernel(amp, ...)]`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Warnings not to report.
    pub allow: Vec<Lint>,
    /// The `#[amp::device]` functions the kernel calls, directly or through each other.
    pub device_fns: Vec<DeviceFnSource>,
    /// Definitions of the `#[derive(DeviceStruct)]` structs the kernel uses (the kernel macro
    /// fetches them from the structs' derives).
    pub structs: Vec<syn::ItemStruct>,
    /// Skip the bounds checks of view and array accesses (`#[kernel(amp, unchecked)]`):
    /// faster, but an out-of-bounds access is then left to the device's `robustBufferAccess`
    /// and reported nowhere.
    pub unchecked: bool,
    /// The device's own `f32` division, square root and trigonometry
    /// (`#[kernel(amp, fast_math)]`): faster on GPUs whose instructions are less precise than
    /// Rust's, and no longer Rust's results there.
    pub fast_math: bool,
}

impl Options {
    /// Whether buffer accesses are bounds-checked under these options.
    pub fn bounds_checks(&self) -> back::BoundsChecks {
        if self.unchecked {
            back::BoundsChecks::Off
        } else {
            back::BoundsChecks::On
        }
    }
}

/// The first device function the kernel (or a device function it calls) calls that is not in
/// `known`: its path from the kernel's module, and the call's path (for spans). The
/// `#[kernel(amp)]` macro fetches each one's source this way before compiling.
pub fn missing_device_fn(
    kernel: &syn::ItemFn,
    known: &[DeviceFnSource],
) -> Option<(Vec<String>, syn::Path)> {
    missing_device_fns(kernel, known).into_iter().next()
}

/// Every device function the kernel (or a device function it calls) calls that is not in
/// `known`, once each, in the order of the calls. A call of a closure the calling body binds
/// is not one: the body checker reports the closure.
pub fn missing_device_fns(
    kernel: &syn::ItemFn,
    known: &[DeviceFnSource],
) -> Vec<(Vec<String>, syn::Path)> {
    missing_device_fns_with_roots(kernel, known)
        .into_iter()
        .map(|(key, call, _)| (key, call))
        .collect()
}

/// [`missing_device_fns`], each with the `$crate` token its path starts with when it starts
/// with a library's `$crate` (the call's own first segment, or the crate root of the source
/// whose body makes the call).
pub fn missing_device_fns_with_roots(
    kernel: &syn::ItemFn,
    known: &[DeviceFnSource],
) -> Vec<(Vec<String>, syn::Path, Option<proc_macro2::Ident>)> {
    let bodies = std::iter::once((Vec::new(), &kernel.block, None)).chain(known.iter().map(|f| {
        (
            f.path[..f.path.len() - 1].to_vec(),
            &f.func.block,
            f.crate_root.as_ref(),
        )
    }));
    let mut out: Vec<(Vec<String>, syn::Path, Option<proc_macro2::Ident>)> = Vec::new();
    for (module, block, root) in bodies {
        let closures = front::closure_names(block);
        for call in front::device_calls(block) {
            if call.segments.len() == 1 && closures.contains(&call.segments[0].ident.to_string()) {
                continue;
            }
            let key = front::callee_path(&module, &call);
            if !known.iter().any(|f| f.path == key) && !out.iter().any(|(k, _, _)| *k == key) {
                let root = match call.segments.first() {
                    Some(first) if first.ident == "$crate" => Some(first.ident.clone()),
                    _ if key.first().is_some_and(|s| s == "$crate") => root.cloned(),
                    _ => None,
                };
                out.push((key, call, root));
            }
        }
    }
    out
}

/// The size of one `tile_static` variable: `elem_bytes` times the product of `dims`.
#[derive(Clone, Debug)]
pub struct TileStaticSize {
    /// Bytes of one scalar element.
    pub elem_bytes: u32,
    /// Array lengths, outermost first (empty for a scalar).
    pub dims: Vec<Len>,
}

fn tile_static_size(ty: &types::Ty) -> TileStaticSize {
    let mut dims = Vec::new();
    let mut t = ty;
    while let types::Ty::Array(elem, len) = t {
        dims.push(len.clone());
        t = elem;
    }
    let elem_bytes = t.packed_bytes().unwrap_or(4);
    TileStaticSize { elem_bytes, dims }
}

/// Checks one `#[amp::device]` function on its own, as it is defined: its signature and its
/// body under the kernel language's rules. Calls to other device functions are checked where a
/// kernel uses them (only then are their bodies known); direct recursion is reported here.
pub fn check_device_fn(func: &syn::ItemFn) -> Result<(), Diagnostics> {
    check_device_fn_with(func, &[])
}

/// [`check_device_fn`] with the definitions of the `#[derive(DeviceStruct)]` structs the
/// function names (the device attribute fetches them as the kernel attribute does).
pub fn check_device_fn_with(
    func: &syn::ItemFn,
    structs: &[syn::ItemStruct],
) -> Result<(), Diagnostics> {
    let structs = StructTable::build(structs)?;
    front::check_device_fn(func, &structs)
}

/// The constants device function `func` reads (`"GAIN"`, `"super::LIMIT"`), for
/// `#[amp::device]` to leave public copies of (see [`front::const_accessor_name`]).
pub fn device_fn_consts_with(func: &syn::ItemFn, structs: &[syn::ItemStruct]) -> Vec<String> {
    match StructTable::build(structs) {
        Ok(structs) => front::device_fn_consts(func, &structs),
        Err(_) => Vec::new(),
    }
}

/// The diagnostic of a bug in the compiler met while compiling kernel `kernel` (`stage`: the
/// back end), at the kernel's name: never the kernel's fault, so it asks for a report.
pub fn internal_error(kernel: &str, stage: &str, what: &str, at: diag::Span) -> Diagnostics {
    let mut diags = Diagnostics::default();
    diags.push(Diagnostic::internal(
        at,
        format!("while compiling kernel `{kernel}` to {stage}: {what}"),
    ));
    diags
}

/// A kernel checked once: its IR, what the analyses found, its device structs and the range
/// facts, with the options it was compiled with. Both back ends start from it
/// ([`CheckedKernel::spirv`], [`CheckedKernel::native`]), so a kernel is lowered, analysed
/// and range-analysed once per build however many forms of it are emitted.
pub struct CheckedKernel {
    pub(crate) kernel: ir::Kernel,
    pub(crate) findings: analysis::Findings,
    pub(crate) structs: StructTable,
    pub(crate) ranges: crate::range::Ranges,
    pub(crate) options: Options,
    /// The span of the kernel's parameter list (for the push-constant error).
    inputs: diag::Span,
    /// The span of the kernel's name (for internal errors).
    name: diag::Span,
}

/// Checks a `#[kernel(amp)]` function: the front end lowers it, the analyses look for
/// non-uniform barriers and races; every error found otherwise.
pub fn check(func: &syn::ItemFn, options: &Options) -> Result<CheckedKernel, Diagnostics> {
    let structs = StructTable::build(&options.structs)?;
    let kernel = front::lower(func, &options.device_fns, &structs)?;
    let findings = analysis::analyse(&kernel);
    if !findings.errors.is_empty() {
        return Err(findings.errors);
    }
    let ranges = crate::range::Ranges::of(&kernel);
    Ok(CheckedKernel {
        kernel,
        findings,
        structs,
        ranges,
        options: options.clone(),
        inputs: diag::Span::of(&func.sig.inputs),
        name: diag::Span::of(&func.sig.ident),
    })
}

/// Compiles a `#[kernel(amp)]` function to SPIR-V, or returns every error found in it.
pub fn compile(func: &syn::ItemFn) -> Result<CompiledKernel, Diagnostics> {
    compile_with(func, &Options::default())
}

/// [`compile`] with options.
pub fn compile_with(func: &syn::ItemFn, options: &Options) -> Result<CompiledKernel, Diagnostics> {
    check(func, options)?.spirv()
}

impl CheckedKernel {
    /// The decisions both back ends take from the kernel's range facts and options.
    pub(crate) fn plan(&self) -> back::plan::Plan<'_> {
        back::plan::Plan::new(&self.ranges, self.options.bounds_checks())
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.kernel.name
    }

    /// The kernel as SPIR-V, with what the runtime needs to launch it; an error when its
    /// launch parameters do not fit the push constants every device has.
    pub fn spirv(&self) -> Result<CompiledKernel, Diagnostics> {
        let (kernel, options) = (&self.kernel, &self.options);
        let layout = back::Layout::of(kernel);
        if layout.size > MAX_PUSH_CONSTANT_BYTES {
            let mut diags = Diagnostics::default();
            diags.push(
                Diagnostic::error(
                    Rule::PushConstantLimit,
                    self.inputs,
                    format!(
                        "this kernel's launch parameters need {} bytes, more than the {MAX_PUSH_CONSTANT_BYTES} bytes of push constants every device has",
                        layout.size
                    ),
                )
                .with_help("pass fewer views or scalars, for example by packing scalars into a small `ArrayView`"),
            );
            return Err(diags);
        }
        let checks = options.bounds_checks();
        let precision = if options.fast_math {
            back::Precision::Fast
        } else {
            back::Precision::Exact
        };
        let quad_form = back::QuadForm::of(
            kernel,
            &self.findings.own_element_only,
            &self.findings.access,
        );
        let emit = |narrow_storage| {
            back::emit(
                kernel,
                self.plan(),
                &layout,
                &self.findings.loops,
                precision,
                narrow_storage,
                quad_form.clone(),
            )
            .map_err(|internal| {
                internal_error(&kernel.name, "SPIR-V", &internal.to_string(), self.name)
            })
        };
        let module = emit(false)?;
        // Views and arrays of `bool` and `i8` .. `u16`: also the module with 8- and 16-bit
        // storage.
        let small_buffers = kernel.params.iter().any(|p| {
            matches!(&p.kind, ir::ParamKind::Buffer { elem: crate::types::Elem::Scalar(s), .. } if s.is_narrow_elem())
        });
        let spirv_narrow_storage = if small_buffers {
            emit(true)?.words
        } else {
            Vec::new()
        };
        let params = kernel
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| CompiledParam {
                name: p.name.clone(),
                kind: p.kind.clone(),
                binding: match layout.params[i] {
                    back::ParamSlot::Buffer { binding, .. }
                    | back::ParamSlot::Texture { binding, .. }
                    | back::ParamSlot::Sampler { binding } => Some(binding),
                    back::ParamSlot::Scalar { .. } | back::ParamSlot::Value { .. } => None,
                },
                offset: layout.param_offset(i),
            })
            .collect();
        let hash = fnv1a(&module.words);
        let mut tile_static: Vec<TileStaticSize> = kernel
            .locals
            .iter()
            .filter(|l| l.storage == ir::Storage::TileStatic)
            .map(|l| tile_static_size(&l.ty))
            .collect();
        // The word a fence's atomic form adds to counts against the tile's memory as well.
        if module.fence_word {
            tile_static.push(TileStaticSize {
                elem_bytes: 4,
                dims: Vec::new(),
            });
        }
        let local_lengths = kernel.local_array_lengths();
        let warnings: Vec<Warning> = self
            .findings
            .warnings
            .iter()
            .filter(|w| !options.allow.contains(&w.lint))
            .cloned()
            .collect();
        let mut compiled = CompiledKernel {
            name: kernel.name.clone(),
            spirv: module.words,
            spirv_narrow_storage,
            entry_point: "main",
            rank: kernel.rank,
            params,
            push_constant_size: layout.size,
            workgroup_size: module.workgroup_size,
            has_loops: ir::has_loop(&kernel.body),
            uses_float64: module.uses_float64,
            hash,
            tile: kernel.tiled.as_ref().map(|t| t.dims.clone()),
            consts: kernel.consts.clone(),
            local_lengths,
            tile_static,
            report_binding: back::report_binding(kernel, checks, self.findings.loops.watched()),
            bounds_checked: back::reports_out_of_bounds(kernel, checks),
            loop_lines: module.loop_lines,
            lanes: module.lanes,
            quad_views: module.quad_views,
            warnings,
            report: String::new(),
            structs: self.structs.iter().cloned().collect(),
        };
        compiled.report = report::render(
            kernel,
            &compiled,
            &self.findings.access,
            &self.findings.shared,
            &self.findings.loops,
        );
        Ok(compiled)
    }
}

/// Parses `source` as one function and compiles it (for tests and tools).
pub fn compile_str(source: &str) -> Result<CompiledKernel, Diagnostics> {
    match syn::parse_str::<syn::ItemFn>(source) {
        Ok(func) => compile(&func),
        Err(e) => {
            let mut d = Diagnostics::default();
            d.error(Rule::KernelIsAFunction, e.span(), e.to_string());
            Err(d)
        }
    }
}

fn fnv1a(words: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
