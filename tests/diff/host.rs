//! The host side, the oracle: the round's functions compiled by rustc as plain Rust, with
//! release arithmetic (wrapping, shift amounts masked), run on the same inputs.

use crate::gen::{Program, Rng, Ty};
use crate::ROWS;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a run keeps its host programs: `AMP_DIFF_KEEP`, or a temporary folder.
pub fn work_dir(seed: u64) -> PathBuf {
    let dir = match std::env::var_os("AMP_DIFF_KEEP") {
        Some(d) => PathBuf::from(d),
        None => std::env::temp_dir().join(format!("amp-diff-{seed}-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).expect("a work folder");
    dir
}

/// `rows` inputs of type `ty` as bits: edge values first, then random values (moderate
/// numbers, small integers, and any bit pattern: denormals, infinities and NaNs included).
pub fn inputs(rng: &mut Rng, ty: Ty, rows: usize) -> Vec<u64> {
    let edges: Vec<u64> = match ty {
        Ty::I32 => [0, 1, -1, 2, 7, 31, 32, -32, 1000, i32::MAX, i32::MIN]
            .iter()
            .map(|&x| x as u32 as u64)
            .collect(),
        Ty::U32 => [0, 1, 2, 7, 31, 32, 33, 1000, u32::MAX, 1 << 31]
            .iter()
            .map(|&x| x as u64)
            .collect(),
        Ty::F32 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -2.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-40,
            3e9,
        ]
        .iter()
        .map(|&x: &f32| x.to_bits() as u64)
        .collect(),
        Ty::F64 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            4_294_967_295.5,
        ]
        .iter()
        .map(|&x: &f64| x.to_bits())
        .collect(),
        Ty::Bool => unreachable!("no bool parameters"),
    };
    let mut out: Vec<u64> = Vec::with_capacity(rows);
    // A row takes a random edge now and then, so that edges meet each other across parameters.
    for r in 0..rows {
        let v = if r < edges.len() && rng.chance(0.5) || rng.chance(0.15) {
            edges[rng.below(edges.len())]
        } else {
            let bits = rng.next_u64();
            let small = (bits % 41) as i64 - 20;
            match (ty, rng.below(3)) {
                (Ty::I32, 0) => small as i32 as u32 as u64,
                (Ty::U32, 0) => small.unsigned_abs(),
                (Ty::I32 | Ty::U32, _) => bits as u32 as u64,
                (Ty::F32, 0) => ((small as f32) * 0.25).to_bits() as u64,
                (Ty::F32, 1) => ((bits as i32 as f32) / 65536.0).to_bits() as u64,
                (Ty::F32, _) => bits as u32 as u64,
                (Ty::F64, 0) => ((small as f64) * 0.25).to_bits(),
                (Ty::F64, 1) => ((bits as i64 as f64) / 2f64.powi(40)).to_bits(),
                (Ty::F64, _) => bits,
                (Ty::Bool, _) => unreachable!(),
            }
        };
        out.push(v);
    }
    out
}

/// The inputs of every test function of `program`: per function, per parameter, `ROWS` values.
pub fn inputs_of(rng: &mut Rng, program: &Program) -> Vec<Vec<Vec<u64>>> {
    program
        .tests
        .iter()
        .map(|t| t.params.iter().map(|&p| inputs(rng, p, ROWS)).collect())
        .collect()
}

/// The host program of a round: the functions (without `#[amp::device]`, which is not Rust
/// outside this crate) and a `main` that reads the inputs and writes one `[flag, u64 bits]`
/// per row, flag 0 where the function panicked.
fn program_source(
    program: &Program,
    natives: &[Result<crate::native_backend::NativeFns, String>],
) -> String {
    let mut s = String::from(
        "#![allow(warnings)]\n\
         #![allow(arithmetic_overflow, unconditional_panic, overflowing_literals)]\n\
         trait Bits { fn from_u64(b: u64) -> Self; fn to_u64(self) -> u64; }\n\
         impl Bits for i32 { fn from_u64(b: u64) -> i32 { b as u32 as i32 } fn to_u64(self) -> u64 { self as u32 as u64 } }\n\
         impl Bits for u32 { fn from_u64(b: u64) -> u32 { b as u32 } fn to_u64(self) -> u64 { self as u64 } }\n\
         impl Bits for f32 { fn from_u64(b: u64) -> f32 { f32::from_bits(b as u32) } fn to_u64(self) -> u64 { self.to_bits() as u64 } }\n\
         impl Bits for f64 { fn from_u64(b: u64) -> f64 { f64::from_bits(b) } fn to_u64(self) -> u64 { self.to_bits() } }\n\
         fn put(out: &mut Vec<u8>, r: Option<u64>) { out.push(r.is_some() as u8); out.extend_from_slice(&r.unwrap_or(0).to_le_bytes()); }\n\n",
    );
    s.push_str(&program.source().replace("#[amp::device]\n", ""));
    s.push_str(&crate::native_backend::runtime_support());
    for n in natives.iter().flatten() {
        s.push_str(&n.source);
    }
    s.push_str(
        "\nfn main() {\n\
         \x20   std::panic::set_hook(Box::new(|_| {}));\n\
         \x20   let args: Vec<String> = std::env::args().collect();\n\
         \x20   let bytes = std::fs::read(&args[1]).unwrap();\n\
         \x20   let w: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();\n\
         \x20   let mut out: Vec<u8> = Vec::new();\n\
         \x20   let mut at = 0usize;\n\
         \x20   let mut nat: Vec<u8> = Vec::new();\n",
    );
    for (t, native) in program.tests.iter().zip(natives) {
        let _ = writeln!(s, "    for r in 0..{ROWS} {{");
        let mut args = Vec::new();
        for (i, p) in t.params.iter().enumerate() {
            let _ = writeln!(
                s,
                "        let p{i} = <{} as Bits>::from_u64(w[at + {} + r]);",
                p.name(),
                i * ROWS
            );
            args.push(format!("p{i}"));
        }
        let _ = writeln!(
            s,
            "        let res = std::panic::catch_unwind(|| {}({}));\n        put(&mut out, res.ok().map(Bits::to_u64));\n    }}",
            t.name,
            args.join(", "),
        );
        native_call(&mut s, t, native.as_ref().ok());
        let _ = writeln!(s, "    at += {};", t.params.len() * ROWS);
    }
    s.push_str("    std::fs::write(&args[2], out).unwrap();\n");
    s.push_str("    std::fs::write(&args[3], nat).unwrap();\n}\n");
    s
}

/// `main`'s code that runs `t`'s native kernel (when generated) over the rows, batch by batch
/// for a batched one: a status byte (1 ran, 0 panicked, 2 not generated, 3 reported an
/// out-of-bounds access), then one `u64` of bits per row.
fn native_call(
    s: &mut String,
    t: &crate::gen::TestFn,
    native: Option<&crate::native_backend::NativeFns>,
) {
    s.push_str("    {\n        let mut status = 2u8;\n");
    let _ = writeln!(s, "        let mut vals = vec![0u64; {ROWS}];");
    if let Some(native) = native {
        s.push_str("        let res = std::panic::catch_unwind(|| {\n");
        let mut bufs = Vec::new();
        for (i, p) in t.params.iter().enumerate() {
            let _ = writeln!(
                s,
                "            let mut c{i}: Vec<{ty}> = (0..{ROWS}).map(|r| <{ty} as Bits>::from_u64(w[at + {} + r])).collect();",
                i * ROWS,
                ty = p.name()
            );
            bufs.push(format!("native_buf(&mut c{i})"));
        }
        let _ = writeln!(
            s,
            "            let mut o: Vec<{ty}> = vec![<{ty} as Bits>::from_u64(0); {ROWS}];",
            ty = t.ret.name()
        );
        bufs.push("native_buf(&mut o)".into());
        let args = (0..bufs.len())
            .map(|k| format!("bufs.{k}, "))
            .collect::<String>();
        let _ = writeln!(
            s,
            "            let oob = amp_native::OobReport::new();\n            let bufs = ({},);",
            bufs.join(", ")
        );
        match &native.batch {
            // Whole batches of `lanes` threads, then a shorter last one, as the executor runs
            // a row.
            Some((batch, lanes)) => {
                let _ = writeln!(
                    s,
                    "            for b in 0..{}u32 {{ let n = {lanes}u32.min({ROWS} - b * {lanes}); unsafe {{ {batch}([b], n, 1, {args}&oob) }} }}",
                    ROWS.div_ceil(*lanes as usize)
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "            for r in 0..{ROWS}u32 {{ unsafe {{ {}([r], {args}&oob) }} }}",
                    crate::native_backend::fn_name(t),
                );
            }
        }
        s.push_str(
            "            (oob.read()[0], o.into_iter().map(Bits::to_u64).collect::<Vec<u64>>())\n        });\n",
        );
        s.push_str(
            "        match res { Ok((flag, v)) => { status = if flag == 0 { 1 } else { 3 }; vals = v; } Err(_) => status = 0 }\n",
        );
    }
    s.push_str("        nat.push(status);\n        for v in vals { nat.extend_from_slice(&v.to_le_bytes()); }\n    }\n");
}

/// What a round's host program computed: per test function, per row, the oracle's bits or
/// `None` where Rust panicked; and per test function the native kernel's bits or why there are
/// none.
pub struct HostResults {
    /// The oracle.
    pub oracle: Vec<Vec<Option<u64>>>,
    /// The native back end.
    pub native: Vec<Result<Vec<u64>, String>>,
}

/// Compiles and runs round `round`'s host program; per test function, per row, the result's
/// bits or `None` where Rust panicked.
pub fn run(
    dir: &Path,
    round: usize,
    program: &Program,
    inputs: &[Vec<Vec<u64>>],
) -> Result<HostResults, String> {
    let natives = crate::native_backend::kernels(program);
    let src = dir.join(format!("host{round}.rs"));
    let exe = dir.join(format!("host{round}"));
    let input = dir.join(format!("input{round}.bin"));
    let output = dir.join(format!("output{round}.bin"));
    let native_output = dir.join(format!("native{round}.bin"));
    std::fs::write(&src, program_source(program, &natives)).map_err(|e| e.to_string())?;
    let bytes: Vec<u8> = inputs
        .iter()
        .flatten()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(&input, bytes).map_err(|e| e.to_string())?;
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "-C",
            "opt-level=0",
            "-C",
            "overflow-checks=off",
        ])
        .args(["-C", "debug-assertions=off", "-C", "codegen-units=4"])
        .args(amp_native_rt::rustc_extern_args())
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .map_err(|e| format!("running rustc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustc {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run = Command::new(&exe)
        .arg(&input)
        .arg(&output)
        .arg(&native_output)
        .output()
        .map_err(|e| format!("running {}: {e}", exe.display()))?;
    if !run.status.success() {
        return Err(format!(
            "{} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let bytes = std::fs::read(&output).map_err(|e| e.to_string())?;
    let mut rows = bytes
        .chunks_exact(9)
        .map(|c| (c[0] == 1).then(|| u64::from_le_bytes(c[1..].try_into().unwrap())));
    let oracle = program
        .tests
        .iter()
        .map(|_| (0..ROWS).map(|_| rows.next().expect("a row")).collect())
        .collect();
    let bytes = std::fs::read(&native_output).map_err(|e| e.to_string())?;
    let native = bytes
        .chunks_exact(1 + 8 * ROWS)
        .zip(natives)
        .map(|(c, generated)| {
            let values = c[1..]
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            match (c[0], generated) {
                (_, Err(e)) => Err(e),
                (1, Ok(_)) => Ok(values),
                (0, Ok(_)) => Err("the native kernel panicked".to_string()),
                (_, Ok(_)) => Err("the native kernel reported an out-of-bounds access".to_string()),
            }
        })
        .collect();
    Ok(HostResults { oracle, native })
}
