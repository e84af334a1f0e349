//! Every difference between fio 3.33 and the releases after it: the
//! [`Change`]s and their table, [`CHANGES`] (what, which release, where
//! upstream has it). A new release difference is one entry here.

use super::Release;

/// One difference between releases. Options are named by the name the
/// release added (its aliases are entries of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A job option (or an alias) that releases before this one reject
    /// as unknown.
    Option(&'static str),
    /// `buffer_pattern` and `verify_pattern` up to 128 MiB (3.33: 512
    /// bytes), a `'file'` piece read that far.
    LongPatterns,
    /// An option of 3.33 becomes another's alias (`allrandrepeat` sets
    /// `randrepeat`, and is printed as it): `(alias, option)`.
    Alias(&'static str, &'static str),
    /// Every random generator is seeded from `randseed`, offsets too
    /// (3.33 seeded offsets from `FIO_RANDSEED` with `randrepeat=1`), and
    /// `allrandrepeat` is an alias of `randrepeat`.
    /// And a non-uniform distribution's seed always takes the file's name
    /// and the offset seed (3.33: the name only with `randrepeat=1`).
    SeedsFromRandseed,
    /// Each job of the JSON output has `job_start`, the wall-clock ms of
    /// its start (or of its ramp's end), after `groupid`.
    JsonJobStart,
    /// Disk statistics show the sectors read and written (normal output
    /// `sectors=`, `aggsectors=`; JSON `read_sectors`, `aggr_read_sectors`
    /// ...); terse is unchanged.
    DiskSectors,
    /// Steady state is measured every `ss_interval` (fio's helper tick):
    /// a measurement is the interval's count scaled by the time since the
    /// last one over the interval squared (3.33: the count per second of
    /// that time, so a short first tick no longer counts in full), and
    /// `ss_dur` must be a multiple of the interval, over it.
    SteadyStateInterval,
    /// `steadystate=lat` and `lat_slope`: the criterion is the mean
    /// completion latency of each interval, listed in JSON as `lat_ns`
    /// with its `lat_mean`, and in the normal line as `lat=`.
    SteadyStateLatency,
    /// An ioengine that releases before this one do not know (`fio: engine
    /// NAME not loadable`), and the engine whose options table it shares,
    /// if it has one of its own: `(name, options of)`.
    Engine(&'static str, Option<&'static str>),
    /// An ioengine this release removed: from it on, `ioengine=NAME` is
    /// unknown.
    EngineRemoved(&'static str),
    /// JSON keeps empty strings (`""`), so options set without a value
    /// (`time_based`, `group_reporting`) appear in the options blocks;
    /// 3.33 left every empty string out with its key.
    JsonEmptyStrings,
    /// JSON repeats `latency_target` and `latency_window` as
    /// `latency_target_ns` and `latency_window_us`; the normal output's
    /// `latency :` line gives them with a unit (`target=0.00ns`).
    LatencyTargetUnits,
    /// Each priority of a JSON direction's `prios` has its `priohint`.
    PrioHint,
    /// Zone resets are reported only by a job that counts them
    /// (`zonemode=zbd` with writes or trims), on each of its lines, and in
    /// JSON as `zone_resets`; 3.33 gave every write line `; 0 zone resets`.
    ZoneResetsOnlyZbd,
    /// A client of several servers gives JSON `global options` as an
    /// array, one object per server that sent global options (its
    /// `hostname` and `port` first), in the order of their first
    /// statistics; one server keeps the single object.
    ClientGlobalsPerServer,
    /// The client's "All clients" aggregate takes the percentile switches
    /// and list of the first block it sums (3.33 left them off).
    AllClientsPercentiles,
    /// fio's sha512 finalises: the stored checksum is the digest (over
    /// the final padded block); 3.33 stored the last block it was given.
    Sha512Final,
    /// `verify_offset` plus the header past `verify_interval` is refused
    /// in fio's words (`cannot offset verify header beyond the verify
    /// interval`), whatever the verify type.
    VerifyOffsetInInterval,
    /// The read back checks the header's seed in any job that writes
    /// (`verify_header_seed`), not only in one that reads and writes.
    HeaderSeedCheck,
    /// The written blocks wait for their read back in write order unless
    /// offsets may overlap (`norandommap`, `softrandommap`, an `rw=…:N`
    /// modifier): then sorted by file and offset. 3.33 sorted them unless
    /// the file had a random map, a sequential job's too.
    VerifyLogByOverlapRisk,
    /// `numberio` is not checked with `norandommap` at `iodepth` > 1 on
    /// an engine that queues (unless `verify_write_sequence` is set).
    WriteSequenceQueued,
    /// The verify header is versioned (0x81): 48 bytes, an 8-bit type, a
    /// 64-bit `numberio`; a header of another version fails the check.
    VerifyHeaderV81,
    /// The verify state file is version 4: after `iodepth` it keeps
    /// `max_no_comps_per_file`, the completions kept per file, twice
    /// `iodepth` on an engine that queues (3.33: version 3, `iodepth`
    /// slots per file); a job that keeps none writes no slots. A read
    /// back the state stops says so ("Stop verify because offset ...").
    VerifyStateCompDepth,
    /// The verify state file is version 5: `iodepth`, the writes issued,
    /// and per `iodepth` slot the `numberio` of the write in flight
    /// (`UINT64_MAX`: none); no files, no completions. A read back stops
    /// at the first one whose sequence number reaches the writes issued
    /// or was in flight ("Stop verify because seq N >= M").
    VerifyStateInflight,
    /// `--debug=sprandom` (and its line among the categories of the usage
    /// text).
    DebugSprandom,
    /// `--bandwidth-log=NAME`: the aggregate bandwidth logs are
    /// `NAME-read_bw.log` ...; 3.33 refuses a value ("doesn't allow an
    /// argument").
    BandwidthLogName,
    /// A job that reads and verifies without writing counts its verified
    /// reads as done, so `loops` makes its passes (3.33: a read-verify
    /// job stopped after one pass, its bytes done being 0).
    VerifiedReadsCount,
    /// A file with more blocks than the 32-bit Tausworthe generator
    /// reaches really draws its random offsets from tausworthe64 when
    /// `random_generator` is not set (3.33 … 3.41 said they switched, and
    /// kept drawing 32-bit offsets).
    Tausworthe64Switch,
    /// Think time (`thinktime_spin` and the sleep) ends with the runtime,
    /// and `thinktime_iotime` counts from the end of the last pause (3.33:
    /// a pause ran in full past the runtime, and the first trigger came
    /// after `thinktime_iotime` plus `thinktime`).
    ThinkWithinRuntime,
    /// `fsync=N`/`fdatasync=N`/`sync_file_range` follow writes only: a
    /// sync is due only right after a write was issued (3.33: also after
    /// a read, when the write count was still at a multiple of N).
    SyncAfterWritesOnly,
    /// A sequential mixed job (`rw=rw`) with `io_size` over `size` runs it
    /// in one pass, each direction starting the file over at its end
    /// (3.33: passes of `size` bytes, both directions restarting).
    MixedIoSizeWraps,
    /// `atomic=1` asks `RWF_ATOMIC` of each write, on the engines that
    /// have it (pvsync2, libaio, io_uring); on any other engine the job
    /// is refused ("engine does not support atomic writes"). It no longer
    /// implies `direct=1` (3.33: `O_DIRECT` and fio's `O_ATOMIC` bit on
    /// every open, plain writes).
    AtomicWrites,
    /// `uncached` of pvsync2 and io_uring sets no flag (3.33 … 3.37: fio's
    /// `RWF_UNCACHED`, the bit kernels from 6.11 read as `RWF_ATOMIC`).
    UncachedDropped,
    /// `uncached` sets `RWF_DONTCACHE` on buffered reads and writes.
    DontCache,
    /// io_uring's `md_per_io_size` (with `pi_chk`, `apptag`,
    /// `apptag_mask`) sends protection information with each read and
    /// write: the file must be a block device with integrity metadata
    /// (`FS_IOC_GETLBMD_CAP`), and `apptag_mask` must be 0xffff. Before,
    /// io_uring read none of them (only io_uring_cmd did).
    UringIntegrity,
    /// libaio queues `fsync=N`/`fdatasync=N` syncs as `IOCB_CMD_FSYNC`
    /// beside the reads and writes (3.33: each ran alone, synchronously,
    /// once nothing was in flight).
    LibaioAsyncFsync,
    /// The ramp (`ramp_time`, and 3.42's `ramp_size`) ends at the first
    /// once-a-second check of fio's helper thread that finds it over:
    /// the checks fall every second from the run's start, and the I/O
    /// after such a check ends it (3.33: the first I/O past `ramp_time`).
    RampCheckedEachSecond,
    /// `zonemode=zbd`: a zone left with room for less than a block is
    /// finished (made full) and the write goes to the next zone; a
    /// sequential job ends at the region's last zone (3.33 reset such a
    /// zone and wrote it again). With verification, a block size need no
    /// longer divide the zone size.
    ZbdFinishSmallRemainder,
    /// `zonemode=zbd`: a mixed job's reads start once the job has written
    /// to the file itself (3.33: once the file held data, anyone's).
    ZbdReadsAfterOwnWrite,
    /// `zonemode=zbd`: a mixed job with `rwmixwrite=0` reads from its
    /// first I/O (3.34 to 3.36 wrote first).
    ZbdNoWriteShareReads,
    /// `trim_backlog`: a batch of trims starts after anything but a trim
    /// (3.33: anything but a read, so a batch followed a batch), only when
    /// a block is there to trim, and ends when the trim list runs out.
    TrimBacklogBatches,
    /// `rate_iops` of a direction with a `bssplit` spaces its I/Os
    /// `1 / rate_iops` s apart, whatever their sizes (3.33 turned it into
    /// bytes/s with the smallest size of the split, so bigger blocks
    /// slowed the I/O rate).
    RateIopsBssplit,
}

impl Change {
    /// The release that brought it.
    pub fn since(self) -> Release {
        CHANGES
            .iter()
            .find(|e| e.change == self)
            .map_or(Release::OLDEST, |e| e.since)
    }
}

/// One row of [`CHANGES`].
#[derive(Debug)]
pub struct Entry {
    pub change: Change,
    pub since: Release,
    /// What a user sees change, in a few words.
    pub what: &'static str,
    /// Where upstream has it: the file at the release's tag (checked by
    /// the tests; nothing prints it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub upstream: &'static str,
}

const fn option(name: &'static str, since: Release, what: &'static str) -> Entry {
    Entry {
        change: Change::Option(name),
        since,
        what,
        upstream: "options.c",
    }
}

/// Every difference between fio 3.33 and the releases after it, by
/// release. The options are the names each tag's `options.c` adds to the
/// tag before it (`git show fio-3.NN:options.c`).
pub static CHANGES: &[Entry] = {
    use Release::*;
    &[
        option("fdp", V3_34, "NVMe flexible data placement"),
        Entry {
            change: Change::LongPatterns,
            since: V3_34,
            what: "patterns up to 128 MiB (were 512 bytes)",
            upstream: "lib/pattern.h MAX_PATTERN_SIZE, options.c (1dc47d6b)",
        },
        option("fdp_pli", V3_34, "placement IDs for fdp"),
        Entry {
            change: Change::ThinkWithinRuntime,
            since: V3_34,
            what: "think time capped at the runtime left; thinktime_iotime from the last pause",
            upstream: "backend.c handle_thinktime (f9fc7a27)",
        },
        Entry {
            change: Change::ZbdFinishSmallRemainder,
            since: V3_34,
            what: "zonemode=zbd finishes a zone with room for less than a block, writes the next",
            upstream: "zbd.c zbd_adjust_block, zbd_finish_zone, zbd_verify_bs (e1a1b59b, e7b44887)",
        },
        Entry {
            change: Change::ZbdReadsAfterOwnWrite,
            since: V3_34,
            what: "zonemode=zbd mixed jobs read once they wrote themselves",
            upstream: "zbd.c zbd_adjust_ddir (440f63b1)",
        },
        Entry {
            change: Change::EngineRemoved("pmemblk"),
            since: V3_34,
            what: "the pmemblk engine removed (PMDK's libpmemblk is deprecated)",
            upstream: "engines/pmemblk.c (removed by 04c1cdc4)",
        },
        Entry {
            change: Change::SeedsFromRandseed,
            since: V3_35,
            what: "random offsets seeded from randseed, distributions per file; \
                   allrandrepeat aliases randrepeat; --debug=random lists the seeds",
            upstream: "init.c setup_random_seeds (95282650, 64b2ba14), \
                       filesetup.c __init_rand_distribution (073974b2)",
        },
        Entry {
            change: Change::Alias("allrandrepeat", "randrepeat"),
            since: V3_35,
            what: "allrandrepeat an alias of randrepeat",
            upstream: "options.c (95282650)",
        },
        Entry {
            change: Change::SteadyStateInterval,
            since: V3_35,
            what: "steady state measured per ss_interval; ss_dur a multiple of it",
            upstream: "steadystate.c steadystate_check, init.c fixup_options (90e678ba, 93fdba01)",
        },
        option(
            "steadystate_check_interval",
            V3_35,
            "steady-state sampling interval",
        ),
        option("ss_interval", V3_35, "alias of steadystate_check_interval"),
        Entry {
            change: Change::JsonJobStart,
            since: V3_36,
            what: "JSON job_start",
            upstream: "stat.c show_thread_status_json, time.c set_epoch_time",
        },
        Entry {
            change: Change::DiskSectors,
            since: V3_36,
            what: "disk util sectors in normal and JSON output",
            upstream:
                "stat.c print_disk_util, json_object_add_disk_utils (75cbc26d, fc250131, bb08a260)",
        },
        Entry {
            change: Change::Alias("log_unix_epoch", "log_alternate_epoch"),
            since: V3_36,
            what: "log_unix_epoch an alias of log_alternate_epoch",
            upstream: "options.c",
        },
        Entry {
            change: Change::PrioHint,
            since: V3_36,
            what: "JSON priohint of each priority",
            upstream: "stat.c add_ddir_status_json (219a8682)",
        },
        option("fdp_pli_select", V3_36, "how fdp picks a placement ID"),
        option("job_start_clock_id", V3_36, "the clock of JSON job_start"),
        option("priohint", V3_36, "I/O priority hint"),
        option("log_window_value", V3_37, "what a windowed log line holds"),
        option("num_range", V3_37, "ranges per trim"),
        option("thinkcycles", V3_37, "CPU cycles spun between I/Os"),
        Entry {
            change: Change::Engine("dircreate", None),
            since: V3_37,
            what: "the dircreate engine: each file a directory, made when opened",
            upstream: "engines/fileoperations.c (a7a817a2)",
        },
        Entry {
            change: Change::Engine("dirstat", Some("filestat")),
            since: V3_37,
            what: "the dirstat engine: filestat's stat of directories it makes",
            upstream: "engines/fileoperations.c (a7a817a2)",
        },
        Entry {
            change: Change::Engine("dirdelete", None),
            since: V3_37,
            what: "the dirdelete engine: rmdir of directories it makes",
            upstream: "engines/fileoperations.c (a7a817a2)",
        },
        Entry {
            change: Change::ZbdNoWriteShareReads,
            since: V3_37,
            what: "zonemode=zbd mixed jobs with rwmixwrite=0 read first",
            upstream: "zbd.c zbd_adjust_ddir (cbbfe5a9)",
        },
        Entry {
            change: Change::VerifiedReadsCount,
            since: V3_37,
            what: "a read-verify job counts its reads, so loops repeats it",
            upstream: "io_u.c io_u_update_bytes_done (96a7e64c)",
        },
        option("dataplacement", V3_38, "data placement (fdp or streams)"),
        option("data_placement", V3_38, "alias of dataplacement"),
        option("dp_scheme", V3_38, "a file of placement ID schemes"),
        option("plid_select", V3_38, "how a placement ID is picked"),
        option("plids", V3_38, "placement IDs"),
        option("log_issue_time", V3_38, "issue times in I/O logs"),
        Entry {
            change: Change::SyncAfterWritesOnly,
            since: V3_38,
            what: "fsync=N syncs only right after a write",
            upstream: "io_u.c get_rw_ddir (704a8cfe)",
        },
        Entry {
            change: Change::MixedIoSizeWraps,
            since: V3_38,
            what: "rw=rw with io_size over size: one pass, each direction wrapping",
            upstream: "backend.c do_io, io_u.c get_next_seq_offset (d782b76f)",
        },
        Entry {
            change: Change::AtomicWrites,
            since: V3_38,
            what: "atomic=1: RWF_ATOMIC writes (pvsync2, libaio, io_uring), refused elsewhere; \
                   no longer implies direct=1",
            upstream: "init.c fixup_options, engines/sync.c, libaio.c, io_uring.c (40f1fc11, \
                       80226c53, a79319fe, b1552b6e)",
        },
        Entry {
            change: Change::UncachedDropped,
            since: V3_38,
            what: "uncached (pvsync2, io_uring) sets no flag",
            upstream: "engines/sync.c, engines/io_uring.c (00dc75d2)",
        },
        option(
            "verify_write_sequence",
            V3_38,
            "verify checks write sequence numbers",
        ),
        Entry {
            change: Change::Sha512Final,
            since: V3_39,
            what: "sha512 verify stores the real digest",
            upstream: "crc/sha512.c fio_sha512_final, verify.c (3ee53198)",
        },
        Entry {
            change: Change::ClientGlobalsPerServer,
            since: V3_39,
            what: "client JSON: global options per server when there are several",
            upstream: "client.c handle_job_opt (6f771553)",
        },
        Entry {
            change: Change::AllClientsPercentiles,
            since: V3_39,
            what: "client: \"All clients\" with latency percentiles",
            upstream: "client.c handle_ts (9e271031)",
        },
        Entry {
            change: Change::JsonEmptyStrings,
            since: V3_39,
            what: "JSON empty strings kept: valueless options in options blocks",
            upstream: "json.c strdup_escape (4a1f2a5b)",
        },
        Entry {
            change: Change::VerifyStateCompDepth,
            since: V3_39,
            what: "verify state file version 4, twice iodepth completions kept when queued",
            upstream: "verify-state.h struct thread_io_list, backend.c \
                       init_file_completion_logging, verify.c (9abce429, ceb624e8)",
        },
        Entry {
            change: Change::DontCache,
            since: V3_40,
            what: "uncached (pvsync2, io_uring) sets RWF_DONTCACHE on buffered I/O",
            upstream: "engines/sync.c, engines/io_uring.c (43c67b9f)",
        },
        Entry {
            change: Change::TrimBacklogBatches,
            since: V3_40,
            what: "trim_backlog batches follow writes only, end when the trim list does",
            upstream: "io_u.c check_get_trim (46f22856, 67379ba4)",
        },
        option(
            "recover_zbd_write_error",
            V3_40,
            "retry zoned writes after errors",
        ),
        option("verify_header_seed", V3_40, "verify checks the header seed"),
        option(
            "verify_pattern_interval",
            V3_40,
            "verify pattern restarts every N bytes",
        ),
        Entry {
            change: Change::VerifyOffsetInInterval,
            since: V3_40,
            what: "verify_offset past verify_interval refused in fio's words",
            upstream: "init.c fixup_options (c0bd027f)",
        },
        Entry {
            change: Change::HeaderSeedCheck,
            since: V3_40,
            what: "verify checks the header seed of any writing job",
            upstream: "verify.c verify_header, init.c fixup_options (9cd28988, 3afb9a75)",
        },
        Entry {
            change: Change::VerifyLogByOverlapRisk,
            since: V3_40,
            what: "written blocks read back in write order unless offsets may overlap",
            upstream: "iolog.c log_io_piece, fio.h fio_offset_overlap_risk (a10f36cf, deade130)",
        },
        Entry {
            change: Change::WriteSequenceQueued,
            since: V3_40,
            what: "no numberio check with norandommap and a queue",
            upstream: "init.c fixup_options (b5ab9ba8)",
        },
        Entry {
            change: Change::LibaioAsyncFsync,
            since: V3_41,
            what: "libaio queues its syncs (IOCB_CMD_FSYNC) beside reads and writes",
            upstream: "engines/libaio.c fio_libaio_prep, fio_libaio_queue (5816d7f6)",
        },
        Entry {
            change: Change::VerifyStateInflight,
            since: V3_41,
            what: "verify state file version 5: the in-flight writes' numberio",
            upstream: "verify-state.h struct inflight_write, verify.c get_all_io_list, \
                       verify_state_should_stop, backend.c log_inflight (a9ba7cef, a52833b3)",
        },
        Entry {
            change: Change::VerifyHeaderV81,
            since: V3_41,
            what: "verify header version 0x81, 48 bytes, 64-bit numberio",
            upstream: "verify.h struct verify_header, verify.c verify_header (e1a250c2)",
        },
        Entry {
            change: Change::UringIntegrity,
            since: V3_41,
            what: "io_uring's md_per_io_size sends protection information (a block device with integrity metadata)",
            upstream: "engines/io_uring.c fio_ioring_init, fio_get_pi_info",
        },
        option("filetype", V3_41, "the type of the job's files"),
        option("sprandom", V3_41, "SSD preconditioning random writes"),
        option("spr_num_regions", V3_41, "sprandom's regions"),
        option("spr_op", V3_41, "sprandom's over-provisioning"),
        Entry {
            change: Change::DebugSprandom,
            since: V3_41,
            what: "the debug category sprandom",
            upstream: "debug.h, init.c debug_levels (c3291d43)",
        },
        Entry {
            change: Change::ZoneResetsOnlyZbd,
            since: V3_42,
            what: "zone resets reported only with zonemode=zbd, and in JSON",
            upstream: "stat.c, zbd.c zbd_setup_files (7089300f, b9b306b5)",
        },
        Entry {
            change: Change::LatencyTargetUnits,
            since: V3_42,
            what: "JSON latency_target_ns and latency_window_us; units in the normal output's latency line",
            upstream: "stat.c show_thread_status_json (4db5740d)",
        },
        Entry {
            change: Change::Tausworthe64Switch,
            since: V3_42,
            what: "random offsets of a file too big for tausworthe32 drawn by tausworthe64",
            upstream: "filesetup.c check_rand_gen_limits, init.c init_rand_offset_seed (7a1b6f44)",
        },
        Entry {
            change: Change::SteadyStateLatency,
            since: V3_42,
            what: "steadystate=lat and lat_slope, JSON lat_ns and lat_mean",
            upstream: "steadystate.c, stat.c show_ss_normal (e6ef1c10)",
        },
        Entry {
            change: Change::RampCheckedEachSecond,
            since: V3_42,
            what: "the ramp ends at the helper thread's once-a-second check",
            upstream: "time.c ramp_period_check, helper_thread.c (356e1ca9, 6ff32768)",
        },
        option("comm", V3_42, "the job thread's name"),
        option("end_syncfs", V3_42, "syncfs() at the end of the job"),
        option("ramp_size", V3_42, "ramp by bytes instead of time"),
        option("spr_cs", V3_42, "sprandom's cache size"),
        option(
            "write_zone_remainder",
            V3_42,
            "write the remainder of a zone",
        ),
        Entry {
            change: Change::BandwidthLogName,
            since: V3_42,
            what: "--bandwidth-log takes the aggregate logs' name",
            upstream: "init.c l_opts, backend.c fio_backend (af979bd9)",
        },
        Entry {
            change: Change::RateIopsBssplit,
            since: V3_42,
            what: "rate_iops with bssplit counts I/Os, not bytes of the smallest block",
            upstream: "backend.c usec_for_io (3a0e8ddf)",
        },
    ]
};
