//! `rfio --client`: rfio as fio's client, against real fio 3.33 servers on
//! loopback (compared with the real fio client against the same server),
//! against servers replaying the traffic recorded from fio 3.36 and 3.42
//! (`tests/fixtures/wire`), and against hostile servers. Every server is
//! started by its test on a port of its own and stopped with it; every run
//! is bounded in time.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::common::wire::{frame, message, read_message};
use super::common::{real_fio, run_limited, stderr, stdout, Running, TempDir, RFIO};

/// The null-engine file of the recordings: two jobs, 64 MiB each.
const TWO: &str =
    "[global]\nioengine=null\nsize=64m\nbs=4k\n\n[job1]\nrw=read\n\n[job2]\nrw=randwrite\n";
/// How long one client run may take.
const LIMIT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------- servers

/// A real `fio --server` on a loopback port, in a directory of its own;
/// stopped (its process group killed) on drop.
struct FioServer {
    _run: Running,
    port: u16,
    dir: TempDir,
}

impl FioServer {
    fn start() -> FioServer {
        FioServer::of(real_fio())
    }

    /// A server of `bin` (fio, or rfio).
    fn of(bin: &str) -> FioServer {
        let dir = TempDir::new("client-server");
        for _ in 0..20 {
            let port = free_port();
            let mut cmd = Command::new(bin);
            cmd.current_dir(&dir.0)
                .arg(format!("--server=ip:127.0.0.1,{port}"));
            let mut run = Running::start(&mut cmd);
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && !run.exited() {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return FioServer {
                        _run: run,
                        port,
                        dir,
                    };
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // The port was taken meanwhile: another one.
        }
        panic!("{bin} --server did not start");
    }

    fn arg(&self) -> String {
        format!("--client=127.0.0.1,{}", self.port)
    }
}

/// A port nobody listens on (for the moment).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Run `bin` (rfio or fio) in `dir` with `args`.
fn client(bin: &str, dir: &Path, args: &[&str]) -> Output {
    run_limited(bin, dir, args, LIMIT)
}

/// fio's client with `fio_args` and rfio's with `rfio_args`, at the same
/// time (a fio server serves each connection in a process of its own).
fn side_by_side(dir: &Path, fio_args: &[&str], rfio_args: &[&str]) -> (Output, Output) {
    std::thread::scope(|s| {
        let fio = s.spawn(|| client(real_fio(), dir, fio_args));
        let ours = client(RFIO, dir, rfio_args);
        (fio.join().expect("fio's client ran"), ours)
    })
}

fn json_of(o: &Output) -> Value {
    let text = stdout(o);
    assert!(
        text.starts_with("\n{"),
        "the document follows an empty line: {text:?}\nstderr: {}",
        stderr(o)
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("JSON: {e}\n{text}"))
}

// ------------------------------------------------------- fio's JSON, masked

/// The numeric values a run of two.fio always gives the same.
const STABLE: &[&str] = &[
    "groupid",
    "error",
    "io_bytes",
    "io_kbytes",
    "total_ios",
    "short_ios",
    "drop_ios",
    "port",
    "N",
    "latency_depth",
    "latency_target",
    "latency_window",
];

/// fio's pretty JSON line by line, each value that varies between runs
/// (times, rates, latencies) replaced by `#`: key order, duplicates and
/// the stable values stay.
fn masked(doc: &str) -> Vec<String> {
    doc.lines()
        .map(|l| {
            let Some((key, value)) = l.split_once("\" : ") else {
                return l.to_string();
            };
            let name = key.trim_start().trim_start_matches('"');
            let comma = if value.ends_with(',') { "," } else { "" };
            let v = value.trim_end_matches(',');
            let keep = if v.starts_with('"') {
                name != "time"
            } else if v.starts_with(['{', '[']) {
                true
            } else {
                STABLE.contains(&name)
            };
            if keep {
                l.to_string()
            } else {
                format!("{key}\" : #{comma}")
            }
        })
        .collect()
}

/// The masked lines of a JSON document: its lines outside `client_stats`,
/// then its blocks but "All clients", sorted (commas between elements
/// left out). With several servers the global options come in the order
/// the servers' messages arrive: they are sorted too.
fn blocks(lines: &[String]) -> Vec<String> {
    let mut rest = Vec::new();
    let mut found = Vec::new();
    let mut element: Vec<String> = Vec::new();
    let mut globals: Option<Vec<String>> = None;
    for l in lines {
        let l = l.trim_end_matches(',').to_string();
        if let Some(g) = globals.as_mut() {
            if l == "  }" {
                g.sort();
                rest.append(g);
                rest.push(l);
                globals = None;
            } else {
                g.push(l);
            }
            continue;
        }
        if l.starts_with("  \"global options\" : {") {
            rest.push(l);
            globals = Some(Vec::new());
            continue;
        }
        if l == "    {" || !element.is_empty() {
            element.push(l.clone());
            if l == "    }" {
                if !element
                    .iter()
                    .any(|e| e.contains("\"jobname\" : \"All clients\""))
                {
                    found.push(std::mem::take(&mut element));
                }
                element.clear();
            }
            continue;
        }
        rest.push(l);
    }
    found.sort();
    rest.extend(found.into_iter().flatten());
    rest
}

fn assert_same_lines(ours: &[String], fios: &[String], what: &str) {
    if ours != fios {
        let first = ours
            .iter()
            .zip(fios)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(fios.len()));
        panic!(
            "{what}: rfio and fio differ from line {} (rfio {} lines, fio {})\nrfio: {:?}\nfio:  {:?}",
            first + 1,
            ours.len(),
            fios.len(),
            ours.get(first..(first + 5).min(ours.len())),
            fios.get(first..(first + 5).min(fios.len()))
        );
    }
}

fn stats(v: &Value) -> &Vec<Value> {
    v["client_stats"].as_array().expect("client_stats")
}

fn names(v: &Value) -> Vec<&str> {
    stats(v)
        .iter()
        .map(|s| s["jobname"].as_str().unwrap_or("?"))
        .collect()
}

// ------------------------------------------------- against real fio servers

/// JSON: the same document as fio's client against the same server
/// (masked), "All clients" summed; as `rfio`, "All clients" also has the
/// percentiles fio 3.33 leaves out.
#[test]
fn json_is_fios_against_a_real_server() {
    let srv = FioServer::start();
    let dir = TempDir::new("client-json");
    dir.write("two.fio", TWO);
    let args = [srv.arg(), "--output-format=json".into(), "two.fio".into()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut as_fio = vec!["--compat=fio"];
    as_fio.extend(&args);
    let (fio, ours) = side_by_side(&dir.0, &args, &as_fio);
    assert_eq!(
        ours.status.code(),
        Some(0),
        "{}\n{}",
        stderr(&ours),
        stdout(&ours)
    );
    assert_eq!(fio.status.code(), Some(0), "{}", stderr(&fio));
    assert_eq!(stderr(&ours), "");
    assert_same_lines(&masked(&stdout(&ours)), &masked(&stdout(&fio)), "json");
    let v = json_of(&ours);
    assert_eq!(names(&v), ["job1", "job2", "All clients"]);
    let s = stats(&v);
    assert_eq!(s[0]["read"]["io_bytes"], 67_108_864);
    assert_eq!(s[1]["write"]["total_ios"], 16_384);
    assert_eq!(s[2]["read"]["io_bytes"], 67_108_864);
    assert_eq!(s[2]["write"]["io_bytes"], 67_108_864);
    assert_eq!(s[0]["job options"]["rw"], "read");
    assert_eq!(v["global options"]["size"], "64m");
    assert_eq!(s[2]["hostname"], "127.0.0.1");
    assert_eq!(s[2]["port"], srv.port);
    assert!(s[2]["read"]["clat_ns"].get("percentile").is_none());
    assert!(s[0].get("eta").is_none() && s[0].get("elapsed").is_none());

    // As rfio: the same, but "All clients" has its percentiles.
    let strict = client(RFIO, &dir.0, &args);
    assert_eq!(strict.status.code(), Some(0), "{}", stderr(&strict));
    let v = json_of(&strict);
    assert_eq!(names(&v), ["job1", "job2", "All clients"]);
    let all = &stats(&v)[2];
    assert!(all["read"]["clat_ns"]["percentile"].is_object(), "{all}");
    assert_eq!(all["write"]["total_ios"], 16_384);
}

/// A normal-output line with `#` for each number and its unit prefix
/// (`12.5GiB/s` → `#B/s`: rates and latencies vary between runs).
fn digits_masked(line: &str) -> String {
    let mut out = String::new();
    let mut in_num = false;
    for c in line.chars() {
        if c.is_ascii_digit() || (in_num && (c == '.' || "kKMGTPEi".contains(c))) {
            if !in_num {
                out.push('#');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(c);
        }
    }
    out
}

/// The lines of a normal report whose shape does not depend on timing:
/// the server's lines, each block's heading and direction lines, the I/O
/// counts, the group totals.
fn normal_skeleton(text: &str) -> Vec<String> {
    text.split(['\n', '\r'])
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("    ")
                && !l.starts_with("  lat (")
                && !l.starts_with("   bw ")
                && !l.starts_with("   iops ")
                && !l.starts_with("Jobs:")
        })
        .map(|l| {
            if l.starts_with("     issued rwts") {
                l.to_string()
            } else {
                digits_masked(l).replace("# ", "#")
            }
        })
        .collect()
}

/// Normal and terse output: fio's line structure (`hostname=` line,
/// `<host>` lines, blocks, group totals, "All clients" without units) and
/// terse fields in their places.
#[test]
fn normal_and_terse_are_fios_against_a_real_server() {
    let srv = FioServer::start();
    let dir = TempDir::new("client-text");
    dir.write("two.fio", TWO);
    let server = srv.arg();
    let (fio, ours) = side_by_side(
        &dir.0,
        &[&server, "two.fio"],
        &["--compat=fio", &server, "two.fio"],
    );
    assert_eq!(
        ours.status.code(),
        Some(0),
        "{}\n{}",
        stderr(&ours),
        stdout(&ours)
    );
    let (o, f) = (stdout(&ours), stdout(&fio));
    assert_same_lines(&normal_skeleton(&o), &normal_skeleton(&f), "normal");
    assert!(o.starts_with("hostname="), "{o}");
    assert!(o.contains("\n<"), "{o}");
    assert!(
        o.contains("\nAll clients: (groupid=0, jobs=2): err= 0: pid=0: "),
        "{o}"
    );
    let all = &o[o.find("All clients").unwrap()..];
    assert!(
        all.contains("  read: IOPS=") && !all.contains("B/s"),
        "{all}"
    );
    assert!(o.contains("issued rwts: total=16384,16384,0,0"), "{o}");

    let strict = client(RFIO, &dir.0, &[&server, "two.fio"]);
    let s = stdout(&strict);
    let all = &s[s.find("All clients").expect("All clients")..];
    assert!(
        all.contains("B/s") && all.contains("clat percentiles"),
        "{all}"
    );

    for v in ["2", "3", "4", "5"] {
        let tv = format!("--terse-version={v}");
        let a = [&server, "--output-format=terse", tv.as_str(), "two.fio"];
        let mut b = vec!["--compat=fio"];
        b.extend(a);
        let (fio, ours) = side_by_side(&dir.0, &a, &b);
        let lines = |o: &Output| -> Vec<Vec<String>> {
            stdout(o)
                .split(['\n', '\r'])
                .filter(|l| l.contains(';'))
                .map(|l| l.split(';').map(str::to_string).collect())
                .collect()
        };
        let (ol, fl) = (lines(&ours), lines(&fio));
        assert_eq!(ol.len(), 3, "terse v{v}: {}", stdout(&ours));
        assert_eq!(ol.len(), fl.len(), "terse v{v}");
        let (name_at, head) = if v == "2" { (1, 5) } else { (2, 6) };
        for (a, b) in ol.iter().zip(&fl) {
            assert_eq!(a.len(), b.len(), "terse v{v}: field counts\n{a:?}\n{b:?}");
            assert_eq!(
                a[..head],
                b[..head],
                "terse v{v}\n{}\n{}",
                stdout(&ours),
                stdout(&fio)
            );
            // Percentile labels (`1.000000%=`, or fio's `0%=` in "All
            // clients") in the same places.
            for (x, y) in a.iter().zip(b) {
                assert_eq!(x.contains("%="), y.contains("%="), "terse v{v}: {x} / {y}");
                if x.contains("%=") {
                    assert_eq!(x.split('=').next(), y.split('=').next(), "terse v{v}");
                }
            }
        }
        assert_eq!(ol[2][name_at], "All clients");
    }
}

/// psync on a file, numjobs=2 with group_reporting: one block of two
/// jobs, no "All clients" (one statistics output); two job files for one
/// server: both run (no "All clients": fio counts 1 + 2 outputs).
#[test]
fn psync_group_reporting_and_two_job_files() {
    let srv = FioServer::start();
    let dir = TempDir::new("client-psync");
    let data = TempDir::new("client-psync-data");
    dir.write(
        "g.fio",
        &format!(
            "[g]\nioengine=psync\nrw=write\nbs=4k\nsize=1m\nnumjobs=2\ngroup_reporting\ndirectory={}\n",
            data.0.display()
        ),
    );
    dir.write("a.fio", "[a]\nioengine=null\nsize=1m\n");
    dir.write("b.fio", "[b]\nioengine=null\nsize=2m\nrw=write\n");
    let server = srv.arg();
    for (args, want) in [
        (
            vec![&server as &str, "--output-format=json", "g.fio"],
            vec!["g"],
        ),
        (
            vec![&server as &str, "a.fio", "b.fio", "--output-format=json"],
            vec!["a", "b"],
        ),
    ] {
        let fio = client(real_fio(), &dir.0, &args);
        let ours = client(RFIO, &dir.0, &args);
        assert_eq!(
            ours.status.code(),
            Some(0),
            "{}\n{}",
            stderr(&ours),
            stdout(&ours)
        );
        assert_same_lines(
            &masked(&stdout(&ours)),
            &masked(&stdout(&fio)),
            &args.join(" "),
        );
        let v = json_of(&ours);
        assert_eq!(names(&v), want);
    }
    let v = json_of(&client(
        RFIO,
        &dir.0,
        &[&server, "--output-format=json", "g.fio"],
    ));
    let g = &stats(&v)[0];
    assert_eq!(g["write"]["io_bytes"], 2 << 20, "{v}");
    assert_eq!(g["write"]["total_ios"], 512);
}

/// Several real servers, one client: each server's blocks, and "All
/// clients" the sum of them all.
#[test]
fn two_and_eight_servers_sum_into_all_clients() {
    let dir = TempDir::new("client-many");
    dir.write("two.fio", TWO);
    for n in [2usize, 8] {
        let servers: Vec<FioServer> = (0..n).map(|_| FioServer::start()).collect();
        let mut args: Vec<String> = servers.iter().map(FioServer::arg).collect();
        args.extend(["--output-format=json".to_string(), "two.fio".to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ours = client(RFIO, &dir.0, &args);
        assert_eq!(
            ours.status.code(),
            Some(0),
            "{}\n{}",
            stderr(&ours),
            stdout(&ours)
        );
        let v = json_of(&ours);
        let s = stats(&v);
        assert_eq!(s.len(), 2 * n + 1, "{:?}", names(&v));
        assert_eq!(s[2 * n]["jobname"], "All clients");
        let sum = |d: &str, key: &str| -> u64 {
            s[..2 * n].iter().map(|x| x[d][key].as_u64().unwrap()).sum()
        };
        for d in ["read", "write"] {
            assert_eq!(sum(d, "io_bytes"), (n as u64) << 26);
            assert_eq!(s[2 * n][d]["io_bytes"].as_u64(), Some(sum(d, "io_bytes")));
            assert_eq!(s[2 * n][d]["total_ios"].as_u64(), Some(sum(d, "total_ios")));
        }
        let mut ports: Vec<u64> = s[..2 * n]
            .iter()
            .map(|x| x["port"].as_u64().unwrap())
            .collect();
        ports.sort_unstable();
        ports.dedup();
        assert_eq!(ports.len(), n);
        if n == 2 {
            // The same blocks as fio's client prints, both servers' global
            // options in one object (duplicate keys, fio 3.33). The blocks
            // come in arrival order, and fio prints "All clients" once or
            // twice (twice when a server's START comes after the other's
            // blocks): the servers' blocks compared as a set.
            let fio = client(real_fio(), &dir.0, &args);
            assert_same_lines(
                &blocks(&masked(&stdout(&ours))),
                &blocks(&masked(&stdout(&fio))),
                "two servers",
            );
            assert!(stdout(&fio).contains("\"All clients\""));
            assert_eq!(stdout(&ours).matches("\"ioengine\" : \"null\"").count(), 2);
        }
    }
}

// ------------------------------------------------------ fio's wire, by hand

const QUIT: u16 = 1;
const JOB: u16 = 3;
const TEXT: u16 = 5;
const PROBE: u16 = 10;
const START: u16 = 11;
const STOP: u16 = 12;
const SERVER_START: u16 = 14;
const RUN: u16 = 16;
const IOLOG: u16 = 17;
const SENDFILE: u16 = 21;
const JOB_OPT: u16 = 22;

/// A fake server on a loopback port: `serve` gets each accepted
/// connection (with its index) until it returns false.
struct FakeServer {
    port: u16,
    thread: Option<JoinHandle<Vec<String>>>,
}

impl FakeServer {
    fn start(
        serve: impl FnMut(usize, TcpStream, &mut Vec<String>) -> bool + Send + 'static,
    ) -> FakeServer {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let mut serve = serve;
        let thread = std::thread::spawn(move || {
            let mut notes = Vec::new();
            for (i, s) in l.incoming().enumerate() {
                let Ok(s) = s else { break };
                s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                if !serve(i, s, &mut notes) {
                    break;
                }
            }
            notes
        });
        FakeServer {
            port,
            thread: Some(thread),
        }
    }

    fn arg(&self) -> String {
        format!("--client=127.0.0.1,{}", self.port)
    }

    /// What the server noted, once it is done.
    fn notes(mut self) -> Vec<String> {
        self.thread.take().unwrap().join().unwrap()
    }
}

/// Read what a client sends up to its RUN; the PROBE's version and tag.
fn until_run(s: &mut TcpStream) -> (u16, u64) {
    let mut probe = (0, 0);
    while let Some((v, op, tag, _)) = read_message(s) {
        if op == PROBE {
            probe = (v, tag);
        }
        if op == RUN {
            break;
        }
    }
    probe
}

/// A 112-byte PROBE reply for host `vm`.
fn probe_reply(version_str: &str) -> Vec<u8> {
    let mut b = vec![0u8; 112];
    b[..2].copy_from_slice(b"vm");
    b[65..65 + version_str.len()].copy_from_slice(version_str.as_bytes());
    b[97] = 1;
    b[98] = 1;
    b[99] = 8;
    b[100] = 2;
    b[104] = 1;
    b
}

fn u32s(a: u32, b: u32) -> Vec<u8> {
    let mut v = a.to_le_bytes().to_vec();
    v.extend(b.to_le_bytes());
    v
}

/// The arguments of a JOBLINE body (checked record by record).
fn jobline_args(b: &[u8]) -> Vec<String> {
    let lines = u16::from_le_bytes([b[0], b[1]]);
    assert_eq!(u16::from_le_bytes([b[2], b[3]]), 1, "client type");
    let mut at = 4;
    let mut out = Vec::new();
    for _ in 0..lines {
        let len = usize::from(u16::from_le_bytes([b[at], b[at + 1]]));
        let text = &b[at + 2..at + 2 + len];
        assert_eq!(text.last(), Some(&0), "NUL-terminated");
        out.push(String::from_utf8_lossy(&text[..len - 1]).into_owned());
        at += 2 + len;
    }
    assert_eq!(at, b.len());
    out
}

/// Drain the client until it closes (it sends nothing after our QUIT but
/// may have a SEND_ETA on the way).
fn drain(s: &mut TcpStream) {
    while read_message(s).is_some() {}
}

// --------------------------------------------- recorded servers, replayed

/// The recorded messages of `dir` from the server, in order: opcode name
/// and body.
fn recorded(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.to_str()
                .is_some_and(|s| s.ends_with(".bin") && s.contains("-s2c-"))
        })
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_str().unwrap();
            let op = name.split("-s2c-").nth(1).unwrap().to_string();
            (op, std::fs::read(p).unwrap())
        })
        .collect()
}

fn opcode(name: &str) -> u16 {
    const NAMES: [&str; 22] = [
        "QUIT",
        "EXIT",
        "JOB",
        "JOBLINE",
        "TEXT",
        "TS",
        "GS",
        "SEND_ETA",
        "ETA",
        "PROBE",
        "START",
        "STOP",
        "DU",
        "SERVER_START",
        "ADD_JOB",
        "RUN",
        "IOLOG",
        "UPDATE_JOB",
        "LOAD_FILE",
        "VTRIGGER",
        "SENDFILE",
        "JOB_OPT",
    ];
    NAMES.iter().position(|n| *n == name).unwrap() as u16 + 1
}

/// A server that answers as the recorded one of `tag` (fio 3.36: wire
/// 101, 3.42: 120): a first frame in another version gets fio's TEXT and a
/// close; then the recorded messages, the PROBE reply with the client's
/// tag (the recorded ETAs are left out: no SEND_ETA of ours asked for
/// them).
fn replaying(tag: &str, version: u16) -> FakeServer {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wire")
        .join(tag)
        .join("two-json");
    let msgs = recorded(&dir);
    FakeServer::start(move |_, mut s, notes| {
        let Some((v, op, probe_tag, _)) = read_message(&mut s) else {
            return true;
        };
        if v != version {
            notes.push(format!("first frame in {v}"));
            let text = format!("fio: bad server cmd version {v}\n");
            let mut body = u32s(3, text.len() as u32);
            body.extend([0u8; 16]);
            body.extend(text.as_bytes());
            let _ = s.write_all(&message(version, TEXT, 0, &body));
            return true;
        }
        assert_eq!(op, PROBE, "the client speaks first, with a PROBE");
        notes.push(format!("served in {v}"));
        until_run(&mut s);
        for (op, body) in &msgs {
            let tag = match op.as_str() {
                "ETA" => continue,
                "PROBE" => probe_tag,
                _ => 0,
            };
            let _ = s.write_all(&message(version, opcode(op), tag, body));
        }
        drain(&mut s);
        false
    })
}

/// The values of a client_stats entry that depend only on the bytes the
/// server sent.
fn decoded_fields(s: &Value) -> Vec<(String, Value)> {
    let mut out = vec![
        ("jobname".to_string(), s["jobname"].clone()),
        ("groupid".into(), s["groupid"].clone()),
        ("error".into(), s["error"].clone()),
        (
            "job options".into(),
            s.get("job options").cloned().unwrap_or(Value::Null),
        ),
        ("hostname".into(), s["hostname"].clone()),
    ];
    for d in ["read", "write", "trim"] {
        for k in [
            "io_bytes",
            "io_kbytes",
            "bw_bytes",
            "bw",
            "iops",
            "runtime",
            "total_ios",
        ] {
            out.push((format!("{d}.{k}"), s[d][k].clone()));
        }
        for l in ["slat_ns", "clat_ns", "lat_ns"] {
            for k in ["min", "max", "mean", "stddev", "N", "percentile"] {
                out.push((
                    format!("{d}.{l}.{k}"),
                    s[d][l].get(k).cloned().unwrap_or(Value::Null),
                ));
            }
        }
    }
    for k in ["job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf"] {
        out.push((k.to_string(), s[k].clone()));
    }
    for k in ["iodepth_level", "latency_ns", "latency_us", "latency_ms"] {
        out.push((k.to_string(), s[k].clone()));
    }
    out
}

/// The JSON fio `tag`'s own client printed of the recorded `two-json`
/// session.
fn recorded_client_json(tag: &str) -> Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/wire")
            .join(tag)
            .join("two-json/client.stdout"),
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// rfio's client against servers replaying fio 3.36 and 3.42: it starts
/// in fio 3.33's version, is told off, reconnects in the server's, and
/// prints what the recorded fio client printed.
#[test]
fn recorded_newer_servers_decode_as_their_own_clients_printed() {
    for (tag, version) in [("fio-3.36", 101u16), ("fio-3.42", 120)] {
        let srv = replaying(tag, version);
        let dir = TempDir::new("client-replay");
        dir.write("two.fio", TWO);
        let out = client(
            RFIO,
            &dir.0,
            &[&srv.arg(), "--output-format=json", "two.fio"],
        );
        assert_eq!(out.status.code(), Some(0), "{tag}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{tag}");
        assert_eq!(
            srv.notes(),
            ["first frame in 97", &format!("served in {version}")]
        );
        let ours = json_of(&out);
        let rec = recorded_client_json(tag);
        assert_eq!(names(&ours), names(&rec), "{tag}");
        assert_eq!(ours["global options"], rec["global options"], "{tag}");
        for (a, b) in stats(&ours).iter().zip(stats(&rec)) {
            let (fa, fb) = (decoded_fields(a), decoded_fields(b));
            for ((k, x), (_, y)) in fa.iter().zip(&fb) {
                // fio 3.36's "All clients" has no percentiles (3.39+ and
                // rfio add them).
                if k.ends_with("percentile") && y.is_null() && b["jobname"] == "All clients" {
                    continue;
                }
                if k.ends_with("percentile") && x.is_object() && y.is_object() {
                    // rfio's histograms are finer than fio's buckets: a
                    // bucket's value may come back up to 0.1% off.
                    let (x, y) = (x.as_object().unwrap(), y.as_object().unwrap());
                    assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
                    for (p, v) in x {
                        let (a, b) = (v.as_u64().unwrap(), y[p].as_u64().unwrap());
                        assert!(
                            a.abs_diff(b) <= (b / 500).max(1),
                            "{tag}: {k} {p}: {a} vs {b}"
                        );
                    }
                    continue;
                }
                assert_eq!(x, y, "{tag}: {} {k}", a["jobname"]);
            }
        }
    }
}

/// As the release of the server it talks to (`RFIO_FIO_VERSION`), rfio's
/// client heads its JSON with that release and gives each block the
/// `job_start` the server sent, as that release's own client printed.
#[test]
fn a_client_of_a_newer_release_prints_its_job_starts() {
    for (tag, version, release) in [("fio-3.36", 101u16, "3.36"), ("fio-3.42", 120, "3.42")] {
        let srv = replaying(tag, version);
        let dir = TempDir::new("client-replay-release");
        dir.write("two.fio", TWO);
        let mut cmd = std::process::Command::new(RFIO);
        cmd.current_dir(&dir.0)
            .args([srv.arg().as_str(), "--output-format=json", "two.fio"])
            .env("RFIO_FIO_VERSION", release);
        let (out, timed_out) = crate::common::output_within(&mut cmd, LIMIT);
        assert!(
            !timed_out && out.status.success(),
            "{tag}: {}",
            stderr(&out)
        );
        let ours = json_of(&out);
        let rec = recorded_client_json(tag);
        assert_eq!(ours["fio version"], rec["fio version"], "{tag}");
        let starts =
            |v: &Value| -> Vec<Value> { stats(v).iter().map(|s| s["job_start"].clone()).collect() };
        assert_eq!(starts(&ours), starts(&rec), "{tag}");
        assert!(starts(&rec)[0].as_u64().unwrap() > 0, "{tag}");
    }
}

// ------------------------------------------------------------- hostile

/// A server that answers the PROBE, says one job is coming, then does
/// `then` with the connection (what rfio got must end the run).
fn hostile(then: impl Fn(&mut TcpStream) + Send + 'static) -> FakeServer {
    FakeServer::start(move |_, mut s, _| {
        let (v, tag) = until_run(&mut s);
        let _ = s.write_all(&message(v, PROBE, tag, &probe_reply("fio-3.33")));
        let _ = s.write_all(&message(v, START, 0, &u32s(1, 1)));
        then(&mut s);
        false
    })
}

/// Run rfio against `srv` in a fresh directory (inside another one, to
/// see files written above it); its output, its directory.
fn run_against(srv: &FakeServer, extra: &[&str]) -> (Output, TempDir) {
    let top = TempDir::new("client-hostile");
    let cwd = top.file("a/b");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join("j.fio"), "[j]\nioengine=null\nsize=1m\n").unwrap();
    let mut args = vec![srv.arg()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push("j.fio".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    let out = run_limited(RFIO, &cwd, &args, Duration::from_secs(30));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    (out, top)
}

fn assert_failed(out: &Output, stderr_has: &str) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{}",
        stdout(out),
        stderr(out)
    );
    assert!(stderr(out).contains(stderr_has), "stderr: {}", stderr(out));
    assert!(
        stdout(out).contains("client: host=127.0.0.1 disconnected"),
        "stdout: {}",
        stdout(out)
    );
    assert!(!stderr(out).contains("panicked"), "{}", stderr(out));
}

#[test]
fn hostile_frames_end_the_run_with_fios_messages() {
    // A frame cut short by the close.
    let srv = hostile(|s| {
        let f = frame(97, TEXT, false, 0, &[0u8; 500]);
        let _ = s.write_all(&f[..100]);
    });
    let (out, _d) = run_against(&srv, &[]);
    assert_failed(&out, "");
    // A header whose CRC is wrong.
    let srv = hostile(|s| {
        let mut f = frame(97, TEXT, false, 0, &[0u8; 30]);
        f[8] ^= 1;
        let _ = s.write_all(&f);
    });
    let (out, _d) = run_against(&srv, &[]);
    assert_failed(&out, "fio: server bad crc on command");
    // A fragment longer than fio's 1,024 bytes.
    let srv = hostile(|s| {
        let _ = s.write_all(&frame(97, TEXT, false, 0, &[b'x'; 5000]));
    });
    let (out, _d) = run_against(&srv, &[]);
    assert_failed(&out, "fio: command payload too large: 5000");
    // A version no fio has.
    let srv = hostile(|s| {
        let _ = s.write_all(&frame(300, TEXT, false, 0, &[0u8; 24]));
    });
    let (out, _d) = run_against(&srv, &[]);
    assert_failed(&out, "fio: client/server version mismatch (300 != 97)");
    // A TS far too short for its layout.
    let srv = hostile(|s| {
        let _ = s.write_all(&message(97, 6, 0, &[0u8; 100]));
    });
    let (out, _d) = run_against(&srv, &[]);
    assert_failed(&out, "bad TS message from 127.0.0.1");
}

#[test]
fn a_server_closing_mid_run_or_never_answering_ends_the_run() {
    let srv = hostile(|s| {
        let _ = s.write_all(&message(97, SERVER_START, 0, &[]));
        std::thread::sleep(Duration::from_millis(1500));
    });
    let (out, _d) = run_against(&srv, &[]);
    assert_failed(&out, "");
    // Connected, never a word: the PROBE times out after 5 s.
    let srv = FakeServer::start(|_, mut s, _| {
        until_run(&mut s);
        std::thread::sleep(Duration::from_secs(8));
        false
    });
    let started = Instant::now();
    let (out, _d) = run_against(&srv, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("fio: client 127.0.0.1, timeout on cmd PROBE"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(8));
    // Nobody listening: fio's connect messages.
    let port = free_port();
    let dir = TempDir::new("client-refused");
    dir.write("j.fio", "[j]\nioengine=null\nsize=1m\n");
    let out = client(
        RFIO,
        &dir.0,
        &[&format!("--client=127.0.0.1,{port}"), "j.fio"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("fio: connect: Connection refused\nfio: failed to connect to 127.0.0.1:{port}\n")
    );
}

/// An IOLOG named `../../x` is written as `x.HOST` in the working
/// directory, nowhere above it; a SENDFILE for `/etc/passwd` is answered
/// with EACCES and no byte of it; a JOB_OPT past the job count and a STOP
/// with an error are handled as fio does (`exited with error`, status 1).
#[test]
fn hostile_requests_touch_nothing_outside_the_working_directory() {
    let srv = hostile(|s| {
        let mut log = vec![0u8; 288];
        log[0] = 2; // samples
        log[8] = 1; // thread
        log[12] = 4; // bw
        log[32..39].copy_from_slice(b"../../x");
        for (t, v) in [(100u64, 5u64), (200, 7)] {
            log.extend(t.to_le_bytes());
            log.extend(v.to_le_bytes());
            log.extend(0u32.to_le_bytes());
            log.extend(0u32.to_le_bytes());
            log.extend(4096u64.to_le_bytes());
        }
        let _ = s.write_all(&message(97, IOLOG, 0, &log));
        let mut path = vec![0u8; 256];
        path[..11].copy_from_slice(b"/etc/passwd");
        let _ = s.write_all(&message(97, SENDFILE, 0xabcd, &path));
        let reply = loop {
            match read_message(s) {
                Some((_, SENDFILE, tag, body)) => break (tag, body),
                Some(_) => continue,
                None => panic!("no SENDFILE reply"),
            }
        };
        assert_eq!(reply.0, 0xabcd);
        assert_eq!(reply.1, u32s(0, 13), "size 0, EACCES");
        let mut opt = vec![0u8; 200];
        opt[4..8].copy_from_slice(&1_000_000u32.to_le_bytes());
        opt[8..10].copy_from_slice(b"rw");
        let _ = s.write_all(&message(97, JOB_OPT, 0, &opt));
        let _ = s.write_all(&message(97, STOP, 0, &u32s(5, 0)));
        let _ = s.write_all(&message(97, QUIT, 0, &[]));
        drain(s);
    });
    let (out, top) = run_against(&srv, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("client <127.0.0.1>: exited with error 5"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("refusing to send \"/etc/passwd\""),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains(
            "fio: log ../../x of 127.0.0.1 written as x.127.0.0.1 (in the working directory)"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("disconnected"), "{}", stdout(&out));
    let log = std::fs::read_to_string(top.file("a/b/x.127.0.0.1")).expect("the log, in the cwd");
    assert_eq!(log, "100, 5, 0, 4096, 0\n200, 7, 0, 4096, 0\n");
    assert!(!top.file("x.127.0.0.1").exists());
    assert!(!top.file("a/x.127.0.0.1").exists());
}

/// No job file: fio's client connects, sends nothing to run and exits 1;
/// one of two servers unreachable: the other runs, status 0.
#[test]
fn no_job_file_fails_and_an_unreachable_server_is_dropped() {
    let srv = FakeServer::start(|_, mut s, notes| {
        while let Some((_, op, _, _)) = read_message(&mut s) {
            notes.push(op.to_string());
        }
        false
    });
    let dir = TempDir::new("client-nojob");
    let out = client(RFIO, &dir.0, &[&srv.arg(), "--output-format=json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(stderr(&out), "rfio: no job file for 127.0.0.1\n");
    // PROBE and JOBLINE, then the close.
    assert_eq!(srv.notes(), ["10", "4"]);

    let good = hostile(|s| {
        let _ = s.write_all(&message(97, STOP, 0, &u32s(0, 0)));
        let _ = s.write_all(&message(97, QUIT, 0, &[]));
        drain(s);
    });
    dir.write("j.fio", "[j]\nioengine=null\n");
    let dead = format!("--client=127.0.0.1,{}", free_port());
    let out = client(RFIO, &dir.0, &[&dead, &good.arg(), "j.fio"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("fio: connect: Connection refused"));
    assert!(
        stdout(&out).starts_with(
            "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n"
        ),
        "{}",
        stdout(&out)
    );
}

/// What the client sends: PROBE (zlib offered), a JOBLINE of the options
/// after `--client` in `=` form, the job text with `${VAR}` expanded here
/// (comments too), RUN; frames of at most 1,024 bytes with valid CRCs.
#[test]
fn the_client_sends_what_fios_sends() {
    let srv = FakeServer::start(|_, mut s, notes| {
        while let Some((v, op, tag, body)) = read_message(&mut s) {
            notes.push(format!("{v} {op} {}", tag != 0));
            match op {
                PROBE => {
                    assert_eq!(body.len(), 136);
                    assert_eq!(body[0], 1, "zlib offered");
                    assert_eq!(&body[8..18], b"127.0.0.1\0");
                }
                4 => notes.push(jobline_args(&body).join(" ")),
                JOB => notes.push(
                    String::from_utf8_lossy(&body[8..])
                        .trim_end_matches('\0')
                        .to_string(),
                ),
                RUN => {
                    let _ = s.write_all(&message(97, QUIT, 0, &[]));
                }
                _ => {}
            }
        }
        false
    });
    let dir = TempDir::new("client-sends");
    dir.write(
        "v.fio",
        "; size ${RFIO_CLIENT_SZ}\n[v]\nsize=${RFIO_CLIENT_SZ}\ninclude x.fio\n",
    );
    // fio 3.33's client's messages: rfio as that release.
    let mut cmd = Command::new(RFIO);
    cmd.current_dir(&dir.0)
        .env("RFIO_FIO_VERSION", "3.33")
        .env("RFIO_CLIENT_SZ", "3m")
        .args([
            &srv.arg(),
            "--output-format",
            "json",
            "--eta=never",
            "v.fio",
        ]);
    let (out, timed_out) = super::common::output_within(&mut cmd, LIMIT);
    assert!(!timed_out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let notes = srv.notes();
    assert_eq!(
        notes,
        [
            "97 10 true",
            "97 4 false",
            "fio --output-format=json --eta=never",
            "97 3 false",
            "; size 3m\n[v]\nsize=3m\ninclude x.fio\n",
            "97 16 false"
        ]
    );
}

// ------------------------------------------------------- more of fio's CLI

/// `--output=FILE` (after `--client`: also sent to the server), a host
/// list file, `--remote-config`, and rfio's own server.
#[test]
fn output_file_host_list_remote_config_and_rfio_server() {
    let a = FioServer::start();
    let b = FioServer::of(RFIO);
    let dir = TempDir::new("client-more");
    dir.write("two.fio", TWO);
    dir.write(
        "hosts",
        &format!("127.0.0.1,{}\n  ip:127.0.0.1,{} \n", a.port, b.port),
    );
    let out = client(
        RFIO,
        &dir.0,
        &[
            "--client=hosts",
            "--output-format=json",
            "--output=doc.json",
            "two.fio",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let doc = std::fs::read_to_string(dir.file("doc.json")).unwrap();
    let v: Value = serde_json::from_str(&doc).unwrap();
    let mut n = names(&v);
    assert_eq!(n.pop(), Some("All clients"));
    n.sort_unstable();
    assert_eq!(n, ["job1", "job1", "job2", "job2"]);
    let all = stats(&v).last().unwrap();
    assert_eq!(all["read"]["io_bytes"], 2 << 26);
    assert_eq!(all["write"]["total_ios"], 2 * 16_384);

    let remote = a.dir.write("r.fio", "[r]\nioengine=null\nsize=2m\n");
    let remote = format!("--remote-config={}", remote.display());
    let out = client(RFIO, &dir.0, &[&a.arg(), &remote, "--output-format=json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_of(&out);
    assert_eq!(names(&v), ["r"]);
    assert_eq!(stats(&v)[0]["read"]["io_bytes"], 2 << 20);
}

/// SIGINT: the client sends QUIT, the server stops its job early and
/// still reports; the client prints it and exits 0.
#[test]
fn sigint_quits_the_servers_and_still_prints_their_results() {
    let srv = FioServer::start();
    let dir = TempDir::new("client-sigint");
    dir.write(
        "long.fio",
        "[long]\nioengine=null\nsize=1g\nrw=read\ntime_based\nruntime=30\nrate_iops=1000\n",
    );
    // A client of the fio 3.33 server's release.
    let mut cmd = Command::new(RFIO);
    cmd.current_dir(&dir.0)
        .env("RFIO_FIO_VERSION", "3.33")
        .args([&srv.arg(), "long.fio"]);
    let mut run = Running::start(&mut cmd);
    run.wait_for_stdout("the job starting", Duration::from_secs(20), |o| {
        o.contains("Starting 1 process")
    });
    std::thread::sleep(Duration::from_millis(1500));
    run.signal(libc::SIGINT);
    let out = run.finish(Duration::from_secs(20), "SIGINT");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let block = &text[text
        .find("long: (groupid=0, jobs=1): err= 0")
        .expect("the report")..];
    let msec: u64 = block
        .split("msec)")
        .next()
        .and_then(|s| s.rsplit('/').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{block}"));
    assert!(msec < 20_000, "ran {msec} ms of 30 s");
}

/// A bandwidth log (IOLOG, deflated by the server): written as
/// `NAME.HOST` in the working directory, in fio's columns (an averaged
/// sample has no block size), as many lines as fio's client writes (give
/// or take the last one).
#[test]
fn bw_logs_are_written_as_fios_client_writes_them() {
    let srv = FioServer::start();
    let (d1, d2) = (
        TempDir::new("client-bwl-fio"),
        TempDir::new("client-bwl-rfio"),
    );
    let job = "[global]\nioengine=null\nbs=4k\nsize=16m\n\n[job1]\nrw=read\nwrite_bw_log=bwl\n\
               log_avg_msec=100\nrate_iops=2000\nruntime=1\ntime_based\n";
    d1.write("bwlog.fio", job);
    d2.write("bwlog.fio", job);
    let args = [srv.arg(), "--output-format=json".into(), "bwlog.fio".into()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (fio, ours) = std::thread::scope(|s| {
        let fio = s.spawn(|| client(real_fio(), &d1.0, &args));
        (fio.join().unwrap(), client(RFIO, &d2.0, &args))
    });
    assert_eq!(
        ours.status.code(),
        Some(0),
        "{}\n{}",
        stderr(&ours),
        stdout(&ours)
    );
    assert_eq!(fio.status.code(), Some(0));
    let read = |d: &TempDir| std::fs::read_to_string(d.file("bwl_bw.1.log.127.0.0.1")).unwrap();
    let (f, o) = (read(&d1), read(&d2));
    assert!(
        o.lines().count().abs_diff(f.lines().count()) <= 1,
        "rfio:\n{o}\nfio:\n{f}"
    );
    assert!(o.lines().count() >= 5, "{o}");
    for l in o.lines() {
        let cols: Vec<&str> = l.split(", ").collect();
        assert_eq!(cols.len(), 5, "{l}");
        assert!(cols.iter().all(|c| c.parse::<i64>().is_ok()), "{l}");
        assert_eq!(&cols[2..], ["0", "0", "0"], "{l}");
    }
}

/// A server's host name and TEXT with terminal sequences (a title set,
/// the screen cleared, a bell): rfio's client prints them escaped, the
/// report's line ends and tabs kept, nothing a terminal obeys.
#[test]
fn terminal_sequences_from_a_server_are_shown_escaped() {
    let srv = FakeServer::start(|_, mut s, _| {
        let (v, tag) = until_run(&mut s);
        let mut probe = probe_reply("fio-3.33");
        probe[..13].copy_from_slice(b"v\x1b]0;pwned\x07m\0");
        let _ = s.write_all(&message(v, PROBE, tag, &probe));
        let _ = s.write_all(&message(v, START, 0, &u32s(1, 1)));
        let text = b"line one\tend\n\x1b[2Jcleared\x07\r\n";
        let mut body = u32s(3, text.len() as u32);
        body.extend([0u8; 16]);
        body.extend(text);
        let _ = s.write_all(&message(v, TEXT, 0, &body));
        let _ = s.write_all(&message(v, STOP, 0, &u32s(0, 0)));
        let _ = s.write_all(&message(v, QUIT, 0, &[]));
        drain(&mut s);
        false
    });
    let (out, _d) = run_against(&srv, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("hostname=v\\x1b]0;pwned\\x07m, be=0, 64-bit"),
        "{text}"
    );
    assert!(
        text.contains("<v\\x1b]0;pwned\\x07m> line one\tend\n\\x1b[2Jcleared\\x07\\x0d\n"),
        "{text}"
    );
    assert!(!text.contains(['\x1b', '\x07', '\r']), "{text:?}");
}
