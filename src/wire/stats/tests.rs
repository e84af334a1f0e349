//! The statistics bodies against the bodies recorded from real fio
//! servers (`tests/fixtures/wire`): decoded values, and byte-exact round
//! trips.

use std::path::PathBuf;

use super::du::Du;
use super::eta::Eta;
use super::gs::{decode_gs, encode_gs};
use super::iolog::{decode_iolog, text_lines};
use super::layout::layout;
use super::ts::{decode_ts, encode_ts, ts_job_start};
use crate::stats::config::DEFAULT_PERCENTILES;
use crate::stats::hist::{fio_bucket_value, LatHist};
use crate::stats::summary::{ClatPrio, Entry, GroupDirRun, GroupRun};
use crate::stats::{LatAccum, SteadyStateReport};

const VERSIONS: [(&str, u16); 3] = [("3.33", 97), ("3.36", 101), ("3.42", 120)];

fn dir(tag: &str, scen: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wire")
        .join(format!("fio-{tag}"))
        .join(scen)
}

/// Every recorded body of opcode `op` (server to client), with its path.
fn bodies(tag: &str, scen: &str, op: &str) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir(tag, scen))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&format!("-s2c-{op}.bin")))
        })
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

const SCENARIOS: [&str; 5] = ["two-json", "two-normal", "timed", "group", "bwlog"];

#[test]
fn every_recorded_ts_and_gs_round_trips_byte_for_byte() {
    let mut n = 0;
    for (tag, v) in VERSIONS {
        for scen in SCENARIOS {
            for (path, b) in bodies(tag, scen, "TS") {
                let (e, g) = decode_ts(&b, v).unwrap_or_else(|err| panic!("{path}: {err}"));
                let start = ts_job_start(&b, v).unwrap_or(0);
                let again = encode_ts(&e, &g, v, start).unwrap();
                assert_eq!(again.len(), b.len(), "{path}");
                let diff: Vec<usize> = (0..b.len()).filter(|&i| b[i] != again[i]).collect();
                assert!(
                    diff.is_empty(),
                    "{path}: bytes differ at {:?}",
                    &diff[..diff.len().min(8)]
                );
                assert_eq!(decode_ts(&again, v).unwrap(), (e, g.clone()));
                // The TS ends with the job's group, as the GS does.
                let l = layout(v).unwrap();
                assert_eq!(encode_gs(&g)[..], b[l.gs_at..l.gs_at + 164], "{path}");
                n += 1;
            }
            for (path, b) in bodies(tag, scen, "GS") {
                let g = decode_gs(&b).unwrap_or_else(|err| panic!("{path}: {err}"));
                assert_eq!(encode_gs(&g), b, "{path}");
                n += 1;
            }
        }
    }
    assert_eq!(n, 3 * (7 + 5));
}

#[test]
fn two_json_jobs_decode_the_same_in_every_version() {
    let mut seen = Vec::new();
    for (tag, v) in VERSIONS {
        let ts = bodies(tag, "two-json", "TS");
        assert_eq!(ts.len(), 2);
        let (j1, g) = decode_ts(&ts[0].1, v).unwrap();
        let (j2, _) = decode_ts(&ts[1].1, v).unwrap();
        assert_eq!((j1.name.as_str(), j2.name.as_str()), ("job1", "job2"));
        assert_eq!(j1.dirs[0].bytes, 67_108_864);
        assert_eq!(j1.dirs[0].ios, 16_384);
        assert_eq!(j2.dirs[1].bytes, 67_108_864);
        assert_eq!(j2.dirs[1].ios, 16_384);
        assert_eq!((j1.members, j1.group_id, j1.thread_number), (1, 0, 1));
        assert_eq!(j2.thread_number, 2);
        assert_eq!(
            (j1.cfg.kb_base, j1.cfg.unit_base, j1.cfg.sig_figs),
            (1024, 8, 4)
        );
        assert_eq!(j1.cfg.percentiles.list, DEFAULT_PERCENTILES.to_vec());
        assert_eq!(j1.cfg.percentiles.precision, 2);
        assert!(j1.cfg.percentiles.clat && !j1.cfg.percentiles.lat);
        assert_eq!(j1.cfg.description, None);
        assert_eq!((j1.error, j1.verror.as_str()), (0, ""));
        assert_eq!(j1.last_job, usize::MAX);
        assert!(j1.prios.iter().all(Vec::is_empty) && j1.steadystate.is_none());
        // Unused statistics: min ~0, max 0.
        let (samples, min, max, ..) = j1.dirs[1].clat.raw();
        assert_eq!((samples, min, max), (0, u64::MAX, 0));
        assert_eq!(j1.dirs[0].clat.samples(), 16_384);
        assert_eq!(
            j1.dirs[0]
                .clat_hist
                .as_ref()
                .map(|h| h.fio_bins().iter().map(|b| b.1).sum::<u64>()),
            Some(16_384)
        );
        assert!(j1.dirs[1].clat_hist.is_none());
        let rt = j1.dirs[0].runtime_ms;
        assert!(rt > 0);
        assert_eq!(j1.dirs[0].bw, 67_108_864 * 1000 / rt);
        assert_eq!(j1.dirs[0].iops, 16_384 * 1000 / rt);
        assert_eq!(g.id, 0);
        assert_eq!(g.dirs[2], None);
        assert!(g.dirs[0].is_some() && g.dirs[1].is_some());
        assert_eq!(g.dirs[0].unwrap().bytes, 67_108_864);
        assert_eq!(g.unit_base, 8);
        assert_eq!(ts_job_start(&ts[0].1, v).is_some(), v >= 101);
        seen.push((
            j1.name,
            j1.dirs.iter().map(|d| (d.bytes, d.ios)).collect::<Vec<_>>(),
            j1.depth.depth,
            j1.depth.total_submit,
            j1.latency_depth,
            j1.cfg,
        ));
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
}

#[test]
fn group_reporting_entry_has_four_members() {
    for (tag, v) in VERSIONS {
        let ts = bodies(tag, "group", "TS");
        assert_eq!(ts.len(), 1);
        let (e, g) = decode_ts(&ts[0].1, v).unwrap();
        assert_eq!((e.name.as_str(), e.members), ("grp", 4));
        assert_eq!(e.dirs[0].bytes, 64 << 20);
        assert_eq!(e.dirs[0].ios, 4 * 4096);
        assert_eq!(g.dirs[0].unwrap().bytes, 64 << 20);
    }
}

#[test]
fn eta_du_and_probe_bodies_round_trip() {
    let mut n = 0;
    for (tag, _) in VERSIONS {
        for scen in SCENARIOS {
            for (path, b) in bodies(tag, scen, "ETA") {
                let e = Eta::decode(&b).unwrap();
                assert!(!e.run_str.is_empty() && e.run_str.ends_with(')'), "{path}");
                assert_eq!(e.encode(), b, "{path}");
                n += 1;
            }
            for (path, b) in bodies(tag, scen, "DU") {
                let d = Du::decode(&b).unwrap();
                assert_eq!(d.disk.name, "vda", "{path}");
                assert!(d.disk.msec > 0 && d.aggregate().is_none());
                assert_eq!(d.encode(), b, "{path}");
                assert_eq!(Du::of(&d.disk).encode(), b, "{path}");
                n += 1;
            }
            for (path, b) in bodies(tag, scen, "PROBE") {
                let p = crate::wire::body::ProbeReply::decode(&b).unwrap();
                assert_eq!(p.fio_version, format!("fio-{tag}"), "{path}");
                assert_eq!(p.encode(), b);
            }
        }
    }
    assert!(n >= 15, "{n}");
    // No status yet: 168 zero bytes.
    let e = Eta::decode(&[0; 168]).unwrap();
    assert_eq!(e, Eta::default());
    assert_eq!(e.encode(), vec![0; 168]);
    assert!(Eta::decode(&[0; 167]).is_err());
    assert!(Du::decode(&[0; 255]).is_err());
}

#[test]
fn recorded_bandwidth_logs_inflate_to_the_clients_lines() {
    for (tag, v) in VERSIONS {
        let logs = bodies(tag, "bwlog", "IOLOG");
        assert_eq!(logs.len(), 1);
        let log = decode_iolog(&logs[0].1, v).unwrap();
        assert_eq!((log.thread_number, log.log_type, log.compressed), (1, 4, 1));
        assert_eq!(log.name, "bwl_bw.1.log");
        assert_eq!(log.per_job_logs, (v >= 102).then_some(1));
        assert_eq!(log.samples.len() as u64, log.nr_samples);
        let want =
            std::fs::read_to_string(dir(tag, "bwlog").join("client-files/bwl_bw.1.log.127.0.0.1"))
                .unwrap();
        assert_eq!(text_lines(&log.samples), want, "{tag}");
    }
}

fn hist(values: &[(usize, u64)]) -> Option<Box<LatHist>> {
    let mut h = LatHist::new();
    for &(k, n) in values {
        h.record_n(fio_bucket_value(k), n);
    }
    Some(Box::new(h))
}

/// An entry with every field the TS carries set.
fn full_entry() -> (Entry, GroupRun) {
    let (mut e, g) = decode_ts(&bodies("3.33", "timed", "TS")[0].1, 97).unwrap();
    e.name = "hand".into();
    e.verror = "Input/output error".into();
    e.error = 5;
    e.first_error = 5;
    e.total_err = 3;
    e.pid = 4242;
    e.thread_number = 7;
    e.group_id = 2;
    e.members = 3;
    e.ioprio = 0x2004;
    e.zone_resets = 9;
    e.latency_depth = 16;
    e.cfg.description = Some("a description".into());
    e.cfg.unified = crate::stats::Unified::Both;
    e.cfg.percentiles.list = vec![50.0, 99.0];
    e.cfg.percentiles.lat = true;
    e.cfg.percentiles.precision = 3;
    e.cfg.unit_base = 1;
    e.cfg.kb_base = 1000;
    e.cfg.continue_on_error = true;
    e.cfg.latency_target_ns = 1_000_000;
    e.cfg.latency_window_us = 500_000;
    e.cfg.latency_percentile = 99.5;
    e.dirs[2].slat_hist = hist(&[(3, 1), (700, 2)]);
    e.dirs[2].slat = LatAccum::from_raw(3, 3, 900_000, 600_000.5, 12.25);
    e.sync.ios = 4;
    e.sync.lat = LatAccum::from_raw(4, 10, 100, 40.0, 3.0);
    e.sync.hist = hist(&[(10, 2), (100, 2)]);
    e.prios[0] = vec![
        ClatPrio {
            ioprio: 0x2004,
            lat: LatAccum::from_raw(2, 5, 6, 5.5, 0.5),
            hist: hist(&[(5, 1), (6, 1)]),
        },
        ClatPrio::new(0x6001),
    ];
    e.prios[2] = vec![ClatPrio::new(1)];
    e.steadystate = Some(SteadyStateReport {
        iops: true,
        slope: true,
        pct: true,
        limit: 0.5,
        duration: 3,
        attained: true,
        buffer_full: true,
        head: 1,
        slope_value: 0.25,
        deviation: 1.5,
        criterion: 2.5,
        bw_data: vec![1, 2, 3],
        iops_data: vec![4, 5, 6],
        ..SteadyStateReport::default()
    });
    let g = GroupRun {
        id: 2,
        unified_bits: 2,
        kb_base: 1000,
        unit_base: 1,
        sig_figs: 6,
        dirs: [
            g.dirs[0],
            None,
            Some(GroupDirRun {
                bytes: 1,
                agg: 2,
                min_bw: 3,
                max_bw: 4,
                min_run: 5,
                max_run: 6,
            }),
        ],
    };
    (e, g)
}

#[test]
fn a_hand_built_entry_comes_back_in_every_family() {
    let (e, g) = full_entry();
    for v in [97, 100, 101, 113, 114, 115, 120] {
        let b = encode_ts(&e, &g, v, 1_796_156_729_760).unwrap();
        let l = layout(v).unwrap();
        assert!(b.len() > l.body_len, "{v}: the extension follows");
        let (back, gb) = decode_ts(&b, v).unwrap();
        let mut want = e.clone();
        if v >= 101 {
            want.job_start_ms = 1_796_156_729_760;
        }
        assert_eq!(back, want, "{v}");
        assert_eq!(gb, g, "{v}");
        assert_eq!(ts_job_start(&b, v), (v >= 101).then_some(1_796_156_729_760));
        assert_eq!(
            encode_ts(&back, &gb, v, 1_796_156_729_760).unwrap(),
            b,
            "{v}"
        );
    }
    assert!(encode_ts(&e, &g, 96, 0).is_none());
    assert!(decode_ts(&[0; 200_000], 121).is_err());
}

#[test]
fn hostile_bodies_are_errors() {
    let (e, g) = full_entry();
    for v in [97, 101, 120] {
        let l = layout(v).unwrap();
        let good = encode_ts(&e, &g, v, 0).unwrap();
        for len in [0, 100, l.body_len - 1] {
            assert!(decode_ts(&good[..len], v).is_err(), "{v} {len}");
        }
        let u64_at =
            |b: &mut Vec<u8>, at: usize, x: u64| b[at..at + 8].copy_from_slice(&x.to_le_bytes());
        let u32_at =
            |b: &mut Vec<u8>, at: usize, x: u32| b[at..at + 4].copy_from_slice(&x.to_le_bytes());
        use super::layout::F;
        let mut b = good.clone();
        u64_at(&mut b, l.at(F::NrBlockInfos), 8193);
        assert!(decode_ts(&b, v).is_err());
        for off in [0, 16, l.body_len as u64 - 1, b.len() as u64, u64::MAX - 3] {
            let mut b = good.clone();
            u64_at(&mut b, l.at(F::ClatPrioOffset), off);
            assert!(decode_ts(&b, v).is_err(), "{v} prio at {off}");
            let mut b = good.clone();
            u64_at(&mut b, l.at(F::SsBwOffset), off);
            assert!(decode_ts(&b, v).is_err(), "{v} ring at {off}");
        }
        let mut b = good.clone();
        u32_at(&mut b, l.at(F::NrClatPrio), u32::MAX);
        assert!(decode_ts(&b, v).is_err());
        let mut b = good.clone();
        u64_at(&mut b, l.at(F::SsDur), u64::MAX / 2);
        assert!(decode_ts(&b, v).is_err());
        let mut b = good.clone();
        u32_at(&mut b, l.at(F::UnifiedRwRep), 7);
        assert!(decode_ts(&b, v).is_err());
    }
    assert!(decode_gs(&[0; 163]).is_err());
    // IOLOG: short header, garbage instead of zlib, a bomb is cut.
    assert!(decode_iolog(&[0; 287], 97).is_err());
    let mut hdr = vec![0u8; 288];
    hdr[0] = 5;
    hdr[16] = 1;
    let mut garbage = hdr.clone();
    garbage.extend_from_slice(b"not zlib at all");
    assert!(decode_iolog(&garbage, 97).is_err());
    assert!(decode_iolog(&hdr, 97).unwrap().samples.is_empty());
    let mut bomb = hdr.clone();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut z, &vec![0u8; 8 << 20]).unwrap();
    let z = z.finish().unwrap();
    bomb.extend_from_slice(&z);
    assert!(super::iolog::inflate_unfinished(&bomb[288..], 1 << 20).is_err());
    assert_eq!(
        super::iolog::inflate_unfinished(&bomb[288..], 16 << 20)
            .unwrap()
            .len(),
        8 << 20
    );
}

#[test]
fn samples_with_offset_issue_time_and_max_print_as_fio_3_42() {
    let mut b = vec![0u8; 296];
    b[0] = 2; // nr_samples
    b[8] = 1;
    b[12] = 2; // clat
    b[40..46].copy_from_slice(b"x.log\0");
    for k in 0..2u64 {
        let mut s = [0u8; 56];
        s[0..8].copy_from_slice(&(10 + k).to_le_bytes());
        s[8..16].copy_from_slice(&(100 * k).to_le_bytes());
        s[16..24].copy_from_slice(&(200 * k).to_le_bytes());
        let ddir = 1 | 0x8000_0000u32 | 0x4000_0000 | 0x2000_0000 | 0x1000_0000;
        s[24..28].copy_from_slice(&ddir.to_le_bytes());
        s[28..30].copy_from_slice(&0x2004u16.to_le_bytes());
        s[32..40].copy_from_slice(&4096u64.to_le_bytes());
        s[40..48].copy_from_slice(&(8192 * k).to_le_bytes());
        s[48..56].copy_from_slice(&(7 + k).to_le_bytes());
        b.extend_from_slice(&s);
    }
    let log = decode_iolog(&b, 120).unwrap();
    assert_eq!(log.name, "x.log");
    assert_eq!(log.samples[1].offset, Some(8192));
    assert_eq!(log.samples[1].issue_time, Some(8));
    assert_eq!(
        text_lines(&log.samples),
        "10, 0, 0, 1, 4096, 0, 0x2004, 7\n11, 100, 200, 1, 4096, 8192, 0x2004, 8\n"
    );
    // The same bytes claim more samples than they hold: only whole ones.
    b[0] = 200;
    b.truncate(b.len() - 1);
    assert_eq!(decode_iolog(&b, 120).unwrap().samples.len(), 1);
}
