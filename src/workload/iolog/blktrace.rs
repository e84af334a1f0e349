//! blktrace binary traces (fio's `blktrace.c`; the format is
//! `blktrace_api.h`'s `struct blk_io_trace`, 48 bytes in the byte order
//! of the machine that traced, each followed by `pdu_len` bytes of
//! payload):
//!
//! ```text
//! u32 magic (0x65617400 | version 7), u32 sequence, u64 time (ns),
//! u64 sector, u32 bytes, u32 action, u32 pid, u32 device, u32 cpu,
//! u16 error, u16 pdu_len
//! ```
//!
//! fio replays the queue events (`__BLK_TA_QUEUE`): reads and writes
//! (of `bytes` at `sector * 512`), discards as trims, flushes as syncs,
//! each after the time since the previous one. Each device becomes a
//! file, found by its major and minor number under `/dev` unless
//! `replay_redirect` names the one file to use. The queue depth the
//! trace reached (queued minus merged, up to a completion) becomes the
//! job's `iodepth` unless the job sets one.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::{Error, TraceError};
use super::text::ReadSettings;
use super::{delay_since, replay_offset, Act, Entry, Files};
use crate::ddir::Ddir;
use crate::diag::io_reason;

/// The size of a trace without its payload.
pub(crate) const TRACE_SIZE: usize = 48;
pub(crate) const MAGIC: u32 = 0x6561_7400;
pub(crate) const VERSION: u32 = 0x07;

/// Trace categories (`BLK_TC_*`), in the action's upper 16 bits.
pub(crate) const TC_READ: u32 = 1 << 0;
pub(crate) const TC_WRITE: u32 = 1 << 1;
pub(crate) const TC_FLUSH: u32 = 1 << 2;
#[cfg(test)]
pub(crate) const TC_QUEUE: u32 = 1 << 4;
#[cfg(test)]
pub(crate) const TC_COMPLETE: u32 = 1 << 7;
pub(crate) const TC_NOTIFY: u32 = 1 << 10;
pub(crate) const TC_DISCARD: u32 = 1 << 13;
/// Basic actions (`__BLK_TA_*`), in the lower 16 bits.
pub(crate) const TA_QUEUE: u32 = 1;
pub(crate) const TA_BACKMERGE: u32 = 2;
pub(crate) const TA_FRONTMERGE: u32 = 3;
pub(crate) const TA_COMPLETE: u32 = 8;

/// `BLK_TC_ACT`: a category as an action bit.
pub(crate) const fn act(tc: u32) -> u32 {
    tc << 16
}

/// One trace, in the reader's byte order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Trace {
    pub(crate) magic: u32,
    pub(crate) sequence: u32,
    pub(crate) time: u64,
    pub(crate) sector: u64,
    pub(crate) bytes: u32,
    pub(crate) action: u32,
    pub(crate) pid: u32,
    pub(crate) device: u32,
    pub(crate) cpu: u32,
    pub(crate) error: u16,
    pub(crate) pdu_len: u16,
}

impl Trace {
    /// A trace from its bytes, swapped when the trace's byte order is not
    /// this machine's.
    pub(crate) fn decode(b: &[u8; TRACE_SIZE], swap: bool) -> Trace {
        let u16_at = |i: usize| {
            let v = u16::from_ne_bytes([b[i], b[i + 1]]);
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        let u32_at = |i: usize| {
            let v = u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            let v = u64::from_ne_bytes(a);
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        Trace {
            magic: u32_at(0),
            sequence: u32_at(4),
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            pid: u32_at(32),
            device: u32_at(36),
            cpu: u32_at(40),
            error: u16_at(44),
            pdu_len: u16_at(46),
        }
    }

    /// The trace's bytes in this machine's byte order.
    pub(crate) fn encode(&self) -> [u8; TRACE_SIZE] {
        let mut b = [0u8; TRACE_SIZE];
        b[0..4].copy_from_slice(&self.magic.to_ne_bytes());
        b[4..8].copy_from_slice(&self.sequence.to_ne_bytes());
        b[8..16].copy_from_slice(&self.time.to_ne_bytes());
        b[16..24].copy_from_slice(&self.sector.to_ne_bytes());
        b[24..28].copy_from_slice(&self.bytes.to_ne_bytes());
        b[28..32].copy_from_slice(&self.action.to_ne_bytes());
        b[32..36].copy_from_slice(&self.pid.to_ne_bytes());
        b[36..40].copy_from_slice(&self.device.to_ne_bytes());
        b[40..44].copy_from_slice(&self.cpu.to_ne_bytes());
        b[44..46].copy_from_slice(&self.error.to_ne_bytes());
        b[46..48].copy_from_slice(&self.pdu_len.to_ne_bytes());
        b
    }

    fn has(&self, tc: u32) -> bool {
        self.action & act(tc) != 0
    }

    fn basic(&self) -> u32 {
        self.action & 0xffff
    }

    /// fio's `t_get_ddir`: the direction the trace counts in, if any.
    pub(crate) fn ddir(&self) -> Option<Ddir> {
        if self.has(TC_READ) {
            Some(Ddir::Read)
        } else if self.has(TC_WRITE) {
            Some(Ddir::Write)
        } else if self.has(TC_DISCARD) {
            Some(Ddir::Trim)
        } else {
            None
        }
    }

    /// A queue event of a read, write or discard (what a merge keeps).
    pub(crate) fn is_queued_io(&self) -> bool {
        self.basic() == TA_QUEUE && self.ddir().is_some()
    }
}

/// The byte order of a trace that starts with `b`: `Some(swapped)`, or
/// `None` when its magic is not blktrace's.
pub(crate) fn byte_order(b: &[u8; TRACE_SIZE]) -> Option<bool> {
    let magic = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    if magic & 0xffff_ff00 == MAGIC {
        Some(false)
    } else if magic.swap_bytes() & 0xffff_ff00 == MAGIC {
        Some(true)
    } else {
        None
    }
}

/// fio's `is_blktrace`: whether `path` starts with a trace, and whether
/// its byte order is swapped. A file shorter than a trace is not one
/// (fio says so: `fio: short read on blktrace file`).
pub(crate) fn probe(path: &Path, say: &mut dyn FnMut(String)) -> Option<bool> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut b = [0u8; TRACE_SIZE];
    match read_trace(&mut f, &mut b) {
        Ok(TRACE_SIZE) => byte_order(&b),
        Ok(_) => {
            say("fio: short read on blktrace file".to_string());
            None
        }
        Err(e) => {
            say(format!("read blktrace: {}", io_reason(&e)));
            None
        }
    }
}

/// Read up to a whole trace; how many bytes came.
pub(crate) fn read_trace(src: &mut dyn Read, b: &mut [u8; TRACE_SIZE]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < TRACE_SIZE {
        match src.read(&mut b[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Skip a trace's payload.
fn skip_pdu(src: &mut dyn Read, len: u16) -> std::io::Result<()> {
    let n = std::io::copy(&mut src.take(u64::from(len)), &mut std::io::sink())?;
    if n < u64::from(len) {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// The next trace of `src` (its payload skipped), which is at byte
/// `offset` of the file; `None` at the end of the file. A trace cut
/// short (its 48 bytes or its payload), a magic that is not blktrace's
/// or a version other than 7 is an error saying so, with the byte it
/// is at (the caller adds the file's name). The bytes the trace took
/// are added to `offset`.
pub(crate) fn read_record(
    src: &mut dyn Read,
    swap: bool,
    offset: &mut u64,
) -> Result<Option<Trace>, TraceError> {
    let at = *offset;
    let mut b = [0u8; TRACE_SIZE];
    let got = read_trace(src, &mut b).map_err(|source| TraceError::Read { at, source })?;
    if got == 0 {
        return Ok(None);
    }
    if got < TRACE_SIZE {
        return Err(TraceError::Short {
            at,
            got,
            size: TRACE_SIZE,
        });
    }
    let t = Trace::decode(&b, swap);
    if t.magic & 0xffff_ff00 != MAGIC {
        return Err(TraceError::BadMagic { at, magic: t.magic });
    }
    if t.magic & 0xff != VERSION {
        return Err(TraceError::BadVersion {
            at,
            version: t.magic & 0xff,
        });
    }
    skip_pdu(src, t.pdu_len).map_err(|source| match source.kind() {
        std::io::ErrorKind::UnexpectedEof => TraceError::PayloadShort {
            at,
            pdu_len: t.pdu_len,
        },
        _ => TraceError::Read { at, source },
    })?;
    *offset += (TRACE_SIZE + usize::from(t.pdu_len)) as u64;
    Ok(Some(t))
}

/// A trace being read, entry by entry, after [`probe`] said it is one.
pub(crate) struct BlktraceReader<R> {
    src: R,
    swap: bool,
    set: ReadSettings,
    /// `read_iolog_chunked`: no close entries at the end (fio adds them
    /// only when it reads the whole trace at once).
    chunked: bool,
    last_time: u64,
    /// The last device looked up and its file (fio's `file_cache`).
    cache: (u32, u32, u32),
    /// Queue depth per direction: now, and the deepest at a completion.
    this_depth: [i64; 3],
    depth: [i64; 3],
    skipped_writes: u64,
    warned_zero: bool,
    pending: VecDeque<Entry>,
    done: bool,
    /// Bytes of the trace read.
    offset: u64,
}

impl<R: Read> BlktraceReader<R> {
    pub(crate) fn new(src: R, swap: bool, set: ReadSettings, chunked: bool) -> BlktraceReader<R> {
        BlktraceReader {
            src,
            swap,
            set,
            chunked,
            last_time: 0,
            cache: (u32::MAX, u32::MAX, 0),
            this_depth: [0; 3],
            depth: [0; 3],
            skipped_writes: 0,
            warned_zero: false,
            pending: VecDeque::new(),
            done: false,
            offset: 0,
        }
    }

    /// The deepest queue of direction `i` the trace reached.
    pub(crate) fn depth(&self, i: usize) -> i64 {
        self.depth[i]
    }

    /// The next entry, adding the devices the trace uses to `files`;
    /// fio's messages go to `say`. `None` at the end of the trace.
    pub(crate) fn next(
        &mut self,
        files: &mut Files,
        say: &mut dyn FnMut(String),
    ) -> Result<Option<Entry>, Error> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Ok(Some(e));
            }
            if self.done {
                return Ok(None);
            }
            let t = match read_record(&mut self.src, self.swap, &mut self.offset) {
                Ok(Some(t)) => t,
                Ok(None) => {
                    self.finish(files, say);
                    continue;
                }
                Err(source) => {
                    return Err(Error::Trace {
                        name: self.set.name.clone(),
                        source,
                    })
                }
            };
            if !t.has(TC_NOTIFY) {
                self.count_depth(&t);
                if t.has(TC_WRITE | TC_DISCARD) && self.set.readonly {
                    self.skipped_writes += 1;
                    continue;
                }
            }
            self.queue(t, files, say);
        }
    }

    /// fio's `depth_inc`, `depth_dec` and `depth_end`.
    fn count_depth(&mut self, t: &Trace) {
        let Some(d) = t.ddir() else { return };
        let i = d.index();
        match t.basic() {
            TA_QUEUE => self.this_depth[i] += 1,
            TA_BACKMERGE | TA_FRONTMERGE => self.this_depth[i] -= 1,
            TA_COMPLETE => {
                self.depth[i] = self.depth[i].max(self.this_depth[i]);
                self.this_depth[i] = 0;
            }
            _ => {}
        }
    }

    /// The trace's end: fio's note on writes left out, and a close of
    /// every file.
    fn finish(&mut self, files: &Files, say: &mut dyn FnMut(String)) {
        self.done = true;
        if self.skipped_writes > 0 {
            say(format!(
                "{}: fio: skips replay of {} writes due to read-only",
                crate::diag::visible(&self.set.name),
                self.skipped_writes
            ));
        }
        if !self.chunked {
            for i in 0..files.paths.len() {
                self.pending.push_back(Entry::file(Act::Close, i as u32, 0));
            }
        }
    }

    /// fio's `queue_trace`: the entries of a queue event.
    fn queue(&mut self, mut t: Trace, files: &mut Files, say: &mut dyn FnMut(String)) {
        if t.basic() != TA_QUEUE {
            return;
        }
        let r = &self.set.replay;
        let mut delay_ns = 0;
        if !t.has(TC_NOTIFY) {
            delay_ns = delay_since(t.time, self.last_time, r.time_scale, r.no_stall);
            self.last_time = t.time;
        }
        if r.align > 0 {
            t.bytes = ((u64::from(t.bytes) + r.align - 1) & !(r.align - 1)) as u32;
        }
        let (scale, align) = (r.scale, r.align);
        let io = |d: Ddir, file: u32| Entry {
            act: Act::Io(d),
            file,
            offset: replay_offset(t.sector.wrapping_mul(512), scale, align),
            len: u64::from(t.bytes),
            delay_us: delay_ns / 1000,
        };
        if t.has(TC_NOTIFY) {
            return;
        }
        if t.has(TC_DISCARD) {
            if r.skips(Ddir::Trim) {
                return;
            }
            let file = self.file(t.device, files);
            self.pending.push_back(io(Ddir::Trim, file));
        } else if t.has(TC_FLUSH) {
            if r.skips(Ddir::Sync) {
                return;
            }
            let file = self.file(t.device, files);
            self.pending.push_back(Entry {
                act: Act::Sync(Ddir::Sync),
                file,
                offset: 0,
                len: 0,
                delay_us: delay_ns / 1000,
            });
        } else {
            let file = self.file(t.device, files);
            let d = if t.has(TC_WRITE) {
                Ddir::Write
            } else {
                Ddir::Read
            };
            if self.set.replay.skips(d) {
                return;
            }
            if t.bytes == 0 {
                if !std::mem::replace(&mut self.warned_zero, true) {
                    say(format!(
                        "{}: blktrace: ignoring zero byte trace: action={:x}",
                        crate::diag::visible(&self.set.name),
                        t.action
                    ));
                }
                return;
            }
            self.pending.push_back(io(d, file));
        }
    }

    /// fio's `trace_add_file`: the file of `device`, added (with an open
    /// entry) the first time it is seen. A device with no file takes the
    /// previous device's (fio's stale cache).
    fn file(&mut self, device: u32, files: &mut Files) -> u32 {
        let (maj, min) = (device >> 20, device & ((1 << 20) - 1));
        if (self.cache.0, self.cache.1) == (maj, min) {
            return self.cache.2;
        }
        self.cache.0 = maj;
        self.cache.1 = min;
        if let Some(i) = files.devices.iter().position(|d| *d == (maj, min)) {
            self.cache.2 = i as u32;
            return self.cache.2;
        }
        let path = match &self.set.replay.redirect {
            Some(r) => Some(self.set.under_dir(r.as_ref())),
            None => find_device(Path::new("/dev"), maj, min),
        };
        if let Some(path) = path {
            let i = files.add(path);
            files.devices[i as usize] = (maj, min);
            self.pending.push_back(Entry::file(Act::Open, i, 0));
            self.cache.2 = i;
        }
        self.cache.2
    }
}

/// The block device under `dir` (searched depth first, links not
/// followed) whose number is `maj:min` (fio's `blktrace_lookup_device`).
pub(crate) fn find_device(dir: &Path, maj: u32, min: u32) -> Option<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let Ok(m) = std::fs::symlink_metadata(&path) else {
            break;
        };
        if m.is_dir() {
            if let Some(p) = find_device(&path, maj, min) {
                return Some(p);
            }
        }
        if m.file_type().is_block_device() {
            let dev = m.rdev();
            let (dmaj, dmin) = (
                ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff),
                ((dev >> 12) & 0xffff_ff00) | (dev & 0xff),
            );
            if (dmaj, dmin) == (u64::from(maj), u64::from(min)) {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod tests;
