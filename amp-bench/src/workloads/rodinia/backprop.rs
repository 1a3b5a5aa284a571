//! backprop: the forward pass of a layer of a neural network, from a wide input layer to 16
//! hidden units. A tiled kernel as the original: each 16 x 16 tile takes 16 input units and
//! the 16 hidden units, multiplies weights by inputs in `tile_static` memory, and sums each
//! hidden unit's 16 products by a tree reduction over the tile's rows. The kernel's result is
//! the tiles' partial sums; adding them up with the bias and applying the sigmoid is the
//! host's (not measured here).

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// Input units per tile, and hidden units (one tile wide).
const HEIGHT: usize = 16;
const HIDDEN: usize = 16;

/// Tile `t.tile[0]`'s partial sums of every hidden unit. Unit 0 of each layer is the bias,
/// so input unit `k` and hidden unit `j` are `t.global + 1`. The partial sums are written by
/// the tile's first row, one element per thread (the checker does not prove that unique
/// under `if ty == 0`: hence `allow(write_conflict)`).
#[kernel(amp, allow(write_conflict))]
fn layer_forward(
    t: TiledIndex<HEIGHT, HIDDEN>,
    input: &Array<f32, 1>,
    weights: &Array<f32, 2>,
    partial: &mut Array<f32, 2>,
) {
    #[tile_static]
    let mut node: [f32; HEIGHT];
    #[tile_static]
    let mut products: [[f32; HIDDEN]; HEIGHT];
    let (ty, tx) = (t.local[0], t.local[1]);
    let (k, j) = (t.global[0] + 1, t.global[1] + 1);
    if tx == 0 {
        node[ty] = input[k];
    }
    t.barrier.wait();
    products[ty][tx] = weights[[k, j]] * node[ty];
    t.barrier.wait();
    let mut step = 2;
    while step <= HEIGHT {
        if ty % step == 0 {
            products[ty][tx] += products[ty + step / 2][tx];
        }
        t.barrier.wait();
        step *= 2;
    }
    if ty == 0 {
        partial[[t.tile[0], t.global[1]]] = products[0][tx];
    }
}

/// Tile `b`'s partial sum of hidden unit `j` (from 0), in the kernel's order of operations.
#[inline(always)]
fn tile_sum(input: &[f32], weights: &[f32], b: usize, j: usize) -> f32 {
    let mut products = [0f32; HEIGHT];
    for (ty, v) in products.iter_mut().enumerate() {
        let k = b * HEIGHT + ty + 1;
        *v = weights[k * (HIDDEN + 1) + j + 1] * input[k];
    }
    let mut step = 2;
    while step <= HEIGHT {
        for ty in (0..HEIGHT).step_by(step) {
            products[ty] += products[ty + step / 2];
        }
        step *= 2;
    }
    products[0]
}

fn serial(input: &Input) -> Vec<f32> {
    let tiles = input.units / HEIGHT;
    let mut partial = vec![0f32; tiles * HIDDEN];
    for b in 0..tiles {
        for j in 0..HIDDEN {
            partial[b * HIDDEN + j] = tile_sum(&input.input, &input.weights, b, j);
        }
    }
    partial
}

fn rayon(input: &Input) -> Vec<f32> {
    let tiles = input.units / HEIGHT;
    let mut partial = vec![0f32; tiles * HIDDEN];
    partial
        .par_chunks_mut(HIDDEN)
        .with_min_len(64)
        .enumerate()
        .for_each(|(b, out)| {
            for (j, v) in out.iter_mut().enumerate() {
                *v = tile_sum(&input.input, &input.weights, b, j);
            }
        });
    partial
}

struct Input {
    /// Input units, without the bias unit.
    units: usize,
    /// `units + 1` values, the bias unit's first.
    input: Vec<f32>,
    /// `(units + 1) x (HIDDEN + 1)`, row-major.
    weights: Vec<f32>,
}

struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    layer: Array<f32, 1>,
    weights: Array<f32, 2>,
    partial: Array<f32, 2>,
}

impl Port for State<'_> {
    type Out = u32;

    fn run(&mut self) -> Result<(), BoxError> {
        let e = Extent::new([self.input.units, HIDDEN]).tile::<HEIGHT, HIDDEN>();
        let call = layer_forward(&self.layer, &self.weights, &mut self.partial);
        parallel_for_each_on(&self.acc, e, call)?;
        Ok(())
    }

    fn result(&self) -> Result<Vec<u32>, BoxError> {
        Ok(bits(self.partial.to_vec()?))
    }
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let units = if ctx.cfg.tiny {
        1 << 10
    } else if ctx.cfg.gpu {
        // 131,072 tile rows: more than the 65,535 workgroups GPUs allow along y, so the
        // runtime folds them onto z.
        1 << 21
    } else {
        1 << 19
    };
    let mut rng = Lcg(0xbac);
    let input = Input {
        units,
        input: (0..=units).map(|_| rng.unit()).collect(),
        weights: (0..(units + 1) * (HIDDEN + 1))
            .map(|_| 0.1 * (rng.unit() - 0.5))
            .collect(),
    };
    let tiles = units / HEIGHT;
    let (amp, native) = device_and_native(ctx, |acc| {
        Ok(State {
            input: &input,
            acc: acc.clone(),
            layer: Array::from_slice_on(acc, [units + 1], &input.input)?,
            weights: Array::from_slice_on(acc, [units + 1, HIDDEN + 1], &input.weights)?,
            partial: Array::new_on(acc, [tiles, HIDDEN])?,
        })
    })?;
    let serial = time_cpu(ctx, || serial(&input))?;
    let rayon = time_cpu(ctx, || rayon(&input))?;
    let bits_of = |v: (f64, Vec<f32>)| (v.0, bits(v.1));
    // A multiplication and an addition per weight.
    let work = Work::Flops(2.0 * (units * HIDDEN) as f64);
    record(
        ctx,
        Outcome {
            name: "backprop",
            what: format!(
                "layer forward, {HIDDEN} hidden units (tiled {HEIGHT} x {HIDDEN}, tile_static \
                 tree sums, checked; CPU: serial)"
            ),
            size: format!("{units} inputs"),
            work,
            amp,
            native,
            serial: bits_of(serial),
            rayon: bits_of(rayon),
        },
    );
    Ok(())
}
