//! What a split launch writes: [`Outputs`], host slices (or tuples of them) cut into the
//! parts' rows, each part getting its own rows and nobody else's.

use super::rows_in;
use crate::Error;

/// The outputs of a launch split by [`parallel_for_each`](super::parallel_for_each): host data
/// with the domain's rows (any number of elements per row), cut into one piece per part at the
/// parts' row boundaries, so that each part writes its own rows, in place, while the others
/// write theirs.
///
/// Implemented for `&mut [T]`, for `()` (no outputs) and for tuples of up to four outputs
/// (sealed: no other type can implement it). To write into an
/// [`ArrayViewMut`](crate::ArrayViewMut) over host data, pass its
/// [`data_mut`](crate::ArrayViewMut::data_mut) slice.
pub trait Outputs: Send + Sized + sealed::Sealed {
    /// Cuts `self`, which has `rows` rows, into the pieces `cuts[i]..cuts[i + 1]` (ascending
    /// row numbers from 0 to `rows`). Errors: [`SplitError::RowsMismatch`](crate::SplitError)
    /// when `self` is not a whole number of rows.
    fn split_rows(self, rows: usize, cuts: &[usize]) -> Result<Vec<Self>, Error>;
}

mod sealed {
    /// Only this module's types are [`Outputs`](super::Outputs): the launch relies on every
    /// output giving one piece per part.
    pub trait Sealed {}
    impl<T: Send> Sealed for &mut [T] {}
    impl Sealed for () {}
    impl<A> Sealed for (A,) {}
    impl<A, B> Sealed for (A, B) {}
    impl<A, B, C> Sealed for (A, B, C) {}
    impl<A, B, C, D> Sealed for (A, B, C, D) {}
}

impl<T: Send> Outputs for &mut [T] {
    fn split_rows(self, rows: usize, cuts: &[usize]) -> Result<Vec<Self>, Error> {
        let per_row = rows_in(self.len(), rows, "an output")?;
        let mut rest = self;
        let mut pieces = Vec::with_capacity(cuts.len().saturating_sub(1));
        for pair in cuts.windows(2) {
            let (piece, tail) = rest.split_at_mut((pair[1] - pair[0]) * per_row);
            pieces.push(piece);
            rest = tail;
        }
        Ok(pieces)
    }
}

impl Outputs for () {
    fn split_rows(self, _rows: usize, cuts: &[usize]) -> Result<Vec<Self>, Error> {
        Ok(vec![(); cuts.len().saturating_sub(1)])
    }
}

macro_rules! tuple_outputs {
    ($($name:ident),+) => {
        impl<$($name: Outputs),+> Outputs for ($($name,)+) {
            #[allow(non_snake_case)] // the type parameters name the tuple's fields
            fn split_rows(self, rows: usize, cuts: &[usize]) -> Result<Vec<Self>, Error> {
                let ($($name,)+) = self;
                $(let mut $name = $name.split_rows(rows, cuts)?.into_iter();)+
                let mut pieces = Vec::with_capacity(cuts.len().saturating_sub(1));
                // Every output was cut at the same rows, so each has as many pieces.
                while let ($(Some($name),)+) = ($($name.next(),)+) {
                    pieces.push(($($name,)+));
                }
                Ok(pieces)
            }
        }
    };
}

tuple_outputs!(A);
tuple_outputs!(A, B);
tuple_outputs!(A, B, C);
tuple_outputs!(A, B, C, D);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_cut_at_rows() {
        let mut data: Vec<u32> = (0..12).collect();
        let pieces = data.as_mut_slice().split_rows(4, &[0, 1, 1, 4]).unwrap();
        assert_eq!(pieces.len(), 3);
        assert_eq!(pieces[0], [0, 1, 2]);
        assert!(pieces[1].is_empty());
        assert_eq!(pieces[2], [3, 4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn tuples_are_cut_alike() {
        let (mut a, mut b) = (vec![0u8; 4], vec![0i32; 8]);
        let pieces = (a.as_mut_slice(), b.as_mut_slice())
            .split_rows(4, &[0, 3, 4])
            .unwrap();
        assert_eq!(pieces[0].0.len(), 3);
        assert_eq!(pieces[0].1.len(), 6);
        assert_eq!(pieces[1].1.len(), 2);
    }

    #[test]
    fn partial_rows_are_an_error() {
        let mut data = vec![0u8; 7];
        let e = data.as_mut_slice().split_rows(2, &[0, 1, 2]).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidSplit(crate::SplitError::RowsMismatch {
                len: 7,
                rows: 2,
                ..
            })
        ));
        let e = data.as_mut_slice().split_rows(0, &[0, 0]).unwrap_err();
        assert!(matches!(e, Error::InvalidSplit(_)));
    }
}
