//! What the executor reads of a job beyond the plain fields of
//! [`JobSpec`]: its I/O options, resolved by the plan ([`IoOptions`], read
//! through [`Settings`] as if they were its fields), and the engine
//! options. Made once per job, before any thread starts; the I/O loop only
//! sees plain fields.

use std::ops::Deref;

use crate::ioengine::{EngineConfig, StatType};
use crate::options::Value;
use crate::plan::resolve::io::IoOptions;
pub use crate::plan::resolve::io::{ERR_READ, ERR_VERIFY, ERR_WRITE};
use crate::plan::spec::JobSpec;

/// Everything the executor reads beyond the typed fields of [`JobSpec`].
#[derive(Debug, Clone)]
pub struct Settings {
    /// The job's I/O options (`JobSpec::io`): depth and batches, syncs,
    /// file handling, error policy, `exitall`, clock.
    pub io: IoOptions,
    // Engine options.
    pub hipri: bool,
    pub nonvectored: i32,
    pub fixedbufs: bool,
    pub registerfiles: bool,
    pub sqthread_poll: bool,
    pub sqthread_poll_cpu: Option<u32>,
    pub userspace_reap: bool,
    pub stat_type: StatType,
    /// The engine options kept as the engine reads them (the command
    /// priorities, `cmdprio_*`); [`Settings::engine_config`] starts from it.
    pub engine_base: EngineConfig,
}

impl Settings {
    /// The settings of `spec`.
    pub fn of(spec: &JobSpec) -> Settings {
        let o = Opts(spec);
        let stat_type = match o.choice("stat_type").as_deref() {
            Some("lstat") => StatType::Lstat,
            Some("statx") => StatType::Statx,
            _ => StatType::Stat,
        };
        Settings {
            io: spec.io.clone(),
            hipri: o.flag("hipri").unwrap_or(false),
            nonvectored: o.int("nonvectored").unwrap_or(-1) as i32,
            fixedbufs: o.flag("fixedbufs").unwrap_or(false),
            registerfiles: o.flag("registerfiles").unwrap_or(false),
            sqthread_poll: o.flag("sqthread_poll").unwrap_or(false),
            sqthread_poll_cpu: o.int("sqthread_poll_cpu").map(|c| c as u32),
            userspace_reap: o.flag("userspace_reap").unwrap_or(false),
            stat_type,
            engine_base: EngineConfig::default().with_cmdprio(spec),
        }
    }

    /// The engine's configuration (without the buffer pool, which exists
    /// only in the job thread).
    pub fn engine_config(&self, direct: bool) -> EngineConfig {
        EngineConfig {
            iodepth: self.iodepth,
            direct,
            batch_complete_min: self.batch_complete_min,
            hipri: self.hipri,
            nonvectored: self.nonvectored,
            fixedbufs: self.fixedbufs,
            registerfiles: self.registerfiles,
            sqthread_poll: self.sqthread_poll,
            sqthread_poll_cpu: self.sqthread_poll_cpu,
            userspace_reap: self.userspace_reap,
            stat_type: self.stat_type,
            ..self.engine_base
        }
    }
}

impl Deref for Settings {
    type Target = IoOptions;

    fn deref(&self) -> &IoOptions {
        &self.io
    }
}

/// Typed reads of a job's options.
struct Opts<'a>(&'a JobSpec);

impl Opts<'_> {
    fn int(&self, name: &str) -> Option<i64> {
        match self.0.opt(name)? {
            Value::Int(n) => Some(*n),
            Value::Bytes(n) => i64::try_from(*n).ok(),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    fn flag(&self, name: &str) -> Option<bool> {
        match self.0.opt(name)? {
            Value::Bool(b) => Some(*b),
            Value::Int(n) => Some(*n != 0),
            _ => None,
        }
    }

    /// The `posvals` value chosen for a choice option.
    fn choice(&self, name: &str) -> Option<String> {
        let s = self.0.options.get(name)?;
        match &s.value {
            Value::Choice { index, .. } => s.def.posvals.get(*index).map(|p| p.value.to_string()),
            Value::Text(t) => Some(t.clone()),
            Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
            Value::Int(n) => Some(n.to_string()),
            _ => None,
        }
    }
}
