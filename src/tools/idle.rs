//! `--idle-prof`'s value, and `--idle-prof=calibrate`, which replaces the
//! run: the profiler itself (fio's `idletime.c`) is the run's
//! (`workload::idle`).

use std::io::{self, Write};

use crate::stats::IdleMode;
use crate::workload::idle::Profiler;

/// `--idle-prof`'s value: the mode, or fio's complaint.
pub(crate) fn parse_mode(value: &str) -> Result<IdleMode, super::Error> {
    match value {
        "calibrate" => Ok(IdleMode::Calibrate),
        "system" => Ok(IdleMode::System),
        "percpu" => Ok(IdleMode::Percpu),
        other => Err(super::Error::IdleProfMode(other.to_string())),
    }
}

/// `--idle-prof=calibrate`: calibrate, print, exit 0.
pub(crate) fn calibrate_only(out: &mut dyn Write) -> io::Result<i32> {
    if let Some(p) = Profiler::start(Some(IdleMode::Calibrate)) {
        write!(out, "{}", crate::output::idle::normal(&p.finish()))?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_fios() {
        assert_eq!(parse_mode("percpu"), Ok(IdleMode::Percpu));
        assert_eq!(parse_mode("system"), Ok(IdleMode::System));
        assert_eq!(parse_mode("calibrate"), Ok(IdleMode::Calibrate));
        assert_eq!(
            parse_mode("System").unwrap_err().to_string(),
            "incorrect idle-prof option: System"
        );
        assert_eq!(
            parse_mode(""),
            Err(crate::tools::Error::IdleProfMode(String::new()))
        );
    }
}
