//! Where a hung run waits: every thread of a process group, with its state, the kernel
//! function it sleeps in and, where gdb is installed, its frames in rfio's source. Printed
//! when a run is killed for its time limit (here, and by the integration tests through
//! `rfio-conformance --threads PGID`), so that a hang seen once on a loaded CI machine can be
//! read from the log instead of reproduced.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// How long gdb may take to attach to one process and print its stacks.
const GDB_SECONDS: &str = "30";

/// The threads of the processes in process group `pgid`, a line each, gdb's frames under
/// each process when gdb runs.
pub(crate) fn describe(pgid: u32) -> String {
    let mut out = String::new();
    for pid in group_members(pgid) {
        let dir = Path::new("/proc").join(pid.to_string());
        let mut tasks: Vec<u32> = std::fs::read_dir(dir.join("task"))
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        tasks.sort_unstable();
        for tid in tasks {
            let t = dir.join("task").join(tid.to_string());
            let state = stat_fields(&read(&t.join("stat")))
                .first()
                .cloned()
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {pid}/{tid} {} {state} wchan={}",
                read(&t.join("comm")).trim(),
                read(&t.join("wchan"))
            );
        }
        out += &gdb_frames(pid);
    }
    out
}

/// The pids whose process group is `pgid`.
fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = procs
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|pid: &u32| {
            let stat = read(&Path::new("/proc").join(pid.to_string()).join("stat"));
            stat_fields(&stat).get(2).and_then(|g| g.parse().ok()) == Some(pgid)
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// The fields of a `/proc/.../stat` line after the command name (state, ppid, pgrp, ...): the
/// name is in parentheses and may hold spaces.
fn stat_fields(stat: &str) -> Vec<String> {
    stat.rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Each thread's name line, its innermost frame and its frames in rfio's source, without
/// addresses or arguments; empty without gdb.
fn gdb_frames(pid: u32) -> String {
    let run = Command::new("timeout")
        .args([GDB_SECONDS, "gdb", "-p", &pid.to_string(), "-batch", "-nx"])
        .args(["-ex", "set pagination off", "-ex", "thread apply all bt 12"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(run) = run else {
        return String::new();
    };
    let mut out = String::new();
    for line in String::from_utf8_lossy(&run.stdout).lines() {
        if line.starts_with("Thread ") {
            let _ = writeln!(out, "    {line}");
        } else if line.starts_with("#0 ") || (line.starts_with('#') && line.contains(" at src/")) {
            let _ = writeln!(out, "      {}", short_frame(line));
        }
    }
    out
}

/// A gdb frame line (`#5  0x55.. in f (a=1) at src/x.rs:3`) as `#5 f at src/x.rs:3`.
fn short_frame(line: &str) -> String {
    let (num, rest) = line.split_once(' ').unwrap_or((line, ""));
    let rest = rest.trim_start();
    let rest = match rest.split_once(" in ") {
        Some((addr, f)) if addr.starts_with("0x") => f,
        _ => rest,
    };
    let func = rest.split(" (").next().unwrap_or(rest);
    let place = rest.rsplit_once(" at ").map_or("", |(_, p)| p);
    format!("{num} {func} at {place}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_lose_addresses_and_arguments() {
        assert_eq!(
            short_frame("#5  0x000055971132b836 in rfio::workload::runner::watch_stop (stop=0x1, t=0x2) at src/workload/runner.rs:617"),
            "#5 rfio::workload::runner::watch_stop at src/workload/runner.rs:617"
        );
        assert_eq!(
            short_frame("#0  syscall () at ../sysdeps/unix/sysv/linux/x86_64/syscall.S:38"),
            "#0 syscall at ../sysdeps/unix/sysv/linux/x86_64/syscall.S:38"
        );
    }

    #[test]
    fn a_sleeping_child_is_listed_with_its_state() {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep runs");
        let pid = child.id();
        // It may take a moment to reach its sleep.
        let mut seen = String::new();
        for _ in 0..200 {
            seen = describe(pid);
            if seen.contains(" S wchan=") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            seen.starts_with(&format!("  {pid}/{pid} sleep S wchan=")),
            "{seen}"
        );
    }

    #[test]
    fn names_with_spaces_and_parentheses_keep_their_fields() {
        assert_eq!(stat_fields("12 (a b) c) S 1 12 12"), ["S", "1", "12", "12"]);
    }
}
