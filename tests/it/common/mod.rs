//! Helpers the integration tests share: a plan from a command line, a temporary directory that
//! cleans up after itself, running rfio or fio with a time limit, and real fio (required: the
//! comparisons with it fail without it, never skip).
#![allow(dead_code)] // each test file uses some of these

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub mod json;
pub mod require;
pub mod wire;

#[allow(unused_imports)] // tests/memory shares this module, not these
pub use require::{need, require, require_engine, require_root};

use rfio::api::{Args, Plan};

/// The command line `argv` (program name excluded), read.
pub fn args<S: AsRef<str>>(argv: &[S]) -> Args {
    let argv: Vec<String> = argv.iter().map(|s| s.as_ref().to_string()).collect();
    rfio::api::parse_args(&argv).expect("command line parses")
}

/// The command line `argv`, read as fio `release` (`3.33`), as
/// `RFIO_FIO_VERSION=release` chooses it (a `--compat=fio-3.NN` in `argv`
/// wins, as it does over the variable).
pub fn args_as<S: AsRef<str>>(release: &str, argv: &[S]) -> Args {
    args(argv)
        .with_release(Some(release))
        .expect("the release takes the command line")
}

/// The plan of a command-line-only invocation, as fio 3.33 (the
/// library-level tests' figures, goldens and replays are Debian's fio
/// 3.33's, as [`run_in`] runs the binaries); the front end must accept it.
pub fn plan<S: AsRef<str>>(argv: &[S]) -> Plan {
    plan_as("3.33", argv)
}

/// [`plan`] as fio `release` (`3.33`: the tests whose figures are fio
/// 3.33's).
pub fn plan_as<S: AsRef<str>>(release: &str, argv: &[S]) -> Plan {
    plan_of(&args_as(release, argv))
}

fn plan_of(args: &Args) -> Plan {
    let fe = rfio::api::build_plan(args, &[], &rfio::api::Keywords::from_system());
    assert!(fe.diags.is_empty(), "front end diagnostics: {}", fe.diags);
    fe.plan
}

/// The live messages of an in-process run, kept for the test to read.
#[derive(Default)]
pub struct Captured {
    pub info: std::sync::Mutex<String>,
    pub err: std::sync::Mutex<String>,
}

impl rfio::api::Log for Captured {
    fn info(&self, text: &str) {
        self.info.lock().unwrap().push_str(text);
    }
    fn err(&self, text: &str) {
        self.err.lock().unwrap().push_str(text);
    }
}

/// Run the command-line job `argv` in this process, as fio 3.33 (see
/// [`plan`]); its result and messages.
pub fn try_run_captured<S: AsRef<str>>(
    argv: &[S],
) -> (Result<rfio::api::RunReport, rfio::api::RunError>, Captured) {
    try_run_plan(&plan(argv))
}

fn try_run_plan(p: &Plan) -> (Result<rfio::api::RunReport, rfio::api::RunError>, Captured) {
    let log = Captured::default();
    let r = rfio::api::run_with_log(p, &log);
    (r, log)
}

/// As [`try_run_captured`], for a run that must start.
pub fn run_captured<S: AsRef<str>>(argv: &[S]) -> (rfio::api::RunReport, Captured) {
    let (r, log) = try_run_captured(argv);
    (r.expect("run starts"), log)
}

/// [`try_run_captured`] as fio `release` (`3.33`).
pub fn try_run_captured_as<S: AsRef<str>>(
    release: &str,
    argv: &[S],
) -> (Result<rfio::api::RunReport, rfio::api::RunError>, Captured) {
    try_run_plan(&plan_as(release, argv))
}

/// [`run_captured`] as fio `release` (`3.33`).
pub fn run_captured_as<S: AsRef<str>>(
    release: &str,
    argv: &[S],
) -> (rfio::api::RunReport, Captured) {
    let (r, log) = try_run_captured_as(release, argv);
    (r.expect("run starts"), log)
}

/// Job `j` ended without an error.
pub fn assert_job_ok(j: &rfio::api::JobReport) {
    assert_eq!(j.error, 0, "job {}: {:?}", j.name(), j.error_msg);
}

/// The statistics of job `spec` as its thread starts them: its resolved
/// settings, I/O priorities and logs.
pub fn thread_stats(spec: &rfio::api::JobSpec) -> rfio::api::ThreadStats {
    let (ioprio, slots) = spec.engine.prio_slots();
    rfio::api::ThreadStats::new(&spec.report.stats)
        .with_prios(ioprio, slots)
        .with_log(spec.logs.as_ref().map(rfio::api::log_sink))
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("rfio-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    /// The path of `name` inside the directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// `--filename=` for `name` inside the directory.
    pub fn arg(&self, name: &str) -> String {
        format!("--filename={}", self.file(name).display())
    }

    /// `--directory=` for the directory.
    pub fn dir_arg(&self) -> String {
        format!("--directory={}", self.0.display())
    }

    /// Write `text` to `name` inside the directory; its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.file(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The rfio binary built for these tests.
pub const RFIO: &str = env!("CARGO_BIN_EXE_rfio");

/// How long one run of rfio or fio may take before the tests call it hung: far more than any
/// test job needs (they run for at most a few seconds), so only a hang reaches it.
pub const RUN_LIMIT: Duration = Duration::from_secs(120);

/// Run `bin` (rfio or fio) with `args` in `dir`; panics if it runs past [`RUN_LIMIT`], after
/// killing it and everything it started.
pub fn run_in(bin: &str, dir: impl AsRef<Path>, args: &[&str]) -> Output {
    run_limited(bin, dir, args, RUN_LIMIT)
}

/// Run `bin` with `args` in `dir` in a process group of its own (fio forks a process per job);
/// past `limit` the whole group is killed and the test panics, showing what it printed so far.
pub fn run_limited(bin: &str, dir: impl AsRef<Path>, args: &[&str], limit: Duration) -> Output {
    let mut cmd = Command::new(bin);
    // The tests compare with fio 3.33: rfio behaves as that release,
    // whatever the environment chose (fio itself ignores the variable).
    cmd.current_dir(dir.as_ref())
        .args(args)
        .env("RFIO_FIO_VERSION", "3.33");
    let (out, timed_out) = output_within(&mut cmd, limit);
    assert!(
        !timed_out,
        "{bin} {args:?} was still running after {limit:?}: killed its process group\n\
         stdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    out
}

/// The output of `cmd` (stdin closed, stdout and stderr captured), run in a new process group;
/// `true` with it when the group had to be killed after `limit`.
pub fn output_within(cmd: &mut Command, limit: Duration) -> (Output, bool) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = spawn_patiently(cmd);
    let out = drain(child.stdout.take().expect("piped stdout"));
    let err = drain(child.stderr.take().expect("piped stderr"));
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if Instant::now() >= deadline {
            // Where each of its threads waits, for the failure to show.
            eprintln!(
                "{:?} ran past {limit:?}; its threads:\n{}",
                cmd.get_program(),
                group_threads(child.id())
            );
            kill_group(&mut child);
            timed_out = true;
            break child.wait().expect("wait for the killed child");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // A process that left the group (fio's job processes call setsid) may
    // still hold the pipes: wait for their end within what is left of the
    // limit (at least half a minute: a loaded machine may take seconds to
    // run the reader after the exit), not forever.
    let drained = deadline.max(Instant::now() + Duration::from_secs(30));
    let output = Output {
        status,
        stdout: out.recv_by(drained, cmd),
        stderr: err.recv_by(drained, cmd),
    };
    (output, timed_out)
}

/// The bytes a [`drain`] thread read, once its pipe is closed.
struct Drained(std::sync::mpsc::Receiver<Vec<u8>>);

impl Drained {
    /// The bytes, or a panic when the pipe is still open at `deadline`.
    fn recv_by(&self, deadline: Instant, cmd: &Command) -> Vec<u8> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.0.recv_timeout(left).unwrap_or_else(|_| {
            panic!(
                "{:?} exited, but a process it started still holds its output open",
                cmd.get_program()
            )
        })
    }
}

/// `cmd` spawned; a fork the machine refuses for want of memory or processes (EAGAIN, ENOMEM:
/// a loaded CI machine, for a moment) is tried again a second later, up to ten times, saying so.
pub fn spawn_patiently(cmd: &mut Command) -> Child {
    let mut tries = 1;
    loop {
        match cmd.spawn() {
            Ok(child) => return child,
            Err(e)
                if tries < 10 && matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::ENOMEM)) =>
            {
                eprintln!("{:?}: {e}; trying again", cmd.get_program());
                tries += 1;
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(e) => panic!("{:?} runs: {e}", cmd.get_program()),
        }
    }
}

/// Where every thread of process group `pgid` waits (`rfio-conformance --threads`: state,
/// kernel wait channel and, where gdb is installed, frames in rfio's source).
pub fn group_threads(pgid: u32) -> String {
    Command::new(env!("CARGO_BIN_EXE_rfio-conformance"))
        .arg(format!("--threads={pgid}"))
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_else(|e| format!("  (rfio-conformance --threads: {e})\n"))
}

/// Kill the process group that `child` leads (it was spawned with `process_group(0)`).
pub fn kill_group(child: &mut Child) {
    let pgid = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
    // SAFETY: kill(2) takes no pointers; the negative id names the group this child leads, which
    // holds only processes this test started.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    let _ = child.kill();
}

fn drain(mut from: impl Read + Send + 'static) -> Drained {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = from.read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    Drained(rx)
}

/// Run rfio with `args` in `dir`.
/// rfio with `args` in `dir`, as fio `release` (`3.NN`, through
/// `RFIO_FIO_VERSION`); a run past [`RUN_LIMIT`] fails the test.
pub fn rfio_as(dir: &TempDir, release: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(RFIO);
    cmd.current_dir(&dir.0)
        .args(args)
        .env("RFIO_FIO_VERSION", release);
    let (out, timed_out) = output_within(&mut cmd, RUN_LIMIT);
    assert!(!timed_out, "rfio {args:?} hung");
    out
}

pub fn rfio(dir: impl AsRef<Path>, args: &[&str]) -> Output {
    run_in(RFIO, dir, args)
}

/// What to do when real fio is missing: the tests that compare with it fail, never skip.
pub const NEED_FIO: &str = "real fio 3.33 is needed to compare with: apt-get install -y fio";

/// Real fio 3.33 on PATH, as the program name to run; panics with the install hint
/// ([`NEED_FIO`]) when it is missing or another version.
pub fn real_fio() -> &'static str {
    static CHECKED: OnceLock<Result<(), String>> = OnceLock::new();
    let checked = CHECKED.get_or_init(|| {
        let out = Command::new("fio")
            .arg("--version")
            .output()
            .map_err(|e| format!("fio does not run: {e}"))?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && version == "fio-3.33" {
            Ok(())
        } else {
            Err(format!("fio --version says {version:?}"))
        }
    });
    if let Err(why) = checked {
        panic!("{NEED_FIO} ({why})");
    }
    "fio"
}

/// Real fio: always `Some` (kept for the tests written as `let Some(fio) = fio() else ...`);
/// panics with the install hint when fio is missing, as [`real_fio`] does.
pub fn fio() -> Option<&'static str> {
    Some(real_fio())
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A process running beside the test, in a process group of its own, its stdout and stderr
/// collected as they come: the test waits for what it prints (a sign that it is ready) rather
/// than for a guessed time. Dropping it kills the group.
pub struct Running {
    child: Child,
    out: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    err: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
}

impl Running {
    /// Start `cmd` with stdin closed and stdout and stderr piped to the test.
    pub fn start(cmd: &mut Command) -> Running {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("{:?} starts: {e}", cmd.get_program()));
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let err = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let readers = vec![
            collect(child.stdout.take().expect("piped stdout"), out.clone()),
            collect(child.stderr.take().expect("piped stderr"), err.clone()),
        ];
        Running {
            child,
            out,
            err,
            readers,
        }
    }

    /// The process id.
    pub fn pid(&self) -> libc::pid_t {
        libc::pid_t::try_from(self.child.id()).expect("a pid fits pid_t")
    }

    /// What it printed on stdout so far.
    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&self.out.lock().unwrap()).into_owned()
    }

    /// Wait until `ready` holds of its stdout so far; panics (showing what it printed) when it
    /// exits first or `limit` passes.
    pub fn wait_for_stdout(&mut self, what: &str, limit: Duration, ready: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + limit;
        loop {
            if ready(&self.stdout_so_far()) {
                return;
            }
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                // Let the readers take the last bytes before judging.
                std::thread::sleep(Duration::from_millis(50));
                assert!(
                    ready(&self.stdout_so_far()),
                    "exited ({status}) before {what}: stdout {:?}, stderr {:?}",
                    self.stdout_so_far(),
                    String::from_utf8_lossy(&self.err.lock().unwrap())
                );
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {limit:?}: stdout {:?}",
                self.stdout_so_far()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Send `sig` to the process.
    pub fn signal(&self, sig: libc::c_int) {
        // SAFETY: kill(2) takes no pointers; the pid is this test's own child, not yet reaped.
        let rc = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(rc, 0, "kill({}, {sig})", self.pid());
    }

    /// Whether it has exited (reaping it if so).
    pub fn exited(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_some()
    }

    /// Its output once it exits; past `limit` the group is killed and the test panics with
    /// `why` (what the test expected to end it) and what it printed.
    pub fn finish(mut self, limit: Duration, why: &str) -> Output {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() >= deadline {
                kill_group(&mut self.child);
                let _ = self.child.wait();
                panic!(
                    "still running {limit:?} after {why}: killed; stdout {:?}",
                    self.stdout_so_far()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        let stdout = std::mem::take(&mut *self.out.lock().unwrap());
        let stderr = std::mem::take(&mut *self.err.lock().unwrap());
        Output {
            status,
            stdout,
            stderr,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            kill_group(&mut self.child);
            let _ = self.child.wait();
        }
    }
}

fn collect(
    mut from: impl Read + Send + 'static,
    into: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            into.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    })
}

/// One I/O as a per-I/O latency log (`log_offset=1`) shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedIo {
    /// 0 read, 1 write, 2 trim.
    pub ddir: u8,
    pub len: u64,
    pub offset: u64,
}

/// The I/Os of every job `bin` (rfio or fio) runs for the command line
/// `line` with the null engine, in issue order, from its per-I/O latency
/// logs (`write_lat_log`, `log_avg_msec=0`, `log_offset=1`), job by job.
pub fn logged_ios(bin: &str, line: &str) -> Vec<Vec<LoggedIo>> {
    let dir = TempDir::new("logged-ios");
    let mut argv = vec![
        "--ioengine=null",
        "--write_lat_log=p",
        "--log_avg_msec=0",
        "--log_offset=1",
        "--minimal",
    ];
    argv.extend(line.split_whitespace());
    let out = run_in(bin, &dir, &argv);
    assert!(out.status.success(), "{bin} {line}: {}", stderr(&out));
    let mut jobs = Vec::new();
    while let Ok(text) = std::fs::read_to_string(dir.file(&format!("p_lat.{}.log", jobs.len() + 1)))
    {
        let ios = text
            .lines()
            .map(|l| {
                let f: Vec<u64> = l
                    .split(", ")
                    .map(|v| v.parse().unwrap_or_else(|_| panic!("{bin} {line}: {l:?}")))
                    .collect();
                assert_eq!(f.len(), 6, "{bin} {line}: {l:?}");
                LoggedIo {
                    ddir: u8::try_from(f[2]).expect("a direction"),
                    len: f[3],
                    offset: f[4],
                }
            })
            .collect();
        jobs.push(ios);
    }
    assert!(!jobs.is_empty(), "{bin} {line}: no latency log");
    jobs
}

/// A tmpfs of `mib` MiB mounted on `dir` (root only; `Err` with `mount`'s
/// reason where mounting is not allowed), unmounted on drop.
pub struct Tmpfs<'a>(&'a TempDir);

impl<'a> Tmpfs<'a> {
    pub fn mount(dir: &'a TempDir, mib: u32) -> Result<Tmpfs<'a>, String> {
        let mut cmd = Command::new("mount");
        cmd.args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(&dir.0);
        command_ok(&mut cmd)?;
        Ok(Tmpfs(dir))
    }
}

/// `cmd` ran and succeeded; else what it said (or why it did not run).
fn command_ok(cmd: &mut Command) -> Result<Output, String> {
    match cmd.output() {
        Ok(o) if o.status.success() => Ok(o),
        Ok(o) => Err(format!(
            "{cmd:?}: {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("{cmd:?}: {e}")),
    }
}

impl Drop for Tmpfs<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0 .0).status();
    }
}

/// A loop device over a sparse file of `size` bytes in `dir` (root only;
/// `Err` with the reason where no loop device can be set up), detached on
/// drop. Its path is the `.0` (`/dev/loopN`).
pub struct LoopDevice(pub String);

impl LoopDevice {
    pub fn new(dir: &TempDir, size: u64) -> Result<LoopDevice, String> {
        LoopDevice::with_sector_size(dir, size, 512)
    }

    /// With this logical block size (512 to 4096).
    pub fn with_sector_size(dir: &TempDir, size: u64, sector: u32) -> Result<LoopDevice, String> {
        let img = dir.file(&format!("loop-{sector}.img"));
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(size))
            .map_err(|e| format!("{}: {e}", img.display()))?;
        let mut cmd = Command::new("losetup");
        cmd.args(["-f", "--show", "--sector-size", &sector.to_string()])
            .arg(&img);
        let o = command_ok(&mut cmd)?;
        let dev = String::from_utf8_lossy(&o.stdout).trim().to_string();
        match dev.starts_with("/dev/loop") {
            true => Ok(LoopDevice(dev)),
            false => Err(format!("{cmd:?} printed {dev:?}")),
        }
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.0]).status();
    }
}
