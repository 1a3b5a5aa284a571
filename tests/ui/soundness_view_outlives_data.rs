//! A view's borrow of host data lasts until the view is dropped: the family's last drop
//! copies device results back into that memory, so freeing, moving or touching the data while
//! any view of it (or anything derived from it) is alive is a borrow error.
use amp::prelude::*;

#[kernel(amp)]
fn set7(idx: Index<1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = 7;
}

#[kernel(amp)]
fn copy(idx: Index<1>, a: ArrayView<u32, 1>, out: ArrayViewMut<u32, 1>) {
    out[idx] = a[idx];
}

// The writable view's data dropped while the view is alive (E0505).
fn writable_view_data_dropped() -> Result<(), amp::Error> {
    let mut out = vec![0u32; 1024];
    let mut view = ArrayViewMut::new([1024], &mut out)?;
    parallel_for_each(view.extent(), set7(&mut view))?;
    drop(out);
    let _other = vec![1u32; 1024];
    Ok(())
}

// A read-only view's data dropped before the launch that uploads it is done with it (E0505).
fn read_view_data_dropped() -> Result<(), amp::Error> {
    let a = vec![1u32; 16];
    let mut out = vec![0u32; 16];
    let view = ArrayView::new([16], &a)?;
    let mut result = ArrayViewMut::new([16], &mut out)?;
    drop(a);
    parallel_for_each(result.extent(), copy(&view, &mut result))?;
    Ok(())
}

// The data read on the host while a writable view that may still write it is alive (E0502).
fn data_read_while_view_lives() -> Result<(), amp::Error> {
    let mut out = vec![0u32; 16];
    let mut view = ArrayViewMut::new([16], &mut out)?;
    parallel_for_each(view.extent(), set7(&mut view))?;
    println!("{}", out[0]);
    Ok(())
}

// A section and a projection keep the data borrowed as long as they live (E0505).
fn derived_views_outlive_data() -> Result<(), amp::Error> {
    let data = vec![0u32; 16];
    let view = ArrayView::new([4, 4], &data)?;
    let row = view.project(1)?;
    let section = view.section([1, 1], [2, 2])?;
    drop(view);
    drop(data);
    let _ = (row, section);
    Ok(())
}

// A view of some rows (what `amp::multi::Part::view_mut` returns) keeps them borrowed (E0505).
fn multi_part_view_outlives_rows() -> Result<(), amp::Error> {
    let mut rows = vec![0u32; 8];
    let part_view = ArrayViewMut::<u32, 1>::new([8], &mut rows)?;
    drop(rows);
    drop(part_view);
    Ok(())
}

fn main() {
    let _ = writable_view_data_dropped();
    let _ = read_view_data_dropped();
    let _ = data_read_while_view_lives();
    let _ = derived_views_outlive_data();
    let _ = multi_part_view_outlives_rows();
}
