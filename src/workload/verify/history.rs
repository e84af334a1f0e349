//! The written blocks to read back (fio's io pieces): in write order
//! (fio's list), or sorted by file and offset with overlapping older
//! writes dropped (fio's rb-tree), as the plan's `LogOrder` says (fio
//! 3.33: the list when the job has a random map; 3.40: unless offsets
//! may overlap). A block
//! is logged when its write is issued and stays "in flight" until the
//! write completes: fio never reads back a block whose write is still
//! out. Some of the logged blocks are also on the trim list
//! (`trim_percentage`), in the order they were logged.

use std::collections::VecDeque;

/// A write to check later (fio's `struct io_piece`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) file: u32,
    pub(crate) len: u32,
    pub(crate) offset: u64,
    pub(crate) numberio: u16,
    /// Which write logged it (the job's count of logged writes): the key
    /// its completion, failure or trim finds it by.
    pub(crate) seq: u64,
    /// The write is still out (fio's `IP_F_IN_FLIGHT`).
    pub(crate) in_flight: bool,
    /// It was trimmed: its read back must be zeros (`IP_F_TRIMMED`).
    pub(crate) trimmed: bool,
    /// It is on the trim list.
    on_trim: bool,
}

impl Piece {
    /// A new piece for a write of `len` bytes at `offset` of file `file`,
    /// issued as write number `numberio`, the `seq`th logged.
    pub(crate) fn new(file: u32, offset: u64, len: u32, numberio: u16, seq: u64) -> Piece {
        Piece {
            file,
            len,
            offset,
            numberio,
            seq,
            in_flight: true,
            trimmed: false,
            on_trim: false,
        }
    }

    fn end(&self) -> u64 {
        self.offset + u64::from(self.len)
    }
}

/// Where a logged piece is looked up: its file, offset and `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) file: u32,
    pub(crate) offset: u64,
    pub(crate) seq: u64,
}

impl Key {
    pub(crate) fn of(p: &Piece) -> Key {
        Key {
            file: p.file,
            offset: p.offset,
            seq: p.seq,
        }
    }
}

/// The written blocks not yet read back (fio's `io_hist_list`, or
/// `io_hist_tree` when sorted), and the trim list. Their capacity is
/// reserved up front, so logging a block does not allocate while the job
/// stays within the size it was planned for.
#[derive(Debug)]
pub(crate) struct History {
    sorted: bool,
    q: VecDeque<Piece>,
    /// fio's `trim_list`, oldest first. An entry whose piece left the log
    /// (read back, overwritten, failed) stays until it reaches the front.
    trims: VecDeque<Key>,
    /// Entries of `trims` whose piece is still logged (fio's
    /// `trim_entries`).
    trim_entries: usize,
}

impl History {
    pub(crate) fn new(sorted: bool, capacity: usize, trim_capacity: usize) -> History {
        History {
            sorted,
            q: VecDeque::with_capacity(capacity),
            trims: VecDeque::with_capacity(trim_capacity),
            trim_entries: 0,
        }
    }

    /// Log a write as it is issued (fio's `log_io_piece`), on the trim
    /// list too when `trim`. Sorted: by file and offset, dropping older
    /// pieces it overlaps (fio's rb-tree insert).
    #[inline]
    pub(crate) fn log(&mut self, mut p: Piece, trim: bool) {
        if trim {
            p.on_trim = true;
            self.trims.push_back(Key::of(&p));
            self.trim_entries += 1;
        }
        if !self.sorted {
            self.q.push_back(p);
            return;
        }
        let key = (p.file, p.offset);
        let mut i = self.q.partition_point(|a| (a.file, a.offset) < key);
        while i > 0 {
            let a = self.q[i - 1];
            if a.file == p.file && a.end() > p.offset {
                self.remove(i - 1);
                i -= 1;
            } else {
                break;
            }
        }
        while i < self.q.len() {
            let a = self.q[i];
            if a.file == p.file && p.end() > a.offset {
                self.remove(i);
            } else {
                break;
            }
        }
        self.q.insert(i, p);
    }

    /// Where the piece of `k` is, if it is still logged.
    fn find(&self, k: Key) -> Option<usize> {
        let i = if self.sorted {
            self.q
                .partition_point(|a| (a.file, a.offset) < (k.file, k.offset))
        } else {
            // Logged in `seq` order, and removals keep the order.
            self.q.partition_point(|a| a.seq < k.seq)
        };
        (self.q.get(i)?.seq == k.seq).then_some(i)
    }

    fn remove(&mut self, i: usize) -> Option<Piece> {
        let p = self.q.remove(i)?;
        if p.on_trim {
            self.trim_entries -= 1;
        }
        Some(p)
    }

    /// The write of `k` completed: its block may be read back.
    #[inline]
    pub(crate) fn landed(&mut self, k: Key) {
        if let Some(i) = self.find(k) {
            self.q[i].in_flight = false;
        }
    }

    /// The write of `k` failed: its block is not read back (fio's
    /// `unlog_io_piece`).
    pub(crate) fn unlog(&mut self, k: Key) {
        if let Some(i) = self.find(k) {
            self.remove(i);
        }
    }

    /// The next block to read back (fio's `get_next_verify`): none while
    /// the first one's write is still out.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Piece> {
        if self.q.front()?.in_flight {
            return None;
        }
        self.remove(0)
    }

    /// The next block of the trim list to trim (fio's `get_next_trim`).
    /// Unless its read back must then be zeros (`zero`), it leaves the
    /// log; else it stays, marked trimmed.
    pub(crate) fn pop_trim(&mut self, zero: bool) -> Option<Piece> {
        while let Some(k) = self.trims.pop_front() {
            let Some(i) = self.find(k).filter(|&i| self.q[i].on_trim) else {
                continue;
            };
            self.q[i].on_trim = false;
            self.trim_entries -= 1;
            if zero {
                self.q[i].trimmed = true;
                return Some(self.q[i]);
            }
            return self.q.remove(i);
        }
        None
    }

    /// Blocks logged (fio's `io_hist_len`).
    pub(crate) fn len(&self) -> usize {
        self.q.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Logged blocks still on the trim list (fio's `trim_entries`).
    pub(crate) fn trim_entries(&self) -> usize {
        self.trim_entries
    }

    /// Everything is forgotten (fio's `prune_io_piece_log`).
    pub(crate) fn clear(&mut self) {
        self.q.clear();
        self.trims.clear();
        self.trim_entries = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(file: u32, offset: u64, len: u32, seq: u64) -> Piece {
        let mut p = Piece::new(file, offset, len, seq as u16, seq);
        p.in_flight = false;
        p
    }

    #[test]
    fn unsorted_keeps_write_order() {
        let mut h = History::new(false, 4, 0);
        for (i, o) in [8192, 0, 4096].into_iter().enumerate() {
            h.log(piece(0, o, 4096, i as u64), false);
        }
        let order: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|p| p.offset).collect();
        assert_eq!(order, [8192, 0, 4096]);
    }

    /// fio's rb-tree: by file and offset, a newer write replacing the
    /// older ones it overlaps.
    #[test]
    fn sorted_by_file_and_offset_without_overlaps() {
        let mut h = History::new(true, 8, 0);
        h.log(piece(1, 0, 4096, 0), false);
        h.log(piece(0, 8192, 4096, 1), false);
        h.log(piece(0, 0, 8192, 2), false);
        h.log(piece(0, 4096, 8192, 3), false);
        let all: Vec<(u32, u64, u32)> = std::iter::from_fn(|| h.pop())
            .map(|p| (p.file, p.offset, p.len))
            .collect();
        assert_eq!(all, [(0, 4096, 8192), (1, 0, 4096)]);
        assert!(h.is_empty());
    }

    /// fio's `get_next_verify` stops at a block whose write is still out.
    #[test]
    fn a_block_in_flight_is_not_read_back() {
        for sorted in [false, true] {
            let mut h = History::new(sorted, 4, 0);
            h.log(Piece::new(0, 0, 4096, 0, 0), false);
            h.log(Piece::new(0, 4096, 4096, 1, 1), false);
            h.landed(Key::of(&piece(0, 4096, 4096, 1)));
            assert_eq!(h.pop(), None, "sorted={sorted}");
            assert_eq!(h.len(), 2);
            h.landed(Key::of(&piece(0, 0, 4096, 0)));
            assert_eq!(h.pop().map(|p| p.offset), Some(0));
            h.unlog(Key::of(&piece(0, 4096, 4096, 1)));
            assert!(h.is_empty());
        }
    }

    #[test]
    fn the_trim_list_follows_the_log() {
        let mut h = History::new(false, 8, 8);
        for i in 0..4u64 {
            h.log(piece(0, i * 4096, 4096, i), i != 1);
        }
        assert_eq!(h.trim_entries(), 3);
        // Read back first: it leaves the trim list too.
        assert_eq!(h.pop().map(|p| p.seq), Some(0));
        assert_eq!(h.trim_entries(), 2);
        // Trimmed and kept for a zero check ...
        let t = h.pop_trim(true).expect("a trim");
        assert_eq!((t.seq, t.trimmed), (2, true));
        assert_eq!((h.len(), h.trim_entries()), (3, 1));
        // ... or dropped from the log.
        assert_eq!(h.pop_trim(false).map(|p| p.seq), Some(3));
        assert_eq!((h.len(), h.trim_entries()), (2, 0));
        assert_eq!(h.pop_trim(false), None);
        let left: Vec<(u64, bool)> = std::iter::from_fn(|| h.pop())
            .map(|p| (p.seq, p.trimmed))
            .collect();
        assert_eq!(left, [(1, false), (2, true)]);
    }
}
