//! The written blocks to read back (fio's io pieces): in write order
//! when the job has a random map (fio's list), else sorted by file and
//! offset with overlapping older writes dropped (fio's rb-tree).

use std::collections::VecDeque;

/// A completed write to check later (fio's `struct io_piece`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) file: u32,
    pub(crate) len: u32,
    pub(crate) offset: u64,
    pub(crate) numberio: u16,
}

impl Piece {
    fn end(&self) -> u64 {
        self.offset + u64::from(self.len)
    }
}

/// The written blocks not yet read back (fio's `io_hist_list`, or
/// `io_hist_tree` when sorted). Its capacity is reserved up front, so
/// logging a block does not allocate while the job stays within the size
/// it was planned for.
#[derive(Debug)]
pub(crate) struct History {
    sorted: bool,
    q: VecDeque<Piece>,
}

impl History {
    pub(crate) fn new(sorted: bool, capacity: usize) -> History {
        History {
            sorted,
            q: VecDeque::with_capacity(capacity),
        }
    }

    /// Log a completed write. Sorted: by file and offset, dropping older
    /// pieces it overlaps (fio's rb-tree insert).
    #[inline]
    pub(crate) fn log(&mut self, p: Piece) {
        if !self.sorted {
            self.q.push_back(p);
            return;
        }
        let key = (p.file, p.offset);
        let mut i = self.q.partition_point(|a| (a.file, a.offset) < key);
        while i > 0 {
            let a = self.q[i - 1];
            if a.file == p.file && a.end() > p.offset {
                self.q.remove(i - 1);
                i -= 1;
            } else {
                break;
            }
        }
        while i < self.q.len() {
            let a = self.q[i];
            if a.file == p.file && p.end() > a.offset {
                self.q.remove(i);
            } else {
                break;
            }
        }
        self.q.insert(i, p);
    }

    /// The next block to read back (fio's `get_next_verify`).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Piece> {
        self.q.pop_front()
    }

    /// Blocks waiting (fio's `io_hist_len`).
    pub(crate) fn len(&self) -> usize {
        self.q.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.q.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(file: u32, offset: u64, len: u32) -> Piece {
        Piece {
            file,
            len,
            offset,
            numberio: 0,
        }
    }

    #[test]
    fn unsorted_keeps_write_order() {
        let mut h = History::new(false, 4);
        for o in [8192, 0, 4096] {
            h.log(piece(0, o, 4096));
        }
        let order: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|p| p.offset).collect();
        assert_eq!(order, [8192, 0, 4096]);
    }

    /// fio's rb-tree: by file and offset, a newer write replacing the
    /// older ones it overlaps.
    #[test]
    fn sorted_by_file_and_offset_without_overlaps() {
        let mut h = History::new(true, 8);
        h.log(piece(1, 0, 4096));
        h.log(piece(0, 8192, 4096));
        h.log(piece(0, 0, 8192));
        h.log(piece(0, 4096, 8192));
        let all: Vec<(u32, u64, u32)> = std::iter::from_fn(|| h.pop())
            .map(|p| (p.file, p.offset, p.len))
            .collect();
        assert_eq!(all, [(0, 4096, 8192), (1, 0, 4096)]);
        assert!(h.is_empty());
    }
}
