//! The net and netsplice engines: TCP, UDP and unix socket pairs, their
//! errors and a listener stopped by a signal, against what fio 3.33 does
//! with the same jobs (the numbers were taken from real fio runs; see the
//! comment at each test).

use crate::common;
use common::json::{json_run, read_of};
use common::{rfio, stderr, TempDir};

/// A TCP or UDP port nobody listens on now (tests run in parallel: each
/// takes its own).
fn free_port(udp: bool) -> u16 {
    if udp {
        let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    } else {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }
}

/// A receiver and a sender, fio's examples/netio.fio shape.
fn net_pair(engine: &str, proto: &str, port: u16, extra: &[&str], sender: &[&str]) -> String {
    let mut text =
        format!("[global]\nioengine={engine}\nprotocol={proto}\nport={port}\nbs=4k\nsize=1m\n");
    for e in extra {
        text.push_str(e);
        text.push('\n');
    }
    text.push_str("[receiver]\nrw=read\n");
    if proto.starts_with("tcp") {
        text.push_str("listen\n");
    }
    text.push_str("[sender]\nhostname=127.0.0.1\nstartdelay=200ms\nrw=write\n");
    for s in sender {
        text.push_str(s);
        text.push('\n');
    }
    text
}

/// fio 3.33, examples/netio.fio with pingpong on loopback: 256 reads and
/// 256 writes of 4 KiB, no short I/O; net reports bits (`Mibit/s`),
/// netsplice bytes; the receiver says `fio: waiting for connection`.
#[test]
fn net_tcp_pingpong_pairs_as_fio() {
    for engine in ["net", "netsplice"] {
        let dir = TempDir::new("net-tcp");
        let job = dir.write(
            "pair.fio",
            &net_pair(engine, "tcp", free_port(false), &["pingpong=1"], &[]),
        );
        let job = job.to_str().unwrap();
        let (doc, err) = json_run(&dir, &[job]);
        for (j, name) in ["receiver", "sender"].iter().enumerate() {
            let job = &doc["jobs"][j];
            assert_eq!(job["jobname"], *name);
            assert_eq!(job["error"], 0, "{engine} {name}: {err}");
        }
        assert_eq!(read_of(&doc, 0)["total_ios"], 256, "{engine}");
        assert_eq!(read_of(&doc, 0)["io_bytes"], 1 << 20);
        assert_eq!(read_of(&doc, 0)["short_ios"], 0);
        assert_eq!(doc["jobs"][1]["write"]["total_ios"], 256);
        let out = rfio(&dir, &[job]);
        let text = common::stdout(&out);
        assert!(text.contains("fio: waiting for connection\n"), "{text}");
        let bits = text.contains("Mibit/s") || text.contains("Gibit/s");
        assert_eq!(bits, engine == "net", "{engine}: {text}");
    }
}

/// A streaming TCP pair: the sender's 256 writes are exact; the receiver
/// gets every byte, in as many reads as came short (fio counts each
/// remainder it reads again as one more I/O, as rfio does).
#[test]
fn net_tcp_stream_moves_every_byte() {
    let dir = TempDir::new("net-stream");
    let job = dir.write("s.fio", &net_pair("net", "tcp", free_port(false), &[], &[]));
    let (doc, err) = json_run(&dir, &[job.to_str().unwrap()]);
    assert_eq!(doc["jobs"][1]["write"]["total_ios"], 256, "{err}");
    let r = read_of(&doc, 0);
    assert_eq!(r["io_bytes"], 1 << 20);
    let shorts = r["short_ios"].as_u64().unwrap();
    assert_eq!(r["total_ios"].as_u64().unwrap(), 256 + shorts);
    // The depth map stays a distribution.
    let depth1 = doc["jobs"][0]["iodepth_level"]["1"].as_f64().unwrap();
    assert!((99.9..=100.0).contains(&depth1), "{depth1}");
}

/// UDP on loopback at a rate the reader keeps up with: fio 3.33, 32 reads
/// and 32 writes, nothing dropped; the writer's datagrams carry fio's
/// sequence numbers.
#[test]
fn net_udp_pair_as_fio() {
    let dir = TempDir::new("net-udp");
    let job = dir.write(
        "u.fio",
        &net_pair(
            "net",
            "udp",
            free_port(true),
            &["size=128k"],
            &["rate=512k"],
        ),
    );
    let (doc, err) = json_run(&dir, &[job.to_str().unwrap()]);
    assert_eq!(doc["jobs"][0]["error"], 0, "{err}");
    assert_eq!(doc["jobs"][1]["error"], 0, "{err}");
    assert_eq!(doc["jobs"][1]["write"]["total_ios"], 32);
    let r = read_of(&doc, 0);
    assert_eq!(
        r["total_ios"].as_u64().unwrap() + r["drop_ios"].as_u64().unwrap(),
        32,
        "every datagram read or counted lost"
    );
}

/// fio 3.33 on a unix socket: the data goes through, then each side's
/// goodbye (sendto with an address on a connected socket) fails with
/// error 106 (`file:engines/net.c:903, func=sendto udp link close`).
#[test]
fn net_unix_pair_fails_its_goodbye_as_fio() {
    let dir = TempDir::new("net-unix");
    let job = dir.write(
        "x.fio",
        "[global]\nioengine=net\nprotocol=unix\nfilename=net.sock\nbs=4k\nsize=256k\n\
         [receiver]\nrw=read\n[sender]\nstartdelay=200ms\nrw=write\n",
    );
    let out = rfio(&dir, &["--output-format=json", job.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    for j in 0..2 {
        assert_eq!(doc["jobs"][j]["error"], 106, "{}", stderr(&out));
    }
    assert_eq!(read_of(&doc, 0)["io_bytes"], 256 << 10);
    assert_eq!(doc["jobs"][1]["write"]["io_bytes"], 256 << 10);
    assert!(stderr(&out).contains(
        "err=106/file:engines/net.c:903, func=sendto udp link close, error=Transport endpoint is already connected"
    ));
    assert!(dir.file("net.sock").exists(), "fio leaves the socket");
}

/// fio 3.33's errors: nobody listening (`file:engines/net.c:800,
/// func=connect, error=Connection refused`, error 111), no port (`network
/// IO requires port for tcp or udp`, error 1), no host for a writer.
#[test]
fn net_errors_as_fio() {
    let dir = TempDir::new("net-errors");
    let port = format!("--port={}", free_port(false));
    let out = rfio(
        &dir,
        &[
            "--name=s",
            "--ioengine=net",
            "--hostname=127.0.0.1",
            &port,
            "--rw=write",
            "--size=64k",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("err=111/file:engines/net.c:800, func=connect, error=Connection refused"),
        "{}",
        stderr(&out)
    );
    let out = rfio(
        &dir,
        &[
            "--name=s",
            "--ioengine=net",
            "--hostname=127.0.0.1",
            "--rw=write",
            "--size=64k",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "err=1/file:engines/net.c, func=net, error=network IO requires port for tcp or udp"
        ),
        "{}",
        stderr(&out)
    );
    let out = rfio(
        &dir,
        &[
            "--name=s",
            "--ioengine=net",
            &port,
            "--rw=write",
            "--size=64k",
        ],
    );
    assert!(
        stderr(&out).contains(
            "err=22/file:engines/net.c:1066, func=no hostname= set, error=Invalid argument"
        ),
        "{}",
        stderr(&out)
    );
    let out = rfio(
        &dir,
        &[
            "--name=s",
            "--ioengine=net",
            &port,
            "--rw=randwrite",
            "--size=64k",
            "--hostname=x",
        ],
    );
    assert!(
        stderr(&out).contains("network IO can't be random"),
        "{}",
        stderr(&out)
    );
}

/// A listening job waits for its peer, and a signal stops it there (fio's
/// poll is interrupted; rfio's waits look at the stop every 100 ms).
#[test]
fn a_waiting_listener_stops_on_a_signal() {
    let dir = TempDir::new("net-listen");
    let port = format!("--port={}", free_port(false));
    let mut cmd = std::process::Command::new(common::RFIO);
    cmd.current_dir(&dir.0).args([
        "--name=r",
        "--ioengine=net",
        "--listen",
        &port,
        "--rw=read",
        "--size=64k",
    ]);
    let mut run = common::Running::start(&mut cmd);
    run.wait_for_stdout("the wait", std::time::Duration::from_secs(10), |s| {
        s.contains("fio: waiting for connection")
    });
    run.signal(libc::SIGINT);
    let out = run.finish(std::time::Duration::from_secs(5), "SIGINT");
    assert_eq!(out.status.code(), Some(128), "{}", stderr(&out));
}
