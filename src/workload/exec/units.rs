//! The job's I/O units: a fixed pool of `iodepth` buffers and their [`Io`]s
//! (fio's `io_u` freelist, requeue list and `cur_depth`), allocated before
//! the first I/O. Which units are free, queued again after a short
//! transfer, queued to an engine that submits in `commit`, or in flight.
//! Nothing here allocates after [`Units::new`].

use crate::ddir::Ddir;
use crate::ioengine::{FileId, Io, IoMem};

/// One unit: its [`Io`] and what the loop keeps beside it.
#[derive(Clone, Copy)]
pub(super) struct Unit {
    pub(super) io: Io,
    /// Index into the job's files.
    pub(super) file: usize,
    /// The whole length, for accounting after short transfers.
    pub(super) len: u64,
    pub(super) start_ns: u64,
    pub(super) issue_ns: u64,
    /// Submitted to an asynchronous engine (counts in the depth).
    pub(super) in_flight: bool,
    /// Where the I/O started (its offset moves on after a short transfer).
    pub(super) offset0: u64,
    /// A write's number (fio's `numberio`), or the number of the write a
    /// verify read checks.
    pub(super) numberio: u16,
    /// A read of a logged write (fio's `IO_U_F_VER_LIST`).
    pub(super) ver_list: bool,
    /// The write's piece in the verify log, `seq + 1` (0: not logged).
    pub(super) piece: u64,
    /// A read back of a trimmed block (fio's `IO_U_F_TRIMMED`).
    pub(super) trimmed: bool,
    /// The seed a read back drew (fio's `io_u->rand_seed`), which the
    /// header must hold when the verifier checks it.
    pub(super) rand_seed: u64,
}

impl Unit {
    /// Unit `token` over the buffer at `buf`, before its first I/O.
    fn idle(token: u32, buf: *mut u8) -> Unit {
        Unit {
            io: Io {
                token,
                file: FileId(0),
                dir: Ddir::Read,
                offset: 0,
                len: 0,
                buf,
            },
            file: 0,
            len: 0,
            start_ns: 0,
            issue_ns: 0,
            in_flight: false,
            offset0: 0,
            numberio: 0,
            ver_list: false,
            piece: 0,
            trimmed: false,
            rand_seed: 0,
        }
    }

    /// A unit with an I/O of `dir`, `len` bytes at `offset` of file
    /// `file` (the hooks' tests).
    #[cfg(test)]
    pub(super) fn of(dir: Ddir, file: usize, offset: u64, len: u64) -> Unit {
        let mut u = Unit::idle(0, std::ptr::null_mut());
        u.io.dir = dir;
        u.io.offset = offset;
        u.io.len = len as usize;
        u.file = file;
        u.len = len;
        u.offset0 = offset;
        u
    }
}

/// The pool. Units are named by their token (`0..len`), which is also the
/// [`Io::token`] the engine sees.
pub(super) struct Units {
    mem: IoMem,
    units: Box<[Unit]>,
    free: Vec<u32>,
    /// Units whose short transfer must be queued again (remainder), or
    /// that the engine (or `serialize_overlap`) found busy.
    requeue: Vec<u32>,
    /// Queued since the last commit (their issue time is set by commit).
    uncommitted: Vec<u32>,
    /// Units queued or submitted and not yet complete (fio's `cur_depth`).
    in_flight: usize,
}

impl Units {
    /// `depth` units over the buffers of `mem`, all free.
    pub(super) fn new(mem: IoMem, depth: usize) -> Units {
        let units = (0..depth)
            .map(|i| Unit::idle(i as u32, mem.unit_ptr(i)))
            .collect();
        Units {
            mem,
            units,
            // Popped from the end: unit 0 goes first.
            free: (0..depth as u32).rev().collect(),
            requeue: Vec::with_capacity(depth),
            uncommitted: Vec::with_capacity(depth),
            in_flight: 0,
        }
    }

    #[inline]
    pub(super) fn get(&self, t: u32) -> &Unit {
        &self.units[t as usize]
    }

    #[inline]
    pub(super) fn get_mut(&mut self, t: u32) -> &mut Unit {
        &mut self.units[t as usize]
    }

    /// The start of unit `t`'s buffer (`unit` bytes).
    #[inline]
    pub(super) fn buf(&self, t: u32) -> *mut u8 {
        self.mem.unit_ptr(t as usize)
    }

    /// A free unit, if any.
    #[inline]
    pub(super) fn take(&mut self) -> Option<u32> {
        self.free.pop()
    }

    /// Unit `t` is free again.
    #[inline]
    pub(super) fn give_back(&mut self, t: u32) {
        self.free.push(t);
    }

    /// No unit is free.
    #[inline]
    pub(super) fn none_free(&self) -> bool {
        self.free.is_empty()
    }

    /// Units taken and not given back.
    #[inline]
    pub(super) fn in_use(&self) -> usize {
        self.units.len() - self.free.len()
    }

    /// Unit `t` goes out again before any new I/O.
    #[inline]
    pub(super) fn requeue(&mut self, t: u32) {
        self.requeue.push(t);
    }

    /// The next unit to queue again, if any.
    #[inline]
    pub(super) fn take_requeued(&mut self) -> Option<u32> {
        self.requeue.pop()
    }

    /// Requeued units that never went out again are freed (a pass ends).
    pub(super) fn drop_requeued(&mut self) {
        while let Some(t) = self.requeue.pop() {
            self.free.push(t);
        }
    }

    /// Units submitted and not complete.
    #[inline]
    pub(super) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The engine took unit `t`: it is in flight.
    #[inline]
    pub(super) fn submitted(&mut self, t: u32) {
        self.in_flight += 1;
        self.units[t as usize].in_flight = true;
    }

    /// The engine handed unit `t` back.
    #[inline]
    pub(super) fn landed(&mut self, t: u32) {
        self.in_flight -= 1;
        self.units[t as usize].in_flight = false;
    }

    /// The engine failed: the I/Os in flight are lost, their units free.
    pub(super) fn lose_in_flight(&mut self) {
        for (t, u) in self.units.iter_mut().enumerate() {
            if u.in_flight {
                u.in_flight = false;
                self.free.push(t as u32);
            }
        }
        self.in_flight = 0;
    }

    /// Unit `t` was queued to an engine that submits in `commit`.
    #[inline]
    pub(super) fn queued_uncommitted(&mut self, t: u32) {
        self.uncommitted.push(t);
    }

    /// Units queued since the last commit.
    #[inline]
    pub(super) fn uncommitted(&self) -> usize {
        self.uncommitted.len()
    }

    /// The `i`th unit queued since the last commit.
    pub(super) fn uncommitted_unit(&self, i: usize) -> u32 {
        self.uncommitted[i]
    }

    /// Everything queued was committed at `now`: that is its issue time.
    /// Returns how many units that was.
    #[inline]
    pub(super) fn committed(&mut self, now: u64) -> usize {
        let n = self.uncommitted.len();
        for &t in &self.uncommitted {
            self.units[t as usize].issue_ns = now;
        }
        self.uncommitted.clear();
        n
    }

    /// Whether unit `t`'s range overlaps an I/O in flight (fio's
    /// `in_flight_overlap`, which compares offsets whatever the file).
    pub(super) fn overlaps_in_flight(&self, t: u32) -> bool {
        let io = &self.units[t as usize].io;
        let (x1, x2) = (io.offset, io.offset + io.len as u64);
        self.units.iter().any(|u| {
            u.in_flight && u.io.token != t && x1 < u.io.offset + u.io.len as u64 && u.io.offset < x2
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(depth: usize) -> Units {
        let mem = IoMem {
            base: std::ptr::null_mut(),
            unit: 4096,
            units: depth,
        };
        Units::new(mem, depth)
    }

    #[test]
    fn units_go_out_in_token_order_and_come_back() {
        let mut u = pool(3);
        assert_eq!((u.take(), u.take()), (Some(0), Some(1)));
        assert_eq!(u.in_use(), 2);
        u.give_back(0);
        assert_eq!(u.take(), Some(0));
        assert_eq!(u.take(), Some(2));
        assert!(u.none_free() && u.take().is_none());
        assert_eq!(u.buf(2) as usize, 2 * 4096);
    }

    #[test]
    fn a_commit_stamps_every_queued_unit() {
        let mut u = pool(4);
        for _ in 0..3 {
            let t = u.take().unwrap();
            u.submitted(t);
            u.queued_uncommitted(t);
        }
        assert_eq!((u.in_flight(), u.uncommitted()), (3, 3));
        assert_eq!(u.committed(77), 3);
        assert_eq!(u.uncommitted(), 0);
        assert!((0..3).all(|t| u.get(t).issue_ns == 77));
        u.landed(1);
        u.give_back(1);
        assert_eq!(u.in_flight(), 2);
        // An engine failure frees what was in flight.
        u.lose_in_flight();
        assert_eq!((u.in_flight(), u.in_use()), (0, 0));
    }

    #[test]
    fn overlap_is_checked_against_other_units_in_flight() {
        let mut u = pool(3);
        let set = |u: &mut Units, t: u32, offset: u64, len: usize| {
            let io = &mut u.get_mut(t).io;
            io.offset = offset;
            io.len = len;
        };
        set(&mut u, 0, 0, 4096);
        set(&mut u, 1, 4096, 4096);
        set(&mut u, 2, 2048, 4096);
        assert!(!u.overlaps_in_flight(2), "nothing in flight");
        u.submitted(1);
        assert!(u.overlaps_in_flight(2));
        assert!(!u.overlaps_in_flight(0), "adjacent ranges do not overlap");
        u.submitted(2);
        assert!(u.overlaps_in_flight(1));
        assert!(u.overlaps_in_flight(0));
    }

    #[test]
    fn requeued_units_go_first_and_are_freed_at_the_end() {
        let mut u = pool(2);
        let t = u.take().unwrap();
        u.requeue(t);
        assert_eq!(u.take_requeued(), Some(t));
        u.requeue(t);
        u.drop_requeued();
        assert_eq!((u.in_use(), u.take_requeued()), (0, None));
    }
}
