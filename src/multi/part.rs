//! One accelerator's share of a split launch: [`Part`], its rows of the inputs (with a halo of
//! neighbouring rows for stencils, [`HaloView`]).

use std::ops::Range;

use super::rows_in;
use crate::{
    Accelerator, AcceleratorView, ArrayView, ArrayViewMut, DeviceElement, Error, Extent, Index,
};

/// One accelerator's share of a launch split by [`parallel_for_each`](super::parallel_for_each):
/// a run of rows (along the domain's first dimension) and the accelerator view to run them on.
///
/// The closure of `parallel_for_each` makes views of the part's rows of its inputs
/// ([`view`](Self::view), [`view_with_halo`](Self::view_with_halo), [`rows_of`](Self::rows_of))
/// and of its output rows ([`view_mut`](Self::view_mut)), and launches on
/// [`accelerator_view`](Self::accelerator_view) over [`extent`](Self::extent).
#[derive(Clone, Debug)]
pub struct Part<const N: usize> {
    pub(super) index: usize,
    pub(super) view: AcceleratorView,
    pub(super) rows: Range<usize>,
    pub(super) domain: Extent<N>,
}

/// A part's rows of an input with up to `halo` more rows on either side
/// ([`Part::view_with_halo`]): the view, and where the part's own rows start in it.
#[derive(Clone, Debug)]
pub struct HaloView<'a, T: DeviceElement, const N: usize> {
    /// The part's rows and the halo rows that exist (none past the domain's first or last
    /// row).
    pub view: ArrayView<'a, T, N>,
    /// How many halo rows come before the part's first row: row `rows_before + i` of `view`
    /// is row `i` of the part.
    pub rows_before: usize,
}

impl<const N: usize> Part<N> {
    /// The part's position in the list of accelerators the launch was given.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The accelerator the part runs on.
    pub fn accelerator(&self) -> &Accelerator {
        self.view.accelerator()
    }

    /// The accelerator view to launch on (`parallel_for_each_on(part.accelerator_view(), ..)`):
    /// the default view of an [`Accelerator`] the launch was given, or the
    /// [`AcceleratorView`] itself.
    pub fn accelerator_view(&self) -> &AcceleratorView {
        &self.view
    }

    /// The part's rows of the whole domain (along its first dimension).
    pub fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// The whole domain of the launch.
    pub fn domain(&self) -> Extent<N> {
        self.domain
    }

    /// Where the part starts in the domain: `[rows().start, 0, ..]`. A kernel that needs its
    /// global position adds it to its index.
    pub fn origin(&self) -> Index<N> {
        let mut origin = [0; N];
        origin[0] = self.rows.start;
        Index::new(origin)
    }

    /// The part's own domain: the whole domain with the part's rows only.
    pub fn extent(&self) -> Extent<N> {
        let mut dims = self.domain.as_array();
        dims[0] = self.rows.len();
        Extent::new(dims)
    }

    /// The part's rows of `data`, a row-major slice with the domain's rows and any number of
    /// elements per row (for example the `[M, K]` left operand of a matrix product whose
    /// domain is `[M, N]`). Errors: [`SplitError::RowsMismatch`](crate::SplitError) when the
    /// length is not a whole number of rows.
    pub fn rows_of<'a, T>(&self, data: &'a [T]) -> Result<&'a [T], Error> {
        let per_row = rows_in(data.len(), self.domain[0], "an input")?;
        Ok(&data[self.rows.start * per_row..self.rows.end * per_row])
    }

    /// A view of the part's rows of `data`, a row-major slice shaped like the domain, with
    /// the part's [`extent`](Self::extent). Errors: [`Error::ExtentMismatch`] when `data` is
    /// not the domain's size.
    pub fn view<'a, T: DeviceElement>(&self, data: &'a [T]) -> Result<ArrayView<'a, T, N>, Error> {
        self.check_domain_sized(data.len())?;
        ArrayView::new(self.extent(), self.rows_of(data)?)
    }

    /// [`view`](Self::view) with up to `halo` more rows on either side (fewer at the domain's
    /// first and last rows): the overlapping read sections a stencil needs when it is split,
    /// each part reading its neighbours' edge rows.
    pub fn view_with_halo<'a, T: DeviceElement>(
        &self,
        data: &'a [T],
        halo: usize,
    ) -> Result<HaloView<'a, T, N>, Error> {
        self.check_domain_sized(data.len())?;
        let per_row = rows_in(data.len(), self.domain[0], "an input")?;
        let start = self.rows.start.saturating_sub(halo);
        let end = self.rows.end.saturating_add(halo).min(self.domain[0]);
        let mut dims = self.domain.as_array();
        dims[0] = end - start;
        Ok(HaloView {
            view: ArrayView::new(dims, &data[start * per_row..end * per_row])?,
            rows_before: self.rows.start - start,
        })
    }

    /// A writable view, with the part's [`extent`](Self::extent), of `rows`: the part's rows
    /// of an output shaped like the domain, as the closure of
    /// [`parallel_for_each`](super::parallel_for_each) receives them. Errors:
    /// [`Error::ExtentMismatch`] when `rows` is not the part's size.
    pub fn view_mut<'a, T: DeviceElement>(
        &self,
        rows: &'a mut [T],
    ) -> Result<ArrayViewMut<'a, T, N>, Error> {
        ArrayViewMut::new(self.extent(), rows)
    }

    fn check_domain_sized(&self, len: usize) -> Result<(), Error> {
        let extent = self.domain.size();
        if len != extent {
            return Err(Error::ExtentMismatch { extent, len });
        }
        Ok(())
    }
}
