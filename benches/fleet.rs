//! One client driving a fleet of loopback servers (issue 12): what a client
//! costs per server it drives, rfio's and fio's side by side.
//!
//! ```sh
//! cargo build --release --bin rfio
//! cargo bench --bench fleet                 # 8 and 32 servers, 3 runs each
//! cargo bench --bench fleet -- --servers 8  # one fleet size
//! ```
//!
//! It starts N `rfio --server` processes on loopback ports (the same
//! servers for both clients, so that only the client differs), writes a
//! host list, and runs `rfio --client=HOSTS` and `fio --client=HOSTS` in
//! turn on a small null-engine job (each server runs one job of 16 MiB),
//! JSON output. For each client it reports the median wall time, CPU time
//! (user + system, `wait4`'s rusage of the client process) and peak RSS,
//! and those per server; the RSS floor (what `/bin/true` reports when
//! started the same way) is printed beside. Results go to
//! `benches/FLEET.md`. Without `--bench` it does nothing.

#[path = "compare/child.rs"]
mod child;

use std::fmt::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const REPS: usize = 3;
const JOB: &str = "[global]\nioengine=null\nsize=16m\n[j]\nrw=randread\n";

/// Servers killed when dropped.
struct Fleet(Vec<Child>);

impl Drop for Fleet {
    fn drop(&mut self) {
        for c in &mut self.0 {
            // Each server leads its own process group, with its sessions.
            // SAFETY: kill(2) takes no pointers; the pid is our child's.
            unsafe { libc::kill(-(c.id() as libc::pid_t), libc::SIGKILL) };
            let _ = c.wait();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

/// Start `n` rfio servers; returns them and the host list's text.
fn start_fleet(rfio: &Path, n: usize, dir: &Path) -> Result<(Fleet, String), String> {
    use std::os::unix::process::CommandExt;
    let mut fleet = Fleet(Vec::new());
    let mut hosts = String::new();
    for _ in 0..n {
        let port = free_port();
        let child = Command::new(rfio)
            .arg(format!("--server=ip:127.0.0.1,{port}"))
            .current_dir(dir)
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{}: {e}", rfio.display()))?;
        fleet.0.push(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(format!("server on port {port} never listened"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = writeln!(hosts, "127.0.0.1,{port}");
    }
    Ok((fleet, hosts))
}

/// Medians of `reps` runs of `program` as the client of `servers`
/// servers: wall, CPU, RSS. A run whose report lacks a server's job fails.
fn measure(
    program: &Path,
    dir: &Path,
    reps: usize,
    servers: usize,
) -> Result<(f64, f64, u64), String> {
    let args: Vec<String> = ["--client=hosts", "--output-format=json", "job.fio"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut runs = Vec::new();
    for _ in 0..reps {
        let o = child::run(program, &args, dir).map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "{} failed ({}): {}",
                program.display(),
                child::describe(o.status),
                o.first_error_line()
            ));
        }
        let jobs = o.stdout.matches("\"jobname\" : \"j\"").count();
        if jobs != servers {
            return Err(format!("{jobs} of {servers} servers' jobs reported"));
        }
        runs.push((o.wall.as_secs_f64(), o.cpu.as_secs_f64(), o.maxrss_kib));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut rss: Vec<u64> = runs.iter().map(|r| r.2).collect();
    rss.sort_unstable();
    Ok((
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
        rss[rss.len() / 2],
    ))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if !argv.iter().any(|a| a == "--bench") {
        return ExitCode::SUCCESS;
    }
    let sizes: Vec<usize> = match argv.iter().position(|a| a == "--servers") {
        Some(i) => argv
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .into_iter()
            .collect(),
        None => vec![8, 32],
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rfio = root.join("target/release/rfio");
    let fio = PathBuf::from("fio");
    let dir = std::env::temp_dir().join(format!("rfio-fleet-{}", std::process::id()));
    if let Err(e) =
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join("job.fio"), JOB))
    {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let floor = child::floor(&dir).unwrap_or(0);
    let mut table = String::from(
        "| servers | client | wall (s) | CPU (ms) | CPU per server (ms) | peak RSS (MiB) | RSS per server (KiB) |\n|---:|---|---:|---:|---:|---:|---:|\n",
    );
    let mut ok = true;
    for &n in &sizes {
        let (fleet, hosts) = match start_fleet(&rfio, n, &dir) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        let _ = std::fs::write(dir.join("hosts"), hosts);
        for (name, program) in [("rfio", &rfio), ("fio", &fio)] {
            match measure(program, &dir, REPS, n) {
                Ok((wall, cpu, rss)) => {
                    let above = rss.saturating_sub(floor);
                    let _ = writeln!(
                        table,
                        "| {n} | {name} | {wall:.2} | {:.0} | {:.1} | {:.1} | {} |",
                        cpu * 1e3,
                        cpu * 1e3 / n as f64,
                        rss as f64 / 1024.0,
                        above / n as u64
                    );
                }
                Err(e) => {
                    ok = false;
                    let _ = writeln!(table, "| {n} | {name} | failed: {e} | | | | |");
                }
            }
        }
        drop(fleet);
    }
    let _ = std::fs::remove_dir_all(&dir);
    print!("{table}");
    let doc = format!(
        "# One client, a fleet of loopback servers\n\n`cargo bench --bench fleet` \
         ({} runs each, medians; servers: `rfio --server` on 127.0.0.1; job: one 16 MiB \
         null-engine job per server, JSON output). RSS per server is the peak above the \
         {floor} KiB floor a forked `/bin/true` reports, divided by the servers.\n\n{table}",
        REPS
    );
    if let Err(e) = std::fs::write(root.join("benches/FLEET.md"), doc) {
        eprintln!("benches/FLEET.md: {e}");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
