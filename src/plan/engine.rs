//! A job's engine options, resolved once when the plan is built: the core
//! options every engine reads ([`CommonOptions`]) and the engine's own
//! (fio's engine `.options` tables), into the job's [`EngineSpec`].
//!
//! Nothing here is particular to one engine: the job's engine (found in
//! the registry) resolves its own options, in its own file (its
//! `options`), from the values this module hands it ([`OptionValues`]):
//! each option as the job sets it, else the option table's default, so
//! that no default is written twice. The engine's `EngineFlags` say what
//! it is (`bit_based`, [`flags`]).
//!
//! The command priorities (`cmdprio_*`) become their tables here, built
//! once per job. Most bad values of them (`cmdprio_percentage` with
//! `cmdprio_bssplit`, a split entry fio cannot read, more than 64 entries,
//! percentages of one block size over 100) are what fio reports when the
//! engine starts, failing that job with error 22 while the others run:
//! they are kept in the [`CmdPrioSetting`] and reported then, as fio does.
//! A block size that is not a size (fio reads `4q` as 4) is rfio's own
//! refusal: a plan error naming the option, value, job and file:line.

use crate::diag::{Diagnostic, Diagnostics};
use crate::ioengine::cmdprio::{ioprio_value, CLASS_BE, MAX_ENTRIES};
use crate::ioengine::{
    lookup, CmdPrio, CmdPrioError, CmdPrioOptions, CmdPrioSetting, CommonOptions, EngineOptions,
    EngineSpec, JobFacts, OptionValues, Refusal, SplitEntry,
};
use crate::options::def::OptionDef;
use crate::options::engines;
use crate::options::jobopts::name_slot;
use crate::options::value::parse_size;
use crate::options::Value;
use crate::rand::Slot;
use crate::release::{Change, Release};

use super::resolve::defaults::{self, table_def};
use super::spec::JobSpec;

/// Highest class (`IOPRIO_CLASS_IDLE`) and level fio accepts in a split
/// entry (larger values are lowered to these, as fio does).
const MAX_CLASS: u32 = 3;
const MAX_LEVEL: u32 = 7;

/// The engine options of `job` (whose other fields are set). A bad value
/// is reported in `diags` (once for a job and its `numjobs` clones) and
/// gives `None`: the job is dropped.
pub(crate) fn resolve(job: &JobSpec, diags: &mut Diagnostics) -> Option<EngineSpec> {
    match engine_spec(job) {
        Ok(spec) => Some(spec),
        Err((span, msg)) => {
            if job.subjob == 0 {
                diags.push(Diagnostic::at(span, format!("job '{}': {msg}", job.name)));
            }
            None
        }
    }
}

/// Why rfio does not run the engine of `job` (one of fio's it lacks, an
/// external plugin, or a name fio does not know either), as the words
/// after `job 'NAME': `; `None` for an engine rfio runs. fio accepts any
/// name when it parses (`--parse-only` exits 0) and fails the run; rfio
/// refuses the run before it starts. An engine the run's `release` does
/// not have (one a later release added, or one it removed) is unknown, as
/// that fio has it.
pub(crate) fn refusal(job: &JobSpec, release: Release) -> Option<String> {
    let name = job.ioengine.as_str();
    let known = engines::is_available(name, release);
    if let Some(def) = lookup(name).filter(|_| known) {
        // An engine that runs only on some files (dev-dax: a device DAX
        // character device) says why it cannot run on the job's.
        return job.files.iter().find_map(|f| (def.refuse_file)(&f.path));
    }
    Some(if !known && name.starts_with("external:") {
        format!("ioengine={name}: rfio cannot load fio's external engine plugins")
    } else if !known {
        let unknown =
            format!("ioengine={name}: no such I/O engine (fio: engine {name} not loadable");
        match engines::release_note(name) {
            Some(when) => format!("{unknown}; {when}, rfio behaves as {release})"),
            None => format!("{unknown})"),
        }
    } else if let Some(needs) = crate::ioengine::not_run(name).map(|e| e.needs) {
        format!("ioengine={name} needs {needs}; rfio does not run it")
    } else {
        format!("ioengine={name}: rfio does not run this engine yet")
    })
}

/// What the engine of `job` can do with its settings (`None` for one
/// rfio does not run).
pub(crate) fn caps(job: &JobSpec) -> Option<crate::ioengine::Caps> {
    lookup(&job.ioengine).map(|def| (def.caps)(&job.engine))
}

/// The place to point at for the engine of `job`: its `ioengine=`
/// setting, or the job.
pub(crate) fn engine_span(job: &JobSpec) -> crate::diag::Span {
    job.options
        .get("ioengine")
        .map_or(job.span.clone(), |s| s.span.clone())
}

/// A plan error: where, and what.
type PlanError = (crate::diag::Span, String);

fn engine_spec(job: &JobSpec) -> Result<EngineSpec, PlanError> {
    let values = JobValues::new(job);
    let common = CommonOptions {
        iodepth: job.iodepth.max(1),
        direct: job.direct,
        batch_complete_min: values.int("iodepth_batch_complete_min") as u32,
        ioprio: values.ioprio,
        atomic_writes: job.file.atomic_writes,
    };
    // The engine resolves its own options (its `options`), from the
    // values of those it declares.
    let options = match lookup(&job.ioengine) {
        Some(def) => (def.resolve)(&values).map_err(|r| {
            let span = r
                .option
                .and_then(|name| job.options.get(name))
                .map_or(job.span.clone(), |s| s.span.clone());
            (span, r.message)
        })?,
        None => EngineOptions::None,
    };
    Ok(EngineSpec { common, options })
}

/// The options in force for one job as the engines read them: the value
/// the job sets, else the default in the option table of the job's
/// release (parsed as the job would parse it), else nothing (fio's zeroed
/// option struct).
struct JobValues<'a> {
    job: &'a JobSpec,
    facts: JobFacts,
    /// The job's own priority (`prio`, `prioclass`).
    ioprio: u16,
}

impl<'a> JobValues<'a> {
    fn new(job: &'a JobSpec) -> JobValues<'a> {
        let o = job.opts();
        let facts = JobFacts {
            name: job.name.clone(),
            runtime_us: job.runtime_us,
            read: job.pattern.read,
            write: job.pattern.write,
            random: job.pattern.random,
            subjob: job.subjob,
            size: job.size.unwrap_or(0),
            verify: job.verify.is_some(),
            offset: job.offset,
            filesize_high: match o.value("filesize") {
                Some(Value::Bytes(n)) => *n,
                Some(Value::Ranges(r)) => r.first().copied().flatten().map_or(0, |(_, hi)| hi),
                _ => 0,
            },
            directory: o.text("directory").map(str::to_string),
            first_file: job.files.first().map(|f| f.path.clone()),
            min_bs: job.bs[..2].iter().map(|b| b.0).min().unwrap_or(4096),
            syncs: job.io.fsync_blocks > 0 || job.io.fdatasync_blocks > 0,
            sync_io: job.io.o_sync || job.io.o_dsync,
            uncached_rwf: uncached_rwf(job.release),
            libaio_async_fsync: job.release.has(Change::LibaioAsyncFsync),
            uring_integrity: job.release.has(Change::UringIntegrity),
        };
        JobValues {
            job,
            facts,
            ioprio: job_ioprio(job),
        }
    }

    /// `read` of the value `name` is set to, else of its default (read
    /// once per process: [`defaults::table`]).
    fn read<T>(&self, name: &'static str, read: impl Fn(&Value) -> Option<T>) -> Option<T> {
        if let Some(v) = self.job.opt(name).and_then(&read) {
            return Some(v);
        }
        let kb_base = self.job.options.kb_base();
        let (_, v) = defaults::table(name, name_slot(name), self.job.release, kb_base)?;
        read(v)
    }
}

impl OptionValues for JobValues<'_> {
    fn int(&self, name: &'static str) -> i64 {
        self.int_if_set(name).unwrap_or(0)
    }

    fn int_if_set(&self, name: &'static str) -> Option<i64> {
        self.read(name, |v| match v {
            Value::Int(n) => Some(*n),
            Value::Bytes(n) => i64::try_from(*n).ok(),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        })
    }

    fn flag(&self, name: &'static str) -> bool {
        self.read(name, |v| match v {
            Value::Bool(b) => Some(*b),
            Value::Int(n) => Some(*n != 0),
            _ => None,
        })
        .unwrap_or(false)
    }

    fn text(&self, name: &'static str) -> Option<String> {
        self.read(name, |v| match v {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        })
    }

    fn choice(&self, name: &'static str) -> Option<&'static str> {
        let posval = |def: &'static OptionDef, v: &Value| match v {
            Value::Choice { index, .. } => def.posvals.get(*index).map(|p| p.value),
            _ => None,
        };
        if let Some(s) = self.job.options.get(name) {
            if let Some(p) = posval(s.def, &s.value) {
                return Some(p);
            }
        }
        let def = table_def(self.job.release, name)?;
        self.read(name, |v| posval(def, v))
    }

    fn written(&self, name: &'static str) -> Option<String> {
        self.job.options.get(name)?.text.clone()
    }

    fn last_text(&self, names: &[&'static str]) -> Option<String> {
        self.job
            .options
            .settings
            .iter()
            .rfind(|s| names.contains(&s.def.name))
            .and_then(|s| match &s.value {
                Value::Text(t) => Some(t.clone()),
                _ => s.text.clone(),
            })
    }

    fn cmdprio(&self) -> Result<CmdPrioSetting, Refusal> {
        cmdprio(self.job, self.ioprio).map_err(|(_, message)| Refusal {
            option: Some("cmdprio_bssplit"),
            message,
        })
    }

    fn job(&self) -> &JobFacts {
        &self.facts
    }
}

/// Whether the job's engine reports rates in bits (fio's
/// `FIO_BIT_BASED`: net), when `unit_base` does not say.
pub(crate) fn bit_based(job: &JobSpec) -> bool {
    lookup(&job.ioengine).is_some_and(|def| def.flags.bit_based)
}

/// What the engine of `job` is (fio's `.flags` and rfio's own), known
/// without starting it; `None` for a name fio does not know. For the
/// layers that see the plan but not the engines (`lint`).
pub(crate) fn flags(job: &JobSpec) -> Option<crate::ioengine::EngineFlags> {
    crate::ioengine::flags(&job.ioengine)
}

/// The `RWF_*` flag that pvsync2's and io_uring's `uncached` sets on
/// buffered reads and writes in `release`: fio 3.33's `RWF_UNCACHED`, none
/// from 3.38, `RWF_DONTCACHE` from 3.40.
fn uncached_rwf(release: Release) -> libc::c_int {
    if release.has(Change::DontCache) {
        crate::ioengine::RWF_DONTCACHE
    } else if release.has(Change::UncachedDropped) {
        0
    } else {
        crate::ioengine::RWF_UNCACHED
    }
}

/// The job's own priority (fio's `td->ioprio`): `prioclass << 13 | prio`
/// when either option is set (class 0 or unset meaning best effort), else 0.
fn job_ioprio(job: &JobSpec) -> u16 {
    let int = |name: &str| match job.opt(name) {
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

/// The command priorities of `job` (`cmdprio_percentage`, `cmdprio_class`,
/// `cmdprio`, `cmdprio_bssplit`), whose own priority is `job_ioprio`.
fn cmdprio(job: &JobSpec, job_ioprio: u16) -> Result<CmdPrioSetting, PlanError> {
    let per_dir = |name: &str| -> [u32; 2] {
        match job.opt(name) {
            Some(Value::PerDir(v)) => std::array::from_fn(|d| match v.get(d) {
                Some(Some(Value::Int(n))) => (*n).max(0) as u32,
                _ => 0,
            }),
            Some(Value::Int(n)) => [(*n).max(0) as u32; 2],
            _ => [0; 2],
        }
    };
    let texts = split_texts(job.opt("cmdprio_bssplit"));
    let has_split = texts
        .iter()
        .any(|s| s.is_some_and(|s| !s.trim().is_empty()));
    let ctx = job.options.parse_ctx();
    let size = |t: &str| parse_size(t, &ctx);
    let bssplit = if has_split {
        let parsed = texts.map(|t| parse_split(t.unwrap_or(""), size));
        for dir in &parsed {
            if let Err(Refused::NotASize(e)) = dir {
                let setting = job.options.get("cmdprio_bssplit");
                let span = setting.map_or(job.span.clone(), |s| s.span.clone());
                let text = setting.and_then(|s| s.text.as_deref()).unwrap_or("");
                return Err((
                    span,
                    format!(
                        "bad value for option 'cmdprio_bssplit' ('cmdprio_bssplit={text}'): {e}"
                    ),
                ));
            }
        }
        Some(parsed.map(|dir| {
            dir.map_err(|e| match e {
                Refused::Fio(e) => e,
                Refused::NotASize(_) => CmdPrioError::BadSize,
            })
        }))
    } else {
        None
    };
    let o = CmdPrioOptions {
        percentage: per_dir("cmdprio_percentage"),
        class: per_dir("cmdprio_class"),
        level: per_dir("cmdprio"),
        bssplit,
        job_ioprio,
        dirs: [job.pattern.read, job.pattern.write],
    };
    if !o.used() {
        return Ok(Ok(None));
    }
    let seeds = &job.seeds;
    Ok(CmdPrio::new(&o, seeds.get(Slot::PrioCmds), seeds.repeatable).map(|c| c.map(Box::new)))
}

/// Why a direction's split entries cannot be used: as fio says when the
/// engine starts, or (a block size that is not a size) as rfio refuses
/// when the plan is built.
enum Refused<E> {
    Fio(CmdPrioError),
    NotASize(E),
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
/// direction, `bs/perc` or `bs/perc/class/level`, entries of 0% left out.
fn parse_split<E>(
    text: &str,
    size: impl Fn(&str) -> Result<u64, E>,
) -> Result<Vec<SplitEntry>, Refused<E>> {
    let pieces = text.split(':').take_while(|p| !p.is_empty());
    if pieces.clone().count() > MAX_ENTRIES {
        return Err(Refused::Fio(CmdPrioError::TooMany));
    }
    let mut out = Vec::new();
    for piece in pieces {
        let mut f = piece.split('/');
        let bs = size(f.next().unwrap_or("")).map_err(Refused::NotASize)?;
        // fio's sscanf("%m[^/]/%u/%u/%u"): the numbers read before the
        // first that is not one (or is followed by something else than
        // `/`), at most three; 0 or 1 (`bs/`, `bs/perc`) or 3
        // (`bs/perc/class/level`) of them; anything after is ignored.
        let nums = leading_u32s(f, 3);
        let (perc, prio) = match nums.as_slice() {
            [] => (0, None),
            [p] => (*p, None),
            [p, c, l] => {
                let class = (*c).min(MAX_CLASS) as u16;
                let level = (*l).min(MAX_LEVEL) as u16;
                (*p, Some(ioprio_value(class, level)))
            }
            _ => return Err(Refused::Fio(CmdPrioError::BadFormat)),
        };
        let perc = perc.min(100);
        if perc > 0 {
            out.push(SplitEntry { bs, perc, prio });
        }
    }
    Ok(out)
}

/// The `/`-separated fields as `sscanf("/%u/%u...")` reads them, up to
/// `max`: each a number after optional blanks and sign (negative ones
/// wrap, as `%u`), stopping at the first field that is no number or has
/// more after its digits (which is then still read).
fn leading_u32s<'a>(fields: impl Iterator<Item = &'a str>, max: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for field in fields.take(max) {
        let t = field.trim_start();
        let (neg, body) = match t.as_bytes().first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        let digits = body.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        let n = body[..digits]
            .parse::<u64>()
            .map_or(u32::MAX, |n| n.min(u64::from(u32::MAX)) as u32);
        out.push(if neg { n.wrapping_neg() } else { n });
        if digits < body.len() {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioengine::cmdprio::Picker;
    use crate::ioengine::ENGINES;
    use crate::ioengine::{
        CpuMode, CpuioOptions, E4defragOptions, ExecOptions, FileStatOptions, HttpMode,
        HttpOptions, LibaioOptions, NbdOptions, NetOptions, Proto, Pvsync2Options, StatType,
        UringOptions,
    };
    use crate::options::def::Support;
    use crate::options::table::OPTIONS;
    use crate::options::value::ParseCtx;
    use crate::plan::resolve::defaults::default_value;

    fn job(args: &[&str]) -> JobSpec {
        crate::plan::testing::job(args)
    }

    fn spec(args: &[&str]) -> EngineSpec {
        job(args).engine
    }

    #[test]
    fn every_registered_engine_is_one_fio_knows() {
        for def in ENGINES {
            assert!(
                engines::is_available(def.name, Release::NEWEST),
                "{}",
                def.name
            );
        }
    }

    /// An engine declares exactly the options of its fio table that rfio
    /// runs (`Support::Yes`), and the plan resolves each.
    #[test]
    fn every_engine_declares_the_options_rfio_runs_for_it() {
        for def in ENGINES {
            let mut table: Vec<&str> = crate::options::table_of(Release::NEWEST)
                .iter()
                .filter(|o| {
                    o.engines.contains(&engines::options_of(def.name)) && o.support == Support::Yes
                })
                .map(|o| o.name)
                .collect();
            let mut declared = def.options.to_vec();
            table.sort_unstable();
            declared.sort_unstable();
            assert_eq!(declared, table, "{}", def.name);
        }
    }

    #[test]
    fn engines_rfio_lacks_are_refused_with_what_they_need() {
        let refusal = |e: &str| {
            refusal(
                &job(&["--name=j", "--size=1m", &format!("--ioengine={e}")]),
                Release::V3_33,
            )
        };
        assert_eq!(refusal("psync"), None);
        assert_eq!(refusal("splice"), None);
        assert_eq!(
            refusal("sg").as_deref(),
            Some("ioengine=sg needs SCSI generic devices (/dev/sg*, the SG_IO ioctl); rfio does not run it")
        );
        for name in crate::ioengine::NOT_RUN.iter().map(|e| e.name) {
            assert!(engines::is_available(name, Release::V3_33), "{name}");
            assert!(
                refusal(name).unwrap().contains("rfio does not run it"),
                "{name}"
            );
        }
        assert_eq!(
            refusal("nosuch").as_deref(),
            Some("ioengine=nosuch: no such I/O engine (fio: engine nosuch not loadable)")
        );
        // fio stat()s the plugin when it parses: a regular file.
        let exe = std::env::current_exe().unwrap();
        let ext = format!("external:{}", exe.display());
        assert!(refusal(&ext).unwrap().contains("external engine plugins"));
        // Every engine of fio's list is run, needs something, or is to come.
        for name in crate::options::engines::ENGINES {
            let r = refusal(name);
            assert!(
                r.is_none()
                    || crate::ioengine::not_run(name).is_some()
                    || r.as_deref().is_some_and(|r| r.contains("yet"))
                    || (*name == "dev-dax"
                        && r.is_some_and(|r| r.contains("needs a device DAX character device"))),
                "{name}"
            );
        }
    }

    /// An engine a release removed is unknown from that release on, as
    /// that fio has it, and says when it went.
    #[test]
    fn an_engine_is_refused_as_the_release_knows_it() {
        let pmemblk = job(&["--name=j", "--size=1m", "--ioengine=pmemblk"]);
        assert!(refusal(&pmemblk, Release::V3_33)
            .unwrap()
            .contains("rfio does not run it"));
        assert_eq!(
            refusal(&pmemblk, Release::V3_42).as_deref(),
            Some(
                "ioengine=pmemblk: no such I/O engine (fio: engine pmemblk not loadable; \
                 fio 3.34 removed it, rfio behaves as fio-3.42)"
            )
        );
    }

    /// The engines read their options' defaults from the table: each
    /// default of an option rfio runs for an engine reads as a value.
    #[test]
    fn every_engine_option_default_reads() {
        for def in OPTIONS {
            // An empty default reads as no text, which is what it says.
            let default = def.default.filter(|d| !d.is_empty());
            if def.engines.is_empty() || def.support != Support::Yes || default.is_none() {
                continue;
            }
            let v = default_value(def, &ParseCtx::default());
            assert!(v.is_some_and(|v| v != Value::Nothing), "{}", def.name);
        }
    }

    #[test]
    fn common_options_with_fios_defaults() {
        let s = spec(&["--name=j", "--ioengine=psync", "--size=1m"]);
        assert_eq!(s.common, CommonOptions::default());
        assert_eq!(s.options, EngineOptions::None);
        let s = spec(&[
            "--name=j",
            "--ioengine=libaio",
            "--size=1m",
            "--iodepth=8",
            "--direct=1",
            "--iodepth_batch_complete_min=0",
            "--prio=3",
        ]);
        assert_eq!(
            s.common,
            CommonOptions {
                iodepth: 8,
                direct: true,
                batch_complete_min: 0,
                ioprio: 0x4003,
                atomic_writes: false,
            }
        );
        assert!(
            spec(&["--name=j", "--size=1m", "--buffered=0"])
                .common
                .direct
        );
    }

    #[test]
    fn each_engine_gets_its_own_options() {
        let s = spec(&[
            "--name=j",
            "--ioengine=io_uring",
            "--size=1m",
            "--hipri",
            "--fixedbufs",
            "--registerfiles=1",
            "--sqthread_poll=1",
            "--sqthread_poll_cpu=1",
            "--nonvectored=1",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::IoUring(UringOptions {
                hipri: true,
                fixedbufs: true,
                registerfiles: true,
                sqthread_poll: true,
                sqthread_poll_cpu: Some(1),
                nonvectored: 1,
                cmdprio: Ok(None),
                uncached: 0,
                nowait: false,
                force_async: 0,
            })
        );
        let s = spec(&[
            "--name=j",
            "--ioengine=io_uring",
            "--size=1m",
            "--uncached=1",
            "--nowait=1",
            "--force_async=4",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::IoUring(UringOptions {
                uncached: crate::ioengine::RWF_UNCACHED,
                nowait: true,
                force_async: 4,
                ..UringOptions::default()
            })
        );
        let s = spec(&["--name=j", "--ioengine=io_uring", "--size=1m"]);
        assert_eq!(s.options, EngineOptions::IoUring(UringOptions::default()));
        let s = spec(&[
            "--name=j",
            "--ioengine=libaio",
            "--size=1m",
            "--userspace_reap",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::Libaio(LibaioOptions {
                userspace_reap: true,
                ..LibaioOptions::default()
            })
        );
        let s = spec(&["--name=j", "--ioengine=libaio", "--size=1m", "--nowait=1"]);
        assert_eq!(
            s.options,
            EngineOptions::Libaio(LibaioOptions {
                nowait: true,
                ..LibaioOptions::default()
            })
        );
        let s = spec(&["--name=j", "--ioengine=pvsync2", "--size=1m", "--hipri"]);
        assert_eq!(
            s.options,
            EngineOptions::Pvsync2(Pvsync2Options {
                hipri: true,
                ..Pvsync2Options::default()
            })
        );
        let s = spec(&[
            "--name=j",
            "--ioengine=pvsync2",
            "--size=1m",
            "--hipri",
            "--hipri_percentage=25",
            "--uncached=2",
            "--nowait=1",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::Pvsync2(Pvsync2Options {
                hipri: true,
                hipri_percentage: 25,
                uncached: crate::ioengine::RWF_UNCACHED,
                nowait: true,
            })
        );
        for (arg, t) in [
            ("--stat_type=lstat", StatType::Lstat),
            ("--stat_type=statx", StatType::Statx),
            ("--stat_type=stat", StatType::Stat),
        ] {
            let s = spec(&["--name=j", "--ioengine=filestat", "--size=1m", arg]);
            assert_eq!(
                s.options,
                EngineOptions::FileStat(FileStatOptions { stat_type: t })
            );
        }
    }

    #[test]
    fn cpuio_exec_and_net_options() {
        let s = spec(&[
            "--name=burn",
            "--ioengine=cpuio",
            "--cpuload=150",
            "--cpumode=qsort",
            "--cpuchunks=1000",
            "--exit_on_io_done=1",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::Cpuio(CpuioOptions {
                cpuload: 150,
                mode: CpuMode::Qsort,
                cpuchunks: 1000,
                exit_on_io_done: true,
                job: "burn".into(),
            })
        );
        assert!(s.exits_when_io_is_done());
        let s = spec(&["--name=b", "--ioengine=cpuio"]);
        assert_eq!(
            s.options,
            EngineOptions::Cpuio(CpuioOptions {
                job: "b".into(),
                ..CpuioOptions::default()
            })
        );
        let s = spec(&[
            "--name=ex",
            "--ioengine=exec",
            "--program=/bin/echo",
            "--arguments=a %r",
            "--grace_time=3",
            "--std_redirect=0",
            "--runtime=2",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::Exec(ExecOptions {
                program: Some("/bin/echo".into()),
                arguments: Some("a %r".into()),
                grace_time: 3,
                std_redirect: false,
                job: "ex".into(),
                runtime_us: 2_000_000,
            })
        );
        let s = spec(&[
            "--name=n",
            "--ioengine=netsplice",
            "--filename=b",
            "--port=7000",
            "--proto=udpv6",
            "--pingpong",
            "--nodelay=1",
            "--ttl=4",
            "--window_size=64k",
            "--mss=1400",
            "--interface=10.0.0.1",
            "--rw=write",
            "--size=1m",
            "--numjobs=2",
        ]);
        let EngineOptions::Net(o) = s.options else {
            panic!("{:?}", s.options)
        };
        assert_eq!(
            o,
            NetOptions {
                host: Some("b".into()),
                port: 7000,
                proto: Proto::UdpV6,
                listen: false,
                pingpong: true,
                nodelay: true,
                ttl: 4,
                window_size: 65536,
                mss: 1400,
                interface: Some("10.0.0.1".into()),
                read: false,
                write: true,
                random: false,
                subjob: 0,
                size: 1 << 20,
                verify: false,
            }
        );
        let s = spec(&["--name=n", "--ioengine=net", "--hostname=a", "--listen"]);
        let EngineOptions::Net(o) = s.options else {
            panic!()
        };
        assert_eq!(
            (o.host.as_deref(), o.listen, o.ttl, o.proto),
            (Some("a"), true, 1, Proto::Tcp)
        );
        // The clones get the next ports (fio adds the clone's number).
        let fe = crate::plan::testing::frontend(&[
            "--name=n",
            "--ioengine=net",
            "--port=7000",
            "--numjobs=3",
            "--size=1m",
            "--hostname=h",
        ]);
        let subjobs: Vec<u32> = fe
            .plan
            .jobs
            .iter()
            .map(|j| match &j.engine.options {
                EngineOptions::Net(o) => o.subjob,
                _ => 99,
            })
            .collect();
        assert_eq!(subjobs, [0, 2, 1]);
    }

    #[test]
    fn nbd_takes_its_uri_and_refuses_tls() {
        let s = spec(&["--name=n", "--ioengine=nbd", "--uri=nbd://h:7/e"]);
        assert_eq!(
            s.options,
            EngineOptions::Nbd(NbdOptions {
                uri: Some("nbd://h:7/e".into())
            })
        );
        let s = spec(&["--name=n", "--ioengine=nbd"]);
        assert_eq!(s.options, EngineOptions::Nbd(NbdOptions { uri: None }));
        let fe = crate::plan::testing::frontend(&[
            "--name=n",
            "--ioengine=nbd",
            "--uri=nbds+unix:///?socket=s",
        ]);
        assert!(fe.plan.jobs.is_empty());
        assert!(
            fe.diags.to_string().contains(
                "job 'n': ioengine=nbd: uri=nbds+unix:///?socket=s: rfio's NBD client has no TLS"
            ),
            "{}",
            fe.diags
        );
    }

    #[test]
    fn http_and_e4defrag_options() {
        let s = spec(&[
            "--name=h",
            "--ioengine=http",
            "--size=1m",
            "--filename=/dav/o",
            "--http_host=h:81",
            "--http_mode=s3",
            "--http_s3_keyid=id",
            "--http_s3_region=eu-west-1",
            "--http_user=u",
            "--http_verbose=2",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::Http(HttpOptions {
                host: "h:81".into(),
                mode: HttpMode::S3,
                s3_keyid: "id".into(),
                s3_region: "eu-west-1".into(),
                user: Some("u".into()),
                verbose: 2,
                object: "/dav/o".into(),
                ..HttpOptions::default()
            })
        );
        let s = spec(&["--name=h", "--ioengine=http", "--size=1m"]);
        let EngineOptions::Http(o) = s.options else {
            panic!()
        };
        assert_eq!(
            (
                o.host.as_str(),
                o.s3_storage_class.as_str(),
                o.object.as_str()
            ),
            ("localhost", "STANDARD", "h.0.0")
        );
        let fe = crate::plan::testing::frontend(&["--name=h", "--ioengine=http", "--https=on"]);
        assert!(fe.plan.jobs.is_empty());
        assert!(
            fe.diags.to_string().contains("https=on needs TLS"),
            "{}",
            fe.diags
        );
        let s = spec(&[
            "--name=d",
            "--ioengine=e4defrag",
            "--donorname=x.def",
            "--inplace=1",
            "--directory=/mnt",
            "--offset=64k",
            "--filesize=1m-2m",
            "--size=1m",
        ]);
        assert_eq!(
            s.options,
            EngineOptions::E4defrag(E4defragOptions {
                donorname: Some("x.def".into()),
                inplace: true,
                directory: Some("/mnt".into()),
                start_offset: 65536,
                file_size_high: 2 << 20,
            })
        );
    }

    #[test]
    fn net_counts_in_bits_unless_unit_base_says() {
        let unit = |a: &[&str]| job(a).report.stats.unit_base;
        assert_eq!(unit(&["--name=n", "--ioengine=net", "--size=1m"]), 1);
        assert_eq!(
            unit(&["--name=n", "--ioengine=net", "--size=1m", "--unit_base=8"]),
            8
        );
        assert_eq!(
            unit(&["--name=n", "--ioengine=net", "--size=1m", "--unit_base=0"]),
            1
        );
        assert_eq!(unit(&["--name=n", "--ioengine=netsplice", "--size=1m"]), 8);
        assert_eq!(unit(&["--name=n", "--size=1m"]), 8);
    }

    fn cmdprio_of(args: &[&str]) -> CmdPrioSetting {
        let mut a = vec!["--name=p", "--ioengine=libaio", "--size=1m"];
        a.extend_from_slice(args);
        match spec(&a).options {
            EngineOptions::Libaio(o) => o.cmdprio,
            other => panic!("{other:?}"),
        }
    }

    fn cmdprio(args: &[&str]) -> CmdPrio {
        *cmdprio_of(args).unwrap().unwrap()
    }

    /// The first `n` decisions for reads of 4 KiB, as `0`/`1`.
    fn draws(args: &[&str], n: usize) -> String {
        let mut p = Picker::new(&cmdprio(args));
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
        let mut p = Picker::new(&cmdprio(&["--rw=randread", "--cmdprio_percentage=30"]));
        let loop_of = |p: &mut Picker| -> String {
            (0..64)
                .map(|_| if p.pick(0, 4096).is_some() { '1' } else { '0' })
                .collect()
        };
        let first = loop_of(&mut p);
        p.new_loop();
        assert_eq!(loop_of(&mut p), first);
        // Without randrepeat the generator goes on (from a random seed).
        let mut p = Picker::new(&cmdprio(&[
            "--rw=randread",
            "--cmdprio_percentage=30",
            "--randrepeat=0",
            "--randseed=7",
        ]));
        let first = loop_of(&mut p);
        p.new_loop();
        assert_ne!(loop_of(&mut p), first);
    }

    #[test]
    fn job_priority_is_slot_zero() {
        let c = cmdprio(&[
            "--rw=randread",
            "--cmdprio_percentage=20",
            "--prioclass=2",
            "--prio=7",
        ]);
        assert_eq!(c.slots(0), &[0x4007, 0x2000]);
        assert!(c.slots(1).is_empty(), "no writes, no table");
        // A command priority equal to the job's shares its slot.
        let c = cmdprio(&[
            "--rw=randrw",
            "--cmdprio_percentage=20,40",
            "--cmdprio_class=2",
            "--cmdprio=4",
            "--prio=4",
        ]);
        assert_eq!(c.slots(0), &[0x4004]);
        assert_eq!(c.slots(1), &[0x4004]);
        let ioprio = |a: &str| spec(&["--name=j", "--size=1m", a]).common.ioprio;
        assert_eq!(ioprio("--prioclass=3"), 0x6000);
        assert_eq!(ioprio("--prio=3"), 0x4003);
        assert_eq!(ioprio("--size=1m"), 0);
        // What the statistics keep per priority.
        let s = spec(&[
            "--name=p",
            "--ioengine=io_uring",
            "--size=1m",
            "--rw=randread",
            "--cmdprio_percentage=20",
            "--prio=7",
        ]);
        assert_eq!(s.prio_slots(), (0x4007, [vec![0x4007, 0x2000], vec![]]));
    }

    #[test]
    fn options_as_fio_reads_them() {
        assert_eq!(cmdprio_of(&["--rw=randread"]), Ok(None));
        assert_eq!(
            cmdprio(&["--rw=randwrite", "--cmdprio_percentage=0,30"]).slots(1),
            &[0, 0x2000]
        );
        // Only for the direction the job does.
        assert_eq!(
            cmdprio_of(&["--rw=randwrite", "--cmdprio_percentage=30,0"]),
            Ok(None)
        );
        // What fio refuses when the engine starts stays for then.
        assert_eq!(
            cmdprio_of(&[
                "--rw=randread",
                "--cmdprio_percentage=30",
                "--cmdprio_bssplit=4k/50"
            ]),
            Err(CmdPrioError::Exclusive)
        );
        assert_eq!(
            cmdprio_of(&["--rw=randread", "--cmdprio_bssplit=4k/50/1"]),
            Err(CmdPrioError::BadFormat)
        );
        // sscanf reads at most bs/perc/class/level: a fifth field, or text
        // after a number, is ignored (fio 3.33 runs these).
        for extra in ["1M/10/2/0/1", "1M/10/2/0x", "1M/10/2/0/junk"] {
            let split = format!("--cmdprio_bssplit={extra}");
            assert_eq!(
                cmdprio(&["--rw=randread", &split]).slots(0),
                &[0, ioprio_value(2, 0)],
                "{extra}"
            );
        }
        assert_eq!(
            cmdprio(&["--rw=randread", "--cmdprio_bssplit=1M/10x/2/0"]).slots(0),
            cmdprio(&["--rw=randread", "--cmdprio_bssplit=1M/10"]).slots(0),
            "the class after '10x' is not read: no priority of its own"
        );
        assert_eq!(
            cmdprio_of(&["--rw=randread", "--cmdprio_bssplit=4k/60:4k/50"]),
            Err(CmdPrioError::OverHundred { bs: 4096 })
        );
        let many = vec!["4k/1"; MAX_ENTRIES + 1].join(":");
        assert_eq!(
            cmdprio_of(&["--rw=randread", &format!("--cmdprio_bssplit={many}")]),
            Err(CmdPrioError::TooMany)
        );
    }

    #[test]
    fn a_block_size_that_is_no_size_is_a_plan_error() {
        let fe = crate::plan::testing::frontend(&[
            "--name=p",
            "--ioengine=libaio",
            "--size=1m",
            "--numjobs=2",
            "--cmdprio_bssplit=4q/50",
        ]);
        assert!(fe.plan.jobs.is_empty());
        let d = fe.diags.to_string();
        assert_eq!(
            d.matches(
                "job 'p': bad value for option 'cmdprio_bssplit' ('cmdprio_bssplit=4q/50'): '4q'"
            )
            .count(),
            1,
            "{d}"
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
        ]);
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
        // both directions; class and level above fio's are lowered.
        let c = cmdprio(&[
            "--rw=randrw",
            "--cmdprio_bssplit=8k/10:4k/100:16k/5/9/9",
            "--cmdprio_class=3",
            "--cmdprio=5",
        ]);
        assert_eq!(c.slots(0), &[0, 0x6005, 0x6007]);
        assert_eq!(c.slots(1), &[0, 0x6005, 0x6007]);
        let mut p = Picker::new(&c);
        assert_eq!(p.pick(1, 4096), Some((0x6005, 1)));
    }
}
