//! What a run measures: sizes, repetitions and the sections that run.

use crate::instructions;

/// Sizes and repetitions.
#[derive(Clone, Debug)]
pub struct Config {
    /// A few-ms smoke run: small sizes, one run per measurement.
    pub tiny: bool,
    /// Also the 1024 x 1024 matrix products.
    pub full: bool,
    /// The GPU profile (`--gpu`): sizes that mean something on a discrete GPU (256M-element
    /// vectors, 4096 x 4096 products, 8192 x 8192 transposes), fewer repetitions of rows that
    /// take over a second, a warm-up before the timed sections, the clocks logged around each
    /// section, kernel times of at least 10 runs, and the GPU targets in the report.
    pub gpu: bool,
    /// Whether the native column runs (off in the GPU profile unless `--native`: at GPU sizes
    /// it would take most of the run).
    pub native: bool,
    /// The largest buffer a kernel can bind on the Vulkan device (`maxStorageBufferRange`),
    /// set by [`run`](crate::run): the GPU profile's sizes shrink to fit it.
    pub max_buffer_bytes: u64,
    /// Most timed runs per row (after one warm-up run).
    pub reps: usize,
    /// Only the sections whose names contain this (`--only launch`); all when `None`.
    pub only: Option<String>,
    /// Instruction counting (a child of `--instructions`, run under callgrind): only this
    /// side of this pair runs, a fixed number of times, and nothing is timed or checked.
    pub count: Option<instructions::CountRun>,
}

impl Config {
    /// The smoke-test configuration.
    pub fn tiny() -> Self {
        Config {
            tiny: true,
            full: false,
            gpu: false,
            native: true,
            max_buffer_bytes: u64::MAX,
            reps: 1,
            only: None,
            count: None,
        }
    }

    /// Whether the section `name` runs.
    pub(crate) fn runs(&self, name: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|o| o.split(',').any(|o| name.contains(o)))
    }

    /// Elements of the 1-D workloads.
    pub(crate) fn n(&self) -> usize {
        if self.tiny {
            1 << 16
        } else if self.gpu {
            self.fit(1 << 28)
        } else if self.count.is_some() {
            1 << 20
        } else {
            1 << 24
        }
    }

    pub(crate) fn matmul_sizes(&self) -> Vec<usize> {
        match (self.tiny, self.full) {
            (true, _) => vec![64],
            _ if self.count.is_some() => vec![128],
            _ if self.gpu => vec![self.fit_side(4096)],
            (false, false) => vec![512],
            (false, true) => vec![512, 1024],
        }
    }

    pub(crate) fn transpose_side(&self) -> usize {
        if self.tiny {
            128
        } else if self.gpu {
            self.fit_side(8192)
        } else if self.count.is_some() {
            1024
        } else {
            4096
        }
    }

    /// `x` halved until `bytes(x)` fits one buffer of the device.
    fn halved_to_fit(&self, mut x: usize, bytes: impl Fn(u64) -> u64) -> usize {
        while x > 1 && bytes(x as u64) > self.max_buffer_bytes {
            x /= 2;
        }
        x
    }

    /// `elements` 4-byte elements, halved until one buffer of them fits the device.
    fn fit(&self, elements: usize) -> usize {
        self.halved_to_fit(elements, |n| n * 4)
    }

    /// The side of a square of 4-byte elements, halved until the square fits the device.
    pub fn fit_side(&self, side: usize) -> usize {
        self.halved_to_fit(side, |s| s * s * 4)
    }

    /// The side of a cube of 4-byte elements, halved until the cube fits the device.
    pub fn fit_cube(&self, side: usize) -> usize {
        self.halved_to_fit(side, |s| s * s * s * 4)
    }

    pub(crate) fn transfer_bytes(&self) -> usize {
        if self.tiny {
            1 << 20
        } else if self.gpu {
            self.fit(64 << 20) * 4
        } else {
            64 << 20
        }
    }
}
