//! fio's idle profiling section (`idletime.c` `show_idle_prof_stats`):
//! after the disk statistics in the normal output, and the last object
//! (`cpu_idleness`) of the JSON document.
//!
//! ```text
//!
//! CPU idleness:
//!   system: 36.37%
//!   percpu: 2.64%, 70.10%
//!   unit work: mean=16.73us, stddev=14.24
//! ```
//!
//! `--idle-prof=calibrate` prints the header (without the blank line
//! before it) and the unit of work only.

use super::cfmt::fw;
use super::jsonw::Obj;
use crate::stats::{IdleMode, IdleReport};

/// The normal output's section.
pub(crate) fn normal(idle: &IdleReport) -> String {
    let mut s = String::new();
    if idle.mode == IdleMode::Calibrate {
        s.push_str("CPU idleness:\n");
    } else {
        s.push_str("\nCPU idleness:\n");
        s.push_str(&format!("  system: {}%\n", fw(idle.system(), 3, 2)));
    }
    if idle.mode == IdleMode::Percpu {
        let cpus: Vec<String> = idle
            .percpu
            .iter()
            .map(|&p| format!("{}%", fw(p, 3, 2)))
            .collect();
        s.push_str(&format!("  percpu: {}\n", cpus.join(", ")));
    }
    s.push_str(&format!(
        "  unit work: mean={}us, stddev={}\n",
        fw(idle.unit_mean, 3, 2),
        fw(idle.unit_stddev, 3, 2)
    ));
    s
}

/// The JSON document's `cpu_idleness`.
pub(crate) fn json(idle: &IdleReport) -> Obj<'static> {
    let mut o = Obj::new();
    o.float("system", idle.system());
    if idle.mode == IdleMode::Percpu {
        for (i, &p) in idle.percpu.iter().enumerate() {
            o.float(format!("cpu-{i}"), p);
        }
    }
    o.float("unit_mean", idle.unit_mean)
        .float("unit_stddev", idle.unit_stddev);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(mode: IdleMode) -> IdleReport {
        IdleReport {
            mode,
            percpu: vec![2.64, 70.1],
            unit_mean: 16.734,
            unit_stddev: 14.2391,
        }
    }

    #[test]
    fn sections_are_fios() {
        assert_eq!(
            normal(&report(IdleMode::Percpu)),
            "\nCPU idleness:\n  system: 36.37%\n  percpu: 2.64%, 70.10%\n  \
             unit work: mean=16.73us, stddev=14.24\n"
        );
        assert_eq!(
            normal(&report(IdleMode::System)),
            "\nCPU idleness:\n  system: 36.37%\n  unit work: mean=16.73us, stddev=14.24\n"
        );
        assert_eq!(
            normal(&report(IdleMode::Calibrate)),
            "CPU idleness:\n  unit work: mean=16.73us, stddev=14.24\n"
        );
    }

    #[test]
    fn json_is_fios() {
        let mut root = Obj::new();
        root.obj("cpu_idleness", json(&report(IdleMode::Percpu)));
        assert_eq!(
            root.to_document(),
            "{\n  \"cpu_idleness\" : {\n    \"system\" : 36.370000,\n    \"cpu-0\" : 2.640000,\n    \
             \"cpu-1\" : 70.100000,\n    \"unit_mean\" : 16.734000,\n    \"unit_stddev\" : 14.239100\n  }\n}\n"
        );
    }
}
