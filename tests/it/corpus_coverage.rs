//! Every option rfio executes is exercised by at least one job file of our
//! corpus (jobfiles/), which the conformance suite runs against real fio.

use std::path::Path;

use rfio::api::{Support, OPTIONS};

fn corpus_text(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).expect("readable corpus folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            corpus_text(&path, out);
        } else if path.extension().is_some_and(|e| e == "fio" || e == "inc") {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
            out.push('\n');
        }
    }
}

#[test]
fn every_supported_option_is_in_the_corpus() {
    let mut text = String::new();
    corpus_text(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("jobfiles"),
        &mut text,
    );
    let set: Vec<&str> = text
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.starts_with([';', '#', '[']))
        .map(|l| l.split('=').next().unwrap_or("").trim_end())
        .collect();
    let missing: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| o.support == Support::Yes)
        .filter(|o| {
            !std::iter::once(o.name)
                .chain(o.aliases.iter().copied())
                .any(|n| set.contains(&n))
        })
        .map(|o| o.name)
        .collect();
    assert!(
        missing.is_empty(),
        "supported options no job file in jobfiles/ uses: {missing:?}"
    );
}
