//! What an engine is, known without starting it: fio's engine `.flags`
//! (`ioengines.h`'s `FIO_*`), typed, plus the few facts rfio adds that fio
//! keeps as engine names in its code. Each engine's file declares its
//! `FLAGS`; the registry hands them out by engine name, so that the plan,
//! the workload and their callers ask a flag, never a name.

/// fio's `enum fio_ioengine_flags` (3.33), as bits, so that an engine
/// declares its flags as fio's `.flags` line reads.
pub(crate) mod fio {
    pub(crate) const SYNCIO: u32 = 1 << 0;
    pub(crate) const RAWIO: u32 = 1 << 1;
    pub(crate) const DISKLESSIO: u32 = 1 << 2;
    pub(crate) const NOEXTEND: u32 = 1 << 3;
    pub(crate) const NODISKUTIL: u32 = 1 << 4;
    pub(crate) const UNIDIR: u32 = 1 << 5;
    pub(crate) const NOIO: u32 = 1 << 6;
    pub(crate) const PIPEIO: u32 = 1 << 7;
    pub(crate) const BARRIER: u32 = 1 << 8;
    pub(crate) const MEMALIGN: u32 = 1 << 9;
    pub(crate) const BIT_BASED: u32 = 1 << 10;
    pub(crate) const FAKEIO: u32 = 1 << 11;
    pub(crate) const NOSTATS: u32 = 1 << 12;
    pub(crate) const NOFILEHASH: u32 = 1 << 13;
    pub(crate) const ASYNCIO_SYNC_TRIM: u32 = 1 << 14;
    pub(crate) const NO_OFFLOAD: u32 = 1 << 15;
    pub(crate) const ASYNCIO_SETS_ISSUE_TIME: u32 = 1 << 16;
    /// fio 3.38's `FIO_ATOMICWRITES` (a bit of rfio's numbering: 3.42
    /// numbers its flags anew).
    pub(crate) const ATOMICWRITES: u32 = 1 << 17;
}

/// An engine's flags: fio's (`FIO_*`), then rfio's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EngineFlags {
    /// `FIO_SYNCIO`: `queue` completes every I/O.
    pub(crate) sync: bool,
    /// `FIO_RAWIO`: some sort of direct or raw I/O.
    pub(crate) raw_io: bool,
    /// `FIO_DISKLESSIO`: no disk involved.
    pub(crate) diskless: bool,
    /// `FIO_NOEXTEND`: cannot extend a file.
    pub(crate) no_extend: bool,
    /// `FIO_NODISKUTIL`: keeps no disk statistics (the job has no
    /// `disk_util`).
    pub(crate) no_disk_util: bool,
    /// `FIO_UNIDIR`: moves data one way only.
    pub(crate) unidir: bool,
    /// `FIO_NOIO`: the job does only pseudo I/O.
    pub(crate) no_io: bool,
    /// `FIO_PIPEIO`: its input or output is not seekable (no pre-read).
    pub(crate) pipe_io: bool,
    /// `FIO_BARRIER`: supports barriers.
    pub(crate) barrier: bool,
    /// `FIO_MEMALIGN`: wants aligned memory.
    pub(crate) mem_align: bool,
    /// `FIO_BIT_BASED`: rates are reported in bits.
    pub(crate) bit_based: bool,
    /// `FIO_FAKEIO`: pretends to do I/O.
    pub(crate) fake_io: bool,
    /// `FIO_NOSTATS`: no I/O statistics.
    pub(crate) no_stats: bool,
    /// `FIO_NOFILEHASH`: files are not hashed for lookup.
    pub(crate) no_file_hash: bool,
    /// `FIO_ASYNCIO_SYNC_TRIM`: asynchronous, except for trims.
    pub(crate) async_sync_trim: bool,
    /// `FIO_NO_OFFLOAD`: cannot run under `io_submit_mode=offload`.
    pub(crate) no_offload: bool,
    /// `FIO_ASYNCIO_SETS_ISSUE_TIME`: its `commit` sets the issue time.
    pub(crate) async_sets_issue_time: bool,
    /// `FIO_ATOMICWRITES` (3.38): writes with `RWF_ATOMIC` under `atomic=1`.
    pub(crate) atomic_writes: bool,

    /// rfio: changes files whatever the job's I/O direction (allocates,
    /// truncates, creates or deletes them): refused under `--readonly`.
    pub(crate) changes_files: bool,
    /// rfio: runs a program the job names (refused in a server's jail).
    pub(crate) runs_programs: bool,
    /// rfio: on buffered files the kernel serves its I/O from the page
    /// cache or hands it to its own worker threads (io_uring's io-wq),
    /// rather than blocking the submit.
    pub(crate) buffered_to_kernel_workers: bool,
    /// rfio: a failed open is recorded but reported as success, so fio
    /// goes on to invalidate the cache of the file it never opened
    /// (fio's falloc engine).
    pub(crate) failed_open_looks_opened: bool,
    /// rfio: where fio 3.33 reports the engine failing to open (or, for
    /// the file operations, to act on) a file: the failed call as the
    /// engine names it (`open`, `delete`) and fio's `file:line`.
    pub(crate) open_error_at: Option<(&'static str, &'static str)>,
    /// rfio: the job's files are directories (fio 3.37's dircreate,
    /// dirstat, dirdelete, whose `.unlink_file` is `rmdir`): `unlink=1`
    /// removes them as directories.
    pub(crate) dirs: bool,
    /// rfio: each file is one block big, the job's smallest (fio's
    /// `get_file_size` of filecreate and dircreate): a job without `size`
    /// or `filesize` does one block per file.
    pub(crate) block_sized_files: bool,
}

/// fio's `generic_open_file`, where the engines that open through it
/// report a failed open: fio 3.33's place, which marks them; the workload
/// prints the job's release's (`release::places::Site::GenericOpen`).
pub(crate) const GENERIC_OPEN: Option<(&str, &str)> = Some(("open", "filesetup.c:805"));

impl EngineFlags {
    /// The flags of fio's `.flags` value `bits` (`fio::SYNCIO | ...`), none
    /// of rfio's.
    pub(crate) const fn fio(bits: u32) -> EngineFlags {
        const fn on(bits: u32, bit: u32) -> bool {
            bits & bit != 0
        }
        EngineFlags {
            sync: on(bits, fio::SYNCIO),
            raw_io: on(bits, fio::RAWIO),
            diskless: on(bits, fio::DISKLESSIO),
            no_extend: on(bits, fio::NOEXTEND),
            no_disk_util: on(bits, fio::NODISKUTIL),
            unidir: on(bits, fio::UNIDIR),
            no_io: on(bits, fio::NOIO),
            pipe_io: on(bits, fio::PIPEIO),
            barrier: on(bits, fio::BARRIER),
            mem_align: on(bits, fio::MEMALIGN),
            bit_based: on(bits, fio::BIT_BASED),
            fake_io: on(bits, fio::FAKEIO),
            no_stats: on(bits, fio::NOSTATS),
            no_file_hash: on(bits, fio::NOFILEHASH),
            async_sync_trim: on(bits, fio::ASYNCIO_SYNC_TRIM),
            no_offload: on(bits, fio::NO_OFFLOAD),
            async_sets_issue_time: on(bits, fio::ASYNCIO_SETS_ISSUE_TIME),
            atomic_writes: on(bits, fio::ATOMICWRITES),
            changes_files: false,
            runs_programs: false,
            buffered_to_kernel_workers: false,
            failed_open_looks_opened: false,
            open_error_at: None,
            dirs: false,
            block_sized_files: false,
        }
    }

    /// ... that changes files whatever the job's I/O direction.
    pub(crate) const fn changes_files(self) -> EngineFlags {
        EngineFlags {
            changes_files: true,
            ..self
        }
    }

    /// ... that runs a program the job names.
    pub(crate) const fn runs_programs(self) -> EngineFlags {
        EngineFlags {
            runs_programs: true,
            ..self
        }
    }

    /// ... whose buffered I/O the kernel serves from the page cache or
    /// its worker threads.
    pub(crate) const fn buffered_to_kernel_workers(self) -> EngineFlags {
        EngineFlags {
            buffered_to_kernel_workers: true,
            ..self
        }
    }

    /// ... whose failed open reads as success.
    pub(crate) const fn failed_open_looks_opened(self) -> EngineFlags {
        EngineFlags {
            failed_open_looks_opened: true,
            ..self
        }
    }

    /// ... whose files are directories.
    pub(crate) const fn dirs(self) -> EngineFlags {
        EngineFlags { dirs: true, ..self }
    }

    /// ... whose files are each one block big.
    pub(crate) const fn block_sized_files(self) -> EngineFlags {
        EngineFlags {
            block_sized_files: true,
            ..self
        }
    }

    /// ... whose failed `call` fio reports at `place`.
    pub(crate) const fn open_error_at(self, at: Option<(&'static str, &'static str)>) -> Self {
        EngineFlags {
            open_error_at: at,
            ..self
        }
    }

    /// Whether the engine queues I/O to real files (neither synchronous
    /// nor diskless: libaio, posixaio, io_uring), whose depth only means
    /// something with `direct=1`.
    pub fn queues_file_io(&self) -> bool {
        !self.sync && !self.diskless
    }

    /// Whether the engine runs a program the job names.
    pub fn runs_a_program(&self) -> bool {
        self.runs_programs
    }

    /// Whether the kernel serves the engine's buffered I/O from the page
    /// cache or its own worker threads (io_uring) rather than blocking
    /// the submit (libaio, posixaio).
    pub fn buffered_io_goes_to_kernel_workers(&self) -> bool {
        self.buffered_to_kernel_workers
    }

    /// fio's `td_io_unlink_file` of a job's file at its end (`unlink=1`):
    /// a regular file is removed, or a directory where the engine's files
    /// are directories; anything else is left, and a failure is ignored.
    pub(crate) fn unlink(&self, path: &std::path::Path) {
        let Ok(m) = std::fs::symlink_metadata(path) else {
            return;
        };
        if self.dirs && m.is_dir() {
            let _ = std::fs::remove_dir(path);
        } else if m.file_type().is_file() {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Where fio reports the engine's failed `call` of a file (`open`,
    /// `delete`), if rfio knows it.
    pub(crate) fn open_error_place(&self, call: &str) -> Option<&'static str> {
        self.open_error_at
            .filter(|(c, _)| *c == call)
            .map(|(_, place)| place)
    }
}

/// An engine of fio 3.33 that rfio cannot run: hardware, a service or a
/// library it needs is not here.
pub(crate) struct NotRun {
    pub(crate) name: &'static str,
    /// What it needs, as the plan's refusal says it.
    pub(crate) needs: &'static str,
    /// Its fio flags, which fio acts on while it adds the job (before
    /// rfio would refuse it): `FIO_NO_OFFLOAD`, `FIO_PIPEIO`, ...
    pub(crate) flags: EngineFlags,
}

/// The engines of fio 3.33 that rfio cannot run.
pub(crate) const NOT_RUN: &[NotRun] = {
    use fio::*;
    const fn e(name: &'static str, needs: &'static str, bits: u32) -> NotRun {
        NotRun {
            name,
            needs,
            flags: EngineFlags::fio(bits),
        }
    }
    &[
        e(
            "sg",
            "SCSI generic devices (/dev/sg*, the SG_IO ioctl)",
            SYNCIO | RAWIO,
        ),
        e(
            "mtd",
            "MTD flash devices (/dev/mtd*, libmtd)",
            SYNCIO | NOEXTEND,
        ),
        e(
            "io_uring_cmd",
            "NVMe generic character devices (/dev/ngXnY) and io_uring passthrough commands",
            ASYNCIO_SYNC_TRIM | NO_OFFLOAD | MEMALIGN | RAWIO | ASYNCIO_SETS_ISSUE_TIME,
        ),
        e(
            "rdma",
            "RDMA hardware (InfiniBand, RoCE or iWARP) through librdmacm and libibverbs",
            DISKLESSIO | UNIDIR | PIPEIO | ASYNCIO_SETS_ISSUE_TIME,
        ),
        e("rados", "a Ceph cluster, through librados", DISKLESSIO),
        e(
            "rbd",
            "a Ceph cluster and its RBD images, through librbd",
            0,
        ),
        e(
            "gfapi",
            "a GlusterFS volume, through libgfapi",
            SYNCIO | DISKLESSIO,
        ),
        e(
            "gfapi_async",
            "a GlusterFS volume, through libgfapi",
            DISKLESSIO,
        ),
        e(
            "pmemblk",
            "a persistent memory pool, through PMDK's libpmemblk",
            SYNCIO | DISKLESSIO | NOEXTEND | NODISKUTIL,
        ),
    ]
};

/// The engine of fio's called `name` that rfio cannot run, if it is one.
pub(crate) fn not_run(name: &str) -> Option<&'static NotRun> {
    NOT_RUN.iter().find(|e| e.name == name)
}
