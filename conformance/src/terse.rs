//! The terse part of the `run` check: fio's and rfio's `--minimal` (or `--output-format=terse
//! --terse-version=N`) lines compared field by field.
//!
//! - The same number of lines, and the same number of `;`-separated fields on each line. fio's
//!   error lines on stdout (`fio: ...`) are not terse lines and are left out on fio's side.
//! - The same field type at every position: int, float, percent (`12.5%`, `-nan%`), percentile
//!   slot (`99.000000%=420`) or text.
//! - By position (the layout of shared/reference/terse.md §2–4, worked out per line from the
//!   terse version and from fio's JSON document of the same job, which says whether
//!   `unified_rw_reporting` adds or replaces direction blocks): the header fields (terse
//!   version, fio version, job name, group id, error) exact; each direction block's io KiB as an
//!   I/O count, its bandwidth and IOPS as rates, its runtime as a runtime (see
//!   judge::Role); text fields (disk names, the description) and percentile slot labels
//!   exact; `nan` where fio prints `nan`; every other number plausible.

use serde_json::Value;

use crate::judge::{Judge, Role};
use crate::show::fmt_number;
use crate::spec::TimingKey;
use crate::verdict::RunPair;

const KINDS: (&str, &str) = ("terse-value", "terse-plausible");

/// The type of a terse field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldType {
    Int,
    Float,
    /// `100.000000%`, `0.0%`, `-nan%`
    Percent,
    /// `99.000000%=420`
    Slot,
    Text,
}

impl FieldType {
    fn name(self) -> &'static str {
        match self {
            FieldType::Int => "int",
            FieldType::Float => "float",
            FieldType::Percent => "percent",
            FieldType::Slot => "percentile slot",
            FieldType::Text => "text",
        }
    }
}

fn is_int(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    match s.split_once('.') {
        Some((whole, fraction)) => {
            is_int(whole) && !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// The number in a percent field; NaN for `nan%`/`-nan%`.
fn percent_value(s: &str) -> Option<f64> {
    let number = s.strip_suffix('%')?;
    if matches!(number, "nan" | "-nan") {
        return Some(f64::NAN);
    }
    (is_int(number) || is_float(number)).then(|| number.parse().ok())?
}

pub(crate) fn field_type(s: &str) -> FieldType {
    if is_int(s) {
        FieldType::Int
    } else if is_float(s) {
        FieldType::Float
    } else if percent_value(s).is_some() {
        FieldType::Percent
    } else if s
        .split_once("%=")
        .is_some_and(|(label, value)| (is_float(label) || is_int(label)) && is_int(value))
    {
        FieldType::Slot
    } else {
        FieldType::Text
    }
}

/// `unified_rw_reporting` as seen in a job's JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unified {
    /// read, write (and trim) blocks.
    No,
    /// One mixed block instead of them.
    Mixed,
    /// The direction blocks, then a mixed block.
    Both,
}

fn unified_of(job: &Value) -> Unified {
    match (job.get("mixed").is_some(), job.get("read").is_some()) {
        (true, false) => Unified::Mixed,
        (true, true) => Unified::Both,
        _ => Unified::No,
    }
}

/// Where the fields of one terse line are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Header fields (terse version, [fio version,] name, group id, error).
    header: usize,
    /// Fields per direction block.
    block: usize,
    /// Direction blocks, mixed block included.
    blocks: usize,
    /// The first `summed` blocks are read, write (and trim): their io KiB add up to the job's.
    summed: usize,
}

impl Layout {
    fn new(version: u8, unified: Unified) -> Layout {
        let header = if version == 2 { 4 } else { 5 };
        let block = if version == 5 { 47 } else { 41 };
        let directions = if version == 3 { 2 } else { 3 };
        let (blocks, summed) = match unified {
            Unified::No => (directions, directions),
            Unified::Mixed => (1, 1),
            Unified::Both => (directions + 1, directions),
        };
        Layout {
            header,
            block,
            blocks,
            summed,
        }
    }

    /// The role of field `index` (0-based), and for rates the index of their runtime field.
    fn role(&self, index: usize) -> (Role, Option<usize>) {
        if index < self.header {
            return (Role::Exact, None);
        }
        let offset = index - self.header;
        if offset >= self.blocks * self.block {
            return (Role::Plausible, None);
        }
        let start = self.header + offset / self.block * self.block;
        match offset % self.block {
            0 => (Role::Count, None),
            1 => (Role::Rate(TimingKey::Bw), Some(start + 3)),
            2 => (Role::Rate(TimingKey::Iops), Some(start + 3)),
            3 => (Role::Runtime, None),
            _ => (Role::Plausible, None),
        }
    }

    /// Whether field `index` is the usr or sys CPU usage, right after the direction blocks: a
    /// percentage that, unlike the others, can exceed 100 (fio divides getrusage time by the
    /// job's runtime in ms, which for a short job is less).
    fn is_cpu(&self, index: usize) -> bool {
        let cpu = self.header + self.blocks * self.block;
        (cpu..cpu + 2).contains(&index)
    }

    /// The io KiB fields of the read, write (and trim) blocks.
    fn io_kib_fields(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.summed).map(|block| self.header + block * self.block)
    }
}

/// A line fio prints on stdout that is not part of its report, and that rfio prints on stderr:
/// errors (`fio: pid=N, err=...`, `fio: file:ioengines.c:134, func=dlopen, ...`), the
/// synchronous-engine depth note, `exec_prerun`/`exec_postrun`'s "Saving output" line, the
/// start lines of the cpuio and exec engines (rfio prints those with the normal output only),
/// and `zonemode=zbd`'s notes on a region rounded to whole zones (the same).
fn fio_noise(line: &str) -> bool {
    line.starts_with("fio: ")
        || line.starts_with("note: ")
        || (line.contains(" : Saving output of ") && line.ends_with(".txt"))
        || line.contains("): ioengine=cpuio, cpuload=")
        || (line.contains(" : program=") && line.contains(", arguments="))
        || (line.contains(" : Saving output of ") && line.contains(" : stdout="))
        || line.contains(" : Running ")
        || line.contains(": rounded up offset from ")
        || line.contains(": rounded down io_size from ")
        || line.ends_with(": io_size must be at least one zone")
}

/// Compares the terse outputs of `run` (terse version `version`). `fio_doc` is fio's JSON
/// document of the same job file, for the layout of each line. `pure`: rfio's stdout must hold
/// terse lines only (else its non-report lines are left out too, as fio's are).
pub(crate) fn compare(
    judge: &mut Judge<'_>,
    run: &RunPair,
    version: u8,
    fio_doc: Option<&Value>,
    pure: bool,
) {
    let mode = run.mode.name();
    let fio = String::from_utf8_lossy(&run.fio.stdout);
    let rfio = String::from_utf8_lossy(&run.rfio.stdout);
    let fio_lines: Vec<&str> = fio.lines().filter(|line| !fio_noise(line)).collect();
    let rfio_lines: Vec<&str> = rfio
        .lines()
        .filter(|line| pure || !fio_noise(line))
        .collect();
    if fio_lines.len() != rfio_lines.len() {
        judge.push(
            "terse-lines",
            format!("{mode} stdout"),
            format!("{} lines", fio_lines.len()),
            format!("{} lines", rfio_lines.len()),
            "same number of lines",
        );
    }
    let mut record = 0;
    for (number, (f, r)) in fio_lines.iter().zip(&rfio_lines).enumerate() {
        let place = format!("{mode} line {}", number + 1);
        // terse v2 puts the description on a line of its own, starting with `;`.
        if f.starts_with(';') || r.starts_with(';') {
            if f != r {
                judge.push("terse-value", place, *f, *r, "exact");
            }
            continue;
        }
        let unified = fio_doc
            .and_then(|doc| doc["jobs"].get(record))
            .map_or(Unified::No, unified_of);
        record += 1;
        compare_line(judge, &place, f, r, Layout::new(version, unified));
    }
}

fn compare_line(judge: &mut Judge<'_>, place: &str, fio: &str, rfio: &str, layout: Layout) {
    let f: Vec<&str> = fio.split(';').collect();
    let r: Vec<&str> = rfio.split(';').collect();
    let compared = if f.len() == r.len() {
        f.len()
    } else {
        judge.push(
            "terse-fields",
            place,
            format!("{} fields", f.len()),
            format!("{} fields", r.len()),
            "same number of fields",
        );
        layout.header.min(f.len()).min(r.len())
    };
    let number = |fields: &[&str], index: usize| -> f64 {
        fields
            .get(index)
            .and_then(|text| text.parse().ok())
            .unwrap_or(f64::NAN)
    };
    for index in 0..compared {
        let (fv, rv) = (f[index], r[index]);
        let at = format!("{place} ${}", index + 1);
        let (f_type, r_type) = (field_type(fv), field_type(rv));
        if f_type != r_type {
            judge.push(
                "terse-type",
                at,
                format!("{} {fv:?}", f_type.name()),
                format!("{} {rv:?}", r_type.name()),
                "same field type",
            );
            continue;
        }
        let (role, runtime) = layout.role(index);
        match f_type {
            FieldType::Text => {
                if fv != rv {
                    judge.push("terse-value", at, fv, rv, "exact");
                }
            }
            FieldType::Slot => {
                let (f_label, f_value) = fv.split_once("%=").unwrap_or((fv, ""));
                let (r_label, r_value) = rv.split_once("%=").unwrap_or((rv, ""));
                if f_label != r_label {
                    judge.push("terse-value", at, fv, rv, "same percentile");
                } else {
                    let values = (
                        f_value.parse().unwrap_or(f64::NAN),
                        r_value.parse().unwrap_or(f64::NAN),
                    );
                    judge.numbers(KINDS, &at, Role::Plausible, values, (fv, rv), None);
                }
            }
            FieldType::Percent => {
                let fp = percent_value(fv).unwrap_or(f64::NAN);
                let rp = percent_value(rv).unwrap_or(f64::NAN);
                if fp.is_nan() || rp.is_nan() {
                    if fp.is_nan() != rp.is_nan() {
                        judge.push("terse-value", at, fv, rv, "nan where fio prints nan");
                    }
                } else {
                    let role = match role {
                        Role::Exact => Role::Exact,
                        _ if layout.is_cpu(index) => Role::Plausible,
                        _ => Role::Percent,
                    };
                    judge.numbers(KINDS, &at, role, (fp, rp), (fv, rv), None);
                }
            }
            FieldType::Int | FieldType::Float => {
                let runtimes = runtime.map(|at| (number(&f, at), number(&r, at)));
                judge.numbers(
                    KINDS,
                    &at,
                    role,
                    (number(&f, index), number(&r, index)),
                    (fv, rv),
                    runtimes,
                );
            }
        }
    }
    if judge.spec.mixed && !judge.spec.timed && f.len() == r.len() {
        let total = |fields: &[&str]| -> f64 {
            layout
                .io_kib_fields()
                .map(|at| number(fields, at))
                .filter(|n| !n.is_nan())
                .sum()
        };
        let (ft, rt) = (total(&f), total(&r));
        if ft != rt {
            let fields: Vec<String> = layout
                .io_kib_fields()
                .map(|at| format!("${}", at + 1))
                .collect();
            judge.push(
                "terse-value",
                format!("{place} {}", fields.join("+")),
                fmt_number(ft),
                fmt_number(rt),
                "exact (io KiB of all directions of a mixed job)",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Mode;
    use crate::run::{Outcome, Status};
    use crate::spec::RunSpec;
    use crate::verdict::Difference;
    use std::time::Duration;

    #[test]
    fn field_types() {
        for (text, expected) in [
            ("3", FieldType::Int),
            ("-1", FieldType::Int),
            ("0.000000", FieldType::Float),
            ("100.0%", FieldType::Percent),
            ("22.46%", FieldType::Percent),
            ("-nan%", FieldType::Percent),
            ("99.000000%=420", FieldType::Slot),
            ("0%=0", FieldType::Slot),
            ("fio-3.33", FieldType::Text),
            ("", FieldType::Text),
            ("vda", FieldType::Text),
            ("1.5.2", FieldType::Text),
        ] {
            assert_eq!(field_type(text), expected, "{text}");
        }
    }

    #[test]
    fn layouts() {
        let v3 = Layout::new(3, Unified::No);
        assert_eq!(v3.role(4), (Role::Exact, None));
        assert_eq!(v3.role(5), (Role::Count, None)); // $6 read io KiB
        assert_eq!(v3.role(6), (Role::Rate(TimingKey::Bw), Some(8))); // $7 read bw, runtime $9
        assert_eq!(v3.role(47), (Role::Rate(TimingKey::Bw), Some(49))); // $48 write bw
        assert_eq!(v3.role(48), (Role::Rate(TimingKey::Iops), Some(49))); // $49 write iops
        assert_eq!(v3.role(87), (Role::Plausible, None)); // $88 cpu usr
        assert!(v3.is_cpu(87) && v3.is_cpu(88) && !v3.is_cpu(89) && !v3.is_cpu(86));
        assert_eq!(v3.io_kib_fields().collect::<Vec<_>>(), [5, 46]);
        let v5 = Layout::new(5, Unified::No);
        assert_eq!(v5.io_kib_fields().collect::<Vec<_>>(), [5, 52, 99]);
        let v2 = Layout::new(2, Unified::No);
        assert_eq!(v2.io_kib_fields().collect::<Vec<_>>(), [4, 45, 86]);
        let mixed = Layout::new(3, Unified::Mixed);
        assert_eq!(mixed.role(46), (Role::Plausible, None));
        let both = Layout::new(4, Unified::Both);
        assert_eq!(both.role(5 + 3 * 41), (Role::Count, None));
        assert_eq!(both.io_kib_fields().count(), 3);
    }

    fn line(read_kib: &str, bw: &str, runtime: &str, name: &str) -> String {
        let mut fields = vec!["3", "fio-3.33", name, "0", "0", read_kib, bw, "10", runtime];
        fields.extend(std::iter::repeat_n("0", 8));
        fields.extend(["1.000000%=5"; 20]);
        fields.extend(std::iter::repeat_n("0", 12));
        fields.push("-nan%");
        fields.join(";") + "\n"
    }

    fn compare_outputs(spec: &RunSpec, fio: &str, rfio: &str) -> Vec<String> {
        let outcome = |stdout: &str| Outcome {
            status: Status::Exited(0),
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            elapsed: Duration::ZERO,
            files: Vec::new(),
            stalled: String::new(),
        };
        let run = RunPair {
            mode: Mode::Minimal,
            fio: outcome(fio),
            rfio: outcome(rfio),
        };
        let mut judge = Judge::new(spec);
        compare(&mut judge, &run, 3, None, true);
        judge
            .found
            .iter()
            .map(|d| match d {
                Difference::Mismatch(m) => format!(
                    "{} {}: {} / {} ({})",
                    m.kind, m.place, m.fio, m.rfio, m.rule
                ),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn lines() {
        let spec = RunSpec::default();
        let fio = line("1024", "5000", "200", "a");
        assert!(compare_outputs(&spec, &fio, &line("1024", "9000", "250", "a")).is_empty());
        assert_eq!(
            compare_outputs(&spec, &fio, &line("1020", "90000", "300", "b")),
            [
                "terse-value minimal line 1 $3: a / b (exact)",
                "terse-value minimal line 1 $6: 1024 / 1020 (exact (size-bound job))",
                "terse-plausible minimal line 1 $7: 5000 / 90000 (bw within 10x (ratio 18.00))",
            ]
        );
        let nan_gone = fio.replace("-nan%", "0.00%");
        assert_eq!(
            compare_outputs(&spec, &fio, &nan_gone),
            ["terse-value minimal line 1 $50: -nan% / 0.00% (nan where fio prints nan)"]
        );
        let typed = fio.replace(";5000;", ";5000.0;");
        assert_eq!(
            compare_outputs(&spec, &fio, &typed),
            ["terse-type minimal line 1 $7: int \"5000\" / float \"5000.0\" (same field type)"]
        );
        assert_eq!(
            compare_outputs(&spec, &fio, &(fio.clone() + &fio)),
            ["terse-lines minimal stdout: 1 lines / 2 lines (same number of lines)"]
        );
        let fio_error = "fio: file:ioengines.c:134, func=dlopen, error=x\n";
        assert!(compare_outputs(&spec, fio_error, "").is_empty());
        assert_eq!(compare_outputs(&spec, "", fio_error).len(), 1);
        let short = fio.replacen(";0;", ";", 3);
        assert_eq!(
            compare_outputs(&spec, &fio, &short)[0],
            "terse-fields minimal line 1: 50 fields / 47 fields (same number of fields)"
        );
    }
}
