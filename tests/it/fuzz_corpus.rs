//! Replays each fuzz target's corpus (`fuzz/corpus/<target>/`) through the
//! function the target calls: every input that ever found a problem stays
//! fixed.

/// Runs `check` on every file of `fuzz/corpus/<target>`; at least `min` of
/// them, so that a corpus left behind fails rather than passes empty.
pub(crate) fn replay(target: &str, check: fn(&[u8]), min: usize) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut n = 0;
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("readable entry").path();
        let bytes = std::fs::read(&path).expect("readable corpus file");
        check(&bytes);
        n += 1;
    }
    assert!(
        n >= min,
        "expected the {target} fuzz corpus, found {n} inputs"
    );
}

#[test]
fn fuzz_corpus_replays_clean() {
    replay("jobfile", rfio::front_end_check, 50);
}

mod generated {
    use proptest::prelude::*;

    /// Options the plan build reads, each with values that stress it:
    /// empty lists, separators only, zero, negative, beyond the limits,
    /// reversed and degenerate ranges, percentages, absolute names.
    const OPTIONS: &[(&str, &[&str])] = &[
        (
            "filename",
            &[
                ":",
                "::",
                " : ",
                "\\:",
                "a:b",
                "/abs/x",
                "../up:/abs",
                "a\\:b:",
                " ",
            ],
        ),
        (
            "filename_format",
            &["", "/abs/$jobname", "$JOBNUM.$filenum", "$", "$$jobname"],
        ),
        ("directory", &[":", "/d1:/d2", "::", "d", "/"]),
        (
            "nrfiles",
            &["0", "1", "3", "-1", "1048577", "9223372036854775807", "x"],
        ),
        ("numjobs", &["0", "1", "3", "-1", "65537", "99999999999"]),
        (
            "size",
            &["0", "1", "4k", "1m", "8191p", "50%", "0%", "100%", "-1"],
        ),
        (
            "filesize",
            &["0", "1-2", "4k-1p", "8k-4k", "1p-1p", "1", ":"],
        ),
        ("io_size", &["0", "1", "8191p"]),
        ("offset", &["0", "100%", "8191p", "-1"]),
        ("offset_increment", &["0", "200%", "8191p"]),
        ("bs", &["0", "1", "4k", "16384p", "4k,0", "1,2,3"]),
        ("bsrange", &["1-18446744073709551615", "8k-4k", "0-0"]),
        ("bssplit", &["4k/50:16384p/50", "0/100", "4k/101", ":"]),
        ("iodepth", &["0", "1", "1000000", "4294967296", "-1"]),
        (
            "rw",
            &[
                "read",
                "randtrimwrite",
                "randread:18446744073709551615",
                "rw:0",
                "trim",
            ],
        ),
        (
            "ioengine",
            &["null", "filedelete", "falloc", "libaio", "nosuch"],
        ),
        ("loops", &["0", "4294967295", "-1"]),
        ("number_ios", &["0", "18446744073709551615"]),
        ("wait_for", &["a", "nosuch", ""]),
        ("unlink", &["1", "0"]),
        ("fill_device", &["1"]),
        ("mem", &["mmap:/tmp/x", "mmapshared:", "malloc"]),
        ("startdelay", &["1-0", "0-18446744073709551615"]),
        ("stonewall", &[""]),
        ("new_group", &[""]),
    ];

    fn option() -> impl Strategy<Value = String> {
        (0..OPTIONS.len(), any::<prop::sample::Index>()).prop_map(|(i, v)| {
            let (name, values) = OPTIONS[i];
            let value = v.get(values);
            if value.is_empty() {
                name.to_string()
            } else {
                format!("{name}={value}")
            }
        })
    }

    fn section() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec!["global", "a", "b", "c"]),
            prop::collection::vec(option(), 0..6),
        )
            .prop_map(|(name, opts)| format!("[{name}]\n{}\n", opts.join("\n")))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any mix of these options, in any sections, goes through the
        /// whole plan build (files, numjobs, groups, readonly) without a
        /// panic, and every plan keeps its promises.
        #[test]
        fn generated_job_files_build_clean(sections in prop::collection::vec(section(), 1..5)) {
            rfio::front_end_check(sections.concat().as_bytes());
        }
    }
}

#[test]
fn iolog_fuzz_corpus_replays_clean() {
    replay("iolog", rfio::fuzz::iolog_check, 10);
}

#[test]
fn blktrace_fuzz_corpus_replays_clean() {
    replay("blktrace", rfio::fuzz::blktrace_check, 10);
}

#[test]
fn plot_log_corpus_replays_clean() {
    replay("plot_log", rfio::fuzz::plot_log_check, 10);
}

#[test]
fn plot_json_corpus_replays_clean() {
    replay("plot_json", rfio::fuzz::plot_json_check, 10);
}

#[test]
fn inflate_corpus_replays_clean() {
    replay("inflate", rfio::fuzz::inflate_check, 10);
}

#[test]
fn wire_frame_corpus_replays_clean() {
    replay("wire_frame", rfio::fuzz::wire_frame_check, 10);
}

#[test]
fn baseline_corpus_replays_clean() {
    replay("baseline", rfio::fuzz::baseline_check, 10);
}
