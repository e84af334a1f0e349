//! A run report is a plain value: serialized (fio's client/server protocol
//! ships it) and read back, it is the same report, and every output format
//! renders it byte for byte as the original.

use rfio::api::{render_json, render_normal, render_results, render_terse, Formats, RunReport};

use crate::common;

/// Every format of `r`, and the notices.
fn outputs(r: &RunReport) -> Vec<String> {
    let mut v = vec![
        render_normal(r),
        render_json(r, false),
        render_json(r, true),
        render_results(
            r,
            &Formats {
                terse: true,
                json_plus: true,
                ..Formats::default()
            },
        ),
        rfio::api::notices(r).join("\n"),
    ];
    v.extend((2..=5).map(|t| render_terse(r, t)));
    v
}

#[test]
fn a_real_runs_report_round_trips_through_json() {
    let plan = common::plan(&[
        "--ioengine=null",
        "--size=1m",
        "--rw=randrw",
        "--lat_percentiles=1",
        "--name=a",
        "--numjobs=2",
        "--group_reporting",
        "--description=two of them",
        "--name=b",
        "--bs=8k",
        "--unified_rw_reporting=both",
        "--kb_base=1000",
        "--stonewall",
    ]);
    let report = rfio::api::run(&plan).expect("the run starts");
    assert_eq!(report.jobs.len(), 3);
    assert_eq!(report.summary.entries.len(), 2);
    let text = serde_json::to_string(&report).expect("serializes");
    let back: RunReport = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back, report);
    let (ours, theirs) = (outputs(&report), outputs(&back));
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b);
    }
    assert!(
        ours[0].contains("  Description  : [two of them]"),
        "{}",
        ours[0]
    );
    assert!(ours[1].contains("\"global options\""), "{}", ours[1]);
}
