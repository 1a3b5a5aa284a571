// label: race
// from: a port that advanced its offset between a write and the read it meant to pair with it
// why: `sh[l + s]` after `s += 1` is thread l + 1's element, written with no barrier between
fn moved(t: TiledIndex<64>, a: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
    #[tile_static]
    let mut sh: [f32; 128];
    let l = t.local[0];
    let mut s = 0;
    sh[l + s] = a[t.global];
    s += 1;
    out[t.global] = sh[l + s];
}
