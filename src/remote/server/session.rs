//! One client's connection to the server (fio's connection process): read
//! its messages, parse the job files it sends, run them on RUN, and
//! answer probes and ETA requests while they run. The jobs run in this
//! process, which the listener started for this connection alone, so a
//! client's jobs, working directory and output settings never touch
//! another client's.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::time::Duration;

use super::conn::Conn;
use super::policy;
use super::results;
use crate::cli::args::{self, Args};
use crate::cli::eta;
use crate::jobfile::subst::Keywords;
use crate::plan::{Input, Plan};
use crate::run::{Invocation, Outcome, Watch};
use crate::stats::RunReport;
use crate::wire::body::{self, JobLine, LoadFile, ProbeReply, ProbeRequest, Start};
use crate::wire::frame::{Accept, Op, Reader, Version};
use crate::workload::{self, Progress, RunError};

/// The largest message a client may send (a job file; fio's cap is 2 GiB).
const MAX_MESSAGE: usize = 16 << 20;

/// What the server allows this connection.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    /// Called as `fio`: read job files as fio does.
    pub(crate) as_fio: bool,
    /// The wire version of the release the server behaves as, which it
    /// answers in (fio's `FIO_SERVER_VER`).
    pub(crate) version: Version,
    /// `RFIO_SERVER_TOKEN`: every job text must carry it.
    pub(crate) token: Option<String>,
    /// `--server-jail`: the canonical directory the jobs are confined to
    /// (the connection works in it).
    pub(crate) jail: Option<PathBuf>,
    /// The server's own address of this connection (TCP), which
    /// `unique_filename` puts before generated file names, as fio's.
    pub(crate) file_prefix: Option<String>,
}

/// Where ETA requests go while the jobs run.
#[derive(Default)]
struct EtaDesk {
    running: Mutex<Option<Sender<u64>>>,
}

/// What the client has sent so far.
#[derive(Default)]
struct Jobs {
    /// Its JOBLINE arguments, program name left out.
    argv: Vec<String>,
    texts: Vec<(PathBuf, Vec<u8>)>,
    /// Every job text carried the token (or none is asked for).
    token_ok: bool,
    /// Jobs and statistics outputs so far (START's counts).
    start: Start,
}

/// Serve the client on `sock` until it leaves; returns the process status.
pub(crate) fn serve(sock: File, rules: &Rules) -> i32 {
    let Ok(out) = sock.try_clone() else {
        return 1;
    };
    if let Some(jail) = &rules.jail {
        if std::env::set_current_dir(jail).is_err() {
            return 1;
        }
    }
    let conn = Conn::new(out, rules.version);
    let mut reader = Reader::new(sock, Accept::Range(0, u16::MAX), MAX_MESSAGE);
    let desk = EtaDesk::default();
    let stop = workload::Stop::new();
    let ran = AtomicBool::new(false);
    let mut jobs = Jobs {
        token_ok: rules.token.is_none(),
        ..Jobs::default()
    };
    let mut first = true;
    let status = std::thread::scope(|scope| loop {
        let msg = match reader.next_message() {
            Ok(m) => m,
            Err(e) if e.is_disconnect() => {
                // The client left: its jobs stop, as fio's do.
                stop.request();
                return 0;
            }
            Err(e) => {
                conn.text(body::LEVEL_ERR, &format!("{e}\n"));
                stop.request();
                return 1;
            }
        };
        if first {
            first = false;
            // Called as fio, the server speaks its release's version only,
            // as fio's: a client in another is told so, in that version.
            // Called as rfio, the client's version decides the layouts of
            // the replies.
            if rules.as_fio && msg.version != rules.version {
                eprintln!(
                    "fio: client/server version mismatch ({} != {})",
                    msg.version, rules.version
                );
                conn.text(
                    body::LEVEL_ERR,
                    &format!("fio: bad server cmd version {}\n", msg.version),
                );
                return 1;
            }
            if !results::speaks(msg.version) {
                conn.text(
                    body::LEVEL_ERR,
                    &format!("fio: bad server cmd version {}\n", msg.version),
                );
                return 1;
            }
            conn.set_version(msg.version);
            reader.set_accept(Accept::Exact(msg.version));
        }
        match msg.op {
            Op::Probe => {
                let _ = ProbeRequest::decode(&msg.body);
                conn.send(Op::Probe, msg.tag, &probe_reply().encode());
            }
            Op::JobLine => match JobLine::decode(&msg.body) {
                Ok(line) => {
                    jobs.argv.extend(line.args.into_iter().skip(1));
                    if !accept(&conn, &mut jobs, rules) {
                        return 1;
                    }
                }
                Err(e) => return refuse(&conn, &format!("fio: {e}\n")),
            },
            Op::Job => match body::Job::decode(&msg.body) {
                Ok(job) => {
                    let name = PathBuf::from(format!("<job file {}>", jobs.texts.len() + 1));
                    if !add_text(&conn, &mut jobs, name, job.text, rules)
                        || !accept(&conn, &mut jobs, rules)
                    {
                        return 1;
                    }
                }
                Err(e) => return refuse(&conn, &format!("fio: {e}\n")),
            },
            Op::LoadFile => match LoadFile::decode(&msg.body) {
                Ok(lf) => {
                    if !load_server_file(&conn, &mut jobs, Path::new(&lf.path), rules)
                        || !accept(&conn, &mut jobs, rules)
                    {
                        return 1;
                    }
                }
                Err(e) => return refuse(&conn, &format!("fio: {e}\n")),
            },
            Op::Run if ran.swap(true, Ordering::SeqCst) => {}
            Op::Run => {
                let (conn, desk, stop) = (&conn, &desk, &stop);
                let (argv, texts) = (jobs.argv.clone(), std::mem::take(&mut jobs.texts));
                let token_ok = jobs.token_ok;
                scope.spawn(move || {
                    if !token_ok {
                        return conn.deny(TOKEN_REFUSAL);
                    }
                    let status = run_jobs(conn, desk, stop, &argv, texts, rules);
                    conn.stop_and_quit(status);
                });
            }
            Op::SendEta => {
                let sent = desk
                    .running
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .is_some_and(|tx| tx.send(msg.tag).is_ok());
                if !sent {
                    conn.send(Op::Eta, msg.tag, &results::idle_eta(jobs.start.jobs));
                }
            }
            // fio's QUIT from a client stops its jobs, as a local Ctrl-C.
            Op::Quit => stop.request(),
            Op::Exit => {
                stop.request();
                return 0;
            }
            Op::UpdateJob => {
                // rfio keeps no options image to update: fio's answer for a
                // job it does not have.
                conn.send(Op::UpdateJob, msg.tag, &body::encode_update_job_reply(19));
            }
            other => {
                conn.text(
                    body::LEVEL_ERR,
                    &format!("fio: unknown opcode: {}\n", other.name()),
                );
                stop.request();
                return 1;
            }
        }
    });
    linger(&conn, &mut reader, status)
}

/// End the session: say no more, then read and drop what the client still
/// sends until it closes (for at most 5 s), so that closing with its bytes
/// unread does not reset the connection and lose the last messages (a
/// refusal's text) before the client reads them.
fn linger(conn: &Conn, reader: &mut Reader<File>, status: i32) -> i32 {
    conn.close_write();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(5));
        std::process::exit(status);
    });
    while reader.next_message().is_ok() {}
    status
}

/// Send a refusal and end the session as fio does (TEXT, then QUIT).
fn refuse(conn: &Conn, text: &str) -> i32 {
    conn.text(body::LEVEL_ERR, text);
    conn.send(Op::Quit, 0, &[]);
    1
}

/// The PROBE reply: this machine, and fio's version rfio answers for. It
/// compresses nothing (it sends no IOLOG).
fn probe_reply() -> ProbeReply {
    let (os, arch) = ProbeReply::this_machine();
    let mut host = [0u8; 256];
    // SAFETY: the buffer is valid for its length, and gethostname writes at
    // most that many bytes.
    let ok = unsafe { libc::gethostname(host.as_mut_ptr().cast(), host.len()) } == 0;
    let end = host.iter().position(|&c| c == 0).unwrap_or(0);
    let hostname = match ok {
        true => String::from_utf8_lossy(&host[..end]).into_owned(),
        false => String::new(),
    };
    ProbeReply {
        hostname,
        bigendian: u8::from(cfg!(target_endian = "big")),
        fio_version: crate::cli::usage::FIO_VERSION.to_string(),
        os,
        arch,
        bpp: std::mem::size_of::<usize>() as u8,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        flags: 0,
    }
}

/// Keep a job text, or refuse it (false: the session is over): with a
/// token, a text without it is refused before it is parsed (a parse
/// could echo server-side text in its errors); in a jail, a text with an
/// `include` is refused (an include would read a file of the server's).
fn add_text(conn: &Conn, jobs: &mut Jobs, name: PathBuf, text: Vec<u8>, rules: &Rules) -> bool {
    if let Some(token) = &rules.token {
        if !policy::token_matches(&text, token) {
            conn.deny(TOKEN_REFUSAL);
            return false;
        }
        jobs.token_ok = true;
    }
    if let Some(jail) = &rules.jail {
        if policy::has_include(&text) {
            conn.deny(&format!(
                "rfio: include is refused in the jail {} (it reads files of the server's)\n",
                jail.display()
            ));
            return false;
        }
    }
    jobs.texts.push((name, text));
    true
}

/// What a client without the token is told.
const TOKEN_REFUSAL: &str = "rfio: this server requires a token: add the line \
     '# rfio-token: ${RFIO_SERVER_TOKEN}' to the job file and set RFIO_SERVER_TOKEN where the \
     client runs\n";

/// A job file of the server's own (LOAD_FILE, or a file named in a
/// JOBLINE): read it here, inside the jail if there is one.
fn load_server_file(conn: &Conn, jobs: &mut Jobs, path: &Path, rules: &Rules) -> bool {
    if let Some(jail) = &rules.jail {
        let cwd = std::env::current_dir().unwrap_or_default();
        if !policy::inside_jail(jail, &cwd, path) {
            conn.deny(&format!(
                "rfio: {} is outside the jail {}\n",
                policy::shown(&path.to_string_lossy()),
                jail.display()
            ));
            return false;
        }
    }
    match std::fs::read(path) {
        Ok(text) => add_text(conn, jobs, path.to_path_buf(), text, rules),
        Err(e) => {
            refuse(
                conn,
                &format!(
                    "fio: unable to open '{}' job file: {e}\n",
                    policy::shown(&path.to_string_lossy())
                ),
            );
            false
        }
    }
}

/// The command line the client sent, read as rfio reads its own.
fn parse_args(argv: &[String], rules: &Rules) -> Result<Args, crate::remote::Error> {
    let mut a = args::parse(argv).map_err(crate::remote::Error::Args)?;
    a.compat = Some(if rules.as_fio {
        crate::jobfile::Mode::Fio
    } else {
        crate::jobfile::Mode::Strict
    });
    Ok(a.called_as(None))
}

/// After a JOB, JOBLINE or LOAD_FILE: parse everything so far and answer
/// START with the counts, or the errors and QUIT (false: the session is
/// over).
fn accept(conn: &Conn, jobs: &mut Jobs, rules: &Rules) -> bool {
    if rules.token.is_some() && !jobs.token_ok {
        // Nothing is parsed or read before a text with the token came (a
        // JOBLINE comes first): fio's START for a command line of flags.
        conn.send(Op::Start, 0, &Start::default().encode());
        return true;
    }
    let mut a = match parse_args(&jobs.argv, rules) {
        Ok(a) => a,
        Err(e) => {
            refuse(conn, &e.to_string());
            return false;
        }
    };
    // Job files named on the client's command line are the server's.
    let files = std::mem::take(&mut a.job_files);
    for path in &files {
        if !load_server_file(conn, jobs, path, rules) {
            return false;
        }
    }
    // Loaded once: they leave the command line (the values of its flags
    // stay, `--output-format terse` as two arguments too).
    jobs.argv
        .retain(|arg| arg.starts_with('-') || !files.iter().any(|f| f.as_os_str() == arg.as_str()));
    let stop = workload::Stop::new();
    let inv = invocation(&a, jobs.texts.clone(), &stop, rules);
    match crate::run::plan_only(&inv) {
        Ok(front) => {
            jobs.start = Start {
                jobs: front.fe.plan.jobs.len() as u32,
                stat_outputs: stat_outputs(&front.fe.plan),
            };
            conn.send(Op::Start, 0, &jobs.start.encode());
            true
        }
        Err(e) => {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let _ = crate::cli::report::report_error(
                e,
                &crate::cli::report::formats(&a),
                &a,
                &mut out,
                &mut err,
            );
            conn.text(body::LEVEL_INFO, &String::from_utf8_lossy(&out));
            refuse(conn, &String::from_utf8_lossy(&err));
            false
        }
    }
}

/// How many statistics blocks the run will send: one per job, less those
/// `group_reporting` folds into the one before (fio's `stat_number`).
fn stat_outputs(plan: &Plan) -> u32 {
    let mut n = 0;
    let mut last_group = None;
    for j in &plan.jobs {
        let info = &j.report;
        if !info.stats.stats {
            continue;
        }
        let joins = n > 0 && info.group_reporting && last_group == Some(info.group_id);
        last_group = Some(info.group_id);
        if !joins {
            n += 1;
        }
    }
    n
}

/// What to run: the client's command line and job texts, read as a
/// server reads them.
fn invocation<'a>(
    a: &Args,
    texts: Vec<(PathBuf, Vec<u8>)>,
    stop: &'a workload::Stop,
    rules: &Rules,
) -> Invocation<'a> {
    Invocation {
        job_files: Vec::new(),
        job_texts: texts,
        input: Input {
            files_share_group: true,
            file_prefix: rules.file_prefix.clone(),
            ..Input::from(a)
        },
        keywords: Keywords::from_system(),
        stop,
        bandwidth_log: None,
        idle_prof: None,
    }
}

/// Run the jobs the client sent; returns fio's exit value for STOP.
fn run_jobs(
    conn: &Conn,
    desk: &EtaDesk,
    stop: &workload::Stop,
    argv: &[String],
    texts: Vec<(PathBuf, Vec<u8>)>,
    rules: &Rules,
) -> u32 {
    let a = match parse_args(argv, rules) {
        Ok(a) => a,
        Err(e) => {
            conn.text(body::LEVEL_ERR, &e.to_string());
            return 1;
        }
    };
    if let Some(jail) = &rules.jail {
        let cwd = std::env::current_dir().unwrap_or_default();
        // `--aux-path` is where verify states are written and read.
        if let Some(aux) = a
            .aux_path
            .as_deref()
            .filter(|p| !policy::inside_jail(jail, &cwd, p))
        {
            conn.text(
                body::LEVEL_ERR,
                &format!(
                    "rfio: --aux-path={} is outside the jail {}\n",
                    policy::shown(&aux.to_string_lossy()),
                    jail.display()
                ),
            );
            return policy::REFUSED;
        }
        let inv = invocation(&a, texts.clone(), stop, rules);
        if let Ok(front) = crate::run::plan_only(&inv) {
            let refused = policy::jail_refusals(jail, &cwd, &front.fe.plan);
            if !refused.is_empty() {
                for r in refused {
                    conn.text(body::LEVEL_ERR, &format!("rfio: {r}\n"));
                }
                return policy::REFUSED;
            }
        }
    }
    let formats = crate::cli::report::formats(&a);
    let inv = invocation(&a, texts, stop, rules);
    let mut watch = ServerWatch {
        conn,
        desk,
        normal: formats.normal,
        formats,
        status_interval_ms: a.status_interval_ms,
        logs: Vec::new(),
    };
    match crate::run::run(inv, &mut watch) {
        Ok(Outcome::Ran(report)) => {
            results::send_logs(conn, &watch.logs);
            results::send_report(conn, &report);
            if formats.normal {
                conn.text(body::LEVEL_INFO, "\n");
            }
            failed_jobs(&report)
        }
        Ok(Outcome::Parsed) => 0,
        Ok(Outcome::ShowCmd(_)) => 0,
        Err(e) => {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let _ = crate::cli::report::report_error(e, &formats, &a, &mut out, &mut err);
            conn.text(body::LEVEL_INFO, &String::from_utf8_lossy(&out));
            conn.text(body::LEVEL_ERR, &String::from_utf8_lossy(&err));
            1
        }
    }
}

fn failed_jobs(report: &RunReport) -> u32 {
    report
        .jobs
        .iter()
        .filter(|j| j.error != 0 || j.setup_failed)
        .count() as u32
}

/// The jobs' messages to the client: fio's `log_info` and `log_err` as TEXT.
struct TextLog<'a> {
    conn: &'a Conn,
    normal: bool,
}

impl workload::Log for TextLog<'_> {
    fn info(&self, text: &str) {
        self.conn.text(body::LEVEL_INFO, text);
    }

    fn err(&self, text: &str) {
        self.conn.text(body::LEVEL_ERR, text);
    }

    fn layout(&self, text: &str) {
        if self.normal {
            self.conn.text(body::LEVEL_INFO, text);
        }
    }
}

/// What the server does around the jobs: banners as TEXT, SERVER_START as
/// each job starts, ETA replies while they run.
struct ServerWatch<'a> {
    conn: &'a Conn,
    desk: &'a EtaDesk,
    normal: bool,
    formats: crate::output::Formats,
    /// `--status-interval` from the client: interim reports as messages.
    status_interval_ms: Option<u64>,
    /// The logs the jobs write, sent to the client once they are over.
    logs: Vec<results::LogFile>,
}

impl Watch for ServerWatch<'_> {
    fn warnings(&mut self, lines: &[String]) -> std::io::Result<()> {
        for l in lines {
            self.conn.text(body::LEVEL_ERR, &format!("{l}\n"));
        }
        Ok(())
    }

    fn starting(&mut self, plan: &Plan) -> std::io::Result<()> {
        self.logs = results::log_files(plan);
        if self.normal {
            let jobs = || plan.jobs.iter().map(|j| &j.report);
            for line in crate::output::normal::banners(jobs()).split_inclusive('\n') {
                self.conn.text(body::LEVEL_INFO, line);
            }
            self.conn
                .text(body::LEVEL_INFO, &crate::output::normal::starting(jobs()));
        }
        Ok(())
    }

    fn running(
        &mut self,
        plan: &Plan,
        progress: &Progress,
        jobs: &mut dyn FnMut(&dyn workload::Log) -> Result<RunReport, RunError>,
    ) -> std::io::Result<Result<RunReport, RunError>> {
        let (tx, rx) = mpsc::channel();
        *self.desk.running.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        let done = AtomicBool::new(false);
        let conn = self.conn;
        let reports = self.status_interval_ms.map(|ms| {
            let dest = crate::cli::status::Dest::Stdout;
            crate::cli::status::StatusReports::new(plan, progress, self.formats, dest, Some(ms))
        });
        let result = std::thread::scope(|s| {
            let done = &done;
            s.spawn(move || eta_service(conn, plan, progress, &rx, done, reports));
            let log = TextLog {
                conn,
                normal: self.normal,
            };
            let r = jobs(&log);
            // No more requests to this service, then it answers those it
            // has and ends.
            *self.desk.running.lock().unwrap_or_else(|e| e.into_inner()) = None;
            done.store(true, Ordering::Release);
            r
        });
        Ok(result)
    }
}

/// While the jobs run: SERVER_START for each job as it starts, and the
/// answers to ETA requests (each within milliseconds; fio's client gives
/// up after 5 s).
fn eta_service(
    conn: &Conn,
    plan: &Plan,
    progress: &Progress,
    rx: &Receiver<u64>,
    done: &AtomicBool,
    mut reports: Option<crate::cli::status::StatusReports<'_>>,
) {
    let mut status = eta::Status::new(plan, 0, None);
    let mut announced = vec![false; progress.jobs().len()];
    let announce = |announced: &mut Vec<bool>| {
        for (i, j) in progress.jobs().iter().enumerate() {
            if !announced[i] && j.state() >= workload::progress::JobState::Initialized {
                announced[i] = true;
                conn.send(Op::ServerStart, 0, &[]);
            }
        }
    };
    while !done.load(Ordering::Acquire) {
        announce(&mut announced);
        if let Some(r) = reports.as_mut() {
            // fio's server sends the interim report as the final one's
            // messages, every `--status-interval`.
            if r.due(progress.origin().elapsed().as_millis() as u64) {
                results::send_report(conn, &r.report(progress));
            }
        }
        match rx.recv_timeout(Duration::from_millis(10)) {
            Ok(tag) => {
                let je = eta::jobs_eta_now(&mut status, progress);
                conn.send(Op::Eta, tag, &results::eta_body(je.as_ref(), plan));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    announce(&mut announced);
    // Requests that came as the jobs ended are answered too (a client
    // waits 5 s for each).
    while let Ok(tag) = rx.try_recv() {
        let je = eta::jobs_eta_now(&mut status, progress);
        conn.send(Op::Eta, tag, &results::eta_body(je.as_ref(), plan));
    }
}
