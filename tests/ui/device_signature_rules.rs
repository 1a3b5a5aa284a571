// A device function's signature: concrete types, plain parameter names, views by value or as
// host code passes them, no tiled index.
#[amp::device]
fn scale<T>(x: f32) -> f32 {
    x * 2.0
}

#[amp::device(amp)]
fn first(v: &ArrayViewMut<f32, 1>) -> f32 {
    v[0]
}

#[amp::device(amp)]
fn local_id(t: TiledIndex<64>) -> usize {
    t.local[0]
}

#[amp::device]
fn sum((a, b): (f32, f32)) -> f32 {
    a + b
}

#[amp::device]
async fn later(x: f32) -> f32 {
    x
}

fn main() {}
