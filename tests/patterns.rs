//! The I/O pattern generators against fio 3.33: what each I/O is (file,
//! direction, offset, length) and when it may be issued.
//!
//! The expected sequences were taken from `fio --ioengine=null
//! --write_iolog=…` (fio 3.33) for the same options. `live_fio_agrees`
//! repeats the comparison against /usr/bin/fio when it is installed.

use std::path::Path;
use std::process::Command;

use rfio::cli::args;
use rfio::jobfile::subst::Keywords;
use rfio::plan::build;
use rfio::plan::spec::{Dir, JobSpec};
use rfio::workload::bs::BsGen;
use rfio::workload::buffers::BufferFiller;
use rfio::workload::offsets::{start_offset, FileRegion, Io, IoGen, Zipf};
use rfio::workload::rate::RateLimiter;
use rfio::workload::rng::Seeds;
use rfio::workload::think::ThinkTime;

const KW: Keywords = Keywords {
    pagesize: 4096,
    mb_memory: 1024,
    ncpus: 2,
};

/// The jobs of a command line (`--ioengine=null` added).
fn jobs(line: &str) -> Vec<JobSpec> {
    let mut argv: Vec<String> = vec!["--ioengine=null".into()];
    argv.extend(line.split_whitespace().map(String::from));
    let a = args::parse(&argv).expect("valid command line");
    let fe = build(&a, &[], &KW);
    assert!(fe.diags.is_empty(), "{}", fe.diags);
    fe.plan.jobs
}

fn job(line: &str) -> JobSpec {
    jobs(line).remove(0)
}

fn names(spec: &JobSpec) -> Vec<String> {
    spec.files
        .iter()
        .map(|f| f.path.display().to_string())
        .collect()
}

/// The generators of `spec` over files of `size / nrfiles` bytes, as fio
/// lays them out for the null engine.
fn iogen(spec: &JobSpec) -> IoGen {
    let per = spec.size.expect("size") / spec.files.len() as u64;
    let names = names(spec);
    let regions: Vec<(FileRegion, &str)> = names
        .iter()
        .map(|n| (FileRegion::new(start_offset(spec, per), per), n.as_str()))
        .collect();
    IoGen::new(spec, &Seeds::for_job(spec), &regions).expect("generators")
}

/// The I/Os fio issues for a size-bound job with a synchronous engine:
/// a pass ends when the generators run out (every file done) or when the
/// bytes issued over all passes reach `size × loops` (`io_size` when set);
/// passes repeat for `loops`, then while `io_size` is not reached.
fn fio_sequence(spec: &JobSpec) -> Vec<Io> {
    let mut g = iogen(spec);
    let p = spec.pattern;
    let limit = spec.io_size.or(spec.size).expect("size");
    let loops = u64::from(spec.loops);
    let max_ios = if spec.number_ios > 0 {
        spec.number_ios.saturating_mul(loops)
    } else {
        u64::MAX
    };
    let max_bs = spec.bs.iter().map(|b| b.1).max().unwrap();
    let counts = |d: Dir| match (p.read, p.write) {
        (true, true) => d != Dir::Trim,
        (_, true) => d == Dir::Write,
        (true, _) => d == Dir::Read,
        _ => true,
    };
    let (mut out, mut total, mut loops_left) = (Vec::new(), 0u64, spec.loops);
    let mut first = true;
    loop {
        if loops_left > 0 {
            loops_left -= 1;
        } else if spec.io_size.is_none() || total >= limit || limit - total < max_bs {
            break;
        }
        if !first {
            g.reset();
        }
        first = false;
        while total < limit * loops && (out.len() as u64) < max_ios {
            let Some(io) = g.next_io(None, 0) else { break };
            if counts(io.dir) {
                total += io.len;
            }
            out.push(io);
        }
        if out.len() as u64 >= max_ios {
            break;
        }
    }
    out
}

fn blocks(ios: &[Io], bs: u64) -> Vec<u64> {
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
    let ios = fio_sequence(&job("--name=x --size=64k --bs=4k --rw=randread"));
    assert_eq!(
        blocks(&ios, 4096),
        [0, 11, 13, 7, 6, 14, 8, 5, 15, 1, 2, 10, 3, 4, 9, 12]
    );
    let ios = fio_sequence(&job("--name=x --size=1m --bs=4k --rw=randread"));
    assert_eq!(blocks(&ios, 4096), RANDREAD_1M);
}

#[test]
fn random_map_visits_every_block_once_per_pass() {
    for line in [
        "--name=x --size=1m --bs=4k --rw=randread",
        "--name=x --size=3m --bs=8k --rw=randwrite --randrepeat=0",
        "--name=x --size=1m --bs=4k --rw=randread --random_generator=lfsr",
        "--name=x --size=1m --bs=4k --rw=randread --random_generator=tausworthe64",
        "--name=x --size=2m --bs=4k --rw=randread --nrfiles=3",
    ] {
        let spec = job(line);
        let bs = spec.bs[0].0.max(spec.bs[1].0);
        let ios = fio_sequence(&spec);
        let mut seen: Vec<(usize, u64)> = ios.iter().map(|io| (io.file, io.offset)).collect();
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n, "{line}: a block came twice");
        let per_file = spec.size.unwrap() / spec.files.len() as u64 / bs;
        assert_eq!(n as u64, per_file * spec.files.len() as u64, "{line}");
    }
}

#[test]
fn job_number_and_randrepeat_pick_fios_seeds() {
    // The second numjobs clone is job 2: FIO_RANDSEED * 2.
    let specs = jobs("--name=x --size=64k --bs=4k --rw=randread --numjobs=2");
    assert_eq!(
        blocks(&fio_sequence(&specs[1]), 4096),
        [4, 2, 9, 0, 7, 10, 11, 5, 6, 1, 8, 3, 12, 13, 15, 14]
    );
    // randseed only moves offsets with randrepeat=0 (fio 3.33).
    let same = job("--name=x --size=64k --bs=4k --rw=randread --randseed=1234");
    assert_eq!(blocks(&fio_sequence(&same), 4096)[..4], [0, 11, 13, 7]);
    let moved = job("--name=x --size=64k --bs=4k --rw=randread --randrepeat=0 --randseed=1234");
    assert_eq!(
        blocks(&fio_sequence(&moved), 4096),
        [1, 6, 2, 4, 5, 3, 7, 0, 15, 11, 14, 9, 8, 10, 12, 13]
    );
    let all = job("--name=x --size=64k --bs=4k --rw=randread --randrepeat=0 --allrandrepeat=1");
    assert_eq!(
        blocks(&fio_sequence(&all), 4096),
        [11, 12, 6, 10, 3, 13, 8, 14, 15, 9, 4, 7, 0, 5, 1, 2]
    );
}

#[test]
fn generators_other_than_the_default_match_fio() {
    let lfsr = job("--name=x --size=1m --bs=4k --rw=randread --random_generator=lfsr");
    assert_eq!(
        blocks(&fio_sequence(&lfsr), 4096)[..16],
        [235, 205, 163, 196, 114, 41, 154, 93, 135, 248, 108, 38, 3, 208, 120, 44]
    );
    let t64 = job("--name=x --size=1m --bs=4k --rw=randread --random_generator=tausworthe64");
    assert_eq!(
        blocks(&fio_sequence(&t64), 4096)[..16],
        [240, 6, 20, 25, 135, 7, 112, 85, 217, 194, 158, 26, 225, 207, 242, 31]
    );
}

#[test]
fn sequential_holes_and_backwards_match_fio() {
    // rw=read:8k: 8k skipped after each 4k read; past the end fio stops.
    let ios = fio_sequence(&job("--name=x --size=64k --bs=4k --rw=read:8k"));
    let kib: Vec<u64> = ios.iter().map(|io| io.offset / 1024).collect();
    assert_eq!(kib, [0, 12, 24, 36, 48, 60]);
    // rw=read:-8k from offset 16k walks backwards and wraps to the end.
    let ios = fio_sequence(&job(
        "--name=x --size=64k --bs=4k --rw=read:-8k --offset=16k",
    ));
    let kib: Vec<u64> = ios.iter().map(|io| io.offset / 1024).collect();
    assert_eq!(
        kib,
        [56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 72, 68, 64, 60, 56]
    );
    // Plain sequential writes cover the file in order.
    let ios = fio_sequence(&job("--name=x --size=64k --bs=4k --rw=write"));
    assert_eq!(blocks(&ios, 4096), (0..16).collect::<Vec<u64>>());
}

#[test]
fn random_with_sequential_runs_matches_fio() {
    // rw=randread:4: a new random offset every 4 I/Os, sequential between.
    let ios = fio_sequence(&job("--name=x --size=1m --bs=4k --rw=randread:4"));
    assert_eq!(
        blocks(&ios, 4096)[..12],
        [15, 16, 17, 18, 189, 190, 191, 192, 215, 216, 217, 218]
    );
}

#[test]
fn read_write_mix_follows_fios_rwmix_sequence() {
    let ios = fio_sequence(&job(
        "--name=x --size=256k --bs=4k --rw=randrw --rwmixread=70",
    ));
    let dirs: String = ios
        .iter()
        .map(|io| if io.dir == Dir::Read { 'r' } else { 'w' })
        .collect();
    assert_eq!(
        dirs,
        "rrrwrrwrrrwrwrrrrrrrwwrwrrrwwwrrrwrwwrrwrrwrrwrrwwrrrrrwrrwrrrwr"
    );
    assert_eq!(
        blocks(&ios, 4096),
        [
            3, 47, 53, 30, 25, 54, 24, 22, 58, 4, 55, 41, 59, 15, 26, 35, 28, 51, 23, 39, 0, 27,
            20, 44, 50, 63, 52, 16, 17, 1, 5, 56, 61, 2, 6, 7, 11, 8, 29, 34, 57, 48, 18, 9, 10,
            60, 31, 21, 12, 43, 13, 14, 32, 62, 33, 49, 19, 36, 37, 42, 38, 45, 40, 46
        ]
    );
    // Over a long run the mix approaches rwmixread.
    let ios = fio_sequence(&job(
        "--name=x --size=64m --bs=4k --rw=randrw --rwmixread=70",
    ));
    let reads = ios.iter().filter(|io| io.dir == Dir::Read).count() as f64;
    let share = reads / ios.len() as f64;
    assert!((0.68..0.72).contains(&share), "{share}");
}

#[test]
fn trimwrite_writes_each_block_right_after_trimming_it() {
    let ios = fio_sequence(&job("--name=x --size=64k --bs=4k --rw=randtrimwrite"));
    let got: Vec<(Dir, u64)> = ios[..8]
        .iter()
        .map(|io| (io.dir, io.offset / 4096))
        .collect();
    use Dir::{Trim as T, Write as W};
    assert_eq!(
        got,
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
    let seq = fio_sequence(&job("--name=x --size=64k --bs=4k --rw=trimwrite"));
    assert_eq!(seq.len(), 32);
    for pair in seq.chunks(2) {
        assert_eq!((pair[0].dir, pair[1].dir), (T, W));
        assert_eq!(pair[0].offset, pair[1].offset);
    }
}

#[test]
fn bssplit_sizes_match_fio_and_its_proportions() {
    let ios = fio_sequence(&job(
        "--name=x --size=1m --bssplit=4k/50:8k/30:16k/20 --rw=randread",
    ));
    let got: Vec<(u64, u64)> = ios[..12]
        .iter()
        .map(|io| (io.offset / 4096, io.len / 1024))
        .collect();
    assert_eq!(
        got,
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
    let mut bs = BsGen::new(&spec, &Seeds::for_job(&spec));
    let mut count = [0u32; 3];
    let n = 200_000;
    for _ in 0..n {
        match bs.next_len(Dir::Read, true, 0, u64::MAX) {
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
    let bs = BsGen::new(&spec, &Seeds::for_job(&spec));
    let pcts: Vec<(u64, u32)> = bs.split(Dir::Read).iter().map(|s| (s.bs, s.pct)).collect();
    assert_eq!(pcts, [(8192, 25), (16384, 25), (4096, 50)]);
}

#[test]
fn bsrange_sizes_are_aligned_and_bounded() {
    let spec = job("--name=x --size=1m --bsrange=4k-16k --rw=randread");
    let ios = fio_sequence(&spec);
    let kib: Vec<u64> = ios[..8].iter().map(|io| io.len / 1024).collect();
    // fio 3.33's first sizes for this job.
    assert_eq!(kib, [4, 12, 16, 8, 16, 4, 16, 4]);
    for io in &ios {
        assert_eq!(io.len % 4096, 0);
        assert!((4096..=16384).contains(&io.len));
    }
    let odd = job("--name=x --size=1m --bsrange=3k-9k --rw=randread");
    for io in fio_sequence(&odd) {
        assert_eq!(io.len % 3072, 0, "{}", io.len);
    }
}

#[test]
fn distributions_match_fio_and_skew() {
    let zipf = job("--name=x --size=1m --bs=4k --rw=randread --random_distribution=zipf:1.2");
    assert_eq!(
        blocks(&fio_sequence(&zipf), 4096)[..16],
        [227, 105, 54, 248, 13, 13, 227, 17, 206, 13, 13, 59, 248, 13, 180, 168]
    );
    // Skew: the hottest 10% of blocks take most of the I/O for zipf and
    // pareto; about 10% for uniform random without a map.
    let hot_share = |line: &str| {
        let spec = job(line);
        let ios = fio_sequence(&spec);
        let mut counts = vec![0u32; 4096];
        for io in &ios {
            counts[(io.offset / 4096) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let hot: u32 = counts[..409].iter().sum();
        f64::from(hot) / ios.len() as f64
    };
    let base = "--name=x --size=16m --io_size=256m --bs=4k --rw=randread";
    let uniform = hot_share(&format!("{base} --norandommap"));
    let z = hot_share(&format!("{base} --random_distribution=zipf:1.2"));
    let p = hot_share(&format!("{base} --random_distribution=pareto:0.2"));
    let n = hot_share(&format!("{base} --random_distribution=normal:5"));
    assert!(uniform < 0.15, "uniform {uniform}");
    assert!(z > 0.6, "zipf {z}");
    assert!(p > 0.6, "pareto {p}");
    assert!(n > 0.3, "normal {n}");
    // fio's zipf with theta 0 would be uniform; a steeper theta is hotter.
    let z2 = hot_share(&format!("{base} --random_distribution=zipf:2"));
    assert!(z2 > z, "{z2} <= {z}");
    // Zoned: 60% of I/O in the first 10% of the file.
    let zoned = job("--name=x --size=16m --io_size=64m --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70");
    let ios = fio_sequence(&zoned);
    let first = ios.iter().filter(|io| io.offset < (16 << 20) / 10).count() as f64;
    let share = first / ios.len() as f64;
    assert!((0.57..0.63).contains(&share), "{share}");
}

#[test]
fn zipf_generator_matches_fios_math() {
    // fio's zipf_next for 256 ranges, theta 1.2, file x.0.0 of job 1.
    let seed = rfio::workload::rng::jhash(b"x.0.0", 0);
    let mut z = Zipf::new(256, 1.2, -1.0, seed);
    let got: Vec<u64> = (0..8).map(|_| z.next_value()).collect();
    assert_eq!(got, [227, 105, 54, 248, 13, 13, 227, 17]);
}

#[test]
fn file_service_types_match_fio() {
    let files = |line: &str, n: usize| -> String {
        fio_sequence(&job(line))
            .iter()
            .take(n)
            .map(|io| char::from(b'0' + io.file as u8))
            .collect()
    };
    assert_eq!(
        files(
            "--name=x --size=1m --bs=4k --rw=randread --nrfiles=4 --file_service_type=zipf",
            24
        ),
        "333333130333303333333333"
    );
    assert_eq!(
        files("--name=x --size=64k --bs=4k --rw=read --nrfiles=2", 6),
        "010101"
    );
    let seq = files(
        "--name=x --size=64k --bs=4k --rw=read --nrfiles=2 --file_service_type=sequential",
        16,
    );
    assert_eq!(seq, "0000000011111111");
    let rr2 = files(
        "--name=x --size=64k --bs=4k --rw=read --nrfiles=2 --file_service_type=roundrobin:2",
        8,
    );
    assert_eq!(rr2, "00110011");
}

#[test]
fn loops_repeat_the_pattern_with_randrepeat() {
    let spec = job("--name=x --size=64k --bs=4k --rw=randread --loops=3");
    let ios = fio_sequence(&spec);
    assert_eq!(ios.len(), 48);
    assert_eq!(blocks(&ios[..16], 4096), blocks(&ios[16..32], 4096));
    assert_eq!(blocks(&ios[..16], 4096), blocks(&ios[32..], 4096));
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
    let mut r = RateLimiter::new(&spec, &Seeds::for_job(&spec)).expect("rate set");
    let mut now = 0u64;
    let mut starts = Vec::new();
    for _ in 0..5 {
        now += r.delay_before(Dir::Read, 4096, now);
        starts.push(now / 1000);
    }
    assert_eq!(starts, [0, 3906, 7812, 11718, 15625]);
    // Late I/Os catch up without waiting.
    assert_eq!(r.delay_before(Dir::Read, 4096, 1_000_000_000), 0);

    // rate_iops=100 is 100 * 4k bytes/s: one I/O per 10 ms.
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate_iops=100");
    let mut r = RateLimiter::new(&spec, &Seeds::for_job(&spec)).unwrap();
    assert_eq!(r.delay_before(Dir::Read, 4096, 0), 0);
    assert_eq!(r.delay_before(Dir::Read, 4096, 2_000_000), 8_000_000);

    // Poisson: exponential gaps with mean 1/iops.
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate_iops=1000 --rate_process=poisson");
    let mut r = RateLimiter::new(&spec, &Seeds::for_job(&spec)).unwrap();
    let n = 20_000;
    for _ in 0..n {
        r.issued(Dir::Read, 4096);
    }
    let mean_us = r.next_io_us(Dir::Read) as f64 / f64::from(n);
    assert!((950.0..1050.0).contains(&mean_us), "{mean_us}");

    // No rate options: no limiter at all.
    let plain = job("--name=x --size=1m --rw=read");
    assert!(RateLimiter::new(&plain, &Seeds::for_job(&plain)).is_none());
}

#[test]
fn rate_hands_the_io_to_the_direction_that_is_behind() {
    let spec = job("--name=x --size=1m --bs=4k --rw=randrw --rate=1m,1m");
    let mut g = iogen(&spec);
    let mut r = RateLimiter::new(&spec, &Seeds::for_job(&spec)).unwrap();
    // Both directions start due; after one read the read is ahead, so a
    // proposed read goes to the write side.
    let first = g.next_io(Some(&mut r), 0).unwrap();
    assert_eq!(first.wait_ns, 0);
    let (dir, wait) = r.next_dir(first.dir, 0, &g.dirs);
    assert_ne!(dir, first.dir);
    assert_eq!(wait, 0);
    // Once both are ahead, it waits for the earlier one.
    r.issued(dir, 4096);
    let (_, wait) = r.next_dir(Dir::Read, 1000, &g.dirs);
    assert_eq!(wait, (3906 - 1) * 1000);
}

#[test]
fn min_rate_fails_after_the_settle_time() {
    let spec = job("--name=x --size=1m --bs=4k --rw=read --rate_min=1m --rate_cycle=500");
    let mut r = RateLimiter::new(&spec, &Seeds::for_job(&spec)).unwrap();
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
    assert_eq!(p.sleep(30, Some(50)), 50);
    // Issue-side counting.
    let spec = job(
        "--name=x --size=1m --thinktime=100 --thinktime_blocks=2 --thinktime_blocks_type=issue",
    );
    let mut t = ThinkTime::new(&spec).unwrap();
    assert!(t.check(1, 0, 0).is_none());
    assert!(t.check(2, 0, 0).is_some());
    // thinktime_iotime alone: only the time triggers.
    let spec = job("--name=x --size=1m --thinktime=100 --thinktime_iotime=1");
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
        let mut f = BufferFiller::new(&spec, &Seeds::for_job(&spec)).unwrap();
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
    let f = BufferFiller::new(&spec, &Seeds::for_job(&spec)).unwrap();
    assert!(f.refills());
}

#[test]
fn scramble_changes_blocks_unless_zero_buffers() {
    let filler = |line: &str| {
        let spec = job(line);
        BufferFiller::new(&spec, &Seeds::for_job(&spec)).unwrap()
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

/// One job's I/Os as fio logs them with `--write_iolog`, or `None` when
/// fio is not installed.
fn fio_log(line: &str) -> Option<Vec<(String, String, u64, u64)>> {
    let fio = Path::new("/usr/bin/fio");
    if !fio.exists() {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("rfio-patterns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let log = dir.join(format!("{:x}.log", fnv(line)));
    let _ = std::fs::remove_file(&log);
    let status = Command::new(fio)
        .current_dir(&dir)
        .arg("--ioengine=null")
        .arg(format!("--write_iolog={}", log.display()))
        .args(line.split_whitespace())
        .output()
        .ok()?;
    assert!(status.status.success(), "fio {line}: {status:?}");
    let text = std::fs::read_to_string(&log).ok()?;
    let _ = std::fs::remove_file(&log);
    Some(
        text.lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.len() == 5 && matches!(f[2], "read" | "write" | "trim")).then(|| {
                    (
                        f[1].to_string(),
                        f[2].to_string(),
                        f[3].parse().unwrap(),
                        f[4].parse().unwrap(),
                    )
                })
            })
            .collect(),
    )
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every case agrees with fio 3.33's own iolog, I/O for I/O.
#[test]
fn live_fio_agrees() {
    let cases = [
        "--name=x --size=1m --bs=4k --rw=randread",
        "--name=x --size=64k --bs=4k --rw=read:-8k --offset=16k",
        "--name=x --size=1m --bs=4k --rw=randrw --rwmixread=70",
        "--name=x --size=1m --bs=4k --rw=rw",
        "--name=x --size=1m --bsrange=4k-16k --rw=randread",
        "--name=x --size=1m --bssplit=4k/50:8k/30:16k/20 --rw=randread",
        "--name=x --size=1m --bsrange=4k-16k --rw=read",
        "--name=x --size=1m --bs=4k --rw=randread --norandommap",
        "--name=x --size=1m --bs=4k --rw=randread --random_generator=lfsr",
        "--name=x --size=1m --bs=4k --rw=randread --random_generator=tausworthe64",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=zipf:1.2",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=pareto:0.3:0.2",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=normal:10",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=zoned:60/10:30/20:10/70",
        "--name=x --size=1m --bs=4k --rw=randread --random_distribution=zoned_abs:60/64k:40/960k",
        "--name=x --size=1m --bs=4k --rw=randwrite --percentage_random=50",
        "--name=x --size=1m --bs=4k --rw=randread:4 --rw_sequencer=identical",
        "--name=x --size=1m --bs=4k --rw=randread --nrfiles=3 --file_service_type=random",
        "--name=x --size=1m --bs=4k --rw=randread --nrfiles=4 --file_service_type=normal",
        "--name=x --size=1m --bs=4k --rw=trimwrite",
        "--name=x --size=1m --bs=4k --rw=randtrimwrite",
        "--name=x --size=1m --bsrange=4k-16k --rw=randrw --bs_is_seq_rand=1 --percentage_random=50",
        "--name=x --size=1m --bs=8k --ba=4k --rw=randread",
        "--name=x --size=1m --bssplit=4k/10:8k/20,16k/50:32k/50 --rw=randrw",
        "--name=x --size=256k --bs=4k --rw=randrw --loops=2 --randrepeat=0 --randseed=3",
        "--name=x --size=256k --bsrange=4k-16k --rw=rw --loops=3 --rwmixread=80",
        "--name=x --size=1m --bs=4k --rw=rw --io_size=2m",
        "--name=x --size=1m --bsrange=1k-9k --bs_unaligned --rw=randread",
    ];
    let mut skipped = false;
    for line in cases {
        let Some(want) = fio_log(line) else {
            skipped = true;
            break;
        };
        let spec = job(line);
        let names = names(&spec);
        let got: Vec<(String, String, u64, u64)> = fio_sequence(&spec)
            .iter()
            .map(|io| {
                let d = match io.dir {
                    Dir::Read => "read",
                    Dir::Write => "write",
                    Dir::Trim => "trim",
                };
                (names[io.file].clone(), d.to_string(), io.offset, io.len)
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{line}: number of I/Os");
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!("{line}: I/O {i}: rfio {:?}, fio {:?}", got[i], want[i]);
        }
    }
    if skipped {
        eprintln!("live_fio_agrees: /usr/bin/fio not found, skipped");
    }
}
