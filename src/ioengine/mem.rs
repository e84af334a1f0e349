//! The memory behind a job's I/O buffers (fio's `memory.c`): `mem=`
//! (`iomem=`) picks where it comes from, `hugepage-size` rounds the huge
//! kinds, `iomem_align` offsets the first buffer from a page boundary.
//!
//! | `mem=` | memory |
//! |---|---|
//! | `malloc` (default) | the heap, page aligned |
//! | `shm`, `shmhuge` | a System V shared memory segment (`SHM_HUGETLB`) |
//! | `mmap` | an anonymous private mapping, or with `:FILE` a private mapping of FILE, created and sized by the job |
//! | `mmaphuge` | an anonymous `MAP_HUGETLB` mapping, or with `:FILE` a shared mapping of FILE (a file on hugetlbfs) |
//! | `mmapshared` | an anonymous private mapping (as fio), or with `:FILE` a shared mapping of FILE |
//!
//! A FILE that did not exist is removed when the memory is freed; one that
//! did is kept. The errors carry fio's `td_verror` source and function
//! (`file:memory.c:170, func=mmap, error=Cannot allocate memory`).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use super::buf::{page_size, AlignedBuf};

/// fio's memory types (`enum fio_memtype`), without `cudamalloc`, which a
/// fio built without CUDA does not offer either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemKind {
    Malloc,
    Shm,
    ShmHuge,
    Mmap,
    MmapHuge,
    MmapShared,
}

impl MemKind {
    /// The kind called `name` in `mem=`.
    pub(crate) fn from_name(name: &str) -> Option<MemKind> {
        Some(match name {
            "malloc" => MemKind::Malloc,
            "shm" => MemKind::Shm,
            "shmhuge" => MemKind::ShmHuge,
            "mmap" => MemKind::Mmap,
            "mmaphuge" => MemKind::MmapHuge,
            "mmapshared" => MemKind::MmapShared,
            _ => return None,
        })
    }

    /// Whether `mem=KIND:FILE` maps FILE (fio reads the postfix only for
    /// these).
    pub(crate) fn takes_file(self) -> bool {
        matches!(
            self,
            MemKind::Mmap | MemKind::MmapHuge | MemKind::MmapShared
        )
    }

    fn huge(self) -> bool {
        matches!(self, MemKind::ShmHuge | MemKind::MmapHuge)
    }
}

/// How a job's buffer memory is had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemSpec {
    pub(crate) kind: MemKind,
    /// `mem=mmap:FILE` (and `mmaphuge`, `mmapshared`).
    pub(crate) file: Option<PathBuf>,
    /// `hugepage-size`: the huge kinds round their size up to it.
    pub(crate) hugepage_size: u64,
    /// `iomem_align`: the first buffer starts this many bytes after a page
    /// boundary.
    pub(crate) align: usize,
}

impl Default for MemSpec {
    fn default() -> Self {
        MemSpec {
            kind: MemKind::Malloc,
            file: None,
            hugepage_size: 2 << 20,
            align: 0,
        }
    }
}

/// Why the memory could not be had, as fio reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemError {
    pub(crate) errno: i32,
    /// fio's `td_verror` place (`memory.c:170`).
    pub(crate) src: &'static str,
    /// fio's `td_verror` function (`mmap`, `shmget`, `open mmap file`).
    pub(crate) func: &'static str,
    /// The lines fio logs on stderr besides (`fio: no huge pages
    /// available, ...`), newline included.
    pub(crate) notes: Vec<String>,
}

impl MemError {
    fn errno(src: &'static str, func: &'static str, errno: i32) -> MemError {
        MemError {
            errno,
            src,
            func,
            notes: Vec::new(),
        }
    }

    fn last(src: &'static str, func: &'static str) -> MemError {
        let errno = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        MemError::errno(src, func, errno)
    }
}

/// A job's I/O memory: `len` usable bytes from [`IoMemory::as_mut_ptr`],
/// zeroed (or, for `mem=mmap:FILE` of a file that held data, that data).
pub(crate) struct IoMemory {
    start: NonNull<u8>,
    len: usize,
    /// Owns the memory; freed when dropped.
    #[allow(dead_code)]
    backing: Backing,
}

enum Backing {
    Heap(AlignedBuf),
    /// An attached System V segment (already marked for removal).
    Shm(NonNull<libc::c_void>),
    Map {
        addr: NonNull<libc::c_void>,
        len: usize,
        file: Option<MapFile>,
    },
}

/// The file behind `mem=mmap:FILE`.
struct MapFile {
    fd: libc::c_int,
    path: PathBuf,
    /// The file existed before the job: it stays.
    keep: bool,
}

impl MapFile {
    fn release(self) {
        // SAFETY: `fd` was opened by `map` and is closed only here.
        unsafe { libc::close(self.fd) };
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

// SAFETY: the memory is owned exclusively by this value, like a `Box<[u8]>`;
// the raw pointers are never shared outside it.
unsafe impl Send for IoMemory {}

impl IoMemory {
    /// Allocate `len` usable bytes as `spec` says (fio's `init_io_u` sizing:
    /// `iomem_align` adds a page and the offset; the huge kinds round the
    /// total up to `hugepage-size` with fio's mask arithmetic).
    pub(crate) fn allocate(spec: &MemSpec, len: usize) -> Result<IoMemory, MemError> {
        let page = page_size();
        // fio's own failure for buffer memory it cannot have.
        let no_memory = || MemError::errno("memory.c:332", "iomem allocation", libc::ENOMEM);
        let mut total = len;
        if spec.align > 0 {
            total = total
                .checked_add(page - 1)
                .and_then(|t| t.checked_add(spec.align))
                .ok_or_else(no_memory)?;
        }
        let needed = total;
        if spec.kind.huge() {
            total = round_huge(total, spec.hugepage_size).ok_or_else(no_memory)?;
        }
        if total < needed {
            // `hugepage-size=0`: fio asks for 0 bytes, which the kernel refuses.
            let src = if spec.kind == MemKind::ShmHuge {
                "memory.c:78"
            } else {
                "memory.c:170"
            };
            let func = if spec.kind == MemKind::ShmHuge {
                "shmget"
            } else {
                "mmap"
            };
            return Err(MemError::errno(src, func, libc::EINVAL));
        }
        let backing = match spec.kind {
            MemKind::Malloc => {
                Backing::Heap(AlignedBuf::try_with_align(total, page).ok_or_else(no_memory)?)
            }
            MemKind::Shm | MemKind::ShmHuge => shm(spec.kind, total)?,
            MemKind::Mmap | MemKind::MmapHuge | MemKind::MmapShared => map(spec, total)?,
        };
        let base: *mut u8 = match &backing {
            Backing::Heap(b) => b.as_ptr(),
            Backing::Shm(addr) => addr.as_ptr().cast(),
            Backing::Map { addr, .. } => addr.as_ptr().cast(),
        };
        // fio: PTR_ALIGN(orig_buffer, page_mask) + mem_align, with page - 1
        // + align spare bytes in the total for it. Every backing here is
        // page aligned already.
        let offset = if spec.align > 0 {
            base.align_offset(page) + spec.align
        } else {
            0
        };
        debug_assert!(offset + len <= total);
        Ok(IoMemory {
            // SAFETY: `offset + len <= total`, the size of the allocation,
            // whose start `base` is not null.
            start: unsafe { NonNull::new_unchecked(base.add(offset)) },
            len,
            backing,
        })
    }

    /// The usable bytes.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `start` points at `len` initialised bytes inside the
        // allocation this value owns (zeroed by the allocator, the kernel or
        // the mapped file), and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }

    /// The first usable byte, for engines that hand buffers to the kernel.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.start.as_ptr()
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        match self {
            Backing::Heap(_) => {}
            // SAFETY: `addr` was returned by shmat in `shm` and is detached
            // only here.
            Backing::Shm(addr) => unsafe {
                libc::shmdt(addr.as_ptr());
            },
            Backing::Map { addr, len, file } => {
                // SAFETY: `addr`, `len` are the mapping made in `map`, unmapped
                // only here.
                unsafe { libc::munmap(addr.as_ptr(), *len) };
                if let Some(f) = file.take() {
                    f.release();
                }
            }
        }
    }
}

/// `total` rounded up for huge pages of `hp` bytes: fio's mask arithmetic
/// for a power of two (0 gives 0), a whole number of pages otherwise.
/// `None` when the rounded size does not fit in memory's addresses.
fn round_huge(total: usize, hp: u64) -> Option<usize> {
    let hp = usize::try_from(hp).unwrap_or(usize::MAX);
    if hp == 0 {
        Some(0)
    } else if hp.is_power_of_two() {
        Some(total.checked_add(hp - 1)? & !(hp - 1))
    } else {
        total.div_ceil(hp).checked_mul(hp)
    }
}

/// fio's `alloc_mem_shm`.
fn shm(kind: MemKind, total: usize) -> Result<Backing, MemError> {
    let mut flags = libc::IPC_CREAT | 0o600;
    if kind == MemKind::ShmHuge {
        flags |= libc::SHM_HUGETLB;
    }
    // SAFETY: plain system call on values.
    let id = unsafe { libc::shmget(libc::IPC_PRIVATE, total, flags) };
    if id < 0 {
        let mut e = MemError::last("memory.c:78", "shmget");
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if !root && matches!(e.errno, libc::ENOMEM | libc::EPERM) {
            e.notes
                .push("fio: you may need to run this job as root\n".into());
        }
        if kind == MemKind::ShmHuge {
            let note = match e.errno {
                libc::EINVAL => Some(
                    "fio: check that you have free huge pages and that hugepage-size is correct.\n",
                ),
                libc::ENOSYS => Some("fio: your system does not appear to support huge pages.\n"),
                libc::ENOMEM => {
                    Some("fio: no huge pages available, do you need to allocate some? See HOWTO.\n")
                }
                _ => None,
            };
            e.notes.extend(note.map(String::from));
        }
        return Err(e);
    }
    // SAFETY: `id` is the segment just created; a null address lets the
    // kernel choose.
    let addr = unsafe { libc::shmat(id, std::ptr::null(), 0) };
    let failed = addr as isize == -1;
    let err = failed.then(|| MemError::last("memory.c:101", "shmat"));
    // The segment goes away once detached (or when rfio exits), whatever
    // happens to this process. SAFETY: `id` is a valid segment id.
    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
    match (err, NonNull::new(addr)) {
        (None, Some(addr)) => Ok(Backing::Shm(addr)),
        (err, _) => {
            Err(err.unwrap_or_else(|| MemError::errno("memory.c:101", "shmat", libc::EINVAL)))
        }
    }
}

/// fio's `alloc_mem_mmap`.
fn map(spec: &MemSpec, total: usize) -> Result<Backing, MemError> {
    let mut flags = 0;
    if spec.kind == MemKind::MmapHuge && spec.file.is_none() {
        flags |= libc::MAP_HUGETLB;
    }
    let mut file = None;
    if let Some(path) = &spec.file {
        let f = open_map_file(path, spec.kind, total)?;
        flags |= if spec.kind == MemKind::Mmap {
            libc::MAP_PRIVATE
        } else {
            libc::MAP_SHARED
        };
        file = Some(f);
    } else {
        flags |= libc::MAP_ANONYMOUS | libc::MAP_PRIVATE;
    }
    let fd = file.as_ref().map_or(-1, |f| f.fd);
    // SAFETY: a new mapping at an address the kernel picks; `fd` is open or
    // -1 for an anonymous one.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            total,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            fd,
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        let e = MemError::last("memory.c:170", "mmap");
        if let Some(f) = file {
            f.release();
        }
        return Err(e);
    }
    Ok(Backing::Map {
        addr: NonNull::new(addr).expect("mmap never maps page 0 here"),
        len: total,
        file,
    })
}

/// Open (creating) the file of `mem=mmap:FILE`; `mmap` sizes it to the
/// memory (fio's ftruncate), the shared kinds take it as it is.
///
/// fio 3.33 does not size a shared FILE, so a FILE shorter than the memory
/// kills it with SIGBUS when the buffers are first touched. rfio sizes a
/// FILE it creates, and refuses an existing one that is too short
/// (`EINVAL` from `mmap`), rather than crash.
fn open_map_file(path: &Path, kind: MemKind, total: usize) -> Result<MapFile, MemError> {
    let keep = std::fs::symlink_metadata(path).is_ok();
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return Err(MemError::errno(
            "memory.c:146",
            "open mmap file",
            libc::EINVAL,
        ));
    };
    // SAFETY: `c` is a NUL-terminated path.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_CLOEXEC,
            0o644,
        )
    };
    if fd < 0 {
        return Err(MemError::last("memory.c:146", "open mmap file"));
    }
    let f = MapFile {
        fd,
        path: path.to_path_buf(),
        keep,
    };
    let truncate = |len: usize| {
        // SAFETY: `fd` is open for writing.
        (unsafe { libc::ftruncate(fd, len as libc::off_t) }) == 0
    };
    if kind == MemKind::Mmap || !keep {
        if !truncate(total) {
            let e = MemError::last("memory.c:153", "truncate mmap file");
            f.release();
            return Err(e);
        }
    } else {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let is_file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if is_file && size < total as u64 {
            let mut e = MemError::errno("memory.c:170", "mmap", libc::EINVAL);
            e.notes.push(format!(
                "rfio: {} holds {size} bytes, less than the {total} bytes of I/O memory mapped from it\n",
                path.display()
            ));
            f.release();
            return Err(e);
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: MemKind) -> MemSpec {
        MemSpec {
            kind,
            ..MemSpec::default()
        }
    }

    #[test]
    fn memory_that_cannot_be_had_is_enomem_not_an_abort() {
        for (kind, len, align) in [
            (MemKind::Malloc, 1usize << 60, 0),
            (MemKind::Malloc, usize::MAX, 0),
            (MemKind::Malloc, usize::MAX - 10, 4096),
            (MemKind::Mmap, 1 << 60, 0),
            (MemKind::MmapHuge, usize::MAX - 10, 0),
        ] {
            let spec = MemSpec {
                kind,
                align,
                ..MemSpec::default()
            };
            let e = IoMemory::allocate(&spec, len)
                .err()
                .expect("no such memory");
            assert_eq!(e.errno, libc::ENOMEM, "{kind:?} {len}");
        }
        let e = IoMemory::allocate(&MemSpec::default(), 1 << 60)
            .err()
            .unwrap();
        assert_eq!((e.src, e.func), ("memory.c:332", "iomem allocation"));
    }

    #[test]
    fn kinds_by_name() {
        assert_eq!(MemKind::from_name("mmaphuge"), Some(MemKind::MmapHuge));
        assert_eq!(MemKind::from_name("cudamalloc"), None);
        assert!(MemKind::MmapShared.takes_file());
        assert!(!MemKind::Shm.takes_file());
    }

    #[test]
    fn every_plain_kind_gives_zeroed_page_aligned_memory() {
        for kind in [
            MemKind::Malloc,
            MemKind::Shm,
            MemKind::Mmap,
            MemKind::MmapShared,
        ] {
            let mut m = IoMemory::allocate(&spec(kind), 3 * 4096).unwrap();
            assert_eq!(m.len(), 3 * 4096);
            assert_eq!(m.as_mut_ptr() as usize % page_size(), 0, "{kind:?}");
            let s = m.as_mut_slice();
            assert!(s.iter().all(|&b| b == 0), "{kind:?}");
            s.fill(0xa5);
        }
    }

    #[test]
    fn iomem_align_offsets_the_start_from_a_page() {
        for kind in [MemKind::Malloc, MemKind::Mmap] {
            let s = MemSpec {
                align: 512,
                ..spec(kind)
            };
            let mut m = IoMemory::allocate(&s, 8192).unwrap();
            assert_eq!(m.as_mut_ptr() as usize % page_size(), 512);
            m.as_mut_slice().fill(1);
        }
    }

    #[test]
    fn mmap_file_is_sized_then_removed_unless_it_existed() {
        let dir = std::env::temp_dir().join(format!("rfio-mem-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("buf");
        let s = MemSpec {
            file: Some(path.clone()),
            ..spec(MemKind::Mmap)
        };
        {
            let mut m = IoMemory::allocate(&s, 8192).unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 8192);
            m.as_mut_slice().fill(7);
        }
        assert!(!path.exists(), "a file the job created is removed");
        std::fs::write(&path, b"x").unwrap();
        drop(IoMemory::allocate(&s, 4096).unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096, "kept");
        // A shared mapping of an existing file too short for it is refused.
        let shared = MemSpec {
            kind: MemKind::MmapShared,
            ..s.clone()
        };
        let e = IoMemory::allocate(&shared, 8192).err().unwrap();
        assert_eq!(
            (e.errno, e.src, e.func),
            (libc::EINVAL, "memory.c:170", "mmap")
        );
        let missing = MemSpec {
            file: Some(dir.join("no/such/dir")),
            ..s
        };
        let e = IoMemory::allocate(&missing, 4096).err().unwrap();
        assert_eq!(
            (e.errno, e.src, e.func),
            (libc::ENOENT, "memory.c:146", "open mmap file")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn huge_kinds_without_huge_pages_fail_as_fio() {
        let free = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("HugePages_Free:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        });
        if free != Some(0) {
            return; // huge pages configured (or unknown): nothing to check
        }
        let e = IoMemory::allocate(&spec(MemKind::MmapHuge), 4096)
            .err()
            .unwrap();
        assert_eq!(
            (e.errno, e.src, e.func),
            (libc::ENOMEM, "memory.c:170", "mmap")
        );
        let e = IoMemory::allocate(&spec(MemKind::ShmHuge), 4096)
            .err()
            .unwrap();
        assert_eq!((e.src, e.func), ("memory.c:78", "shmget"));
    }
}
