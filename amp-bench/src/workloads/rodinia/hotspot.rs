//! hotspot: a chip's temperature, stepped in time from its power map. Each step is a 5-point
//! stencil with clamped borders (a cell on the edge stands in for its missing neighbour), one
//! simple launch per step between two arrays that swap roles.

use amp::prelude::*;
use rayon::prelude::*;

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// The model's constants, as the original's (SI units).
const MAX_PD: f32 = 3.0e6;
const PRECISION: f32 = 0.001;
const SPEC_HEAT_SI: f32 = 1.75e6;
const K_SI: f32 = 100.0;
const FACTOR_CHIP: f32 = 0.5;
const T_CHIP: f32 = 0.0005;
const CHIP_HEIGHT: f32 = 0.016;
const CHIP_WIDTH: f32 = 0.016;
const AMB_TEMP: f32 = 80.0;

/// The coefficients of a step on a `rows` x `cols` grid.
#[derive(Clone, Copy)]
struct Coeffs {
    rx_1: f32,
    ry_1: f32,
    rz_1: f32,
    step_div_cap: f32,
}

impl Coeffs {
    fn new(rows: usize, cols: usize) -> Coeffs {
        let grid_height = CHIP_HEIGHT / rows as f32;
        let grid_width = CHIP_WIDTH / cols as f32;
        let cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * grid_width * grid_height;
        let rx = grid_width / (2.0 * K_SI * T_CHIP * grid_height);
        let ry = grid_height / (2.0 * K_SI * T_CHIP * grid_width);
        let rz = T_CHIP / (K_SI * grid_height * grid_width);
        let max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI);
        let step = PRECISION / max_slope;
        Coeffs {
            rx_1: 1.0 / rx,
            ry_1: 1.0 / ry,
            rz_1: 1.0 / rz,
            step_div_cap: step / cap,
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[kernel(amp)]
fn hotspot_step(
    idx: Index<2>,
    temp: &Array<f32, 2>,
    power: &Array<f32, 2>,
    out: &mut Array<f32, 2>,
    rx_1: f32,
    ry_1: f32,
    rz_1: f32,
    step_div_cap: f32,
) {
    let (r, c) = (idx[0], idx[1]);
    let (rows, cols) = (temp.extent()[0], temp.extent()[1]);
    let t = temp[idx];
    let n = temp[[r.saturating_sub(1), c]];
    let s = temp[[(r + 1).min(rows - 1), c]];
    let w = temp[[r, c.saturating_sub(1)]];
    let e = temp[[r, (c + 1).min(cols - 1)]];
    out[idx] = t + step_div_cap
        * (power[idx]
            + (s + n - 2.0 * t) * ry_1
            + (e + w - 2.0 * t) * rx_1
            + (AMB_TEMP - t) * rz_1);
}

/// One cell's next temperature, in the kernel's order of operations.
#[inline(always)]
fn cell(
    temp: &[f32],
    power: &[f32],
    cols: usize,
    rows: usize,
    r: usize,
    c: usize,
    k: Coeffs,
) -> f32 {
    let at = |y: usize, x: usize| temp[y * cols + x];
    let t = at(r, c);
    let n = at(r.saturating_sub(1), c);
    let s = at((r + 1).min(rows - 1), c);
    let w = at(r, c.saturating_sub(1));
    let e = at(r, (c + 1).min(cols - 1));
    t + k.step_div_cap
        * (power[r * cols + c]
            + (s + n - 2.0 * t) * k.ry_1
            + (e + w - 2.0 * t) * k.rx_1
            + (AMB_TEMP - t) * k.rz_1)
}

fn serial(input: &Input) -> Vec<f32> {
    let (rows, cols) = (input.rows, input.cols);
    let mut cur = input.temp.clone();
    let mut next = vec![0f32; rows * cols];
    for _ in 0..input.steps {
        for r in 0..rows {
            for c in 0..cols {
                next[r * cols + c] = cell(&cur, &input.power, cols, rows, r, c, input.k);
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

fn rayon(input: &Input) -> Vec<f32> {
    let (rows, cols) = (input.rows, input.cols);
    let mut cur = input.temp.clone();
    let mut next = vec![0f32; rows * cols];
    for _ in 0..input.steps {
        next.par_chunks_mut(cols).enumerate().for_each(|(r, row)| {
            for (c, v) in row.iter_mut().enumerate() {
                *v = cell(&cur, &input.power, cols, rows, r, c, input.k);
            }
        });
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

struct Input {
    rows: usize,
    cols: usize,
    steps: usize,
    temp: Vec<f32>,
    power: Vec<f32>,
    k: Coeffs,
}

impl Input {
    fn new(side: usize, steps: usize) -> Input {
        let mut rng = Lcg(0x4f7);
        let n = side * side;
        // Temperatures around 323 K, power densities up to a few milliwatts per cell.
        let temp = (0..n).map(|_| 323.0 + 20.0 * rng.unit()).collect();
        let power = (0..n).map(|_| 0.005 * rng.unit()).collect();
        Input {
            rows: side,
            cols: side,
            steps,
            temp,
            power,
            k: Coeffs::new(side, side),
        }
    }
}

/// The grid on one accelerator: the two temperature arrays (the current one first) and the
/// power map.
struct State<'a> {
    input: &'a Input,
    acc: Accelerator,
    temp: [Array<f32, 2>; 2],
    power: Array<f32, 2>,
}

impl Port for State<'_> {
    type Out = f32;

    fn run(&mut self) -> Result<(), BoxError> {
        let k = self.input.k;
        self.temp[0].copy_from_slice(&self.input.temp)?;
        let e = self.power.extent();
        for _ in 0..self.input.steps {
            let [cur, next] = &mut self.temp;
            let call = hotspot_step(
                cur,
                &self.power,
                next,
                k.rx_1,
                k.ry_1,
                k.rz_1,
                k.step_div_cap,
            );
            parallel_for_each_on(&self.acc, e, call)?;
            self.temp.swap(0, 1);
        }
        Ok(())
    }

    fn result(&self) -> Result<Vec<f32>, BoxError> {
        Ok(self.temp[0].to_vec()?)
    }
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let (side, steps) = if ctx.cfg.tiny {
        (64, 4)
    } else if ctx.cfg.gpu {
        (ctx.cfg.fit_side(4096), 20)
    } else {
        (1024, 10)
    };
    let input = Input::new(side, steps);
    let (amp, native) = device_and_native(ctx, |acc| {
        let shape = [side, side];
        Ok(State {
            input: &input,
            acc: acc.clone(),
            temp: [
                Array::from_slice_on(acc, shape, &input.temp)?,
                Array::new_on(acc, shape)?,
            ],
            power: Array::from_slice_on(acc, shape, &input.power)?,
        })
    })?;
    let serial = time_cpu(ctx, || serial(&input))?;
    let rayon = time_cpu(ctx, || rayon(&input))?;
    // 15 floating-point operations per cell and step.
    let work = Work::Flops(15.0 * (side * side * steps) as f64);
    let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
    record(
        ctx,
        Outcome {
            name: "hotspot",
            what: format!("2-D thermal stencil, {steps} steps (simple, checked; CPU: serial)"),
            size: format!("{side} x {side} f32"),
            work,
            amp: (amp.0, bits(amp.1)),
            native: (native.0, bits(native.1)),
            serial: (serial.0, bits(serial.1)),
            rayon: (rayon.0, bits(rayon.1)),
        },
    );
    Ok(())
}
