//! The halo exchange between neighbouring bands: each rank sends its first row to the rank
//! above and its last row to the rank below, and receives their edge rows into its halos.

use mpi::point_to_point::send_receive_into;
use mpi::topology::{Process, SimpleCommunicator};
use mpi::traits::*;

/// The ranks that own the bands above and below this rank's (none at the grid's edges).
pub struct Neighbours<'a> {
    pub above: Option<Process<'a>>,
    pub below: Option<Process<'a>>,
}

impl<'a> Neighbours<'a> {
    pub fn of_rank(world: &'a SimpleCommunicator, rank: usize, ranks: usize) -> Neighbours<'a> {
        let process = |r: usize| world.process_at_rank(r as i32);
        Neighbours {
            above: rank.checked_sub(1).map(process),
            below: (rank + 1 < ranks).then(|| process(rank + 1)),
        }
    }
}

/// The host copies of a band's edge rows and of the halo rows its neighbours send.
pub struct EdgeRows {
    pub first: Vec<f32>,
    pub last: Vec<f32>,
    pub from_above: Vec<f32>,
    pub from_below: Vec<f32>,
}

impl EdgeRows {
    pub fn new(cols: usize) -> EdgeRows {
        EdgeRows {
            first: vec![0.0; cols],
            last: vec![0.0; cols],
            from_above: vec![0.0; cols],
            from_below: vec![0.0; cols],
        }
    }
}

/// Swaps edge rows with both neighbours, in two shifts: every rank's first row up, then every
/// rank's last row down. In each shift a rank sends to one side and receives from the other in
/// one `MPI_Sendrecv`, so the chain of ranks cannot deadlock, however large the rows.
pub fn exchange(neighbours: &Neighbours<'_>, rows: &mut EdgeRows) {
    shift(
        neighbours.above.as_ref(),
        &rows.first,
        neighbours.below.as_ref(),
        &mut rows.from_below,
    );
    shift(
        neighbours.below.as_ref(),
        &rows.last,
        neighbours.above.as_ref(),
        &mut rows.from_above,
    );
}

/// Sends `row` to `to` and receives `from`'s row into `into`; a missing side is the grid's edge.
fn shift(to: Option<&Process<'_>>, row: &[f32], from: Option<&Process<'_>>, into: &mut [f32]) {
    match (to, from) {
        (Some(to), Some(from)) => {
            send_receive_into(row, to, into, from);
        }
        (Some(to), None) => to.send(row),
        (None, Some(from)) => {
            from.receive_into(into);
        }
        (None, None) => {}
    }
}
