//! bfs: breadth-first search of a graph from node 0, level by level, as the original: the
//! first launch expands the frontier (each frontier node gives its unvisited neighbours the
//! next level's cost and marks them), the second makes the marked nodes the next frontier and
//! raises a flag the host reads to decide whether another level follows. The result is each
//! node's level (`-1` where unreachable).

use amp::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering::Relaxed};

use super::{device_and_native, record, time_cpu, Lcg, Outcome, Port};
use crate::context::Ctx;
use crate::report::Work;
use crate::BoxError;

/// Edges per node on average (the original's generated graphs have 6).
const DEGREE: u32 = 6;

/// Several frontier nodes may give the same neighbour its cost: they all write the same
/// value (the level after theirs), so the last one winning changes nothing.
#[allow(clippy::too_many_arguments)]
#[kernel(amp, allow(write_conflict))]
fn bfs_expand(
    idx: Index<1>,
    starts: &Array<u32, 1>,
    edges: &Array<u32, 1>,
    frontier: &mut Array<u32, 1>,
    updating: &mut Array<u32, 1>,
    visited: &Array<u32, 1>,
    cost: &mut Array<i32, 1>,
) {
    let v = idx[0];
    if frontier[v] != 0 {
        frontier[v] = 0;
        for e in starts[v]..starts[v + 1] {
            let id = edges[e as usize] as usize;
            if visited[id] == 0 {
                cost[id] = cost[v] + 1;
                updating[id] = 1;
            }
        }
    }
}

#[kernel(amp, allow(write_conflict))]
fn bfs_commit(
    idx: Index<1>,
    frontier: &mut Array<u32, 1>,
    updating: &mut Array<u32, 1>,
    visited: &mut Array<u32, 1>,
    more: &mut Array<u32, 1>,
) {
    let v = idx[0];
    if updating[v] != 0 {
        frontier[v] = 1;
        visited[v] = 1;
        more[0] = 1;
        updating[v] = 0;
    }
}

/// The serial search: the kernels' two passes over every node per level.
fn serial(g: &Graph) -> Vec<i32> {
    let n = g.nodes;
    let (mut frontier, mut updating, mut visited) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let mut cost = vec![-1i32; n];
    frontier[0] = 1;
    visited[0] = 1;
    cost[0] = 0;
    loop {
        for v in 0..n {
            if frontier[v] != 0 {
                frontier[v] = 0;
                for e in g.starts[v]..g.starts[v + 1] {
                    let id = g.edges[e as usize] as usize;
                    if visited[id] == 0 {
                        cost[id] = cost[v] + 1;
                        updating[id] = 1;
                    }
                }
            }
        }
        let mut more = false;
        for v in 0..n {
            if updating[v] != 0 {
                frontier[v] = 1;
                visited[v] = 1;
                more = true;
                updating[v] = 0;
            }
        }
        if !more {
            return cost;
        }
    }
}

/// The same two passes with rayon, over atomics where threads share elements (relaxed: the
/// shared writes all store one value).
fn rayon(g: &Graph) -> Vec<i32> {
    let n = g.nodes;
    let atomics = |v: u32| (0..n).map(|_| AtomicU32::new(v)).collect::<Vec<_>>();
    let (frontier, updating, visited) = (atomics(0), atomics(0), atomics(0));
    let cost: Vec<AtomicI32> = (0..n).map(|_| AtomicI32::new(-1)).collect();
    frontier[0].store(1, Relaxed);
    visited[0].store(1, Relaxed);
    cost[0].store(0, Relaxed);
    loop {
        (0..n).into_par_iter().with_min_len(4096).for_each(|v| {
            if frontier[v].load(Relaxed) != 0 {
                frontier[v].store(0, Relaxed);
                let next = cost[v].load(Relaxed) + 1;
                for e in g.starts[v]..g.starts[v + 1] {
                    let id = g.edges[e as usize] as usize;
                    if visited[id].load(Relaxed) == 0 {
                        cost[id].store(next, Relaxed);
                        updating[id].store(1, Relaxed);
                    }
                }
            }
        });
        let more = AtomicU32::new(0);
        (0..n).into_par_iter().with_min_len(4096).for_each(|v| {
            if updating[v].load(Relaxed) != 0 {
                frontier[v].store(1, Relaxed);
                visited[v].store(1, Relaxed);
                more.store(1, Relaxed);
                updating[v].store(0, Relaxed);
            }
        });
        if more.into_inner() == 0 {
            return cost.into_iter().map(AtomicI32::into_inner).collect();
        }
    }
}

/// A graph in compressed rows: node `v`'s neighbours are `edges[starts[v]..starts[v + 1]]`.
struct Graph {
    nodes: usize,
    starts: Vec<u32>,
    edges: Vec<u32>,
}

impl Graph {
    /// Each node gets 1 to `2 * DEGREE - 1` random neighbours.
    fn random(nodes: usize) -> Graph {
        let mut rng = Lcg(0xbf5);
        let mut starts = Vec::with_capacity(nodes + 1);
        let mut edges = Vec::new();
        for _ in 0..nodes {
            starts.push(edges.len() as u32);
            let degree = 1 + rng.next_u32() % (2 * DEGREE - 1);
            for _ in 0..degree {
                edges.push(rng.next_u32() % nodes as u32);
            }
        }
        starts.push(edges.len() as u32);
        Graph {
            nodes,
            starts,
            edges,
        }
    }
}

struct State<'a> {
    graph: &'a Graph,
    acc: Accelerator,
    starts: Array<u32, 1>,
    edges: Array<u32, 1>,
    frontier: Array<u32, 1>,
    updating: Array<u32, 1>,
    visited: Array<u32, 1>,
    cost: Array<i32, 1>,
    more: Array<u32, 1>,
    /// The start of `frontier` and `visited` (node 0 only), and of `cost`.
    first: Vec<u32>,
    unreached: Vec<i32>,
}

impl Port for State<'_> {
    type Out = i32;

    fn run(&mut self) -> Result<(), BoxError> {
        self.frontier.copy_from_slice(&self.first)?;
        self.visited.copy_from_slice(&self.first)?;
        self.cost.copy_from_slice(&self.unreached)?;
        self.updating.copy_from_slice(&vec![0; self.graph.nodes])?;
        let e = Extent::new([self.graph.nodes]);
        loop {
            self.more.copy_from_slice(&[0])?;
            let call = bfs_expand(
                &self.starts,
                &self.edges,
                &mut self.frontier,
                &mut self.updating,
                &self.visited,
                &mut self.cost,
            );
            parallel_for_each_on(&self.acc, e, call)?;
            let call = bfs_commit(
                &mut self.frontier,
                &mut self.updating,
                &mut self.visited,
                &mut self.more,
            );
            parallel_for_each_on(&self.acc, e, call)?;
            if self.more.to_vec()?[0] == 0 {
                return Ok(());
            }
        }
    }

    fn result(&self) -> Result<Vec<i32>, BoxError> {
        Ok(self.cost.to_vec()?)
    }
}

pub(super) fn row(ctx: &mut Ctx<'_>) -> Result<(), BoxError> {
    let nodes = if ctx.cfg.tiny {
        1 << 12
    } else if ctx.cfg.gpu {
        1 << 22
    } else {
        1 << 18
    };
    let graph = Graph::random(nodes);
    let mut first = vec![0u32; nodes];
    first[0] = 1;
    let mut unreached = vec![-1i32; nodes];
    unreached[0] = 0;
    let (amp, native) = device_and_native(ctx, |acc| {
        let zeros = || Array::new_on(acc, [nodes]);
        Ok(State {
            graph: &graph,
            acc: acc.clone(),
            starts: Array::from_slice_on(acc, [nodes + 1], &graph.starts)?,
            edges: Array::from_slice_on(acc, [graph.edges.len()], &graph.edges)?,
            frontier: zeros()?,
            updating: zeros()?,
            visited: zeros()?,
            cost: Array::new_on(acc, [nodes])?,
            more: Array::new_on(acc, [1])?,
            first: first.clone(),
            unreached: unreached.clone(),
        })
    })?;
    let serial = time_cpu(ctx, || serial(&graph))?;
    let rayon = time_cpu(ctx, || rayon(&graph))?;
    let levels = serial.1.iter().copied().max().unwrap_or(0) + 1;
    // Bytes: per level, the two passes read each node's flags (16 bytes); the edges are read
    // once over the search (4 bytes each, with their nodes' 8 bytes of bounds).
    let bytes = 16.0 * (nodes * levels as usize) as f64 + 4.0 * graph.edges.len() as f64;
    let work = Work::Bytes(bytes + 8.0 * nodes as f64);
    record(
        ctx,
        Outcome {
            name: "bfs",
            what: format!(
                "breadth-first search, {levels} levels of 2 launches (simple, checked; \
                 CPU: serial)"
            ),
            size: format!("{nodes} nodes, {} edges", graph.edges.len()),
            work,
            amp,
            native,
            serial,
            rayon,
        },
    );
    Ok(())
}
