//! The warnings fio 3.33 gives as it adds a job (`init.c`
//! `fixup_options`) that `--warnings-fatal` turns into errors: the job is
//! then refused after its warnings, once the description lines of the
//! jobs added before it are out, and fio exits 1 (without its usage text,
//! even for the first job).
//!
//! fio prints the first four with `log_err` (stderr) and the last three
//! with `log_info` (where its output goes); rfio prints them all on
//! stderr, as it prints these warnings without `--warnings-fatal`.

use super::spec::{JobSpec, Plan};

/// fio's warnings for job `spec`, in fio's order, each without its
/// newline.
pub(crate) fn fixup_warnings(spec: &JobSpec) -> Vec<&'static str> {
    let o = spec.opts();
    let mut w = Vec::new();
    if spec.iolog.write_overridden {
        w.push("fio: read iolog overrides write_iolog");
    }
    // fio aligns a direction to its smallest block size unless the job is
    // random and sets its `blockalign`; any other alignment turns the
    // random map off.
    let min_bs = |d: usize| spec.bs[d].0;
    let ba = |d: usize| {
        spec.offsets
            .blockalign
            .and_then(|b| b[d])
            .filter(|&v| v > 0 && spec.pattern.random)
            .unwrap_or(min_bs(d))
    };
    let mut norandommap = spec.norandommap;
    if (0..3).any(|d| ba(d) != min_bs(d)) && !norandommap {
        w.push("fio: Any use of blockalign= turns off randommap");
        norandommap = true;
    }
    let fixed_bs = spec.bs.iter().all(|&(lo, hi)| lo == hi)
        && spec.bs.iter().all(|&(lo, _)| lo == spec.bs[0].0);
    let verify = spec.verify.as_ref();
    if norandommap && verify.is_some() && !fixed_bs {
        w.push("fio: norandommap given for variable block sizes, verify limited");
    }
    if spec.time_based_dropped {
        w.push("fio: time_based requires a runtime/timeout setting");
    }
    let writes_and_checks = spec.pattern.write && verify.is_some_and(|v| v.do_verify);
    if writes_and_checks && o.int_or_default("numjobs") > 1 {
        let format = o
            .text("filename_format")
            .filter(|f| !f.is_empty())
            .unwrap_or("$jobname.$jobnum.$filenum");
        let unique = o.flag_or_default("unique_filename")
            && ["$jobname", "$jobnum", "$filenum"]
                .iter()
                .all(|k| format.contains(k));
        if o.text("filename").is_some_and(|f| !f.is_empty()) || !unique {
            w.push(
                "fio: multiple writers may overwrite blocks that belong to other jobs. \
                 This can cause verification failures.",
            );
        }
    }
    if writes_and_checks
        && spec.time_based
        && !spec.pattern.read
        && verify.is_some_and(|v| v.backlog == 0)
    {
        w.push(
            "fio: verification read phase will never start because write phase uses all of runtime",
        );
    }
    if spec.io.pre_read && crate::ioengine::flags(&spec.ioengine).is_some_and(|f| f.pipe_io) {
        w.push(
            "fio: cannot pre-read files with an IO engine that isn't seekable. Pre-read disabled.",
        );
    }
    w
}

/// Under `--warnings-fatal`: the first job fio would refuse for its
/// warnings, as (its index, the warnings' lines).
pub(crate) fn first_fatal(plan: &Plan) -> Option<(usize, String)> {
    plan.jobs.iter().enumerate().find_map(|(i, spec)| {
        let w = fixup_warnings(spec);
        (!w.is_empty()).then(|| (i, w.join("\n")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::plan;

    fn warnings(argv: &[&str]) -> Vec<&'static str> {
        let mut args = vec!["--name=j", "--ioengine=null", "--size=1m"];
        args.extend_from_slice(argv);
        fixup_warnings(&plan(&args).jobs[0])
    }

    #[test]
    fn a_plain_job_has_none() {
        assert!(warnings(&[]).is_empty());
        assert!(warnings(&["--rw=randwrite", "--verify=md5", "--bsrange=4k-8k"]).is_empty());
    }

    #[test]
    fn each_warning_of_fio() {
        assert_eq!(
            warnings(&["--time_based"]),
            ["fio: time_based requires a runtime/timeout setting"]
        );
        assert_eq!(
            warnings(&["--rw=randread", "--blockalign=8k"]),
            ["fio: Any use of blockalign= turns off randommap"]
        );
        // Sequential I/O aligns to the block size whatever blockalign says;
        // the random map was off already.
        assert!(warnings(&["--blockalign=8k"]).is_empty());
        assert!(warnings(&["--rw=randread", "--blockalign=8k", "--norandommap"]).is_empty());
        assert_eq!(
            warnings(&[
                "--rw=randwrite",
                "--verify=md5",
                "--bsrange=4k-8k",
                "--norandommap",
                "--time_based"
            ]),
            [
                "fio: norandommap given for variable block sizes, verify limited",
                "fio: time_based requires a runtime/timeout setting"
            ]
        );
        assert_eq!(
            warnings(&["--rw=write", "--verify=md5", "--time_based", "--runtime=1"]),
            ["fio: verification read phase will never start because write phase uses all of runtime"]
        );
        assert!(warnings(&[
            "--rw=write",
            "--verify=md5",
            "--time_based",
            "--runtime=1",
            "--verify_backlog=8"
        ])
        .is_empty());
        assert!(warnings(&["--rw=write", "--verify=md5", "--numjobs=2"]).is_empty());
        let multiple = "fio: multiple writers may overwrite blocks that belong to other jobs. \
                        This can cause verification failures.";
        assert_eq!(
            warnings(&[
                "--rw=write",
                "--verify=md5",
                "--numjobs=2",
                "--filename=/tmp/x"
            ]),
            [multiple]
        );
        assert_eq!(
            warnings(&[
                "--rw=write",
                "--verify=md5",
                "--numjobs=2",
                "--unique_filename=0"
            ]),
            [multiple]
        );
        assert_eq!(
            warnings(&[
                "--rw=write",
                "--verify=md5",
                "--numjobs=2",
                "--filename_format=$jobname.$filenum"
            ]),
            [multiple]
        );
    }
}
