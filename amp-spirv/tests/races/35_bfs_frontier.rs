// label: race
// from: Rodinia bfs (level expansion without atomics)
// why: neighbours shared by two frontier nodes are written by both
fn bfs(idx: Index<1>, edges: ArrayView<i32, 1>, starts: ArrayView<i32, 1>, cost: ArrayViewMut<i32, 1>) {
    let v = idx[0];
    let first = starts[v] as usize;
    let last = starts[v + 1] as usize;
    for e in first..last {
        let w = edges[e] as usize;
        cost[w] = cost[v] + 1;
    }
}
