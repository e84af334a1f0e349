//! What a verifying job writes and checks: `verify`, `verify_pattern`,
//! `do_verify`, `verify_interval`, `verify_offset`, `verify_fatal`,
//! `verify_dump`, `verify_backlog` and `verify_backlog_batch`,
//! `verify_only`, `verify_state_save`, `experimental_verify`, the trims of
//! written blocks (`trim_percentage`, `trim_verify_zero`, `trim_backlog`,
//! `trim_backlog_batch`), with fio 3.33's defaults, and the verify types
//! fio writes (their numbers and sizes are fio's on-disk format). The
//! verifier (`workload::verify`) reads only these, the job's buffer
//! pattern and its seed table.
//!
//! Two verify options apply whether the job verifies or not, so they are
//! checked on their own: `verify_state_load` ([`state_load`]: fio loads
//! the state file of any job that sets it) and `verify_async_cpus`
//! (checked as `cpus_allowed` is).

use super::read::Opts;
use crate::options::value::pattern::parse_pattern;
use crate::options::Value;
use crate::plan::error::Error;
use crate::release::{Change, Release};

/// `sizeof(struct verify_header)` of fio 3.33 to 3.40: the header before
/// each interval's checksum.
pub(crate) const HDR_LEN: usize = 40;
/// `sizeof(struct verify_header)` from fio 3.41 (versioned, 64-bit
/// `numberio`).
pub(crate) const HDR_LEN_V81: usize = 48;

/// The layout of the verify header a release writes and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderFormat {
    /// fio 3.33 to 3.40: 40 bytes, a 16-bit type and a 16-bit `numberio`.
    V1,
    /// fio 3.41: 48 bytes, version byte 0x81, an 8-bit type, a 64-bit
    /// `numberio` before the job number.
    V81,
}

impl HeaderFormat {
    /// `sizeof(struct verify_header)`.
    pub(crate) fn len(self) -> usize {
        match self {
            HeaderFormat::V1 => HDR_LEN,
            HeaderFormat::V81 => HDR_LEN_V81,
        }
    }
}

/// When the read back checks the header's `numberio` (fio's
/// `verify_write_sequence`, and before 3.38 `!verify_only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeqCheck {
    On,
    Off,
    /// fio 3.40 turns the check off with `norandommap` and `iodepth` > 1
    /// on an engine that queues (not `FIO_SYNCIO`), unless set.
    UnlessQueued,
}

/// fio 3.33's verify types (`enum { VERIFY_NONE, ... }`): the number is
/// what the header's type field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub(crate) enum Kind {
    /// `verify=meta`: the header only.
    HdrOnly = 1,
    Md5 = 2,
    Crc64 = 3,
    Crc32 = 4,
    Crc32c = 5,
    /// Never written by fio 3.33 (`crc32c-intel` writes type 5).
    #[allow(dead_code)]
    Crc32cIntel = 6,
    Crc16 = 7,
    Crc7 = 8,
    Sha256 = 9,
    Sha512 = 10,
    Sha3_224 = 11,
    Sha3_256 = 12,
    Sha3_384 = 13,
    Sha3_512 = 14,
    Xxhash = 15,
    Sha1 = 16,
    /// `verify_pattern` without `verify`: a header, then the pattern.
    Pattern = 17,
    /// `verify=pattern`: the pattern alone, no header.
    PatternNoHdr = 18,
    /// `verify=null`: nothing written, nothing checked.
    Null = 19,
}

impl Kind {
    /// The type `verify=NAME` selects (fio's option values; `crc32c-intel`
    /// writes plain crc32c headers, as fio does).
    pub(crate) fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "md5" => Kind::Md5,
            "crc64" => Kind::Crc64,
            "crc32" => Kind::Crc32,
            "crc32c" | "crc32c-intel" => Kind::Crc32c,
            "crc16" => Kind::Crc16,
            "crc7" => Kind::Crc7,
            "sha1" => Kind::Sha1,
            "sha256" => Kind::Sha256,
            "sha512" => Kind::Sha512,
            "sha3-224" => Kind::Sha3_224,
            "sha3-256" => Kind::Sha3_256,
            "sha3-384" => Kind::Sha3_384,
            "sha3-512" => Kind::Sha3_512,
            "xxhash" => Kind::Xxhash,
            "meta" => Kind::HdrOnly,
            // fio 3.40's name for a pattern with a header (its table has it).
            "pattern_hdr" => Kind::Pattern,
            "pattern" => Kind::PatternNoHdr,
            "null" => Kind::Null,
            _ => return None,
        })
    }

    /// Size of the checksum area after the header (fio's `struct vhdr_*`).
    pub(crate) fn csum_len(self) -> usize {
        match self {
            Kind::Md5 => 16,
            Kind::Crc64 => 8,
            Kind::Crc32 | Kind::Crc32c | Kind::Crc32cIntel | Kind::Xxhash => 4,
            Kind::Crc16 => 2,
            Kind::Crc7 => 1,
            Kind::Sha256 => 64,
            Kind::Sha512 => 128,
            Kind::Sha3_224 => 28,
            Kind::Sha3_256 => 32,
            Kind::Sha3_384 => 48,
            Kind::Sha3_512 => 64,
            Kind::Sha1 => 20,
            Kind::HdrOnly | Kind::Pattern | Kind::PatternNoHdr | Kind::Null => 0,
        }
    }

    /// Header (`hdr_len` bytes) plus checksum (fio's `hdr_size`); 0
    /// without a header.
    pub(crate) fn hdr_size(self, hdr_len: usize) -> usize {
        match self {
            Kind::PatternNoHdr | Kind::Null => 0,
            k => hdr_len + k.csum_len(),
        }
    }

    /// The name fio prints in a checksum failure.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::HdrOnly => "meta",
            Kind::Md5 => "md5",
            Kind::Crc64 => "crc64",
            Kind::Crc32 => "crc32",
            Kind::Crc32c | Kind::Crc32cIntel => "crc32c",
            Kind::Crc16 => "crc16",
            Kind::Crc7 => "crc7",
            Kind::Sha256 => "sha256",
            Kind::Sha512 => "sha512",
            Kind::Sha3_224 => "sha3-224",
            Kind::Sha3_256 => "sha3-256",
            Kind::Sha3_384 => "sha3-384",
            Kind::Sha3_512 => "sha3-512",
            Kind::Xxhash => "xxhash",
            Kind::Sha1 => "sha1",
            Kind::Pattern | Kind::PatternNoHdr => "pattern",
            Kind::Null => "null",
        }
    }
}

/// The order of the written blocks a job reads back (fio's
/// `log_io_piece`: its list, or its rb-tree by file and offset, where a
/// newer write drops the older blocks it overlaps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogOrder {
    /// fio 3.33 … 3.39: in write order when the file has a random map
    /// (a random pattern, `norandommap` unset, not `lfsr`: the workload
    /// knows), else sorted.
    UnlessRandomMap,
    /// From 3.40: in write order, offsets cannot overlap.
    Written,
    /// From 3.40: sorted, offsets may overlap (fio's
    /// `fio_offset_overlap_risk`).
    Sorted,
}

/// `verify_pattern`, as fio's `parse_and_fill_pattern` reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VerifyPattern {
    pub(crate) bytes: Vec<u8>,
    /// Where `%o` (the I/O's offset, 8 bytes little-endian) goes.
    pub(crate) offsets: Vec<usize>,
}

/// What a verifying job writes and checks (`JobSpec::verify`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VerifyOptions {
    pub(crate) kind: Kind,
    /// `do_verify` (default 1): read back what was written.
    pub(crate) do_verify: bool,
    /// `verify_interval` (default: the smallest write size).
    pub(crate) interval: u64,
    /// `verify_offset`: where the header goes in each interval.
    pub(crate) offset: usize,
    pub(crate) pattern: Option<VerifyPattern>,
    /// `verify_fatal`, `verify_dump`.
    pub(crate) fatal: bool,
    pub(crate) dump: bool,
    /// `verify_backlog`, `verify_backlog_batch`.
    pub(crate) backlog: u64,
    pub(crate) backlog_batch: u64,
    /// `verify_only`.
    pub(crate) only: bool,
    /// `verify_state_save` (default 1).
    pub(crate) state_save: bool,
    /// `bs_unaligned`: a header per write, whatever the interval.
    pub(crate) bs_unaligned: bool,
    /// `buffer_compress_percentage` as written (0 to 100): the random data
    /// of a verified write is filled with it, without the buffers'
    /// fix-ups (`JobSpec::buffers`).
    pub(crate) compress_perc: u32,
    /// `experimental_verify`: no written block is logged; the verify phase
    /// replays the pattern's generators and reads back each write (and
    /// trim) they make again.
    pub(crate) experimental: bool,
    /// Trims of logged writes (fio's `trim.c`).
    pub(crate) trim: TrimOptions,
    /// The smallest block size of any direction (fio's `rw_min_bs`): the
    /// experimental verify phase stops when less than one is left to read.
    pub(crate) rw_min_bs: u64,
    /// `verify_async_cpus`, checked. fio pins its `verify_async` threads
    /// there; rfio checks each read on the job's thread, as it completes.
    pub(crate) async_cpus: Option<Vec<usize>>,
    /// The header the release writes and checks.
    pub(crate) header: HeaderFormat,
    /// Whether the header's `numberio` is checked (with the conditions
    /// fio adds: a job that writes fixed-size blocks, not time based).
    pub(crate) write_sequence: SeqCheck,
    /// The order the written blocks wait in for their read back.
    pub(crate) log_order: LogOrder,
    /// Whether the header's `rand_seed` is checked against the seed the
    /// read back draws (`verify_header_seed`; before 3.40, only in a job
    /// that reads and writes without `verify_backlog`).
    pub(crate) header_seed: bool,
    /// fio 3.39's sha512: the real digest (3.33 stored its last block).
    pub(crate) sha512_final: bool,
    /// Reads that verify still count as the pass's bytes (so `loops`
    /// makes another pass): from 3.37, in a job that does not write.
    pub(crate) verified_reads_count: bool,
    /// `verify_pattern_interval` (0: none): the pattern restarts, with the
    /// offset of the piece pasted, every this many bytes of a write.
    /// `None` in a release without it (3.33's pattern check, which counts
    /// a bad byte's offset from the data, not from the interval's start).
    pub(crate) pattern_interval: Option<u64>,
}

/// `trim_percentage`, `trim_verify_zero`, `trim_backlog`,
/// `trim_backlog_batch`: which logged writes are trimmed, when, and
/// whether their read back must be zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TrimOptions {
    /// `trim_percentage` (0 to 100): the chance that a logged write is
    /// put on the trim list.
    pub(crate) percentage: u32,
    /// `trim_verify_zero` (default 1): a trimmed block stays logged and
    /// its read back must be zeros; 0: it is dropped from the log.
    pub(crate) zero: bool,
    /// `trim_backlog`: trim when the log holds a multiple of this many
    /// blocks (0: never).
    pub(crate) backlog: u64,
    /// `trim_backlog_batch` (0: `trim_backlog`).
    pub(crate) batch: u64,
    /// A batch starts after anything but a trim and only with a trim to
    /// issue, and ends when the trim list runs out
    /// (`Change::TrimBacklogBatches`; 3.33: after anything but a read).
    pub(crate) batches_fixed: bool,
}

/// What of a job's `rw=` pattern (and the rest of the job) the verify
/// options depend on.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rw {
    pub(super) read: bool,
    pub(super) write: bool,
    pub(super) trim: bool,
    pub(super) random: bool,
    /// `norandommap` in force: set, or set by fio's fix-ups (`sprandom`,
    /// `write_zone_remainder`).
    pub(super) norandommap: bool,
    /// fio's `fio_offset_overlap_risk`: `norandommap`, `softrandommap`,
    /// or an `rw=…:N` modifier (the written blocks go to fio's rb-tree).
    pub(super) overlap_risk: bool,
    /// `zone_reset_frequency` above 0.
    pub(super) zone_resets: bool,
    /// The job's `iodepth`.
    pub(super) iodepth: u32,
    pub(super) release: Release,
}

/// The verify options of a job with block sizes `bs` (minimum and
/// maximum per direction) and pattern `p`: `None` when it does not
/// verify. A setting it cannot run with goes to `bad` (the job does not
/// verify then).
pub(super) fn resolve(
    o: Opts<'_>,
    bs: &[(u64, u64); 3],
    p: Rw,
    bad: &mut Vec<String>,
) -> Option<VerifyOptions> {
    let cpus = async_cpus(o, super::placement::cpus_configured(), bad);
    let mut v = resolve_checked(o, bs, p)
        .map_err(|e| bad.push(e.to_string()))
        .ok()
        .flatten()?;
    v.async_cpus = cpus;
    Some(v)
}

/// `verify_state_load`: fio loads the job's state file before it starts,
/// whether the job verifies or not (and fails the job when it cannot).
pub(super) fn state_load(o: Opts<'_>) -> bool {
    o.is("verify_state_load")
}

/// `verify_async_cpus`, checked as fio's `str_verify_cpus_allowed_cb`
/// checks it (a CPU beyond the `max` configured is refused), whether the
/// job verifies or not. rfio checks a read on the job's own thread, so
/// there are no verify threads to place on these CPUs.
fn async_cpus(o: Opts<'_>, max: usize, bad: &mut Vec<String>) -> Option<Vec<usize>> {
    let Some(Value::Cpus(cpus)) = o.value("verify_async_cpus") else {
        return None;
    };
    if let Some(&c) = cpus.iter().find(|&&c| c >= max) {
        bad.push(format!("CPU {c} too large (max={})", max - 1));
        return None;
    }
    Some(cpus.clone())
}

fn resolve_checked(
    o: Opts<'_>,
    bs: &[(u64, u64); 3],
    p: Rw,
) -> Result<Option<VerifyOptions>, Error> {
    let min_write = bs[1].0;
    let int = |n: &str| o.bytes_or_zero(n);
    let Some((kind, pattern)) = kind_and_pattern(o, p.release)? else {
        return Ok(None);
    };
    let mut interval = int("verify_interval");
    if interval == 0 {
        interval = min_write.max(1);
    }
    let offset = int("verify_offset") as usize;
    let release = p.release;
    let header = if release.has(Change::VerifyHeaderV81) {
        HeaderFormat::V81
    } else {
        HeaderFormat::V1
    };
    let hs = kind.hdr_size(header.len());
    if release.has(Change::VerifyOffsetInInterval) && (offset + header.len()) as u64 > interval {
        return Err(Error::VerifyOffsetBeyond);
    }
    if hs > 0 && offset > 0 && offset as u64 + hs as u64 > interval {
        return Err(Error::HeaderOutsideInterval {
            offset,
            header: hs,
            interval,
        });
    }
    if hs > 0 && hs as u64 >= interval {
        return Err(Error::IntervalTooSmall {
            kind: kind.name(),
            interval,
            header: hs,
        });
    }
    let do_verify = o.flag_or_default("do_verify");
    let experimental = o.is("experimental_verify");
    let trim = TrimOptions {
        percentage: o.int_or_default("trim_percentage").clamp(0, 100) as u32,
        zero: o.flag_or_default("trim_verify_zero"),
        backlog: int("trim_backlog"),
        batch: int("trim_backlog_batch"),
        batches_fixed: release.has(Change::TrimBacklogBatches),
    };
    // fio trims a logged block only in a job that trims: in any other it
    // stops on an assertion (`fio_ro_check`) at its first such trim.
    if trim.percentage > 0 && trim.backlog > 0 && do_verify && p.write && !p.trim && !experimental {
        return Err(Error::TrimNeedsTrims {
            backlog: trim.backlog,
            percentage: trim.percentage,
        });
    }
    // Blocks on the trim list keep fio's pass going until the pattern
    // ends; a random pattern without a map never does.
    let logs = do_verify && p.write && !experimental;
    let backlog = int("verify_backlog");
    if trim.percentage > 0
        && trim.backlog == 0
        && backlog == 0
        && logs
        && p.random
        && p.norandommap
        && !o.is("time_based")
    {
        return Err(Error::TrimNeverEnds {
            percentage: trim.percentage,
        });
    }
    Ok(Some(VerifyOptions {
        kind,
        do_verify,
        interval,
        offset,
        pattern,
        fatal: o.is("verify_fatal"),
        dump: o.is("verify_dump"),
        backlog,
        backlog_batch: int("verify_backlog_batch"),
        only: o.is("verify_only"),
        state_save: o.flag_or_default("verify_state_save"),
        bs_unaligned: o.is("bs_unaligned"),
        compress_perc: o.int_or_zero("buffer_compress_percentage").clamp(0, 100) as u32,
        experimental,
        trim,
        rw_min_bs: bs.iter().map(|b| b.0).min().unwrap_or(4096).max(1),
        async_cpus: None,
        header,
        write_sequence: write_sequence(o, p),
        log_order: if !release.has(Change::VerifyLogByOverlapRisk) {
            LogOrder::UnlessRandomMap
        } else if p.overlap_risk {
            LogOrder::Sorted
        } else {
            LogOrder::Written
        },
        header_seed: header_seed(o, p, backlog),
        sha512_final: release.has(Change::Sha512Final),
        verified_reads_count: release.has(Change::VerifiedReadsCount) && !p.write,
        pattern_interval: release
            .has(Change::Option("verify_pattern_interval"))
            .then(|| o.bytes_or_default("verify_pattern_interval")),
    }))
}

/// The verify type and `verify_pattern` (`None`: the job does not verify).
fn kind_and_pattern(
    o: Opts<'_>,
    release: crate::release::Release,
) -> Result<Option<(Kind, Option<VerifyPattern>)>, Error> {
    let pattern = match o.text("verify_pattern") {
        Some(t) if !t.is_empty() => {
            let limit = crate::options::value::pattern::max_size(release);
            let p = parse_pattern(t, true, limit).map_err(Error::VerifyPattern)?;
            Some(VerifyPattern {
                bytes: p.bytes,
                offsets: p.offsets,
            })
        }
        _ => None,
    };
    let kind = match o.choice("verify") {
        None | Some("0") => {
            if pattern.is_some() {
                Kind::Pattern
            } else {
                return Ok(None);
            }
        }
        Some(name) => Kind::from_name(name).ok_or_else(|| Error::UnknownVerify {
            name: name.to_string(),
        })?,
    };
    if kind == Kind::PatternNoHdr && pattern.is_none() {
        return Err(Error::PatternNeeded);
    }
    Ok(Some((kind, pattern)))
}

/// Whether the read back checks `numberio`: `verify_write_sequence` as
/// set; else on, but off with `verify_only` (fio 3.38, and 3.33's rule),
/// and from 3.40 off with `norandommap` at `iodepth` above 1 on an engine
/// that queues.
fn write_sequence(o: Opts<'_>, p: Rw) -> SeqCheck {
    match o.flag("verify_write_sequence") {
        Some(true) => SeqCheck::On,
        Some(false) => SeqCheck::Off,
        None if o.is("verify_only") => SeqCheck::Off,
        None if p.release.has(Change::WriteSequenceQueued) && p.norandommap && p.iodepth > 1 => {
            SeqCheck::UnlessQueued
        }
        None => SeqCheck::On,
    }
}

/// Whether the read back checks the header's seed. From 3.40:
/// `verify_header_seed` as set; else on, but off with `verify_only`, in a
/// job that does not write, with `verify_backlog`, zone resets, or an
/// offset pattern that may overlap (fio's `fio_offset_overlap_risk`).
/// Before: only a job that reads and writes, without `verify_backlog`
/// (fio 3.33 took the header's seed as the expected one otherwise).
fn header_seed(o: Opts<'_>, p: Rw, backlog: u64) -> bool {
    if !p.release.has(Change::HeaderSeedCheck) {
        return p.read && p.write && backlog == 0;
    }
    if let Some(set) = o.flag("verify_header_seed") {
        return set;
    }
    !(o.is("verify_only") || !p.write || backlog > 0 || p.zone_resets || p.overlap_risk)
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::{frontend, job};

    use super::*;

    #[test]
    fn no_verify_without_a_type_or_pattern() {
        assert_eq!(job(&["--name=x", "--size=1m"]).verify, None);
        let v = job(&["--name=x", "--size=1m", "--verify_pattern=0xab"]).verify;
        assert_eq!(v.map(|v| v.kind), Some(Kind::Pattern));
    }

    #[test]
    fn defaults_follow_fio() {
        let v = job(&["--name=x", "--size=1m", "--bs=8k", "--verify=crc32c"])
            .verify
            .expect("verifies");
        assert_eq!(v.kind, Kind::Crc32c);
        assert_eq!(v.interval, 8192);
        assert!(v.do_verify && v.state_save && !v.fatal && !v.only);
        let v = job(&[
            "--name=x",
            "--size=1m",
            "--verify=crc32c-intel",
            "--verify_interval=1k",
            "--verify_offset=200",
            "--verify_backlog=4",
            "--do_verify=0",
        ])
        .verify
        .expect("verifies");
        assert_eq!((v.kind, v.interval, v.offset), (Kind::Crc32c, 1024, 200));
        assert_eq!(v.backlog, 4);
        assert!(!v.do_verify);
    }

    #[test]
    fn trims_experimental_verify_and_state_load_follow_fio() {
        let j = job(&["--name=x", "--size=1m", "--bs=8k,8k,2k", "--verify=md5"]);
        let v = j.verify.expect("verifies");
        assert_eq!(
            v.trim,
            TrimOptions {
                percentage: 0,
                zero: true,
                backlog: 0,
                batch: 0,
                batches_fixed: false,
            }
        );
        assert!(!v.experimental && !j.verify_state_load);
        assert_eq!((v.rw_min_bs, v.async_cpus), (2048, None));
        let j = job(&[
            "--name=x",
            "--size=1m",
            "--rw=trimwrite",
            "--verify=md5",
            "--trim_percentage=30",
            "--trim_verify_zero=0",
            "--trim_backlog=2k",
            "--trim_backlog_batch=3",
            "--experimental_verify=1",
            "--verify_state_load=1",
            "--verify_async_cpus=0",
        ]);
        let v = j.verify.expect("verifies");
        assert_eq!(
            v.trim,
            TrimOptions {
                percentage: 30,
                zero: false,
                backlog: 2048,
                batch: 3,
                batches_fixed: false,
            }
        );
        assert!(v.experimental && j.verify_state_load);
        assert_eq!(v.async_cpus, Some(vec![0]));
        // verify_state_load stands without verify (fio loads the file).
        assert!(job(&["--name=x", "--size=1m", "--verify_state_load=1"]).verify_state_load);
    }

    /// Plan errors when the job is to run (fio's dry runs skip the
    /// checks).
    #[test]
    fn settings_that_cannot_run_are_plan_errors() {
        for (opts, msg) in [
            (
                &["--verify=pattern"][..],
                "verify=pattern needs a verify_pattern",
            ),
            (
                &[
                    "--verify=md5",
                    "--verify_interval=4096",
                    "--verify_offset=4050",
                ][..],
                "verify_offset=4050: the header (56 bytes) must fit in verify_interval=4096",
            ),
            (
                &["--verify=sha512", "--bs=128"][..],
                "verify=sha512: verify_interval=128 is too small for its 168-byte header",
            ),
            (
                &[
                    "--rw=randwrite",
                    "--verify=md5",
                    "--trim_percentage=5",
                    "--trim_backlog=1",
                ][..],
                "trim_backlog=1 with trim_percentage=5: trimming written blocks needs a job \
                 that trims (rw=trimwrite or randtrimwrite); fio 3.33 aborts at the first trim",
            ),
            (
                &[
                    "--rw=randrw",
                    "--norandommap",
                    "--verify=md5",
                    "--trim_percentage=5",
                ][..],
                "trim_percentage=5 without trim_backlog or verify_backlog on a random \
                 pattern without a random map: fio 3.33 never ends the job (its trim list \
                 never empties)",
            ),
            (
                &["--verify_async_cpus=1000"][..],
                "CPU 1000 too large (max=",
            ),
        ] {
            let mut argv = vec!["--name=x", "--size=1m", "--numjobs=2"];
            argv.extend(opts);
            let diags = frontend(&argv).diags.to_string();
            let want = format!("rfio: command line argument 1: job 'x': {msg}");
            assert!(diags.starts_with(&want), "{opts:?}: {diags}");
            argv.insert(0, "--parse-only");
            assert!(frontend(&argv).diags.is_empty(), "{opts:?}");
        }
    }
}
