//! The `run` check: the job file really runs, once with `--output-format=json+` (keeping the files
//! it leaves behind) and once with `--minimal` (or the header's terse version), in fresh temporary
//! directories, and the two binaries' results are compared:
//!
//! - exit statuses of both runs: equal;
//! - the JSON document (jsoncmp.rs): key sets, key order and value types everywhere; values of
//!   deterministic keys exact; timing figures plausible and within the tolerance;
//! - the terse lines (terse.rs): line count, field count, field type at every position,
//!   deterministic fields exact, timing fields plausible;
//! - the files left behind (here and logs.rs): names, sizes of data files, log columns and lines.
//!
//! Every comparison goes through [`Judge`], which knows the
//! [`Role`](crate::judge::Role) rules (judge.rs).

use crate::judge::Judge;
use crate::run::{LeftFile, Outcome, Status};
use crate::spec::{Directives, RunSpec};
use crate::verdict::{capped, exit_statuses, unfinished, RunPair, Side, Verdict};
use crate::{jsoncmp, logs, terse};

/// Judges the `run` check: `runs` are the json+ run and the terse run.
pub(crate) fn judge(runs: &[RunPair], spec: &RunSpec, deliberate: Directives) -> Verdict {
    let (json, terse) = (&runs[0], &runs[1]);
    let mut differences = match exit_statuses(&json.fio, &json.rfio, deliberate) {
        Ok(differences) => differences,
        Err(verdict) => return verdict,
    };
    let mut judge = Judge::new(spec);
    let terse_finished = run_finished(&mut judge, terse);
    let pure = deliberate.pure_output;
    let fio_doc = jsoncmp::compare_documents(&mut judge, json, pure);
    if terse_finished {
        let version = terse.mode.terse_version().unwrap_or(3);
        terse::compare(&mut judge, terse, version, fio_doc.as_ref(), pure);
    }
    compare_files(&mut judge, &json.fio, &json.rfio);
    differences.extend(judge.found);
    Verdict::from_differences(capped(differences))
}

/// The rule of a run only fio did not finish (fio 3.33 hangs now and then):
/// another attempt may clear it.
pub(crate) const FIO_DID_NOT_FINISH: &str = "both finish (fio did not)";

/// The checks every run other than the main one needs: both finished, with the same exit
/// status. `false` when a side did not finish (its output is then not compared).
pub(crate) fn run_finished(judge: &mut Judge<'_>, run: &RunPair) -> bool {
    let place = format!("{} run", run.mode.name());
    let (fio, rfio) = (run.fio.status.to_string(), run.rfio.status.to_string());
    let (fio_done, rfio_done) = (
        unfinished(&run.fio, Side::Fio).is_empty(),
        unfinished(&run.rfio, Side::Rfio).is_empty(),
    );
    let finished = fio_done && rfio_done;
    if !finished {
        // fio 3.33 itself hangs now and then: that alone is run again.
        let rule = match rfio_done {
            true => FIO_DID_NOT_FINISH,
            false => "both finish",
        };
        judge.push("timeout", place, fio, rfio, rule);
    } else if run.fio.status != run.rfio.status {
        judge.push("exit-status", place, fio, rfio, "same exit status");
    }
    finished
}

/// fio's own files, never compared: verify state files.
fn ignored(path: &str) -> bool {
    path.ends_with(".state")
}

/// The files both json+ runs left behind: the same names; data files of the same size; log
/// files with the same columns and line counts (logs.rs); compressed logs (`.log.fz`) only
/// by name, as their bytes come from the deflate implementation and the samples' values, and
/// may by chance be the same size (tests/it/log_compression.rs inflates both with both).
fn compare_files(judge: &mut Judge<'_>, fio: &Outcome, rfio: &Outcome) {
    if !matches!(fio.status, Status::Exited(_) | Status::Signaled(_)) {
        return;
    }
    let fio_files: Vec<&LeftFile> = fio.files.iter().filter(|f| !ignored(&f.path)).collect();
    let rfio_files: Vec<&LeftFile> = rfio.files.iter().filter(|f| !ignored(&f.path)).collect();
    let mut names: Vec<&str> = fio_files
        .iter()
        .chain(&rfio_files)
        .map(|f| f.path.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let describe = |file: Option<&&LeftFile>| match file {
        Some(file) => format!("{} bytes", file.size),
        None => "absent".to_owned(),
    };
    for name in names {
        let f = fio_files.iter().find(|file| file.path == name);
        let r = rfio_files.iter().find(|file| file.path == name);
        let place = format!("files {name}");
        match (f, r) {
            (Some(f), Some(r)) if name.ends_with(".log") => {
                logs::compare(judge, name, f.contents.as_deref(), r.contents.as_deref());
            }
            (Some(_), Some(_)) if name.ends_with(".log.fz") => {}
            (Some(f), Some(r)) => {
                if f.size != r.size {
                    judge.push(
                        "file-size",
                        place,
                        describe(Some(f)),
                        describe(Some(r)),
                        "same size",
                    );
                }
            }
            _ => judge.push(
                "files",
                place,
                describe(f),
                describe(r),
                "same files created",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Difference;

    #[test]
    fn files_left_behind() {
        use std::time::Duration;
        let outcome = |files: &[(&str, u64, Option<&str>)]| Outcome {
            status: Status::Exited(0),
            stdout: Vec::new(),
            stderr: Vec::new(),
            elapsed: Duration::ZERO,
            files: files
                .iter()
                .map(|(path, size, contents)| LeftFile {
                    path: (*path).into(),
                    size: *size,
                    contents: contents.map(|c| c.as_bytes().to_vec()),
                })
                .collect(),
            stalled: String::new(),
        };
        let spec = RunSpec::default();
        let mut judge = Judge::new(&spec);
        let fio = outcome(&[
            ("a.0.0", 4096, None),
            ("b.dat", 10, None),
            ("x_iops.1.log", 17, Some("0, 1, 0, 4096, 0\n")),
            ("local-x-0-verify.state", 5, None),
            ("z_bw.1.log.fz", 700, None),
            ("y_bw.1.log.fz", 700, None),
        ]);
        let rfio = outcome(&[
            ("a.0.0", 4096, None),
            ("b.dat", 11, None),
            ("c.dat", 1, None),
            (
                "x_iops.1.log",
                34,
                Some("0, 1, 0, 4096, 0\n1, 1, 0, 4096, 0\n"),
            ),
            // Compressed logs: by name only.
            ("z_bw.1.log.fz", 699, None),
        ]);
        compare_files(&mut judge, &fio, &rfio);
        let found: Vec<String> = judge
            .found
            .iter()
            .map(|d| match d {
                Difference::Mismatch(m) => {
                    format!("{} {}: {} / {}", m.kind, m.place, m.fio, m.rfio)
                }
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            found,
            [
                "file-size files b.dat: 10 bytes / 11 bytes",
                "files files c.dat: absent / 1 bytes",
                "log-lines files x_iops.1.log: 1 lines / 2 lines",
                "files files y_bw.1.log.fz: 700 bytes / absent",
            ]
        );
    }
}
