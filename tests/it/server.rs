//! `rfio --server` driven by real fio 3.33 clients on loopback, compared
//! with a real `fio --server` driven the same way; hostile input; the
//! server's safety rules (allow-list, token, jail). Each test starts its
//! own servers on free ports and kills them (their process groups) when
//! it ends.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::wire::{crc16, message, read_message};
use common::{real_fio, stderr, stdout, Running, TempDir, RFIO};
use serde_json::Value;

/// A port nothing listens on now.
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A server listening on loopback; killed (with its sessions) when dropped.
struct Server {
    _proc: Running,
    port: u16,
}

/// Start `bin --server=ip:127.0.0.1,PORT` with `extra` flags and `env`,
/// in `dir`, and wait until it listens.
fn server_in(bin: &str, dir: &TempDir, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let port = free_port();
    let mut cmd = Command::new(bin);
    // rfio's server as the fio 3.33 whose clients talk to it here (what it
    // sends before it reads the client's version, a refusal, is in its
    // own); `env` may choose another.
    cmd.current_dir(&dir.0)
        .arg(format!("--server=ip:127.0.0.1,{port}"))
        .args(extra)
        .env("RFIO_FIO_VERSION", "3.33");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut proc = Running::start(&mut cmd);
    if bin == RFIO {
        proc.wait_for_stdout("the listening line", Duration::from_secs(20), |o| {
            o.contains("server listening on")
        });
    }
    // fio's line sits in its stdout buffer: wait until a connection is
    // taken.
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{bin} never listened on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    Server { _proc: proc, port }
}

fn rfio_server(dir: &TempDir) -> Server {
    server_in(RFIO, dir, &[], &[])
}

fn fio_server(dir: &TempDir) -> Server {
    server_in(real_fio(), dir, &[], &[])
}

/// Real fio's client against `port`, with `args` after `--client`.
fn fio_client(dir: &TempDir, port: u16, args: &[&str]) -> Output {
    fio_client_env(dir, port, args, &[])
}

fn fio_client_env(dir: &TempDir, port: u16, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(real_fio());
    cmd.current_dir(&dir.0)
        .arg(format!("--client=127.0.0.1,{port}"))
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (out, timed_out) = common::output_within(&mut cmd, Duration::from_secs(60));
    assert!(!timed_out, "fio --client timed out: {}", stdout(&out));
    out
}

const TWO: &str =
    "[global]\nioengine=null\nsize=64m\nbs=4k\n\n[job1]\nrw=read\n\n[job2]\nrw=randwrite\n";

/// The client's JSON document (after the empty line it starts with).
fn doc(o: &Output) -> Value {
    let text = stdout(o);
    serde_json::from_str(text.trim_start()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Every key path of `v`, in order (values left out): the shape two
/// documents must share.
fn shape(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{path}/{k}");
                out.push(p.clone());
                shape(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                shape(x, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn shape_of(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    shape(v, "", &mut out);
    out
}

/// The fields of a client_stats entry that do not depend on timing.
fn fixed(e: &Value) -> Value {
    let dir = |d: &str| {
        serde_json::json!([
            e[d]["io_bytes"],
            e[d]["io_kbytes"],
            e[d]["total_ios"],
            e[d]["short_ios"],
            e[d]["drop_ios"],
            e[d]["clat_ns"]["N"],
        ])
    };
    serde_json::json!({
        "jobname": e["jobname"], "groupid": e["groupid"], "error": e["error"],
        "job options": e["job options"], "read": dir("read"), "write": dir("write"),
        "trim": dir("trim"), "port": e["port"], "hostname": e["hostname"],
        "iodepth_level": e["iodepth_level"], "latency_depth": e["latency_depth"],
    })
}

/// Same output from a fio client, whichever server ran the jobs: the same
/// document shape, the same deterministic fields.
fn assert_same_json(rfio_side: &Output, fio_side: &Output, entries: usize) {
    assert!(
        rfio_side.status.success(),
        "{}{}",
        stdout(rfio_side),
        stderr(rfio_side)
    );
    assert!(fio_side.status.success(), "{}", stderr(fio_side));
    assert!(stdout(rfio_side).starts_with('\n'), "{}", stdout(rfio_side));
    let (r, f) = (doc(rfio_side), doc(fio_side));
    assert_eq!(r["global options"], f["global options"]);
    let (rs, fs) = (&r["client_stats"], &f["client_stats"]);
    assert_eq!(rs.as_array().unwrap().len(), entries, "{rs:#}");
    assert_eq!(fs.as_array().unwrap().len(), entries);
    for i in 0..entries {
        let (a, b) = (&rs[i], &fs[i]);
        let (mut ra, mut fb) = (fixed(a), fixed(b));
        // The ports differ: each server has its own.
        ra["port"] = Value::Null;
        fb["port"] = Value::Null;
        assert_eq!(ra, fb, "entry {i}");
        assert_eq!(shape_of(a), shape_of(b), "entry {i}: {a:#}");
    }
    assert_eq!(shape_of(&r), shape_of(&f));
}

/// The reference's first trace: two null jobs, JSON.
#[test]
fn a_fio_client_gets_the_same_json_from_an_rfio_server() {
    let dir = TempDir::new("srv-json");
    dir.write("two.fio", TWO);
    let (ours, theirs) = (rfio_server(&dir), fio_server(&dir));
    let r = fio_client(&dir, ours.port, &["--output-format=json", "two.fio"]);
    let f = fio_client(&dir, theirs.port, &["--output-format=json", "two.fio"]);
    assert_same_json(&r, &f, 3);
    let d = doc(&r);
    let names: Vec<&str> = (0..3)
        .map(|i| d["client_stats"][i]["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["job1", "job2", "All clients"]);
    assert_eq!(d["client_stats"][0]["read"]["io_bytes"], 67_108_864);
    assert_eq!(d["client_stats"][1]["write"]["total_ios"], 16_384);
    assert_eq!(d["client_stats"][2]["read"]["io_bytes"], 67_108_864);
    assert_eq!(d["client_stats"][0]["port"], ours.port);
    assert!(!stdout(&r).contains("<127.0.0.1>"), "{}", stdout(&r));
    assert!(!stdout(&r).contains("timeout on SEND_ETA"));
}

/// numjobs with group_reporting on a psync file, and two job files to one
/// server (both land in group 0 on a server, as fio's).
#[test]
fn group_reporting_and_two_job_files_match_fio() {
    let dir = TempDir::new("srv-group");
    dir.write(
        "group.fio",
        "[g]\nioengine=psync\nrw=randrw\nsize=1m\nnumjobs=3\ngroup_reporting\nfilename=g.dat\n",
    );
    dir.write("a.fio", "[a]\nioengine=null\nsize=1m\nrw=write\n");
    dir.write("b.fio", "[b]\nioengine=null\nsize=2m\nrw=read\n");
    let (ours, theirs) = (rfio_server(&dir), fio_server(&dir));
    let args = ["--output-format=json", "group.fio"];
    let r = fio_client(&dir, ours.port, &args);
    let f = fio_client(&dir, theirs.port, &args);
    // One block for the group: fio prints no "All clients" for one output.
    assert_same_json(&r, &f, 1);
    let e = &doc(&r)["client_stats"][0];
    let total = e["read"]["io_bytes"].as_u64().unwrap() + e["write"]["io_bytes"].as_u64().unwrap();
    assert_eq!(total, 3 << 20);
    let args = ["--output-format=json", "a.fio", "b.fio"];
    let r = fio_client(&dir, ours.port, &args);
    let f = fio_client(&dir, theirs.port, &args);
    // fio's JSON client shows the first job only, whichever the server.
    assert_same_json(&r, &f, 1);
    // Both files' jobs are in group 0 on a server (a local run numbers
    // them 0 and 1).
    let r = fio_client(&dir, ours.port, &["a.fio", "b.fio"]);
    assert!(
        stdout(&r).contains("b: (groupid=0, jobs=1)"),
        "{}",
        stdout(&r)
    );
}

/// Each line's label (its text up to the first `:` or `=`, units and
/// numbers left out): the structure that must match between servers.
/// Latency bucket lines come and go with timing, and are left out.
fn labels(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with("hostname="))
        // An ETA line the client prints when a run takes long enough (on
        // a loaded machine), before the server's next line: not a label.
        .filter_map(|l| match l.strip_prefix("Jobs: ") {
            Some(eta) => eta.find('<').map(|i| &eta[i..]),
            None => Some(l),
        })
        .map(|l| {
            let end = l.find([':', '=']).unwrap_or(l.len());
            l[..end]
                .replace("(usec)", "(nsec)")
                .replace("(msec)", "(nsec)")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|l| !l.starts_with("lat (") && !l.starts_with('|'))
        .collect()
}

/// The normal and terse outputs of a fio client have the same lines from
/// either server (numbers aside).
#[test]
fn normal_and_terse_output_match_fio() {
    let dir = TempDir::new("srv-normal");
    dir.write("two.fio", TWO);
    let (ours, theirs) = (rfio_server(&dir), fio_server(&dir));
    let r = fio_client(&dir, ours.port, &["two.fio"]);
    let f = fio_client(&dir, theirs.port, &["two.fio"]);
    assert!(r.status.success(), "{}", stderr(&r));
    let (rt, ft) = (stdout(&r), stdout(&f));
    assert!(rt.starts_with("hostname="), "{rt}");
    for needle in [
        "> job1: (g=0): rw=read, bs=(R) 4096B-4096B",
        "> Starting 2 processes",
        "job1: (groupid=0, jobs=1): err= 0: pid=",
        "issued rwts: total=16384,0,0,0 short=0,0,0,0 dropped=0,0,0,0",
        "Run status group 0 (all jobs):",
        "All clients: (groupid=0, jobs=2): err= 0: pid=0",
    ] {
        assert!(rt.contains(needle), "{needle} in {rt}");
    }
    assert_eq!(
        labels(&rt),
        labels(&ft),
        "\nrfio server:\n{rt}\nfio server:\n{ft}"
    );

    let r = fio_client(&dir, ours.port, &["--output-format=terse", "two.fio"]);
    let f = fio_client(&dir, theirs.port, &["--output-format=terse", "two.fio"]);
    let lines = |o: &Output| -> Vec<Vec<String>> {
        stdout(o)
            .lines()
            // fio's client may print its status line before a terse line.
            .filter_map(|l| l.find("3;fio-").map(|at| &l[at..]))
            .map(|l| l.split(';').map(str::to_string).collect())
            .collect()
    };
    // Paired by job name: the order of the lines follows the order the
    // TS arrive, which varies with fio's server. fio's client prints "All
    // clients" only when the last TS arrives after its count is complete,
    // which sometimes misses with fio's own server: the aggregate is
    // compared when both have it.
    let (mut rl, mut fl) = (lines(&r), lines(&f));
    rl.sort_by(|a, b| a[2].cmp(&b[2]));
    fl.sort_by(|a, b| a[2].cmp(&b[2]));
    let names = |v: &[Vec<String>]| v.iter().map(|l| l[2].clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&rl),
        ["All clients", "job1", "job2"],
        "{}",
        stdout(&r)
    );
    if names(&fl).len() == 2 {
        rl.remove(0);
    }
    assert_eq!(names(&rl), names(&fl), "{}", stdout(&f));
    for (a, b) in rl.iter().zip(&fl) {
        assert_eq!(a.len(), b.len());
        // Version, fio version, name, group, error, read kB, write kB.
        for i in [0, 1, 2, 3, 4, 5, 46] {
            assert_eq!(a[i], b[i], "field {i}");
        }
    }
}

/// A bad job file: fio's texts and QUIT; the client exits 0 as with fio's
/// server, and the server goes on serving.
#[test]
fn a_bad_job_file_is_refused_and_the_server_goes_on() {
    let dir = TempDir::new("srv-bad");
    dir.write("bad.fio", "[j]\nrw=bogus\nioengine=null\nsize=1m\n");
    dir.write("two.fio", TWO);
    let ours = rfio_server(&dir);
    let r = fio_client(&dir, ours.port, &["bad.fio"]);
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(stdout(&r).contains("bogus"), "{}", stdout(&r));
    let ok = fio_client(&dir, ours.port, &["--output-format=json", "two.fio"]);
    assert_eq!(doc(&ok)["client_stats"][0]["read"]["io_bytes"], 67_108_864);
}

/// Frames no fio client sends: each gets fio's error text and a close, no
/// hang, and the server keeps serving.
#[test]
fn hostile_frames_get_an_error_and_a_close() {
    let dir = TempDir::new("srv-hostile");
    dir.write("two.fio", TWO);
    let ours = rfio_server(&dir);
    let frame = |version: u16, op: u16, len: u32, payload: &[u8], break_crc: bool| {
        frame_of(version, op, 0, 0, len, payload, break_crc)
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (frame(97, 3, 4, b"[j]\n", true), "bad crc on command"),
        // rfio speaks fio 3.33's version to 3.42's (97 to 120), no other.
        (frame(96, 10, 0, b"", false), "bad server cmd version 96"),
        (frame(121, 10, 0, b"", false), "bad server cmd version 121"),
        (
            frame(97, 3, 5000, b"", false),
            "command payload too large: 5000",
        ),
        (frame(97, 30, 0, b"", false), "unknown opcode: UNKNOWN/30"),
        (frame(97, 6, 0, b"", false), "unknown opcode: TS"),
        // A header cut short, then nothing: the server sees the close.
        (frame(97, 3, 4, b"[j]\n", false)[..10].to_vec(), ""),
    ];
    for (bytes, want) in cases {
        let mut s = TcpStream::connect(("127.0.0.1", ours.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(&bytes).unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut got = Vec::new();
        let _ = s.read_to_end(&mut got);
        let text = String::from_utf8_lossy(&got);
        assert!(text.contains(want), "{want}: got {text:?}");
    }
    let ok = fio_client(&dir, ours.port, &["--output-format=json", "two.fio"]);
    assert_eq!(doc(&ok)["client_stats"][1]["write"]["io_bytes"], 67_108_864);
}

/// One frame, by hand: header fields as given (a CRC broken on request).
fn frame_of(
    version: u16,
    op: u16,
    flags: u32,
    tag: u64,
    len: u32,
    payload: &[u8],
    break_crc: bool,
) -> Vec<u8> {
    let mut h = vec![0u8; 24];
    h[0..2].copy_from_slice(&version.to_le_bytes());
    h[2..4].copy_from_slice(&op.to_le_bytes());
    h[4..8].copy_from_slice(&flags.to_le_bytes());
    h[8..16].copy_from_slice(&tag.to_le_bytes());
    h[16..20].copy_from_slice(&len.to_le_bytes());
    let crc = crc16(&h[..20]) ^ u16::from(break_crc);
    h[20..22].copy_from_slice(&crc.to_le_bytes());
    h[22..24].copy_from_slice(&crc16(payload).to_le_bytes());
    h.extend_from_slice(payload);
    h
}

/// A JOB body as fio's client sends it (its text, without fio's slack).
fn job_body(text: &[u8]) -> Vec<u8> {
    let mut job = Vec::new();
    job.extend((text.len() as u32).to_le_bytes());
    job.extend(1u32.to_le_bytes());
    job.extend(text);
    job
}

/// Read messages until QUIT: (version, opcode, body) of each.
fn read_messages(s: &mut TcpStream) -> Vec<(u16, u16, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some((version, op, _, body)) = read_message(s) {
        out.push((version, op, body));
        if op == 1 {
            break;
        }
    }
    out
}

/// A client that leaves mid-run stops its jobs; the server serves the next.
#[test]
fn a_client_leaving_mid_run_stops_its_jobs() {
    let dir = TempDir::new("srv-leave");
    dir.write(
        "long.fio",
        "[long]\nioengine=null\nsize=1g\ntime_based\nruntime=60\n",
    );
    dir.write("two.fio", TWO);
    let ours = rfio_server(&dir);
    let mut client = Running::start(
        Command::new(real_fio())
            .current_dir(&dir.0)
            .arg(format!("--client=127.0.0.1,{}", ours.port))
            .arg("long.fio"),
    );
    client.wait_for_stdout("the job starting", Duration::from_secs(20), |o| {
        o.contains("Starting 1 process")
    });
    client.signal(libc::SIGKILL);
    let _ = client.finish(Duration::from_secs(10), "SIGKILL");
    let t = Instant::now();
    let ok = fio_client(&dir, ours.port, &["--output-format=json", "two.fio"]);
    assert_eq!(doc(&ok)["client_stats"][0]["read"]["io_bytes"], 67_108_864);
    assert!(t.elapsed() < Duration::from_secs(30));
}

/// `--server-allow`: a client outside the networks is turned away before
/// the server reads anything, with a reason the fio client prints.
#[test]
fn clients_outside_the_allow_list_are_refused() {
    let dir = TempDir::new("srv-allow");
    dir.write("two.fio", TWO);
    let closed = server_in(RFIO, &dir, &["--server-allow=10.0.0.0/8"], &[]);
    let r = fio_client(&dir, closed.port, &["two.fio"]);
    assert!(
        stdout(&r).contains("client 127.0.0.1 is not allowed by --server-allow"),
        "{}",
        stdout(&r)
    );
    assert!(!stdout(&r).contains("job1: (groupid"));
    let open = server_in(RFIO, &dir, &["--server-allow=127.0.0.0/8,::1"], &[]);
    let ok = fio_client(&dir, open.port, &["--output-format=json", "two.fio"]);
    assert_eq!(doc(&ok)["client_stats"][0]["read"]["io_bytes"], 67_108_864);
}

/// `RFIO_SERVER_TOKEN`: the job file carries the token in a comment that
/// fio's client expands from its environment.
#[test]
fn a_token_is_required_when_the_server_has_one() {
    let dir = TempDir::new("srv-token");
    let job = format!("# rfio-token: ${{RFIO_SERVER_TOKEN}}\n{TWO}");
    dir.write("two.fio", &job);
    let s = server_in(RFIO, &dir, &[], &[("RFIO_SERVER_TOKEN", "s3cret")]);
    let none = fio_client(&dir, s.port, &["two.fio"]);
    assert!(
        stdout(&none).contains("requires a token"),
        "{}",
        stdout(&none)
    );
    assert!(!stdout(&none).contains("job1: (groupid"));
    let wrong = fio_client_env(
        &dir,
        s.port,
        &["two.fio"],
        &[("RFIO_SERVER_TOKEN", "guess")],
    );
    assert!(stdout(&wrong).contains("requires a token"));
    let right = fio_client_env(
        &dir,
        s.port,
        &["--output-format=json", "two.fio"],
        &[("RFIO_SERVER_TOKEN", "s3cret")],
    );
    assert_eq!(
        doc(&right)["client_stats"][0]["read"]["io_bytes"],
        67_108_864
    );
}

/// `--server-jail`: commands and files outside the directory are refused
/// before any job runs; a job inside it runs there.
#[test]
fn the_jail_refuses_commands_and_outside_files() {
    let dir = TempDir::new("srv-jail");
    std::fs::create_dir_all(dir.file("jail")).unwrap();
    let jail = dir.file("jail");
    let s = server_in(
        RFIO,
        &dir,
        &[&format!("--server-jail={}", jail.display())],
        &[],
    );
    let outside = dir.file("outside.dat");
    dir.write(
        "prerun.fio",
        "[j]\nioengine=null\nsize=1m\nexec_prerun=touch pwned\n",
    );
    dir.write(
        "escape.fio",
        &format!(
            "[j]\nioengine=psync\nrw=write\nsize=1m\nfilename={}\n",
            outside.display()
        ),
    );
    dir.write(
        "dots.fio",
        "[j]\nioengine=psync\nrw=write\nsize=1m\nfilename=../x.dat\n",
    );
    dir.write(
        "inside.fio",
        "[j]\nioengine=psync\nrw=write\nsize=1m\nfilename=in.dat\n",
    );
    let p = fio_client(&dir, s.port, &["prerun.fio"]);
    assert!(
        stdout(&p).contains("exec_prerun runs a command; refused in the jail"),
        "{}",
        stdout(&p)
    );
    assert!(!dir.file("jail/pwned").exists() && !dir.file("pwned").exists());
    for f in ["escape.fio", "dots.fio"] {
        let o = fio_client(&dir, s.port, &[f]);
        assert!(
            stdout(&o).contains("is outside the jail"),
            "{f}: {}",
            stdout(&o)
        );
    }
    assert!(!outside.exists() && !dir.file("x.dat").exists());
    let ok = fio_client(&dir, s.port, &["--output-format=json", "inside.fio"]);
    assert_eq!(doc(&ok)["client_stats"][0]["write"]["io_bytes"], 1 << 20);
    assert_eq!(
        std::fs::metadata(dir.file("jail/in.dat")).unwrap().len(),
        1 << 20
    );
}

/// Every refusal of the server's rules (allow-list, token, jail: an
/// `include`, a command, a file outside) ends as fio's server ends a failed
/// run, STOP with an error then QUIT: fio's client and rfio's print the
/// reason and `exited with error 1`, and exit 1 (they once exited 0 on
/// the first three, as for a run that went well).
#[test]
fn every_refusal_makes_both_clients_exit_non_zero() {
    let dir = TempDir::new("srv-refusals");
    std::fs::create_dir_all(dir.file("jail")).unwrap();
    let jail = format!("--server-jail={}", dir.file("jail").display());
    dir.write("ok.fio", "[j]\nioengine=null\nsize=1m\n");
    dir.write("inc.fio", "[x]\ninclude\t/etc/passwd\n");
    dir.write(
        "prerun.fio",
        "[j]\nioengine=null\nsize=1m\nexec_prerun=touch pwned\n",
    );
    dir.write(
        "out.fio",
        "[j]\nioengine=psync\nrw=write\nsize=64k\nfilename=../x.dat\n",
    );
    let closed = server_in(RFIO, &dir, &["--server-allow=10.0.0.0/8"], &[]);
    let token = server_in(RFIO, &dir, &[], &[("RFIO_SERVER_TOKEN", "s3cret")]);
    let jailed = server_in(RFIO, &dir, &[&jail], &[]);
    let cases = [
        (
            closed.port,
            "ok.fio",
            "client 127.0.0.1 is not allowed by --server-allow\n",
        ),
        (token.port, "ok.fio", "this server requires a token"),
        (jailed.port, "inc.fio", "include is refused in the jail"),
        (
            jailed.port,
            "prerun.fio",
            "exec_prerun runs a command; refused in the jail",
        ),
        (
            jailed.port,
            "out.fio",
            "filename=../x.dat is outside the jail",
        ),
    ];
    for (port, job, why) in cases {
        for bin in [real_fio(), RFIO] {
            let mut cmd = Command::new(bin);
            cmd.current_dir(&dir.0)
                .arg(format!("--client=127.0.0.1,{port}"))
                .arg(job);
            let (o, timed_out) = common::output_within(&mut cmd, Duration::from_secs(60));
            assert!(!timed_out, "{bin} {job}: timed out");
            let text = stdout(&o);
            assert_eq!(o.status.code(), Some(1), "{bin} {job}: {text}");
            assert!(text.contains(why), "{bin} {job}: {text}");
            assert!(
                text.contains("client <127.0.0.1>: exited with error 1\n"),
                "{bin} {job}: {text}"
            );
        }
    }
    assert!(!dir.file("jail/pwned").exists() && !dir.file("x.dat").exists());
}

/// Called as `fio`, the server listens where fio's does and says it is
/// unauthenticated; as `rfio`, on loopback only.
#[test]
fn the_default_address_and_the_warning() {
    let dir = TempDir::new("srv-default");
    let link = dir.file("fio");
    std::os::unix::fs::symlink(RFIO, &link).unwrap();
    let port = free_port();
    let mut as_fio = Running::start(
        Command::new(&link)
            .current_dir(&dir.0)
            .arg(format!("--server=,{port}")),
    );
    as_fio.wait_for_stdout("listening", Duration::from_secs(20), |o| {
        o.contains(&format!("fio: server listening on 0.0.0.0,{port}"))
    });
    as_fio.signal(libc::SIGTERM);
    let out = as_fio.finish(Duration::from_secs(10), "SIGTERM");
    assert!(stderr(&out).contains("unauthenticated"), "{}", stderr(&out));
    let port = free_port();
    let mut ours = Running::start(
        Command::new(RFIO)
            .current_dir(&dir.0)
            .arg(format!("--server=,{port}")),
    );
    ours.wait_for_stdout("listening", Duration::from_secs(20), |o| {
        o.contains(&format!("fio: server listening on 127.0.0.1,{port}"))
    });
}

/// A running job: the client's ETA requests are answered (its status line
/// shows the job), and `--status-interval` brings interim reports, as from
/// fio's server.
#[test]
fn eta_and_interim_reports_while_jobs_run() {
    let dir = TempDir::new("srv-eta");
    dir.write(
        "t.fio",
        "[t]\nioengine=null\nsize=1g\ntime_based\nruntime=2\nrate_iops=1000\n",
    );
    let ours = rfio_server(&dir);
    let o = fio_client(&dir, ours.port, &["--eta=always", "t.fio"]);
    let text = stdout(&o);
    // The status line is made from the ETA replies: one job running, one
    // file open, the job's rate limit.
    assert!(text.contains("Jobs: 1 (f=1), 0-1000 IOPS"), "{text}");
    assert!(!text.contains("timeout on SEND_ETA"), "{text}");
    let o = fio_client(
        &dir,
        ours.port,
        &["--status-interval=1", "--output-format=json", "t.fio"],
    );
    let d = doc(&o);
    let stats = d["client_stats"].as_array().unwrap();
    // Interim reports at about 1 s, then the final one: 2,000 I/Os at
    // 1,000 IOPS over 2 s (the rate allows one more at the start).
    assert!(stats.len() >= 2, "{d:#}");
    let last = stats.last().unwrap()["read"]["total_ios"].as_u64().unwrap();
    assert!((1990..=2001).contains(&last), "{last}");
    let first = stats[0]["read"]["total_ios"].as_u64().unwrap();
    assert!(first < last, "{first} then {last}");
}

/// What fio 3.42's client sent (recorded: tests/fixtures/wire), replayed
/// to an rfio server: it answers in fio 3.42's version (120) and layouts,
/// which fio 3.33's server cannot (it requires its own version).
#[test]
fn a_fio_3_42_client_gets_fio_3_42_layouts() {
    let dir = TempDir::new("srv-342");
    let ours = rfio_server(&dir);
    let rec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wire/fio-3.42/two-json");
    let mut sent: Vec<(u16, Vec<u8>)> = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&rec)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("-c2s-") && !n.contains("SEND_ETA"))
        .collect();
    names.sort();
    for n in &names {
        let op = match n.split('-').nth(2).unwrap().trim_end_matches(".bin") {
            "PROBE" => 10,
            "JOBLINE" => 4,
            "JOB" => 3,
            "RUN" => 16,
            other => panic!("unexpected {other}"),
        };
        sent.push((op, std::fs::read(rec.join(n)).unwrap()));
    }
    assert_eq!(sent.iter().map(|m| m.0).collect::<Vec<_>>(), [10, 4, 3, 16]);
    let mut s = TcpStream::connect(("127.0.0.1", ours.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    for (op, body) in &sent {
        s.write_all(&message(120, *op, 7, body)).unwrap();
    }
    let got = read_messages(&mut s);
    assert!(got.iter().all(|m| m.0 == 120), "every reply in version 120");
    let ts: Vec<usize> = got.iter().filter(|m| m.1 == 6).map(|m| m.2.len()).collect();
    // fio 3.42's thread_stat with its group totals.
    assert_eq!(ts, [184_072, 184_072]);
    let start = got.iter().rfind(|m| m.1 == 11).unwrap();
    assert_eq!(start.2, [2, 0, 0, 0, 2, 0, 0, 0]);
    let stop = got.iter().find(|m| m.1 == 12).unwrap();
    assert_eq!(stop.2, [0; 8]);
    // job1's io_bytes[0], at 150,832 in 3.36 and later layouts.
    let job1 = &got.iter().find(|m| m.1 == 6).unwrap().2;
    let io = u64::from_le_bytes(job1[150_832..150_840].try_into().unwrap());
    assert_eq!(io, 64 << 20);
}

/// `sock:PATH` (a Unix socket only this user may use) and `ip6:`.
#[test]
fn unix_and_ipv6_addresses() {
    let dir = TempDir::new("srv-addr");
    dir.write("two.fio", TWO);
    let path = dir.file("s.sock");
    let mut unix = Running::start(
        Command::new(RFIO)
            .current_dir(&dir.0)
            .arg(format!("--server=sock:{}", path.display())),
    );
    unix.wait_for_stdout("listening", Duration::from_secs(20), |o| {
        o.contains("server listening on")
    });
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let mut cmd = Command::new(real_fio());
    cmd.current_dir(&dir.0)
        .arg(format!("--client=sock:{}", path.display()))
        .args(["--output-format=json", "two.fio"]);
    let (o, timed_out) = common::output_within(&mut cmd, Duration::from_secs(60));
    assert!(!timed_out);
    assert_eq!(doc(&o)["client_stats"][0]["read"]["io_bytes"], 67_108_864);
    if std::net::TcpListener::bind("[::1]:0").is_ok() {
        let port = free_port();
        let mut v6 = Running::start(
            Command::new(RFIO)
                .current_dir(&dir.0)
                .arg(format!("--server=ip6:::1,{port}")),
        );
        v6.wait_for_stdout("listening", Duration::from_secs(20), |o| {
            o.contains(&format!("server listening on ::1,{port}"))
        });
        let mut cmd = Command::new(real_fio());
        cmd.current_dir(&dir.0)
            .arg(format!("--client=ip6:::1,{port}"))
            .args(["--output-format=json", "two.fio"]);
        let (o, _) = common::output_within(&mut cmd, Duration::from_secs(60));
        assert_eq!(doc(&o)["client_stats"][1]["write"]["io_bytes"], 67_108_864);
    }
}

/// `--daemonize=PIDFILE`: the server detaches, the pid file names it, and
/// a second one refuses the live pid file.
#[test]
fn daemonize_writes_the_pid_file() {
    let dir = TempDir::new("srv-daemon");
    dir.write("two.fio", TWO);
    let port = free_port();
    let pidfile = dir.file("srv.pid");
    let start = |port: u16| {
        let mut cmd = Command::new(RFIO);
        cmd.current_dir(&dir.0).args([
            format!("--server=ip:127.0.0.1,{port}"),
            format!("--daemonize={}", pidfile.display()),
        ]);
        common::output_within(&mut cmd, Duration::from_secs(20)).0
    };
    let o = start(port);
    assert!(o.status.success(), "{}", stderr(&o));
    let pid: libc::pid_t = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    struct Kill(libc::pid_t);
    impl Drop for Kill {
        fn drop(&mut self) {
            // SAFETY: kill(2) takes no pointers; the pid is the daemon this
            // test started.
            unsafe { libc::kill(self.0, libc::SIGKILL) };
        }
    }
    let _kill = Kill(pid);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the daemon never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ok = fio_client(&dir, port, &["--output-format=json", "two.fio"]);
    assert_eq!(doc(&ok)["client_stats"][0]["read"]["io_bytes"], 67_108_864);
    let again = start(free_port());
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("names a running process"),
        "{}",
        stderr(&again)
    );
}

/// A job's logs go to the client (IOLOG), which writes them as
/// `NAME.HOST`, as from fio's server; none stays on the server.
#[test]
fn logs_go_to_the_client() {
    let dir = TempDir::new("srv-logs");
    let job = "[global]\nioengine=null\nsize=16m\nwrite_bw_log=bwl\nwrite_lat_log=lat\n\
               log_offset=1\nlog_avg_msec=100\nrate_iops=2000\nruntime=1\ntime_based\n[j]\n";
    dir.write("bwlog.fio", job);
    std::fs::create_dir_all(dir.file("client")).unwrap();
    let ours = rfio_server(&dir);
    let mut cmd = Command::new(real_fio());
    cmd.current_dir(dir.file("client"))
        .arg(format!("--client=127.0.0.1,{}", ours.port))
        .args(["--output-format=json", "../bwlog.fio"]);
    let (o, _) = common::output_within(&mut cmd, Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    let bw = std::fs::read_to_string(dir.file("client/bwl_bw.1.log.127.0.0.1")).unwrap();
    let lines: Vec<&str> = bw.lines().collect();
    assert!((5..=11).contains(&lines.len()), "{bw}");
    for l in &lines {
        let f: Vec<&str> = l.split(", ").collect();
        // time, value, read, bs 0, offset 0 (log_offset), priority 0.
        assert_eq!(&f[2..], ["0", "0", "0", "0"], "{l}");
    }
    // Latencies averaged over the same windows, with the offset column.
    let lat = std::fs::read_to_string(dir.file("client/lat_lat.1.log.127.0.0.1")).unwrap();
    assert!((5..=11).contains(&lat.lines().count()), "{lat}");
    assert!(lat.lines().all(|l| l.split(", ").count() == 6), "{lat}");
    assert!(!dir.file("bwl_bw.1.log").exists() && !dir.file("lat_lat.1.log").exists());
}

/// `unique_filename` (on by default) puts the server's address of the
/// connection before every name joined with `directory=` (given or
/// generated), as fio's server does.
#[test]
fn generated_file_names_carry_the_address() {
    let dir = TempDir::new("srv-unique");
    for d in ["ours", "theirs"] {
        std::fs::create_dir_all(dir.file(d)).unwrap();
    }
    let job = |d: &str| {
        format!(
            "[global]\nioengine=psync\nrw=write\nsize=64k\ndirectory={}\n[a]\n[b]\nunique_filename=0\n\
             [c]\nfilename=given.dat\n",
            dir.file(d).display()
        )
    };
    dir.write("ours.fio", &job("ours"));
    dir.write("theirs.fio", &job("theirs"));
    let (ours, theirs) = (rfio_server(&dir), fio_server(&dir));
    assert!(fio_client(&dir, ours.port, &["ours.fio"]).status.success());
    assert!(fio_client(&dir, theirs.port, &["theirs.fio"])
        .status
        .success());
    let names = |d: &str| {
        let mut v: Vec<String> = std::fs::read_dir(dir.file(d))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names("ours"),
        ["127.0.0.1.a.0.0", "127.0.0.1.given.dat", "b.0.0"]
    );
    assert_eq!(names("ours"), names("theirs"));
}

/// What a client without the token, or in a jail, could once have the
/// server echo back or write: the token itself (`${RFIO_SERVER_TOKEN}` in
/// an option name, whose parse error named it), a server file through an
/// `include` with a tab, a verify state through `--aux-path` outside the
/// jail (sent by hand: fio's client does not forward it). Each is refused
/// before it is parsed or run.
#[test]
fn nothing_leaks_before_the_token_or_out_of_the_jail() {
    let dir = TempDir::new("srv-leak");
    std::fs::create_dir_all(dir.file("jail")).unwrap();
    std::fs::create_dir_all(dir.file("outside")).unwrap();
    dir.write(
        "leak.fio",
        "[x]\nioengine=null\nsize=1m\nfoo${RFIO_SERVER_TOKEN}=1\n",
    );
    let s = server_in(RFIO, &dir, &[], &[("RFIO_SERVER_TOKEN", "s3cret")]);
    let o = fio_client(&dir, s.port, &["leak.fio"]);
    let text = stdout(&o);
    assert!(!text.contains("s3cret"), "{text}");
    assert!(text.contains("requires a token"), "{text}");
    // Carrying the token (sent by hand, `${...}` unexpanded as no fio
    // client sends it), the text is parsed with the server's environment,
    // which no longer holds the token: the variable is empty.
    let text = b"# rfio-token: s3cret\n[x]\nioengine=null\nsize=1m\nfoo${RFIO_SERVER_TOKEN}=1\n";
    let job = job_body(text);
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    c.write_all(&message(97, 3, 0, &job)).unwrap();
    let said: String = read_messages(&mut c)
        .iter()
        .filter(|m| m.1 == 5)
        .map(|m| String::from_utf8_lossy(&m.2[24..]).into_owned())
        .collect();
    assert!(said.contains("unknown option 'foo'"), "{said}");
    assert!(!said.contains("s3cret"), "{said}");

    let jail = dir.file("jail");
    let j = server_in(
        RFIO,
        &dir,
        &[&format!("--server-jail={}", jail.display())],
        &[],
    );
    dir.write("inc.fio", "[x]\ninclude\t/etc/passwd\n");
    let o = fio_client(&dir, j.port, &["inc.fio"]);
    assert!(!stdout(&o).contains("root:"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("include is refused in the jail"),
        "{}",
        stdout(&o)
    );

    // By hand: a JOBLINE with --aux-path outside the jail, a verify job.
    let mut line = Vec::new();
    line.extend(2u16.to_le_bytes());
    line.extend(1u16.to_le_bytes());
    let aux = format!("--aux-path={}", dir.file("outside").display());
    for a in ["fio", aux.as_str()] {
        line.extend((a.len() as u16 + 1).to_le_bytes());
        line.extend(a.as_bytes());
        line.push(0);
    }
    let text = b"[v]\nioengine=psync\nrw=write\nsize=64k\nverify=crc32c\nfilename=v.dat\n";
    let job = job_body(text);
    let mut c = TcpStream::connect(("127.0.0.1", j.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    for (op, body) in [(4u16, line), (3, job), (16, Vec::new())] {
        c.write_all(&message(97, op, 0, &body)).unwrap();
    }
    let got = read_messages(&mut c);
    let texts: String = got
        .iter()
        .filter(|m| m.1 == 5)
        .map(|m| String::from_utf8_lossy(&m.2[24..]).into_owned())
        .collect();
    assert!(texts.contains("is outside the jail"), "{texts}");
    assert_eq!(std::fs::read_dir(dir.file("outside")).unwrap().count(), 0);
    assert!(!dir.file("jail/v.dat").exists());
}

/// fio 3.39's client: with several servers the JSON `global options` is
/// one object per server (`hostname` and `port` first), and "All clients"
/// carries completion latency percentiles; fio 3.33's client merges the
/// global options into one object. rfio's servers and client, both as the
/// release (`t/client_server.py` of fio 3.42 checks the same).
#[test]
fn several_servers_json_follows_the_release() {
    let dir = TempDir::new("srv-globals");
    std::fs::write(dir.0.join("two.fio"), TWO).unwrap();
    for (release, per_server) in [("3.42", true), ("3.33", false)] {
        let env = [("RFIO_FIO_VERSION", release)];
        let a = server_in(RFIO, &dir, &[], &env);
        let b = server_in(RFIO, &dir, &[], &env);
        let mut cmd = Command::new(RFIO);
        cmd.current_dir(&dir.0)
            .env("RFIO_FIO_VERSION", release)
            .arg("--output-format=json")
            .arg(format!("--client=127.0.0.1,{}", a.port))
            .arg("two.fio")
            .arg(format!("--client=127.0.0.1,{}", b.port))
            .arg("two.fio");
        let (out, timed_out) = common::output_within(&mut cmd, Duration::from_secs(60));
        assert!(
            !timed_out && out.status.success(),
            "{}",
            common::stderr(&out)
        );
        // (the servers' job lines come first, as fio's client prints them)
        let text = stdout(&out);
        let json = &text[text.find("\n{").map_or(0, |i| i + 1)..];
        let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"));
        let globals = &v["global options"];
        if per_server {
            let list = globals
                .as_array()
                .unwrap_or_else(|| panic!("{release}: {globals}"));
            assert_eq!(list.len(), 2, "{release}: {globals}");
            for g in list {
                let keys: Vec<&String> = g.as_object().unwrap().keys().collect();
                assert_eq!(keys[..2], ["hostname", "port"], "{release}: {g}");
                assert_eq!(g["size"], "64m");
            }
        } else {
            assert_eq!(globals["size"], "64m", "{release}: {globals}");
        }
        let all = v["client_stats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["jobname"] == "All clients")
            .unwrap_or_else(|| panic!("{release}: no All clients entry"))
            .clone();
        // (as 3.33, rfio's aggregate has them too, where fio 3.33's has none)
        if per_server {
            let clat = &all["read"]["clat_ns"];
            assert!(clat.get("percentile").is_some(), "{release}: {clat}");
        }
    }
}
