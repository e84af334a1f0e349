//! The servers of one client run and what they told us (fio's
//! `fio_client` list and client.c's statics), the setup (connect, PROBE,
//! JOBLINE, job files, RUN) and the run loop (`fio_handle_clients`): each
//! server's messages as its reader thread hands them over, SEND_ETA about
//! every 0.95 s, the 5 s reply timeout, QUIT on SIGINT/SIGTERM.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::argv::JobSource;
use super::conn::{self, Event, Stream};
use super::eta::Rounds;
use super::files;
use crate::cli::signals;
use crate::output::Formats;
use crate::release::Change;
use crate::stats::clients::{AllClients, ClientsReport, Origin, Stamp};
use crate::stats::OptionList;
use crate::wire::addr::Addr;
use crate::wire::body::{self, JobLine, LoadFile, ProbeRequest, CLIENT_TYPE_CLI, PROBE_ZLIB};
use crate::wire::frame::{FrameError, Op, Version};

/// How long a reply may take (fio's `FIO_NET_CLIENT_TIMEOUT`).
const REPLY_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest wait for a message between two looks at the clock.
const POLL: Duration = Duration::from_millis(100);
/// `ETIMEDOUT`: the error of a server that timed out.
const ETIMEDOUT: u32 = 110;

/// How the run prints and asks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub(crate) formats: Formats,
    /// Called as `fio`: fio 3.33's quirks kept (see the module doc of
    /// `remote::client`).
    pub(crate) as_fio: bool,
    /// `--eta=never`: no SEND_ETA.
    pub(crate) eta: bool,
    pub(crate) eta_interval_ms: u64,
}

/// Where a server is in its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Connected,
    Started,
    Running,
    Stopped,
}

/// A request waiting for its reply.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub(super) op: Op,
    pub(super) tag: u64,
    pub(super) at: Instant,
    /// The ETA round of a SEND_ETA.
    pub(super) round: u64,
}

/// One server (fio's `struct fio_client`).
#[derive(Debug)]
pub(super) struct Client {
    pub(super) addr: Addr,
    /// The host as given (`hostname` in JSON, the log file suffix).
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) forwarded: Vec<String>,
    pub(super) jobs_plan: Vec<JobSource>,
    /// The current connection's id (events of an older one are stale).
    pub(super) conn: usize,
    pub(super) w: Option<Stream>,
    pub(super) version: Version,
    /// Reconnected once in the server's version already.
    pub(super) switched: bool,
    /// A message came on this connection.
    pub(super) got_any: bool,
    pub(super) ran: bool,
    /// The server's host name (PROBE reply), the TEXT prefix.
    pub(super) name: Option<String>,
    pub(super) state: State,
    pub(super) jobs: u32,
    pub(super) nr_stat: u32,
    /// STARTs received, and expected (one per JOBLINE, JOB, LOAD_FILE).
    pub(super) starts: usize,
    pub(super) expect_starts: usize,
    /// What its STARTs added to the expected count of statistics.
    pub(super) stat_added: i64,
    /// `job options` by TS index, once a START gave a job count.
    pub(super) opts: Option<BTreeMap<u32, OptionList>>,
    pub(super) did_stat: bool,
    /// Its global options, kept apart when the JSON document has them per
    /// server (fio 3.39's `global_opts`).
    pub(super) globals: Option<OptionList>,
    pub(super) error: u32,
    pub(super) skip_newline: bool,
    /// The normal/terse report, printed when the server quits.
    pub(super) buf: String,
    pub(super) pending: Vec<Pending>,
    pub(super) eta_round: Option<u64>,
    pub(super) eta_timeouts: u32,
    pub(super) alive: bool,
}

impl Client {
    pub(super) fn origin(&self) -> Origin {
        Origin {
            host: self.host.clone(),
            port: self.port,
        }
    }

    /// The TEXT prefix: the server's own name, else the host given.
    pub(super) fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.host)
    }
}

/// One client run.
pub(crate) struct Session<'a> {
    pub(super) settings: Settings,
    /// In fio's order (the last `--client` first).
    pub(super) clients: Vec<Client>,
    /// Connection id → client.
    pub(super) conns: Vec<usize>,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    pub(super) report: ClientsReport,
    pub(super) all: AllClients,
    /// fio's `sum_stat_clients` and `sum_stat_nr`.
    pub(super) sum_stat_clients: i64,
    pub(super) sum_stat_nr: i64,
    /// The "All clients" text.
    pub(super) allclients: String,
    /// Called as rfio: "All clients" printed already, and the settings and
    /// origin of the last block summed.
    pub(super) all_done: bool,
    pub(super) all_last: Option<(crate::stats::StatsConfig, Origin)>,
    pub(super) error_clients: u32,
    pub(super) retval: bool,
    pub(super) rounds: Rounds,
    next_tag: u64,
    /// Where fio's `log_info` goes (stdout, or the `--output` file).
    pub(super) log: &'a mut dyn Write,
    /// Where the status line goes when not there (stdout, with
    /// `--output`).
    pub(super) tty: Option<&'a mut dyn Write>,
    pub(super) err: &'a mut dyn Write,
}

impl<'a> Session<'a> {
    /// The servers with their job plans (`None`: nothing to send), in the
    /// order given on the command line.
    pub(crate) fn new(
        settings: Settings,
        servers: Vec<(super::argv::Server, Option<Vec<JobSource>>)>,
        newline_ms: Option<u64>,
        log: &'a mut dyn Write,
        tty: Option<&'a mut dyn Write>,
        err: &'a mut dyn Write,
    ) -> Session<'a> {
        let (tx, rx) = channel();
        // fio adds each client at the head of its list.
        let clients = servers
            .into_iter()
            .rev()
            .map(|(s, plan)| Client {
                host: s.addr.host(),
                port: s.addr.port(),
                addr: s.addr,
                forwarded: s.forwarded,
                jobs_plan: plan.unwrap_or_default(),
                conn: usize::MAX,
                w: None,
                version: settings.formats.release.wire_version(),
                switched: false,
                got_any: false,
                ran: false,
                name: None,
                state: State::Connected,
                jobs: 0,
                nr_stat: 0,
                starts: 0,
                expect_starts: 0,
                stat_added: 0,
                opts: None,
                did_stat: false,
                globals: None,
                error: 0,
                skip_newline: false,
                buf: String::new(),
                pending: Vec::new(),
                eta_round: None,
                eta_timeouts: 0,
                alive: true,
            })
            .collect::<Vec<_>>();
        let many = clients.len() > 1;
        Session {
            settings,
            clients,
            conns: Vec::new(),
            tx,
            rx,
            report: ClientsReport {
                release: settings.formats.release,
                per_server: (settings.formats.release.has(Change::ClientGlobalsPerServer) && many)
                    .then(Vec::new),
                ..ClientsReport::default()
            },
            all: AllClients::new(),
            sum_stat_clients: 0,
            sum_stat_nr: 0,
            allclients: String::new(),
            all_done: false,
            all_last: None,
            error_clients: 0,
            retval: false,
            rounds: Rounds::new(!settings.as_fio, newline_ms),
            next_tag: 0x7266_696f_0000_0000,
            log,
            tty,
            err,
        }
    }

    /// Run: connect, send the jobs, start them, handle every server until
    /// each is gone, print the end. The exit status.
    pub(crate) fn run(mut self) -> io::Result<i32> {
        let _handlers = signals::Handlers::install();
        for i in 0..self.clients.len() {
            self.connect(i)?;
        }
        for i in 0..self.clients.len() {
            if self.clients[i].alive {
                self.send_jobs(i)?;
            }
        }
        if self.alive() == 0 {
            return Ok(1);
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        self.report.started = Stamp::local(now);
        for i in 0..self.clients.len() {
            if self.clients[i].alive {
                self.clients[i].ran = true;
                self.send(i, Op::Run, 0, &[]);
            }
        }
        self.run_loop()?;
        self.log.write_all(self.allclients.as_bytes())?;
        if self.settings.formats.json {
            let doc =
                crate::output::client::json_document(&self.report, self.settings.formats.json_plus);
            self.log.write_all(doc.as_bytes())?;
        }
        self.log.flush()?;
        Ok(i32::from(self.retval || self.error_clients > 0))
    }

    fn alive(&self) -> usize {
        self.clients.iter().filter(|c| c.alive).count()
    }

    pub(super) fn tag(&mut self) -> u64 {
        self.next_tag += 0x10;
        self.next_tag
    }

    /// Connect client `i` (a new connection, in its version) and send its
    /// PROBE and JOBLINE; a server that cannot be reached is dropped with
    /// fio's messages.
    pub(super) fn connect(&mut self, i: usize) -> io::Result<()> {
        let (stream, sname) = match conn::connect(&self.clients[i].addr) {
            Ok(s) => s,
            Err(msg) => {
                writeln!(self.err, "{msg}")?;
                return self.remove(i);
            }
        };
        let id = self.conns.len();
        self.conns.push(i);
        let reader = stream
            .try_clone()
            .and_then(|r| conn::spawn_reader(id, r, self.tx.clone()));
        if let Err(e) = reader {
            writeln!(self.err, "fio: client {}: {e}", self.clients[i].host)?;
            return self.remove(i);
        }
        let c = &mut self.clients[i];
        c.conn = id;
        c.w = Some(stream);
        c.got_any = false;
        c.starts = 0;
        c.expect_starts = usize::from(!c.forwarded.is_empty());
        let probe = ProbeRequest {
            flags: PROBE_ZLIB,
            server: sname,
        };
        let tag = self.tag();
        self.clients[i].pending.push(Pending {
            op: Op::Probe,
            tag,
            at: Instant::now(),
            round: 0,
        });
        self.send(i, Op::Probe, tag, &probe.encode());
        if !self.clients[i].forwarded.is_empty() {
            let mut args = vec!["fio".to_string()];
            args.extend(self.clients[i].forwarded.iter().cloned());
            let line = JobLine {
                client_type: CLIENT_TYPE_CLI,
                args,
            };
            self.send(i, Op::JobLine, 0, &line.encode());
        }
        Ok(())
    }

    /// Send client `i` its job files (JOB, or LOAD_FILE for a remote one);
    /// a server with none, or whose file cannot be read, is dropped.
    pub(super) fn send_jobs(&mut self, i: usize) -> io::Result<()> {
        let plan = self.clients[i].jobs_plan.clone();
        if plan.is_empty() {
            // fio drops such a server without a word.
            if !self.settings.as_fio {
                writeln!(self.err, "rfio: no job file for {}", self.clients[i].host)?;
            }
            return self.remove(i);
        }
        for src in &plan {
            let body = match src {
                JobSource::Local(path) => match files::job_text(path) {
                    Ok(text) => (
                        Op::Job,
                        body::Job {
                            client_type: u32::from(CLIENT_TYPE_CLI),
                            text,
                        }
                        .encode(),
                    ),
                    Err(msg) => {
                        writeln!(self.err, "{msg}")?;
                        return self.remove(i);
                    }
                },
                JobSource::Remote(path) => (
                    Op::LoadFile,
                    LoadFile {
                        client_type: CLIENT_TYPE_CLI,
                        path: path.clone(),
                    }
                    .encode(),
                ),
            };
            self.clients[i].expect_starts += 1;
            self.send(i, body.0, 0, &body.1);
        }
        Ok(())
    }

    /// Send a message to client `i`. A write that fails is left to the
    /// reader to notice (the server closed); one that cannot complete in
    /// time closes the connection.
    pub(super) fn send(&mut self, i: usize, op: Op, tag: u64, body: &[u8]) {
        let c = &mut self.clients[i];
        let Some(w) = c.w.as_mut() else { return };
        if let Err(e) = conn::send(w, c.version, op, tag, body) {
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) {
                w.shutdown();
            }
        }
    }

    /// fio's `fio_handle_clients`.
    fn run_loop(&mut self) -> io::Result<()> {
        let mut eta_at = Instant::now();
        let mut quit_sent = false;
        let slack = Duration::from_millis(self.settings.eta_interval_ms * 95 / 100);
        while self.alive() > 0 {
            let now = Instant::now();
            if now.duration_since(eta_at) > slack {
                self.request_etas()?;
                eta_at = now;
                self.check_timeouts()?;
                continue;
            }
            if signals::received().is_some() && !quit_sent {
                quit_sent = true;
                for i in 0..self.clients.len() {
                    if self.clients[i].alive {
                        self.send(i, Op::Quit, 0, &[]);
                    }
                }
            }
            match self.rx.recv_timeout(POLL) {
                Ok(Event::Message { server, msg }) => {
                    if let Some(i) = self.current(server) {
                        self.handle(i, msg)?;
                        if self.clients[i].error != 0 {
                            self.retval = true;
                        }
                    }
                }
                Ok(Event::Ended { server, error }) => {
                    if let Some(i) = self.current(server) {
                        self.ended(i, error)?;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Ok(())
    }

    /// The live client whose current connection is `conn`.
    fn current(&self, conn: usize) -> Option<usize> {
        let i = *self.conns.get(conn)?;
        let c = &self.clients[i];
        (c.alive && c.conn == conn).then_some(i)
    }

    /// Client `i`'s connection ended before its QUIT (or a message could
    /// not be read): fio's errors, `client: host=H disconnected`.
    fn ended(&mut self, i: usize, error: FrameError) -> io::Result<()> {
        if let FrameError::Version(v) = error {
            writeln!(self.err, "fio: bad server cmd version {v}")?;
            writeln!(
                self.err,
                "fio: client/server version mismatch ({v} != {})",
                self.clients[i].version
            )?;
        } else if !error.is_disconnect() {
            writeln!(self.err, "{error}")?;
        }
        self.disconnected(i)
    }

    /// Drop client `i` as fio does when it goes without QUIT.
    pub(super) fn disconnected(&mut self, i: usize) -> io::Result<()> {
        writeln!(
            self.log,
            "client: host={} disconnected",
            self.clients[i].host
        )?;
        self.retval = true;
        self.remove(i)
    }

    /// fio's `remove_client`: close, end its part of an ETA round, print its
    /// report; a server that sent no statistics takes one off the expected
    /// count, one with an error counts as failed.
    pub(super) fn remove(&mut self, i: usize) -> io::Result<()> {
        let c = &mut self.clients[i];
        if !c.alive {
            return Ok(());
        }
        c.alive = false;
        if let Some(w) = c.w.take() {
            w.shutdown();
        }
        c.pending.clear();
        let round = c.eta_round.take();
        let buf = std::mem::take(&mut c.buf);
        let (did_stat, error, added) = (c.did_stat, c.error, c.stat_added);
        if let Some(id) = round {
            self.round_done(id)?;
        }
        self.log.write_all(buf.as_bytes())?;
        self.log.flush()?;
        if !did_stat {
            // fio takes one off whatever the server announced; rfio what
            // it announced.
            self.sum_stat_clients -= if self.settings.as_fio { 1 } else { added };
        }
        if error != 0 {
            self.error_clients += 1;
        }
        self.all_clients_when_complete();
        Ok(())
    }

    /// fio's `request_client_etas`: a SEND_ETA to each running server
    /// without one in flight; the servers still busy with one count as
    /// answered.
    fn request_etas(&mut self) -> io::Result<()> {
        if !self.settings.eta {
            return Ok(());
        }
        let id = self.rounds.start(self.alive());
        let (mut skipped, mut asked) = (0, 0);
        for i in 0..self.clients.len() {
            let c = &self.clients[i];
            if !c.alive {
                continue;
            }
            if c.eta_round.is_some() {
                skipped += 1;
                continue;
            }
            if c.state != State::Running {
                continue;
            }
            let tag = self.tag();
            let c = &mut self.clients[i];
            c.eta_round = Some(id);
            c.pending.push(Pending {
                op: Op::SendEta,
                tag,
                at: Instant::now(),
                round: id,
            });
            asked += 1;
            self.send(i, Op::SendEta, tag, &[]);
        }
        if skipped == 0 && asked == 0 {
            // No one will answer: fio never prints it.
            self.rounds.forget(id);
        }
        for _ in 0..skipped {
            if self.round_done(id)? {
                break;
            }
        }
        Ok(())
    }

    /// One server of round `id` is done; prints the line when the round
    /// is complete (whether it was).
    pub(super) fn round_done(&mut self, id: u64) -> io::Result<bool> {
        match self.rounds.done_one(id, Instant::now()) {
            Some(line) => {
                self.show_eta(&line)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Print a status line (not with JSON output, as fio).
    pub(super) fn show_eta(&mut self, line: &str) -> io::Result<()> {
        if self.settings.formats.json {
            return Ok(());
        }
        let w: &mut dyn Write = match self.tty.as_mut() {
            Some(t) => &mut **t,
            None => &mut *self.log,
        };
        w.write_all(line.as_bytes())?;
        w.flush()
    }

    /// fio's `fio_check_clients_timed_out`: replies older than 5 s. A late
    /// ETA is tolerated up to 6 times in a row; any other late reply (or
    /// the 7th ETA) fails the server.
    fn check_timeouts(&mut self) -> io::Result<()> {
        let now = Instant::now();
        for i in 0..self.clients.len() {
            if !self.clients[i].alive || self.clients[i].pending.is_empty() {
                continue;
            }
            let (late, kept): (Vec<Pending>, Vec<Pending>) = self.clients[i]
                .pending
                .iter()
                .partition(|p| now.duration_since(p.at) >= REPLY_TIMEOUT);
            if late.is_empty() {
                continue;
            }
            self.clients[i].pending = kept;
            let mut fatal = false;
            for p in late {
                let mut this_fatal = true;
                if p.op == Op::SendEta {
                    let host = self.clients[i].host.clone();
                    writeln!(self.log, "client <{host}>: timeout on SEND_ETA")?;
                    if let Some(id) = self.clients[i].eta_round.take() {
                        self.round_done(id)?;
                    }
                    let c = &mut self.clients[i];
                    this_fatal = c.eta_timeouts > 5;
                    c.eta_timeouts += 1;
                }
                if this_fatal {
                    writeln!(
                        self.err,
                        "fio: client {}, timeout on cmd {}",
                        self.clients[i].host,
                        p.op.name()
                    )?;
                    fatal = true;
                }
            }
            if fatal && self.clients[i].pending.is_empty() {
                writeln!(self.err, "fio: client {} timed out", self.clients[i].host)?;
                self.clients[i].error = ETIMEDOUT;
                self.remove(i)?;
                self.retval = true;
            }
        }
        Ok(())
    }
}
