//! fio's command line, read the way fio reads it (`getopt_long_only`).
//!
//! - Options may start with `--` or `-`; values follow `=` or, for options
//!   that require one, come from the next argument.
//! - Any unambiguous prefix of a long option is accepted (`--time_bas`);
//!   an exact match always wins; several prefix matches are ambiguous.
//! - Job options (every option of the table, by name and alias) before the
//!   first `--name` are global; `--name=X` starts a new job (a name starting
//!   with `global` starts a global section).
//! - Everything else is a job file, read after the command-line jobs.

pub(crate) mod error;
mod find;
use find::find_read;
mod loaded;
mod reading;
mod split;
mod values;

use crate::release::Release;
use std::path::PathBuf;

use crate::diag::{path_of_text, Span};
use crate::jobfile::Mode;
use crate::options::{suggest, FioType};
pub(crate) use crate::plan::input::CmdSection;
use crate::plan::input::{push_job_option, Input};
use crate::stats::IdleMode;

pub use self::error::{ArgError, ArgErrors};
pub(crate) use self::reading::reading_of;
pub(crate) use self::split::{classify, job_options, Arg};
use self::values::{interval_ms, output_formats, push_format};
use super::trigger::Triggers;
use crate::baseline::beyond;
use crate::tools::Tool;

/// Whether a long option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HasArg {
    No,
    Required,
    Optional,
}

/// fio's own flags, in fio's order (`l_opts` in init.c), each with
/// whether fio flags it `FIO_CLIENT_FLAG` (after a `--client` it is sent
/// to that server, [`is_client_flag`]); the names are
/// [`suggest::FIO_COMMAND_LINE_OPTIONS`] (a test keeps the two equal).
const FLAGS: &[(&str, HasArg, bool)] = &[
    ("output", HasArg::Required, true),
    ("latency-log", HasArg::Required, true),
    ("bandwidth-log", HasArg::No, true),
    ("minimal", HasArg::No, true),
    ("output-format", HasArg::Required, true),
    ("append-terse", HasArg::Optional, false),
    ("version", HasArg::No, true),
    ("help", HasArg::No, true),
    ("cmdhelp", HasArg::Optional, true),
    ("enghelp", HasArg::Optional, true),
    ("showcmd", HasArg::No, true),
    ("readonly", HasArg::No, true),
    ("eta", HasArg::Required, true),
    ("eta-interval", HasArg::Required, true),
    ("eta-newline", HasArg::Required, true),
    ("debug", HasArg::Required, true),
    ("parse-only", HasArg::No, true),
    ("section", HasArg::Required, true),
    ("inflate-log", HasArg::Required, true),
    ("alloc-size", HasArg::Required, true),
    ("profile", HasArg::Required, true),
    ("warnings-fatal", HasArg::No, true),
    ("max-jobs", HasArg::Required, true),
    ("terse-version", HasArg::Required, true),
    ("server", HasArg::Optional, false),
    ("daemonize", HasArg::Required, false),
    ("client", HasArg::Required, false),
    ("remote-config", HasArg::Required, false),
    ("cpuclock-test", HasArg::No, false),
    ("crctest", HasArg::Optional, false),
    ("memcpytest", HasArg::Optional, false),
    ("idle-prof", HasArg::Required, false),
    ("status-interval", HasArg::Required, true),
    ("trigger-file", HasArg::Required, false),
    ("trigger-timeout", HasArg::Required, false),
    ("trigger", HasArg::Required, false),
    ("trigger-remote", HasArg::Required, false),
    ("aux-path", HasArg::Required, false),
    ("merge-blktrace-only", HasArg::No, true),
];

/// rfio's own flags, which fio does not have: `--compat=fio` reads job
/// files and values as fio 3.33 does (what rfio does when called as
/// `fio`), `--compat=strict` refuses what fio silently misreads (the
/// default when called as `rfio`).
///
/// `--server-allow` and `--server-jail` restrict what an rfio server lets
/// its clients do; `--server-session` (internal) serves one connection on
/// standard input, in the process the listener starts for it.
const RFIO_FLAGS: &[(&str, HasArg)] = &[
    ("compat", HasArg::Required),
    ("server-allow", HasArg::Required),
    ("server-jail", HasArg::Required),
    ("server-session", HasArg::No),
    ("status-format", HasArg::Required),
    ("status-output", HasArg::Required),
    ("lint", HasArg::No),
    ("lint-format", HasArg::Required),
    ("quiet-lint", HasArg::No),
    ("lint-allow", HasArg::Required),
    ("repeat", HasArg::Required),
    ("baseline-save", HasArg::Required),
    ("baseline-compare", HasArg::Required),
    ("baseline-threshold", HasArg::Required),
    ("baseline-metrics", HasArg::Required),
];

/// rfio's flags that fio mode (called as `fio`, `--compat=fio`) refuses as
/// fio 3.33 refuses an unknown option ([`Args::beyond_fio`]).
pub(crate) const BEYOND_FIO: &[&str] = &[
    "repeat",
    "baseline-save",
    "baseline-compare",
    "baseline-threshold",
    "baseline-metrics",
];

/// rfio's flags matched by their whole name only, so that the prefixes
/// they share with fio's flags (`--status` for `--status-interval`) keep
/// meaning what they mean to fio.
const EXACT_ONLY: &[&str] = &[
    "status-format",
    "status-output",
    "repeat",
    "baseline-save",
    "baseline-compare",
    "baseline-threshold",
    "baseline-metrics",
];

/// An output format of `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Normal,
    Terse,
    Json,
    JsonPlus,
    /// rfio's streaming status, one JSON object a line (`ndjson`).
    Ndjson,
}

/// When the ETA line is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Eta {
    #[default]
    Auto,
    Always,
    Never,
}

/// What rfio was asked to do besides running jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    Run,
    Version,
    Help,
    /// `--cmdhelp[=ARG]`, with the `--profile` given before it (fio then
    /// shows only that profile's options).
    CmdHelp(Option<String>, Option<String>),
    EngHelp(Option<String>),
    /// `--inflate-log=FILE`: print a compressed log and exit.
    InflateLog(PathBuf),
    /// One of fio's self-tests (`--crctest`, ...).
    Tool(Tool),
}

/// The whole command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub(crate) action: Action,
    pub(crate) output: Option<PathBuf>,
    /// Formats in the order given; empty means normal.
    pub(crate) formats: Vec<Format>,
    pub(crate) terse_version: u8,
    pub(crate) parse_only: bool,
    pub(crate) showcmd: bool,
    pub(crate) sections: Vec<String>,
    pub(crate) readonly: bool,
    pub(crate) eta: Eta,
    pub(crate) eta_newline_ms: Option<u64>,
    pub(crate) eta_interval_ms: Option<u64>,
    pub(crate) status_interval_ms: Option<u64>,
    /// `--status-format=ndjson`: the `--status-interval` reports as NDJSON
    /// lines, whatever `--output-format` says.
    pub(crate) status_ndjson: bool,
    /// `--status-output=FILE`: where `--status-format=ndjson` lines go
    /// (stderr without it), never among the results.
    pub(crate) status_output: Option<PathBuf>,
    pub(crate) warnings_fatal: bool,
    pub(crate) bandwidth_log: bool,
    /// `--bandwidth-log=NAME` as written, and where: the release decides
    /// ([`Args::with_release`]).
    pub(crate) bandwidth_log_name: Option<(Span, String)>,
    /// `--max-jobs`: read and ignored (any value), as fio 3.33 ignores
    /// it; a run is refused past fio's fixed 4,088 jobs (the runner's
    /// `MAX_RUN_JOBS`) whatever this says.
    pub(crate) max_jobs: Option<String>,
    pub(crate) aux_path: Option<PathBuf>,
    /// `--idle-prof=system|percpu`.
    pub(crate) idle_prof: Option<IdleMode>,
    /// `--trigger-file`, `--trigger-timeout`, `--trigger`, `--trigger-remote`.
    pub(crate) triggers: Triggers,
    /// `--debug` values, in order.
    pub(crate) debug: Vec<String>,
    pub(crate) cmd_sections: Vec<CmdSection>,
    /// `--profile=NAME` (the last one given) and where.
    pub(crate) profile: Option<(String, Span)>,
    pub(crate) job_files: Vec<PathBuf>,
    /// `--merge-blktrace-only`: merge the jobs' blktrace traces, run
    /// nothing.
    pub(crate) merge_blktrace_only: bool,
    /// Flags accepted but not implemented by rfio (`--server`, ...).
    pub(crate) unsupported: Vec<String>,
    /// `--compat`: how job files and values are read, when given (rfio
    /// called as `fio` reads as fio does unless told otherwise).
    pub(crate) compat: Option<Mode>,
    /// How job files and values are read (see [`Args::called_as`]).
    pub(crate) mode: Mode,
    /// `--compat=fio-3.NN`: the release asked for, when given.
    pub(crate) compat_release: Option<Release>,
    /// The fio release rfio behaves as (see [`Args::with_release`]).
    pub(crate) release: Release,
    /// `--server[=ADDR]` (`Some("")` without an address).
    pub(crate) server: Option<String>,
    /// `--daemonize=PIDFILE`.
    pub(crate) daemonize: Option<PathBuf>,
    /// `--server-allow=CIDR[,CIDR...]`.
    pub(crate) server_allow: Option<String>,
    /// `--server-jail=DIR`.
    pub(crate) server_jail: Option<PathBuf>,
    /// `--server-session`: serve the connection on standard input.
    pub(crate) server_session: bool,
    /// `--lint`: report the jobs' methodology problems, run nothing.
    pub(crate) lint: bool,
    /// `--lint-format=json`: the `--lint` report as JSON.
    pub(crate) lint_json: bool,
    /// `--quiet-lint`: no lint warnings before a run.
    pub(crate) quiet_lint: bool,
    /// `--lint-allow=RULE[,RULE...]`: lint rules silenced for every job.
    pub(crate) lint_allow: Vec<String>,
    /// `--repeat=N`, as written (checked by `baseline::beyond`).
    pub(crate) repeat: Option<String>,
    /// `--baseline-save=FILE`, `--baseline-compare=FILE`.
    pub(crate) baseline_save: Option<PathBuf>,
    pub(crate) baseline_compare: Option<PathBuf>,
    /// `--baseline-threshold=PCT`, as written.
    pub(crate) baseline_threshold: Option<String>,
    /// `--baseline-metrics=LIST`, as written.
    pub(crate) baseline_metrics: Option<String>,
    /// The arguments that gave one of [`BEYOND_FIO`], as written (fio
    /// mode refuses the first as fio refuses an unknown option).
    pub(crate) beyond_fio: Vec<String>,
}

impl Args {
    /// rfio's flags beyond fio's, as written, for [`beyond::read`].
    pub(crate) fn beyond(&self) -> beyond::Written<'_> {
        beyond::Written {
            mode: self.mode,
            beyond_fio: &self.beyond_fio,
            repeat: self.repeat.as_deref(),
            baseline_save: self.baseline_save.as_ref(),
            baseline_compare: self.baseline_compare.as_ref(),
            baseline_threshold: self.baseline_threshold.as_deref(),
            baseline_metrics: self.baseline_metrics.as_deref(),
        }
    }
}

impl Default for Args {
    fn default() -> Self {
        Args {
            action: Action::Run,
            output: None,
            formats: Vec::new(),
            terse_version: 3,
            parse_only: false,
            showcmd: false,
            sections: Vec::new(),
            readonly: false,
            eta: Eta::Auto,
            eta_newline_ms: None,
            eta_interval_ms: None,
            status_interval_ms: None,
            status_ndjson: false,
            status_output: None,
            warnings_fatal: false,
            bandwidth_log: false,
            bandwidth_log_name: None,
            max_jobs: None,
            aux_path: None,
            idle_prof: None,
            triggers: Triggers::default(),
            debug: Vec::new(),
            cmd_sections: Vec::new(),
            profile: None,
            job_files: Vec::new(),
            merge_blktrace_only: false,
            unsupported: Vec::new(),
            compat: None,
            server: None,
            daemonize: None,
            server_allow: None,
            server_jail: None,
            server_session: false,
            mode: Mode::Strict,
            compat_release: None,
            release: Release::DEFAULT,
            lint: false,
            lint_json: false,
            quiet_lint: false,
            lint_allow: Vec::new(),
            repeat: None,
            baseline_save: None,
            baseline_compare: None,
            baseline_threshold: None,
            baseline_metrics: None,
            beyond_fio: Vec::new(),
        }
    }
}

/// The plan's input: the command-line jobs and the flags that change the
/// plan.
impl From<&Args> for Input {
    fn from(args: &Args) -> Input {
        Input {
            readonly: args.readonly,
            aux_path: args.aux_path.clone(),
            warnings_fatal: args.warnings_fatal,
            parse_only: args.parse_only,
            showcmd: args.showcmd,
            sections: args.sections.clone(),
            cmd_sections: args.cmd_sections.clone(),
            profile: args.profile.clone(),
            mode: args.mode,
            release: args.release,
            files_share_group: false,
            file_prefix: None,
        }
    }
}

/// Whether fio's flag `name` is a client option (sent to the server it
/// follows on a `--client` command line).
pub(crate) fn is_client_flag(name: &str) -> bool {
    FLAGS.iter().any(|&(n, _, client)| client && n == name)
}

/// A long option: one of fio's flags or a job option.
#[derive(Debug, Clone, Copy)]
struct LongOpt {
    name: &'static str,
    has_arg: HasArg,
    job: bool,
    /// An engine's option (fio's getopt knows it while that engine is
    /// loaded: [`loaded::Loaded`]).
    engine: bool,
}

/// The long options of `release`, built once per process (argument
/// reading and the command line's split into sections both need them):
/// an option a later release added is unrecognized, as that fio's getopt
/// does not know it.
fn long_options(release: Release) -> &'static [LongOpt] {
    const RELEASES: usize = Release::NEWEST as usize + 1;
    static ALL: [std::sync::OnceLock<Vec<LongOpt>>; RELEASES] =
        [const { std::sync::OnceLock::new() }; RELEASES];
    ALL[release as usize].get_or_init(|| build_long_options(release))
}

fn build_long_options(release: Release) -> Vec<LongOpt> {
    let mut all: Vec<LongOpt> = FLAGS
        .iter()
        .map(|&(name, has_arg, _)| (name, has_arg))
        .chain(RFIO_FLAGS.iter().copied())
        .map(|(name, has_arg)| LongOpt {
            name,
            has_arg,
            job: false,
            engine: false,
        })
        .collect();
    // The profiles' options are known too (fio registers them at start).
    let options = crate::options::table_of(release);
    let core = options.iter().filter(|d| !d.is_engine_option());
    // Names hashed cheaply: they are the tables' own.
    type Seen<'a> = std::collections::HashSet<
        &'a str,
        std::hash::BuildHasherDefault<crate::options::later::NameHash>,
    >;
    let mut seen: Seen = all.iter().map(|o| o.name).collect();
    for def in core.chain(crate::options::profiles::PROFILE_OPTIONS) {
        let has_arg = if def.fio_type == FioType::StrSet {
            HasArg::Optional
        } else {
            HasArg::Required
        };
        for name in std::iter::once(def.name).chain(def.aliases.iter().copied()) {
            if !seen.insert(name) {
                continue;
            }
            all.push(LongOpt {
                name,
                has_arg,
                job: true,
                engine: false,
            });
        }
    }
    // Engine options are known on the command line too (fio adds those of
    // the ioengine once `--ioengine` is seen); rfio knows them all up front.
    for def in options.iter().filter(|d| d.is_engine_option()) {
        if !seen.insert(def.name) {
            continue;
        }
        let has_arg = if def.fio_type == FioType::StrSet {
            HasArg::Optional
        } else {
            HasArg::Required
        };
        all.push(LongOpt {
            name: def.name,
            has_arg,
            job: true,
            engine: true,
        });
    }
    all
}

/// Read `argv` (without the program name) of a program not called `fio`.
pub fn parse(argv: &[String]) -> Result<Args, ArgErrors> {
    parse_called(argv, false)
}

/// Read `argv` (without the program name); `called_fio`: the program's
/// name is `fio` (the long options are then those of fio's getopt).
pub fn parse_called(argv: &[String], called_fio: bool) -> Result<Args, ArgErrors> {
    let reading = reading::reading_of(argv, called_fio);
    let mut loaded = loaded::Loaded::new(reading);
    let mut args = Args::default();
    let mut diags = ArgErrors::default();
    let mut i = 0;
    let mut only_files = false;
    while i < argv.len() {
        let arg = &argv[i];
        let span = Span::Arg {
            index: i as u32 + 1,
        };
        i += 1;
        if only_files || arg == "-" || !arg.starts_with('-') {
            args.job_files.push(path_of_text(arg));
            continue;
        }
        if arg == "--" {
            only_files = true;
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let opt = match find_read(reading, arg, name, &|n| loaded.knows(n)) {
            Ok(o) => o,
            Err(mut e) => {
                if let ArgError::Unrecognized { loaded: l, .. }
                | ArgError::Ambiguous { loaded: l, .. } = &mut e
                {
                    *l = loaded.engine();
                }
                diags.push(span, e);
                continue;
            }
        };
        if BEYOND_FIO.contains(&opt.name) {
            args.beyond_fio.push(arg.clone());
        }
        let value = match (opt.has_arg, inline) {
            (HasArg::No, Some(_)) if opt.name == "bandwidth-log" => {
                args.bandwidth_log_name = Some((span.clone(), arg.clone()));
                None
            }
            (HasArg::No, Some(_)) => {
                let (arg, option) = (arg.clone(), opt.name);
                diags.push(span, ArgError::NoArgumentAllowed { arg, option });
                continue;
            }
            (HasArg::Required, None) => match argv.get(i) {
                Some(next) => {
                    i += 1;
                    Some(next.clone())
                }
                None => {
                    let (arg, option) = (arg.clone(), opt.name);
                    diags.push(span, ArgError::RequiresArgument { arg, option });
                    continue;
                }
            },
            (_, v) => v,
        };
        if opt.job {
            if opt.name == "name" && reading.0 == Mode::Fio {
                // fio adds the job before as it reads this `--name`.
                let normal = args.formats.is_empty() || args.formats.contains(&Format::Normal);
                if let Some(before) = args.cmd_sections.last_mut() {
                    before.described = Some(normal);
                }
            }
            loaded.job_option(opt.name, value.as_deref());
            push_job_option(&mut args.cmd_sections, opt.name, value, span);
        } else if opt.name == "profile" {
            args.profile = Some((value.unwrap_or_default(), span));
        } else if let Err(e) = flag(&mut args, opt.name, value) {
            diags.push(span, e);
        }
        // fio acts on the first flag that exits (--help, --crctest, ...)
        // as it reads it: what follows is never read.
        if args.action != Action::Run {
            break;
        }
    }
    // `--compat=fio-3.NN` names the release at once (the command line then
    // settles the environment's with `Args::with_release`).
    if let Some(r) = args.compat_release {
        args.release = r;
    }
    match diags.0.is_empty() {
        true => Ok(args),
        false => Err(diags),
    }
}

/// Apply one of fio's own flags.
fn flag(args: &mut Args, name: &str, value: Option<String>) -> Result<(), ArgError> {
    let v = || value.clone().unwrap_or_default();
    match name {
        "output" => args.output = Some(path_of_text(&v())),
        "minimal" => args.formats = vec![Format::Terse],
        "append-terse" => push_format(&mut args.formats, Format::Terse),
        "output-format" => args.formats = output_formats(&v())?,
        "terse-version" => {
            args.terse_version = match v().trim().parse::<u8>() {
                Ok(n @ 2..=5) => n,
                _ => return Err(ArgError::TerseVersion(v())),
            }
        }
        "version" => args.action = Action::Version,
        "help" => args.action = Action::Help,
        "cmdhelp" => {
            let profile = args.profile.as_ref().map(|(p, _)| p.clone());
            args.action = Action::CmdHelp(value, profile)
        }
        "enghelp" => args.action = Action::EngHelp(value),
        "showcmd" => args.showcmd = true,
        "readonly" => args.readonly = true,
        "parse-only" => args.parse_only = true,
        "warnings-fatal" => args.warnings_fatal = true,
        "bandwidth-log" => args.bandwidth_log = true,
        "eta" => {
            // fio ignores values other than always/never.
            args.eta = match v().as_str() {
                "always" => Eta::Always,
                "never" => Eta::Never,
                _ => args.eta,
            }
        }
        "eta-newline" => args.eta_newline_ms = Some(interval_ms("eta-newline", &v(), 1)?),
        "eta-interval" => args.eta_interval_ms = Some(interval_ms("eta-interval", &v(), 250)?),
        "status-interval" => {
            args.status_interval_ms = Some(interval_ms("status-interval", &v(), 1)?)
        }
        "status-format" => {
            args.status_ndjson = match v().as_str() {
                "ndjson" => true,
                "normal" => false,
                other => return Err(ArgError::StatusFormat(other.to_string())),
            }
        }
        "status-output" => args.status_output = Some(path_of_text(&v())),
        "section" => {
            if v() == "global" {
                return Err(ArgError::GlobalSection);
            }
            args.sections.push(v());
        }
        "max-jobs" => args.max_jobs = Some(v()),
        "debug" => args.debug.push(v()),
        "aux-path" => args.aux_path = Some(path_of_text(&v())),
        "latency-log" => return Err(ArgError::LatencyLog),
        "alloc-size" => super::alloc::alloc_size(&v())?,
        "crctest" => args.action = Action::Tool(Tool::CrcTest(value)),
        "memcpytest" => args.action = Action::Tool(Tool::MemcpyTest(value)),
        "cpuclock-test" => args.action = Action::Tool(Tool::CpuClockTest),
        "idle-prof" => match crate::tools::idle::parse_mode(&v())? {
            IdleMode::Calibrate => args.action = Action::Tool(Tool::IdleCalibrate),
            mode => args.idle_prof = Some(mode),
        },
        "trigger-file" | "trigger-timeout" | "trigger" | "trigger-remote" => {
            args.triggers.flag(name, &v())?
        }
        // fio inflates at once and exits: the first such flag wins.
        "inflate-log" if args.action == Action::Run => {
            args.action = Action::InflateLog(path_of_text(&v()))
        }
        "inflate-log" => {}
        "merge-blktrace-only" => args.merge_blktrace_only = true,
        "compat" => {
            args.compat = Some(match v().as_str() {
                "fio" => Mode::Fio,
                "strict" => Mode::Strict,
                other if other.starts_with("fio-") => {
                    let release =
                        Release::parse(other).map_err(|source| ArgError::CompatRelease {
                            text: other.to_string(),
                            source,
                        })?;
                    args.compat_release = Some(release);
                    Mode::Fio
                }
                other => return Err(ArgError::Compat(other.to_string())),
            })
        }
        "server" => args.server = Some(v()),
        "daemonize" => args.daemonize = Some(path_of_text(&v())),
        "server-allow" => args.server_allow = Some(v()),
        "server-jail" => args.server_jail = Some(path_of_text(&v())),
        "server-session" => args.server_session = true,
        "lint" => args.lint = true,
        "lint-format" => {
            args.lint = true;
            args.lint_json = match v().as_str() {
                "json" => true,
                "text" => false,
                other => return Err(ArgError::LintFormat(other.to_string())),
            }
        }
        "quiet-lint" => args.quiet_lint = true,
        "lint-allow" => args
            .lint_allow
            .extend(crate::lint::allow_list(&v()).map_err(ArgError::LintAllow)?),
        "repeat" => args.repeat = Some(v()),
        "baseline-save" => args.baseline_save = Some(path_of_text(&v())),
        "baseline-compare" => args.baseline_compare = Some(path_of_text(&v())),
        "baseline-threshold" => args.baseline_threshold = Some(v()),
        "baseline-metrics" => args.baseline_metrics = Some(v()),
        other => args.unsupported.push(other.to_string()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_fios_command_line_options() {
        let names: Vec<&str> = FLAGS.iter().map(|f| f.0).collect();
        assert_eq!(names, suggest::FIO_COMMAND_LINE_OPTIONS);
    }

    fn parsed(argv: &[&str]) -> Result<Args, ArgErrors> {
        parse(&argv.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    /// `fio --serv=,8799` is `--server`; rfio's `--server-*` flags do not
    /// make the prefix ambiguous, and are found by their own prefixes.
    #[test]
    fn fios_prefixes_keep_their_meaning() {
        assert_eq!(
            parsed(&["--serv=,8799"]).unwrap().server.as_deref(),
            Some(",8799")
        );
        assert!(parsed(&["--server-j=/tmp"]).unwrap().server_jail.is_some());
        assert!(parsed(&["--lint-f=json"]).unwrap().lint_json);
        let e = parsed(&["--ou"]).unwrap_err();
        assert_eq!(
            e.0[0].1.fio_text("fio", Release::V3_33).as_deref(),
            Some(
                "fio: option '--ou' is ambiguous; possibilities: '--output' '--output-format'\n\
                 fio: unrecognized option '--ou'\n"
            )
        );
    }
}
