//! What write buffers hold: `zero_buffers`, `refill_buffers`,
//! `scramble_buffers`, `buffer_pattern`, `buffer_compress_percentage` and
//! `buffer_compress_chunk`, `dedupe_percentage` with `dedupe_mode`,
//! `dedupe_working_set_percentage` and `dedupe_global`, with fio's
//! fix-ups (`fixup_options`: a compress percentage turns `refill_buffers`
//! on unless set; 100% compressible is all zeros) and its checks of a
//! dedupe working set (`init_dedupe_working_set_seeds`).

use super::read::Opts;
use super::Refusal;

/// A job's buffer contents (`JobSpec::buffers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BufferOptions {
    pub(crate) zero: bool,
    /// New contents before every write.
    pub(crate) refill: bool,
    /// Offset and time stamped into every 512-byte block of a write.
    pub(crate) scramble: bool,
    /// `buffer_pattern`'s bytes (empty: none).
    pub(crate) pattern: Vec<u8>,
    pub(crate) compress_perc: u32,
    /// `buffer_compress_chunk` (default 512).
    pub(crate) compress_chunk: u64,
    pub(crate) dedupe_perc: u32,
    /// `dedupe_mode=working_set`: the set, or fio's refusal of it; `None`
    /// without one.
    pub(crate) working_set: Result<Option<WorkingSetOptions>, Refusal>,
}

/// The dedupe working set of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkingSetOptions {
    /// Entries in the set (fio's `num_unique_pages`).
    pub(crate) pages: u64,
    /// Generator steps per buffer (`bs / min(bs, buffer_compress_chunk)`).
    pub(crate) advance: u64,
    /// `dedupe_global=1`.
    pub(crate) global: bool,
}

/// The working-set options, checked against the job's size and files
/// once those are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkingSetAsk {
    perc: u64,
    ws_perc: u64,
    chunk: Option<u64>,
    global: bool,
}

/// The buffer options without the working set, and what the working set
/// needs (`None`: no working set).
pub(super) fn resolve(
    o: Opts<'_>,
    release: crate::release::Release,
    bad: &mut Vec<String>,
) -> (BufferOptions, Option<WorkingSetAsk>) {
    let percent = |n: &str| match o.int(n) {
        Some(v) => v.clamp(0, 100) as u32,
        None => 0,
    };
    let mut zero = o.is("zero_buffers");
    let mut refill = o.is("refill_buffers");
    let mut compress_perc = percent("buffer_compress_percentage");
    if compress_perc == 100 {
        zero = true;
        compress_perc = 0;
    } else if compress_perc > 0 && !o.set("refill_buffers") {
        refill = true;
    }
    let scramble_val = o.flag_or_default("scramble_buffers");
    let mut scramble =
        scramble_val && (o.set("scramble_buffers") || !(zero && o.set("zero_buffers")));
    // The option parser accepted the pattern: this fails only if a
    // `'file'` piece went away since.
    let pattern = match o.text("buffer_pattern") {
        Some(t) => {
            let limit = crate::options::value::pattern::max_size(release);
            crate::options::value::pattern::parse_pattern(t, false, limit)
                .map(|p| p.bytes)
                .unwrap_or_else(|e| {
                    bad.push(format!("buffer_pattern {e}"));
                    Vec::new()
                })
        }
        None => Vec::new(),
    };
    if o.set("buffer_pattern") {
        // fio's `str_buffer_pattern_cb`: a pattern turns scrambling and
        // zero buffers off (the offset and time stamped into each 512-byte
        // block would overwrite bytes 0..16 and 48..64 of it), and
        // `refill_buffers` on for a job that reads or compresses (reads
        // would overwrite the pattern in a shared buffer), off otherwise.
        // fio applies this when it parses the pattern, so an option given
        // after it wins; rfio does not keep that order and lets an
        // explicit `scramble_buffers`/`refill_buffers` win either way.
        let reads = matches!(
            o.choice("rw"),
            None | Some("read" | "randread" | "rw" | "readwrite" | "randrw")
        );
        zero = false;
        if !o.set("scramble_buffers") {
            scramble = false;
        }
        if !o.set("refill_buffers") {
            refill = compress_perc > 0 || reads;
        }
    }
    let dedupe_perc = percent("dedupe_percentage");
    let ask = (dedupe_perc > 0 && o.choice("dedupe_mode") == Some("working_set")).then(|| {
        WorkingSetAsk {
            perc: u64::from(dedupe_perc),
            ws_perc: o
                .int_or_default("dedupe_working_set_percentage")
                .clamp(0, 100) as u64,
            chunk: o.bytes("buffer_compress_chunk"),
            global: o.is("dedupe_global"),
        }
    });
    let buffers = BufferOptions {
        zero,
        refill,
        scramble,
        pattern,
        compress_perc,
        compress_chunk: o.bytes_or_default("buffer_compress_chunk"),
        dedupe_perc,
        working_set: Ok(None),
    };
    (buffers, ask)
}

impl WorkingSetAsk {
    /// The working set of a job of `size` bytes over `nfiles` files with
    /// smallest write `min_write`, or fio's refusal: it needs `size`, one
    /// file, and `dedupe_percentage + dedupe_working_set_percentage <= 100`.
    pub(crate) fn working_set(
        &self,
        size: Option<u64>,
        nfiles: usize,
        min_write: u64,
    ) -> Result<WorkingSetOptions, Refusal> {
        let Some(size) = size.filter(|&s| s > 0) else {
            return Err(Refusal(
                "pregenerated dedupe working set requires size to be set".into(),
            ));
        };
        if nfiles > 1 {
            return Err(Refusal(format!(
                "dedupe working set mode supported with single file per job, but {nfiles} files provided"
            )));
        }
        let (perc, ws_perc) = (self.perc, self.ws_perc);
        if perc + ws_perc > 100 {
            return Err(Refusal(format!(
                "impossible to reach expected dedupe percentage {perc} since {ws_perc} percentage \
                 of size is reserved to dedupe working set (those are unique pages)"
            )));
        }
        let min_write = min_write.max(1);
        // min_not_zero(bs, buffer_compress_chunk), the chunk 512 by default.
        let chunk = match self.chunk {
            Some(0) => min_write,
            Some(c) => min_write.min(c),
            None => min_write.min(512),
        };
        Ok(WorkingSetOptions {
            pages: size.saturating_mul(ws_perc) / 100 / min_write,
            advance: min_write / chunk.max(1),
            global: self.global,
        })
    }
}
