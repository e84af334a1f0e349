//! The aggregate bandwidth logs of `--bandwidth-log` (fio 3.33's
//! `agg_io_log`, fed by `eta.c`): `agg-read_bw.log`, `agg-write_bw.log`
//! and `agg-trim_bw.log` in the working directory, all three always
//! written (a direction nobody does logs zeros).
//!
//! Lines: `time, KiB/s, ddir, 0, 0` (bs and prio are 0): the bandwidth of
//! all jobs together since the previous sample, time in ms since the jobs
//! started. fio takes a sample when its status line is computed and more
//! than the smallest `bwavgtime` of the jobs (500 ms by default) has
//! passed since the last one, no job being in its ramp; since the status
//! line is computed only where it is shown (a terminal, or
//! `--eta=always`), the files are empty otherwise.
//!
//! The samples are kept in memory (a few per second) and written when the
//! run is over, as fio writes its logs at exit.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file names, by direction (read, write, trim).
pub(crate) const AGG_LOG_NAMES: [&str; 3] =
    ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// One sample: ms since the jobs started and KiB/s per direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AggSample {
    pub(crate) t_ms: u64,
    pub(crate) kib_s: [u64; 3],
}

/// The samples of a run, written at its end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AggLog {
    samples: Vec<AggSample>,
}

impl AggLog {
    pub(crate) fn new() -> AggLog {
        AggLog::default()
    }

    pub(crate) fn push(&mut self, s: AggSample) {
        self.samples.push(s);
    }

    #[cfg(test)]
    pub(crate) fn samples(&self) -> &[AggSample] {
        &self.samples
    }

    /// One direction's file, as text.
    pub(crate) fn render(&self, dir: usize) -> String {
        let mut out = String::with_capacity(self.samples.len() * 24);
        for s in &self.samples {
            out.push_str(&format!("{}, {}, {dir}, 0, 0\n", s.t_ms, s.kib_s[dir]));
        }
        out
    }

    /// Write the three files into `dir`; their paths. The first error
    /// names the file.
    pub(crate) fn write_to(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let mut paths = Vec::with_capacity(3);
        for (d, name) in AGG_LOG_NAMES.iter().enumerate() {
            let path = dir.join(name);
            std::fs::File::create(&path)
                .and_then(|mut f| f.write_all(self.render(d).as_bytes()))
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            paths.push(path);
        }
        Ok(paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_fios() {
        let mut log = AggLog::new();
        log.push(AggSample {
            t_ms: 603,
            kib_s: [7_969_611, 7_963_933, 0],
        });
        log.push(AggSample {
            t_ms: 1249,
            kib_s: [11_706_718, 0, 0],
        });
        assert_eq!(
            log.render(0),
            "603, 7969611, 0, 0, 0\n1249, 11706718, 0, 0, 0\n"
        );
        assert_eq!(log.render(1), "603, 7963933, 1, 0, 0\n1249, 0, 1, 0, 0\n");
        assert_eq!(log.render(2), "603, 0, 2, 0, 0\n1249, 0, 2, 0, 0\n");
    }

    #[test]
    fn all_three_files_are_written_even_empty() {
        let dir = std::env::temp_dir().join(format!("rfio-agg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths = AggLog::new().write_to(&dir).unwrap();
        assert_eq!(paths.len(), 3);
        for (p, name) in paths.iter().zip(AGG_LOG_NAMES) {
            assert!(p.ends_with(name));
            assert_eq!(std::fs::read(p).unwrap().len(), 0);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
