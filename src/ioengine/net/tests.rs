use super::*;

fn opts(proto: Proto) -> NetOptions {
    NetOptions {
        proto,
        port: 1,
        ttl: 1,
        write: true,
        host: Some("127.0.0.1".into()),
        ..NetOptions::default()
    }
}

fn refusal(o: NetOptions) -> String {
    match Net::start("net", &o, false) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn settings_fio_refuses_when_the_engine_starts() {
    let random = NetOptions {
        random: true,
        ..opts(Proto::Tcp)
    };
    assert_eq!(refusal(random), "net: network IO can't be random");
    let no_port = NetOptions {
        port: 0,
        ..opts(Proto::Tcp)
    };
    assert_eq!(
        refusal(no_port),
        "net: network IO requires port for tcp or udp"
    );
    assert_eq!(
        refusal(opts(Proto::Unix)),
        "net: network IO port not valid with unix socket"
    );
    let udp_listen = NetOptions {
        listen: true,
        ..opts(Proto::Udp)
    };
    assert_eq!(
        refusal(udp_listen),
        "net: listen only valid for TCP proto IO"
    );
    let udp_mix = NetOptions {
        read: true,
        ..opts(Proto::Udp)
    };
    assert_eq!(
        refusal(udp_mix),
        "net: datagram network connections must be read OR write"
    );
    let unix_nameless = NetOptions {
        port: 0,
        host: None,
        ..opts(Proto::Unix)
    };
    assert_eq!(
        refusal(unix_nameless),
        "net: UNIX sockets need host/filename"
    );
    let e = Net::start(
        "net",
        &NetOptions {
            host: None,
            read: true,
            ..opts(Proto::Tcp)
        },
        false,
    )
    .err()
    .unwrap();
    assert_eq!(e.errno, libc::EINVAL);
    assert_eq!(e.func, "no hostname= set");
    assert_eq!(e.src, Some("engines/net.c:1066"));
}

#[test]
fn link_messages_are_fios_bytes() {
    assert_eq!(link_msg(LINK_OPEN), [0x6c, 0x69, 0x6e, 0x6b, 0, 0, 0, 0x98]);
    assert_eq!(
        link_msg(LINK_CLOSE),
        [0x6b, 0x6e, 0x69, 0x6c, 0x89, 0, 0, 0]
    );
    assert!(is_close_msg(&link_msg(LINK_CLOSE)));
    assert!(!is_close_msg(&link_msg(LINK_OPEN)));
}

#[test]
fn lost_datagrams_are_counted_from_their_numbers() {
    let mut n = Net::start("net", &opts(Proto::Udp), false).unwrap();
    let dgram = |seq: u64, bs: u64| {
        let mut b = vec![0u8; 64];
        b[40..48].copy_from_slice(&UDP_SEQ_MAGIC.to_le_bytes());
        b[48..56].copy_from_slice(&seq.to_le_bytes());
        b[56..].copy_from_slice(&bs.to_le_bytes());
        b
    };
    n.check_seq(&dgram(0, 64));
    n.check_seq(&dgram(1, 64));
    n.check_seq(&dgram(4, 64));
    assert_eq!(n.take_dropped(), 2);
    n.check_seq(&dgram(5, 64));
    assert_eq!(n.take_dropped(), 0);
    // Not fio's datagrams: no more checks.
    n.check_seq(&dgram(9, 32));
    n.check_seq(&dgram(20, 64));
    assert_eq!(n.take_dropped(), 0);
}

/// A port nobody listens on now.
fn free_port() -> u32 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    u32::from(l.local_addr().unwrap().port())
}

fn target() -> FileTarget {
    FileTarget {
        path: "net".into(),
        flags: Default::default(),
        region_end: 0,
    }
}

fn io(dir: Ddir, buf: &mut [u8]) -> Io {
    Io {
        token: 0,
        file: FileId(0),
        dir,
        offset: 0,
        len: buf.len(),
        buf: buf.as_mut_ptr(),
    }
}

#[test]
fn a_tcp_pair_on_loopback_with_pingpong() {
    for splice in [false, true] {
        let port = free_port();
        let reader = NetOptions {
            listen: true,
            read: true,
            write: false,
            host: None,
            port,
            pingpong: true,
            ..opts(Proto::Tcp)
        };
        let mut l = Net::start("net", &reader, splice).unwrap();
        assert_eq!(l.notice().as_deref(), Some("fio: waiting for connection\n"));
        let writer = std::thread::spawn(move || {
            let o = NetOptions {
                port,
                pingpong: true,
                ..opts(Proto::Tcp)
            };
            let mut w = Net::start("net", &o, splice).unwrap();
            w.open(&target()).unwrap();
            let mut data: Vec<u8> = (0..8192u32).map(|i| (i % 251) as u8).collect();
            // SAFETY: the buffer outlives the synchronous I/O.
            let r = unsafe { w.queue(&io(Ddir::Write, &mut data)) };
            // The reply came back into the buffer.
            assert_eq!(r, Queued::Completed(Ok(8192)));
            w.close_all();
            assert!(w.close_error().is_none());
        });
        l.open(&target()).unwrap();
        assert!(l.stats_start_at_open());
        let mut got = vec![0u8; 8192];
        let mut at = 0;
        while at < got.len() {
            let mut rest = io(Ddir::Read, &mut got[at..]);
            rest.len = 8192 - at;
            // SAFETY: as above; the pingpong sends back what was read.
            match unsafe { l.xfer(&rest, Ddir::Read) } {
                Queued::Completed(Ok(n)) => {
                    // SAFETY: as above.
                    let back = unsafe { l.xfer(&Io { len: n, ..rest }, Ddir::Write) };
                    assert_eq!(back, Queued::Completed(Ok(n)));
                    at += n;
                }
                other => panic!("{other:?}"),
            }
        }
        writer.join().unwrap();
        let want: Vec<u8> = (0..8192u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(got, want, "splice {splice}");
        // The writer's goodbye ends the reader; spliced (fio reads no
        // message there), it is 8 bytes of data, then the end.
        let mut more = vec![0u8; 4096];
        if splice {
            // SAFETY: as above.
            let r = unsafe { l.xfer(&io(Ddir::Read, &mut more), Ddir::Read) };
            assert_eq!(r, Queued::Completed(Ok(8)));
        }
        // SAFETY: as above.
        assert_eq!(
            unsafe { l.xfer(&io(Ddir::Read, &mut more), Ddir::Read) },
            Queued::Busy
        );
        assert!(l.done());
    }
}

#[test]
fn a_refused_connection_is_fios_error() {
    let o = NetOptions {
        port: free_port(),
        ..opts(Proto::Tcp)
    };
    let mut w = Net::start("net", &o, false).unwrap();
    let e = w.open(&target()).err().unwrap();
    assert_eq!(e.errno, libc::ECONNREFUSED);
    assert_eq!(e.func, "connect");
    assert_eq!(e.src, Some("engines/net.c:800"));
}
