//! `ioengine=cpuio`: no I/O, CPU burnt (fio's `engines/cpu.c`). Each
//! "I/O" spins for `cpuchunks` µs (`cpumode=noop`) or sorts 1 MiB of
//! numbers four times (`cpumode=qsort`), then the job thinks for as long
//! as keeps the CPU `cpuload` percent busy: `cpuchunks * (100 - cpuload) /
//! cpuload` µs (for qsort, with the time the sorts took). The I/Os are
//! reads of nothing, counted (fio's `FIO_NOIO`).

use std::time::{Duration, Instant};

use super::engine::{Caps, CommonOptions, IoEngine};
use super::flags::{fio, EngineFlags};
use super::input::{OptionValues, Refusal};
use super::io::{EngineError, FileId, FileTarget, Io, IoMem, Queued};

/// What `ioengine=cpuio` is (fio's `engines/cpu.c`).
pub(crate) const FLAGS: EngineFlags = EngineFlags::fio(fio::SYNCIO | fio::DISKLESSIO | fio::NOIO);

/// What this engine can do: nothing but its work (fio's `FIO_SYNCIO |
/// FIO_DISKLESSIO | FIO_NOIO`).
pub(crate) const CAPS: Caps = Caps::NO_IO;

/// fio's `qsort_size`: 256 Ki numbers of 32 bits.
const QSORT_SIZE: usize = 256 * 1024;

/// `cpumode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum CpuMode {
    /// Spin (fio's `usec_spin`).
    #[default]
    Noop,
    /// Sort numbers.
    Qsort,
}

/// cpuio's own options (fio's `options[]` of `engines/cpu.c`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CpuioOptions {
    /// `cpuload`: the percentage of a CPU to keep busy (0: unset, which
    /// fails the job as fio does; above 100 taken as 100).
    pub(crate) cpuload: u32,
    /// `cpumode`.
    pub(crate) mode: CpuMode,
    /// `cpuchunks`: µs of work per I/O (default 50000).
    pub(crate) cpuchunks: u32,
    /// `exit_on_io_done`: the job ends once every job that does I/O has
    /// (the workload checks it: [`crate::ioengine::EngineSpec::exits_when_io_is_done`]).
    pub(crate) exit_on_io_done: bool,
    /// The job's name, for fio's start line.
    pub(crate) job: String,
}

impl Default for CpuioOptions {
    fn default() -> Self {
        CpuioOptions {
            cpuload: 0,
            mode: CpuMode::Noop,
            cpuchunks: 50_000,
            exit_on_io_done: false,
            job: String::new(),
        }
    }
}

/// The fio names of [`CpuioOptions`].
pub(crate) const OPTIONS: &[&str] = &["cpuload", "cpumode", "cpuchunks", "exit_on_io_done"];

pub(crate) struct Cpuio {
    mode: CpuMode,
    load: u64,
    /// µs of work per I/O (for qsort: what the last sorts took).
    cycle_us: u64,
    /// The numbers qsort sorts.
    data: Vec<i32>,
    notice: Option<String>,
}

/// The engine's options, from the job's values of [`OPTIONS`] (and the
/// job's facts), as the plan hands them.
pub(crate) fn options(o: &dyn OptionValues) -> Result<CpuioOptions, Refusal> {
    Ok(CpuioOptions {
        cpuload: o.int("cpuload").clamp(0, i64::from(u32::MAX)) as u32,
        mode: match o.choice("cpumode") {
            Some("qsort") => CpuMode::Qsort,
            _ => CpuMode::Noop,
        },
        cpuchunks: o.int("cpuchunks").clamp(0, i64::from(u32::MAX)) as u32,
        exit_on_io_done: o.flag("exit_on_io_done"),
        job: o.job().name.clone(),
    })
}

pub(crate) fn new(
    _common: &CommonOptions,
    opts: &CpuioOptions,
    _mem: IoMem,
) -> Result<Box<dyn IoEngine>, EngineError> {
    if opts.cpuload == 0 {
        return Err(EngineError::fio_msg(
            libc::EINVAL,
            "engines/cpu.c:251",
            "cpuio",
            "cpu thread needs rate (cpuload=)",
        ));
    }
    let load = opts.cpuload.min(100);
    let data = match opts.mode {
        CpuMode::Noop => Vec::new(),
        CpuMode::Qsort => qsort_data(),
    };
    let mode = match opts.mode {
        CpuMode::Noop => "noop",
        CpuMode::Qsort => "qsort",
    };
    Ok(Box::new(Cpuio {
        mode: opts.mode,
        load: u64::from(load),
        cycle_us: u64::from(opts.cpuchunks),
        data,
        notice: Some(format!(
            "{} ({mode}): ioengine=cpuio, cpuload={load}, cpucycle={}\n",
            opts.job, opts.cpuchunks
        )),
    }))
}

/// fio's multiply-with-carry generator (`mwc32`), from its fixed seeds.
fn qsort_data() -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..QSORT_SIZE)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

/// Busy-wait for `us` µs (fio's `usec_spin`).
fn spin(us: u64) {
    let end = Instant::now() + Duration::from_micros(us);
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

impl Cpuio {
    /// fio's `do_qsort`: sort, sort in reverse, sort the bytes, reverse
    /// again; the time taken is the next cycle.
    fn qsort(&mut self) {
        let t0 = Instant::now();
        self.data.sort_unstable();
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        {
            // SAFETY: an `i32` slice is as many valid `i8`s, four each.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    self.data.as_mut_ptr().cast::<i8>(),
                    self.data.len() * 4,
                )
            };
            bytes.sort_unstable();
        }
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        self.cycle_us = t0.elapsed().as_micros() as u64;
    }
}

impl IoEngine for Cpuio {
    fn name(&self) -> &'static str {
        "cpuio"
    }

    fn caps(&self) -> Caps {
        CAPS
    }

    fn open(&mut self, _target: &FileTarget) -> Result<FileId, EngineError> {
        Ok(FileId(0))
    }

    unsafe fn queue(&mut self, _io: &Io) -> Queued {
        match self.mode {
            CpuMode::Noop => spin(self.cycle_us),
            CpuMode::Qsort => self.qsort(),
        }
        Queued::Completed(Ok(0))
    }

    fn think_us(&self) -> u64 {
        self.cycle_us * (100 - self.load) / self.load
    }

    fn notice(&mut self) -> Option<String> {
        self.notice.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ddir::Ddir;

    fn opts(cpuload: u32, mode: CpuMode) -> CpuioOptions {
        CpuioOptions {
            cpuload,
            mode,
            cpuchunks: 2000,
            job: "burn".into(),
            ..CpuioOptions::default()
        }
    }

    #[test]
    fn needs_a_load_as_fio() {
        let e = new(
            &CommonOptions::default(),
            &opts(0, CpuMode::Noop),
            IoMem::NONE,
        )
        .err()
        .unwrap();
        assert_eq!(e.errno, libc::EINVAL);
        assert_eq!(e.to_string(), "cpuio: cpu thread needs rate (cpuload=)");
    }

    #[test]
    fn spins_a_chunk_then_thinks_for_the_rest() {
        let mut e = new(
            &CommonOptions::default(),
            &opts(25, CpuMode::Noop),
            IoMem::NONE,
        )
        .unwrap();
        assert_eq!(
            e.notice().as_deref(),
            Some("burn (noop): ioengine=cpuio, cpuload=25, cpucycle=2000\n")
        );
        assert_eq!(e.notice(), None, "once");
        let io = Io {
            token: 0,
            file: FileId(0),
            dir: Ddir::Read,
            offset: 0,
            len: 0,
            buf: std::ptr::null_mut(),
        };
        let t0 = Instant::now();
        // SAFETY: no buffer is touched.
        assert_eq!(unsafe { e.queue(&io) }, Queued::Completed(Ok(0)));
        assert!(t0.elapsed() >= Duration::from_micros(2000));
        assert_eq!(e.think_us(), 6000, "2000 * 75 / 25");
        let full = new(
            &CommonOptions::default(),
            &opts(250, CpuMode::Noop),
            IoMem::NONE,
        )
        .unwrap();
        assert_eq!(full.think_us(), 0, "cpuload above 100 is 100");
    }

    #[test]
    fn qsort_times_its_sorts() {
        let mut e = new(
            &CommonOptions::default(),
            &opts(50, CpuMode::Qsort),
            IoMem::NONE,
        )
        .unwrap();
        assert!(e.notice().unwrap().starts_with("burn (qsort): "));
        let io = Io {
            token: 0,
            file: FileId(0),
            dir: Ddir::Read,
            offset: 0,
            len: 0,
            buf: std::ptr::null_mut(),
        };
        // SAFETY: no buffer is touched.
        unsafe { e.queue(&io) };
        let think = e.think_us();
        assert!(think > 0, "the sorts took some time: {think}");
        let d = qsort_data();
        assert_eq!(d.len(), QSORT_SIZE);
        // mwc32's first value from fio's seeds.
        let z = 36969u32 * (362_436_069 & 65535) + (362_436_069 >> 16);
        let w = 18000u32 * (521_288_629 & 65535) + (521_288_629 >> 16);
        assert_eq!(d[0], ((z << 16).wrapping_add(w)) as i32);
    }
}
