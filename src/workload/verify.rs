//! Data verification (fio 3.33's `verify.c`): what a write carries so it
//! can be checked, the list of written blocks to read back (fio's io
//! pieces), and the checks of the reads that follow.
//!
//! # What a write carries
//!
//! A verified write is filled first (random data from the job's verify
//! generator, or `verify_pattern`), then every `verify_interval` bytes get
//! fio's 40-byte header, little-endian, followed by the checksum of the rest
//! of the interval:
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | magic `0xacca` |
//! | 2..4 | verify type (fio's `VERIFY_*` number, [`Kind`]) |
//! | 4..8 | interval length |
//! | 8..16 | random seed of the data (0 with a pattern) |
//! | 16..24 | offset of the interval in the file |
//! | 24..32 | issue time (seconds, nanoseconds; never checked) |
//! | 32..34 | job number |
//! | 34..36 | `numberio`: how many writes the job issued before this one |
//! | 36..40 | crc32c (fio's: no final inversion) of bytes 0..36 |
//!
//! With `verify_offset` the header (and checksum) is swapped with the bytes
//! at that offset of the interval after the checksum is taken.
//!
//! The checksums are fio's, byte for byte, quirks included (checked against
//! files fio 3.33 writes): crc32 is the unreflected 0x04c11db7 CRC from 0
//! without final inversion, crc32c is stored inverted, sha1 stores its
//! words little-endian, fio's sha256 stores the final padded block (with a
//! little-endian bit length) with the low byte of each state word over its
//! first 8 bytes, and fio's sha512 stores the last block buffer of its
//! update (so it checks the first 128 and the last `len % 128` bytes).
//!
//! # Reading back
//!
//! Completed writes are logged as [`Piece`]s: in write order when the job
//! has a random map (fio's list), else sorted by file and offset with
//! overlapping older writes dropped (fio's rb-tree). The verify phase, and
//! `verify_backlog` during the writes, take them from the front.
//!
//! Everything here that runs per I/O is allocation free; only a failure
//! (its messages and dump files) allocates.

use std::collections::VecDeque;

use super::buffers::fill_percentage;
use super::runner::Log;
use crate::plan::resolve::verify::VerifyPattern;
pub(crate) use crate::plan::resolve::verify::{Kind, HDR_LEN};
use crate::plan::spec::JobSpec;
use crate::rand::{FioRand, Generator, Slot};

/// fio's `FIO_HDR_MAGIC`.
pub const MAGIC: u16 = 0xacca;
/// The errno of a failed check (`EILSEQ`).
pub const EILSEQ: i32 = libc::EILSEQ;

// ---------------------------------------------------------------------------
// Checksums, as fio 3.33 computes and stores them.

/// fio's `fio_crc32c`: Castagnoli, from all ones, without final inversion.
pub fn fio_crc32c(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

/// fio's `fio_crc32`: polynomial 0x04c11db7, unreflected, from 0, no
/// final inversion.
const CRC32_FIO: crc::Algorithm<u32> = crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
};
static CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&CRC32_FIO);
/// fio's `fio_crc64`: the reflected ECMA-style table of 0x95ac9329ac4bc9b5
/// from 0 (CRC-64/REDIS).
static CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);
/// fio's `fio_crc16`: the 0x8005 reflected table from 0 (CRC-16/ARC).
static CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);
/// fio's `fio_crc7`: x^7 + x^3 + 1 from 0 (CRC-7/MMC).
static CRC7: crc::Crc<u8> = crc::Crc::<u8>::new(&crc::CRC_7_MMC);

/// SHA-256's initial state.
const SHA256_H0: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

fn sha256_blocks(state: &mut [u32; 8], data: &[u8]) {
    use sha2::digest::generic_array::GenericArray;
    for block in data.chunks_exact(64) {
        sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
    }
}

/// What fio 3.33's sha256 leaves in its 64-byte buffer: the final padded
/// block (fio appends the bit length little-endian) with the low byte of
/// each state word over its first 8 bytes.
fn fio_sha256(data: &[u8], out: &mut [u8]) {
    let mut state = SHA256_H0;
    let full = data.len() / 64 * 64;
    sha256_blocks(&mut state, &data[..full]);
    let rem = &data[full..];
    let mut tail = [0u8; 128];
    tail[..rem.len()].copy_from_slice(rem);
    tail[rem.len()] = 0x80;
    let n = if rem.len() < 56 { 64 } else { 128 };
    tail[n - 8..n].copy_from_slice(&((data.len() as u64) << 3).to_le_bytes());
    sha256_blocks(&mut state, &tail[..n]);
    out[..64].copy_from_slice(&tail[n - 64..n]);
    for (o, s) in out.iter_mut().zip(state) {
        *o = s as u8;
    }
}

/// What fio 3.33's sha512 leaves in its 128-byte buffer (it never
/// finalises): the first block, then the trailing partial block over it.
/// Shorter data only fills its own length.
fn fio_sha512(data: &[u8], out: &mut [u8]) {
    let n = data.len();
    if n < 128 {
        out[..n].copy_from_slice(data);
        return;
    }
    out[..128].copy_from_slice(&data[..128]);
    let rem = n % 128;
    out[..rem].copy_from_slice(&data[n - rem..]);
}

/// The checksum of `data` as fio stores it, into `out[..kind.csum_len()]`.
/// Allocation free.
pub fn checksum(kind: Kind, data: &[u8], out: &mut [u8]) {
    use sha2::Digest;
    match kind {
        Kind::Md5 => out[..16].copy_from_slice(&md5::Md5::digest(data)),
        Kind::Crc64 => out[..8].copy_from_slice(&CRC64.checksum(data).to_le_bytes()),
        Kind::Crc32 => out[..4].copy_from_slice(&CRC32.checksum(data).to_le_bytes()),
        Kind::Crc32c | Kind::Crc32cIntel => {
            out[..4].copy_from_slice(&fio_crc32c(data).to_le_bytes())
        }
        Kind::Crc16 => out[..2].copy_from_slice(&CRC16.checksum(data).to_le_bytes()),
        Kind::Crc7 => out[0] = CRC7.checksum(data),
        Kind::Xxhash => out[..4].copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes()),
        Kind::Sha1 => {
            let d = sha1::Sha1::digest(data);
            for (o, w) in out[..20].chunks_exact_mut(4).zip(d.chunks_exact(4)) {
                o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
        }
        Kind::Sha256 => fio_sha256(data, out),
        Kind::Sha512 => fio_sha512(data, out),
        Kind::Sha3_224 => out[..28].copy_from_slice(&sha3::Sha3_224::digest(data)),
        Kind::Sha3_256 => out[..32].copy_from_slice(&sha3::Sha3_256::digest(data)),
        Kind::Sha3_384 => out[..48].copy_from_slice(&sha3::Sha3_384::digest(data)),
        Kind::Sha3_512 => out[..64].copy_from_slice(&sha3::Sha3_512::digest(data)),
        Kind::HdrOnly | Kind::Pattern | Kind::PatternNoHdr | Kind::Null => {}
    }
}

// ---------------------------------------------------------------------------
// The header.

/// One interval's header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub magic: u16,
    pub kind: u16,
    pub len: u32,
    pub rand_seed: u64,
    pub offset: u64,
    pub time_sec: u32,
    pub time_nsec: u32,
    pub thread: u16,
    pub numberio: u16,
    pub crc32: u32,
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl Header {
    /// Read a header from the first [`HDR_LEN`] bytes of `b`.
    pub fn read(b: &[u8]) -> Header {
        Header {
            magic: le16(b, 0),
            kind: le16(b, 2),
            len: le32(b, 4),
            rand_seed: le64(b, 8),
            offset: le64(b, 16),
            time_sec: le32(b, 24),
            time_nsec: le32(b, 28),
            thread: le16(b, 32),
            numberio: le16(b, 34),
            crc32: le32(b, 36),
        }
    }

    /// Write this header (its crc recomputed) into `b[..HDR_LEN]`.
    pub fn write(&self, b: &mut [u8]) {
        b[0..2].copy_from_slice(&self.magic.to_le_bytes());
        b[2..4].copy_from_slice(&self.kind.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        b[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        b[32..34].copy_from_slice(&self.thread.to_le_bytes());
        b[34..36].copy_from_slice(&self.numberio.to_le_bytes());
        let crc = fio_crc32c(&b[..36]);
        b[36..40].copy_from_slice(&crc.to_le_bytes());
    }
}

// ---------------------------------------------------------------------------
// The written blocks to read back.

/// A completed write to check later (fio's `struct io_piece`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub file: u32,
    pub len: u32,
    pub offset: u64,
    pub numberio: u16,
}

impl Piece {
    fn end(&self) -> u64 {
        self.offset + u64::from(self.len)
    }
}

/// The written blocks not yet read back (fio's `io_hist_list`, or
/// `io_hist_tree` when sorted). Its capacity is reserved up front, so
/// logging a block does not allocate while the job stays within the size
/// it was planned for.
#[derive(Debug)]
pub struct History {
    sorted: bool,
    q: VecDeque<Piece>,
}

impl History {
    pub fn new(sorted: bool, capacity: usize) -> History {
        History {
            sorted,
            q: VecDeque::with_capacity(capacity),
        }
    }

    /// Log a completed write. Sorted: by file and offset, dropping older
    /// pieces it overlaps (fio's rb-tree insert).
    #[inline]
    pub fn log(&mut self, p: Piece) {
        if !self.sorted {
            self.q.push_back(p);
            return;
        }
        let key = (p.file, p.offset);
        let mut i = self.q.partition_point(|a| (a.file, a.offset) < key);
        while i > 0 {
            let a = self.q[i - 1];
            if a.file == p.file && a.end() > p.offset {
                self.q.remove(i - 1);
                i -= 1;
            } else {
                break;
            }
        }
        while i < self.q.len() {
            let a = self.q[i];
            if a.file == p.file && p.end() > a.offset {
                self.q.remove(i);
            } else {
                break;
            }
        }
        self.q.insert(i, p);
    }

    /// The next block to read back (fio's `get_next_verify`).
    #[inline]
    pub fn pop(&mut self) -> Option<Piece> {
        self.q.pop_front()
    }

    /// Blocks waiting (fio's `io_hist_len`).
    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn clear(&mut self) {
        self.q.clear();
    }
}

// ---------------------------------------------------------------------------
// The job's verify settings.

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
pub struct ReadBack<'a> {
    /// The file's name as fio prints it.
    pub file: &'a str,
    /// The read's offset and length.
    pub offset: u64,
    /// The write's `numberio`, when it must match (a block read back by a
    /// job that wrote it).
    pub numberio: Option<u16>,
    /// fio's `io_u->flags` in the message (`IO_U_F_*`).
    pub flags: u32,
    /// The issue time to regenerate expected data with.
    pub time: (u64, u64),
}

/// fio's `IO_U_F_IN_CUR_DEPTH`.
pub const F_IN_CUR_DEPTH: u32 = 0x8;
/// fio's `IO_U_F_VER_LIST`.
pub const F_VER_LIST: u32 = 0x80;

/// What a verifying job does, and the state it keeps.
#[derive(Debug)]
pub struct Verifier {
    pub kind: Kind,
    /// `do_verify`: read back what was written.
    pub do_verify: bool,
    /// `verify_interval` (default: the smallest write size).
    pub interval: u64,
    pub offset: usize,
    pub pattern: Option<VerifyPattern>,
    /// Scratch for the pattern with its `%o` pasted.
    pasted: Vec<u8>,
    pub fatal: bool,
    pub dump: bool,
    pub backlog: u64,
    pub backlog_batch: u64,
    pub only: bool,
    pub state_save: bool,
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
}

impl Verifier {
    /// The verifier of job `spec` (its verify options, buffer pattern and
    /// seed table), `None` when it does not verify.
    pub fn new(spec: &JobSpec) -> Option<Verifier> {
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
            backlog: o.backlog,
            backlog_batch: o.backlog_batch,
            only: o.only,
            state_save: o.state_save,
            bs_unaligned: o.bs_unaligned,
            thread: spec.thread_number as u16,
            compress_perc: o.compress_perc,
            buffer_pattern: spec.buffers.pattern.clone(),
            state: FioRand::new(seed, use64),
            seed,
            use64,
            repeatable: seeds.repeatable,
            csum: [0; 128],
        })
    }

    /// Start of a loop: fio re-seeds the verify generator with `randrepeat`.
    pub fn reset(&mut self) {
        if self.repeatable {
            self.state = FioRand::new(self.seed, self.use64);
        }
    }

    /// Whether data comes from the random generator (no pattern).
    fn random_data(&self) -> bool {
        self.pattern.is_none()
    }

    /// Draw a read's seed (fio's `get_next_verify` and `do_io` draw one per
    /// verified read; never checked, but it moves the generator).
    #[inline]
    pub fn draw_read_seed(&mut self) -> u64 {
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
    pub fn populate(&mut self, buf: &mut [u8], offset: u64, numberio: u64, time: (u64, u64)) {
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
    pub fn skip_write(&mut self) {
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
                paste(p, offset, &mut self.pasted);
                for chunk in buf.chunks_mut(self.pasted.len()) {
                    chunk.copy_from_slice(&self.pasted[..chunk.len()]);
                }
            }
        }
        let hs = self.kind.hdr_size();
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
                numberio: numberio as u16,
                crc32: 0,
            };
            if chunk.len() <= hs {
                continue;
            }
            h.write(chunk);
            let (head, data) = chunk.split_at_mut(hs);
            checksum(self.kind, data, &mut head[HDR_LEN..]);
            if self.offset > 0 {
                swap_header(chunk, self.offset, hs);
            }
        }
    }

    /// Check a completed read of `buf` (fio's `verify_io_u`): 0, or
    /// `EILSEQ` after printing what fio prints (and dumping with
    /// `verify_dump`). The buffer's headers are swapped back in place.
    /// Allocation free unless a check fails.
    pub fn check(&mut self, buf: &mut [u8], rb: &ReadBack<'_>, log: &dyn Log) -> i32 {
        if self.kind == Kind::Null {
            return 0;
        }
        let inc = self.hdr_inc(buf.len());
        let hs = self.kind.hdr_size();
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
            let hdr = (hs > 0 && chunk.len() >= HDR_LEN).then(|| Header::read(chunk));
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
                        if k == Kind::Sha512 && len - hs < 128 {
                            csum[..cl].copy_from_slice(&chunk[HDR_LEN..hs]);
                        }
                        checksum(k, &chunk[hs..], &mut csum);
                        if csum[..cl] == chunk[HDR_LEN..hs] {
                            0
                        } else {
                            let good = chunk[HDR_LEN..hs].to_vec();
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
        } else if h.len as usize != inc {
            format!("verify: bad header length {}, wanted {}", h.len, inc)
        } else if h.offset != rb.offset + n as u64 * self.interval {
            format!(
                "verify: bad header offset {}, wanted {}",
                h.offset, rb.offset
            )
        } else if rb.numberio.is_some_and(|want| want != h.numberio) {
            format!(
                "verify: bad header numberio {}, wanted {}",
                h.numberio,
                rb.numberio.unwrap_or(0)
            )
        } else {
            let crc = fio_crc32c(&chunk[..36]);
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
            dump_file(rb.file, at, "hdr_fail", chunk, log);
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
        let hs = self.kind.hdr_size();
        paste(p, rb.offset, &mut self.pasted);
        let size = self.pasted.len();
        let data = &buf[(start + hs).min(end)..end];
        let mut m = (inc * n + hs) % size;
        for (i, &b) in data.iter().enumerate() {
            let want = self.pasted[m];
            if b != want {
                log.err(&format!(
                    "fio: got pattern '{b:02x}', wanted '{want:02x}'. Bad bits {}\n",
                    (b ^ want).count_ones()
                ));
                log.err(&format!("fio: bad pattern block offset {i}\n"));
                let hdr = (hs > 0).then(|| Header::read(&buf[start..end]));
                self.failure(buf, n, inc, hdr.as_ref(), "pattern", None, rb, log);
                return EILSEQ;
            }
            m += 1;
            if m == size {
                m = 0;
            }
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
        dump_file(rb.file, at, "received", &buf[start..end], log);
        // Regenerate what the write carried, from the header's seed.
        let mut expected = vec![0u8; buf.len()];
        let seed = hdr.map_or(0, |h| h.rand_seed);
        let numberio = u64::from(hdr.map_or(0, |h| h.numberio));
        self.fill(&mut expected, rb.offset, numberio, rb.time, seed);
        dump_file(rb.file, at, "expected", &expected[start..end], log);
    }
}

/// fio's `memswp` of the header with the bytes at `offset`.
fn swap_header(chunk: &mut [u8], offset: usize, hs: usize) {
    if offset + hs > chunk.len() {
        return;
    }
    let (a, b) = chunk.split_at_mut(offset);
    if offset >= hs {
        a[..hs].swap_with_slice(&mut b[..hs]);
    } else {
        // Overlapping ranges: swap byte by byte through a copy, as memswp.
        let mut tmp = [0u8; 200];
        let n = hs.min(200);
        tmp[..n].copy_from_slice(&chunk[..n]);
        chunk.copy_within(offset..offset + n, 0);
        chunk[offset..offset + n].copy_from_slice(&tmp[..n]);
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// fio's `dump_buf`: `BASENAME.OFFSET.TYPE` in the working directory.
fn dump_file(file: &str, offset: u64, kind: &str, data: &[u8], log: &dyn Log) {
    let base = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned());
    let name = format!("{base}.{offset}.{kind}");
    match std::fs::write(&name, data) {
        Ok(()) => log.err(&format!("       {kind} data dumped as {name}\n")),
        Err(e) => log.err(&format!("open verify buf file: {e}\n")),
    }
}

/// fio's `verify_state_save` file of a writing job: `local-NAME-INDEX-verify.state`,
/// version 3: a header (version, size, crc32c of the rest), then the
/// thread's list: completions kept, depth, files, writes issued, index,
/// random state, name, and the last completed write offsets (newest first).
pub fn state_file(
    name: &str,
    index: u32,
    depth: u32,
    nr_files: u32,
    numberio: u64,
    comps: &[(u64, u64)],
) -> (String, Vec<u8>) {
    let mut s = Vec::with_capacity(152 + 16 * depth as usize * nr_files as usize);
    s.extend_from_slice(&(comps.len() as u64).to_le_bytes());
    s.extend_from_slice(&depth.to_le_bytes());
    s.extend_from_slice(&nr_files.to_le_bytes());
    s.extend_from_slice(&numberio.to_le_bytes());
    s.extend_from_slice(&u64::from(index).to_le_bytes());
    s.extend_from_slice(&[0u8; 56]);
    let mut nm = [0u8; 64];
    let b = name.as_bytes();
    let n = b.len().min(63);
    nm[..n].copy_from_slice(&b[..n]);
    s.extend_from_slice(&nm);
    for i in 0..(depth as usize * nr_files as usize) {
        let (f, o) = comps.get(i).copied().unwrap_or((0, 0));
        s.extend_from_slice(&f.to_le_bytes());
        s.extend_from_slice(&o.to_le_bytes());
    }
    let mut out = Vec::with_capacity(24 + s.len());
    out.extend_from_slice(&3u64.to_le_bytes());
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(&u64::from(fio_crc32c(&s)).to_le_bytes());
    out.extend_from_slice(&s);
    (format!("local-{name}-{index}-verify.state"), out)
}
