mod shapes {
    pub mod area {
        // Not marked `#[amp::device]`.
        pub fn circle(r: f32) -> f32 {
            3.14159 * r * r
        }
    }

    use amp::prelude::*;

    // Called through a path, from a kernel in a module, with a second error beside it.
    #[kernel(amp)]
    pub fn areas(idx: Index<1>, r: ArrayView<f32, 1>, out: ArrayViewMut<f32, 1>) {
        out[idx] = area::circle(r[idx]);
        out[idx] = helper(r[idx]) + undefined_name;
    }

    fn helper(x: f32) -> f32 {
        x
    }
}

fn main() {
    let _ = shapes::area::circle(1.0);
}
