//! The `write_iolog` hook (fio's `log_io_u` in `td_io_queue` and
//! `log_file` as files open and close): each I/O the job queues, each
//! sync, and each file its pass closes go to the log
//! ([`crate::workload::iolog::IologWriter`]) with the time on the loop's
//! clock.
//!
//! Call points: [`Iolog::start`] as the loop is made; [`Iolog::on_queue`]
//! for every I/O handed to the engine; [`Iolog::on_sync`] for a sync;
//! [`Iolog::files_closed`] after each draw of the pattern (the files
//! that ran out); [`Iolog::pass_ends`] as a pass (or the writes before a
//! verify phase) end.

use super::super::units::Unit;
use super::Fail;
use crate::ddir::Ddir;
use crate::diag::io_reason;
use crate::workload::iolog::replay::init_verror;
use crate::workload::iolog::IologWriter;
use crate::workload::job::Prepared;
use crate::workload::log::Log;

/// The log a job writes.
pub(crate) struct Iolog {
    w: IologWriter,
}

impl Iolog {
    /// The log of `job`, if it writes one (fio's `init_iolog_write`): a
    /// log that cannot be opened fails the job, after fio's line.
    pub(crate) fn start(job: &Prepared<'_>, log: &dyn Log) -> Result<Option<Iolog>, Fail> {
        let o = &job.spec.iolog;
        if o.write_overridden && job.spec.subjob == 0 {
            log.err("fio: read iolog overrides write_iolog\n");
        }
        let Some(path) = &o.write else {
            return Ok(None);
        };
        let names = job.files.iter().map(|f| f.path.display().to_string());
        match IologWriter::open(path, names.collect()) {
            Ok(w) => Ok(Some(Iolog { w })),
            Err(e) => Err(Fail {
                say: Some(format!("fopen write iolog: {path}: {}\n", io_reason(&e))),
                errno: libc::EINVAL,
                msg: init_verror(job.spec.release),
            }),
        }
    }

    /// Unit `t`, `u`, is queued at `now`.
    #[cold]
    pub(crate) fn on_queue(&mut self, now: u64, t: u32, u: &Unit) {
        let (offset, len) = (u.io.offset, u.io.len as u64);
        self.w.io(now, u.file, u.io.dir, offset, len);
        self.w.unit_offset(t, offset);
    }

    /// A sync of file `fi` goes out on unit `t` at `now` (fio logs the
    /// unit's last offset with it).
    #[cold]
    pub(crate) fn on_sync(&mut self, now: u64, t: u32, fi: usize, dir: Ddir) {
        let offset = self.w.last_offset(t);
        self.w.io(now, fi, dir, offset, 0);
    }

    /// The files of `closed` ran out at `now` (the generator's list,
    /// emptied here).
    #[cold]
    pub(crate) fn files_closed(&mut self, now: u64, closed: &mut Vec<usize>) {
        for f in closed.drain(..) {
            self.w.close(now, f);
        }
    }

    /// The pass is over at `now`: its files closed.
    #[cold]
    pub(crate) fn pass_ends(&mut self, now: u64) {
        self.w.pass_over(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::Clock;
    use crate::workload::exec::testing::{fake_clock, Lines};

    fn job(tag: &str, more: &[&str]) -> (crate::plan::spec::JobSpec, std::path::PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("rfio-hook-iolog-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("w.log");
        let _ = std::fs::remove_file(&log);
        let w = format!("--write_iolog={}", log.display());
        let d = format!("--directory={}", dir.display());
        let mut argv = vec!["--name=j", "--ioengine=null", "--size=64k", &w, &d];
        argv.extend_from_slice(more);
        (crate::plan::testing::job(&argv), log)
    }

    /// On the clock: the lines come in the order of the call points, each
    /// at its time in µs, a file's open before its first I/O, its close
    /// when it ran out or the pass ended.
    #[test]
    fn queued_ios_syncs_and_closes_are_logged_in_order() {
        let (spec, path) = job("order", &["--nrfiles=2"]);
        let job = Prepared::new(&spec).unwrap();
        let lines = Lines::default();
        let mut l = Iolog::start(&job, &lines).unwrap().expect("a log");
        let (time, clock) = fake_clock();
        time.advance(5_000);
        l.on_queue(clock.now(), 0, &Unit::of(Ddir::Write, 1, 4096, 4096));
        time.advance(2_000);
        l.on_queue(clock.now(), 1, &Unit::of(Ddir::Read, 0, 0, 512));
        time.advance(1_000);
        l.on_sync(clock.now(), 0, 1, Ddir::Sync);
        let mut closed = vec![1];
        l.files_closed(clock.now(), &mut closed);
        assert!(closed.is_empty());
        time.advance(3_000);
        l.pass_ends(clock.now());
        drop(l);
        let names: Vec<String> = job
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        let (a, b) = (&names[0], &names[1]);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!(
                "fio version 3 iolog\n0 {a} add\n0 {b} add\n5 {b} open\n5 {b} write 4096 4096\n\
                 7 {a} open\n7 {a} read 0 512\n8 {b} sync 4096 0\n8 {b} close\n11 {a} close\n"
            )
        );
        assert!(lines.is_empty());
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_log_that_cannot_be_opened_fails_the_job() {
        let spec = crate::plan::testing::job(&[
            "--name=j",
            "--ioengine=null",
            "--size=64k",
            "--write_iolog=/nonexistent-dir/w.log",
        ]);
        let job = Prepared::new(&spec).unwrap();
        let lines = Lines::default();
        let Err(f) = Iolog::start(&job, &lines) else {
            panic!("opened");
        };
        assert_eq!(
            (f.errno, f.msg.as_str()),
            (
                libc::EINVAL,
                init_verror(crate::release::Release::V3_33).as_str()
            )
        );
        assert!(f
            .say
            .unwrap()
            .starts_with("fopen write iolog: /nonexistent-dir/w.log: "));
        // Without write_iolog: no hook.
        let spec = crate::plan::testing::job(&["--name=j", "--ioengine=null", "--size=64k"]);
        assert!(Iolog::start(&Prepared::new(&spec).unwrap(), &lines)
            .unwrap()
            .is_none());
    }
}
