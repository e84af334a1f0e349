//! An I/O buffer aligned for `O_DIRECT` (the heap memory of `mem=malloc`,
//! see [`super::mem`]).

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// The alignment of every I/O buffer: enough for `O_DIRECT` on 4 KiB sectors.
pub const ALIGN: usize = 4096;

/// A zero-initialised byte buffer whose start is aligned to [`ALIGN`].
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer owns its allocation exclusively, like a `Box<[u8]>`.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A buffer of `len` bytes (at least 1 is allocated).
    pub fn new(len: usize) -> AlignedBuf {
        AlignedBuf::with_align(len, ALIGN)
    }

    /// A buffer of `len` bytes whose start is aligned to `align` (a power
    /// of two; [`ALIGN`] at least).
    pub fn with_align(len: usize, align: usize) -> AlignedBuf {
        AlignedBuf::try_with_align(len, align).expect("I/O buffer memory")
    }

    /// As [`AlignedBuf::with_align`], `None` when the memory cannot be had
    /// (or `len` is beyond what an allocation may be).
    pub fn try_with_align(len: usize, align: usize) -> Option<AlignedBuf> {
        let layout = Layout::from_size_align(len.max(1), align.max(ALIGN)).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw)?;
        Some(AlignedBuf { ptr, layout })
    }

    /// The whole buffer.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` points at `layout.size()` initialised (zeroed) bytes
        // that we own, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// The start of the buffer, for engines that hand it to the kernel.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The start of the buffer, for an owner that hands out its bytes
    /// itself (the I/O memory of `mem=malloc`).
    pub(super) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated in `new` with exactly this layout and
        // is freed only here.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        let mut b = AlignedBuf::new(8192);
        assert_eq!(b.len(), 8192);
        let s = b.as_mut_slice();
        assert_eq!(s.as_ptr() as usize % ALIGN, 0);
        assert!(s.iter().all(|&x| x == 0));
    }

    #[test]
    fn impossible_sizes_are_refused_not_aborted() {
        assert!(AlignedBuf::try_with_align(usize::MAX - 4095, ALIGN).is_none());
        assert!(AlignedBuf::try_with_align(1 << 60, ALIGN).is_none());
    }

    #[test]
    fn wider_alignment() {
        let b = AlignedBuf::with_align(100, 1 << 16);
        assert_eq!(b.as_ptr() as usize % (1 << 16), 0);
        assert_eq!(b.len(), 100);
    }
}
