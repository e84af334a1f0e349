//! The `read_iolog` hook (fio's `read_iolog_get` in `get_io_u`, its
//! `iolog_delay`): a replaying job takes its I/O from the log instead of
//! the pattern. On the way to the next I/O the hook keeps the log's
//! delays (from the last issue, on the loop's clock) and its waits; a
//! sync goes back to the loop to issue. When the log runs out with I/O
//! still in flight, fio never reaps it: those I/Os count as issued only
//! ([`Replayer::lost`]).
//!
//! Call points: [`Replayer::start`] as the loop is made; [`Replayer::next`]
//! where the pattern's next I/O would be drawn; [`Replayer::lost`] on each
//! completion; [`Replayer::before_verify`] and [`Replayer::depth`] as a
//! pass ends.

use crate::ddir::Ddir;
use crate::workload::clock::Clock;
use crate::workload::iolog::{Act, Cursor};
use crate::workload::job::Prepared;
use crate::workload::log::Log;
use crate::workload::offsets::Io as NextIo;
use crate::workload::stop::Stop;

/// What the log has next for the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// This I/O, due now.
    Io(NextIo),
    /// A sync of this file, due now: the loop issues it, and asks again.
    Sync(usize, Ddir),
    /// The pass is over.
    Over,
}

/// Where a replay is, and the depth its report shows.
pub(crate) struct Replayer<'j> {
    cursor: Cursor<'j>,
    /// A blktrace replay's depth (the report's).
    depth: Option<u32>,
    /// The job's files: an entry of a file beyond them is skipped.
    nfiles: usize,
}

impl<'j> Replayer<'j> {
    /// The replay of `job`, if it replays a log (fio's `init_iolog`): what
    /// reading the log said is said now.
    pub(crate) fn start(job: &'j Prepared<'_>, log: &dyn Log) -> Option<Replayer<'j>> {
        let r = job.replay.as_ref()?;
        for n in &r.notes {
            log.err(&format!("{n}\n"));
        }
        Some(Replayer {
            cursor: Cursor::new(r),
            depth: r.depth,
            nfiles: job.files.len(),
        })
    }

    /// The log's next I/O or sync at `now` (moved on past the waits on
    /// the way, on `clock`, which a `stop` ends), with `issued` bytes
    /// issued so far. File actions only keep their delays (the loop opens
    /// the log's files as the pass starts). `used`: whether an entry was
    /// taken since the loop first asked for this I/O.
    pub(crate) fn next<C: Clock>(
        &mut self,
        clock: &C,
        stop: &Stop,
        log: &dyn Log,
        issued: u64,
        used: &mut bool,
        now: &mut u64,
    ) -> Next {
        loop {
            if stop.requested() {
                return Next::Over;
            }
            let Some(e) = self.cursor.next(&mut |m| log.err(&format!("{m}\n"))) else {
                self.cursor.ran_out(*used, issued);
                return Next::Over;
            };
            *used = true;
            let file = e.file as usize;
            match e.act {
                Act::Add => {}
                Act::Open | Act::Close => *now = self.issue_after(e.delay_us, clock, stop),
                Act::Wait => {
                    // Version 2: until `offset` ms after the job began.
                    let until = e.offset.saturating_mul(1_000_000);
                    let t = clock.now();
                    if until > t {
                        clock.sleep(until - t, stop);
                    }
                    *now = clock.now();
                }
                Act::Sync(d) if file < self.nfiles => {
                    *now = self.issue_after(e.delay_us, clock, stop);
                    return Next::Sync(file, d);
                }
                // fio's get_io_u fails on an I/O of no length: the pass
                // ends there (a next one goes on after it).
                Act::Io(_) if e.len == 0 => return Next::Over,
                Act::Io(dir) if file < self.nfiles => {
                    *now = self.issue_after(e.delay_us, clock, stop);
                    return Next::Io(NextIo {
                        file,
                        dir,
                        offset: e.offset,
                        len: e.len,
                        is_random: false,
                        wait_ns: 0,
                        wrapped: false,
                    });
                }
                Act::Sync(_) | Act::Io(_) => {}
            }
        }
    }

    /// fio's `iolog_delay`, then the issue: an entry comes `delay_us`
    /// after the last issue; returns the time of this one.
    fn issue_after<C: Clock>(&mut self, delay_us: u64, clock: &C, stop: &Stop) -> u64 {
        if delay_us > 0 {
            let t0 = clock.now();
            let ns = self.cursor.sleep_ns(delay_us, t0);
            if ns > 0 {
                clock.sleep(ns, stop);
                let slept = clock.now().saturating_sub(t0);
                self.cursor.slept(delay_us, slept);
            }
        }
        let now = clock.now();
        self.cursor.issued(now);
        now
    }

    /// Whether the log ran out with I/O in flight that fio never reaps:
    /// a completion now counts as issued, nothing more.
    #[inline]
    pub(crate) fn lost(&self) -> bool {
        self.cursor.lost
    }

    /// The verify phase starts: fio reaps again, whatever happened as the
    /// replay ended.
    pub(crate) fn before_verify(&mut self) {
        self.cursor.lost = false;
    }

    /// A blktrace replay's depth, which the report shows.
    pub(crate) fn depth(&self) -> Option<u32> {
        self.depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::clock::FakeClock;
    use crate::workload::clock::FakeTime;
    use std::sync::Arc;

    const MS: u64 = 1_000_000;

    struct Quiet;

    impl Log for Quiet {
        fn info(&self, _: &str) {}
        fn err(&self, _: &str) {}
    }

    /// Writes 5 and 15 ms apart, a sync before the second.
    const LOG: &str = "fio version 3 iolog
0 a add
1000 a open
1000 a write 0 4096
6000 a sync 0 0
6000 a write 4096 4096
21000 a write 8192 4096
21000 a close
";

    /// On the clock: each entry comes its delay after the last issue, a
    /// sync comes back to the loop in its place, and the log's end is
    /// the pass's, with nothing lost when nothing is in flight.
    #[test]
    fn the_logs_entries_come_at_their_times() {
        let dir = std::env::temp_dir().join(format!("rfio-hook-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("l.log");
        std::fs::write(&path, LOG).unwrap();
        let arg = format!("--read_iolog={}", path.display());
        let spec = crate::plan::testing::job(&["--name=r", &arg]);
        let job = Prepared::new(&spec).unwrap();
        let mut r = Replayer::start(&job, &Quiet).expect("a replay");
        let time = Arc::new(FakeTime::default());
        let clock = FakeClock::new(time.clone());
        let stop = Stop::new();
        let mut now = 0;
        let mut next = |r: &mut Replayer<'_>, issued| {
            let mut used = false;
            let n = r.next(&clock, &stop, &Quiet, issued, &mut used, &mut now);
            (n, now)
        };
        let io = |offset| NextIo {
            file: 0,
            dir: Ddir::Write,
            offset,
            len: 4096,
            is_random: false,
            wait_ns: 0,
            wrapped: false,
        };
        // The open and the first write: no delay before the first issue.
        assert_eq!(next(&mut r, 0), (Next::Io(io(0)), 0));
        time.advance(MS); // the write takes 1 ms
        assert_eq!(next(&mut r, 4096), (Next::Sync(0, Ddir::Sync), 5 * MS));
        assert_eq!(next(&mut r, 4096), (Next::Io(io(4096)), 5 * MS));
        assert_eq!(next(&mut r, 8192), (Next::Io(io(8192)), 20 * MS));
        assert_eq!(time.slept(), (19 * MS, 2));
        assert_eq!(next(&mut r, 12288).0, Next::Over);
        assert!(r.lost(), "the close was taken: fio asks once more");
        r.before_verify();
        assert!(!r.lost());
        assert_eq!(r.depth(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_log_no_hook() {
        let spec = crate::plan::testing::job(&["--name=r", "--ioengine=null", "--size=1m"]);
        let job = Prepared::new(&spec).unwrap();
        assert!(Replayer::start(&job, &Quiet).is_none());
    }
}
