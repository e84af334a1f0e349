//! `sprandom` (fio 3.41, `spr_cs` 3.42): SSD preconditioning writes as
//! rfio runs them under each release; the offsets are real fio 3.42's
//! (its `write_iolog` of the same jobs).

use crate::common::{rfio_as, stderr, stdout, TempDir};

/// The blocks (of 4 KiB) a job of 64 KiB with `extra` writes under fio
/// 3.42, in the order of its `write_iolog`, and its stdout.
fn written(extra: &[&str]) -> (Vec<u64>, String) {
    let dir = TempDir::new("sprandom");
    let mut args = vec![
        "--name=s",
        "--filename=s.dat",
        "--size=64k",
        "--bs=4k",
        "--rw=randwrite",
        "--sprandom=1",
        "--spr_op=0.25",
        "--write_iolog=s.log",
    ];
    args.extend_from_slice(extra);
    let out = rfio_as(&dir, "3.42", &args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let log = std::fs::read_to_string(dir.0.join("s.log")).expect("the iolog");
    let blocks = log
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(2) == Some(&"write")).then(|| f[3].parse::<u64>().unwrap() / 4096)
        })
        .collect();
    (blocks, stdout(&out))
}

#[test]
fn regions_write_fio_3_42s_offsets() {
    // 64 KiB and 25%: 80 KiB physical, 2 regions of 10 blocks. The first
    // region's fresh blocks, then its rewrites (1 9 8 0 6 7), then fresh
    // ones until the job has written the physical size: block 15 is
    // never reached.
    let (blocks, out) = written(&["--spr_num_regions=2"]);
    assert_eq!(
        blocks,
        [11, 9, 14, 3, 8, 0, 4, 6, 7, 10, 1, 9, 8, 0, 6, 7, 12, 2, 5, 13]
    );
    // fio's fix-up, in its words, where its output goes.
    assert!(
        out.contains(
            "fio: sprandom sets random_generator=lfsr\nfio: sprandom sets norandommap=1\n"
        ),
        "{out}"
    );
}

#[test]
fn a_cache_defers_the_rewrites_by_a_region() {
    // spr_cs: region 0's rewrites (9 8) come after region 1's fresh
    // blocks, and the LFSR's end lets the last rewrites out.
    let (blocks, _) = written(&["--spr_num_regions=4", "--spr_cs=8k"]);
    assert_eq!(
        blocks,
        [11, 9, 14, 3, 8, 0, 4, 6, 9, 8, 7, 10, 1, 12, 0, 2, 5, 13, 15]
    );
}

#[test]
fn refused_as_fio_3_42_refuses_it() {
    let dir = TempDir::new("sprandom-refused");
    let run = |release: &str, extra: &[&str]| {
        let mut args = vec!["--name=s", "--filename=s.dat", "--size=64k", "--sprandom=1"];
        args.extend_from_slice(extra);
        let out = rfio_as(&dir, release, &args);
        (out.status.code(), stderr(&out))
    };
    // Unknown before 3.41; spr_cs before 3.42.
    let (code, err) = run("3.33", &["--rw=randwrite"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("unknown option 'sprandom'"), "{err}");
    let (code, err) = run("3.41", &["--rw=randwrite", "--spr_cs=8k"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("unknown option 'spr_cs'"), "{err}");
    // fixup_options: random writes from an LFSR without a random map.
    let (code, err) = run("3.42", &["--rw=randread"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("fio: sprandom requires random write, random_generator=lfsr, norandommap=1\n"),
        "{err}"
    );
    let (code, err) = run("3.42", &["--rw=randwrite", "--random_generator=tausworthe"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("fio: sprandom requires random_generator=lfsr\n"),
        "{err}"
    );
    // sprandom_init, as the job is set up: the job fails, the run exits 1
    // (spr_op 0.15: 76 KiB physical, regions of 19456 bytes).
    let (code, err) = run("3.42", &["--rw=randwrite", "--bs=3k"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("fio: sprandom: bs [3072] should be power of 2"),
        "{err}"
    );
    let (code, err) = run(
        "3.42",
        &["--rw=randwrite", "--spr_num_regions=4", "--spr_cs=1m"],
    );
    assert_eq!(code, Some(1));
    assert!(
        err.contains(
            "fio: sprandom: spr_cs [1048576] must be smaller than region_sz [19456] \
             which means [0] regions allowed"
        ),
        "{err}"
    );
}
