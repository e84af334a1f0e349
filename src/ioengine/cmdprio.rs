//! Per-command I/O priorities of the libaio and io_uring engines
//! (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`),
//! as fio 3.33's `engines/cmdprio.c`.
//!
//! An I/O carries the job's own priority (`prio`/`prioclass`, fio's
//! `td->ioprio`; none when neither is set) unless a draw of the job's
//! priority generator picks it for a command priority:
//!
//! - `cmdprio_percentage=P[,P]`: that percentage of the reads (writes) get
//!   `cmdprio_class`/`cmdprio` (class 1, RT, and level 0 by default);
//! - `cmdprio_bssplit=bs/perc[/class/level]:...[,...]`: per block size,
//!   percentages of the I/Os of exactly that size, each with its own
//!   priority or the `cmdprio_class`/`cmdprio` one.
//!
//! The draw is fio's `rand_between(&td->prio_state, 0, 99)`, one per read or
//! write whose direction (and, for the split, size) has a nonzero
//! percentage: a 32-bit Tausworthe generator seeded from the job's seed
//! slot [`Slot::PrioCmds`] (`FIO_RAND_PRIO_CMDS`), so rfio picks the same
//! I/Os as fio (checked against fio's `log_prio=1` latency logs).
//!
//! Each direction that uses command priorities has a table of the
//! priorities its I/Os can carry, the job's own first (fio's
//! `td->ts.clat_prio[ddir]`, built once when the job starts): the engine
//! reports the table index (the "slot") of every I/O, and the statistics
//! keep latencies per slot. A direction without command priorities has no
//! table; all its I/Os carry the job's priority.
//!
//! Everything here is `Copy` and fixed-size (at most [`MAX_ENTRIES`] split
//! entries per direction, fio's `BSSPLIT_MAX`): the decision allocates
//! nothing.

use crate::options::value::parse_size;
use crate::options::Value;
use crate::plan::spec::JobSpec;
use crate::workload::rng::{FioRand, Seeds, Slot};

/// `IOPRIO_CLASS_SHIFT`: the class is stored above the level.
pub const CLASS_SHIFT: u16 = 13;
/// `IOPRIO_CLASS_RT`, `IOPRIO_CLASS_BE`.
pub const CLASS_RT: u16 = 1;
pub const CLASS_BE: u16 = 2;
/// Highest class (`IOPRIO_CLASS_IDLE`) and level fio accepts in a split
/// entry (larger values are lowered to these, as fio does).
const MAX_CLASS: u32 = 3;
const MAX_LEVEL: u32 = 7;
/// fio's `BSSPLIT_MAX`: entries per direction.
pub const MAX_ENTRIES: usize = 64;
/// Table slots per direction: the job's priority and one per entry.
pub const MAX_SLOTS: usize = MAX_ENTRIES + 1;

/// fio's `ioprio_value(class, level)`.
pub const fn ioprio_value(class: u16, level: u16) -> u16 {
    class << CLASS_SHIFT | level
}

/// The job's own priority (fio's `td->ioprio`): `prioclass << 13 | prio`
/// when either option is set (class 0 or unset meaning best effort), else 0.
pub fn job_ioprio(spec: &JobSpec) -> u16 {
    let int = |name: &str| match spec.opt(name) {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    };
    let (prio, class) = (int("prio"), int("prioclass"));
    if prio.is_none() && class.is_none() {
        return 0;
    }
    let class = match class.unwrap_or(0) {
        0 => CLASS_BE,
        c => c as u16,
    };
    ioprio_value(class, prio.unwrap_or(0) as u16)
}

/// Why a job's command priority options cannot be used. fio notices these
/// when the engine starts (the job fails with error 22); so does rfio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmdPrioError {
    /// Both `cmdprio_percentage` and `cmdprio_bssplit` are set.
    Exclusive,
    /// A split entry that is not `bs/perc` or `bs/perc/class/level`.
    BadFormat,
    /// A block size that is not a size (fio reads `4q` as 4; rfio refuses).
    BadSize,
    /// More than [`MAX_ENTRIES`] entries in one direction.
    TooMany,
    /// The percentages of one block size add up to more than 100.
    OverHundred { bs: u64 },
}

impl std::fmt::Display for CmdPrioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CmdPrioError::Exclusive => {
                f.write_str("cmdprio_percentage and cmdprio_bssplit options are mutually exclusive")
            }
            CmdPrioError::BadFormat => f.write_str(
                "invalid cmdprio_bssplit format (bs/percentage or bs/percentage/class/level)",
            ),
            CmdPrioError::BadSize => f.write_str("cmdprio_bssplit: a block size is not a size"),
            CmdPrioError::TooMany => f.write_str("too many cmdprio_bssplit entries"),
            CmdPrioError::OverHundred { bs } => {
                write!(
                    f,
                    "cmdprio_bssplit total percentage for bs: {bs} exceeds 100"
                )
            }
        }
    }
}

/// One split entry: I/Os of `bs` bytes, `perc` percent of them at `prio`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Entry {
    bs: u64,
    perc: u8,
    /// Sum of the percentages of every entry of this block size.
    total: u8,
    prio: u16,
    slot: u8,
}

/// One direction's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirPrio {
    /// `cmdprio_percentage` mode: the percentage, its priority and slot.
    perc: u8,
    prio: u16,
    slot: u8,
    /// `cmdprio_bssplit` mode: entries sorted by block size.
    n: u8,
    entries: [Entry; MAX_ENTRIES],
    /// The priority of each statistics slot; slot 0 is the job's.
    nslots: u8,
    slots: [u16; MAX_SLOTS],
}

impl Default for DirPrio {
    fn default() -> DirPrio {
        DirPrio {
            perc: 0,
            prio: 0,
            slot: 0,
            n: 0,
            entries: [Entry::default(); MAX_ENTRIES],
            nslots: 0,
            slots: [0; MAX_SLOTS],
        }
    }
}

impl DirPrio {
    /// A table with the job's priority in slot 0.
    fn with_job(job: u16) -> DirPrio {
        let mut d = DirPrio {
            nslots: 1,
            ..DirPrio::default()
        };
        d.slots[0] = job;
        d
    }

    /// The slot of `prio`, added if new (fio's `assign_clat_prio_index`).
    fn slot_of(&mut self, prio: u16) -> u8 {
        let n = self.nslots as usize;
        if let Some(i) = self.slots[..n].iter().position(|&p| p == prio) {
            return i as u8;
        }
        self.slots[n] = prio;
        self.nslots += 1;
        n as u8
    }
}

/// How the job picks its command priorities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Percentage,
    Split,
}

/// A job's command priority settings, resolved (fio's `struct cmdprio`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmdPrio {
    mode: Mode,
    /// Read, write.
    dirs: [DirPrio; 2],
    /// The seed of the job's priority generator, and whether each loop
    /// starts it again (`randrepeat`).
    seed: u64,
    repeatable: bool,
}

/// A split entry as written: block size, percentage, its own priority.
#[derive(Debug, Clone, Copy)]
struct Written {
    bs: u64,
    perc: u32,
    prio: Option<u16>,
}

impl CmdPrio {
    /// Read `spec`'s command priority options: `Ok(None)` when the job uses
    /// none (no percentage and no split, or none for a direction it does).
    pub fn from_spec(spec: &JobSpec) -> Result<Option<CmdPrio>, CmdPrioError> {
        let per_dir = |name: &str| -> [u32; 2] {
            match spec.opt(name) {
                Some(Value::PerDir(v)) => std::array::from_fn(|d| match v.get(d) {
                    Some(Some(Value::Int(n))) => (*n).max(0) as u32,
                    _ => 0,
                }),
                Some(Value::Int(n)) => [(*n).max(0) as u32; 2],
                _ => [0; 2],
            }
        };
        let perc = per_dir("cmdprio_percentage");
        let mut class = per_dir("cmdprio_class");
        let level = per_dir("cmdprio");
        let split = split_texts(spec.opt("cmdprio_bssplit"));
        let has_split = split
            .iter()
            .any(|s| s.is_some_and(|s| !s.trim().is_empty()));
        let has_perc = perc.iter().any(|&p| p > 0);
        if has_split && has_perc {
            return Err(CmdPrioError::Exclusive);
        }
        if !has_split && !has_perc {
            return Ok(None);
        }
        // An unset class is the real-time class.
        for c in &mut class {
            if *c == 0 {
                *c = u32::from(CLASS_RT);
            }
        }
        let job = job_ioprio(spec);
        let seeds = Seeds::for_job(spec);
        let enabled = [spec.pattern.read, spec.pattern.write];
        let mut c = CmdPrio {
            mode: if has_split {
                Mode::Split
            } else {
                Mode::Percentage
            },
            dirs: [DirPrio::default(); 2],
            seed: seeds.get(Slot::PrioCmds),
            repeatable: seeds.repeatable,
        };
        let ctx = spec.options.parse_ctx();
        for d in 0..2 {
            let implicit = ioprio_value(class[d] as u16, level[d] as u16);
            if !has_split {
                if perc[d] == 0 || !enabled[d] {
                    continue;
                }
                let mut dp = DirPrio::with_job(job);
                dp.perc = perc[d].min(100) as u8;
                dp.prio = implicit;
                dp.slot = dp.slot_of(implicit);
                c.dirs[d] = dp;
                continue;
            }
            let Some(text) = split[d] else { continue };
            let mut written = [Written {
                bs: 0,
                perc: 0,
                prio: None,
            }; MAX_ENTRIES];
            let n = parse_split(text, |t| parse_size(t, &ctx).ok(), &mut written)?;
            if n == 0 || !enabled[d] {
                continue;
            }
            let mut dp = DirPrio::with_job(job);
            let entries = &mut written[..n];
            // fio sorts by block size (stable: same sizes keep their order).
            entries.sort_by_key(|e| e.bs);
            let mut i = 0;
            while i < n {
                let bs = entries[i].bs;
                let end = i + entries[i..].iter().take_while(|e| e.bs == bs).count();
                let mut total = 0u32;
                for e in &entries[i..end] {
                    total += e.perc;
                    if total > 100 {
                        return Err(CmdPrioError::OverHundred { bs });
                    }
                }
                for (k, e) in entries[i..end].iter().enumerate() {
                    let prio = e.prio.unwrap_or(implicit);
                    let slot = dp.slot_of(prio);
                    dp.entries[i + k] = Entry {
                        bs,
                        perc: e.perc as u8,
                        total: total as u8,
                        prio,
                        slot,
                    };
                }
                i = end;
            }
            dp.n = n as u8;
            c.dirs[d] = dp;
        }
        if c.dirs.iter().all(|d| d.nslots == 0) {
            return Ok(None);
        }
        Ok(Some(c))
    }

    /// The priority of each statistics slot of `dir` (0 read, 1 write);
    /// empty when the direction uses no command priorities.
    pub fn slots(&self, dir: usize) -> &[u16] {
        match self.dirs.get(dir) {
            Some(d) => &d.slots[..d.nslots as usize],
            None => &[],
        }
    }
}

/// The per-direction texts of `cmdprio_bssplit` (read, write), split as
/// fio's `str_split_parse`: one text is for both directions; `r,w` (and a
/// trim part, which fio ignores).
fn split_texts(v: Option<&Value>) -> [Option<&str>; 2] {
    match v {
        Some(Value::Text(t)) => {
            let mut parts = t.trim().splitn(3, ',');
            let first = parts.next();
            match parts.next() {
                Some(w) => [first, Some(w)],
                None => [first, first],
            }
        }
        Some(Value::PerDir(v)) => std::array::from_fn(|d| match v.get(d) {
            Some(Some(Value::Text(t))) => Some(t.as_str()),
            _ => None,
        }),
        _ => [None, None],
    }
}

/// fio's `split_parse_prio_ddir`: the `:`-separated entries of one
/// direction, entries of 0% left out. Returns how many were kept.
fn parse_split(
    text: &str,
    size: impl Fn(&str) -> Option<u64>,
    out: &mut [Written; MAX_ENTRIES],
) -> Result<usize, CmdPrioError> {
    let pieces = text.split(':').take_while(|p| !p.is_empty());
    if pieces.clone().count() > MAX_ENTRIES {
        return Err(CmdPrioError::TooMany);
    }
    let mut n = 0;
    for piece in pieces {
        let mut f = piece.split('/');
        let bs = size(f.next().unwrap_or("")).ok_or(CmdPrioError::BadSize)?;
        // sscanf("%u") fields: the rest must be numbers, 1, 3 or 4 of them
        // in all (`bs/`, `bs/perc`, `bs/perc/class/level`).
        let nums: Vec<&str> = f.collect();
        let num = |s: &str| s.trim().parse::<u32>().map_err(|_| CmdPrioError::BadFormat);
        let (perc, prio) = match nums.as_slice() {
            [] | [""] => (0, None),
            [p] => (num(p)?, None),
            [p, c, l] => {
                let class = num(c)?.min(MAX_CLASS) as u16;
                let level = num(l)?.min(MAX_LEVEL) as u16;
                (num(p)?, Some(ioprio_value(class, level)))
            }
            _ => return Err(CmdPrioError::BadFormat),
        };
        let perc = perc.min(100);
        if perc > 0 {
            out[n] = Written { bs, perc, prio };
            n += 1;
        }
    }
    Ok(n)
}

/// The per-I/O decision of one engine instance (fio's
/// `fio_cmdprio_set_ioprio` with the job's `prio_state`).
#[derive(Debug, Clone)]
pub struct Picker {
    cfg: CmdPrio,
    rng: FioRand,
}

impl Picker {
    pub fn new(cfg: &CmdPrio) -> Picker {
        Picker {
            cfg: *cfg,
            rng: FioRand::new(cfg.seed, false),
        }
    }

    /// A new loop of the job: with `randrepeat` the generator starts
    /// again from its seed (fio re-seeds `prio_state` in
    /// `td_fill_rand_seeds`), so every loop picks the same I/Os.
    pub fn new_loop(&mut self) {
        if self.cfg.repeatable {
            self.rng = FioRand::new(self.cfg.seed, false);
        }
    }

    /// The command priority and statistics slot of a read (`dir` 0) or
    /// write (1) of `len` bytes, or `None`: it keeps the job's priority
    /// (slot 0). Draws a random number only when the direction (and, for
    /// the split, the size) has a nonzero percentage.
    #[inline]
    pub fn pick(&mut self, dir: usize, len: u64) -> Option<(u16, u8)> {
        let d = self.cfg.dirs.get(dir)?;
        match self.cfg.mode {
            Mode::Percentage => {
                if d.perc == 0 {
                    return None;
                }
                let r = self.rng.between(0, 99);
                (r < u64::from(d.perc)).then_some((d.prio, d.slot))
            }
            Mode::Split => {
                let entries = &d.entries[..d.n as usize];
                let first = entries.iter().position(|e| e.bs == len)?;
                let total = entries[first].total;
                if total == 0 {
                    return None;
                }
                let r = self.rng.between(0, 99);
                if r >= u64::from(total) {
                    return None;
                }
                let mut cum = 0u64;
                for e in entries[first..].iter().take_while(|e| e.bs == len) {
                    cum += u64::from(e.perc);
                    if r < cum {
                        return Some((e.prio, e.slot));
                    }
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(args: &[&str]) -> JobSpec {
        let mut a = vec!["--name=p", "--ioengine=libaio", "--size=1m"];
        a.extend_from_slice(args);
        crate::plan::testing::job(&a)
    }

    fn cmdprio(args: &[&str]) -> Result<Option<CmdPrio>, CmdPrioError> {
        CmdPrio::from_spec(&spec(args))
    }

    /// The first `n` decisions for reads of 4 KiB, as `0`/`1`.
    fn draws(args: &[&str], n: usize) -> String {
        let c = cmdprio(args).unwrap().unwrap();
        let mut p = Picker::new(&c);
        (0..n)
            .map(|_| if p.pick(0, 4096).is_some() { '1' } else { '0' })
            .collect()
    }

    #[test]
    fn picks_the_ios_fio_picks() {
        // fio --name=p --ioengine=libaio --size=1M --rw=randread --iodepth=1
        // --cmdprio_percentage=30 --cmdprio_class=1 --direct=1
        // --write_lat_log=r --log_prio=1: the prio column of r_lat.1.log,
        // 0x2000 as 1, 0x0000 as 0.
        let fio = "1011000000000100001000111000100011011010000010000001010000001100";
        assert_eq!(
            draws(&["--rw=randread", "--cmdprio_percentage=30"], 64),
            fio
        );
        // The same with --randseed=1234.
        let fio = "1000110000110110010010010000100000000100001000011100100101010100";
        assert_eq!(
            draws(
                &[
                    "--rw=randread",
                    "--cmdprio_percentage=30",
                    "--randseed=1234"
                ],
                64
            ),
            fio
        );
    }

    #[test]
    fn each_loop_starts_again_with_randrepeat() {
        // fio --loops=2 --size=256k (64 reads a loop): the log's prio
        // column repeats the first 64 decisions.
        let c = cmdprio(&["--rw=randread", "--cmdprio_percentage=30"])
            .unwrap()
            .unwrap();
        let mut p = Picker::new(&c);
        let loop_of = |p: &mut Picker| -> String {
            (0..64)
                .map(|_| if p.pick(0, 4096).is_some() { '1' } else { '0' })
                .collect()
        };
        let first = loop_of(&mut p);
        p.new_loop();
        assert_eq!(loop_of(&mut p), first);
        let c = cmdprio(&["--rw=randread", "--cmdprio_percentage=30", "--randrepeat=0"])
            .unwrap()
            .unwrap();
        assert!(!c.repeatable);
    }

    #[test]
    fn job_priority_is_slot_zero() {
        let c = cmdprio(&[
            "--rw=randread",
            "--cmdprio_percentage=20",
            "--prioclass=2",
            "--prio=7",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.slots(0), &[0x4007, 0x2000]);
        assert!(c.slots(1).is_empty(), "no writes, no table");
        // A command priority equal to the job's shares its slot.
        let c = cmdprio(&[
            "--rw=randrw",
            "--cmdprio_percentage=20,40",
            "--cmdprio_class=2",
            "--cmdprio=4",
            "--prio=4",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.slots(0), &[0x4004]);
        assert_eq!(c.slots(1), &[0x4004]);
        assert_eq!(job_ioprio(&spec(&["--prioclass=3"])), 0x6000);
        assert_eq!(job_ioprio(&spec(&["--prio=3"])), 0x4003);
        assert_eq!(job_ioprio(&spec(&[])), 0);
    }

    #[test]
    fn options_as_fio_reads_them() {
        assert_eq!(cmdprio(&["--rw=randread"]), Ok(None));
        assert_eq!(
            cmdprio(&["--rw=randwrite", "--cmdprio_percentage=0,30"])
                .unwrap()
                .unwrap()
                .slots(1),
            &[0, 0x2000]
        );
        // Only for the direction the job does.
        assert_eq!(
            cmdprio(&["--rw=randwrite", "--cmdprio_percentage=30,0"]),
            Ok(None)
        );
        assert_eq!(
            cmdprio(&[
                "--rw=randread",
                "--cmdprio_percentage=30",
                "--cmdprio_bssplit=4k/50"
            ]),
            Err(CmdPrioError::Exclusive)
        );
        assert_eq!(
            cmdprio(&["--rw=randread", "--cmdprio_bssplit=4k/50/1"]),
            Err(CmdPrioError::BadFormat)
        );
        assert_eq!(
            cmdprio(&["--rw=randread", "--cmdprio_bssplit=4k/60:4k/50"]),
            Err(CmdPrioError::OverHundred { bs: 4096 })
        );
        assert_eq!(
            cmdprio(&["--rw=randread", "--cmdprio_bssplit=4q/50"]),
            Err(CmdPrioError::BadSize)
        );
    }

    #[test]
    fn split_entries() {
        // Debian's cmdprio-bssplit.fio, job cmdprio-adv-def.
        let c = cmdprio(&[
            "--rw=randrw",
            "--bssplit=64k/40:1024k/60,1024k/100",
            "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0,1024k/0",
            "--prioclass=2",
            "--prio=7",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.slots(0), &[0x4007, 0x2001, 0x6002]);
        assert!(c.slots(1).is_empty(), "writes: only 0% entries");
        let mut p = Picker::new(&c);
        let mut seen = [0u32; 3];
        for _ in 0..1000 {
            let (_, slot) = p.pick(0, 65536).expect("100% of 64k reads");
            seen[slot as usize] += 1;
        }
        assert_eq!(seen[0], 0);
        assert!((200..300).contains(&seen[1]), "{seen:?}");
        assert!(p.pick(0, 1 << 20).is_none(), "no entry for 1m");
        assert!(p.pick(1, 1 << 20).is_none());
        // The simple format takes cmdprio_class/cmdprio; one text is for
        // both directions.
        let c = cmdprio(&[
            "--rw=randrw",
            "--cmdprio_bssplit=8k/10:4k/100",
            "--cmdprio_class=3",
            "--cmdprio=5",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.slots(0), &[0, 0x6005]);
        assert_eq!(c.slots(1), &[0, 0x6005]);
        let mut p = Picker::new(&c);
        assert_eq!(p.pick(1, 4096), Some((0x6005, 1)));
    }
}
