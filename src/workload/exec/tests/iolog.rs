//! Replays through the real loop on the fake clock: the log's delays are
//! kept from the last issue (fio's `iolog_delay`), scaled or dropped as
//! the replay options say; the I/Os are the log's.

use super::{costing, run, MS};

/// A version 3 log on file `a`: writes 5 ms and 15 ms apart.
const LOG: &str = "fio version 3 iolog
0 a add
1000 a open
1000 a write 0 4096
6000 a write 4096 4096
21000 a write 8192 4096
21000 a close
";

/// Replay `LOG` with `extra` options, each I/O taking 1 ms.
fn replay(tag: &str, extra: &[&str]) -> super::Outcome {
    let dir = std::env::temp_dir().join(format!("rfio-exec-iolog-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("l.log");
    std::fs::write(&log, LOG).unwrap();
    let arg = format!("--read_iolog={}", log.display());
    let mut argv = vec!["--name=r", arg.as_str()];
    argv.extend_from_slice(extra);
    let o = run(&argv, costing(MS));
    std::fs::remove_dir_all(&dir).unwrap();
    o
}

#[test]
fn delays_count_from_the_last_issue() {
    let o = replay("plain", &[]);
    assert_eq!(o.report.dirs[1].ios, 3);
    assert_eq!(o.report.dirs[1].bytes, 3 * 4096);
    // 5 ms after the first write (issued, then 1 ms of I/O): 4 ms of
    // sleep; 15 ms after the second: 14.
    assert_eq!(o.time.slept(), (18 * MS, 2));
}

#[test]
fn time_scale_and_no_stall() {
    assert_eq!(
        replay("scaled", &["--replay_time_scale=200"]).time.slept(),
        (8 * MS, 2),
        "half the delays: 2.5 and 7.5 ms, less the 1 ms of each I/O"
    );
    assert_eq!(
        replay("nostall", &["--replay_no_stall=1"]).time.slept(),
        (0, 0)
    );
    assert_eq!(
        replay("chunked", &["--read_iolog_chunked=1"]).time.slept(),
        (18 * MS, 2)
    );
}
