//! `openfiles` below the number of files: which files are open, as fio
//! keeps them (`FIO_FILE_open`, `FIO_FILE_closing`, `f->references`,
//! `td->nr_open_files`; `io_u.c` `get_next_file_rr`/`_rand`,
//! `ioengines.c` `td_io_open_file`/`td_io_close_file`, `filesetup.c`
//! `put_file`).
//!
//! Files are opened when the file service first picks them, as long as
//! fewer than `max` are open; a pick of a closed file when `max` are
//! open is refused (fio's `-EBUSY`), and the I/O loop reaps and asks
//! again. A file is closed when it is done for the pass (or, for the
//! non-uniform services, reset); with I/Os of it still in flight it is
//! only marked closing, still counted open, and closes with the last of
//! them. What opens and closes is queued as [`FileEvent`]s for the I/O
//! loop to carry out on the engine.

use std::collections::VecDeque;

/// An open or a close the I/O loop carries out on the engine, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileEvent {
    Open(usize),
    Close(usize),
}

#[derive(Debug, Clone, Copy, Default)]
struct State {
    open: bool,
    closing: bool,
    /// I/Os of the file not yet complete.
    refs: u32,
}

/// The open files of a job with `openfiles` below its number of files.
#[derive(Debug, Clone)]
pub(crate) struct OpenLimit {
    max: usize,
    nr_open: usize,
    /// I/Os in flight over all files.
    refs: u64,
    state: Vec<State>,
    events: VecDeque<FileEvent>,
}

impl OpenLimit {
    /// At most `max` (at least 1) of `nr` files open at once.
    pub(crate) fn new(max: usize, nr: usize) -> OpenLimit {
        OpenLimit {
            max: max.max(1),
            nr_open: 0,
            refs: 0,
            state: vec![State::default(); nr],
            events: VecDeque::with_capacity(2 * max + 4),
        }
    }

    /// Open and not closing: may serve an I/O.
    #[inline]
    pub(crate) fn usable(&self, f: usize) -> bool {
        let s = &self.state[f];
        s.open && !s.closing
    }

    /// fio's check before it opens a file for a pick: `Some(true)` when
    /// `f` was opened now, `Some(false)` when it was open already, `None`
    /// when it is closed and `max` files are open (`-EBUSY`).
    pub(crate) fn open_for_pick(&mut self, f: usize) -> Option<bool> {
        if self.state[f].open {
            return Some(false);
        }
        if self.nr_open >= self.max {
            return None;
        }
        self.open(f);
        Some(true)
    }

    /// Open `f` whatever the limit (fio's verify and sync paths open a
    /// closed file without looking at `openfiles`).
    pub(crate) fn open(&mut self, f: usize) {
        let s = &mut self.state[f];
        if s.open {
            s.closing = false;
            return;
        }
        s.open = true;
        self.nr_open += 1;
        self.events.push_back(FileEvent::Open(f));
    }

    /// Whether `f` is open (closing or not).
    pub(crate) fn is_open(&self, f: usize) -> bool {
        self.state[f].open
    }

    /// Close `f` (done, or reset): at once without I/Os in flight, else
    /// when the last of them completes.
    pub(crate) fn close(&mut self, f: usize) {
        let s = &mut self.state[f];
        if !s.open {
            return;
        }
        if s.refs > 0 {
            s.closing = true;
            return;
        }
        s.open = false;
        s.closing = false;
        self.nr_open -= 1;
        self.events.push_back(FileEvent::Close(f));
    }

    /// `f`, opened for a pick, failed to open: closed again, with no
    /// close to carry out, and the I/Os drawn for it dropped.
    pub(crate) fn open_failed(&mut self, f: usize) {
        let s = &mut self.state[f];
        self.refs -= u64::from(s.refs);
        if s.open {
            self.nr_open -= 1;
        }
        *s = State::default();
    }

    /// An I/O of `f` was handed out.
    #[inline]
    pub(crate) fn get(&mut self, f: usize) {
        self.state[f].refs += 1;
        self.refs += 1;
    }

    /// An I/O of `f` completed.
    #[inline]
    pub(crate) fn put(&mut self, f: usize) {
        let s = &mut self.state[f];
        if s.refs == 0 {
            return;
        }
        s.refs -= 1;
        self.refs -= 1;
        if s.refs == 0 && s.closing {
            self.close(f);
        }
    }

    /// Whether any I/O is in flight (a refused pick can then wait for a
    /// completion; without one nothing changes, and the pick is retried
    /// at once).
    #[inline]
    pub(crate) fn in_flight(&self) -> bool {
        self.refs > 0
    }

    /// The next queued open or close, oldest first.
    #[inline]
    pub(crate) fn next_event(&mut self) -> Option<FileEvent> {
        self.events.pop_front()
    }

    /// A new pass: every file closed (the loop closed them all).
    pub(crate) fn reset(&mut self) {
        self.state.iter_mut().for_each(|s| *s = State::default());
        self.nr_open = 0;
        self.refs = 0;
        self.events.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_up_to_the_limit_then_refuses() {
        let mut l = OpenLimit::new(2, 4);
        assert_eq!(l.open_for_pick(0), Some(true));
        assert_eq!(l.open_for_pick(0), Some(false));
        assert_eq!(l.open_for_pick(1), Some(true));
        assert_eq!(l.open_for_pick(2), None);
        assert_eq!(l.nr_open, 2);
        assert_eq!(l.next_event(), Some(FileEvent::Open(0)));
        assert_eq!(l.next_event(), Some(FileEvent::Open(1)));
        assert_eq!(l.next_event(), None);
        l.close(0);
        assert_eq!(l.next_event(), Some(FileEvent::Close(0)));
        assert_eq!(l.open_for_pick(2), Some(true));
    }

    #[test]
    fn a_file_with_ios_in_flight_closes_with_the_last_one() {
        let mut l = OpenLimit::new(1, 2);
        l.open_for_pick(0);
        l.next_event();
        l.get(0);
        l.get(0);
        l.close(0);
        assert!(l.is_open(0) && !l.usable(0), "closing");
        assert_eq!(l.open_for_pick(1), None, "a closing file still counts");
        l.put(0);
        assert_eq!(l.next_event(), None);
        l.put(0);
        assert_eq!(l.next_event(), Some(FileEvent::Close(0)));
        assert!(!l.in_flight());
        assert_eq!(l.open_for_pick(1), Some(true));
    }

    fn selector(args: &[&str], nr: usize) -> crate::workload::offsets::FileSelector {
        let spec = crate::plan::testing::job(args);
        crate::workload::offsets::FileSelector::new(&spec, &spec.seeds, nr).unwrap()
    }

    /// fio 3.33 `--debug=file` of `nrfiles=4 openfiles=2`: files 0 and 1
    /// open and take turns (picks of 2 and 3 refused) until both are done,
    /// then 2 and 3.
    #[test]
    fn round_robin_picks_as_fio() {
        let mut s = selector(
            &["--name=j", "--size=64k", "--nrfiles=4", "--openfiles=2"],
            4,
        );
        let picks: Vec<_> = (0..6).map(|_| s.next_file().unwrap()).collect();
        assert_eq!(picks, [0, 1, 0, 1, 0, 1]);
        s.mark_done(0);
        s.mark_done(1);
        let picks: Vec<_> = (0..4).map(|_| s.next_file().unwrap()).collect();
        assert_eq!(picks, [2, 3, 2, 3]);
        let l = s.limit.as_mut().unwrap();
        let events: Vec<_> = std::iter::from_fn(|| l.next_event()).collect();
        use FileEvent::*;
        assert_eq!(
            events,
            [Open(0), Open(1), Close(0), Close(1), Open(2), Open(3)]
        );
        s.mark_done(2);
        s.mark_done(3);
        assert_eq!(s.next_file(), None);
    }

    /// Without `openfiles` (or with it at the number of files) every file
    /// is open for the whole pass: no limit to keep.
    #[test]
    fn no_limit_without_openfiles() {
        assert!(selector(&["--name=j", "--size=64k", "--nrfiles=4"], 4)
            .limit
            .is_none());
        let s = selector(
            &["--name=j", "--size=64k", "--nrfiles=4", "--openfiles=4"],
            4,
        );
        assert!(s.limit.is_none());
    }
}
