//! An I/O buffer aligned for `O_DIRECT` (the heap memory of `mem=malloc`,
//! which `mem.rs` builds on), and the system's page size.
//!
//! Like fio's `malloc`ed buffers, a large buffer costs no memory until it
//! is touched: from [`MAP_FROM`] bytes up it is an anonymous private
//! mapping, which the kernel fills with zeros page by page as the pages are
//! first used. (The allocator's aligned zeroed memory would be cleared byte
//! by byte up front, making a read-only job's whole pool resident.) Smaller
//! buffers come from the heap.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// The alignment of every I/O buffer: enough for `O_DIRECT` on 4 KiB sectors.
pub(crate) const ALIGN: usize = 4096;

/// Buffers of this many bytes or more are mapped rather than taken from
/// the heap (glibc's own default threshold for mapping an allocation).
pub(crate) const MAP_FROM: usize = 128 * 1024;

/// The system page size.
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

/// A zero-initialised byte buffer whose start is aligned to [`ALIGN`].
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    /// The usable length (only the unit tests look at the bytes).
    #[cfg(test)]
    len: usize,
    memory: Memory,
}

/// Where the bytes of an [`AlignedBuf`] live.
enum Memory {
    /// `alloc_zeroed` with this layout.
    Heap(Layout),
    /// An anonymous mapping of `len` bytes at `base` (the buffer starts at
    /// the first aligned address in it).
    Map {
        base: NonNull<libc::c_void>,
        len: usize,
    },
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
    pub(crate) fn with_align(len: usize, align: usize) -> AlignedBuf {
        AlignedBuf::try_with_align(len, align).expect("I/O buffer memory")
    }

    /// As [`AlignedBuf::with_align`], `None` when the memory cannot be had
    /// (or `len` is beyond what an allocation may be).
    pub(crate) fn try_with_align(len: usize, align: usize) -> Option<AlignedBuf> {
        let layout = Layout::from_size_align(len.max(1), align.max(ALIGN)).ok()?;
        if layout.size() >= MAP_FROM {
            return AlignedBuf::map(layout);
        }
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw)?;
        Some(AlignedBuf {
            ptr,
            #[cfg(test)]
            len: layout.size(),
            memory: Memory::Heap(layout),
        })
    }

    /// `layout` as an anonymous mapping, with room to move the start up to
    /// an alignment wider than a page.
    fn map(layout: Layout) -> Option<AlignedBuf> {
        let page = page_size();
        let len = layout
            .size()
            .checked_add(layout.align().saturating_sub(page))?;
        // SAFETY: a new private anonymous mapping at an address the kernel
        // picks; nothing else is touched.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let base = NonNull::new(base)?;
        let start: *mut u8 = base.as_ptr().cast();
        // The mapping is page aligned; a wider alignment is found within
        // the `align - page` spare bytes.
        let skip = start.align_offset(layout.align());
        debug_assert!(skip + layout.size() <= len);
        Some(AlignedBuf {
            // SAFETY: `skip + size <= len`: the start stays inside the
            // mapping, which is not at address 0.
            ptr: unsafe { NonNull::new_unchecked(start.add(skip)) },
            #[cfg(test)]
            len: layout.size(),
            memory: Memory::Map { base, len },
        })
    }

    /// The whole buffer.
    #[cfg(test)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` points at `len` initialised bytes that we own:
        // zeroed by the allocator, or by the kernel for a mapping (an
        // anonymous mapping reads as zeros until written). `&mut self`
        // makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
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

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        match self.memory {
            // SAFETY: `ptr` was allocated in `try_with_align` with exactly
            // this layout and is freed only here.
            Memory::Heap(layout) => unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) },
            // SAFETY: `base`, `len` are the mapping made in `map`, unmapped
            // only here.
            Memory::Map { base, len } => unsafe {
                libc::munmap(base.as_ptr(), len);
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        for len in [8192, MAP_FROM, 3 * MAP_FROM + 100] {
            let mut b = AlignedBuf::new(len);
            assert_eq!(b.len(), len);
            let s = b.as_mut_slice();
            assert_eq!(s.as_ptr() as usize % ALIGN, 0);
            assert!(s.iter().all(|&x| x == 0), "{len}");
            s.fill(0x5a);
            assert!(s.iter().all(|&x| x == 0x5a), "{len}");
        }
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
        let mut b = AlignedBuf::with_align(MAP_FROM + 1, 1 << 21);
        assert_eq!(b.as_ptr() as usize % (1 << 21), 0);
        assert_eq!(b.len(), MAP_FROM + 1);
        let s = b.as_mut_slice();
        s[MAP_FROM] = 1;
        assert_eq!(s.iter().map(|&x| u64::from(x)).sum::<u64>(), 1);
    }

    /// A large buffer is memory only where it was written.
    #[test]
    fn large_buffers_are_not_resident_until_touched() {
        let len = 64 << 20;
        let mut b = AlignedBuf::new(len);
        let page = page_size();
        let resident = |b: &AlignedBuf| {
            let pages = len.div_ceil(page);
            let mut vec = vec![0u8; pages];
            // SAFETY: the range is the buffer's own page-aligned mapping
            // and `vec` holds one byte per page of it.
            let r = unsafe { libc::mincore(b.as_ptr().cast(), len, vec.as_mut_ptr()) };
            assert_eq!(r, 0);
            vec.iter().filter(|&&v| v & 1 != 0).count()
        };
        assert_eq!(resident(&b), 0, "nothing touched yet");
        b.as_mut_slice()[..1 << 20].fill(1);
        let touched = resident(&b);
        assert!(
            touched >= (1 << 20) / page && touched < len / page / 2,
            "{touched} pages resident"
        );
    }
}
