//! How findings are printed: text (`--lint`), JSON (`--lint-format=json`)
//! and the one-line warnings before a run.

use super::Finding;
use crate::diag::Span;

/// The file and line of a finding (`command line` and the argument index
/// for a command-line job).
fn place(span: &Span) -> (String, u32) {
    match span {
        Span::File { path, line, .. } => (path.display().to_string(), *line),
        Span::Arg { index } => ("command line".to_string(), *index),
    }
}

fn location(span: &Span) -> String {
    match span {
        Span::File { .. } => {
            let (file, line) = place(span);
            format!("{file}:{line}")
        }
        Span::Arg { index } => format!("command line argument {index}"),
    }
}

/// `job 'a'`, or `jobs 'a', 'b'` for a finding about several.
fn jobs(f: &Finding) -> String {
    match f.jobs.as_slice() {
        [] | [_] => format!("job '{}'", f.job),
        all => {
            let names: Vec<String> = all.iter().map(|j| format!("'{j}'")).collect();
            format!("jobs {}", names.join(", "))
        }
    }
}

/// `--lint`'s report: two lines per finding (where, rule and why; the
/// fix), then a count.
pub(crate) fn text(found: &[Finding]) -> String {
    let mut s = String::new();
    for f in found {
        s.push_str(&format!(
            "{}: {}: {}: {}\n  fix: {}\n",
            location(&f.span),
            jobs(f),
            f.rule,
            f.message,
            f.fix
        ));
    }
    match found.len() {
        0 => s.push_str("rfio: lint: no problems found\n"),
        1 => s.push_str(
            "rfio: lint: 1 problem (silence a rule with `# rfio: allow RULE` or \
             --lint-allow=RULE)\n",
        ),
        n => s.push_str(&format!(
            "rfio: lint: {n} problems (silence a rule with `# rfio: allow RULE` or \
             --lint-allow=RULE)\n"
        )),
    }
    s
}

/// `--lint-format=json`: an array of `{rule, job, jobs, file, line,
/// message, fix}` (`jobs`: every job the finding is about, `job` first).
pub(crate) fn json(found: &[Finding]) -> String {
    let items: Vec<serde_json::Value> = found
        .iter()
        .map(|f| {
            let (file, line) = place(&f.span);
            serde_json::json!({
                "rule": f.rule,
                "job": f.job,
                "jobs": f.jobs,
                "file": file,
                "line": line,
                "message": f.message,
                "fix": f.fix,
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into());
    s.push('\n');
    s
}

/// One short line per finding (where, the rule and its summary), printed
/// on stderr before a run; `rfio --lint` says why and the fix.
pub(crate) fn warning_lines(found: &[Finding]) -> Vec<String> {
    found
        .iter()
        .map(|f| {
            format!(
                "rfio: lint: {}: {}: {} (rfio --lint explains)",
                location(&f.span),
                f.rule,
                f.summary
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    fn finding() -> Finding {
        Finding {
            rule: "rwmix-default",
            summary: "s",
            job: "j".into(),
            jobs: vec!["j".into()],
            target: None,
            span: Span::file(&Arc::from(Path::new("a.fio")), 3, 1),
            message: "m".into(),
            fix: "f".into(),
        }
    }

    #[test]
    fn text_has_place_rule_and_fix() {
        assert_eq!(
            text(&[finding()]),
            "a.fio:3: job 'j': rwmix-default: m\n  fix: f\n\
             rfio: lint: 1 problem (silence a rule with `# rfio: allow RULE` or \
             --lint-allow=RULE)\n"
        );
        let mut two = finding();
        two.jobs.push("k".into());
        assert!(text(&[two]).starts_with("a.fio:3: jobs 'j', 'k': rwmix-default: m\n"));
    }

    #[test]
    fn a_warning_is_one_short_line() {
        assert_eq!(
            warning_lines(&[finding()]),
            ["rfio: lint: a.fio:3: rwmix-default: s (rfio --lint explains)"]
        );
    }

    #[test]
    fn json_is_an_array_of_objects() {
        let v: serde_json::Value = serde_json::from_str(&json(&[finding()])).unwrap();
        assert_eq!(
            v,
            serde_json::json!([{"rule": "rwmix-default", "job": "j", "jobs": ["j"], "file": "a.fio",
                "line": 3, "message": "m", "fix": "f"}])
        );
        assert_eq!(json(&[]), "[]\n");
    }
}
