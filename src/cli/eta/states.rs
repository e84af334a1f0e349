//! The run-state letters of the status line (fio's `check_str_update` and
//! `update_condensed_str`): one letter per job, runs of the same letter
//! condensed (`r(1),_(2),P(1)`).

use std::fmt::Write as _;

use crate::plan::spec::JobSpec;
use crate::workload::progress::JobState;

/// The letter of a job while it does I/O, by its pattern (fio's
/// `check_str_update`): `R`/`r` (sequential/random) read, `W`/`w` write,
/// `M`/`m` mixed (`rwmixread` 100 and 0 count as read and write), `D`/`d`
/// trim.
pub(super) fn running_letter(spec: &JobSpec) -> char {
    let p = spec.pattern;
    let mixed = |seq: char, rnd: char| if p.random { rnd } else { seq };
    if p.read && p.write {
        match spec.rwmixread {
            100 => mixed('R', 'r'),
            0 => mixed('W', 'w'),
            _ => mixed('M', 'm'),
        }
    } else if p.read {
        mixed('R', 'r')
    } else if p.write {
        mixed('W', 'w')
    } else {
        mixed('D', 'd')
    }
}

/// fio's `check_str_update`: the letter of a job in `state`, `running`
/// (its [`running_letter`]) while it does I/O.
pub(super) fn state_letter(running: char, state: JobState) -> char {
    match state {
        JobState::NotCreated => 'P',
        JobState::Initialized => 'I',
        JobState::Ramp => '/',
        JobState::Running => running,
        JobState::Finishing => 'f',
        JobState::Exited => 'E',
        JobState::Reaped => '_',
        JobState::Failed => 'X',
    }
}

/// fio's `update_condensed_str`: `rr_` → `r(2),_(1)`.
pub(super) fn condense(letters: &str) -> String {
    let mut out = String::new();
    let mut chars = letters.chars().peekable();
    while let Some(c) = chars.next() {
        let mut n = 1;
        while chars.peek() == Some(&c) {
            chars.next();
            n += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        let _ = write!(out, "{c}({n})");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::job;

    #[test]
    fn states_condense_in_runs() {
        assert_eq!(condense("r"), "r(1)");
        assert_eq!(condense("rWm"), "r(1),W(1),m(1)");
        assert_eq!(condense("__m"), "_(2),m(1)");
        assert_eq!(condense(""), "");
    }

    #[test]
    fn letters_follow_the_pattern() {
        assert_eq!(state_letter('r', JobState::Running), 'r');
        assert_eq!(state_letter('W', JobState::Running), 'W');
        assert_eq!(state_letter('W', JobState::NotCreated), 'P');
        assert_eq!(state_letter('W', JobState::Ramp), '/');
        assert_eq!(state_letter('W', JobState::Reaped), '_');
        assert_eq!(state_letter('W', JobState::Failed), 'X');
        for (rw, letter) in [
            ("--rw=read", 'R'),
            ("--rw=randread", 'r'),
            ("--rw=write", 'W'),
            ("--rw=randwrite", 'w'),
            ("--rw=rw", 'M'),
            ("--rw=randrw", 'm'),
            ("--rw=trim", 'D'),
            ("--rw=randtrim", 'd'),
        ] {
            let spec = job(&["--name=a", "--ioengine=null", "--size=1m", rw]);
            assert_eq!(running_letter(&spec), letter, "{rw}");
        }
        let all_reads = job(&["--name=a", "--size=1m", "--rw=randrw", "--rwmixread=100"]);
        assert_eq!(running_letter(&all_reads), 'r');
        let all_writes = job(&["--name=a", "--size=1m", "--rw=rw", "--rwmixread=0"]);
        assert_eq!(running_letter(&all_writes), 'W');
    }
}
