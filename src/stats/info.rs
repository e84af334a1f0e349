//! What the report knows about a job besides its results: who it is, how
//! it is summed with others and printed, and the options the JSON output
//! lists for it. The plan fills a [`JobInfo`] for each job
//! (`plan::report::job_info`); the report and every output read it instead
//! of the plan.

use serde::{Deserialize, Serialize};

use super::config::StatsConfig;

/// One job's resolved report settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    /// The reported name (`name=`, else the section name).
    pub(crate) name: String,
    /// Reporting group (`g=`).
    pub(crate) group_id: u32,
    /// 1-based creation order over all jobs and `numjobs` clones.
    pub(crate) thread_number: u32,
    /// 0 for a section's first job, else a `numjobs` clone (no banner).
    pub(crate) subjob: u32,
    pub(crate) group_reporting: bool,
    /// `iodepth`: the depth reported when `latency_target` found none.
    pub(crate) iodepth: u32,
    /// `thread`: counted as a thread in `Starting N threads`.
    pub(crate) thread: bool,
    /// The banner: `rw=` name, block size ranges (read, write, trim) and
    /// the ioengine.
    pub(crate) rw: String,
    pub(crate) bs: [(u64, u64); 3],
    pub(crate) ioengine: String,
    /// The engine does no I/O (fio's `FIO_NOIO`: cpuio, exec): fio prints
    /// no banner for the job.
    #[serde(default)]
    pub(crate) no_io: bool,
    /// What the job records and how it is printed.
    pub stats: StatsConfig,
    /// JSON `job options`: the options of the job's own section, in the
    /// order applied, as `(name, value as written)` (`""` when bare).
    pub(crate) options: OptionList,
}

impl Default for JobInfo {
    fn default() -> JobInfo {
        JobInfo::named("", 0)
    }
}

impl JobInfo {
    /// A job named `name` in group `group_id` with fio's defaults (reports
    /// built by hand, a running job's snapshot).
    pub(crate) fn named(name: &str, group_id: u32) -> JobInfo {
        JobInfo {
            name: name.to_string(),
            group_id,
            thread_number: 0,
            subjob: 0,
            group_reporting: false,
            iodepth: 1,
            thread: false,
            rw: "read".to_string(),
            bs: [(4096, 4096); 3],
            ioengine: "psync".to_string(),
            no_io: false,
            stats: StatsConfig::default(),
            options: OptionList::default(),
        }
    }
}

/// Options as `(name, value as written)` pairs, in order, for the JSON
/// output's `global options` and `job options`. Kept in one buffer (a run
/// with 100,000 global settings holds 100,000 pairs); serialized as a list
/// of pairs.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(from = "Vec<(String, String)>")]
pub struct OptionList {
    /// Every name and value, one after the other.
    text: String,
    /// Where each pair's name ends and its value ends, in `text`.
    ends: Vec<(u32, u32)>,
}

impl OptionList {
    /// Add `name=value` at the end (bytes that are not UTF-8, from a file
    /// name, as U+FFFD: the reports are UTF-8).
    pub(crate) fn push(&mut self, name: &str, value: &str) {
        self.text.push_str(name);
        let name_end = self.text.len() as u32;
        self.text.push_str(&crate::diag::lossy(value));
        self.ends.push((name_end, self.text.len() as u32));
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The pairs, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(n, v)| {
            let (n, v) = (n as usize, v as usize);
            let pair = (
                self.text.get(start..n).unwrap_or(""),
                self.text.get(n..v).unwrap_or(""),
            );
            start = v;
            pair
        })
    }
}

impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for OptionList {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> OptionList {
        let pairs = pairs.into_iter();
        let mut list = OptionList::default();
        // Room for all of them at once (a job's own options: about a dozen
        // short pairs) rather than growing step by step.
        let count = pairs.size_hint().0;
        list.ends.reserve_exact(count);
        list.text.reserve(count * 16);
        for (n, v) in pairs {
            list.push(n.as_ref(), v.as_ref());
        }
        list
    }
}

impl From<Vec<(String, String)>> for OptionList {
    fn from(pairs: Vec<(String, String)>) -> OptionList {
        pairs.into_iter().collect()
    }
}

impl Serialize for OptionList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lists_keep_their_pairs() {
        let list: OptionList = [("bs", "4k"), ("name", ""), ("", "x"), ("rw", "randrw")]
            .into_iter()
            .collect();
        assert_eq!(list.len(), 4);
        let pairs: Vec<(&str, &str)> = list.iter().collect();
        assert_eq!(
            pairs,
            [("bs", "4k"), ("name", ""), ("", "x"), ("rw", "randrw")]
        );
        let text = serde_json::to_string(&list).unwrap();
        assert_eq!(
            text,
            r#"[["bs","4k"],["name",""],["","x"],["rw","randrw"]]"#
        );
        assert_eq!(serde_json::from_str::<OptionList>(&text).unwrap(), list);
    }
}
