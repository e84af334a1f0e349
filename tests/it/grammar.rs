//! The grammar's test vectors: every `grammar/vectors/*.fio` parses to the
//! outline (or the errors) in the `.tree` file beside it.
//!
//! Run with `RFIO_BLESS=1` to rewrite the `.tree` files after a deliberate
//! change, then review the diff.

use std::path::{Path, PathBuf};

use rfio::api::{load, parse_bytes, JobFile, Span};

fn vectors() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar/vectors");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("grammar/vectors exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    v.sort();
    v
}

fn position(span: &Option<Span>) -> String {
    match span {
        Some(Span::File { path, line, col }) => {
            format!(
                "{}:{line}:{col}",
                path.file_name().unwrap().to_string_lossy()
            )
        }
        Some(Span::Arg { index }) => format!("arg {index}"),
        None => "-".to_string(),
    }
}

fn render(path: &Path) -> String {
    match load(path) {
        Ok(file) => file.outline(),
        Err(diags) => diags
            .0
            .iter()
            .map(|d| format!("error {}: {}\n", position(&d.span), d.message))
            .collect(),
    }
}

#[test]
fn vectors_parse_as_written_down() {
    let bless = std::env::var_os("RFIO_BLESS").is_some();
    let mut failures = Vec::new();
    let all = vectors();
    assert!(
        all.len() >= 21,
        "expected the grammar vectors, found {}",
        all.len()
    );
    for path in all {
        let got = render(&path);
        let tree = path.with_extension("tree");
        if bless {
            std::fs::write(&tree, &got).unwrap();
            continue;
        }
        let want =
            std::fs::read_to_string(&tree).unwrap_or_else(|_| panic!("missing {}", tree.display()));
        if got != want {
            failures.push(format!(
                "{}:\n--- want\n{want}--- got\n{got}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writing a tree back as text and parsing it again gives the same tree.
#[test]
fn vectors_round_trip() {
    for path in vectors() {
        let Ok(file) = load(&path) else { continue };
        if file
            .sections
            .iter()
            .any(|s| s.entries.iter().any(|e| e.span_file() != Some(&*file.path)))
        {
            continue; // entries from includes come back as plain entries
        }
        let again: JobFile = parse_bytes(file.path.clone(), file.to_text().as_bytes()).unwrap();
        let names = |f: &JobFile| -> Vec<(String, Vec<String>)> {
            f.sections
                .iter()
                .map(|s| {
                    (
                        s.name.clone(),
                        s.entries.iter().map(|e| e.text.clone()).collect(),
                    )
                })
                .collect()
        };
        assert_eq!(names(&file), names(&again), "{}", path.display());
    }
}
