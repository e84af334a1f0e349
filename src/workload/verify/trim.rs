//! Trims of written blocks (fio's `trim.c`): which logged writes go on
//! the trim list (`trim_percentage`, drawn from the job's trim
//! generator), and the check that a trimmed block reads back as zeros
//! (`trim_verify_zero`).

use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Generator, Slot};
use crate::workload::log::Log;

/// fio's `io_u_should_trim`, with its generator (`td->trim_state`).
#[derive(Debug)]
pub(crate) struct TrimPicker {
    percentage: u32,
    state: FioRand,
    seed: u64,
    use64: bool,
    repeatable: bool,
}

impl TrimPicker {
    /// The picker of job `spec`; `None` unless it trims a share of its
    /// logged writes.
    pub(crate) fn new(spec: &JobSpec) -> Option<TrimPicker> {
        let v = spec.verify.as_ref()?;
        if v.trim.percentage == 0 {
            return None;
        }
        let seeds = &spec.seeds;
        let use64 = seeds.generator.use64() && seeds.generator != Generator::Lfsr;
        let seed = seeds.get(Slot::Trim);
        Some(TrimPicker {
            percentage: v.trim.percentage,
            state: FioRand::new(seed, use64),
            seed,
            use64,
            repeatable: seeds.repeatable,
        })
    }

    /// Start of a pass: fio re-seeds its generators with `randrepeat`.
    pub(crate) fn reset(&mut self) {
        if self.repeatable {
            self.state = FioRand::new(self.seed, self.use64);
        }
    }

    /// Whether the write being logged goes on the trim list: one draw,
    /// at most `max / 100 * percentage`.
    #[inline]
    pub(crate) fn pick(&mut self) -> bool {
        let limit = (self.state.max() / 100) * u64::from(self.percentage);
        self.state.next_u64() <= limit
    }
}

/// fio's `verify_trimmed_io_u`: a read back of a trimmed block of `file`
/// at `offset` must be all zeros. 0, or `EILSEQ` after fio's message
/// (naming the first byte that is not zero).
pub(crate) fn check_zero(buf: &[u8], file: &str, offset: u64, log: &dyn Log) -> i32 {
    let Some(at) = buf.iter().position(|&b| b != 0) else {
        return 0;
    };
    log.err(&format!(
        "trim: verify failed at file {file} offset {offset}, length {}, block offset {at}\n",
        buf.len()
    ));
    libc::EILSEQ
}
