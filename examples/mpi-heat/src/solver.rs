//! One rank's band of the grid on its accelerator: the Jacobi kernel, the halo rows and the
//! residual.

use amp::prelude::*;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::exchange::{exchange, EdgeRows, Neighbours};

/// One Jacobi step over a band and its halo rows: every interior cell becomes the mean of its
/// four neighbours, the edge columns keep their values, and `changed` flags the cells that moved
/// by more than `tolerance`. The halo rows (the first and last) are left alone: they hold the
/// neighbouring bands' rows, which the exchange writes, or the grid's fixed edges.
#[kernel(amp)]
fn jacobi_step(
    idx: Index<2>,
    old: &Array<f32, 2>,
    new: &mut Array<f32, 2>,
    changed: &mut Array<u32, 2>,
    tolerance: f32,
) {
    let (row, col) = (idx[0], idx[1]);
    if row > 0 && row + 1 < old.extent()[0] {
        let here = old[idx];
        let mut value = here;
        if col > 0 && col + 1 < old.extent()[1] {
            // One fixed order of additions, and a multiplication by a power of two, which is
            // exact: every rank count and every accelerator rounds each cell the same way.
            value = (old[[row, col - 1]]
                + old[[row, col + 1]]
                + old[[row - 1, col]]
                + old[[row + 1, col]])
                * 0.25;
        }
        new[idx] = value;
        let mut moved = 0u32;
        if (value - here).abs() > tolerance {
            moved = 1;
        }
        changed[idx] = moved;
    }
}

/// The grid's rows that one rank owns: `first..first + rows`. The grid's first and last rows
/// are fixed edges that no rank owns.
#[derive(Clone, Copy, Debug)]
pub struct Band {
    pub first: usize,
    pub rows: usize,
}

impl Band {
    /// Rank `rank`'s band of a grid of `total_rows` rows shared by `ranks` ranks: the interior
    /// rows split as evenly as they go, the first ranks taking one more.
    pub fn of_rank(rank: usize, ranks: usize, total_rows: usize) -> Result<Band, String> {
        let interior = total_rows - 2;
        if interior < ranks {
            return Err(format!(
                "{ranks} ranks need a grid of {} rows or more: each rank owns one row at least",
                ranks + 2
            ));
        }
        let (base, extra) = (interior / ranks, interior % ranks);
        Ok(Band {
            first: 1 + rank * base + rank.min(extra),
            rows: base + usize::from(rank < extra),
        })
    }
}

/// The value of cell `(row, col)` before the first step: the top edge is hot, the rest cold.
fn initial_value(row: usize, _col: usize) -> f32 {
    if row == 0 {
        1.0
    } else {
        0.0
    }
}

/// A rank's band on its accelerator: the current values (`old`, halos included), the next
/// step's (`new`), the cells that changed in the last step (flags, 0 or 1), and the host rows the exchange
/// moves.
pub struct Solver {
    accelerator: Accelerator,
    band: Band,
    cols: usize,
    old: Array<f32, 2>,
    new: Array<f32, 2>,
    changed: Array<u32, 2>,
    edges: EdgeRows,
}

impl Solver {
    pub fn new(
        accelerator: &Accelerator,
        band: Band,
        total_rows: usize,
        cols: usize,
    ) -> Result<Solver, Error> {
        debug_assert!(band.first + band.rows < total_rows);
        // The band and its two halo rows: global rows `first - 1 ..= first + rows`.
        let start: Vec<f32> = (band.first - 1..=band.first + band.rows)
            .flat_map(|row| (0..cols).map(move |col| initial_value(row, col)))
            .collect();
        let extent = [band.rows + 2, cols];
        Ok(Solver {
            accelerator: accelerator.clone(),
            band,
            cols,
            old: Array::from_slice_on(accelerator, extent, &start)?,
            // The halos at the grid's edges are never written: both arrays start with them.
            new: Array::from_slice_on(accelerator, extent, &start)?,
            // Halo rows included, so that the kernel indexes every array alike; theirs stay 0.
            changed: Array::new_on(accelerator, extent)?,
            edges: EdgeRows::new(cols),
        })
    }

    /// Runs one step into `new` and brings the band's new first and last rows to the host.
    pub fn compute(&mut self, tolerance: f32) -> Result<(), Error> {
        let (rows, cols) = (self.band.rows, self.cols);
        // Recorded and submitted without waiting: the launch returns before the kernel ends.
        parallel_for_each_on(
            &self.accelerator,
            self.old.extent(),
            jacobi_step(&self.old, &mut self.new, &mut self.changed, tolerance),
        )?;
        // Copying the edge rows out waits for the kernel, and moves only those two rows: on a
        // discrete GPU that is 2 x cols values over the bus per step, not the band.
        copy(
            &self.new.section([1, 0], [1, cols])?,
            &mut self.edges.first[..],
        )?;
        copy(
            &self.new.section([rows, 0], [1, cols])?,
            &mut self.edges.last[..],
        )?;
        Ok(())
    }

    /// Swaps edge rows with the neighbours, writes what arrived into `new`'s halo rows, and
    /// makes `new` the current values.
    pub fn exchange_halos(&mut self, neighbours: &Neighbours<'_>) -> Result<(), Error> {
        let (rows, cols) = (self.band.rows, self.cols);
        exchange(neighbours, &mut self.edges);
        if neighbours.above.is_some() {
            copy(
                &self.edges.from_above[..],
                &mut self.new.section_mut([0, 0], [1, cols])?,
            )?;
        }
        if neighbours.below.is_some() {
            copy(
                &self.edges.from_below[..],
                &mut self.new.section_mut([rows + 1, 0], [1, cols])?,
            )?;
        }
        std::mem::swap(&mut self.old, &mut self.new);
        Ok(())
    }

    /// The band's cells that changed by more than the tolerance in the last step.
    pub fn changing_cells(&self) -> Result<u32, Error> {
        let cells = (self.band.rows + 2) * self.cols;
        amp::algorithms::sum(&self.changed.view().view_as([cells])?)
    }

    /// The whole grid on rank 0 (row-major, edges included), `None` on the other ranks, which
    /// send their bands to it.
    pub fn gather(
        &self,
        world: &SimpleCommunicator,
        rank: usize,
        ranks: usize,
        total_rows: usize,
    ) -> Result<Option<Vec<f32>>, Box<dyn std::error::Error>> {
        let cols = self.cols;
        let mut band = vec![0.0f32; self.band.rows * cols];
        copy(
            &self.old.section([1, 0], [self.band.rows, cols])?,
            &mut band[..],
        )?;
        if rank != 0 {
            world.process_at_rank(0).send(&band[..]);
            return Ok(None);
        }
        let mut grid: Vec<f32> = (0..total_rows)
            .flat_map(|row| (0..cols).map(move |col| initial_value(row, col)))
            .collect();
        let rows_of = |b: Band| b.first * cols..(b.first + b.rows) * cols;
        grid[rows_of(self.band)].copy_from_slice(&band);
        for other in 1..ranks {
            let theirs = Band::of_rank(other, ranks, total_rows)?;
            world
                .process_at_rank(other as i32)
                .receive_into(&mut grid[rows_of(theirs)]);
        }
        Ok(Some(grid))
    }
}
