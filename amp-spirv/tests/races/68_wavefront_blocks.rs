// label: race-free
// from: Rodinia's nw: one launch per anti-diagonal of 16 x 16 blocks, tile `b` the block at row `diag - first - b`
// why: the column `(first + t.tile[0]) * 16 + 1 + t.local[0]` alone tells every thread apart; the row, which falls as the tile rises, does not need to
fn wavefront_blocks(t: TiledIndex<16>, score: ArrayViewMut<i32, 2>, first: u32, diag: u32) {
    let bx = first as usize + t.tile[0];
    let (r0, c0) = ((diag as usize - bx) * 16, bx * 16);
    for ty in 0..16 {
        score[[r0 + 1 + ty, c0 + 1 + t.local[0]]] = ty as i32;
    }
}
