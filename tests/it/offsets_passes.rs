//! Where a new pass over the files starts the offsets, against fio 3.33.
//!
//! fio's `do_io` ends a pass when every file is done (a random map or an
//! LFSR runs out, a sequential file reaches its end), when the job has
//! issued all its bytes (`io_size` or `size`, times `loops`), or when the
//! pass itself has issued `size` bytes (more for random overwrites
//! without a map, trimwrite and `verify_backlog`). That last count only
//! takes I/O the engine queues (`FIO_Q_QUEUED`): an I/O completed inside
//! the engine's `queue` (by a synchronous engine, or the null engine at
//! iodepth 1) adds nothing to it. So with `norandommap` (or a zoned
//! distribution, or tausworthe64 without a map) and a synchronous engine
//! the first pass runs through every loop and the random offsets go on,
//! whereas an
//! asynchronous engine ends the pass after `size` bytes and the next one,
//! re-seeded (`randrepeat`), repeats it. zipf, pareto and normal keep
//! their own generators, never re-seeded; an LFSR restarts from its seed
//! each pass (it runs out, so the pass ends either way).
//!
//! Every case runs rfio and real fio with the null engine and per-I/O
//! latency logs (`write_lat_log`, `log_offset=1`, `log_avg_msec=0`: one
//! line per I/O with its direction and offset, in issue order) in a
//! temporary directory and compares the sequences of (direction, offset).
//! These tests need fio 3.33 and fail without it.

use crate::common;

use common::{logged_ios, real_fio, run_in, stderr, TempDir, RFIO};

/// (direction as the log writes it: 0 read, 1 write, 2 trim; offset).
type Io = (u8, u64);

/// The I/Os of the first job `bin` issues for `line` (null engine), in
/// issue order, from its per-I/O latency log.
fn logged(bin: &str, line: &str) -> Vec<Io> {
    logged_ios(bin, line)[0]
        .iter()
        .map(|io| (io.ddir, io.offset))
        .collect()
}

/// Panic at the first I/O where `ours` and `theirs` differ, within the
/// first `n` (all when `None`, which also compares the counts).
fn compare(line: &str, ours: &[Io], theirs: &[Io], n: Option<usize>) {
    let len = n.unwrap_or(ours.len().max(theirs.len()));
    assert!(
        ours.len() >= len && theirs.len() >= len,
        "{line}: rfio issued {}, fio {} I/Os (want {len})",
        ours.len(),
        theirs.len()
    );
    if let Some(i) = (0..len).find(|&i| ours[i] != theirs[i]) {
        panic!(
            "{line}: I/O {i}: rfio {:?}, fio {:?} (of {} and {})",
            ours[i],
            theirs[i],
            ours.len(),
            theirs.len()
        );
    }
}

/// rfio's I/Os for `line`, after checking fio issues the same.
fn same_as_fio(line: &str) -> Vec<Io> {
    let fio = real_fio();
    let ours = logged(RFIO, line);
    compare(line, &ours, &logged(fio, line), None);
    ours
}

/// Offsets in 4 KiB blocks.
fn blocks(ios: &[Io]) -> Vec<u64> {
    ios.iter().map(|io| io.1 / 4096).collect()
}

#[test]
fn norandommap_loops_continue_the_random_offsets_on_a_sync_engine() {
    let ios = same_as_fio("--name=x --size=64k --loops=4 --bs=4k --rw=randread --norandommap");
    assert_eq!(ios.len(), 64);
    // fio 3.33: I/O 16 (the first of the second loop) is at 28 KiB; a
    // re-seeded pass would start again at 0.
    assert_eq!(ios[16].1, 28 << 10);
    assert_eq!(
        blocks(&ios[..20]),
        [0, 11, 13, 7, 6, 13, 6, 5, 14, 1, 13, 10, 14, 3, 6, 8, 7, 12, 5, 9]
    );
    assert_ne!(blocks(&ios[..16]), blocks(&ios[16..32]));
    // io_size past size: the same single sequence.
    let io_size =
        same_as_fio("--name=x --size=64k --io_size=256k --bs=4k --rw=randread --norandommap");
    assert_eq!(io_size, ios);
}

#[test]
fn norandommap_passes_of_a_queueing_engine_repeat() {
    // The null engine queues at iodepth 2: each pass ends after `size`
    // bytes and the next, re-seeded, repeats it.
    let ios = same_as_fio(
        "--name=x --size=64k --loops=4 --bs=4k --rw=randread --norandommap --iodepth=2",
    );
    assert_eq!(ios.len(), 64);
    for pass in 1..4 {
        assert_eq!(ios[pass * 16..(pass + 1) * 16], ios[..16], "pass {pass}");
    }
    same_as_fio(
        "--name=x --size=64k --io_size=256k --bs=4k --rw=randread --norandommap --iodepth=2",
    );
}

#[test]
fn passes_without_a_map_match_fio() {
    for line in [
        // The case the brief reported, and a smaller one of each kind.
        "--name=x --size=16m --io_size=64m --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randread --random_distribution=zoned_abs:60/64k:40/192k",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randread --random_generator=tausworthe64 --norandommap",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randwrite --norandommap",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randrw --norandommap",
        "--name=x --size=256k --loops=2 --bs=4k --rw=randread --norandommap --nrfiles=2",
        "--name=x --size=256k --loops=2 --bs=4k --rw=randread:4 --norandommap",
        "--name=x --size=256k --loops=2 --bs=4k --rw=randread --norandommap --percentage_random=50",
        "--name=x --size=64k --loops=2 --bs=4k --rw=randtrimwrite --norandommap",
        // Generators that already matched and must stay so: their own
        // state (zipf, pareto, normal) or an LFSR, which runs out.
        "--name=x --size=1m --loops=3 --bs=4k --rw=randread --random_distribution=zipf:1.2",
        "--name=x --size=1m --io_size=3m --bs=4k --rw=randread --random_distribution=pareto:0.3",
        "--name=x --size=1m --loops=3 --bs=4k --rw=randread --random_distribution=normal:10",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randread --random_generator=lfsr --norandommap",
        "--name=x --size=256k --io_size=768k --bs=4k --rw=randread --random_generator=lfsr",
        "--name=x --size=256k --loops=3 --bs=4k --rw=randread --random_generator=tausworthe64",
        // A random map repeats each pass, on either kind of engine.
        "--name=x --size=64k --loops=3 --bs=4k --rw=randread",
        "--name=x --size=64k --loops=3 --bs=4k --rw=randread --iodepth=2",
    ] {
        same_as_fio(line);
    }
}

#[test]
fn queueing_engine_passes_end_after_size_bytes() {
    for line in [
        // A sequential mix: the second pass starts at 0 again.
        "--name=x --size=64k --loops=3 --bs=4k --rw=rw --iodepth=2",
        "--name=x --size=64k --io_size=192k --bs=4k --rw=rw --iodepth=2",
        // randtrimwrite: the pass takes size plus all the job's bytes.
        "--name=x --size=64k --loops=2 --bs=4k --rw=randtrimwrite --norandommap --iodepth=2",
        "--name=x --size=64k --loops=3 --bs=4k --rw=randwrite --norandommap --iodepth=2",
    ] {
        same_as_fio(line);
    }
}

#[test]
fn verify_read_back_follows_the_pass_fio_makes() {
    // Synchronous: one pass writes both loops' blocks (fio 3.33: 47 I/Os,
    // 32 writes and the 15 distinct blocks read back), then nothing.
    let ios = same_as_fio(
        "--name=x --size=64k --loops=2 --bs=4k --rw=randwrite --norandommap --verify=crc32c",
    );
    assert_eq!(ios.len(), 47);
    assert!(ios[..32].iter().all(|io| io.0 == 1));
    assert!(ios[32..].iter().all(|io| io.0 == 0));
    // Queueing: each pass writes `size`, then reads it back.
    same_as_fio("--name=x --size=64k --loops=2 --bs=4k --rw=randwrite --norandommap --verify=crc32c --iodepth=2");
    same_as_fio("--name=x --size=64k --loops=2 --bs=4k --rw=randwrite --verify=crc32c");
    // verify_only: the dry run queues nothing, so it has no pass limit of
    // its own either (fio 3.33: 32 dry writes, 15 reads); its log lines
    // carry each write's offset.
    for depth in ["", " --iodepth=2"] {
        let ios = same_as_fio(&format!(
            "--name=x --size=64k --loops=2 --bs=4k --rw=randwrite --norandommap --verify=crc32c --verify_only{depth}"
        ));
        assert_eq!(ios.len(), 47);
        assert_eq!(blocks(&ios[..4]), [0, 11, 13, 7]);
    }
}

#[test]
fn time_based_verify_passes_match_fio() {
    // A time-based pass ends on its bytes only to verify them, and only a
    // queueing engine counts them: 16 writes, their 16 reads, and again.
    let fio = real_fio();
    for (line, verified) in [
        ("--name=x --size=64k --bs=4k --rw=randwrite --verify=crc32c --time_based --runtime=200ms --iodepth=2", true),
        ("--name=x --size=64k --bs=4k --rw=write --verify=crc32c --time_based --runtime=200ms --iodepth=2", true),
        ("--name=x --size=64k --bs=4k --rw=randwrite --verify=crc32c --time_based --runtime=200ms", false),
        ("--name=x --size=64k --bs=4k --rw=randread --norandommap --time_based --runtime=200ms", false),
    ] {
        let ours = logged(RFIO, line);
        compare(line, &ours, &logged(fio, line), Some(64));
        let reads = ours[..64].iter().filter(|io| io.0 == 0).count();
        let want = if verified {
            32
        } else if line.contains("randread") {
            64
        } else {
            0
        };
        assert_eq!(reads, want, "{line}");
    }
}

#[test]
fn randrepeat_0_passes_continue_their_generator() {
    // Seeds differ run to run, so only the shape can be compared: with a
    // random map each pass visits every block once, and without
    // randrepeat the second pass is not the first again (fio re-seeds
    // nothing); without a map the sequence just continues.
    let fio = real_fio();
    for bin in [RFIO, fio] {
        let line = "--name=x --size=256k --loops=2 --bs=4k --rw=randread --randrepeat=0";
        let ios = blocks(&logged(bin, line));
        assert_eq!(ios.len(), 128, "{bin}");
        for pass in ios.chunks(64) {
            let mut sorted = pass.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..64).collect::<Vec<u64>>(), "{bin}");
        }
        assert_ne!(ios[..64], ios[64..], "{bin}");
        let line = "--name=x --size=256k --loops=2 --bs=4k --rw=randread --randrepeat=0 --norandommap --iodepth=2";
        let ios = blocks(&logged(bin, line));
        assert_eq!(ios.len(), 128, "{bin}");
        assert_ne!(ios[..64], ios[64..], "{bin}");
    }
}

#[test]
fn nonuniform_file_choices_start_again_each_pass() {
    // A new pass with randrepeat sets up the zipf, pareto and normal file
    // choices afresh (fio's td_fill_rand_seeds); the random map of each
    // file makes the file chosen show in the offsets.
    for f in [
        "zipf",
        "pareto",
        "normal",
        "random",
        // With a center (fio's `value:center`), set up afresh as well.
        "zipf:1.2:0.5",
        "pareto:0.5:0.1",
        "normal:5:0.3",
    ] {
        let ios = same_as_fio(&format!(
            "--name=x --size=1m --nrfiles=4 --loops=2 --bs=4k --rw=randread --file_service_type={f} --iodepth=2"
        ));
        assert_eq!(ios.len(), 512, "{f}");
    }
}

#[test]
fn a_file_service_center_out_of_range_is_refused() {
    let fio = real_fio();
    let line =
        "--name=x --size=1m --nrfiles=4 --bs=4k --rw=randread --file_service_type=zipf:1.2:2";
    for bin in [RFIO, fio] {
        let dir = TempDir::new("offsets_passes");
        let mut argv = vec!["--ioengine=null"];
        argv.extend(line.split_whitespace());
        let out = run_in(bin, &dir, &argv);
        assert!(!out.status.success(), "{bin} {line}");
        assert!(
            stderr(&out).contains("distribution center out of range (0 <= center <= 1.0)"),
            "{bin}: {}",
            stderr(&out)
        );
    }
}
