//! What a job records, logs and reports, resolved from its options once
//! while the plan is built (fio's `thread_options` as `stat.c`, `io_u.c`
//! and `iolog.c` consult them): the [`StatsConfig`] of its statistics, the
//! [`LogConfig`] of its per-job logs and the [`JobInfo`] its report carries
//! (name, group, units, the options the JSON output lists). Statistics,
//! logs and output formats read these, never an option.

use super::resolve::zones::ZoneMode;
use std::collections::HashSet;

use super::spec::{JobSpec, Plan};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::logs::{LogConfig, LogKind, WindowValue};
use crate::options::jobopts::{JobOptions, Setting};
use crate::options::Value;
use crate::stats::config::MAX_PERCENTILES;
use crate::stats::{JobInfo, OptionList, StatsConfig, Unified};

/// Resolve the report settings of `job` (built from its options) into
/// `job.report` and `job.logs`. The plan calls this once per job.
pub(crate) fn resolve(job: &mut JobSpec) {
    job.report = job_info(job);
    job.logs = log_config(job);
}

/// The report settings of `spec`: its identity, its statistics settings
/// ([`stats_config`]) and the options the JSON output lists for it.
pub(crate) fn job_info(spec: &JobSpec) -> JobInfo {
    let stats = stats_config(spec);
    JobInfo {
        // The reports are UTF-8: bytes that are not as U+FFFD.
        name: crate::diag::lossy(&spec.name).into_owned(),
        group_id: spec.group_id,
        thread_number: spec.thread_number,
        subjob: spec.subjob,
        group_reporting: spec.group_reporting,
        iodepth: spec.iodepth,
        thread: matches!(
            spec.opt("thread"),
            Some(Value::Bool(true)) | Some(Value::Int(1..))
        ),
        rw: spec.pattern.name().to_string(),
        bs: spec.bs,
        ioengine: spec.ioengine.clone(),
        no_io: super::engine::caps(spec).is_some_and(|c| c.no_io),
        options: job_options(spec)
            .map(|s| (s.def.name, s.text.as_deref().unwrap_or("")))
            .collect(),
        stats,
    }
}

/// The statistics settings of `spec`. Settings are applied in the order
/// written, so `gtod_reduce=1` followed by `clat_percentiles=1` turns the
/// percentiles back on, as in fio.
pub(crate) fn stats_config(spec: &JobSpec) -> StatsConfig {
    let mut c = StatsConfig::default();
    let p = spec.pattern;
    c.dirs = [p.read || p.write || p.trim, p.write, p.trim];
    c.count_zone_resets = matches!(spec.zones, Ok(Some(ZoneMode::Zbd(_)))) && (p.write || p.trim);
    if !spec.iolog.read.is_empty() {
        // A replay moves data in the directions its log has.
        c.dirs = [true; 3];
    }
    let (mut slat_pct, mut clat_pct, mut lat_pct) = (false, true, false);
    let mut log_avg = 0u64;
    // fio's unit_base 0 (unset): bits for an engine that counts in bits.
    let engine_unit = if super::engine::bit_based(spec) { 1 } else { 8 };
    c.unit_base = engine_unit;
    for s in &spec.options.settings {
        let v = &s.value;
        match s.def.name {
            "stats" => c.stats = truthy(v),
            "gtod_reduce" if truthy(v) => {
                c.slat = false;
                c.clat = false;
                c.lat = false;
                c.disable_bw = true;
                c.gtod_reduce = true;
                slat_pct = false;
                clat_pct = false;
                lat_pct = false;
            }
            "gtod_reduce" => c.gtod_reduce = false,
            "disable_slat" => c.slat = !truthy(v),
            "disable_clat" => c.clat = !truthy(v),
            "disable_lat" => c.lat = !truthy(v),
            "disable_bw_measurement" => c.disable_bw = truthy(v),
            "slat_percentiles" => slat_pct = truthy(v),
            "clat_percentiles" => clat_pct = truthy(v),
            "lat_percentiles" => lat_pct = truthy(v),
            "percentile_list" => {
                if let Value::Floats(f) = v {
                    let mut list: Vec<f64> = f
                        .iter()
                        .copied()
                        .filter(|p| *p > 0.0 && *p <= 100.0)
                        .take(MAX_PERCENTILES)
                        .collect();
                    list.sort_by(f64::total_cmp);
                    c.percentiles.list = list;
                    c.percentiles.precision = s.text.as_deref().map_or(2, precision_of);
                }
            }
            "bwavgtime" => c.bw_avg_ms = int(v).unwrap_or(500).max(1),
            "iopsavgtime" => c.iops_avg_ms = int(v).unwrap_or(500).max(1),
            "log_avg_msec" => log_avg = int(v).unwrap_or(0),
            "unified_rw_reporting" => {
                c.unified = match choice(s) {
                    Some("mixed" | "1") => Unified::Mixed,
                    Some("both" | "2") => Unified::Both,
                    _ => Unified::None,
                }
            }
            "kb_base" => {
                c.kb_base = if choice(s) == Some("1000") {
                    1000
                } else {
                    1024
                }
            }
            "unit_base" => {
                c.unit_base = match choice(s) {
                    Some("1") => 1,
                    Some("8") => 8,
                    _ => engine_unit,
                }
            }
            "significant_figures" => {
                c.sig_figs = int(v).unwrap_or(4).clamp(1, 10) as usize;
            }
            "description" => {
                c.description = match v {
                    Value::Text(t) if !t.is_empty() => Some(crate::diag::lossy(t).into_owned()),
                    _ => None,
                }
            }
            "continue_on_error" => {
                c.continue_on_error = !matches!(choice(s), None | Some("none" | "0"));
            }
            "latency_target" => c.latency_target_ns = micros(v).saturating_mul(1000),
            "latency_window" => c.latency_window_us = micros(v),
            "latency_percentile" => {
                if let Value::Floats(f) = v {
                    c.latency_percentile = f.first().copied().unwrap_or(100.0);
                }
            }
            _ => {}
        }
    }
    c.percentiles.slat = slat_pct && c.slat;
    c.percentiles.clat = clat_pct && c.clat;
    c.percentiles.lat = lat_pct && c.lat;
    let has = |n: &str| spec.options.get(n).is_some();
    // fio's add_job: with a windowed log, the sampler's period is
    // bwavgtime (iopsavgtime) when set, else log_avg_msec.
    if has("write_bw_log") {
        if log_avg == 0 {
            c.bw_per_io = true;
        } else if !has("bwavgtime") {
            c.bw_avg_ms = log_avg;
        }
    }
    if has("write_iops_log") {
        if log_avg == 0 {
            c.iops_per_io = true;
        } else if !has("iopsavgtime") {
            c.iops_avg_ms = log_avg;
        }
    }
    c
}

/// The logs `spec` asks for, or `None` when it writes none.
pub(crate) fn log_config(spec: &JobSpec) -> Option<LogConfig> {
    let o: &JobOptions = &spec.options;
    let prefix = |name: &str| -> Option<String> {
        match o.value(name)? {
            Value::Text(t) if !t.is_empty() => Some(t.clone()),
            _ => Some(spec.name.clone()),
        }
    };
    let flag = |name: &str, default: bool| match o.value(name) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Int(n)) => *n != 0,
        _ => default,
    };
    let int = |name: &str| match o.value(name) {
        Some(Value::Int(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Value::Bytes(n)) => *n,
        _ => 0,
    };
    // The option as the release's table names it (3.42's names are not
    // all in fio 3.33's table, the one architecture.rs checks).
    let setting = |name: &str| o.get(name);
    let gtod = flag("gtod_reduce", false);
    let mut logs = Vec::new();
    if let Some(p) = prefix("write_bw_log") {
        logs.push((LogKind::Bw, p));
    }
    if let Some(p) = prefix("write_iops_log") {
        logs.push((LogKind::Iops, p));
    }
    if let Some(p) = prefix("write_lat_log") {
        // Each latency log is skipped when that latency is not measured.
        if !flag("disable_lat", gtod) {
            logs.push((LogKind::Lat, p.clone()));
        }
        if !flag("disable_slat", gtod) {
            logs.push((LogKind::Slat, p.clone()));
        }
        if !flag("disable_clat", gtod) {
            logs.push((LogKind::Clat, p));
        }
    }
    if let Some(p) = prefix("write_hist_log") {
        logs.push((LogKind::ClatHist, p));
    }
    if logs.is_empty() {
        return None;
    }
    let avg_msec = int("log_avg_msec");
    // A windowed bw/iops log averages over bwavgtime (iopsavgtime) when
    // that is set and shorter.
    let window_of = |period: &str| match o.get(period) {
        Some(_) => avg_msec.min(int(period).max(1)),
        None => avg_msec,
    };
    Some(LogConfig {
        logs,
        avg_msec,
        bw_avg_msec: window_of("bwavgtime"),
        iops_avg_msec: window_of("iopsavgtime"),
        window: window_value(setting("log_window_value").or_else(|| setting("log_max_value"))),
        offset: flag("log_offset", false),
        prio: flag("log_prio", false),
        issue_time: flag("log_issue_time", false),
        per_job: flag("per_job_logs", true),
        hist_msec: int("log_hist_msec"),
        hist_coarseness: int("log_hist_coarseness").min(MAX_HIST_COARSENESS) as u32,
        epoch_clock: (flag("log_unix_epoch", false) || flag("log_alternate_epoch", false))
            .then(|| int("log_alternate_epoch_clock_id") as i32),
        thread_number: spec.thread_number,
        entries: match int("log_entries") {
            0 => DEF_LOG_ENTRIES,
            n => n as usize,
        },
        compress: int("log_compression") > 0,
        compress_cpus: log_compression_cpus(o),
        store_compressed: flag("log_store_compressed", false),
    })
}

/// The largest `log_hist_coarseness` fio 3.33 (no range) reads inside its
/// histogram: a stride of 2^10 of its 1856 buckets; from 2^11 it reads
/// memory outside them, and rfio refuses that ([`check_logs`]).
const MAX_HIST_COARSENESS: u64 = 10;

/// What a windowed log line holds: `log_window_value` (fio 3.37, which
/// made `log_max_value` its alias and a choice), before it the boolean
/// `log_max_value`. The release's table has one of the two names.
fn window_value(setting: Option<&Setting>) -> WindowValue {
    let Some(s) = setting else {
        return WindowValue::Avg;
    };
    match (&s.value, choice(s)) {
        (_, Some("max" | "1")) => WindowValue::Max,
        (_, Some("both")) => WindowValue::Both,
        (v, None) if truthy(v) => WindowValue::Max,
        _ => WindowValue::Avg,
    }
}

/// fio's `DEF_LOG_ENTRIES`, the default of `log_entries`.
const DEF_LOG_ENTRIES: usize = 1024;

/// The CPUs of `log_compression_cpus`, if set.
fn log_compression_cpus(o: &JobOptions) -> Option<Vec<usize>> {
    match o.value("log_compression_cpus")? {
        Value::Cpus(c) => Some(c.clone()),
        _ => None,
    }
}

/// Refuse the log settings of `job` that rfio does not run, each at the
/// line of the option: a `log_compression_cpus` CPU the machine does not
/// have (fio refuses it in the same words), an epoch clock
/// `clock_gettime` does not know (fio logs garbage times), histogram rows
/// stored compressed (fio 3.33 stores memory addresses in place of them).
pub(crate) fn check_logs(job: &JobSpec, diags: &mut Diagnostics) {
    let mut refuse = |option: &str, msg: String| {
        let span = job.options.get(option).map_or(&job.span, |s| &s.span);
        diags.push(Diagnostic::at(
            span.clone(),
            format!("job '{}': {msg}", job.name),
        ));
    };
    let max = crate::plan::resolve::placement::cpus_configured();
    if let Some(cpus) = log_compression_cpus(&job.options) {
        if let Some(c) = cpus.iter().find(|&&c| c >= max) {
            refuse(
                "log_compression_cpus",
                format!("CPU {c} too large (max={})", max - 1),
            );
        }
    }
    let set = |name: &str| job.options.get(name).is_some_and(|s| truthy(&s.value));
    if set("log_issue_time") && !(job.options.get("write_lat_log").is_some() && set("log_offset")) {
        // fio's add_job, in its words (exit 1, the jobs not run).
        refuse(
            "log_issue_time",
            "log_issue_time option requires write_lat_log and log_offset options".to_string(),
        );
    }
    let Some(logs) = &job.logs else {
        return;
    };
    let coarseness = job.options.get("log_hist_coarseness");
    let asked = coarseness.and_then(|s| int(&s.value)).unwrap_or(0);
    if logs.has(LogKind::ClatHist) && asked > MAX_HIST_COARSENESS {
        refuse(
            "log_hist_coarseness",
            format!(
                "log_hist_coarseness={asked}: fio sums 2^{asked} of its 1856 histogram \
                 buckets per column and reads past them; give at most {MAX_HIST_COARSENESS}"
            ),
        );
    }
    let packed = logs.logs.iter().any(|(k, _)| logs.packed(*k));
    if packed && (logs.window == WindowValue::Both || logs.issue_time) {
        let option = if logs.issue_time {
            "log_issue_time"
        } else {
            "log_window_value"
        };
        refuse(
            option,
            format!(
                "{option} with log_compression or log_store_compressed: fio 3.37 widened its \
                 log records for it; rfio keeps fio 3.33's records and does not write such a log"
            ),
        );
    }
    if let Some(clock) = logs.epoch_clock.filter(|c| !clock_exists(*c)) {
        refuse(
            "log_alternate_epoch_clock_id",
            format!("log_alternate_epoch_clock_id={clock}: clock_gettime has no clock {clock}"),
        );
    }
    // Without log_hist_msec the histogram log stays empty, in fio too.
    if logs.store_compressed && logs.has(LogKind::ClatHist) && logs.hist_msec > 0 {
        refuse(
            "log_store_compressed",
            "write_hist_log with log_store_compressed=1: fio 3.33 stores memory addresses \
             in place of the histogram rows; rfio does not write such a log"
                .to_string(),
        );
    }
}

/// Whether `clock_gettime` knows clock `id`.
fn clock_exists(id: i32) -> bool {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_getres writes one timespec, valid here; an unknown
    // clock is an EINVAL return.
    unsafe { libc::clock_getres(id as libc::clockid_t, &mut ts) == 0 }
}

/// JSON `job options`: the options set in the job's own section (an
/// included file's too), in the order applied.
fn job_options(job: &JobSpec) -> impl Iterator<Item = &Setting> {
    job.options.settings.iter().skip(job.own_options)
}

/// JSON `global options` of a run of `plan`: every global option its jobs
/// inherited, in the order applied, each setting once, as `(name, value
/// as written)`.
pub fn global_options(plan: &Plan) -> OptionList {
    let mut out = OptionList::default();
    let mut seen: HashSet<(&Span, &str)> = HashSet::new();
    for job in &plan.jobs {
        for s in job.options.settings.iter().take(job.own_options) {
            if seen.insert((&s.span, s.def.name)) {
                out.push(s.def.name, s.text.as_deref().unwrap_or(""));
            }
        }
    }
    out
}

/// fio's `percentile_precision`: the most digits after a `.` in the list.
fn precision_of(text: &str) -> usize {
    text.split(':')
        .map(|e| {
            e.split_once('.').map_or(0, |(_, frac)| {
                frac.chars().take_while(char::is_ascii_digit).count()
            })
        })
        .max()
        .unwrap_or(0)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(n) => *n != 0,
        _ => false,
    }
}

fn int(v: &Value) -> Option<u64> {
    match v {
        Value::Int(n) => u64::try_from(*n).ok(),
        Value::Bytes(n) => Some(*n),
        Value::Micros(n) => Some(*n),
        _ => None,
    }
}

fn micros(v: &Value) -> u64 {
    match v {
        Value::Micros(n) | Value::Bytes(n) => *n,
        Value::Int(n) => u64::try_from(*n).unwrap_or(0),
        _ => 0,
    }
}

fn choice(s: &Setting) -> Option<&'static str> {
    match &s.value {
        Value::Choice { index, .. } => s.def.posvals.get(*index).map(|p| p.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::{job, plan};

    #[test]
    fn precision_counts_decimals_as_fio() {
        assert_eq!(precision_of("1:5:10:99.5:99.99"), 2);
        assert_eq!(precision_of("50:99.999:25.5"), 3);
        assert_eq!(precision_of("90:50"), 0);
    }

    #[test]
    fn the_plan_resolves_each_job_once() {
        let j = job(&[
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--gtod_reduce=1",
            "--clat_percentiles=1",
            "--write_bw_log=b",
            "--log_avg_msec=100",
            "--kb_base=1000",
            "--thread",
        ]);
        assert_eq!(j.report, job_info(&j));
        let c = &j.report.stats;
        assert!(
            !c.clat && !c.percentiles.clat,
            "the latency is not measured"
        );
        assert_eq!((c.bw_avg_ms, c.bw_per_io, c.kb_base), (100, false, 1000));
        assert!(j.report.thread);
        let logs = j.logs.as_ref().expect("a bandwidth log");
        assert_eq!(logs.logs, [(LogKind::Bw, "b".to_string())]);
        assert_eq!(logs.avg_msec, 100);
        assert!(job(&["--name=a", "--ioengine=null", "--size=1m"])
            .logs
            .is_none());
    }

    #[test]
    fn log_compression_settings_resolve_once() {
        let base = [
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--write_iops_log=i",
        ];
        let logs = |extra: &[&str]| {
            let mut a = base.to_vec();
            a.extend_from_slice(extra);
            job(&a).logs.expect("an iops log")
        };
        let plain = logs(&[]);
        assert_eq!(plain.entries, 1024);
        assert!(!plain.compress && !plain.store_compressed);
        assert_eq!(plain.epoch_clock, None);
        let gz = logs(&[
            "--log_compression=10k",
            "--log_entries=4096",
            "--log_compression_cpus=0",
            "--log_store_compressed=1",
        ]);
        assert!(gz.compress && gz.store_compressed);
        assert_eq!((gz.entries, gz.compress_cpus), (4096, Some(vec![0])));
        assert_eq!(logs(&["--log_unix_epoch=1"]).epoch_clock, Some(0));
        let alt = logs(&[
            "--log_alternate_epoch=1",
            "--log_alternate_epoch_clock_id=1",
        ]);
        assert_eq!(alt.epoch_clock, Some(1));
        assert_eq!(
            logs(&["--log_alternate_epoch_clock_id=1"]).epoch_clock,
            None,
            "the clock alone changes nothing"
        );
    }

    #[test]
    fn job_options_are_the_jobs_own_globals_the_rest() {
        let p = plan(&[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--bs=8k",
            "--name=b",
        ]);
        let pairs = |v: &[(&str, &str)]| -> OptionList { v.iter().copied().collect() };
        assert_eq!(
            global_options(&p),
            pairs(&[("ioengine", "null"), ("size", "1m")])
        );
        assert_eq!(
            p.jobs[0].report.options,
            pairs(&[("name", "a"), ("bs", "8k")])
        );
        assert_eq!(p.jobs[1].report.options, pairs(&[("name", "b")]));
    }
}
