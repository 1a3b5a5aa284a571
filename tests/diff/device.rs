//! The device side: each test function in a one-line kernel, compiled by `amp_spirv` as
//! `#[kernel(amp)]` would compile it, validated by `spirv-val`, launched on the device.

use crate::gen::{Program, TestFn, Ty};
use amp::__private::{KernelArg, KernelCall, KernelInfo, ParamInfo, ParamKind};
use amp::{Accelerator, ArrayView, ArrayViewMut};
use amp_spirv::{CompiledKernel, DeviceFnSource, Options};

/// The parameters of `t`'s kernel (`p0: ArrayView<T, 1>, .., out: ArrayViewMut<R, 1>`) and
/// the arguments of its call (`p0[idx], ..`).
pub fn kernel_params(t: &TestFn) -> (Vec<String>, Vec<String>) {
    let mut params: Vec<String> = t
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("p{i}: ArrayView<{}, 1>", p.name()))
        .collect();
    params.push(format!("out: ArrayViewMut<{}, 1>", t.ret.name()));
    let args = (0..t.params.len()).map(|i| format!("p{i}[idx]")).collect();
    (params, args)
}

/// The kernel that runs `t` once per input: `out[idx] = t(p0[idx], ..)`.
/// With `opaque`, the function takes the ones of `opaque.rs` too, as kernel arguments.
pub fn kernel_source(t: &TestFn, opaque: bool) -> String {
    let (mut params, mut args) = kernel_params(t);
    if opaque {
        params.push(crate::opaque::PARAMS.to_string());
        args.extend(["o_f32", "o_f64", "o_i32", "o_u32"].map(String::from));
    }
    format!(
        "fn k_{name}(idx: Index<1>, {}) {{ out[idx] = {name}({}); }}",
        params.join(", "),
        args.join(", "),
        name = t.name
    )
}

/// Compiles `t`'s kernel with the program's functions as device functions; `Err` has the
/// diagnostics or the validator's output.
pub fn compile(program: &Program, t: &TestFn, opaque: bool) -> Result<CompiledKernel, String> {
    let parse = |s: &str| syn::parse_str::<syn::ItemFn>(s).map_err(|e| format!("syn: {e}\n{s}"));
    let mut device_fns = Vec::new();
    for h in &program.helpers {
        device_fns.push(DeviceFnSource::new(&[], parse(&h.source)?));
    }
    device_fns.push(DeviceFnSource::new(&[], parse(&t.source)?));
    let options = Options {
        device_fns,
        ..Options::default()
    };
    let kernel = parse(&kernel_source(t, opaque))?;
    let compiled = amp_spirv::compile_with(&kernel, &options).map_err(|d| {
        let mut s = String::from("amp_spirv refused the function:\n");
        let mut explain = |d: &amp_spirv::Diagnostics, what: &str| {
            for diag in d.iter() {
                let at = diag.span.start();
                s.push_str(&format!("  {what} {}:{}: {diag}\n", at.line, at.column + 1));
            }
        };
        explain(&d, "kernel");
        for f in &options.device_fns {
            if let Err(d) = amp_spirv::check_device_fn(&f.func) {
                explain(&d, &f.func.sig.ident.to_string());
            }
        }
        s
    })?;
    spirv_val(&compiled.spirv)?;
    Ok(compiled)
}

fn spirv_val(words: &[u32]) -> Result<(), String> {
    amp_test_support::spirv_val(words).map_err(|e| format!("spirv-val: {e}"))
}

/// What `#[kernel(amp)]` would put in the kernel's static: leaked, as the launcher needs a
/// `'static` description (a few kilobytes per function).
fn info(k: CompiledKernel) -> &'static KernelInfo {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let params: Vec<ParamInfo> = k
        .params
        .iter()
        .map(|p| {
            let kind = match &p.kind {
                amp_spirv::ParamKind::Buffer {
                    elem,
                    rank,
                    writable,
                    ..
                } => ParamKind::Buffer {
                    binding: p.binding.expect("buffers have bindings"),
                    elem: elem.abi().expect("scalar elements"),
                    rank: *rank,
                    writable: *writable,
                    extent_offset: p.offset,
                },
                amp_spirv::ParamKind::Scalar(s) => ParamKind::Scalar {
                    ty: s.abi(),
                    offset: p.offset,
                },
                amp_spirv::ParamKind::Value(_)
                | amp_spirv::ParamKind::Texture { .. }
                | amp_spirv::ParamKind::Sampler => {
                    unreachable!("generated kernels take buffers and scalars")
                }
            };
            ParamInfo {
                name: leak(p.name.clone()),
                kind,
            }
        })
        .collect();
    Box::leak(Box::new(KernelInfo {
        name: leak(k.name),
        spirv: Box::leak(k.spirv.into_boxed_slice()),
        spirv_narrow_storage: Box::leak(k.spirv_narrow_storage.into_boxed_slice()),
        entry_point: k.entry_point,
        rank: k.rank,
        params: Box::leak(params.into_boxed_slice()),
        push_constant_size: k.push_constant_size,
        workgroup_size: k.workgroup_size,
        shape: amp::__private::Shape::Chosen {
            loops: k.has_loops,
            lanes: k.lanes,
            quad_views: Box::leak(k.quad_views.into_boxed_slice()),
        },
        uses_float64: k.uses_float64,
        hash: k.hash,
        tile_rank: 0,
        spec_constants: &[],
        report: leak(k.report),
        report_binding: k.report_binding,
        bounds_checked: k.bounds_checked,
        loop_lines: Box::leak(k.loop_lines.into_boxed_slice()),
    }))
}

/// One input or output column, in its own type.
enum Column {
    I32(Vec<i32>),
    U32(Vec<u32>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Column {
    fn new(ty: Ty, bits: &[u64]) -> Column {
        match ty {
            Ty::I32 => Column::I32(bits.iter().map(|&b| b as u32 as i32).collect()),
            Ty::U32 => Column::U32(bits.iter().map(|&b| b as u32).collect()),
            Ty::F32 => Column::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect()),
            Ty::F64 => Column::F64(bits.iter().map(|&b| f64::from_bits(b)).collect()),
            Ty::Bool => unreachable!("no bool columns"),
        }
    }

    fn bits(&self) -> Vec<u64> {
        match self {
            Column::I32(v) => v.iter().map(|&x| x as u32 as u64).collect(),
            Column::U32(v) => v.iter().map(|&x| x as u64).collect(),
            Column::F32(v) => v.iter().map(|&x| x.to_bits() as u64).collect(),
            Column::F64(v) => v.iter().map(|&x| x.to_bits()).collect(),
        }
    }
}

enum View<'a> {
    I32(ArrayView<'a, i32, 1>),
    U32(ArrayView<'a, u32, 1>),
    F32(ArrayView<'a, f32, 1>),
    F64(ArrayView<'a, f64, 1>),
}

enum ViewMut<'a> {
    I32(ArrayViewMut<'a, i32, 1>),
    U32(ArrayViewMut<'a, u32, 1>),
    F32(ArrayViewMut<'a, f32, 1>),
    F64(ArrayViewMut<'a, f64, 1>),
}

fn view(c: &Column) -> Result<View<'_>, amp::Error> {
    Ok(match c {
        Column::I32(v) => View::I32(ArrayView::new([v.len()], v)?),
        Column::U32(v) => View::U32(ArrayView::new([v.len()], v)?),
        Column::F32(v) => View::F32(ArrayView::new([v.len()], v)?),
        Column::F64(v) => View::F64(ArrayView::new([v.len()], v)?),
    })
}

fn view_mut(c: &mut Column) -> Result<ViewMut<'_>, amp::Error> {
    Ok(match c {
        Column::I32(v) => ViewMut::I32(ArrayViewMut::new([v.len()], v)?),
        Column::U32(v) => ViewMut::U32(ArrayViewMut::new([v.len()], v)?),
        Column::F32(v) => ViewMut::F32(ArrayViewMut::new([v.len()], v)?),
        Column::F64(v) => ViewMut::F64(ArrayViewMut::new([v.len()], v)?),
    })
}

/// Runs `t` on `inputs` (one column of bits per parameter); the results as bits.
fn launch(
    acc: &Accelerator,
    info: &'static KernelInfo,
    t: &TestFn,
    inputs: &[Vec<u64>],
    opaque: bool,
) -> Result<Vec<u64>, String> {
    let rows = inputs[0].len();
    let columns: Vec<Column> = t
        .params
        .iter()
        .zip(inputs)
        .map(|(&ty, bits)| Column::new(ty, bits))
        .collect();
    let mut out = Column::new(t.ret, &vec![0; rows]);
    {
        let views = columns
            .iter()
            .map(view)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let mut out_view = view_mut(&mut out).map_err(|e| e.to_string())?;
        let mut args: Vec<KernelArg<'_>> = views
            .iter()
            .map(|v| match v {
                View::I32(v) => KernelArg::read(v),
                View::U32(v) => KernelArg::read(v),
                View::F32(v) => KernelArg::read(v),
                View::F64(v) => KernelArg::read(v),
            })
            .collect();
        args.push(match &mut out_view {
            ViewMut::I32(v) => KernelArg::write(v),
            ViewMut::U32(v) => KernelArg::write(v),
            ViewMut::F32(v) => KernelArg::write(v),
            ViewMut::F64(v) => KernelArg::write(v),
        });
        if opaque {
            args.extend([
                KernelArg::scalar(0.0f32),
                KernelArg::scalar(0.0f64),
                KernelArg::scalar(0i32),
                KernelArg::scalar(0u32),
            ]);
        }
        let call = KernelCall::<1>::new(info, args);
        amp::parallel_for_each_on(acc, amp::Extent::from([rows]), call)
            .map_err(|e| format!("launch: {e}"))?;
        match &mut out_view {
            ViewMut::I32(v) => v.synchronize(),
            ViewMut::U32(v) => v.synchronize(),
            ViewMut::F32(v) => v.synchronize(),
            ViewMut::F64(v) => v.synchronize(),
        }
        .map_err(|e| format!("synchronize: {e}"))?;
    }
    Ok(out.bits())
}

/// Every test function of `program` on a device of its own (the pipelines of one round are
/// freed with it), the same device as `acc`.
/// Compiles and runs test function `t` of `program` on `acc` over `input`.
pub fn run_one(
    acc: &Accelerator,
    program: &Program,
    t: &TestFn,
    input: &[Vec<u64>],
    opaque: bool,
) -> Result<Vec<u64>, String> {
    let k = compile(program, t, opaque)?;
    launch(acc, info(k), t, input, opaque)
}

/// Every test function of `program` (with `opaque`, the opaque form of `opaque.rs`) on a
/// device of its own, the same device as `acc`, in this process (for replays).
pub fn run(
    acc: &Accelerator,
    program: &Program,
    inputs: &[Vec<Vec<u64>>],
    opaque: bool,
) -> Vec<Result<Vec<u64>, String>> {
    let fresh = Accelerator::from_path(acc.device_path()).expect("the device again");
    program
        .tests
        .iter()
        .zip(inputs)
        .map(|(t, input)| run_one(&fresh, program, t, input, opaque))
        .collect()
}
