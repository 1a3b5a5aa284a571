// label: race-free
// from: amp::algorithms::unique (run starts)
// why: flags[i] per thread, input read only
fn run_starts(idx: Index<1>, input: ArrayView<u32, 1>, flags: ArrayViewMut<u32, 1>) {
    let i = idx[0];
    let previous = if i == 0 { 0 } else { i - 1 };
    flags[idx] = if i == 0 || input[i] != input[previous] { 1 } else { 0 };
}
