//! The layouts of fio's `struct thread_io_list` (`verify-state.h`), one
//! per state file version, little-endian, C padding kept:
//!
//! - version 3 (3.33 … 3.38): completions kept (u64), `iodepth` (u32),
//!   files (u32), writes issued, the job's index, the offset generator
//!   (56 bytes), the name (64), then `iodepth` × files slots of
//!   `(file number, offset)`: 152 bytes before the slots.
//! - version 4 (3.39, 3.40): as 3, with the completions kept per file
//!   (u32) after `iodepth`, and 4 bytes of padding after the files; that
//!   many slots per file: 160 bytes before them.
//! - version 5 (3.41 on): `iodepth` (u32, padded), the writes issued, the
//!   index, the generator, the name, then `iodepth` in-flight `numberio`s
//!   (u64, `UINT64_MAX` for an empty slot): 144 bytes before them.

use super::WriteComps;
use crate::release::{Change, Release};

/// A state file version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    V3,
    V4,
    V5,
}

/// fio's `INVALID_NUMBERIO`: an in-flight slot with no write.
pub(super) const NO_WRITE: u64 = u64::MAX;

impl Format {
    /// The format `release` writes, and the only one it reads.
    pub(crate) fn of(release: Release) -> Format {
        if release.has(Change::VerifyStateInflight) {
            Format::V5
        } else if release.has(Change::VerifyStateCompDepth) {
            Format::V4
        } else {
            Format::V3
        }
    }

    /// fio's `VSTATE_HDR_VERSION`.
    pub(crate) fn version(self) -> u64 {
        match self {
            Format::V3 => 3,
            Format::V4 => 4,
            Format::V5 => 5,
        }
    }

    /// `sizeof(struct thread_io_list)`, before its slots.
    pub(super) fn list_len(self) -> usize {
        match self {
            Format::V3 => 152,
            Format::V4 => 160,
            Format::V5 => 144,
        }
    }

    /// How many completions a job keeps per file (fio's
    /// `last_write_comp_depth`): `iodepth`, twice it from version 4 on
    /// an engine that queues (`!is_sync`).
    pub(crate) fn comps_depth(self, iodepth: u32, is_sync: bool) -> usize {
        let d = iodepth.max(1) as usize;
        if self == Format::V4 && !is_sync {
            2 * d
        } else {
            d
        }
    }
}

/// What a writing job saves of itself.
#[derive(Debug)]
pub(crate) struct Saved<'a> {
    pub(crate) name: &'a str,
    /// The job's place among all jobs (0 first).
    pub(crate) index: u32,
    pub(crate) iodepth: u32,
    pub(crate) files: u32,
    /// Writes issued (fio's `io_issues[DDIR_WRITE]`, 3.41's
    /// `inflight_issued`).
    pub(crate) numberio: u64,
    /// The offset generator ([`crate::rand::FioRand::saved`]).
    pub(crate) rand: [u8; 56],
    /// The last completed writes, if the job kept them (a job a trigger
    /// stopped may not have).
    pub(crate) comps: Option<&'a WriteComps>,
}

/// `sizeof(struct thread_io_list)` and slots of `s` in `format`: the
/// body the header's size and crc cover.
pub(super) fn encode(format: Format, s: &Saved<'_>) -> Vec<u8> {
    let entries = s.comps.map(WriteComps::entries).unwrap_or_default();
    let mut b = Vec::with_capacity(format.list_len() + 16 * entries.len());
    let u64_ = |b: &mut Vec<u8>, v: u64| b.extend_from_slice(&v.to_le_bytes());
    let u32_ = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    let per_file = match format {
        // 3.33 sizes the slots by iodepth, kept or not.
        Format::V3 => s.iodepth as usize,
        Format::V4 => s.comps.map_or(0, |c| c.depth),
        Format::V5 => 0,
    };
    match format {
        Format::V3 => {
            u64_(&mut b, entries.len() as u64);
            u32_(&mut b, s.iodepth);
            u32_(&mut b, s.files);
        }
        Format::V4 => {
            u64_(&mut b, entries.len() as u64);
            u32_(&mut b, s.iodepth);
            u32_(&mut b, per_file as u32);
            u32_(&mut b, s.files);
            u32_(&mut b, 0);
        }
        Format::V5 => u64_(&mut b, u64::from(s.iodepth)),
    }
    u64_(&mut b, s.numberio);
    u64_(&mut b, u64::from(s.index));
    b.extend_from_slice(&s.rand);
    let mut name = [0u8; 64];
    let n = s.name.len().min(63);
    name[..n].copy_from_slice(&s.name.as_bytes()[..n]);
    b.extend_from_slice(&name);
    debug_assert_eq!(b.len(), format.list_len());
    if format == Format::V5 {
        // A job saves its state when its writes are done: none in flight.
        for _ in 0..s.iodepth {
            u64_(&mut b, NO_WRITE);
        }
        return b;
    }
    for i in 0..per_file * s.files as usize {
        let (f, o) = entries.get(i).copied().unwrap_or((0, 0));
        u64_(&mut b, f);
        u64_(&mut b, o);
    }
    b
}

/// What a read back needs of a body fio's checks accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The writing job's `iodepth`.
    pub(crate) depth: u64,
    /// Writes it issued.
    pub(crate) numberio: u64,
    /// Its last completed writes, (file number, offset) (versions 3, 4).
    pub(crate) comps: Vec<(u64, u64)>,
    /// The `numberio`s of its writes in flight (version 5).
    pub(crate) inflight: Vec<u64>,
}

fn le64(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// The fields of `body` in `format` (fio's `verify_assign_state`); what
/// lies past the body reads as nothing, as fio would read past it.
pub(super) fn decode(format: Format, body: &[u8]) -> Decoded {
    let list = format.list_len();
    let slots = |n: u64, width: usize| {
        (0..n as usize)
            .map(move |i| list + width * i)
            .take_while(move |at| at + width <= body.len())
    };
    match format {
        Format::V3 | Format::V4 => {
            let numberio = if format == Format::V3 { 16 } else { 24 };
            Decoded {
                depth: u64::from(le32(body, 8)),
                numberio: le64(body, numberio),
                comps: slots(le64(body, 0), 16)
                    .map(|at| (le64(body, at), le64(body, at + 8)))
                    .collect(),
                inflight: Vec::new(),
            }
        }
        Format::V5 => {
            let depth = u64::from(le32(body, 0));
            Decoded {
                depth,
                numberio: le64(body, 8),
                comps: Vec::new(),
                inflight: slots(depth, 8).map(|at| le64(body, at)).collect(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::FioRand;

    fn saved<'a>(comps: Option<&'a WriteComps>, rand: [u8; 56]) -> Saved<'a> {
        Saved {
            name: "w",
            index: 0,
            iodepth: 1,
            files: 1,
            numberio: 256,
            rand,
            comps,
        }
    }

    fn one_write_comps(depth: usize) -> WriteComps {
        let mut c = WriteComps::new(depth, 1);
        for i in 0..256u64 {
            c.record(0, i * 4096);
        }
        c
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// fio 3.33's body for `--name=w --size=1M --bs=4k --rw=write
    /// --verify=crc32c --verify_state_save=1` (`xxd` of its file from 24
    /// on): one completion kept, the last offset 0xff000, the generator
    /// never seeded.
    #[test]
    fn version_3_as_fio_3_33_writes_it() {
        let c = one_write_comps(1);
        let b = encode(Format::V3, &saved(Some(&c), [0; 56]));
        assert_eq!(b.len(), 168);
        assert_eq!(
            hex(&b[..40]),
            "0100000000000000010000000100000000010000000000000000000000000000\
             0000000000000000"
        );
        assert_eq!(b[88], b'w');
        assert_eq!(hex(&b[152..]), "000000000000000000f00f0000000000");
        assert_eq!(
            crate::workload::verify::checksum::fio_crc32c(&b),
            0x406c_e23b
        );
        let d = decode(Format::V3, &b);
        assert_eq!((d.depth, d.numberio), (1, 256));
        assert_eq!(d.comps, [(0, 0xff000)]);
    }

    /// fio 3.42's body for the same job: iodepth, writes issued, the
    /// seeded offset generator of job 1, one empty in-flight slot.
    #[test]
    fn version_5_as_fio_3_42_writes_it() {
        let seeds = crate::rand::Seeds::new(
            1,
            true,
            None,
            false,
            crate::rand::Generator::Tausworthe,
            crate::rand::SeedRule::FromRandseed,
        );
        let rand = seeds.rand_job(crate::rand::Slot::Block).saved();
        assert_eq!(
            hex(&rand[..24]),
            "00000000000000005bcba8a49aaa2ceb30e25e4800000000"
        );
        let b = encode(Format::V5, &saved(None, rand));
        assert_eq!(b.len(), 152);
        assert_eq!(
            hex(&b[..24]),
            "010000000000000000010000000000000000000000000000"
        );
        assert_eq!(b[80], b'w');
        assert_eq!(hex(&b[144..]), "ffffffffffffffff");
        assert_eq!(
            crate::workload::verify::checksum::fio_crc32c(&b),
            0x7cad_17af
        );
        let d = decode(Format::V5, &b);
        assert_eq!((d.depth, d.numberio), (1, 256));
        assert_eq!(d.inflight, [NO_WRITE]);
        assert!(d.comps.is_empty());
    }

    /// Version 4: the completions kept per file after iodepth, twice
    /// iodepth on an engine that queues, none when the job kept none.
    #[test]
    fn version_4_keeps_twice_the_depth_when_queued() {
        assert_eq!(Format::V4.comps_depth(2, false), 4);
        assert_eq!(Format::V4.comps_depth(2, true), 2);
        assert_eq!(Format::V3.comps_depth(2, false), 2);
        let c = one_write_comps(2);
        let mut s = saved(Some(&c), FioRand::new(7, true).saved());
        s.iodepth = 1;
        let b = encode(Format::V4, &s);
        assert_eq!(b.len(), 160 + 2 * 16);
        assert_eq!(
            hex(&b[..24]),
            "020000000000000001000000020000000100000000000000"
        );
        assert_eq!(le64(&b, 40), 1, "use64");
        let d = decode(Format::V4, &b);
        assert_eq!((d.depth, d.numberio), (1, 256));
        assert_eq!(d.comps, [(0, 0xff000), (0, 0xfe000)]);
        let none = encode(Format::V4, &saved(None, [0; 56]));
        assert_eq!(none.len(), 160);
        assert_eq!(le32(&none, 12), 0);
        // Version 3 sizes its slots by iodepth even then.
        assert_eq!(encode(Format::V3, &saved(None, [0; 56])).len(), 168);
    }

    #[test]
    fn the_release_chooses_the_format() {
        let of = |v: &str| Format::of(Release::parse(v).unwrap());
        assert_eq!(of("3.33"), Format::V3);
        assert_eq!(of("3.38"), Format::V3);
        assert_eq!(of("3.39"), Format::V4);
        assert_eq!(of("3.40"), Format::V4);
        assert_eq!(of("3.41"), Format::V5);
        assert_eq!(of("3.42").version(), 5);
    }
}
