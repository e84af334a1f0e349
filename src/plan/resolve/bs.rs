//! Block sizes: `bs`, `bsrange`, `bssplit` (per direction), with
//! `bs_unaligned` and `bs_is_seq_rand` (fio's `get_next_buflen` reads
//! them; `bssplit_ddir` fills in the split's percentages).

use super::read::Opts;
use crate::options::value::SplitEntry;
use crate::options::Value;

/// Most entries of one direction's `bssplit` (fio's `BSSPLIT_MAX`).
const SPLIT_MAX: usize = 64;

/// One `bssplit` entry with its percentage filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    pub bs: u64,
    pub pct: u32,
}

/// How a job draws its block sizes (`JobSpec::block`); the sizes
/// themselves are `JobSpec::bs`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct BlockOptions {
    /// `bssplit` per direction, sorted by percentage; empty when not given.
    pub(crate) split: [Vec<Split>; 3],
    /// `bs_unaligned`.
    pub(crate) unaligned: bool,
    /// `bs_is_seq_rand`: read sizes for sequential I/O, write sizes for
    /// random I/O.
    pub(crate) seq_rand: bool,
    /// `verify` is set: fio seeds the write sizes with the read seed.
    pub(crate) verify_seeds: bool,
}

pub(super) fn resolve(o: Opts<'_>) -> BlockOptions {
    let mut split: [Vec<Split>; 3] = Default::default();
    if let Some(Value::BsSplit(dirs)) = o.value("bssplit") {
        for (d, entries) in dirs.iter().enumerate().take(3) {
            split[d] = fill_split(entries);
        }
    }
    BlockOptions {
        split,
        unaligned: o.is("bs_unaligned"),
        seq_rand: o.is("bs_is_seq_rand"),
        verify_seeds: !matches!(o.choice("verify"), None | Some("0")),
    }
}

/// Per-direction (min, max) block sizes from `bs`, `bsrange`, `bssplit`.
pub(crate) fn sizes(o: Opts<'_>) -> [(u64, u64); 3] {
    let mut bs = [(4096, 4096); 3];
    if let Some(Value::PerDir(v)) = o.value("bs") {
        for (d, size) in bs.iter_mut().enumerate() {
            if let Some(Some(Value::Bytes(n))) = v.get(d) {
                *size = (*n, *n);
            }
        }
    }
    if let Some(Value::Ranges(v)) = o.value("bsrange") {
        for (i, r) in v.iter().enumerate().take(3) {
            if let Some((lo, hi)) = r {
                bs[i] = (*lo, *hi);
            }
        }
    }
    if let Some(Value::BsSplit(v)) = o.value("bssplit") {
        for (i, entries) in v.iter().enumerate().take(3) {
            if let (Some(lo), Some(hi)) = (
                entries.iter().map(|e| e.bs).min(),
                entries.iter().map(|e| e.bs).max(),
            ) {
                bs[i] = (lo, hi);
            }
        }
    }
    bs
}

/// fio's `bssplit_ddir` after parsing: empty percentages share the rest
/// (`(100 - given) / missing`, a lone entry without one gets nothing but
/// is then the only size), sorted by ascending percentage.
fn fill_split(entries: &[SplitEntry]) -> Vec<Split> {
    let entries = &entries[..entries.len().min(SPLIT_MAX)];
    let given: u32 = entries.iter().filter_map(|e| e.pct).sum();
    let missing = entries.iter().filter(|e| e.pct.is_none()).count() as u32;
    let mut perc = given;
    if missing == 1 && entries.len() == 1 {
        perc = 100;
    }
    let share = 100u32
        .saturating_sub(perc)
        .checked_div(missing)
        .unwrap_or(0);
    let mut out: Vec<Split> = entries
        .iter()
        .map(|e| Split {
            bs: e.bs,
            pct: e.pct.map_or(share, |p| p.min(100)),
        })
        .collect();
    out.sort_by_key(|e| e.pct);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_fills_missing_and_sorts() {
        let e = |bs, pct| SplitEntry { bs, pct };
        let s = fill_split(&[e(4096, Some(50)), e(8192, None), e(16384, None)]);
        assert_eq!(
            s,
            [
                Split { bs: 8192, pct: 25 },
                Split { bs: 16384, pct: 25 },
                Split { bs: 4096, pct: 50 }
            ]
        );
        let lone = fill_split(&[e(4096, None)]);
        assert_eq!(lone, [Split { bs: 4096, pct: 0 }]);
    }
}
