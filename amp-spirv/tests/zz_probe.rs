#[test]
fn probe() {
    let path = std::env::var("PROBE").unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    for (i, k) in src.split("\n---\n").enumerate() {
        println!("===== case {i}");
        match amp_spirv::compile_str(k) {
            Ok(c) => {
                for w in &c.warnings {
                    println!(
                        "WARN [{}] {}:{} {}",
                        w.lint.name(),
                        w.span.start().line,
                        w.span.start().column,
                        w.message
                    );
                }
                print!("{}", c.report);
            }
            Err(d) => {
                for x in d.iter() {
                    println!(
                        "ERR {}:{} {}",
                        x.span.start().line,
                        x.span.start().column,
                        x.message
                    );
                }
            }
        }
    }
}
