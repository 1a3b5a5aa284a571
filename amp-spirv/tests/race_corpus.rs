//! The race checker against a labelled corpus: each file in `tests/races/` holds one kernel
//! from a real program (PolyBench/ACC and Rodinia loop nests, the C++ AMP samples, the
//! algorithms' own kernels, and ports' mistakes), labelled `race` (threads of a launch may
//! access one element, one of them writing, with no barrier or atomic between) or
//! `race-free`. The checker's verdict is a race warning (`write_conflict`, `flow_dependence`,
//! `tile_static_race`). The test prints the confusion counts, precision and recall
//! (docs/restrictions.md keeps them), and fails on any verdict that differs from the label
//! except the ones listed in `KNOWN`, each with the reason the checker cannot see.

use amp_spirv::{compile_str, Lint};

/// Kernels whose verdict is known to differ from the label, with why (none today).
const KNOWN: &[(&str, &str)] = &[];

#[test]
fn the_race_checker_agrees_with_the_labelled_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/races");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let (mut tp, mut fp, mut tn, mut fn_) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("a kernel");
        let label = text
            .lines()
            .find_map(|l| l.strip_prefix("// label: "))
            .unwrap_or_else(|| panic!("{name}: no label"));
        let race = match label.trim() {
            "race" => true,
            "race-free" => false,
            other => panic!("{name}: unknown label {other}"),
        };
        let k = compile_str(&text).unwrap_or_else(|e| panic!("{name} does not compile:\n{e}"));
        let warned = k.warnings.iter().any(|w| {
            matches!(
                w.lint,
                Lint::WriteConflict | Lint::FlowDependence | Lint::TileStaticRace
            )
        });
        match (race, warned) {
            (true, true) => tp += 1,
            (false, false) => tn += 1,
            (false, true) => fp += 1,
            (true, false) => fn_ += 1,
        }
        if race != warned && !KNOWN.iter().any(|(n, _)| *n == name) {
            let what = if warned {
                "a false positive"
            } else {
                "a missed race"
            };
            wrong.push(format!(
                "{name}: {what}: {:?}",
                k.warnings.iter().map(|w| &w.message).collect::<Vec<_>>()
            ));
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    println!(
        "{} kernels ({} race, {} race-free): {tp} races found, {fn_} missed, {fp} false positives, {tn} race-free kernels clean; precision {precision:.2}, recall {recall:.2}",
        files.len(),
        tp + fn_,
        fp + tn
    );
    assert!(files.len() >= 40, "the corpus has {} kernels", files.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
