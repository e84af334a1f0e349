//! `log-every-io`: a bandwidth, IOPS or latency log with `log_avg_msec`
//! left at 0 on a long job: fio logs a line per completed I/O, and the
//! HOWTO warns that the log "can quickly grow to a very large size" (fio
//! holds the entries in memory until the job ends).

use super::{at, num, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "log-every-io",
    summary: "a bw/iops/lat log of every I/O (log_avg_msec=0) on a long job",
    check,
};

/// A job this long (time-based), or with this many I/Os, logs too much
/// one line per I/O.
const LONG_US: u64 = 10_000_000;
const MANY_IOS: u64 = 1_000_000;

const LOGS: [&str; 3] = ["write_bw_log", "write_iops_log", "write_lat_log"];

fn check(cx: &Ctx) -> Option<Hit> {
    let job = cx.job;
    let log = LOGS.iter().find(|n| job.options.get(n).is_some())?;
    let avg = job.options.value("log_avg_msec").and_then(num).unwrap_or(0);
    if avg > 0 || cx.fake_io {
        return None;
    }
    let ios = cx.size.map(|s| s / job.bs[0].0.max(1));
    let how_long = match (job.time_based && job.runtime_us >= LONG_US, ios) {
        (true, _) => format!("for {} s", job.runtime_us / 1_000_000),
        (false, Some(n)) if n >= MANY_IOS && !job.time_based => format!("for {n} I/Os"),
        _ => return None,
    };
    Some(Hit {
        span: at(job, &[log]),
        message: format!(
            "{log} with log_avg_msec=0 logs a line per completed I/O {how_long}: the \
             logs grow to millions of lines, held in memory until the job ends (the \
             HOWTO warns of it), and a chart of them is noise"
        ),
        fix: "set log_avg_msec (e.g. log_avg_msec=1000) to log an average per period",
        target: None,
        jobs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn logs_of_every_io() {
        // 64 GiB in 4 KiB reads: 16M lines.
        assert_eq!(with(&["--write_bw_log=j"]), ["log-every-io"]);
        assert_eq!(
            with(&["--write_lat_log=j", "--log_avg_msec=500"]),
            Vec::<&str>::new()
        );
        assert_eq!(
            with(&["--write_iops_log=j", "--time_based", "--runtime=60"]),
            ["log-every-io"]
        );
        assert_eq!(
            with(&["--write_iops_log=j", "--time_based", "--runtime=2"]),
            Vec::<&str>::new()
        );
    }
}
