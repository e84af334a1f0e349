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
//! slot `FIO_RAND_PRIO_CMDS`, so rfio picks the same I/Os as fio (checked
//! against fio's `log_prio=1` latency logs).
//!
//! The plan reads the options (`src/plan/engine.rs`: the texts of
//! `cmdprio_bssplit`, the job's priority and seed) into [`CmdPrioOptions`];
//! [`CmdPrio::new`] builds the tables from them once per job, and each
//! engine instance decides with a [`Picker`](crate::ioengine::cmdprio::Picker).
//!
//! Each direction that uses command priorities has a table of the
//! priorities its I/Os can carry, the job's own first (fio's
//! `td->ts.clat_prio[ddir]`, built once when the job starts): the engine
//! reports the table index (the "slot") of every I/O, and the statistics
//! keep latencies per slot. A direction without command priorities has no
//! table; all its I/Os carry the job's priority.
//!
//! The tables are `Copy` and fixed-size (at most [`MAX_ENTRIES`](crate::ioengine::cmdprio::MAX_ENTRIES) split
//! entries per direction, fio's `BSSPLIT_MAX`): the decision allocates
//! nothing.

use super::io::EngineError;
// moves to crate::rand
use crate::rand::FioRand;

/// `IOPRIO_CLASS_SHIFT`: the class is stored above the level.
pub(crate) const CLASS_SHIFT: u16 = 13;
/// `IOPRIO_CLASS_RT`, `IOPRIO_CLASS_BE`.
pub(crate) const CLASS_RT: u16 = 1;
pub(crate) const CLASS_BE: u16 = 2;
/// fio's `BSSPLIT_MAX`: entries per direction.
pub(crate) const MAX_ENTRIES: usize = 64;
/// Table slots per direction: the job's priority and one per entry.
pub(crate) const MAX_SLOTS: usize = MAX_ENTRIES + 1;

/// fio's `ioprio_value(class, level)`.
pub(crate) const fn ioprio_value(class: u16, level: u16) -> u16 {
    class << CLASS_SHIFT | level
}

/// Why a job's command priority options cannot be used. fio notices these
/// when the engine starts (the job fails with error 22); so does rfio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmdPrioError {
    /// Both `cmdprio_percentage` and `cmdprio_bssplit` are set.
    Exclusive,
    /// A split entry that is not `bs/perc` or `bs/perc/class/level`.
    BadFormat,
    /// A block size that is not a size (fio reads `4q` as 4; rfio refuses).
    BadSize,
    /// More than `MAX_ENTRIES` (64) entries in one direction.
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
pub(crate) struct CmdPrio {
    mode: Mode,
    /// Read, write.
    dirs: [DirPrio; 2],
    /// The seed of the job's priority generator, and whether each loop
    /// starts it again (`randrepeat`).
    seed: u64,
    repeatable: bool,
}

/// A `cmdprio_bssplit` entry as written: I/Os of `bs` bytes, `perc`
/// percent of them (1 to 100) at `prio`, or at the `cmdprio_class`/`cmdprio`
/// priority when the entry gives none (fio's `split_parse_prio_ddir`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitEntry {
    pub(crate) bs: u64,
    pub(crate) perc: u32,
    pub(crate) prio: Option<u16>,
}

/// A job's command priority options as the plan read them (fio's
/// `struct cmdprio_options`), with the job's facts the tables need.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct CmdPrioOptions {
    /// `cmdprio_percentage` (read, write).
    pub(crate) percentage: [u32; 2],
    /// `cmdprio_class`: 0 when unset, which is the real-time class.
    pub(crate) class: [u32; 2],
    /// `cmdprio` (the level).
    pub(crate) level: [u32; 2],
    /// `cmdprio_bssplit`, when it is set: each direction's entries with a
    /// nonzero percentage (empty for a direction it leaves out), or why
    /// they cannot be used.
    pub(crate) bssplit: Option<[Result<Vec<SplitEntry>, CmdPrioError>; 2]>,
    /// The job's own priority (fio's `td->ioprio`, 0: none): slot 0.
    pub(crate) job_ioprio: u16,
    /// Whether the job reads, writes: a direction it does not do gets no
    /// table.
    pub(crate) dirs: [bool; 2],
}

impl CmdPrioOptions {
    /// Whether the job asks for command priorities at all (a percentage or
    /// a split); otherwise it needs no generator seed.
    pub(crate) fn used(&self) -> bool {
        self.bssplit.is_some() || self.percentage.iter().any(|&p| p > 0)
    }
}

/// A job's command priorities as its engine gets them: `Ok(None)` when the
/// job uses none, an error that fails the engine's start as in fio.
pub(crate) type CmdPrioSetting = Result<Option<Box<CmdPrio>>, CmdPrioError>;

impl CmdPrio {
    /// The tables of `o` (fio's `fio_cmdprio_init`): `Ok(None)` when the job
    /// uses none (no percentage and no split, or none for a direction it
    /// does). `seed` starts the job's priority generator; with
    /// `repeatable` (`randrepeat`) every loop starts it again.
    pub(crate) fn new(
        o: &CmdPrioOptions,
        seed: u64,
        repeatable: bool,
    ) -> Result<Option<CmdPrio>, CmdPrioError> {
        let has_perc = o.percentage.iter().any(|&p| p > 0);
        if o.bssplit.is_some() && has_perc {
            return Err(CmdPrioError::Exclusive);
        }
        if !o.used() {
            return Ok(None);
        }
        let mut c = CmdPrio {
            mode: if o.bssplit.is_some() {
                Mode::Split
            } else {
                Mode::Percentage
            },
            dirs: [DirPrio::default(); 2],
            seed,
            repeatable,
        };
        for d in 0..2 {
            // An unset class is the real-time class.
            let class = match o.class[d] {
                0 => CLASS_RT,
                c => c as u16,
            };
            let implicit = ioprio_value(class, o.level[d] as u16);
            let Some(split) = &o.bssplit else {
                if o.percentage[d] == 0 || !o.dirs[d] {
                    continue;
                }
                let mut dp = DirPrio::with_job(o.job_ioprio);
                dp.perc = o.percentage[d].min(100) as u8;
                dp.prio = implicit;
                dp.slot = dp.slot_of(implicit);
                c.dirs[d] = dp;
                continue;
            };
            let written = split[d].as_ref().map_err(|e| *e)?;
            let n = written.len();
            if n > MAX_ENTRIES {
                return Err(CmdPrioError::TooMany);
            }
            if n == 0 || !o.dirs[d] {
                continue;
            }
            let mut dp = DirPrio::with_job(o.job_ioprio);
            let mut entries = [SplitEntry {
                bs: 0,
                perc: 0,
                prio: None,
            }; MAX_ENTRIES];
            let entries = &mut entries[..n];
            entries.copy_from_slice(written);
            // fio sorts by block size (stable: same sizes keep their order).
            entries.sort_by_key(|e| e.bs);
            let mut i = 0;
            while i < n {
                let bs = entries[i].bs;
                let end = i + entries[i..].iter().take_while(|e| e.bs == bs).count();
                let mut total = 0u32;
                for e in &entries[i..end] {
                    total += e.perc.min(100);
                    if total > 100 {
                        return Err(CmdPrioError::OverHundred { bs });
                    }
                }
                for (k, e) in entries[i..end].iter().enumerate() {
                    let prio = e.prio.unwrap_or(implicit);
                    let slot = dp.slot_of(prio);
                    dp.entries[i + k] = Entry {
                        bs,
                        perc: e.perc.min(100) as u8,
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
    pub(crate) fn slots(&self, dir: usize) -> &[u16] {
        match self.dirs.get(dir) {
            Some(d) => &d.slots[..d.nslots as usize],
            None => &[],
        }
    }
}

/// The command priorities of one engine instance (libaio, io_uring): the
/// per-I/O decision, and the statistics slot of each token's I/O (fio's
/// `io_u->clat_prio_index`), which the engine reports through
/// `IoEngine::prio_slot`.
#[derive(Debug)]
pub(crate) struct IoPrios {
    picker: Option<Picker>,
    slots: Box<[u8]>,
}

impl IoPrios {
    /// The priorities of an engine of `depth` tokens for `setting`, or the
    /// error that stops the engine from starting (`func`: fio's function
    /// name, `fio_libaio_init`, `fio_ioring_init`).
    pub(crate) fn start(
        setting: &CmdPrioSetting,
        depth: usize,
        func: &str,
    ) -> Result<IoPrios, EngineError> {
        let picker = match setting {
            Ok(c) => c.as_deref().map(Picker::new),
            Err(e) => {
                return Err(EngineError::new(libc::EINVAL, func).with_detail(e.to_string()));
            }
        };
        Ok(IoPrios {
            picker,
            slots: vec![0; depth].into_boxed_slice(),
        })
    }

    /// The command priority of the I/O of `token`, a read (`dir` 0) or
    /// write (1) of `len` bytes, or `None`: it keeps the job's (slot 0).
    /// Other directions draw nothing and keep the job's.
    #[inline]
    pub(crate) fn pick(&mut self, token: u32, dir: usize, len: u64) -> Option<u16> {
        let picked = self.picker.as_mut().and_then(|p| p.pick(dir, len));
        self.slots[token as usize] = picked.map_or(0, |(_, slot)| slot);
        picked.map(|(prio, _)| prio)
    }

    /// The statistics slot of the I/O of `token` (valid from its `pick`
    /// until the token is picked for again).
    #[inline]
    pub(crate) fn slot(&self, token: u32) -> u16 {
        u16::from(self.slots[token as usize])
    }

    /// A new loop of the job (see [`Picker::new_loop`]).
    pub(crate) fn new_loop(&mut self) {
        if let Some(p) = self.picker.as_mut() {
            p.new_loop();
        }
    }
}

/// The per-I/O decision of one engine instance (fio's
/// `fio_cmdprio_set_ioprio` with the job's `prio_state`).
#[derive(Debug, Clone)]
pub(crate) struct Picker {
    cfg: CmdPrio,
    rng: FioRand,
}

impl Picker {
    pub(crate) fn new(cfg: &CmdPrio) -> Picker {
        Picker {
            cfg: *cfg,
            rng: FioRand::new(cfg.seed, false),
        }
    }

    /// A new loop of the job: with `randrepeat` the generator starts
    /// again from its seed (fio re-seeds `prio_state` in
    /// `td_fill_rand_seeds`), so every loop picks the same I/Os.
    pub(crate) fn new_loop(&mut self) {
        if self.cfg.repeatable {
            self.rng = FioRand::new(self.cfg.seed, false);
        }
    }

    /// The command priority and statistics slot of a read (`dir` 0) or
    /// write (1) of `len` bytes, or `None`: it keeps the job's priority
    /// (slot 0). Draws a random number only when the direction (and, for
    /// the split, the size) has a nonzero percentage.
    #[inline]
    pub(crate) fn pick(&mut self, dir: usize, len: u64) -> Option<(u16, u8)> {
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

    fn entry(bs: u64, perc: u32, prio: Option<u16>) -> SplitEntry {
        SplitEntry { bs, perc, prio }
    }

    fn split(read: Vec<SplitEntry>, write: Vec<SplitEntry>) -> CmdPrioOptions {
        CmdPrioOptions {
            bssplit: Some([Ok(read), Ok(write)]),
            dirs: [true, true],
            ..CmdPrioOptions::default()
        }
    }

    #[test]
    fn no_options_no_tables() {
        let o = CmdPrioOptions {
            dirs: [true, true],
            ..CmdPrioOptions::default()
        };
        assert!(!o.used());
        assert_eq!(CmdPrio::new(&o, 1, true), Ok(None));
        // A percentage for a direction the job does not do: none either.
        let o = CmdPrioOptions {
            percentage: [30, 0],
            dirs: [false, true],
            ..CmdPrioOptions::default()
        };
        assert_eq!(CmdPrio::new(&o, 1, true), Ok(None));
    }

    #[test]
    fn percentage_tables_share_the_jobs_slot() {
        let o = CmdPrioOptions {
            percentage: [20, 40],
            class: [2, 2],
            level: [4, 4],
            job_ioprio: ioprio_value(CLASS_BE, 4),
            dirs: [true, true],
            ..CmdPrioOptions::default()
        };
        let c = CmdPrio::new(&o, 1, true).unwrap().unwrap();
        assert_eq!(c.slots(0), &[0x4004]);
        assert_eq!(c.slots(1), &[0x4004]);
        // An unset class is the real-time one.
        let o = CmdPrioOptions {
            percentage: [20, 0],
            job_ioprio: 0x4007,
            dirs: [true, true],
            ..CmdPrioOptions::default()
        };
        let c = CmdPrio::new(&o, 1, true).unwrap().unwrap();
        assert_eq!(c.slots(0), &[0x4007, 0x2000]);
        assert!(c.slots(1).is_empty());
    }

    #[test]
    fn refusals_as_fio() {
        let mut o = split(vec![entry(4096, 50, None)], vec![]);
        o.percentage = [30, 0];
        assert_eq!(CmdPrio::new(&o, 1, true), Err(CmdPrioError::Exclusive));
        let o = split(vec![entry(4096, 60, None), entry(4096, 50, None)], vec![]);
        assert_eq!(
            CmdPrio::new(&o, 1, true),
            Err(CmdPrioError::OverHundred { bs: 4096 })
        );
        let o = split(vec![entry(4096, 1, None); MAX_ENTRIES + 1], vec![]);
        assert_eq!(CmdPrio::new(&o, 1, true), Err(CmdPrioError::TooMany));
        let o = CmdPrioOptions {
            bssplit: Some([Ok(vec![]), Err(CmdPrioError::BadFormat)]),
            dirs: [true, true],
            ..CmdPrioOptions::default()
        };
        assert_eq!(CmdPrio::new(&o, 1, true), Err(CmdPrioError::BadFormat));
    }

    #[test]
    fn split_entries_pick_by_size() {
        let mut o = split(
            vec![
                entry(65536, 25, Some(0x2001)),
                entry(1 << 20, 10, None),
                entry(65536, 75, Some(0x6002)),
            ],
            vec![],
        );
        o.class = [3, 3];
        o.level = [5, 5];
        o.job_ioprio = 0x4007;
        let c = CmdPrio::new(&o, 1, true).unwrap().unwrap();
        assert_eq!(c.slots(0), &[0x4007, 0x2001, 0x6002, 0x6005]);
        assert!(c.slots(1).is_empty(), "no write entries");
        let mut p = Picker::new(&c);
        let mut seen = [0u32; 4];
        for _ in 0..1000 {
            let (_, slot) = p.pick(0, 65536).expect("100% of 64k reads");
            seen[slot as usize] += 1;
        }
        assert_eq!(seen[0], 0);
        assert!((200..300).contains(&seen[1]), "{seen:?}");
        assert!(p.pick(0, 4096).is_none(), "no entry for 4k");
        assert!(p.pick(1, 65536).is_none(), "no table for writes");
        assert!(p.pick(2, 65536).is_none(), "trims carry none");
    }

    #[test]
    fn each_loop_starts_again_when_repeatable() {
        let o = CmdPrioOptions {
            percentage: [30, 0],
            dirs: [true, false],
            ..CmdPrioOptions::default()
        };
        let loop_of =
            |p: &mut Picker| -> Vec<bool> { (0..64).map(|_| p.pick(0, 4096).is_some()).collect() };
        let c = CmdPrio::new(&o, 12345, true).unwrap().unwrap();
        let mut p = Picker::new(&c);
        let first = loop_of(&mut p);
        p.new_loop();
        assert_eq!(loop_of(&mut p), first);
        let c = CmdPrio::new(&o, 12345, false).unwrap().unwrap();
        let mut p = Picker::new(&c);
        assert_eq!(loop_of(&mut p), first, "the same seed");
        p.new_loop();
        assert_ne!(loop_of(&mut p), first, "goes on");
    }
}
