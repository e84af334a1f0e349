//! `--repeat=N` holds a few numbers per run and a fixed set of reports,
//! not every run's report (about 12 KiB a run: 36 MiB for 3000 runs).

use std::time::Duration;

use crate::common::{TempDir, RFIO};
use crate::run_scale::run_measured;

#[test]
fn many_repeats_hold_a_fixed_set_of_reports() {
    let dir = TempDir::new("repeat-rss");
    let f = run_measured(
        RFIO,
        &dir.0,
        &[
            "--name=r",
            "--ioengine=null",
            "--size=4k",
            "--repeat=3000",
            "--output-format=json",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(f.status, 0, "{}", f.err);
    let v: serde_json::Value = serde_json::from_str(&f.out).unwrap();
    assert_eq!(v["repeat"]["runs"], 3000);
    assert_eq!(v["repeat"]["jobs"][0]["read"]["runs"], 3000);
    eprintln!("max RSS: {} KiB", f.max_rss_kib);
    // A bare run is about 11 MiB; 3000 reports were over 45 MiB.
    assert!(f.max_rss_kib < 24 << 10, "{} KiB", f.max_rss_kib);
}
