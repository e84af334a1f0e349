//! What a client run does with each message of a server (client.c
//! `fio_handle_client` and its `handle_*`), every length, count and index
//! checked: a body that does not fit its message drops the server as a
//! disconnect, never a panic.

use std::io;
use std::time::Instant;

use super::files;
use super::session::{Session, State};
use crate::diag::visible;
use crate::output::client::{block_text, disk_text, group_text};
use crate::release::Change;
use crate::stats::clients::{ClientDisk, ClientStat, Stamp};
use crate::stats::OptionList;
use crate::wire::body::{self, JobOpt, ProbeReply, Start, Stop, Text};
use crate::wire::frame::{Message, Op};
use crate::wire::stats::du::Du;
use crate::wire::stats::eta::Eta;
use crate::wire::stats::gs::decode_gs;
use crate::wire::stats::iolog::decode_iolog;
use crate::wire::stats::layout::layout;
use crate::wire::stats::ts::decode_ts;
use crate::wire::BodyError;

impl Session<'_> {
    /// Handle one message of client `i`.
    pub(super) fn handle(&mut self, i: usize, msg: Message) -> io::Result<()> {
        let c = &self.clients[i];
        if msg.version != c.version {
            // A newer fio answers our first frame with a TEXT in its own
            // version and closes: speak its version, once, if rfio knows
            // its layouts (fio 3.33's client cannot).
            if !c.got_any && !c.switched && layout(msg.version).is_some() {
                return self.reconnect(i, msg.version);
            }
            writeln!(self.err, "fio: bad server cmd version {}", msg.version)?;
            writeln!(
                self.err,
                "fio: client/server version mismatch ({} != {})",
                msg.version, c.version
            )?;
            return self.disconnected(i);
        }
        self.clients[i].got_any = true;
        if let Err(e) = self.dispatch(i, &msg) {
            match e {
                Failure::Io(e) => return Err(e),
                Failure::Body(e) => {
                    writeln!(
                        self.err,
                        "fio: bad {} message from {}: {e}",
                        msg.op.name(),
                        self.clients[i].host
                    )?;
                    return self.disconnected(i);
                }
            }
        }
        Ok(())
    }

    /// Reconnect client `i` speaking `version`, and send it everything
    /// again.
    fn reconnect(&mut self, i: usize, version: u16) -> io::Result<()> {
        let c = &mut self.clients[i];
        if let Some(w) = c.w.take() {
            w.shutdown();
        }
        c.pending.clear();
        c.version = version;
        c.switched = true;
        self.connect(i)?;
        if !self.clients[i].alive {
            return Ok(());
        }
        self.send_jobs(i)?;
        if self.clients[i].alive && self.clients[i].ran {
            self.send(i, Op::Run, 0, &[]);
        }
        Ok(())
    }

    fn dispatch(&mut self, i: usize, msg: &Message) -> Result<(), Failure> {
        let b = &msg.body[..];
        match msg.op {
            Op::Quit => self.remove(i)?,
            Op::Text => self.text(i, &Text::decode(b)?)?,
            Op::Du => self.disk(i, Du::decode(b)?),
            Op::Ts => self.stat(i, b, msg.version)?,
            Op::Gs => {
                let g = decode_gs(b)?;
                let text = group_text(&g, &self.settings.formats);
                self.clients[i].buf.push_str(&text);
            }
            Op::Eta => self.eta(i, msg.tag, b)?,
            Op::Probe => self.probe(i, msg.tag, &ProbeReply::decode(b)?)?,
            Op::ServerStart => self.clients[i].state = State::Running,
            Op::Start => {
                let s = Start::decode(b)?;
                let c = &mut self.clients[i];
                c.state = State::Started;
                c.jobs = s.jobs;
                c.nr_stat = s.stat_outputs;
                if s.jobs > 0 {
                    c.opts = Some(Default::default());
                }
                c.starts += 1;
                c.stat_added += i64::from(s.stat_outputs);
                self.sum_stat_clients += i64::from(s.stat_outputs);
                self.all_clients_when_complete();
            }
            Op::Stop => {
                let s = Stop::decode(b)?;
                let c = &mut self.clients[i];
                c.state = State::Stopped;
                c.error = s.error;
                if s.error != 0 {
                    let host = c.host.clone();
                    writeln!(self.log, "client <{host}>: exited with error {}", s.error)?;
                }
            }
            // The options image is for GUI clients.
            Op::AddJob => {}
            Op::IoLog => match decode_iolog(b, msg.version) {
                Ok(log) => match files::write_iolog(&log, &self.clients[i].host) {
                    Ok(path) if log.name.contains('/') => writeln!(
                        self.err,
                        "fio: log {} of {} written as {path} (in the working directory)",
                        crate::diag::quote(&log.name, 200),
                        self.clients[i].host
                    )?,
                    Ok(_) => {}
                    Err(e) => writeln!(self.err, "{e}")?,
                },
                Err(e) => writeln!(self.err, "fio: failed converting IO log ({e})")?,
            },
            Op::UpdateJob => {
                self.unmatched(i, msg.op, msg.tag)?;
            }
            Op::VTrigger => writeln!(
                self.err,
                "fio: ignoring verify trigger state from {} (rfio's client sends no trigger)",
                self.clients[i].host
            )?,
            Op::SendFile => {
                let path = body::decode_sendfile(b)?;
                let reply = match files::sendfile(&path) {
                    Ok(data) => body::encode_sendfile_reply(0, &data),
                    Err(e) => {
                        writeln!(self.err, "{e}")?;
                        body::encode_sendfile_reply(e.errno(), &[])
                    }
                };
                self.send(i, Op::SendFile, msg.tag, &reply);
            }
            Op::JobOpt => self.job_opt(i, JobOpt::decode(b)?),
            op => writeln!(self.err, "fio: unknown client op: {}", op.name())?,
        }
        Ok(())
    }

    /// fio's `handle_text`: printed at once, `<name> ` before each line
    /// start (none in terse output).
    fn text(&mut self, i: usize, t: &Text) -> io::Result<()> {
        let c = &mut self.clients[i];
        if !c.skip_newline && !self.settings.formats.terse {
            write!(self.log, "<{}> ", c.display_name())?;
        }
        // fio's report as the server made it: its lines kept, the
        // terminal's control sequences shown, not obeyed.
        self.log
            .write_all(crate::diag::printable(&t.text).as_bytes())?;
        self.log.flush()?;
        c.skip_newline = !t.text.contains('\n');
        Ok(())
    }

    /// fio's `handle_probe`: the server's identity line (normal output),
    /// its host name as the TEXT prefix.
    fn probe(&mut self, i: usize, tag: u64, p: &ProbeReply) -> io::Result<()> {
        self.unmatched(i, Op::Probe, tag)?;
        if self.settings.formats.normal {
            // fio's `handle_probe` names an unknown arch by setting `os`.
            let mut os = if p.os < 12 { p.os_name() } else { "unknown" };
            let arch = if p.arch < 15 {
                p.arch_name()
            } else {
                os = "unknown";
                "(null)"
            };
            writeln!(
                self.log,
                "hostname={}, be={}, {}-bit, os={os}, arch={arch}, fio={}, flags={:x}",
                visible(&p.hostname),
                p.bigendian,
                u32::from(p.bpp) * 8,
                visible(&p.fio_version),
                p.flags
            )?;
        }
        let c = &mut self.clients[i];
        if c.name.is_none() {
            c.name = Some(visible(&p.hostname).into_owned());
        }
        Ok(())
    }

    /// Take the request a reply answers off the list; fio's message when
    /// none has its tag. The request, if found.
    fn unmatched(
        &mut self,
        i: usize,
        op: Op,
        tag: u64,
    ) -> io::Result<Option<super::session::Pending>> {
        let c = &mut self.clients[i];
        let want = match op {
            Op::Eta => Op::SendEta,
            other => other,
        };
        match c.pending.iter().position(|p| p.tag == tag && p.op == want) {
            Some(k) => Ok(Some(c.pending.remove(k))),
            None => {
                writeln!(
                    self.err,
                    "fio: client: unable to find matching tag ({tag:x})"
                )?;
                Ok(None)
            }
        }
    }

    /// An ETA reply: into its round; the line when the round is complete.
    fn eta(&mut self, i: usize, tag: u64, b: &[u8]) -> Result<(), Failure> {
        let Some(p) = self.unmatched(i, Op::Eta, tag)? else {
            return Ok(());
        };
        let je = Eta::decode(b)?;
        let c = &mut self.clients[i];
        c.eta_round = None;
        c.eta_timeouts = 0;
        if let Some(line) = self.rounds.reply(p.round, &je, Instant::now()) {
            self.show_eta(&line)?;
        }
        Ok(())
    }

    /// fio's `handle_job_opt`: a global option into the JSON document's
    /// `global options`, a job's into its TS's list (an index past the
    /// server's job count is dropped).
    fn job_opt(&mut self, i: usize, o: JobOpt) {
        if o.global {
            if !self.settings.formats.json {
                return;
            }
            match self.report.per_server.is_some() {
                true => self.clients[i]
                    .globals
                    .get_or_insert_with(OptionList::default)
                    .push(&o.name, &o.value),
                false => self.report.global_options.push(&o.name, &o.value),
            }
            return;
        }
        let c = &mut self.clients[i];
        if o.index >= c.jobs {
            return;
        }
        if let Some(opts) = c.opts.as_mut() {
            opts.entry(o.index).or_default().push(&o.name, &o.value);
        }
    }

    /// fio's `handle_ts`: the block in the server's report (and the JSON
    /// document); into "All clients" when more than one is expected,
    /// printed once they all came.
    fn stat(&mut self, i: usize, b: &[u8], version: u16) -> Result<(), Failure> {
        let (e, g) = decode_ts(b, version)?;
        let f = self.settings.formats;
        let now = Stamp::local(unix_now());
        let c = &mut self.clients[i];
        let options = match (&c.opts, e.thread_number) {
            (Some(opts), n) if n >= 1 && n <= c.jobs => Some(
                opts.get(&(n - 1))
                    .cloned()
                    .unwrap_or_else(OptionList::default),
            ),
            _ => None,
        };
        c.buf.push_str(&block_text(&e, &g, &f, now));
        let first = !c.did_stat;
        c.did_stat = true;
        let origin = c.origin();
        if let (true, Some(servers), Some(globals)) =
            (first, self.report.per_server.as_mut(), c.globals.take())
        {
            servers.push((origin.clone(), globals));
        }
        if f.json {
            self.report.stats.push(ClientStat {
                entry: e.clone(),
                group: g.clone(),
                options,
                origin: origin.clone(),
            });
        }
        // fio sums a block only while more than one is expected, and
        // prints "All clients" each time the count is reached (so twice
        // when a server's START comes after another's blocks); called as
        // rfio, every block is summed and "All clients" printed once, when
        // every server has started and every block came.
        if self.settings.as_fio && self.sum_stat_clients <= 1 {
            return Ok(());
        }
        if f.release.has(Change::AllClientsPercentiles) {
            self.all.take_percentiles(&e);
        }
        self.all.add(&e, &g);
        self.sum_stat_nr += 1;
        if self.settings.as_fio {
            if self.sum_stat_nr == self.sum_stat_clients {
                self.print_all_clients(&origin);
            }
        } else {
            self.all_last = Some((e.cfg.clone(), origin));
            self.all_clients_when_complete();
        }
        Ok(())
    }

    /// Called as rfio: "All clients", once every live server answered
    /// each job file with its START and the blocks announced all came.
    pub(super) fn all_clients_when_complete(&mut self) {
        if self.settings.as_fio || self.all_done {
            return;
        }
        let settled = self
            .clients
            .iter()
            .all(|c| !c.alive || c.starts >= c.expect_starts);
        if !settled || self.sum_stat_clients <= 1 || self.sum_stat_nr != self.sum_stat_clients {
            return;
        }
        let Some((cfg, origin)) = self.all_last.clone() else {
            return;
        };
        self.all_done = true;
        let mut all = self.all.clone();
        all.fix_units_and_percentiles(&cfg);
        self.all = all;
        self.print_all_clients(&origin);
    }

    /// The "All clients" block as it stands, credited to `origin`.
    fn print_all_clients(&mut self, origin: &crate::stats::clients::Origin) {
        let f = self.settings.formats;
        let all = self.all.clone();
        let now = Stamp::local(unix_now());
        self.allclients
            .push_str(&block_text(&all.entry, &all.group, &f, now));
        if f.json {
            self.report.stats.push(ClientStat {
                entry: all.entry,
                group: all.group,
                options: None,
                origin: origin.clone(),
            });
        }
    }

    /// fio's `handle_du`.
    fn disk(&mut self, i: usize, du: Du) {
        let agg = du.aggregate();
        let text = disk_text(&du.disk, agg, &self.settings.formats);
        let c = &mut self.clients[i];
        c.buf.push_str(&text);
        if self.settings.formats.json {
            let origin = c.origin();
            self.report.disks.push(ClientDisk {
                disk: du.disk,
                agg,
                origin,
            });
        }
    }
}

/// Seconds since the epoch.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Why a message could not be handled.
enum Failure {
    /// Writing the output failed.
    Io(io::Error),
    /// The body does not fit its message.
    Body(BodyError),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

impl From<BodyError> for Failure {
    fn from(e: BodyError) -> Failure {
        Failure::Body(e)
    }
}
