//! `log_compression`, `log_store_compressed` (`.log.fz` files),
//! `log_entries`, `log_alternate_epoch` and `--inflate-log`, as fio 3.33
//! has them: the text is the same compressed or not, rfio's `.fz` files
//! inflate with real fio and fio's with rfio, the zlib streams are the
//! arrays fio's `log_entries` sizes, and bad values are refused at their
//! line.

use std::io::Read;
use std::path::Path;

use rfio::api::{Completion, Plan, NO_SLAT};

use crate::common::{self, real_fio, rfio, run_in, stderr, stdout, TempDir, RFIO};

/// Run job 0 of `plan` through its statistics: `n` I/Os of 4 KiB, one
/// every 0.25 ms, reads and writes in turn, at increasing offsets.
fn feed(plan: &Plan, n: u64) {
    let mut ts = common::thread_stats(&plan.jobs[0]);
    ts.job_started();
    for k in 1..=n {
        ts.complete(&Completion {
            dir: rfio::api::Ddir::DATA[(k % 2) as usize],
            bytes: 4096,
            slat_ns: NO_SLAT,
            clat_ns: 1000 + k % 97,
            at_ns: k * 250_000,
            offset: k * 4096,
            ..Completion::default()
        });
    }
    ts.elapsed_us = n * 250 + 100;
    ts.job_finished();
    assert_eq!(ts.log_error, None);
}

/// The plan of job `x` writing bw, iops and lat logs under `prefix` with
/// `extra` options.
fn log_plan(prefix: &Path, extra: &[&str]) -> Plan {
    let p = prefix.display();
    let mut args: Vec<String> = [
        "--name=x",
        "--ioengine=null",
        "--rw=randrw",
        "--size=1m",
        "--log_offset=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend([
        format!("--write_bw_log={p}"),
        format!("--write_iops_log={p}"),
        format!("--write_lat_log={p}"),
    ]);
    args.extend(extra.iter().map(|s| s.to_string()));
    common::plan(&args)
}

fn read(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn compressed_logs_print_the_same_lines() {
    let dir = TempDir::new("gz-text");
    for (tag, extra) in [
        ("plain", &[][..]),
        ("gz", &["--log_compression=1k"][..]),
        ("gz2", &["--log_compression=64k", "--log_entries=2048"][..]),
    ] {
        let plan = log_plan(&dir.file(tag), extra);
        feed(&plan, 5000);
    }
    for kind in ["bw", "iops", "lat", "clat"] {
        let plain = read(dir.file(&format!("plain_{kind}.1.log")));
        assert_eq!(plain.lines().count(), 5000, "{kind}");
        for tag in ["gz", "gz2"] {
            let got = read(dir.file(&format!("{tag}_{kind}.1.log")));
            assert!(
                got == plain,
                "{tag}_{kind}.1.log differs from the plain log"
            );
        }
    }
    // Windowed logs too.
    for (tag, extra) in [
        ("wplain", &["--log_avg_msec=10"][..]),
        ("wgz", &["--log_avg_msec=10", "--log_compression=1k"][..]),
    ] {
        feed(&log_plan(&dir.file(tag), extra), 5000);
    }
    let plain = read(dir.file("wplain_clat.1.log"));
    assert!(plain.lines().count() > 200);
    assert_eq!(read(dir.file("wgz_clat.1.log")), plain);
}

/// Samples per zlib stream of the `.fz` file `path` (40-byte records: the
/// logs here have offsets).
fn stream_sizes(path: &Path) -> Vec<usize> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rest = &data[..];
    let mut sizes = Vec::new();
    while !rest.is_empty() {
        let mut out = Vec::new();
        let mut z = flate2::bufread::ZlibDecoder::new(&mut rest);
        z.read_to_end(&mut out).expect("a zlib stream");
        drop(z);
        sizes.push(out.len() / 40);
    }
    sizes
}

/// Where each zlib stream of the `.fz` bytes `data` ends.
fn stream_ends(data: &[u8]) -> Vec<usize> {
    let mut rest = data;
    let mut ends = Vec::new();
    while !rest.is_empty() {
        let mut z = flate2::bufread::ZlibDecoder::new(&mut rest);
        std::io::copy(&mut z, &mut std::io::sink()).expect("a zlib stream");
        drop(z);
        ends.push(data.len() - rest.len());
    }
    ends
}

/// `--inflate-log` of `file` by `bin`: stdout, stderr, exit status.
fn inflate(bin: &str, dir: &TempDir, file: &str) -> (String, String, i32) {
    let o = run_in(bin, &dir.0, &[&format!("--inflate-log={file}")]);
    (stdout(&o), stderr(&o), o.status.code().unwrap_or(-1))
}

/// A sequential-write job of `ios` I/Os of 4 KiB storing compressed bw
/// and iops logs with offsets (t/log_compression.py's job, smaller).
fn stored_job(prefix: &str, ios: u64, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=job",
        "--ioengine=null",
        "--rw=write",
        "--bs=4k",
        "--iodepth=1",
        "--log_offset=1",
        "--log_store_compressed=1",
        "--output-format=terse",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--filesize={}k", ios * 4));
    a.push(format!("--write_bw_log={prefix}"));
    a.push(format!("--write_iops_log={prefix}"));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn run_job(bin: &str, dir: &TempDir, args: &[String]) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run_in(bin, &dir.0, &args);
    assert!(o.status.success(), "{bin} {args:?}: {}", stderr(&o));
}

#[test]
fn stored_logs_inflate_with_fio_and_fios_with_rfio() {
    let fio = real_fio();
    let dir = TempDir::new("gz-store");
    run_job(
        RFIO,
        &dir,
        &stored_job("r", 3000, &["--log_compression=10k"]),
    );
    run_job(
        fio,
        &dir,
        &stored_job("f", 3000, &["--log_compression=10k"]),
    );
    for name in [
        "r_bw.1.log.fz",
        "r_iops.1.log.fz",
        "f_bw.1.log.fz",
        "f_iops.1.log.fz",
    ] {
        let (by_fio, err, rc) = inflate(fio, &dir, name);
        assert_eq!((rc, err.as_str()), (0, ""), "fio --inflate-log={name}");
        let (by_rfio, err, rc) = inflate(RFIO, &dir, name);
        assert_eq!((rc, err.as_str()), (0, ""), "rfio --inflate-log={name}");
        assert!(
            by_fio == by_rfio,
            "{name}: fio and rfio inflate it differently"
        );
        // One line per I/O, offsets in order (what t/log_compression.py checks).
        let offsets: Vec<u64> = by_rfio
            .lines()
            .map(|l| l.split(", ").nth(4).unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            offsets,
            (0..3000).map(|k| k * 4096).collect::<Vec<_>>(),
            "{name}"
        );
    }
    assert!(
        !dir.file("r_bw.1.log").exists(),
        "no text log beside the .fz"
    );
}

#[test]
fn streams_are_fios_arrays() {
    let fio = real_fio();
    let dir = TempDir::new("gz-entries");
    // Stored without log_compression: arrays of log_entries, doubling;
    // with it, each full array compressed at once and left empty.
    let cases: [(&str, u64, &[&str], &[usize]); 4] = [
        ("a", 3000, &[], &[1024, 1976]),
        ("b", 3000, &["--log_entries=2048"], &[2048, 952]),
        (
            "c",
            5000,
            &["--log_compression=1k"],
            &[1024, 2048, 0, 0, 1928],
        ),
        ("d", 3072, &["--log_compression=1k"], &[1024, 0, 2048]),
    ];
    // The eight runs at once: fio takes a while to start.
    std::thread::scope(|scope| {
        for (tag, ios, extra, _) in cases {
            for (bin, who) in [(RFIO, "r"), (fio, "f")] {
                let dir = &dir;
                scope.spawn(move || {
                    run_job(bin, dir, &stored_job(&format!("{who}{tag}"), ios, extra))
                });
            }
        }
    });
    for (tag, _, extra, want) in cases {
        for who in ["r", "f"] {
            let sizes = stream_sizes(&dir.file(&format!("{who}{tag}_iops.1.log.fz")));
            assert_eq!(sizes, want, "{who} {tag}: {extra:?}");
        }
    }
}

#[test]
fn shared_stored_logs_hold_every_jobs_streams() {
    let dir = TempDir::new("gz-shared");
    let o = rfio(
        &dir.0,
        &[
            "--ioengine=null",
            "--size=2m",
            "--bs=4k",
            "--write_iops_log=s",
            "--per_job_logs=0",
            "--log_store_compressed=1",
            "--log_compression=2k",
            "--numjobs=3",
            "--name=j",
            "--output-format=terse",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (text, _, rc) = inflate(RFIO, &dir, "s_iops.log.fz");
    assert_eq!(rc, 0);
    assert_eq!(text.lines().count(), 3 * 512);
    assert!(!dir.file("s_iops.1.log.fz").exists());
}

#[test]
fn inflate_log_fails_as_fio() {
    let fio = real_fio();
    let dir = TempDir::new("gz-bad");
    dir.write("empty.fz", "");
    dir.write("text.fz", "0, 1, 0, 4096, 0\n");
    for name in ["missing.fz", "empty.fz"] {
        let want = inflate(fio, &dir, name);
        let got = inflate(RFIO, &dir, name);
        assert_eq!(got, want, "--inflate-log={name}");
    }
    // Not zlib: fio's message and status, then where it failed.
    let (out, err, rc) = inflate(fio, &dir, "text.fz");
    assert_eq!(
        (out.as_str(), err.as_str(), rc),
        ("", "fio: failed inflating log: -3\n", 253)
    );
    assert_eq!(
        inflate(RFIO, &dir, "text.fz"),
        (
            String::new(),
            "fio: failed inflating log: -3\n\
             rfio: text.fz: zlib stream 1 is not zlib data, after 0 records\n"
                .into(),
            253
        )
    );
    assert_eq!(
        inflate(RFIO, &dir, "missing.fz").1,
        "fopen: No such file or directory\n"
    );
}

/// The time column of the first line of `log`.
fn first_time(log: &str) -> u64 {
    let line = log.lines().next().expect("a log line");
    line.split(", ").next().unwrap().parse().unwrap()
}

fn clock_ms(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to write.
    assert_eq!(unsafe { libc::clock_gettime(clock, &mut ts) }, 0);
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[test]
fn alternate_epochs_count_from_their_clock() {
    let dir = TempDir::new("epoch");
    let cases: [(&str, &[&str], libc::clockid_t); 4] = [
        ("alt0", &["--log_alternate_epoch=1"], libc::CLOCK_REALTIME),
        (
            "alt1",
            &[
                "--log_alternate_epoch=1",
                "--log_alternate_epoch_clock_id=1",
            ],
            libc::CLOCK_MONOTONIC,
        ),
        (
            "boot",
            &[
                "--log_alternate_epoch=1",
                "--log_alternate_epoch_clock_id=7",
            ],
            libc::CLOCK_BOOTTIME,
        ),
        // fio 3.33: log_unix_epoch reads the clock of
        // log_alternate_epoch_clock_id too.
        (
            "unix1",
            &["--log_unix_epoch=1", "--log_alternate_epoch_clock_id=1"],
            libc::CLOCK_MONOTONIC,
        ),
    ];
    for (tag, extra, clock) in cases {
        let before = clock_ms(clock);
        let mut args = vec![
            "--name=e".to_string(),
            "--ioengine=null".into(),
            "--size=64k".into(),
            format!("--write_iops_log={tag}"),
            "--output-format=terse".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = rfio(&dir.0, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let after = clock_ms(clock);
        let t = first_time(&read(dir.file(&format!("{tag}_iops.1.log"))));
        assert!(
            (before..=after).contains(&t),
            "{tag}: {t} not within {before}..={after}"
        );
    }
    // Without an epoch option the clock changes nothing.
    let o = rfio(
        &dir.0,
        &[
            "--name=e",
            "--ioengine=null",
            "--size=64k",
            "--write_iops_log=zero",
            "--log_alternate_epoch_clock_id=1",
            "--output-format=terse",
        ],
    );
    assert!(o.status.success());
    assert!(first_time(&read(dir.file("zero_iops.1.log"))) < 1000);
}

#[test]
fn bad_values_are_refused_at_their_line() {
    let dir = TempDir::new("gz-refuse");
    let cases = [
        (
            "log_entries=5",
            "log_entries",
            "min value out of range: 5 (1024 min)",
        ),
        (
            "log_entries=2000000",
            "log_entries",
            "max value out of range: 2000000 (1048576 max)",
        ),
        (
            "log_compression=100",
            "log_compression",
            "min value out of range: 100 (1024 min)",
        ),
        (
            "log_alternate_epoch=1\nlog_alternate_epoch_clock_id=10",
            "log_alternate_epoch_clock_id",
            "clock_gettime has no clock 10",
        ),
        (
            "write_hist_log=h\nlog_hist_msec=10\nlog_store_compressed=1",
            "log_store_compressed",
            "fio 3.33 stores memory addresses in place of the histogram rows",
        ),
        (
            "log_compression_cpus=1023",
            "log_compression_cpus",
            "CPU 1023 too large",
        ),
    ];
    for (i, (lines, option, why)) in cases.iter().enumerate() {
        let text = format!("[global]\nioengine=null\nsize=64k\n\n[j]\nwrite_iops_log=a\n{lines}\n");
        let name = format!("bad{i}.fio");
        dir.write(&name, &text);
        let line = 7 + lines.lines().position(|l| l.starts_with(option)).unwrap();
        let o = rfio(&dir.0, &[&name]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}:{line}:")) && err.contains(why),
            "{name}: {err}"
        );
        assert!(!dir.file("a_iops.1.log").exists(), "{name}: nothing ran");
    }
}

/// A `.fz` cut short: fio prints what the stream holds and exits 0; rfio
/// prints the same lines, then says where the file ends and exits 1.
/// A corrupt stream after a good one (its zlib header damaged, so that
/// inflating fails at once, whatever the samples): both print the good
/// one and exit 253, rfio naming the stream. A text that cannot be
/// written: fio exits 0, rfio says so.
#[test]
fn a_log_cut_short_is_an_error_after_fios_lines() {
    let fio = real_fio();
    let dir = TempDir::new("gz-cut");
    run_job(RFIO, &dir, &stored_job("r", 3000, &[]));
    let whole = std::fs::read(dir.file("r_iops.1.log.fz")).unwrap();
    // 3000 samples are two streams (1024, then the rest); the cuts fall
    // inside the second, wherever the machine's timing put its bytes.
    let ends = stream_ends(&whole);
    assert_eq!(ends.len(), 2, "{ends:?}");
    let middle = (ends[0] + whole.len()) / 2;
    std::fs::write(dir.file("half.fz"), &whole[..middle]).unwrap();
    std::fs::write(dir.file("cut4.fz"), &whole[..whole.len() - 4]).unwrap();
    let mut bad = whole.clone();
    bad[ends[0]] ^= 0xff;
    std::fs::write(dir.file("corrupt.fz"), &bad).unwrap();
    for name in ["half.fz", "cut4.fz"] {
        let (by_fio, err, rc) = inflate(fio, &dir, name);
        assert_eq!((rc, err.as_str()), (0, ""), "fio --inflate-log={name}");
        let (by_rfio, err, rc) = inflate(RFIO, &dir, name);
        assert!(by_rfio == by_fio, "{name}: rfio prints other lines");
        let n = by_fio.lines().count();
        assert!(n > 0 && n <= 3000, "{name}: {n}");
        assert_eq!(
            (rc, err),
            (
                1,
                format!(
                    "rfio: {name}: the log is cut short: it ends inside zlib stream 2, \
                     after {n} records\n"
                )
            ),
            "{name}"
        );
    }
    let (by_fio, err_fio, rc_fio) = inflate(fio, &dir, "corrupt.fz");
    let (by_rfio, err, rc) = inflate(RFIO, &dir, "corrupt.fz");
    assert_eq!((rc_fio, rc), (253, 253));
    // Both print the stream before the corrupt one.
    assert_eq!(by_fio.lines().count(), 1024);
    assert!(by_rfio == by_fio, "rfio prints other lines");
    assert!(err.starts_with(&err_fio), "{err}");
    assert!(
        err.ends_with("corrupt.fz: zlib stream 2 is not zlib data, after 1024 records\n"),
        "{err}"
    );
    // /dev/full: fio exits 0; rfio names the file and the error.
    for (bin, want_rc) in [(fio, 0), (RFIO, 1)] {
        let o = std::process::Command::new(bin)
            .current_dir(&dir.0)
            .arg("--inflate-log=r_iops.1.log.fz")
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(want_rc), "{bin}: {}", stderr(&o));
        if bin == RFIO {
            assert!(
                stderr(&o).starts_with(
                    "rfio: r_iops.1.log.fz: error writing the log: No space left on device"
                ),
                "{}",
                stderr(&o)
            );
        }
    }
}
