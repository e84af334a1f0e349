//! fio's random map (`lib/axmap.c`): a bit per block, so that random
//! offsets visit every block once per pass.

/// The random map: one bit per block, with a summary bit per full word on
/// the level above (fio's `axmap`). Finding the next free block is a walk
/// up and down the levels.
#[derive(Debug, Clone)]
pub struct Axmap {
    levels: Vec<Vec<u64>>,
    nr_bits: u64,
}

impl Axmap {
    /// A map of `nr_bits` free blocks.
    #[cfg(test)]
    pub(crate) fn new(nr_bits: u64) -> Axmap {
        Axmap::try_new(nr_bits).expect("random map memory")
    }

    /// A map of `nr_bits` free blocks, `None` when its memory cannot be had.
    pub(crate) fn try_new(nr_bits: u64) -> Option<Axmap> {
        let mut levels = Vec::new();
        let mut n = nr_bits.max(1);
        loop {
            let words = usize::try_from(n.div_ceil(64)).ok()?;
            let mut level = Vec::new();
            level.try_reserve_exact(words).ok()?;
            level.resize(words, 0u64);
            levels.push(level);
            if words == 1 {
                break;
            }
            n = words as u64;
        }
        let mut m = Axmap { levels, nr_bits };
        m.reset();
        Some(m)
    }

    /// Every block free again (fio's `axmap_reset`). Bits past the end are
    /// kept set so that a partial last word can count as full.
    pub(crate) fn reset(&mut self) {
        let mut n = self.nr_bits;
        for level in 0..self.levels.len() {
            let words = &mut self.levels[level];
            words.iter_mut().for_each(|w| *w = 0);
            let len = words.len() as u64;
            for bit in n..len * 64 {
                words[(bit / 64) as usize] |= 1 << (bit % 64);
            }
            n = len;
        }
        // A padded word may already be full: propagate.
        for level in 0..self.levels.len().saturating_sub(1) {
            for w in 0..self.levels[level].len() {
                if self.levels[level][w] == u64::MAX {
                    self.levels[level + 1][w / 64] |= 1 << (w % 64);
                }
            }
        }
    }

    /// Number of blocks.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.nr_bits
    }

    /// Whether block `bit` is used (blocks past the end are free, as fio).
    #[inline]
    pub(crate) fn is_set(&self, bit: u64) -> bool {
        bit < self.nr_bits && self.levels[0][(bit / 64) as usize] & (1 << (bit % 64)) != 0
    }

    #[inline]
    fn set(&mut self, bit: u64) {
        let mut idx = bit;
        for level in 0..self.levels.len() {
            let w = (idx / 64) as usize;
            self.levels[level][w] |= 1 << (idx % 64);
            if self.levels[level][w] != u64::MAX {
                break;
            }
            idx = w as u64;
        }
    }

    /// Mark up to `nr` blocks from `bit` used, stopping at the first one
    /// already used or at the end; returns how many were marked (fio's
    /// `axmap_set_nr` for contiguous runs).
    #[inline(always)]
    pub(crate) fn set_nr(&mut self, bit: u64, nr: u64) -> u64 {
        let mut done = 0;
        while done < nr {
            let b = bit + done;
            if b >= self.nr_bits || self.is_set(b) {
                break;
            }
            self.set(b);
            done += 1;
        }
        done
    }

    /// First free bit at `level` at or after `start`.
    fn find(&self, level: usize, start: u64) -> Option<u64> {
        let words = &self.levels[level];
        let w = (start / 64) as usize;
        if w >= words.len() {
            return None;
        }
        let free = !words[w] & (u64::MAX << (start % 64));
        if free != 0 {
            return Some(w as u64 * 64 + u64::from(free.trailing_zeros()));
        }
        let next = if level + 1 < self.levels.len() {
            self.find(level + 1, w as u64 + 1)?
        } else {
            // Top level: one word, nothing after it.
            return None;
        };
        let free = !words[next as usize];
        (free != 0).then(|| next * 64 + u64::from(free.trailing_zeros()))
    }

    /// The next free block after `bit`, else the first free one (what fio
    /// 3.33's `axmap_next_free` returns); `None` when the map is full.
    #[inline]
    pub(crate) fn next_free(&self, bit: u64) -> Option<u64> {
        self.find(0, bit + 1)
            .or_else(|| self.find(0, 0))
            .filter(|&b| b < self.nr_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_map_too_large_to_have_is_refused() {
        assert!(Axmap::try_new(u64::MAX).is_none());
        assert!(Axmap::try_new(1 << 62).is_none());
        assert!(Axmap::try_new(1000).is_some());
    }

    #[test]
    fn axmap_next_free_wraps_and_fills() {
        let mut m = Axmap::new(200);
        assert_eq!(m.next_free(5), Some(6));
        for b in 0..200 {
            assert_eq!(m.set_nr(b, 1), 1);
        }
        assert_eq!(m.next_free(0), None);
        m.reset();
        m.set_nr(10, 5);
        assert_eq!(m.next_free(10), Some(15));
        for b in 15..200 {
            m.set_nr(b, 1);
        }
        assert_eq!(m.next_free(150), Some(0));
        assert_eq!(m.set_nr(8, 4), 2);
    }

    #[test]
    fn axmap_multi_level_skips_full_words() {
        let mut m = Axmap::new(64 * 64 * 3 + 7);
        let n = m.len();
        for b in 0..n - 1 {
            m.set_nr(b, 1);
        }
        assert_eq!(m.next_free(3), Some(n - 1));
        assert!(!m.is_set(n - 1));
        m.set_nr(n - 1, 1);
        assert_eq!(m.next_free(0), None);
    }
}
