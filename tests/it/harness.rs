//! The test helpers themselves (tests/common): a run that outlives its
//! time limit is killed with everything it started, and says so.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{output_within, run_limited, TempDir};

/// Whether process `pid` is gone (or a zombie waiting to be reaped).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `pid (comm) S ...`: the state follows the command's `)`.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// A shell that starts a grandchild and waits on it, as fio waits on its
/// job processes: at the limit both are killed, and what it printed comes
/// back.
#[test]
fn a_hung_process_group_is_killed_with_its_children() {
    let dir = TempDir::new("harness-hang");
    let pidfile = dir.file("pid");
    let script = format!(
        "sleep 300 & echo $! > '{}'; echo started; wait",
        pidfile.display()
    );
    let start = Instant::now();
    let (out, timed_out) = output_within(
        Command::new("sh").args(["-c", &script]),
        Duration::from_secs(2),
    );
    assert!(timed_out);
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(common::stdout(&out), "started\n");
    let grandchild: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !gone(grandchild) {
        assert!(
            Instant::now() < deadline,
            "the grandchild {grandchild} outlived the kill"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_run_past_its_limit_fails_the_test_naming_it() {
    let dir = TempDir::new("harness-limit");
    let err = std::panic::catch_unwind(|| {
        run_limited("sleep", &dir, &["300"], Duration::from_millis(500))
    })
    .expect_err("the run is past its limit");
    let msg = err
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(
        msg.starts_with("sleep [\"300\"] was still running after 500ms: killed"),
        "{msg}"
    );
}

#[test]
fn a_run_within_its_limit_gives_its_output() {
    let dir = TempDir::new("harness-ok");
    let out = run_limited(
        "sh",
        &dir,
        &["-c", "echo out; echo err >&2; exit 3"],
        Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        (common::stdout(&out), common::stderr(&out)),
        ("out\n".into(), "err\n".into())
    );
}

/// A process that leaves the group (fio 3.33's job processes call setsid,
/// and some outlive a refused run) and keeps the output pipes open: the
/// run ends in a panic naming the cause soon after the limit, never a
/// hang.
#[test]
fn a_process_that_left_the_group_cannot_hang_the_suite() {
    let dir = TempDir::new("harness-setsid");
    let pidfile = dir.file("pid");
    let script = format!(
        "setsid sleep 60 & echo $! > '{}'; echo started",
        pidfile.display()
    );
    let start = Instant::now();
    let caught = std::panic::catch_unwind(|| {
        output_within(
            Command::new("sh").args(["-c", &script]),
            Duration::from_secs(2),
        )
    });
    let elapsed = start.elapsed();
    if let Ok(pid) = std::fs::read_to_string(&pidfile) {
        if let Ok(pid) = pid.trim().parse::<i32>() {
            // SAFETY: kill(2) takes no pointers; the pid is the sleep this
            // test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    let message = match caught {
        Ok(_) => panic!("the run returned although its output was still open"),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(message.contains("still holds its output open"), "{message}");
    assert!(elapsed < Duration::from_secs(50), "{elapsed:?}");
}

/// What a test needs and the machine lacks fails the test, with the reason
/// and the variable that would skip it.
#[test]
#[should_panic(
    expected = "selftest-missing is needed and missing here: no such thing \
                           (set RFIO_TEST_NO_SELFTEST_MISSING=1 on a machine without it)"
)]
fn a_missing_need_fails_the_test() {
    common::require("selftest-missing", Some("no such thing".into()));
}

/// With `RFIO_TEST_NO_<WHAT>=1` it skips instead (saying so); what is here
/// goes on whatever the variable says.
#[test]
fn a_need_marked_missing_by_its_variable_skips() {
    assert_eq!(
        common::require::skip_var("io_uring"),
        "RFIO_TEST_NO_IO_URING"
    );
    // The name is this test's own: no other test reads it.
    std::env::set_var("RFIO_TEST_NO_SELFTEST_MARKED", "1");
    assert!(!common::require("selftest-marked", Some("absent".into())));
    assert_eq!(
        common::need::<()>("selftest-marked", Err("absent".into())),
        None
    );
    assert!(common::require("selftest-marked", None));
    assert_eq!(common::need("selftest-marked", Ok(7)), Some(7));
}
