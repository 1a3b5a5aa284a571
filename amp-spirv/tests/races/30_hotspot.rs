// label: race-free
// from: Rodinia hotspot (one step, double-buffered)
// why: reads temp, writes result
fn hotspot(idx: Index<2>, temp: ArrayView<f32, 2>, power: ArrayView<f32, 2>, result: ArrayViewMut<f32, 2>, cap: f32) {
    let (r, c) = (idx[0], idx[1]);
    let (rows, cols) = (temp.extent()[0], temp.extent()[1]);
    let n = if r > 0 { temp[[r - 1, c]] } else { temp[idx] };
    let s = if r + 1 < rows { temp[[r + 1, c]] } else { temp[idx] };
    let w = if c > 0 { temp[[r, c - 1]] } else { temp[idx] };
    let e = if c + 1 < cols { temp[[r, c + 1]] } else { temp[idx] };
    result[idx] = temp[idx] + cap * (power[idx] + n + s + e + w - 4.0 * temp[idx]);
}
