//! Which ioengine's options fio's getopt knows at each argument of a
//! command line. fio starts a job's engine as the job starts (its global
//! section's, else the default, which has no options) and again at each
//! `--ioengine=`, and each time replaces the engine options among its long
//! options with that engine's (init.c's `parse_cmd_line`,
//! `fio_options_set_ioengine_opts`); before the first job option it knows
//! none. rfio's long options hold every engine's up front: read as fio,
//! an engine option is one only while its engine is loaded.

use crate::jobfile::Mode;
use crate::options::{engines, suggest};
use crate::release::Release;

/// The engine loaded so far, as fio's command line has it.
#[derive(Debug)]
pub(super) struct Loaded {
    /// Read as fio (else every engine's options are known everywhere).
    as_fio: bool,
    release: Release,
    /// The job options go to the global section (`None`: no job option
    /// yet).
    in_global: Option<bool>,
    /// The global section's `ioengine`, which a new job starts with.
    global: Option<String>,
    /// The current job's `ioengine` (`None`: the default).
    engine: Option<String>,
}

impl Loaded {
    pub(super) fn new(reading: (Mode, Release)) -> Loaded {
        Loaded {
            as_fio: reading.0 == Mode::Fio,
            release: reading.1,
            in_global: None,
            global: None,
            engine: None,
        }
    }

    /// Whether engine option (or alias) `name` is a long option now. After
    /// an `--ioengine` fio cannot load, fio stops at that argument and
    /// never reads the next (`engine NAME not loadable`): every option is
    /// let through, for the plan's refusal to be the one printed.
    pub(super) fn knows(&self, name: &str) -> bool {
        !self.as_fio
            || self.unloadable()
            || suggest::engine_options(self.release, self.engine.as_deref())
                .any(|d| d.name == name || d.aliases.contains(&name))
    }

    /// Whether the engine loaded now is one fio cannot load.
    fn unloadable(&self) -> bool {
        self.engine.as_deref().is_some_and(|e| {
            !engines::is_available(e, self.release) && engines::external_path(e).is_none()
        })
    }

    /// The engine fio suggests options of now (read as fio).
    pub(super) fn engine(&self) -> Option<String> {
        self.engine.clone().filter(|_| self.as_fio)
    }

    /// Job option `name` was read with `value`.
    pub(super) fn job_option(&mut self, name: &str, value: Option<&str>) {
        let value = value.unwrap_or("");
        if name == "name" {
            // A job starts (the one before is added): the global section
            // itself for `--name=global`.
            self.in_global = Some(value.starts_with("global"));
            self.engine = self.global.clone();
        } else if self.in_global.is_none() {
            // Options before any `--name` set the global section.
            self.in_global = Some(true);
            self.engine = self.global.clone();
        }
        if name == "ioengine" {
            self.engine = Some(value.to_string());
            if self.in_global == Some(true) {
                self.global = self.engine.clone();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(mode: Mode, options: &[(&str, &str)]) -> Loaded {
        let mut l = Loaded::new((mode, Release::V3_33));
        for (name, value) in options {
            l.job_option(name, Some(value));
        }
        l
    }

    /// fio 3.33 and 3.42: `--name=a --ioengine=io_uring --sqthread_poll=1`
    /// parses; the option before `--ioengine`, after `--ioengine=libaio`
    /// or in the next job (which starts with the default engine) is
    /// unrecognized; a job after `--name=global --ioengine=io_uring` has
    /// io_uring's options.
    #[test]
    fn engine_options_follow_the_loaded_engine() {
        let fio = Mode::Fio;
        assert!(!after(fio, &[("name", "a")]).knows("sqthread_poll"));
        let uring = after(fio, &[("name", "a"), ("ioengine", "io_uring")]);
        assert!(uring.knows("sqthread_poll"));
        assert!(!uring.knows("userspace_reap"));
        assert_eq!(uring.engine().as_deref(), Some("io_uring"));
        let libaio = after(fio, &[("name", "a"), ("ioengine", "libaio")]);
        assert!(!libaio.knows("sqthread_poll"));
        let next = [("name", "a"), ("ioengine", "io_uring"), ("name", "b")];
        assert!(!after(fio, &next).knows("sqthread_poll"));
        let global = [("name", "global"), ("ioengine", "io_uring"), ("name", "b")];
        assert!(after(fio, &global).knows("sqthread_poll"));
        let bare = [("ioengine", "io_uring"), ("name", "b")];
        assert!(after(fio, &bare).knows("sqthread_poll"));
        // After an engine fio 3.33 cannot load, fio stops reading.
        let dir = [("name", "a"), ("ioengine", "dirdelete")];
        assert!(after(fio, &dir).knows("stat_type"));
        // Read strictly, every engine's options are known everywhere.
        assert!(after(Mode::Strict, &[]).knows("sqthread_poll"));
        assert_eq!(after(Mode::Strict, &uring_only()).engine(), None);
    }

    fn uring_only() -> [(&'static str, &'static str); 1] {
        [("ioengine", "io_uring")]
    }
}
