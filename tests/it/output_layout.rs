//! Field positions of the terse formats and key order of the JSON output,
//! against fio 3.33's layout (`../shared/reference/terse.md`, and a JSON+
//! document real fio printed, `tests/golden/fio/null_1m.json+`, made with
//! `fio --name=x --ioengine=null --size=1m --output-format=json+`), and the
//! terse lines of the rfio binary against those real fio prints for the same
//! job (this one needs fio 3.33 and fails without it).

use std::path::Path;

use rfio::api::{
    render_json, render_terse, terse_field_names, Completion, JobReport, Plan, RunReport, Unified,
    NO_SLAT,
};
use serde_json::Value;

use crate::common;
use common::plan;

/// A report for `plan` with 256 reads of 4 KiB per job.
fn report(plan: &Plan) -> RunReport {
    let jobs = plan
        .jobs
        .iter()
        .map(|spec| {
            let mut ts = common::thread_stats(spec);
            ts.job_started();
            for k in 0..256u64 {
                ts.io_submitted(1);
                ts.complete(&Completion {
                    bytes: 4096,
                    slat_ns: NO_SLAT,
                    clat_ns: 10 + k % 7,
                    at_ns: k * 1000,
                    ..Completion::default()
                });
            }
            ts.elapsed_us = 900;
            ts.job_finished();
            JobReport::new(spec.report.clone(), 1, None, &ts)
        })
        .collect();
    RunReport::new(jobs, rfio::api::global_options(plan), 0, 1_000, Vec::new())
        .of_release(plan.release)
}

/// Names by awk position (`$N`) in v3 with one disk (terse.md §3).
const V3: &[(usize, &str)] = &[
    (1, "terse_version"),
    (2, "fio_version"),
    (3, "jobname"),
    (4, "groupid"),
    (5, "error"),
    (6, "read_io_kbytes"),
    (7, "read_bw"),
    (8, "read_iops"),
    (9, "read_runtime_ms"),
    (10, "read_slat_min_us"),
    (13, "read_slat_stddev_us"),
    (14, "read_clat_min_us"),
    (17, "read_clat_stddev_us"),
    (18, "read_clat_pct01"),
    (37, "read_clat_pct20"),
    (38, "read_lat_min_us"),
    (41, "read_lat_stddev_us"),
    (42, "read_bw_min"),
    (43, "read_bw_max"),
    (44, "read_bw_agg_pct"),
    (45, "read_bw_mean"),
    (46, "read_bw_stddev"),
    (47, "write_io_kbytes"),
    (48, "write_bw"),
    (49, "write_iops"),
    (50, "write_runtime_ms"),
    (59, "write_clat_pct01"),
    (87, "write_bw_stddev"),
    (88, "cpu_usr"),
    (89, "cpu_sys"),
    (90, "cpu_ctx"),
    (91, "cpu_majf"),
    (92, "cpu_minf"),
    (93, "iodepth_1"),
    (99, "iodepth_>=64"),
    (100, "lat_us_2"),
    (109, "lat_us_1000"),
    (110, "lat_ms_2"),
    (121, "lat_ms_>=2000"),
    (122, "disk1_name"),
    (123, "disk1_read_ios"),
    (124, "disk1_write_ios"),
    (125, "disk1_read_merges"),
    (126, "disk1_write_merges"),
    (127, "disk1_read_ticks"),
    (128, "disk1_write_ticks"),
    (129, "disk1_in_queue"),
    (130, "disk1_util"),
];

#[test]
fn terse_v3_positions_match_fio() {
    let names = terse_field_names(3, Unified::None, &[false], false, false);
    assert_eq!(names.len(), 130, "v3 with one disk has 130 fields");
    for (pos, name) in V3 {
        assert_eq!(names[pos - 1], *name, "${pos}");
    }
}

#[test]
fn terse_field_counts_match_fio() {
    let n = |v, u, disks: &[bool], coe, desc| terse_field_names(v, u, disks, coe, desc).len();
    // terse.md §4: 1 disk, no description.
    assert_eq!(n(2, Unified::None, &[false], false, false), 161);
    assert_eq!(n(3, Unified::None, &[false], false, false), 130);
    assert_eq!(n(4, Unified::None, &[false], false, false), 171);
    assert_eq!(n(5, Unified::None, &[false], false, false), 189);
    // No disk (null engine): 121 in v3.
    assert_eq!(n(3, Unified::None, &[], false, false), 121);
    // Two disks, continue_on_error: 141.
    assert_eq!(n(3, Unified::None, &[false, false], true, false), 141);
    // unified_rw_reporting: mixed 89, both 171 / 212 / 236.
    assert_eq!(n(3, Unified::Mixed, &[false], false, false), 89);
    assert_eq!(n(3, Unified::Both, &[false], false, false), 171);
    assert_eq!(n(4, Unified::Both, &[false], false, false), 212);
    assert_eq!(n(5, Unified::Both, &[false], false, false), 236);
    // A dm device adds 9 aggregate fields.
    assert_eq!(n(3, Unified::None, &[true], false, false), 139);
}

#[test]
fn terse_v5_offsets_match_fio() {
    let names = terse_field_names(5, Unified::None, &[false], false, false);
    let pos = |name: &str| names.iter().position(|n| n == name).unwrap() + 1;
    assert_eq!(pos("read_bw_samples"), 47);
    assert_eq!(pos("read_iops_samples"), 52);
    assert_eq!(pos("write_io_kbytes"), 53);
    assert_eq!(pos("trim_io_kbytes"), 100);
    assert_eq!(pos("cpu_usr"), 147);
    assert_eq!(pos("iodepth_1"), 152);
    assert_eq!(pos("lat_us_2"), 159);
    assert_eq!(pos("lat_ms_>=2000"), 180);
    assert_eq!(pos("disk1_util"), 189);
}

#[test]
fn rendered_lines_have_the_named_fields() {
    let p = plan(&["--name=x", "--ioengine=null", "--size=1m"]);
    let r = report(&p);
    for v in 2..=5u8 {
        let text = render_terse(&r, v);
        let fields = text.trim_end().split(';').count();
        assert_eq!(
            fields,
            terse_field_names(v, Unified::None, &[], false, false).len(),
            "v{v}: {text}"
        );
    }
    let line = render_terse(&r, 3);
    let f: Vec<&str> = line.trim_end().split(';').collect();
    assert_eq!(f[0], "3");
    assert_eq!(f[2], "x");
    assert_eq!(f[5], "1024", "read KiB");
    assert_eq!(f[18 - 1], "1.000000%=0", "first percentile slot");
    assert_eq!(f[35 - 1], "0%=0", "slot 18 is unused");
}

/// Every key path in document order; `bins` maps are data, so only the
/// map itself counts.
fn keys(v: &Value, path: &str, out: &mut Vec<(String, &'static str)>) {
    let kind = match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    };
    out.push((path.to_string(), kind));
    match v {
        Value::Object(m) if !path.ends_with("/bins") => {
            for (k, x) in m {
                keys(x, &format!("{path}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                keys(x, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn json_plus_keys_and_order_match_fio() {
    let fio_text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/fio/null_1m.json+"),
    )
    .unwrap();
    let fio: Value = serde_json::from_str(&fio_text).unwrap();
    let p = plan(&["--name=x", "--ioengine=null", "--size=1m"]);
    let ours_text = render_json(&report(&p), true);
    let ours: Value = serde_json::from_str(&ours_text).expect("rfio's JSON parses");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    keys(&ours, "", &mut a);
    keys(&fio, "", &mut b);
    assert_eq!(a, b);
    // Nothing but the document, ending with one newline.
    assert!(ours_text.starts_with("{\n") && ours_text.ends_with("\n}\n"));
}

#[test]
fn json_without_plus_has_no_bins() {
    let p = plan(&["--name=x", "--ioengine=null", "--size=1m"]);
    let text = render_json(&report(&p), false);
    assert!(!text.contains("\"bins\""));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
    assert!(v["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"].is_u64());
}

/// A field's shape: digits runs collapsed to `9` (`1.000000%=123` →
/// `9.9%=9`, `0.00%` → `9.9%`), so two runs with different timings compare.
fn shape(field: &str) -> String {
    let mut out = String::new();
    for c in field.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('9') {
                out.push('9');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The terse lines of the rfio binary and of real fio for the same job
/// (random reads and writes, null engine: the sizes are fixed by the seed):
/// the same number of fields, each of the same shape, the percentile labels
/// the same, and every field that does not depend on timing (versions, job
/// name, group, error, KiB moved, I/O depth shares) the same; and rfio's
/// table of names puts each of those where fio prints it.
#[test]
fn terse_lines_have_fios_fields_where_fio_prints_them() {
    let fio = common::real_fio();
    let job = [
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--bs=4k",
        "--rw=randrw",
        "--minimal",
    ];
    let fixed = |name: &str| {
        matches!(
            name,
            "terse_version" | "fio_version" | "jobname" | "groupid" | "error" | "description"
        ) || name.ends_with("io_kbytes")
            || name.starts_with("iodepth_")
    };
    for (extra, unified, coe, desc) in [
        (&[][..], Unified::None, false, false),
        (&["--terse-version=2"][..], Unified::None, false, false),
        (&["--terse-version=4"][..], Unified::None, false, false),
        (&["--terse-version=5"][..], Unified::None, false, false),
        (
            &["--unified_rw_reporting=mixed"][..],
            Unified::Mixed,
            false,
            false,
        ),
        (
            &["--unified_rw_reporting=both"][..],
            Unified::Both,
            false,
            false,
        ),
        (
            &["--unified_rw_reporting=both", "--terse-version=5"][..],
            Unified::Both,
            false,
            false,
        ),
        (&["--continue_on_error=all"][..], Unified::None, true, false),
        (
            &["--description=some words"][..],
            Unified::None,
            false,
            true,
        ),
    ] {
        let mut argv = job.to_vec();
        argv.extend_from_slice(extra);
        let line = |bin: &str| {
            let dir = common::TempDir::new("layout");
            let out = common::run_in(bin, &dir, &argv);
            assert!(
                out.status.success(),
                "{bin} {argv:?}: {}",
                common::stderr(&out)
            );
            common::stdout(&out).trim_end().to_string()
        };
        let (ours, theirs) = (line(common::RFIO), line(fio));
        let (a, b): (Vec<&str>, Vec<&str>) =
            (ours.split(';').collect(), theirs.split(';').collect());
        assert_eq!(
            a.len(),
            b.len(),
            "{extra:?}: number of fields\nrfio {ours}\nfio  {theirs}"
        );
        let version = b[0].parse().unwrap_or(2);
        let names = terse_field_names(version, unified, &[], coe, desc);
        assert_eq!(
            names.len(),
            b.len(),
            "{extra:?}: rfio's table against fio's line"
        );
        let fixed_fields = names.iter().filter(|n| fixed(n)).count();
        assert!(
            fixed_fields >= 8,
            "{extra:?}: {fixed_fields} fields to compare exactly"
        );
        for (i, ((x, y), name)) in a.iter().zip(&b).zip(&names).enumerate() {
            let what = format!("{extra:?} field {} ({name})", i + 1);
            assert_eq!(shape(x), shape(y), "{what}: rfio {x:?}, fio {y:?}");
            if let (Some((p, _)), Some((q, _))) = (x.split_once("%="), y.split_once("%=")) {
                assert_eq!(p, q, "{what}: percentile label");
            }
            if fixed(name) {
                assert_eq!(x, y, "{what}");
            }
        }
    }
}

/// The JSON+ documents of the rfio binary and of real fio for the same
/// jobs: the same keys, in the same order, with values of the same kinds.
#[test]
fn json_plus_of_the_binary_has_fios_keys() {
    let fio = common::real_fio();
    for extra in [
        &["--rw=randrw"][..],
        &["--rw=randrw", "--unified_rw_reporting=both"][..],
        &["--rw=read", "--numjobs=2", "--group_reporting"][..],
        &[
            "--rw=randread",
            "--lat_percentiles=1",
            "--slat_percentiles=1",
        ][..],
    ] {
        let mut argv = vec![
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--bs=4k",
            "--output-format=json+",
        ];
        argv.extend_from_slice(extra);
        let doc = |bin: &str| -> Value {
            let dir = common::TempDir::new("layout-json");
            let out = common::run_in(bin, &dir, &argv);
            assert!(
                out.status.success(),
                "{bin} {argv:?}: {}",
                common::stderr(&out)
            );
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{bin} {argv:?}: {e}"))
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (ours, theirs) = (doc(common::RFIO), doc(fio));
        keys(&ours, "", &mut a);
        keys(&theirs, "", &mut b);
        if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
            panic!("{extra:?}: key {i}: rfio {:?}, fio {:?}", a[i], b[i]);
        }
        assert_eq!(a.len(), b.len(), "{extra:?}: number of keys");
    }
}
