//! `rate_iops` with a `bssplit` under each release: fio 3.33 turns the
//! I/O rate into bytes/s of the split's smallest block, so the bigger
//! blocks slow it down; fio 3.42 spaces the I/Os `1 / rate_iops` apart
//! whatever their sizes (upstream 3a0e8ddf). Figures from the real fio
//! 3.33 and 3.42 on the same one-second jobs.

use crate::common::json::json_as;

fn ios(doc: &serde_json::Value, dir: &str) -> u64 {
    doc["jobs"][0][dir]["total_ios"]
        .as_u64()
        .expect("total_ios")
}

fn job<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "--name=r",
        "--ioengine=null",
        "--size=1g",
        "--bssplit=4k/50:64k/50",
        "--time_based",
        "--runtime=1",
    ];
    v.extend_from_slice(extra);
    v
}

/// The counts of one run, read then write, within `tolerance` of
/// `expected` (a few per cent: the rate catches up after a late wake, so
/// a loaded machine loses little).
fn assert_near(release: &str, got: [u64; 2], expected: [u64; 2]) {
    for (g, e) in got.iter().zip(expected) {
        let slack = (e / 10).max(3);
        assert!(
            g + slack >= e && *g <= e + slack,
            "{release}: {got:?} I/Os (read, write), expected about {expected:?}"
        );
    }
}

#[test]
fn rate_iops_with_bssplit_counts_ios_from_3_42() {
    let dir = crate::common::TempDir::new("rate-iops-bssplit");
    let args = job(&["--rw=randread", "--rate_iops=200"]);
    // fio 3.33: 24 reads (200 * 4 KiB/s over blocks of 34 KiB on
    // average); fio 3.42: 200.
    for (release, reads) in [("3.33", 24), ("3.42", 200)] {
        let doc = json_as(&dir, release, &args);
        assert_near(release, [ios(&doc, "read"), ios(&doc, "write")], [reads, 0]);
    }
}

#[test]
fn rate_iops_with_bssplit_in_a_mix() {
    let dir = crate::common::TempDir::new("rate-iops-bssplit-mix");
    let args = job(&["--rw=randrw", "--rate_iops=200,50"]);
    // fio 3.33: 24 reads and 7 writes; fio 3.42: 200 and 51.
    for (release, counts) in [("3.33", [24, 7]), ("3.42", [200, 51])] {
        let doc = json_as(&dir, release, &args);
        assert_near(release, [ios(&doc, "read"), ios(&doc, "write")], counts);
    }
}
