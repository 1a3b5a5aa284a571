//! The command line: `mpi-heat [--rows N] [--cols N] [--max-steps N] [--tolerance X]
//! [--grid-out FILE] [--timing]`.

use std::path::PathBuf;

/// What the run solves and reports. Every rank parses the same command line.
#[derive(Debug)]
pub struct Options {
    /// Rows of the grid, the two fixed edge rows included.
    pub rows: usize,
    /// Columns of the grid, the two fixed edge columns included.
    pub cols: usize,
    /// Steps at most; the run stops earlier when no cell changes by more than `tolerance`.
    pub max_steps: usize,
    /// A cell whose value changes by more than this in a step has not converged.
    pub tolerance: f32,
    /// Where rank 0 writes the final grid: row-major `f32`s, little-endian.
    pub grid_out: Option<PathBuf>,
    /// Whether to time each step's compute, halo exchange and residual.
    pub timing: bool,
}

impl Options {
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
        let mut options = Options {
            rows: 1024,
            cols: 1024,
            max_steps: 1000,
            tolerance: 1e-5,
            grid_out: None,
            timing: false,
        };
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
            match arg.as_str() {
                "--rows" => options.rows = number(&arg, &value()?)?,
                "--cols" => options.cols = number(&arg, &value()?)?,
                "--max-steps" => options.max_steps = number(&arg, &value()?)?,
                "--tolerance" => options.tolerance = number(&arg, &value()?)?,
                "--grid-out" => options.grid_out = Some(PathBuf::from(value()?)),
                "--timing" => options.timing = true,
                _ => {
                    return Err(format!(
                        "unknown argument {arg}; usage: mpi-heat [--rows N] [--cols N] \
                         [--max-steps N] [--tolerance X] [--grid-out FILE] [--timing]"
                    ))
                }
            }
        }
        if options.rows < 3 || options.cols < 3 {
            return Err("the grid needs at least 3 rows and 3 columns".into());
        }
        Ok(options)
    }
}

fn number<T: std::str::FromStr>(name: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{name}: {text:?} is not a valid number"))
}
