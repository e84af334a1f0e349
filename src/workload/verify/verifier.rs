//! What a verified write is filled with, and the checks of the reads
//! that follow (fio's `populate_verify_io_u`, `verify_io_u`).

use super::checksum::{checksum_of, fio_crc32c};
use super::header::{crc_at, swap_header, Header, MAGIC, VERSION};
use super::trim::check_zero;
use crate::plan::resolve::verify::{HeaderFormat, Kind, SeqCheck, VerifyPattern};
use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Generator, Slot};
use crate::workload::buffers::fill_percentage;
use crate::workload::log::Log;

/// The errno of a failed check (`EILSEQ`).
pub(crate) const EILSEQ: i32 = libc::EILSEQ;

/// `pattern` with `offset` pasted at its `%o`s, into `out` (allocation
/// free: `out` has the pattern's length).
fn paste(pattern: &VerifyPattern, offset: u64, out: &mut [u8]) {
    out.copy_from_slice(&pattern.bytes);
    for &at in &pattern.offsets {
        let n = 8.min(out.len() - at);
        out[at..at + n].copy_from_slice(&offset.to_le_bytes()[..n]);
    }
}

/// Which write settles a failed check's messages and dumps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadBack<'a> {
    /// The file's name as fio prints it.
    pub(crate) file: &'a str,
    /// The read's offset and length.
    pub(crate) offset: u64,
    /// The write's `numberio`, when it must match (a block read back by a
    /// job that wrote it).
    pub(crate) numberio: Option<u16>,
    /// The seed the read back drew, when it is a read of a logged write.
    pub(crate) rand_seed: Option<u64>,
    /// fio's `io_u->flags` in the message (`IO_U_F_*`).
    pub(crate) flags: u32,
    /// The issue time to regenerate expected data with.
    pub(crate) time: (u64, u64),
    /// The block was trimmed (fio's `IO_U_F_TRIMMED`): it must read back
    /// as zeros with `trim_verify_zero`, and is not checked otherwise.
    pub(crate) trimmed: bool,
}

/// fio's `IO_U_F_IN_CUR_DEPTH`.
pub(crate) const F_IN_CUR_DEPTH: u32 = 0x8;
/// fio's `IO_U_F_VER_LIST`.
pub(crate) const F_VER_LIST: u32 = 0x80;

/// What a verifying job does, and the state it keeps.
#[derive(Debug)]
pub(crate) struct Verifier {
    pub(crate) kind: Kind,
    /// `do_verify`: read back what was written.
    pub(crate) do_verify: bool,
    /// `verify_interval` (default: the smallest write size).
    pub(crate) interval: u64,
    pub(crate) offset: usize,
    pub(crate) pattern: Option<VerifyPattern>,
    /// Scratch for the pattern with its `%o` pasted.
    pasted: Vec<u8>,
    pub(crate) fatal: bool,
    pub(crate) dump: bool,
    /// `--aux-path`: where the dumps go (`None`: the working directory).
    dump_dir: Option<std::path::PathBuf>,
    pub(crate) backlog: u64,
    pub(crate) backlog_batch: u64,
    pub(crate) only: bool,
    pub(crate) state_save: bool,
    /// `trim_verify_zero`.
    trim_zero: bool,
    bs_unaligned: bool,
    /// fio's `td->thread_number` as the header keeps it.
    thread: u16,
    compress_perc: u32,
    buffer_pattern: Vec<u8>,
    /// fio's `td->verify_state`, and its seed for re-seeding each loop.
    state: FioRand,
    seed: u64,
    use64: bool,
    repeatable: bool,
    /// Scratch for a checksum (the largest area is 128 bytes).
    csum: [u8; 128],
    /// The release's header layout.
    format: HeaderFormat,
    /// Whether `numberio` and the seed are checked.
    write_sequence: bool,
    header_seed: bool,
    sha512_final: bool,
    /// `verify_pattern_interval` (0: none; `None`: a release without it).
    pattern_interval: Option<u64>,
}

impl Verifier {
    /// The verifier of job `spec` (its verify options, buffer pattern and
    /// seed table), `None` when it does not verify.
    pub(crate) fn new(spec: &JobSpec) -> Option<Verifier> {
        let o = spec.verify.as_ref()?;
        let seeds = &spec.seeds;
        let use64 = seeds.generator.use64() && seeds.generator != Generator::Lfsr;
        let seed = seeds.get(Slot::Verify);
        let plen = o.pattern.as_ref().map_or(0, |p| p.bytes.len());
        Some(Verifier {
            kind: o.kind,
            do_verify: o.do_verify,
            interval: o.interval,
            offset: o.offset,
            pattern: o.pattern.clone(),
            pasted: vec![0; plen],
            fatal: o.fatal,
            dump: o.dump,
            dump_dir: spec.aux_path.clone(),
            backlog: o.backlog,
            backlog_batch: o.backlog_batch,
            only: o.only,
            state_save: o.state_save,
            trim_zero: o.trim.zero,
            bs_unaligned: o.bs_unaligned,
            thread: spec.thread_number as u16,
            compress_perc: o.compress_perc,
            buffer_pattern: spec.buffers.pattern.clone(),
            state: FioRand::new(seed, use64),
            seed,
            use64,
            repeatable: seeds.repeatable,
            csum: [0; 128],
            format: o.header,
            write_sequence: match o.write_sequence {
                SeqCheck::On => true,
                SeqCheck::Off => false,
                SeqCheck::UnlessQueued => {
                    crate::ioengine::flags(&spec.ioengine).is_some_and(|f| f.sync)
                }
            },
            header_seed: o.header_seed,
            sha512_final: o.sha512_final,
            pattern_interval: o.pattern_interval,
        })
    }

    /// Start of a loop: fio re-seeds the verify generator with `randrepeat`.
    pub(crate) fn reset(&mut self) {
        if self.repeatable {
            self.state = FioRand::new(self.seed, self.use64);
        }
    }

    /// The verify phase starts: fio re-seeds the verify generator whatever
    /// `randrepeat` says (`td_fill_verify_state_seed`).
    pub(crate) fn reseed(&mut self) {
        self.state = FioRand::new(self.seed, self.use64);
    }

    /// Header plus checksum in this release's layout.
    #[inline]
    fn hdr_size(&self) -> usize {
        self.kind.hdr_size(self.format.len())
    }

    /// Whether data comes from the random generator (no pattern).
    fn random_data(&self) -> bool {
        self.pattern.is_none()
    }

    /// Draw a read's seed (fio's `get_next_verify` and `do_io` draw one per
    /// verified read; never checked, but it moves the generator).
    #[inline]
    pub(crate) fn draw_read_seed(&mut self) -> u64 {
        if self.random_data() && self.kind != Kind::Null {
            self.state.next_seed()
        } else {
            0
        }
    }

    /// The header interval for a buffer of `len` bytes (fio's
    /// `get_hdr_inc`).
    #[inline]
    fn hdr_inc(&self, len: usize) -> usize {
        if self.interval > 0 && self.interval <= len as u64 && !self.bs_unaligned {
            self.interval as usize
        } else {
            len
        }
    }

    /// Fill a write buffer for `offset` (fio's `populate_verify_io_u`):
    /// data, headers and checksums. `numberio` is the write's number, `time`
    /// its issue time. Returns the data's seed. Allocation free.
    pub(crate) fn populate(
        &mut self,
        buf: &mut [u8],
        offset: u64,
        numberio: u64,
        time: (u64, u64),
    ) {
        if self.kind == Kind::Null {
            return;
        }
        let seed = if self.random_data() {
            self.state.next_seed()
        } else {
            0
        };
        self.fill(buf, offset, numberio, time, seed);
    }

    /// A write that is not issued (`verify_only`'s dry run) still draws
    /// its seed, as fio fills the buffer it never writes.
    #[inline]
    pub(crate) fn skip_write(&mut self) {
        if self.kind != Kind::Null && self.random_data() {
            self.state.next_seed();
        }
    }

    /// fio's `fill_pattern_headers` with a given seed.
    fn fill(&mut self, buf: &mut [u8], offset: u64, numberio: u64, time: (u64, u64), seed: u64) {
        match &self.pattern {
            None => fill_percentage(
                seed,
                buf,
                self.compress_perc,
                buf.len(),
                &self.buffer_pattern,
            ),
            Some(p) => {
                // With `verify_pattern_interval` the pattern starts again
                // every interval, with that piece's offset pasted.
                let seg = match self.pattern_interval {
                    Some(i) if i > 0 => i as usize,
                    _ => buf.len().max(1),
                };
                for (k, piece) in buf.chunks_mut(seg).enumerate() {
                    paste(p, offset + (k * seg) as u64, &mut self.pasted);
                    for chunk in piece.chunks_mut(self.pasted.len()) {
                        chunk.copy_from_slice(&self.pasted[..chunk.len()]);
                    }
                }
            }
        }
        let hs = self.hdr_size();
        if hs == 0 {
            return;
        }
        let inc = self.hdr_inc(buf.len());
        for (n, chunk) in buf.chunks_mut(inc).enumerate() {
            let h = Header {
                magic: MAGIC,
                kind: self.kind as u16,
                len: inc as u32,
                rand_seed: seed,
                offset: offset + n as u64 * self.interval,
                time_sec: time.0 as u32,
                time_nsec: time.1 as u32,
                thread: self.thread,
                numberio,
                version: 0,
                crc32: 0,
            };
            if chunk.len() <= hs {
                continue;
            }
            h.write(chunk, self.format);
            let (head, data) = chunk.split_at_mut(hs);
            checksum_of(
                self.kind,
                data,
                &mut head[self.format.len()..],
                self.sha512_final,
            );
            if self.offset > 0 {
                swap_header(chunk, self.offset, hs);
            }
        }
    }

    /// Check a completed read of `buf` (fio's `verify_io_u`): 0, or
    /// `EILSEQ` after printing what fio prints (and dumping with
    /// `verify_dump`). The buffer's headers are swapped back in place.
    /// Allocation free unless a check fails.
    pub(crate) fn check(&mut self, buf: &mut [u8], rb: &ReadBack<'_>, log: &dyn Log) -> i32 {
        if self.kind == Kind::Null {
            return 0;
        }
        if rb.trimmed {
            return if self.trim_zero {
                check_zero(buf, rb.file, rb.offset, log)
            } else {
                0
            };
        }
        let inc = self.hdr_inc(buf.len());
        let hs = self.hdr_size();
        let mut ret = 0;
        let mut n = 0usize;
        while n * inc < buf.len() {
            if ret != 0 && self.fatal {
                break;
            }
            let start = n * inc;
            let end = (start + inc).min(buf.len());
            if self.offset > 0 && hs > 0 && end - start >= self.offset + hs {
                swap_header(&mut buf[start..end], self.offset, hs);
            }
            let chunk = &buf[start..end];
            let hl = self.format.len();
            let hdr = (hs > 0 && chunk.len() >= hl).then(|| Header::read(chunk, self.format));
            if let Some(h) = &hdr {
                let r = self.check_header(chunk, buf.len(), h, n, inc, rb, log);
                if r != 0 {
                    return r;
                }
            }
            ret = match self.kind {
                Kind::HdrOnly => {
                    if self.pattern.is_some() {
                        self.check_pattern(buf, start, end, inc, n, rb, log)
                    } else {
                        0
                    }
                }
                Kind::Pattern | Kind::PatternNoHdr => {
                    self.check_pattern(buf, start, end, inc, n, rb, log)
                }
                Kind::Null => 0,
                k => {
                    let len = chunk.len();
                    if len <= hs {
                        0
                    } else {
                        let mut csum = self.csum;
                        let cl = k.csum_len();
                        if k == Kind::Sha512 && len - hs < 128 && !self.sha512_final {
                            csum[..cl].copy_from_slice(&chunk[hl..hs]);
                        }
                        checksum_of(k, &chunk[hs..], &mut csum, self.sha512_final);
                        if csum[..cl] == chunk[hl..hs] {
                            0
                        } else {
                            let good = chunk[hl..hs].to_vec();
                            self.failure(
                                buf,
                                n,
                                inc,
                                hdr.as_ref(),
                                k.name(),
                                Some((&good, &csum[..cl])),
                                rb,
                                log,
                            );
                            EILSEQ
                        }
                    }
                }
            };
            if ret != 0 && self.kind != Kind::PatternNoHdr {
                if let Some(h) = &hdr {
                    if h.kind != self.kind as u16 {
                        log.err(&format!(
                            "fio: verify type mismatch ({} media, {} given)\n",
                            h.kind, self.kind as u16
                        ));
                    }
                }
            }
            n += 1;
        }
        ret
    }

    /// fio's `verify_header`.
    #[allow(clippy::too_many_arguments)]
    fn check_header(
        &self,
        chunk: &[u8],
        buflen: usize,
        h: &Header,
        n: usize,
        inc: usize,
        rb: &ReadBack<'_>,
        log: &dyn Log,
    ) -> i32 {
        let what = if h.magic != MAGIC {
            format!("verify: bad magic header {:x}, wanted {:x}", h.magic, MAGIC)
        } else if self.format == HeaderFormat::V81 && h.version != VERSION {
            format!(
                "verify: unsupported header version {:x}, wanted {VERSION:x}. \
                 Are you trying to verify across versions of fio?",
                h.version
            )
        } else if h.len as usize != inc {
            format!("verify: bad header length {}, wanted {}", h.len, inc)
        } else if let Some(want) = rb
            .rand_seed
            .filter(|&w| self.header_seed && w != h.rand_seed)
        {
            format!(
                "verify: bad header rand_seed {}, wanted {want}",
                h.rand_seed
            )
        } else if h.offset != rb.offset + n as u64 * self.interval {
            format!(
                "verify: bad header offset {}, wanted {}",
                h.offset, rb.offset
            )
        } else if rb
            .numberio
            .is_some_and(|want| self.write_sequence && u64::from(want) != h.numberio)
        {
            format!(
                "verify: bad header numberio {}, wanted {}",
                h.numberio,
                rb.numberio.unwrap_or(0)
            )
        } else {
            let crc = fio_crc32c(&chunk[..crc_at(self.format)]);
            if crc == h.crc32 {
                return 0;
            }
            format!("verify: bad header crc {:x}, calculated {:x}", h.crc32, crc)
        };
        let at = rb.offset + (n * inc) as u64;
        log.err(&format!(
            "{what} at file {} offset {at}, length {inc} (requested block: offset={}, length={})\n",
            rb.file, rb.offset, buflen
        ));
        if self.dump {
            dump_file(
                self.dump_dir.as_deref(),
                rb.file,
                at,
                "hdr_fail",
                chunk,
                log,
            );
        }
        EILSEQ
    }

    /// fio's `verify_io_u_pattern` over one interval.
    #[allow(clippy::too_many_arguments)]
    fn check_pattern(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        inc: usize,
        n: usize,
        rb: &ReadBack<'_>,
        log: &dyn Log,
    ) -> i32 {
        let Some(p) = &self.pattern else {
            return 0;
        };
        let hs = self.hdr_size();
        let size = p.bytes.len();
        let data = &buf[(start + hs).min(end)..end];
        let extent = inc * n + hs;
        // The pieces checked (fio 3.40's `verify_pattern_interval`): the
        // first from the interval's data on, each with its offset pasted.
        let (vpi, mut at, mut todo, mut m) = match self.pattern_interval {
            Some(vpi) if vpi > 0 => {
                let vpi = vpi as usize;
                let within = extent % vpi;
                (
                    vpi,
                    rb.offset + (extent / vpi * vpi) as u64,
                    data.len().min(vpi - within),
                    within % size,
                )
            }
            _ => (0, rb.offset, data.len(), extent % size),
        };
        // fio 3.40 counts the bad byte's offset from the interval's start.
        let base = if self.pattern_interval.is_some() {
            hs
        } else {
            0
        };
        let mut done = 0;
        while done < data.len() {
            paste(p, at, &mut self.pasted);
            for (i, &b) in data[done..done + todo].iter().enumerate() {
                let want = self.pasted[m];
                if b != want {
                    log.err(&format!(
                        "fio: got pattern '{b:02x}', wanted '{want:02x}'. Bad bits {}\n",
                        (b ^ want).count_ones()
                    ));
                    log.err(&format!("fio: bad pattern block offset {}\n", i + base));
                    let hdr = (hs > 0).then(|| Header::read(&buf[start..end], self.format));
                    self.failure(buf, n, inc, hdr.as_ref(), "pattern", None, rb, log);
                    return EILSEQ;
                }
                m += 1;
                if m == size {
                    m = 0;
                }
            }
            done += todo;
            m = 0;
            at += vpi as u64;
            todo = (data.len() - done).min(if vpi > 0 { vpi } else { data.len() });
        }
        0
    }

    /// fio's `log_verify_failure` (and `dump_verify_buffers`).
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn failure(
        &mut self,
        buf: &[u8],
        n: usize,
        inc: usize,
        hdr: Option<&Header>,
        name: &str,
        crcs: Option<(&[u8], &[u8])>,
        rb: &ReadBack<'_>,
        log: &dyn Log,
    ) {
        let (at, len) = match hdr {
            Some(h) => (rb.offset + n as u64 * u64::from(h.len), h.len as usize),
            None => (rb.offset, buf.len()),
        };
        let mut msg = format!(
            "{name:.8}: verify failed at file {} offset {at}, length {len} (requested block: offset={}, length={}, flags={:x})\n",
            rb.file,
            rb.offset,
            buf.len(),
            rb.flags
        );
        if let Some((good, bad)) = crcs {
            msg.push_str(&format!("       Expected CRC: {}\n", hex(good)));
            msg.push_str(&format!("       Received CRC: {}\n", hex(bad)));
        }
        log.err(&msg);
        if !self.dump {
            return;
        }
        let start = if hdr.is_some() { n * inc } else { 0 };
        let end = (start + len).min(buf.len());
        dump_file(
            self.dump_dir.as_deref(),
            rb.file,
            at,
            "received",
            &buf[start..end],
            log,
        );
        // Regenerate what the write carried, from the header's seed.
        let mut expected = vec![0u8; buf.len()];
        let seed = hdr.map_or(0, |h| h.rand_seed);
        let numberio = hdr.map_or(0, |h| h.numberio);
        self.fill(&mut expected, rb.offset, numberio, rb.time, seed);
        dump_file(
            self.dump_dir.as_deref(),
            rb.file,
            at,
            "expected",
            &expected[start..end],
            log,
        );
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// fio's `dump_buf`: `BASENAME.OFFSET.TYPE` in `dir` (`--aux-path`), or
/// in the working directory.
fn dump_file(
    dir: Option<&std::path::Path>,
    file: &str,
    offset: u64,
    kind: &str,
    data: &[u8],
    log: &dyn Log,
) {
    let base = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned());
    let name = match dir {
        Some(d) => format!("{}/{base}.{offset}.{kind}", d.display()),
        None => format!("{base}.{offset}.{kind}"),
    };
    match std::fs::write(&name, data) {
        Ok(()) => log.err(&format!("       {kind} data dumped as {name}\n")),
        Err(e) => log.err(&format!("open verify buf file: {e}\n")),
    }
}
