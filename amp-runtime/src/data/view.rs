//! Views: [`ArrayView`] (read-only) and [`ArrayViewMut`] over host slices or over an
//! [`Array`](crate::Array), with sections, projections, reshapes and reinterpretations.
//!
//! Every view made from another (a section, a projection, `view_as`, `reinterpret_as`,
//! `as_view`) shares its parent's data and coherence state: one host slice (or array buffer),
//! at most one device copy per accelerator, and flags saying which of them is current. A
//! derived view only changes the *layout*: the element offset, extent and strides that a
//! launch passes to the kernel (see `kernel.rs`), so nothing is copied to make it. The rules
//! are written up in `docs/data-model.md`.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::access::{BufferAccess, DeviceBuffer, DeviceBufferMut, NativePrepared, Prepared};
use super::future::CompletionFuture;
use super::layout::{check_extent, reinterpret, Layout};
use super::shared::Shared;
use crate::device::Accelerator;
use crate::dims::dims_list;
use crate::kernel::ElemType;
use crate::scalar::DeviceElement;
use crate::sync::lock;
use crate::{Error, Extent, Index};

/// A read-only view of host data or of an [`Array`](crate::Array) as an N-dimensional array
/// (C++ AMP's `array_view<const T, N>`).
///
/// Over a host slice, the data reaches a device the first time a kernel launched there reads
/// the view: on devices whose memory the host shares (integrated GPUs, lavapipe) the kernel
/// reads the slice's memory itself (imported with `VK_EXT_external_memory_host`); otherwise
/// it is copied once and the copy is reused by later launches. Over an array, kernels use the
/// array's buffer.
///
/// Views are cheap to clone and to derive: [`section`](Self::section),
/// [`project`](ArrayView::project) (C++ AMP's `view[i]`), [`view_as`](Self::view_as) and
/// [`reinterpret_as`](Self::reinterpret_as) share the data and its device copies.
///
/// ```
/// use amp_runtime::ArrayView;
/// let data = vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let v = ArrayView::new([2, 3], &data)?;
/// assert_eq!(v.extent().as_array(), [2, 3]);
/// assert_eq!(v.get([1, 2]), Some(6.0));
/// assert_eq!(v[[1, 2]], 6.0);
/// let col = v.section([0, 1], [2, 2])?; // rows 0..2, columns 1..3
/// assert_eq!(col.to_vec()?, [2.0, 3.0, 5.0, 6.0]);
/// assert_eq!(v.project(1)?.to_vec()?, [4.0, 5.0, 6.0]); // C++ AMP's v[1]
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub struct ArrayView<'a, T: DeviceElement, const N: usize> {
    shared: Arc<Shared>,
    layout: Layout<N>,
    _data: PhantomData<&'a [T]>,
}

/// A writable view of host data or of an [`Array`](crate::Array) as an N-dimensional array
/// (C++ AMP's `array_view<T, N>`).
///
/// Launches make the data current on the device (unless
/// [`discard_data`](Self::discard_data) was called): on devices whose memory the host shares
/// the kernel uses the host slice's memory itself, so nothing is copied either way; otherwise
/// the slice is copied when the device copy is out of date, a launch that writes the view
/// makes the device copy the newer one, and [`synchronize`](Self::synchronize) (or dropping
/// the last view of the data) copies it back into the host slice. A result never read on the
/// host is never copied back before the view is dropped.
///
/// Sections ([`section_mut`](Self::section_mut)), projections
/// ([`project_mut`](ArrayViewMut::project_mut)) and reshapes borrow the view mutably and share
/// its data and device copies.
///
/// ```no_run
/// use amp_runtime::ArrayViewMut;
/// let mut out = vec![0.0f32; 6];
/// let mut v = ArrayViewMut::new([2, 3], &mut out)?;
/// v.discard_data(); // the next launch need not upload the zeros
/// // parallel_for_each(v.extent(), my_kernel(&mut v))?;
/// v.synchronize()?;
/// # Ok::<(), amp_runtime::Error>(())
/// ```
pub struct ArrayViewMut<'a, T: DeviceElement, const N: usize> {
    shared: Arc<Shared>,
    layout: Layout<N>,
    _data: PhantomData<&'a mut [T]>,
}

/// Methods both view types have (read-only access).
macro_rules! read_methods {
    ($l:lifetime) => {
        /// The view's extent.
        pub fn extent(&self) -> Extent<N> {
            self.layout.extent
        }

        /// The element offset of the view's first element in the data it views (non-zero
        /// for sections and projections).
        pub fn offset(&self) -> usize {
            self.layout.offset
        }

        /// The element strides of every dimension (row-major unless the view is a section;
        /// the last is always 1).
        pub fn strides(&self) -> [usize; N] {
            self.layout.strides
        }

        /// Whether the view's elements are one gap-free row-major run (needed by
        /// `view_as`, `reinterpret_as` and host slices).
        pub fn is_contiguous(&self) -> bool {
            self.layout.is_contiguous()
        }

        /// The accelerator the data lives on when the view is over an
        /// [`Array`](crate::Array); `None` for views of host data.
        pub fn accelerator(&self) -> Option<Accelerator> {
            self.shared.home().cloned()
        }

        /// The view's elements in row-major order (synchronized from the device first when
        /// a launch wrote them).
        pub fn to_vec(&self) -> Result<Vec<T>, Error> {
            self.shared.gather(&self.layout)
        }

        /// A read-only section: the elements from `origin` spanning `extent` (C++ AMP's
        /// `section`). Shares the data; nothing is copied. Sections of sections work.
        ///
        /// Errors: [`Error::SectionOutOfBounds`] when it reaches outside the view.
        pub fn section(
            &self,
            origin: impl Into<Index<N>>,
            extent: impl Into<Extent<N>>,
        ) -> Result<ArrayView<$l, T, N>, Error> {
            let layout = self
                .layout
                .section(origin.into().as_array(), extent.into())?;
            Ok(self.derive(layout))
        }

        /// The same elements as a dense view of another shape (C++ AMP's `view_as`); the
        /// new extent may have fewer elements (a prefix).
        ///
        /// Errors: [`Error::NotContiguous`] for a section with gaps,
        /// [`Error::ExtentMismatch`] when `extent` has more elements than the view.
        pub fn view_as<const M: usize>(
            &self,
            extent: impl Into<Extent<M>>,
        ) -> Result<ArrayView<$l, T, M>, Error> {
            let layout = self.layout.view_as(extent.into())?;
            Ok(self.derive(layout))
        }

        /// The same bytes as a rank-1 view of another element type (C++ AMP's
        /// `reinterpret_as`), e.g. `f32` data as `u32` bit patterns.
        ///
        /// Errors: [`Error::NotContiguous`] for a section with gaps; [`Error::Reinterpret`]
        /// when the view's byte size or byte offset is not a multiple of `U`'s size.
        pub fn reinterpret_as<U: DeviceElement>(&self) -> Result<ArrayView<$l, U, 1>, Error> {
            let layout = reinterpret::<T, U, N>(&self.layout, false)?;
            Ok(ArrayView {
                shared: self.shared.clone(),
                layout,
                _data: PhantomData,
            })
        }

        fn derive<const M: usize>(&self, layout: Layout<M>) -> ArrayView<$l, T, M> {
            ArrayView {
                shared: self.shared.clone(),
                layout,
                _data: PhantomData,
            }
        }
    };
}

impl<'a, T: DeviceElement, const N: usize> ArrayView<'a, T, N> {
    /// A view of `data` with the given extent.
    ///
    /// An empty extent with an empty slice is an empty view. Errors: [`Error::ExtentMismatch`]
    /// when the extent's element count differs from `data.len()`, [`Error::ExtentTooLarge`]
    /// when it exceeds `u32::MAX`.
    pub fn new(extent: impl Into<Extent<N>>, data: &'a [T]) -> Result<Self, Error> {
        let extent = extent.into();
        check_extent(&extent, data.len())?;
        let bytes: &[u8] = crate::scalar::as_bytes(data);
        Ok(ArrayView {
            shared: Shared::host(bytes.as_ptr().cast_mut(), bytes.len()),
            layout: Layout::dense(extent),
            _data: PhantomData,
        })
    }

    pub(crate) fn from_shared(shared: Arc<Shared>, layout: Layout<N>) -> Self {
        ArrayView {
            shared,
            layout,
            _data: PhantomData,
        }
    }

    /// The host slice of a contiguous view of host data.
    ///
    /// Errors: [`Error::NotContiguous`] for a section with gaps, [`Error::NotHostAccessible`]
    /// for a view of an [`Array`](crate::Array).
    pub fn data(&self) -> Result<&[T], Error> {
        let p = self.shared.host_run::<T, N>(&self.layout, "data")?;
        // SAFETY: a contiguous run of the view's elements in host memory, current, aligned;
        // read-only views never write host data, and the family's writers are borrowed
        // while this view lives.
        Ok(unsafe { std::slice::from_raw_parts(p, self.layout.extent.size()) })
    }

    // Views derived from a read-only view borrow the data, not the view.
    read_methods!('a);

    /// The element at `idx` (read from the device for a view of an array), or `Ok(None)`
    /// when it is out of bounds.
    pub fn try_get(&self, idx: impl Into<Index<N>>) -> Result<Option<T>, Error> {
        match self.layout.element(&idx.into().as_array()) {
            Some(one) => Ok(self.shared.gather::<T, 1>(&one)?.first().copied()),
            None => Ok(None),
        }
    }

    /// The element at `idx`, or `None` when it is out of bounds (or, for a view of an array,
    /// when reading device memory fails: [`try_get`](Self::try_get) returns the error).
    pub fn get(&self, idx: impl Into<Index<N>>) -> Option<T> {
        self.try_get(idx).ok().flatten()
    }
}

impl<T: DeviceElement, const N: usize> std::ops::Index<[usize; N]> for ArrayView<'_, T, N> {
    type Output = T;
    /// The element at `idx` of a view of host data.
    ///
    /// Panics when `idx` is out of bounds, for a view of an [`Array`](crate::Array) (its data
    /// is in device memory: use [`get`](ArrayView::get)), and for a reinterpreted view whose
    /// elements are not aligned in host memory.
    fn index(&self, idx: [usize; N]) -> &T {
        let one = match self.layout.element(&idx) {
            Some(one) => one,
            None => panic!(
                "index {} out of bounds for extent {}",
                Index::new(idx),
                self.layout.extent
            ),
        };
        match self.shared.host_run::<T, 1>(&one, "indexing") {
            // SAFETY: as in `ArrayView::data`.
            Ok(p) => unsafe { &*p },
            Err(e) => panic!("{e}"),
        }
    }
}

impl<T: DeviceElement, const N: usize> std::ops::Index<Index<N>> for ArrayView<'_, T, N> {
    type Output = T;
    /// As indexing with `[usize; N]`.
    fn index(&self, idx: Index<N>) -> &T {
        &self[idx.as_array()]
    }
}

impl<T: DeviceElement> std::ops::Index<usize> for ArrayView<'_, T, 1> {
    type Output = T;
    /// As indexing with `[i]`: rank-1 views take a plain index, as in kernels (so device
    /// functions that write `v[i]` also run on the host).
    fn index(&self, i: usize) -> &T {
        &self[[i]]
    }
}

impl<T: DeviceElement, const N: usize> Clone for ArrayView<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayView {
            shared: self.shared.clone(),
            layout: self.layout,
            _data: PhantomData,
        }
    }
}

impl<'a, T: DeviceElement, const N: usize> ArrayViewMut<'a, T, N> {
    /// A writable view of `data` with the given extent.
    ///
    /// Errors as for [`ArrayView::new`].
    pub fn new(extent: impl Into<Extent<N>>, data: &'a mut [T]) -> Result<Self, Error> {
        let extent = extent.into();
        check_extent(&extent, data.len())?;
        let bytes: &mut [u8] = crate::scalar::as_bytes_mut(data);
        Ok(ArrayViewMut {
            shared: Shared::host(bytes.as_mut_ptr(), bytes.len()),
            layout: Layout::dense(extent),
            _data: PhantomData,
        })
    }

    pub(crate) fn from_shared(shared: Arc<Shared>, layout: Layout<N>) -> Self {
        ArrayViewMut {
            shared,
            layout,
            _data: PhantomData,
        }
    }

    // Read-only views derived from a writable one borrow it (it cannot launch meanwhile).
    read_methods!('_);

    /// The element at `idx` (synchronized first), or `Ok(None)` when it is out of bounds.
    pub fn get(&self, idx: impl Into<Index<N>>) -> Result<Option<T>, Error> {
        match self.layout.element(&idx.into().as_array()) {
            Some(one) => Ok(self.shared.gather::<T, 1>(&one)?.first().copied()),
            None => Ok(None),
        }
    }

    /// A read-only view of the same data (C++ AMP's conversion to `array_view<const T, N>`),
    /// e.g. to pass it to a kernel parameter of type `ArrayView`.
    pub fn as_view(&self) -> ArrayView<'_, T, N> {
        self.derive(self.layout)
    }

    /// A writable section: the elements from `origin` spanning `extent` (C++ AMP's
    /// `section`). Borrows this view mutably and shares its data: a launch that writes the
    /// section writes this view's data.
    ///
    /// Errors: [`Error::SectionOutOfBounds`] when it reaches outside the view.
    pub fn section_mut(
        &mut self,
        origin: impl Into<Index<N>>,
        extent: impl Into<Extent<N>>,
    ) -> Result<ArrayViewMut<'_, T, N>, Error> {
        let layout = self
            .layout
            .section(origin.into().as_array(), extent.into())?;
        Ok(self.derive_mut(layout))
    }

    /// [`view_as`](Self::view_as), writable.
    pub fn view_as_mut<const M: usize>(
        &mut self,
        extent: impl Into<Extent<M>>,
    ) -> Result<ArrayViewMut<'_, T, M>, Error> {
        let layout = self.layout.view_as(extent.into())?;
        Ok(self.derive_mut(layout))
    }

    /// [`view_as_mut`](Self::view_as_mut) of a view given up for it, keeping its lifetime.
    pub(crate) fn into_view_as<const M: usize>(
        self,
        extent: impl Into<Extent<M>>,
    ) -> Result<ArrayViewMut<'a, T, M>, Error> {
        let layout = self.layout.view_as(extent.into())?;
        Ok(ArrayViewMut {
            shared: self.shared.clone(),
            layout,
            _data: PhantomData,
        })
    }

    /// [`reinterpret_as`](Self::reinterpret_as), writable.
    pub fn reinterpret_as_mut<U: DeviceElement>(
        &mut self,
    ) -> Result<ArrayViewMut<'_, U, 1>, Error> {
        let layout = reinterpret::<T, U, N>(&self.layout, true)?;
        Ok(ArrayViewMut {
            shared: self.shared.clone(),
            layout,
            _data: PhantomData,
        })
    }

    fn derive_mut<const M: usize>(&mut self, layout: Layout<M>) -> ArrayViewMut<'_, T, M> {
        ArrayViewMut {
            shared: self.shared.clone(),
            layout,
            _data: PhantomData,
        }
    }

    /// Declares the current contents irrelevant (C++ AMP's `discard_data`): the next launch
    /// does not copy the host data to the device (use it for pure outputs). Applies to all
    /// the data this view shares with its parent and sections.
    pub fn discard_data(&mut self) {
        // A hint: a view of `bool`s keeps its data, since a device copy that a launch leaves
        // partly unwritten would bring bytes other than 0 and 1 back into the host's `bool`s.
        if !crate::scalar::is_bool::<T>() {
            self.shared.discard();
        }
    }

    /// Copies the device results back into the host data if a launch wrote them and they
    /// were not copied back yet (C++ AMP's `synchronize`). A no-op for views of an
    /// [`Array`](crate::Array) and when the kernel wrote the host memory itself.
    pub fn synchronize(&mut self) -> Result<(), Error> {
        let _span = tracing::info_span!("synchronize").entered();
        self.shared.sync_host(&mut lock(&self.shared.state))
    }

    /// Starts [`synchronize`](Self::synchronize) and returns a future that finishes it
    /// (C++ AMP's `synchronize_async`): the device-to-host transfer runs in the background
    /// when the device memory is not host-visible; the copy into the host slice happens in
    /// [`CompletionFuture::wait`]. The view stays borrowed until then.
    pub fn synchronize_async(&mut self) -> Result<CompletionFuture<'_>, Error> {
        self.shared.synchronize_async()
    }

    /// Declares that the host data changed outside the view (C++ AMP's `refresh`): every
    /// device copy is out of date and the next launch copies the host data again. (Writes
    /// through [`data_mut`](Self::data_mut) and [`set`](Self::set) do this themselves.)
    pub fn refresh(&mut self) {
        self.shared.refresh();
    }

    /// The host slice of a contiguous view of host data, synchronized first.
    ///
    /// Errors: [`Error::NotContiguous`] for a section with gaps, [`Error::NotHostAccessible`]
    /// for a view of an [`Array`](crate::Array) (use [`to_vec`](Self::to_vec)).
    pub fn data(&mut self) -> Result<&[T], Error> {
        let p = self.shared.host_run::<T, N>(&self.layout, "data")?;
        // SAFETY: as in `ArrayView::data`; `&mut self` excludes launches.
        Ok(unsafe { std::slice::from_raw_parts(p, self.layout.extent.size()) })
    }

    /// The host slice for writing, synchronized first; the next launch copies it to the
    /// device again. Errors as for [`data`](Self::data).
    pub fn data_mut(&mut self) -> Result<&mut [T], Error> {
        let p = self.shared.host_run::<T, N>(&self.layout, "data_mut")?;
        self.shared.refresh();
        // SAFETY: as in `data`; `&mut self` excludes every other access to the family.
        Ok(unsafe { std::slice::from_raw_parts_mut(p, self.layout.extent.size()) })
    }

    /// Sets the element at `idx` to `value`. Errors: [`Error::SectionOutOfBounds`] when
    /// `idx` is out of bounds.
    pub fn set(&mut self, idx: impl Into<Index<N>>, value: T) -> Result<(), Error> {
        let idx = idx.into();
        match self.layout.element(&idx.as_array()) {
            Some(one) => self.shared.scatter(&one, &[value]),
            None => Err(Error::SectionOutOfBounds {
                what: "the index",
                requested: idx.to_string(),
                extent: self.layout.extent.to_string(),
            }),
        }
    }

    /// Overwrites the view's elements with `data` (row-major). Errors:
    /// [`Error::CopyExtentMismatch`] when `data.len()` differs from the element count.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.layout.extent.size() {
            return Err(Error::CopyExtentMismatch {
                src: dims_list(&[data.len()]),
                dst: self.layout.extent.to_string(),
            });
        }
        self.shared.scatter(&self.layout, data)
    }
}

/// Projections (C++ AMP's `view[i]`): Rust's `Index` cannot return a view by value, so they
/// are methods.
macro_rules! projections {
    ($($n:literal => $m:literal),*) => {$(
        impl<'a, T: DeviceElement> ArrayView<'a, T, $n> {
            /// Row `i` of dimension 0 as a view of rank one less (C++ AMP's `view[i]`).
            /// Shares the data. Errors: [`Error::SectionOutOfBounds`] when `i` is out of
            /// bounds.
            pub fn project(&self, i: usize) -> Result<ArrayView<'a, T, $m>, Error> {
                let layout = self.layout.project::<$m>(i)?;
                Ok(self.derive(layout))
            }
        }

        impl<'a, T: DeviceElement> ArrayViewMut<'a, T, $n> {
            /// Row `i` of dimension 0 as a read-only view of rank one less (C++ AMP's
            /// `view[i]`). Errors: [`Error::SectionOutOfBounds`] when `i` is out of bounds.
            pub fn project(&self, i: usize) -> Result<ArrayView<'_, T, $m>, Error> {
                let layout = self.layout.project::<$m>(i)?;
                Ok(self.derive(layout))
            }

            /// Row `i` of dimension 0 as a writable view of rank one less (C++ AMP's
            /// `view[i]`). Errors: [`Error::SectionOutOfBounds`] when `i` is out of bounds.
            pub fn project_mut(&mut self, i: usize) -> Result<ArrayViewMut<'_, T, $m>, Error> {
                let layout = self.layout.project::<$m>(i)?;
                Ok(self.derive_mut(layout))
            }
        }
    )*};
}

projections!(2 => 1, 3 => 2, 4 => 3);

// The views' `Drop`s do nothing themselves; they exist for the borrow checker. A type without
// `Drop` keeps its borrow `'a` only until its last use, so rustc would accept freeing or
// reusing the borrowed slice while the view is still alive, and the family's last drop (which
// copies device results back into the slice, and waits for device work on an imported copy of
// it) would then write freed memory. With a `Drop`, the borrow lasts until the view is gone:
// dropping or touching the slice first is E0505/E0502.
impl<T: DeviceElement, const N: usize> Drop for ArrayView<'_, T, N> {
    fn drop(&mut self) {}
}

impl<T: DeviceElement, const N: usize> Drop for ArrayViewMut<'_, T, N> {
    fn drop(&mut self) {}
}

impl<T: DeviceElement, const N: usize> fmt::Debug for ArrayView<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayView")
            .field("extent", &self.layout.extent)
            .field("offset", &self.layout.offset)
            .field("strides", &self.layout.strides)
            .finish_non_exhaustive()
    }
}

impl<T: DeviceElement, const N: usize> fmt::Debug for ArrayViewMut<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayViewMut")
            .field("extent", &self.layout.extent)
            .field("offset", &self.layout.offset)
            .field("strides", &self.layout.strides)
            .finish_non_exhaustive()
    }
}

/// The buffer-argument plumbing both view types share.
macro_rules! buffer_access {
    ($ty:ident) => {
        impl<T: DeviceElement, const N: usize> BufferAccess for $ty<'_, T, N> {
            fn elem(&self) -> ElemType {
                T::ELEM
            }
            fn dims(&self) -> &[usize] {
                self.layout.extent.as_slice()
            }
            fn offset(&self) -> usize {
                self.layout.offset
            }
            fn strides(&self) -> Vec<usize> {
                self.layout.strides[..N.saturating_sub(1)].to_vec()
            }
            fn home(&self) -> Option<&Accelerator> {
                self.shared.home()
            }
            fn prepare(
                &self,
                acc: &Accelerator,
                queue: &std::sync::Arc<crate::device::Queue>,
            ) -> Result<Prepared, Error> {
                self.shared.prepare(acc, queue)
            }
            fn mark_written(&self, _acc: &Accelerator) {
                self.shared.mark_written();
            }
            fn prepare_native(&self, acc: &Accelerator) -> Result<NativePrepared, Error> {
                self.shared.prepare_native(acc)
            }
            fn mark_written_native(&self) {
                self.shared.mark_written_native();
            }
        }

        impl<T: DeviceElement, const N: usize> DeviceBuffer for $ty<'_, T, N> {}
    };
}

buffer_access!(ArrayView);
buffer_access!(ArrayViewMut);

impl<T: DeviceElement, const N: usize> DeviceBufferMut for ArrayViewMut<'_, T, N> {}

/// Crate access to a view's parts (for `copy`).
pub(crate) trait ViewParts<T: DeviceElement, const N: usize> {
    fn parts(&self) -> (&Arc<Shared>, &Layout<N>);
}

impl<T: DeviceElement, const N: usize> ViewParts<T, N> for ArrayView<'_, T, N> {
    fn parts(&self) -> (&Arc<Shared>, &Layout<N>) {
        (&self.shared, &self.layout)
    }
}

impl<T: DeviceElement, const N: usize> ViewParts<T, N> for ArrayViewMut<'_, T, N> {
    fn parts(&self) -> (&Arc<Shared>, &Layout<N>) {
        (&self.shared, &self.layout)
    }
}
