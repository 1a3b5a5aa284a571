//! Compiles the `#[kernel(amp)]` functions of a Rust source file to `.spv` files.
//!
//! ```text
//! cargo run -p amp-spirv --example ampc -- src/kernels.rs out/
//! ```
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: ampc <file.rs> <output-dir>");
        std::process::exit(2);
    };
    let source = match std::fs::read_to_string(input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ampc: cannot read {input}: {e}");
            std::process::exit(1);
        }
    };
    let file = match syn::parse_file(&source) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ampc: {input}: {e}");
            std::process::exit(1);
        }
    };
    let out = PathBuf::from(out);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("ampc: cannot create {}: {e}", out.display());
        std::process::exit(1);
    }
    let mut failed = false;
    for func in amp_spirv::kernels_in_file(&file) {
        match amp_spirv::compile(&func) {
            Ok(k) => {
                let path = out.join(format!("{}.spv", k.name));
                let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                if let Err(e) = std::fs::write(&path, bytes) {
                    eprintln!("ampc: cannot write {}: {e}", path.display());
                    failed = true;
                } else {
                    println!("{}", path.display());
                }
            }
            Err(diags) => {
                eprintln!("ampc: {}: {}", func.sig.ident, diags);
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
