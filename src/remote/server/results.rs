//! What the server sends of a run: the report as fio's JOB_OPT, TS, GS and
//! DU messages, and the ETA replies, in the layouts of the version the
//! client speaks (`crate::wire::stats`).

use super::conn::Conn;
use crate::cli::eta::JobsEta;
use crate::plan::Plan;
use crate::stats::RunReport;
use crate::wire::body::JobOpt;
use crate::wire::frame::{Op, Version};
use crate::wire::stats as ws;

/// Whether rfio has the layouts of `version`.
pub(super) fn speaks(version: Version) -> bool {
    ws::layout::layout(version).is_some()
}

/// The report, as fio's server sends it once its jobs are over: the global
/// options, then each statistics block's options and its TS, then one GS
/// per group and one DU per disk.
pub(super) fn send_report(conn: &Conn, report: &RunReport) {
    let v = conn.version();
    for (name, value) in report.global_options.iter() {
        let o = JobOpt {
            global: true,
            truncated: false,
            index: 0,
            name: name.to_string(),
            value: value.to_string(),
        };
        conn.send(Op::JobOpt, 0, &o.encode());
    }
    let summary = &report.summary;
    for (i, e) in summary.entries.iter().enumerate() {
        if let Some(job) = report.jobs.get(e.last_job) {
            for (name, value) in job.info.options.iter() {
                let o = JobOpt {
                    global: false,
                    truncated: false,
                    index: i as u32,
                    name: name.to_string(),
                    value: value.to_string(),
                };
                conn.send(Op::JobOpt, 0, &o.encode());
            }
        }
        let group = summary.group_of(e);
        // fio 3.36 and later send when the job started (epoch ms).
        let start_ms = report.finished_ms.saturating_sub(e.run_ms);
        if let Some(ts) = ws::ts::encode_ts(e, group, v, start_ms) {
            conn.send(Op::Ts, 0, &ts);
        }
    }
    for g in &summary.groups {
        conn.send(Op::Gs, 0, &ws::gs::encode_gs(g));
    }
    for d in &report.disks {
        conn.send(Op::Du, 0, &ws::du::Du::of(d).encode());
    }
}

/// An ETA reply while the jobs run: the status line's numbers (`None`:
/// nothing to say, fio's 168 zero bytes).
pub(super) fn eta_body(je: Option<&JobsEta>, plan: &Plan) -> Vec<u8> {
    let Some(je) = je else {
        return ws::eta::Eta::default().encode();
    };
    let first = plan.jobs.first().map(|j| &j.report.stats);
    ws::eta::Eta {
        nr_running: je.nr_running,
        nr_ramp: je.nr_ramp,
        nr_pending: je.nr_pending,
        nr_setting_up: 0,
        m_rate: je.m_rate,
        t_rate: je.t_rate,
        rate: je.rate,
        m_iops: je.m_iops.map(|n| n as u32),
        t_iops: je.t_iops.map(|n| n as u32),
        iops: je.iops.map(|n| n as u32),
        elapsed_sec: je.elapsed_sec,
        eta_sec: je.eta_sec,
        is_pow2: first.map_or(1, |s| u32::from(s.kb_base == 1024)),
        // fio's unit code: 4 bytes/s, 5 bits/s (rfio's option values 8, 1).
        unit_base: match first.map_or(8, |s| s.unit_base) {
            1 => 5,
            _ => 4,
        },
        sig_figs: first.map_or(4, |s| s.sig_figs as u32),
        files_open: je.files_open,
        nr_threads: plan.jobs.len() as u32,
        run_str: je.run_str.clone(),
    }
    .encode()
}

/// An ETA reply before the jobs run: fio's 168 zero bytes, or with jobs
/// parsed, all of them pending (`P(2)`).
pub(super) fn idle_eta(jobs: u32) -> Vec<u8> {
    let mut eta = ws::eta::Eta::default();
    if jobs > 0 {
        eta.nr_pending = jobs;
        eta.nr_threads = jobs;
        eta.run_str = format!("P({jobs})");
    }
    eta.encode()
}

/// A log a job of the run writes, to be sent to the client (fio's server
/// sends its jobs' logs as IOLOG messages and keeps none).
pub(super) struct LogFile {
    path: std::path::PathBuf,
    thread_number: u32,
    /// fio's `log_type`: 1 lat, 2 clat, 3 slat, 4 bw, 5 iops.
    log_type: u32,
    offset: bool,
    prio: bool,
    stored: bool,
}

/// The logs `plan`'s jobs write (histogram logs stay where they are
/// written: rfio does not send them).
pub(super) fn log_files(plan: &Plan) -> Vec<LogFile> {
    use crate::logs::LogKind;
    let mut out = Vec::new();
    for job in &plan.jobs {
        let Some(cfg) = &job.logs else { continue };
        for (kind, prefix) in &cfg.logs {
            let log_type = match kind {
                LogKind::Lat => 1,
                LogKind::Clat => 2,
                LogKind::Slat => 3,
                LogKind::Bw => 4,
                LogKind::Iops => 5,
                LogKind::ClatHist => continue,
            };
            out.push(LogFile {
                path: cfg.path(*kind, prefix),
                thread_number: cfg.thread_number,
                log_type,
                offset: cfg.offset,
                prio: cfg.prio,
                stored: cfg.store_compressed,
            });
        }
    }
    out
}

/// Send each log the jobs wrote as an IOLOG message and remove it here, as
/// fio's server keeps no log of its own.
pub(super) fn send_logs(conn: &Conn, files: &[LogFile]) {
    use crate::wire::stats::iolog::{self, Iolog, STORE_COMPRESSED};
    for f in files {
        let Ok(bytes) = std::fs::read(&f.path) else {
            continue;
        };
        let name = f.path.to_string_lossy().into_owned();
        let mut log = Iolog {
            thread_number: f.thread_number,
            log_type: f.log_type,
            log_offset: u32::from(f.offset),
            log_prio: u32::from(f.prio),
            name,
            ..Iolog::default()
        };
        if f.stored {
            log.compressed = STORE_COMPRESSED;
            log.stored = bytes;
        } else {
            log.samples = iolog::parse_text_log(&String::from_utf8_lossy(&bytes), f.offset);
        }
        if let Some(body) = iolog::encode_iolog(&log, conn.version()) {
            conn.send(Op::IoLog, 0, &body);
            let _ = std::fs::remove_file(&f.path);
        }
    }
}
