//! The `pipelines` check: the one-liners that scripts written for fio run on its output work on
//! rfio's output too. Each pipeline is run, with the real `awk` and `jq`, on fio's output and on
//! rfio's output of the same job file:
//!
//! - `awk -F';' '{print $7, $8, $48, $49}'` on the `--minimal` lines (read bw, read IOPS,
//!   write bw, write IOPS; what YABS and many runbooks read);
//! - `jq '.jobs[0].read.iops, .jobs[0].read.clat_ns.percentile["99.000000"]'` and
//!   `jq '.jobs[0].read.bw, .jobs[0].read.clat_ns.mean, .jobs[0].write.iops // .jobs[0].read.iops'`
//!   on the JSON output;
//! - `awk '{print $1/1000, $2}' NAME_iops.N.log` on every iops log fio wrote (seconds, IOPS).
//!
//! Where the pipeline succeeds on fio's output it must succeed on rfio's, and print the same
//! shape: the same number of lines with words (for the log, as the `run` check counts log lines), the same
//! number of words on each line, and a number wherever fio's prints a number (`null` where
//! fio's prints `null`). The values themselves are timing figures and are not compared.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::judge::Judge;
use crate::logs::{LineRule, Log};
use crate::show::head;
use crate::spec::{Directives, RunSpec};
use crate::verdict::{capped, exit_statuses, unfinished, RunPair, Side, Verdict};

/// One seed pipeline: how the report shows it and how it is run (input on stdin).
pub(crate) struct Pipeline {
    pub(crate) shown: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

pub(crate) const TERSE_AWK: Pipeline = Pipeline {
    shown: "awk -F';' '{print $7, $8, $48, $49}'",
    program: "awk",
    args: &["-F;", "{print $7, $8, $48, $49}"],
};

pub(crate) const JQ_IOPS_P99: Pipeline = Pipeline {
    shown: "jq '.jobs[0].read.iops, .jobs[0].read.clat_ns.percentile[\"99.000000\"]'",
    program: "jq",
    args: &[".jobs[0].read.iops, .jobs[0].read.clat_ns.percentile[\"99.000000\"]"],
};

pub(crate) const JQ_BW_MEAN: Pipeline = Pipeline {
    shown: "jq '.jobs[0].read.bw, .jobs[0].read.clat_ns.mean, .jobs[0].write.iops // .jobs[0].read.iops'",
    program: "jq",
    args: &[".jobs[0].read.bw, .jobs[0].read.clat_ns.mean, .jobs[0].write.iops // .jobs[0].read.iops"],
};

pub(crate) const LOG_AWK: Pipeline = Pipeline {
    shown: "awk '{print $1/1000, $2}'",
    program: "awk",
    args: &["{print $1/1000, $2}"],
};

/// The programs the pipelines need on PATH.
pub(crate) const PROGRAMS: [&str; 2] = ["awk", "jq"];

/// Judges the `pipelines` check: `runs` are the json+ run and the `--minimal` run. A file rfio
/// deliberately refuses (or accepts) is judged by its exit status alone, as in the `run` check.
pub(crate) fn judge(runs: &[RunPair], spec: &RunSpec, deliberate: Directives) -> Verdict {
    let (json, minimal) = (&runs[0], &runs[1]);
    if let Err(verdict) = exit_statuses(&json.fio, &json.rfio, deliberate) {
        if !matches!(verdict, Verdict::Diff(_)) {
            return verdict;
        }
    }
    let mut differences = Vec::new();
    for run in [json, minimal] {
        for difference in unfinished(&run.fio, Side::Fio)
            .into_iter()
            .chain(unfinished(&run.rfio, Side::Rfio))
        {
            if !differences.contains(&difference) {
                differences.push(difference);
            }
        }
    }
    if !differences.is_empty() {
        return Verdict::Diff(differences);
    }
    let mut judge = Judge::new(spec);
    let (fio, rfio) = (&minimal.fio.stdout, &minimal.rfio.stdout);
    check(
        &mut judge,
        &TERSE_AWK,
        "minimal stdout",
        fio,
        rfio,
        LineRule::Exact,
    );
    let (fio, rfio) = (&json.fio.stdout, &json.rfio.stdout);
    for pipeline in [&JQ_IOPS_P99, &JQ_BW_MEAN] {
        check(
            &mut judge,
            pipeline,
            "json+ stdout",
            fio,
            rfio,
            LineRule::Exact,
        );
    }
    for log in json.fio.files.iter().filter(|f| is_iops_log(&f.path)) {
        let Some(fio) = &log.contents else { continue };
        let shown = format!("{} {}", LOG_AWK.shown, log.path);
        match json.rfio.files.iter().find(|f| f.path == log.path) {
            Some(rfio) => {
                let Some(rfio) = &rfio.contents else { continue };
                let rule = Log::parse(&log.path, fio).line_rule(spec);
                check(&mut judge, &LOG_AWK, &log.path, fio, rfio, rule);
            }
            None => judge.push(
                "pipeline",
                shown,
                "the file exists",
                "absent",
                "same log files",
            ),
        }
    }
    Verdict::from_differences(capped(judge.found))
}

/// `NAME_iops.N.log`, `NAME_iops.log`.
fn is_iops_log(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".log") && name.contains("_iops.")
}

/// What a pipeline printed.
struct Printed {
    ok: bool,
    status: String,
    stdout: String,
    stderr: Vec<u8>,
}

fn execute(pipeline: &Pipeline, input: &[u8]) -> Result<Printed, String> {
    let mut child = Command::new(pipeline.program)
        .args(pipeline.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot run {}: {err}", pipeline.program))?;
    let Some(mut stdin) = child.stdin.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("cannot write to the stdin of {}", pipeline.program));
    };
    let input = input.to_vec();
    // A pipeline that stops reading early must not block us: write on a thread of its own.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child
        .wait_with_output()
        .map_err(|err| format!("{} failed: {err}", pipeline.program))?;
    let _ = writer.join();
    Ok(Printed {
        ok: output.status.success(),
        status: output.status.to_string(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: output.stderr,
    })
}

/// The shape of one word a pipeline printed.
fn word_class(word: &str) -> &'static str {
    if word == "null" {
        "null"
    } else if word.parse::<f64>().is_ok_and(f64::is_finite) {
        "number"
    } else {
        "text"
    }
}

fn shape(line: &str) -> Vec<&'static str> {
    line.split_whitespace().map(word_class).collect()
}

/// Runs `pipeline` on fio's and on rfio's `input` (from `source`) and compares what they print.
fn check(
    judge: &mut Judge<'_>,
    pipeline: &Pipeline,
    source: &str,
    fio: &[u8],
    rfio: &[u8],
    rule: LineRule,
) {
    let place = format!("{} < {source}", pipeline.shown);
    let (f, r) = match (execute(pipeline, fio), execute(pipeline, rfio)) {
        (Ok(f), Ok(r)) => (f, r),
        (Err(why), _) | (_, Err(why)) => {
            judge.push("pipeline", place, why.clone(), why, "the pipeline runs");
            return;
        }
    };
    if f.ok && !r.ok {
        judge.push(
            "pipeline",
            place,
            "exit 0",
            format!("{}: {}", r.status, head(&r.stderr, 200)),
            "works on rfio's output where it works on fio's",
        );
        return;
    }
    if !f.ok || !r.ok {
        // Where fio's output breaks the pipeline, rfio's may do better.
        return;
    }
    // A line without words (awk on a line that is not terse, such as fio's error lines on
    // stdout) carries no numbers; such lines are left out on both sides.
    let words = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (fl, rl) = (words(&f.stdout), words(&r.stdout));
    if let Err(why) = rule.check(fl.len(), rl.len()) {
        judge.push(
            "pipeline-lines",
            place.clone(),
            format!("{} lines", fl.len()),
            format!("{} lines", rl.len()),
            why,
        );
    }
    let mut differing = fl
        .iter()
        .zip(&rl)
        .enumerate()
        .filter(|(_, (a, b))| shape(a) != shape(b));
    if let Some((number, (a, b))) = differing.next() {
        let more = differing.count();
        judge.push(
            "pipeline-shape",
            format!("{place} line {}", number + 1),
            format!("{a:?} ({})", shape(a).join(" ")),
            format!("{b:?} ({})", shape(b).join(" ")),
            format!(
                "same words, a number where fio's is a number{}",
                if more > 0 {
                    format!(" ({more} more lines differ)")
                } else {
                    String::new()
                }
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Difference;

    fn run(pipeline: &Pipeline, fio: &str, rfio: &str, rule: LineRule) -> Vec<String> {
        let spec = RunSpec::default();
        let mut judge = Judge::new(&spec);
        check(
            &mut judge,
            pipeline,
            "x",
            fio.as_bytes(),
            rfio.as_bytes(),
            rule,
        );
        judge
            .found
            .iter()
            .map(|d| match d {
                Difference::Mismatch(m) => {
                    format!("{}: {} / {} ({})", m.kind, m.fio, m.rfio, m.rule)
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn shapes() {
        assert_eq!(
            shape("1.5 null 3e6 x"),
            ["number", "null", "number", "text"]
        );
        assert!(is_iops_log("a_iops.1.log") && is_iops_log("sub/b_iops.log"));
        assert!(!is_iops_log("a_bw.1.log"));
    }

    #[test]
    fn awk_and_jq_on_both_outputs() {
        let terse = |bw: &str| {
            let mut fields = vec!["0"; 60];
            fields[6] = bw;
            fields.join(";") + "\n"
        };
        assert!(run(&TERSE_AWK, &terse("5"), &terse("7"), LineRule::Exact).is_empty());
        assert_eq!(
            run(&TERSE_AWK, &terse("5"), &terse("x"), LineRule::Exact),
            ["pipeline-shape: \"5 0 0 0\" (number number number number) / \"x 0 0 0\" (text number number number) (same words, a number where fio's is a number)"]
        );
        let json = r#"{"jobs":[{"read":{"iops":2.5,"clat_ns":{"percentile":{"99.000000":7}}}}]}"#;
        let no_pct = r#"{"jobs":[{"read":{"iops":2.5,"clat_ns":{}}}]}"#;
        assert!(run(&JQ_IOPS_P99, json, json, LineRule::Exact).is_empty());
        assert_eq!(
            run(&JQ_IOPS_P99, json, no_pct, LineRule::Exact),
            ["pipeline-shape: \"7\" (number) / \"null\" (null) (same words, a number where fio's is a number)"]
        );
        let broken = run(&JQ_IOPS_P99, json, "fio: oops\n{", LineRule::Exact);
        assert!(
            broken[0].starts_with("pipeline: exit 0 / exit status: "),
            "{broken:?}"
        );
        // Where fio's output breaks the pipeline, rfio's may do better.
        assert!(run(&JQ_IOPS_P99, "oops", json, LineRule::Exact).is_empty());
        let log = "0, 1, 0, 4096, 0\n1, 1, 0, 4096, 0\n";
        assert!(run(&LOG_AWK, log, log, LineRule::Exact).is_empty());
        assert_eq!(
            run(&LOG_AWK, log, "0, 1, 0, 4096, 0\n", LineRule::Exact),
            ["pipeline-lines: 2 lines / 1 lines (exactly as many lines)"]
        );
    }
}
