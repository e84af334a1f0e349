//! The I/O pattern generators against fio 3.33: what each I/O is
//! (direction, offset, length) and when it may be issued.
//!
//! The sequences are those the rfio binary issues, read from its per-I/O
//! latency logs (`--write_lat_log --log_avg_msec=0 --log_offset=1`: one
//! line per I/O with its direction, length and offset, in issue order at
//! depth 1), and each is compared I/O for I/O with the log real fio writes
//! for the same command line (so these tests need fio 3.33 and fail
//! without it). The logs have no file column: with several files the
//! offsets still differ with the file chosen (each file has its own
//! position and random map, seeded by its name), so the order of files is
//! compared through them. The constants below were taken from fio 3.33 for
//! the same options and also hold without fio's help.
//!
//! The generators' parts (rate, think time, buffers, zipf) are checked
//! directly, on a fake clock, below those.

use crate::common;
use rfio::api::Ddir;

use std::collections::HashMap;

use common::{real_fio, RFIO};
use rfio::api::{
    build_plan, parse_args, start_offset, BsGen, BufferFiller, FileRegion, IoGen, JobSpec,
    Keywords, RateLimiter, ThinkTime, Zipf,
};

const KW: Keywords = Keywords {
    pagesize: 4096,
    mb_memory: 1024,
    ncpus: 2,
};

/// The jobs of a command line (`--ioengine=null` added).
fn jobs(line: &str) -> Vec<JobSpec> {
    let mut argv: Vec<String> = vec!["--ioengine=null".into()];
    argv.extend(line.split_whitespace().map(String::from));
    // The sequences are fio 3.33's: the plan is that release's.
    let a = parse_args(&argv)
        .and_then(|a| a.with_release(Some("3.33")))
        .expect("valid command line");
    let fe = build_plan(&a, &[], &KW);
    assert!(fe.diags.is_empty(), "{}", fe.diags);
    fe.plan.jobs
}

fn job(line: &str) -> JobSpec {
    jobs(line).remove(0)
}

/// The generators of `spec` over files of `size / nrfiles` bytes, as fio
/// lays them out for the null engine.
fn iogen(spec: &JobSpec) -> IoGen {
    let per = spec.size.expect("size") / spec.files.len() as u64;
    let names: Vec<String> = spec
        .files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    let regions: Vec<(FileRegion, &str)> = names
        .iter()
        .map(|n| (FileRegion::new(start_offset(spec, per), per), n.as_str()))
        .collect();
    IoGen::new(spec, &spec.seeds, &regions).expect("generators")
}

/// One I/O as a per-I/O log shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Logged {
    dir: Ddir,
    len: u64,
    offset: u64,
}

/// The I/Os of every job `bin` (rfio or fio) runs for `line` with the null
/// engine, from its per-I/O latency logs, job by job.
fn logged_ios(bin: &str, line: &str) -> Vec<Vec<Logged>> {
    common::logged_ios(bin, line)
        .into_iter()
        .map(|job| {
            job.into_iter()
                .map(|io| Logged {
                    dir: match io.ddir {
                        0 => Ddir::Read,
                        1 => Ddir::Write,
                        2 => Ddir::Trim,
                        d => panic!("{bin} {line}: direction {d}"),
                    },
                    len: io.len,
                    offset: io.offset,
                })
                .collect()
        })
        .collect()
}

/// The I/Os the rfio binary issues for `line`, job by job, after checking
/// that fio 3.33 issues the same, I/O for I/O.
fn same_as_fio(line: &str) -> Vec<Vec<Logged>> {
    let ours = logged_ios(RFIO, line);
    let theirs = logged_ios(real_fio(), line);
    assert_eq!(ours.len(), theirs.len(), "{line}: number of jobs");
    for (j, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
            panic!("{line}: job {j}, I/O {i}: rfio {:?}, fio {:?}", a[i], b[i]);
        }
        assert_eq!(a.len(), b.len(), "{line}: job {j}: number of I/Os");
    }
    ours
}

/// The first job's I/Os for `line`, as fio issues them.
fn ios(line: &str) -> Vec<Logged> {
    same_as_fio(line).remove(0)
}

fn blocks(ios: &[Logged], bs: u64) -> Vec<u64> {
    ios.iter().map(|io| io.offset / bs).collect()
}

/// fio 3.33, `--size=1m --bs=4k --rw=randread`: the 256 blocks in order.
const RANDREAD_1M: [u64; 256] = [
    15, 189, 215, 120, 102, 216, 97, 90, 233, 17, 218, 166, 237, 63, 100, 143, 112, 205, 92, 158,
    1, 108, 80, 176, 202, 252, 206, 66, 64, 254, 18, 217, 245, 3, 11, 19, 47, 9, 91, 136, 230, 190,
    65, 25, 13, 241, 122, 87, 6, 173, 31, 255, 83, 248, 113, 191, 10, 232, 199, 171, 61, 174, 224,
    101, 129, 93, 16, 115, 20, 130, 36, 180, 219, 12, 7, 84, 24, 89, 109, 177, 220, 73, 192, 110,
    221, 116, 193, 82, 198, 69, 40, 44, 60, 56, 228, 167, 51, 147, 103, 8, 137, 70, 185, 53, 222,
    188, 52, 81, 21, 119, 22, 159, 234, 175, 178, 104, 163, 168, 105, 244, 242, 144, 124, 210, 42,
    134, 88, 23, 249, 49, 231, 14, 201, 207, 43, 223, 161, 133, 107, 29, 67, 186, 250, 200, 54,
    208, 106, 85, 152, 94, 253, 146, 170, 45, 251, 0, 203, 194, 2, 195, 187, 196, 164, 41, 155,
    131, 5, 32, 27, 197, 118, 123, 111, 26, 172, 225, 204, 33, 95, 209, 114, 62, 226, 28, 30, 48,
    99, 142, 117, 135, 34, 121, 35, 165, 211, 212, 125, 4, 79, 140, 229, 46, 235, 184, 96, 37, 213,
    169, 98, 55, 238, 181, 57, 145, 246, 214, 126, 243, 38, 227, 59, 179, 236, 39, 149, 151, 50,
    58, 68, 239, 127, 128, 162, 240, 71, 72, 74, 247, 153, 132, 75, 76, 138, 77, 78, 86, 139, 141,
    148, 150, 154, 156, 182, 157, 160, 183,
];

#[test]
fn randread_visits_fios_blocks_in_fios_order() {
    let got = ios("--name=x --size=64k --bs=4k --rw=randread");
    assert_eq!(
        blocks(&got, 4096),
        [0, 11, 13, 7, 6, 14, 8, 5, 15, 1, 2, 10, 3, 4, 9, 12]
    );
    let got = ios("--name=x --size=1m --bs=4k --rw=randread");
    assert_eq!(blocks(&got, 4096), RANDREAD_1M);
}

#[test]
fn random_map_visits_every_block_once_per_pass() {
    for (line, bs, nrfiles, size) in [
        ("--name=x --size=1m --bs=4k --rw=randread", 4096, 1, 1 << 20),
        (
            "--name=x --size=3m --bs=8k --rw=randwrite --randrepeat=0",
            8192,
            1,
            3 << 20,
        ),
        (
            "--name=x --size=1m --bs=4k --rw=randread --random_generator=lfsr",
            4096,
            1,
            1 << 20,
        ),
        (
            "--name=x --size=1m --bs=4k --rw=randread --random_generator=tausworthe64",
            4096,
            1,
            1 << 20,
        ),
        (
            "--name=x --size=2m --bs=4k --rw=randread --nrfiles=3",
            4096,
            3,
            2 << 20,
        ),
    ] {
        // randrepeat=0 seeds from the clock: rfio alone, no fio to match.
        let got = if line.contains("randrepeat=0") {
            logged_ios(RFIO, line).remove(0)
        } else {
            ios(line)
        };
        let per_file = size / nrfiles / bs;
        let mut seen: HashMap<u64, u64> = HashMap::new();
        for io in &got {
            assert_eq!((io.len, io.offset % bs), (bs, 0), "{line}: {io:?}");
            *seen.entry(io.offset / bs).or_default() += 1;
        }
        assert_eq!(seen.len() as u64, per_file, "{line}: blocks visited");
        assert!(
            seen.values().all(|&n| n == nrfiles),
            "{line}: each block once in each file"
        );
    }
}

#[test]
fn job_number_and_randrepeat_pick_fios_seeds() {
    // The second numjobs clone is job 2: FIO_RANDSEED * 2.
    let both = same_as_fio("--name=x --size=64k --bs=4k --rw=randread --numjobs=2");
    assert_eq!(
        blocks(&both[1], 4096),
        [4, 2, 9, 0, 7, 10, 11, 5, 6, 1, 8, 3, 12, 13, 15, 14]
    );
    // randseed only moves offsets with randrepeat=0 (fio 3.33).
    let same = ios("--name=x --size=64k --bs=4k --rw=randread --randseed=1234");
    assert_eq!(blocks(&same, 4096)[..4], [0, 11, 13, 7]);
    let moved = ios("--name=x --size=64k --bs=4k --rw=randread --randrepeat=0 --randseed=1234");
    assert_eq!(
        blocks(&moved, 4096),
        [1, 6, 2, 4, 5, 3, 7, 0, 15, 11, 14, 9, 8, 10, 12, 13]
    );
    let all = ios("--name=x --size=64k --bs=4k --rw=randread --randrepeat=0 --allrandrepeat=1");
    assert_eq!(
        blocks(&all, 4096),
        [11, 12, 6, 10, 3, 13, 8, 14, 15, 9, 4, 7, 0, 5, 1, 2]
    );
}

#[test]
fn generators_other_than_the_default_match_fio() {
    let lfsr = ios("--name=x --size=1m --bs=4k --rw=randread --random_generator=lfsr");
    assert_eq!(
        blocks(&lfsr, 4096)[..16],
        [235, 205, 163, 196, 114, 41, 154, 93, 135, 248, 108, 38, 3, 208, 120, 44]
    );
    let t64 = ios("--name=x --size=1m --bs=4k --rw=randread --random_generator=tausworthe64");
    assert_eq!(
        blocks(&t64, 4096)[..16],
        [240, 6, 20, 25, 135, 7, 112, 85, 217, 194, 158, 26, 225, 207, 242, 31]
    );
}

#[test]
fn sequential_holes_and_backwards_match_fio() {
    // rw=read:8k: 8k skipped after each 4k read; past the end fio stops.
    let got = ios("--name=x --size=64k --bs=4k --rw=read:8k");
    let kib: Vec<u64> = got.iter().map(|io| io.offset / 1024).collect();
    assert_eq!(kib, [0, 12, 24, 36, 48, 60]);
    // rw=read:-8k from offset 16k walks backwards and wraps to the end.
    let got = ios("--name=x --size=64k --bs=4k --rw=read:-8k --offset=16k");
    let kib: Vec<u64> = got.iter().map(|io| io.offset / 1024).collect();
    assert_eq!(
        kib,
        [56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 72, 68, 64, 60, 56]
    );
    // Plain sequential writes cover the file in order.
    let got = ios("--name=x --size=64k --bs=4k --rw=write");
    assert_eq!(blocks(&got, 4096), (0..16).collect::<Vec<u64>>());
    assert!(got.iter().all(|io| io.dir == Ddir::Write));
}

#[test]
fn random_with_sequential_runs_matches_fio() {
    // rw=randread:4: a new random offset every 4 I/Os, sequential between.
    let got = ios("--name=x --size=1m --bs=4k --rw=randread:4");
    assert_eq!(
        blocks(&got, 4096)[..12],
        [15, 16, 17, 18, 189, 190, 191, 192, 215, 216, 217, 218]
    );
}

#[test]
fn read_write_mix_follows_fios_rwmix_sequence() {
    let got = ios("--name=x --size=256k --bs=4k --rw=randrw --rwmixread=70");
    let dirs: String = got
        .iter()
        .map(|io| if io.dir == Ddir::Read { 'r' } else { 'w' })
        .collect();
    assert_eq!(
        dirs,
        "rrrwrrwrrrwrwrrrrrrrwwrwrrrwwwrrrwrwwrrwrrwrrwrrwwrrrrrwrrwrrrwr"
    );
    assert_eq!(
        blocks(&got, 4096),
        [
            3, 47, 53, 30, 25, 54, 24, 22, 58, 4, 55, 41, 59, 15, 26, 35, 28, 51, 23, 39, 0, 27,
            20, 44, 50, 63, 52, 16, 17, 1, 5, 56, 61, 2, 6, 7, 11, 8, 29, 34, 57, 48, 18, 9, 10,
            60, 31, 21, 12, 43, 13, 14, 32, 62, 33, 49, 19, 36, 37, 42, 38, 45, 40, 46
        ]
    );
    // Over a long run the mix approaches rwmixread.
    let got = ios("--name=x --size=64m --bs=4k --rw=randrw --rwmixread=70");
    let reads = got.iter().filter(|io| io.dir == Ddir::Read).count() as f64;
    let share = reads / got.len() as f64;
    assert!((0.68..0.72).contains(&share), "{share}");
}

#[test]
fn trimwrite_writes_each_block_right_after_trimming_it() {
    let got = ios("--name=x --size=64k --bs=4k --rw=randtrimwrite");
    let pairs: Vec<(Ddir, u64)> = got[..8]
        .iter()
        .map(|io| (io.dir, io.offset / 4096))
        .collect();
    use Ddir::{Trim as T, Write as W};
    assert_eq!(
        pairs,
        [
            (T, 0),
            (W, 0),
            (T, 11),
            (W, 11),
            (T, 13),
            (W, 13),
            (T, 7),
            (W, 7)
        ]
    );
    let seq = ios("--name=x --size=64k --bs=4k --rw=trimwrite");
    assert_eq!(seq.len(), 32);
    for pair in seq.chunks(2) {
        assert_eq!((pair[0].dir, pair[1].dir), (T, W));
        assert_eq!(pair[0].offset, pair[1].offset);
    }
}

#[test]
fn bssplit_sizes_match_fio_and_its_proportions() {
    let got = ios("--name=x --size=1m --bssplit=4k/50:8k/30:16k/20 --rw=randread");
    let first: Vec<(u64, u64)> = got[..12]
        .iter()
        .map(|io| (io.offset / 4096, io.len / 1024))
        .collect();
    assert_eq!(
        first,
        [
            (15, 16),
            (189, 4),
            (215, 4),
            (120, 8),
            (102, 4),
            (216, 16),
            (97, 4),
            (90, 16),
            (233, 8),
            (19, 16),
            (220, 8),
            (166, 8)
        ]
    );
    // Many draws: within a point of the percentages.
    let spec = job("--name=x --size=1m --bssplit=4k/50:8k/30:16k/20 --rw=randread");
    let mut bs = BsGen::new(&spec, &spec.seeds);
    let mut count = [0u32; 3];
    let n = 200_000;
    for _ in 0..n {
        match bs.next_len(Ddir::Read, true, 0, u64::MAX) {
            4096 => count[0] += 1,
            8192 => count[1] += 1,
            16384 => count[2] += 1,
            other => panic!("{other}"),
        }
    }
    for (c, want) in count.iter().zip([0.5, 0.3, 0.2]) {
        let share = f64::from(*c) / f64::from(n);
        assert!((share - want).abs() < 0.01, "{count:?}");
    }
    // Empty percentages share the rest.
    let spec = job("--name=x --size=1m --bssplit=4k/50:8k:16k --rw=randread");
    let bs = BsGen::new(&spec, &spec.seeds);
    let pcts: Vec<(u64, u32)> = bs.split(Ddir::Read).iter().map(|s| (s.bs, s.pct)).collect();
    assert_eq!(pcts, [(8192, 25), (16384, 25), (4096, 50)]);
}

#[test]
fn bsrange_sizes_are_aligned_and_bounded() {
    let got = ios("--name=x --size=1m --bsrange=4k-16k --rw=randread");
    let kib: Vec<u64> = got[..8].iter().map(|io| io.len / 1024).collect();
    // fio 3.33's first sizes for this job.
    assert_eq!(kib, [4, 12, 16, 8, 16, 4, 16, 4]);
    for io in &got {
        assert_eq!(io.len % 4096, 0);
        assert!((4096..=16384).contains(&io.len));
    }
    for io in ios("--name=x --size=1m --bsrange=3k-9k --rw=randread") {
        assert_eq!(io.len % 3072, 0, "{}", io.len);
    }
}

#[test]
fn distributions_match_fio_and_skew() {
    let zipf = ios("--name=x --size=1m --bs=4k --rw=randread --random_distribution=zipf:1.2");
    assert_eq!(
        blocks(&zipf, 4096)[..16],
        [227, 105, 54, 248, 13, 13, 227, 17, 206, 13, 13, 59, 248, 13, 180, 168]
    );
    // Skew: the hottest 10% of blocks take most of the I/O for zipf and
    // pareto.
    // (Uniform random without a map: norandommap_passes_continue_fios_sequence.)
    let base = "--name=x --size=16m --io_size=64m --bs=4k --rw=randread";
    let hot_share = |line: &str| hot_share(&ios(line));
    let z = hot_share(&format!("{base} --random_distribution=zipf:1.2"));
    let p = hot_share(&format!("{base} --random_distribution=pareto:0.2"));
    let n = hot_share(&format!("{base} --random_distribution=normal:5"));
    assert!(z > 0.6, "zipf {z}");
    assert!(p > 0.6, "pareto {p}");
    assert!(n > 0.3, "normal {n}");
    // fio's zipf with theta 0 would be uniform; a steeper theta is hotter.
    let z2 = hot_share(&format!("{base} --random_distribution=zipf:2"));
    assert!(z2 > z, "{z2} <= {z}");
    // Zoned: 60% of I/O in the first 10% of the file.
    let got = ios(
        "--name=x --size=64m --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70",
    );
    let first = got.iter().filter(|io| io.offset < (64 << 20) / 10).count() as f64;
    let share = first / got.len() as f64;
    assert!((0.57..0.63).contains(&share), "{share}");
}

/// The share of `ios` on the hottest 10% of a 16 MiB file's 4 KiB blocks.
fn hot_share(ios: &[Logged]) -> f64 {
    let mut counts = vec![0u32; 4096];
    for io in ios {
        counts[(io.offset / 4096) as usize] += 1;
    }
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let hot: u32 = counts[..409].iter().sum();
    f64::from(hot) / ios.len() as f64
}

#[test]
fn zipf_generator_matches_fios_math() {
    // fio's zipf_next for 256 ranges, theta 1.2, file x.0.0 of job 1.
    let seed = rfio::api::jhash(b"x.0.0", 0);
    let mut z = Zipf::new(256, 1.2, -1.0, seed);
    let got: Vec<u64> = (0..8).map(|_| z.next_value()).collect();
    assert_eq!(got, [227, 105, 54, 248, 13, 13, 227, 17]);
}

/// File choice: the logs have no file column, but the offsets tell the
/// files apart (each file has its own position and random map).
#[test]
fn file_service_types_match_fio() {
    let kib = |line: &str, n: usize| -> Vec<u64> {
        ios(line)
            .iter()
            .take(n)
            .map(|io| io.offset / 1024)
            .collect()
    };
    // Round robin (the default): the two files' sequences interleave.
    assert_eq!(
        kib("--name=x --size=64k --bs=4k --rw=read --nrfiles=2", 6),
        [0, 0, 4, 4, 8, 8]
    );
    // sequential: all of one file, then the next.
    let seq = kib(
        "--name=x --size=64k --bs=4k --rw=read --nrfiles=2 --file_service_type=sequential",
        10,
    );
    assert_eq!(seq, [0, 4, 8, 12, 16, 20, 24, 28, 0, 4]);
    // roundrobin:2: two I/Os from each file in turn.
    let rr2 = kib(
        "--name=x --size=64k --bs=4k --rw=read --nrfiles=2 --file_service_type=roundrobin:2",
        8,
    );
    assert_eq!(rr2, [0, 4, 0, 4, 8, 12, 8, 12]);
    // Random choices: the same files in the same order as fio.
    for line in [
        "--name=x --size=1m --bs=4k --rw=randread --nrfiles=4 --file_service_type=zipf",
        "--name=x --size=1m --bs=4k --rw=randread --nrfiles=3 --file_service_type=random",
        "--name=x --size=1m --bs=4k --rw=randread --nrfiles=4 --file_service_type=normal",
        "--name=x --size=1m --bs=4k --rw=randread --nrfiles=4 --file_service_type=pareto:0.5",
        "--name=x --size=1m --bs=4k --rw=read --nrfiles=4 --file_service_type=random:3",
    ] {
        assert!(!ios(line).is_empty(), "{line}");
    }
}

#[test]
fn loops_repeat_the_pattern_with_randrepeat() {
    let got = ios("--name=x --size=64k --bs=4k --rw=randread --loops=3");
    assert_eq!(got.len(), 48);
    assert_eq!(blocks(&got[..16], 4096), blocks(&got[16..32], 4096));
    assert_eq!(blocks(&got[..16], 4096), blocks(&got[32..], 4096));
}

#[test]
fn offsets_start_where_fio_starts_them() {
    let specs = jobs(
        "--name=x --size=1m --bs=4k --rw=read --offset=4k --numjobs=3 --offset_increment=100k",
    );
    let starts: Vec<u64> = specs.iter().map(|s| start_offset(s, 1 << 20)).collect();
    // Clones are numbered N-1 … 1 after the original (fio's subjob).
    assert_eq!(starts, [4096, 4096 + 2 * 102_400, 4096 + 102_400]);
    let pct = job("--name=x --size=1m --bs=4k --rw=read --offset=10%");
    assert_eq!(start_offset(&pct, 1 << 20), 106_496);
}

#[test]
fn rate_limits_space_ios_on_a_fake_clock() {
    // rate=1m with 4k blocks: one I/O per 3906 µs (4096 * 1e6 / 1048576).
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate=1m");
    let mut r = RateLimiter::new(&spec, &spec.seeds).expect("rate set");
    let mut now = 0u64;
    let mut starts = Vec::new();
    for _ in 0..5 {
        now += r.delay_before(Ddir::Read, 4096, now);
        starts.push(now / 1000);
    }
    assert_eq!(starts, [0, 3906, 7812, 11718, 15625]);
    // Late I/Os catch up without waiting.
    assert_eq!(r.delay_before(Ddir::Read, 4096, 1_000_000_000), 0);

    // rate_iops=100 is 100 * 4k bytes/s: one I/O per 10 ms.
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate_iops=100");
    let mut r = RateLimiter::new(&spec, &spec.seeds).unwrap();
    assert_eq!(r.delay_before(Ddir::Read, 4096, 0), 0);
    assert_eq!(r.delay_before(Ddir::Read, 4096, 2_000_000), 8_000_000);

    // Poisson: exponential gaps with mean 1/iops.
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate_iops=1000 --rate_process=poisson");
    let mut r = RateLimiter::new(&spec, &spec.seeds).unwrap();
    let n = 20_000;
    for _ in 0..n {
        r.issued(Ddir::Read, 4096);
    }
    let mean_us = r.next_io_us(Ddir::Read) as f64 / f64::from(n);
    assert!((950.0..1050.0).contains(&mean_us), "{mean_us}");

    // No rate options: no limiter at all.
    let plain = job("--name=x --size=1m --rw=read");
    assert!(RateLimiter::new(&plain, &plain.seeds).is_none());
}

#[test]
fn rate_hands_the_io_to_the_direction_that_is_behind() {
    let spec = job("--name=x --size=1m --bs=4k --rw=randrw --rate=1m,1m");
    let mut g = iogen(&spec);
    let mut r = RateLimiter::new(&spec, &spec.seeds).unwrap();
    // Both directions start due; after one read the read is ahead, so a
    // proposed read goes to the write side.
    let first = g.next_io(Some(&mut r), 0).unwrap();
    assert_eq!(first.wait_ns, 0);
    let (dir, wait) = r.next_dir(first.dir, 0, &g.dirs);
    assert_ne!(dir, first.dir);
    assert_eq!(wait, 0);
    // Once both are ahead, it waits for the earlier one.
    r.issued(dir, 4096);
    let (_, wait) = r.next_dir(Ddir::Read, 1000, &g.dirs);
    assert_eq!(wait, (3906 - 1) * 1000);
}

#[test]
fn min_rate_fails_after_the_settle_time() {
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate_min=1m --rate_cycle=500");
    let mut r = RateLimiter::new(&spec, &spec.seeds).unwrap();
    let ms = 1_000_000u64;
    // Nothing is checked in the first 2 s.
    assert!(r.check_min(1000 * ms, &[4096, 0, 0], &[1, 0, 0]).is_ok());
    // First check records, the next one a cycle later compares.
    assert!(r
        .check_min(2000 * ms, &[2 << 20, 0, 0], &[512, 0, 0])
        .is_ok());
    assert!(r
        .check_min(2200 * ms, &[2 << 20, 0, 0], &[512, 0, 0])
        .is_ok());
    let err = r
        .check_min(2600 * ms, &[(2 << 20) + 4096, 0, 0], &[513, 0, 0])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "x: rate_min=1048576B/s not met, got 6826B/s"
    );
}

#[test]
fn think_time_pauses_every_n_blocks() {
    assert!(ThinkTime::new(&job("--name=x --size=1m --thinktime_spin=10")).is_none());
    let spec = job("--name=x --size=1m --thinktime=100 --thinktime_spin=30 --thinktime_blocks=4");
    let mut t = ThinkTime::new(&spec).unwrap();
    let pauses: Vec<u64> = (1..=12).filter(|&n| t.check(n, n, 0).is_some()).collect();
    assert_eq!(pauses, [4, 8, 12]);
    let p = ThinkTime::new(&spec).unwrap().check(4, 4, 0).unwrap();
    assert_eq!(p.spin(None), 30);
    assert_eq!(p.sleep(30, None), 70);
    // fio 3.33 (the default release) pauses in full past the runtime.
    assert_eq!(p.sleep(30, Some(50)), 70);
    // Issue-side counting.
    let spec = job(
        "--name=x --size=1m --thinktime=100 --thinktime_blocks=2 --thinktime_blocks_type=issue",
    );
    let mut t = ThinkTime::new(&spec).unwrap();
    assert!(t.check(1, 0, 0).is_none());
    assert!(t.check(2, 0, 0).is_some());
    // thinktime_iotime alone: only the time triggers; fio 3.33 first
    // after thinktime_iotime + thinktime (1 s + 100 µs).
    let spec = job("--name=x --size=1m --thinktime=100 --thinktime_iotime=1");
    let mut t = ThinkTime::new(&spec).unwrap();
    assert!(t.check(50, 50, 500_000_000).is_none());
    assert!(t.check(51, 51, 1_000_000_000).is_none());
    assert!(t.check(52, 52, 1_000_100_000).is_some());
}

/// fio 3.34 on: the runtime left caps a pause, and `thinktime_iotime`
/// counts from the end of the last pause.
#[test]
fn think_time_ends_with_the_runtime_from_3_34() {
    let spec = job(
        "--compat=fio-3.34 --name=x --size=1m --thinktime=100 --thinktime_spin=30 --thinktime_blocks=4",
    );
    let p = ThinkTime::new(&spec).unwrap().check(4, 4, 0).unwrap();
    assert_eq!(p.spin(Some(20)), 20);
    assert_eq!(p.sleep(30, None), 70);
    assert_eq!(p.sleep(30, Some(50)), 50);
    let spec = job("--compat=fio-3.34 --name=x --size=1m --thinktime=100 --thinktime_iotime=1");
    let mut t = ThinkTime::new(&spec).unwrap();
    assert!(t.check(50, 50, 500_000_000).is_none());
    assert!(t.check(51, 51, 1_000_000_000).is_some());
    t.done(1_000_000_000);
    assert!(t.check(52, 52, 1_500_000_000).is_none());
}

/// Distinct 512-byte blocks and zero bytes of `buf`.
fn shape(buf: &[u8]) -> (usize, usize) {
    let mut blocks: Vec<&[u8]> = buf.chunks(512).collect();
    blocks.sort_unstable();
    blocks.dedup();
    (blocks.len(), buf.iter().filter(|&&b| b == 0).count())
}

#[test]
fn buffer_contents_follow_the_options() {
    let fill = |line: &str, len: usize, n: usize| -> Vec<Vec<u8>> {
        let spec = job(line);
        let mut f = BufferFiller::new(&spec, &spec.seeds).unwrap();
        (0..n)
            .map(|_| {
                let mut b = vec![0xaau8; len];
                f.fill(&mut b);
                b
            })
            .collect()
    };
    // Default and refill_buffers: random, nothing repeats, few zeros.
    let bufs = fill("--name=x --size=1m --rw=write --refill_buffers", 1 << 20, 2);
    let (distinct, zeros) = shape(&bufs[0]);
    assert_eq!(distinct, 2048);
    assert!(zeros < 8000, "{zeros}");
    assert_ne!(bufs[0], bufs[1]);
    // zero_buffers.
    let bufs = fill("--name=x --size=1m --rw=write --zero_buffers", 4096, 1);
    assert!(bufs[0].iter().all(|&b| b == 0));
    // buffer_pattern.
    let bufs = fill(
        "--name=x --size=1m --rw=write --buffer_pattern=0xdeadbeef",
        8,
        1,
    );
    assert_eq!(bufs[0], [0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef]);
    // buffer_compress_percentage=75: three quarters zeros.
    let bufs = fill(
        "--name=x --size=1m --rw=write --buffer_compress_percentage=75",
        1 << 20,
        1,
    );
    let zeros = shape(&bufs[0]).1 as f64 / f64::from(1 << 20);
    assert!((0.74..0.76).contains(&zeros), "{zeros}");
    // dedupe_percentage=50: about half of the buffers repeat the previous.
    let bufs = fill(
        "--name=x --size=1m --rw=write --bs=4k --dedupe_percentage=50",
        4096,
        2000,
    );
    let mut sorted = bufs.clone();
    sorted.sort_unstable();
    sorted.dedup();
    let dup = 1.0 - sorted.len() as f64 / bufs.len() as f64;
    assert!((0.45..0.55).contains(&dup), "{dup}");
    // compress 100 means zeros; refill is implied by compression.
    let spec = job("--name=x --size=1m --rw=write --buffer_compress_percentage=50");
    let f = BufferFiller::new(&spec, &spec.seeds).unwrap();
    assert!(f.refills());
}

#[test]
fn scramble_changes_blocks_unless_zero_buffers() {
    let filler = |line: &str| {
        let spec = job(line);
        BufferFiller::new(&spec, &spec.seeds).unwrap()
    };
    let mut f = filler("--name=x --size=1m --rw=write");
    let mut a = vec![0u8; 4096];
    f.fill(&mut a);
    let mut b = a.clone();
    f.prepare_write(&mut b, 8192, (1, 2), false);
    assert_ne!(a, b);
    let mut z = filler("--name=x --size=1m --rw=write --zero_buffers");
    let mut buf = vec![0u8; 4096];
    z.prepare_write(&mut buf, 8192, (1, 2), false);
    assert!(buf.iter().all(|&x| x == 0));
}

/// Without a random map, a second pass over the file (`loops`, or an
/// `io_size` past `size`) continues fio's random sequence on an engine that
/// completes I/Os in its queue call: fio counts only queued I/Os towards a
/// pass's end, so the first pass runs through every loop (fio 3.33: I/O 16
/// of this job is at 28 KiB; rfio's was at 0 when it ended the pass and
/// re-seeded). The same for `random_distribution=zoned`.
#[test]
fn norandommap_passes_continue_fios_sequence() {
    ios("--name=x --size=64k --loops=4 --bs=4k --rw=randread --norandommap");
    ios("--name=x --size=64k --io_size=256k --bs=4k --rw=randread --norandommap");
    // Uniform draws without a map spread: the hottest 10% of blocks take
    // about a fifth of 4 draws a block (fio 3.33: 19.6%; rfio's repeated
    // passes: 30%).
    let uniform = hot_share(&ios(
        "--name=x --size=16m --io_size=64m --bs=4k --rw=randread --norandommap",
    ));
    assert!(uniform < 0.25, "uniform {uniform}");
    // zoned draws from the same generator: the second pass differs too.
    ios("--name=x --size=16m --io_size=64m --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70");
}

/// More option combinations: the rfio binary issues fio 3.33's I/Os, one
/// for one. Every case runs (a failure names its line and first
/// differing I/O).
#[test]
fn more_patterns_issue_fios_ios() {
    let cases = [
        "--name=x --size=64k --bs=4k --rw=read:-8k --offset=16k",
        "--name=x --size=1m --bs=4k --rw=randrw --rwmixread=70",
        "--name=x --size=1m --bs=4k --rw=rw",
        "--name=x --size=1m --bsrange=4k-16k --rw=read",
        "--name=x --size=1m --bs=4k --rw=randread --norandommap",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=pareto:0.3:0.2",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=normal:10",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=zoned_abs:60/64k:40/960k",
        "--name=x --size=1m --bs=4k --rw=randwrite --percentage_random=50",
        "--name=x --size=1m --bs=4k --rw=randread:4 --rw_sequencer=identical",
        "--name=x --size=1m --bs=4k --rw=trimwrite",
        "--name=x --size=1m --bsrange=4k-16k --rw=randrw --bs_is_seq_rand=1 --percentage_random=50",
        "--name=x --size=1m --bs=8k --ba=4k --rw=randread",
        "--name=x --size=1m --bssplit=4k/10:8k/20,16k/50:32k/50 --rw=randrw",
        "--name=x --size=256k --bsrange=4k-16k --rw=rw --loops=3 --rwmixread=80",
        "--name=x --size=1m --bs=4k --rw=rw --io_size=2m",
        "--name=x --size=1m --bsrange=1k-9k --bs_unaligned --rw=randread",
        "--name=x --size=1m --bs=4k --rw=randread --number_ios=100",
        "--name=x --size=256k --bs=4k --rw=randread --numjobs=3 --offset_increment=64k",
    ];
    for line in cases {
        assert!(!ios(line).is_empty(), "{line}");
    }
}

/// `buffer_pattern='file'` writes the file's bytes exactly: fio turns
/// buffer scrambling off for a pattern (`str_buffer_pattern_cb`), so no
/// offset or time is stamped over bytes 0..16 and 48..64 of each 512-byte
/// block. fio 3.33 takes the first 512 bytes of the file and repeats them;
/// from 3.34 the whole 16 KiB file is the pattern (fio's t/jobs/t0027).
#[test]
fn file_buffer_pattern_is_written_exactly() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let pattern: Vec<u8> = (0..16384)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect();
    for (compat, expect) in [
        ("--compat=fio-3.33", pattern[..512].repeat(32)),
        ("--compat=fio-3.42", pattern.clone()),
    ] {
        let dir = common::TempDir::new("file-pattern");
        std::fs::write(dir.0.join("p.pattern"), &pattern).unwrap();
        let out = common::rfio(
            &dir,
            &[
                compat,
                "--name=w",
                "--filename=f",
                "--rw=write",
                "--bs=16k",
                "--size=16k",
                "--buffer_pattern='p.pattern'",
            ],
        );
        assert!(out.status.success(), "{}", common::stderr(&out));
        let written = std::fs::read(dir.0.join("f")).unwrap();
        assert_eq!(written.len(), expect.len(), "{compat}");
        let first_bad = written.iter().zip(&expect).position(|(a, b)| a != b);
        assert_eq!(first_bad, None, "{compat}: first differing byte");
    }
}
