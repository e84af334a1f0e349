#!/usr/bin/env python3
"""Generate src/options/table.rs from the installed fio 3.33.

    python3 scripts/gen-options.py            # writes src/options/table.rs
    python3 scripts/gen-options.py --check    # exits 1 if the file would change
    python3 scripts/gen-options.py --later $(scripts/fio-oracle 3.42) [--check]
        # src/options/later_table.rs: what fio 3.34 to 3.42 changed in the
        # table, each change with its release (from fio's git history, a
        # clone at FIO_GIT); an option a later release added is run once it
        # is in SUPPORTED_LATER

Python 3 standard library only. Needs /usr/bin/fio 3.33 (Debian build) and
the reference notes in /work/shared/reference/options.tsv (both paths can be
changed with --fio and --tsv). The output is passed through rustfmt when it is
on the PATH.

Where each field comes from:

* fio's own output, parsed: `fio --cmdhelp=NAME` for core options,
  `fio --enghelp`, `fio --enghelp=ENGINE` and `fio --enghelp=ENGINE,NAME` for
  ioengine options: help, alias, type, default, range and valid values. These
  strings are what rfio must print byte for byte, so they are taken as printed.
* fio's option tables, read out of the fio executable (the exported
  `fio_options` array and each ioengine's `options` array, decoded with the
  `struct fio_option` layout of 3.33 on x86-64): table order, `parent`,
  `prio`, the exact `enum fio_opt_type`, `is_seconds`, and the deprecated
  options that `--cmdhelp` never shows. Every field that `--cmdhelp` also
  prints is cross-checked against the parsed output; any difference aborts.
  The order matters: `--cmdhelp=all` is *not* table order (children are
  printed under their parent), and fio's "closest match" keeps the first of
  equally distant options in table order.
* options.tsv (the reference notes): value kind, per-direction split and
  HOWTO category.

Options of ioengines that are not in this build (libblkio, xnvme, ...),
`gpu_dev_id` (CONFIG_CUDA) and profile options (`fio --cmdhelp=NAME` does not
know them without `--profile=`) are not in the table; the script lists them.
The exception is http, which rfio runs: its options come from SUPPLEMENT
below, copied from fio-3.33's engines/http.c.
"""

import argparse
import re
import csv
import os
import shutil
import struct
import subprocess
import sys

# ---------------------------------------------------------------------------
# fio's option tables, read from the executable


class Elf:
    """Just enough of an x86-64 PIE ELF reader to follow pointers in .data."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = data = f.read()
        if data[:4] != b"\x7fELF" or data[4] != 2:
            raise SystemExit(f"{path}: not a 64-bit ELF file")
        e_phoff, e_shoff = struct.unpack_from("<QQ", data, 0x20)
        phentsize, phnum, shentsize, shnum, _ = struct.unpack_from("<HHHHH", data, 0x36)
        self.loads = []
        for i in range(phnum):
            p_type, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(
                "<IIQQQQQQ", data, e_phoff + i * phentsize
            )
            if p_type == 1:
                self.loads.append((vaddr, off, filesz))
        sections = [
            struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * shentsize)
            for i in range(shnum)
        ]
        # R_X86_64_RELATIVE relocations hold the pointer values of a PIE.
        self.relocs = {}
        for sh in sections:
            if sh[1] == 4:  # SHT_RELA
                off, size, ent = sh[4], sh[5], sh[9]
                for j in range(off, off + size, ent):
                    r_offset, r_info, r_addend = struct.unpack_from("<QQq", data, j)
                    if r_info & 0xFFFFFFFF == 8:
                        self.relocs[r_offset] = r_addend
        self.symbols = {}
        for sh in sections:
            if sh[1] == 11:  # SHT_DYNSYM
                strtab = sections[sh[6]]
                for j in range(sh[4], sh[4] + sh[5], sh[9]):
                    st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, j)
                    self.symbols[self.cstr_at(strtab[4] + st_name)] = st_value

    def cstr_at(self, off):
        return self.data[off : self.data.index(b"\0", off)].decode()

    def off(self, vaddr):
        for va, off, size in self.loads:
            if va <= vaddr < va + size:
                return off + vaddr - va
        return None

    def vaddr(self, off):
        for va, o, size in self.loads:
            if o <= off < o + size:
                return va + off - o
        return None

    def ptr(self, vaddr):
        if vaddr in self.relocs:
            return self.relocs[vaddr]
        return struct.unpack_from("<Q", self.data, self.off(vaddr))[0]

    def str(self, vaddr):
        p = self.ptr(vaddr)
        if not p or self.off(p) is None:
            return None
        return self.cstr_at(self.off(p))

    def i32(self, vaddr):
        return struct.unpack_from("<i", self.data, self.off(vaddr))[0]

    def u64(self, vaddr):
        return struct.unpack_from("<Q", self.data, self.off(vaddr))[0]

    def f64(self, vaddr):
        return struct.unpack_from("<d", self.data, self.off(vaddr))[0]

    def pointers_to_string(self, s):
        """Addresses of pointers to a NUL-terminated `s` (also a merged tail)."""
        needle = s.encode() + b"\0"
        targets = set()
        i = self.data.find(needle)
        while i >= 0:
            targets.add(self.vaddr(i))
            i = self.data.find(needle, i + 1)
        return sorted(loc for loc, val in self.relocs.items() if val in targets)


# struct fio_option (parse.h, fio 3.33, x86-64): offsets of the fields we read.
OPT_SIZE = 1512
OPT_NAME, OPT_ALIAS, OPT_TYPE = 0, 16, 24
OPT_MAXVAL, OPT_MINVAL, OPT_MAXFP, OPT_MINFP = 56, 64, 72, 80
OPT_PRIO, OPT_HELP, OPT_DEF, OPT_POSVAL = 100, 112, 120, 128
VP_SIZE, PARSE_MAX_VP = 40, 32  # struct value_pair: ival, oval, help, orval, cb
OPT_PARENT, OPT_PROF_NAME, OPT_IS_SECONDS, OPT_IS_TIME = 1408, 1448, 1488, 1492

# enum fio_opt_type (parse.h, 3.33) -> rfio's FioType.
FIO_TYPES = {
    1: "Str",
    2: "StrUll",
    3: "StrMulti",
    4: "StrVal",
    5: "StrValTime",
    6: "StrStore",
    7: "Range",
    8: "Int",
    9: "Ull",
    10: "Bool",
    11: "FloatList",
    12: "StrSet",
    13: "StrValZone",
    14: "Deprecated",
    15: "SoftDeprecated",
    16: "Unsupported",
}
DEPRECATED = ("Deprecated", "SoftDeprecated")


def read_table(elf, addr):
    """Decode a NULL-terminated array of struct fio_option at `addr`."""
    table = []
    while True:
        b = addr + len(table) * OPT_SIZE
        name = elf.str(b + OPT_NAME)
        if name is None:
            return table
        posvals = []
        for k in range(PARSE_MAX_VP):
            vb = b + OPT_POSVAL + k * VP_SIZE
            ival = elf.str(vb)
            if ival is not None:
                posvals.append((k, ival, elf.str(vb + 16)))
        table.append(
            dict(
                name=name,
                alias=elf.str(b + OPT_ALIAS),
                type=FIO_TYPES[elf.i32(b + OPT_TYPE)],
                maxval=elf.u64(b + OPT_MAXVAL),
                minval=elf.i32(b + OPT_MINVAL),
                maxfp=elf.f64(b + OPT_MAXFP),
                minfp=elf.f64(b + OPT_MINFP),
                prio=elf.i32(b + OPT_PRIO),
                help=elf.str(b + OPT_HELP),
                default=elf.str(b + OPT_DEF),
                posvals=posvals,
                parent=elf.str(b + OPT_PARENT),
                prof_name=elf.str(b + OPT_PROF_NAME),
                is_seconds=elf.i32(b + OPT_IS_SECONDS),
                is_time=elf.i32(b + OPT_IS_TIME),
            )
        )


def core_table(elf):
    addr = elf.symbols.get("fio_options")
    if addr is None:
        raise SystemExit("fio executable does not export fio_options")
    if elf.str(addr) != "description" or elf.str(addr + OPT_SIZE) != "name":
        raise SystemExit("fio_options does not have the fio 3.33 struct fio_option layout")
    return read_table(elf, addr)


def engine_table(elf, first_name, first_help, listed):
    """Find the options array of an ioengine from its first option."""
    found = {}
    for loc in elf.pointers_to_string(first_name):
        try:
            t = read_table(elf, loc)
        except (KeyError, TypeError, struct.error, ValueError):
            continue
        names = [o["name"] for o in t]
        if names and names[0] == first_name and t[0]["help"] == first_help:
            if set(listed) <= set(names):
                found[loc] = t
    if len(found) != 1:
        raise SystemExit(f"cannot locate the option table of {first_name!r}: {len(found)} candidates")
    return next(iter(found.items()))


# ---------------------------------------------------------------------------
# fio's help output


def run_fio(fio, arg):
    p = subprocess.run([fio, arg], capture_output=True, text=True)
    return p.stdout, p.stderr, p.returncode


def parse_help_blocks(text):
    """Parse show_cmd_help() output into {name: fields} (one block per match)."""
    blocks = {}
    cur = None
    for line in text.split("\n"):
        if not line:
            cur = None
            continue
        label, _, rest = line.partition(": ")
        label = label.strip()
        if cur is None:
            cur = dict(help=rest, alias=None, type=None, default=None, range=None, posvals=[])
            blocks[label] = cur
        elif label in ("alias", "type", "default", "range"):
            cur[label] = rest
        elif label in ("valid values", ""):
            value = rest.split(" ")[0]
            tail = rest[max(10, len(value)) :]
            assert tail == "" or tail.startswith(" "), line
            cur["posvals"].append((value, tail[1:] if tail else None))
        else:
            raise SystemExit(f"unexpected help line {line!r}")
    return blocks


def parse_list(text):
    """`NAME : help` lines of --enghelp=ENGINE, with indentation -> parent."""
    out = []
    stack = []
    for line in text.rstrip("\n").split("\n"):
        name_part, _, _ = line.partition(": ")
        level = (len(name_part) - len(name_part.lstrip(" "))) // 2
        name = name_part.strip()
        del stack[level:]
        out.append((name, stack[-1] if stack else None))
        stack.append(name)
    return out


TYPE_HELP = {
    "Str": "string (opt=bla)",
    "StrUll": "string (opt=bla)",
    "StrMulti": "string with possible k/m/g postfix (opt=4k)",
    "StrVal": "string (opt=bla)",
    "StrValTime": "string with time postfix (opt=10s)",
    "StrStore": "string (opt=bla)",
    "Range": "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
    "Int": "integer value (opt=100)",
    "Ull": "integer value (opt=100)",
    "Bool": "boolean value (opt=1)",
    "FloatList": "list of floating point values separated by ':' (opt=5.9:7.8)",
    "StrSet": "empty or boolean value ([0|1])",
    "StrValZone": "(null)",
}


def parse_range(text, fio_type):
    """'min=1, max=-1' -> (min, max) as OptionDef holds them (max=-1 -> None)."""
    if text is None:
        return None, None
    parts = dict(p.split("=") for p in text.split(", "))
    conv = float if fio_type == "FloatList" else int
    lo = conv(parts["min"])
    hi = conv(parts["max"]) if "max" in parts else None
    if fio_type == "FloatList":
        assert lo == int(lo) and (hi is None or hi == int(hi)), text
        lo, hi = int(lo), None if hi is None else int(hi)
    if hi == -1:
        hi = None
    return lo, hi


# Options whose valid values fio adds at start-up (register_profile() calls
# add_opt_posval()): only the help output has them.
RUNTIME_POSVALS = {"profile"}


def check(what, printed, binary):
    if printed != binary:
        raise SystemExit(f"{what}: --cmdhelp prints {printed!r} but the table holds {binary!r}")


def from_help(fio, arg, raw, engine):
    """Merge one option's --cmdhelp block with its decoded table entry."""
    out, err, rc = run_fio(fio, arg)
    blocks = parse_help_blocks(out)
    if raw["name"] not in blocks:
        raise SystemExit(f"fio {arg}: no block for {raw['name']} ({err.strip()})")
    b = blocks[raw["name"]]
    what = f"{arg}"
    check(what + " help", b["help"], raw["help"])
    check(what + " alias", b["alias"], raw["alias"])
    check(what + " type", b["type"], TYPE_HELP[raw["type"]])
    check(what + " default", b["default"], raw["default"] if raw["default"] is not None else "no default")
    if raw["name"] not in RUNTIME_POSVALS:
        check(what + " posvals", b["posvals"], [(v, h) for _, v, h in raw["posvals"]])
    assert [k for k, _, _ in raw["posvals"]] == list(range(len(raw["posvals"]))), raw["name"]
    lo, hi = parse_range(b["range"], raw["type"])
    if raw["type"] == "FloatList":
        if b["range"] is not None:
            check(what + " range", (lo, hi), (int(raw["minfp"]), int(raw["maxfp"])))
    elif engine or raw["type"] not in ("Int", "Ull", "Bool"):
        # (core Int/Ull/Bool ranges are set at start-up by options_init)
        if b["range"] is not None or raw["minval"] or raw["maxval"]:
            check(what + " range", (lo, hi), (raw["minval"], raw["maxval"] or None))
    return dict(
        help=b["help"],
        alias=b["alias"],
        default=None if b["default"] == "no default" else b["default"],
        min=lo,
        max=hi,
        posvals=b["posvals"],
    )


# ---------------------------------------------------------------------------
# options.tsv: value kind, split, category

# What rfio's engine executes today with fio's semantics; a job setting any
# other option fails with "rfio does not support OPTION yet". Grow this list
# as the engine grows.
SUPPORTED = set(
    """name description wait_for filename directory filename_format nrfiles
    filesize size io_size offset offset_increment number_ios numjobs stonewall
    new_group thread
    ioengine iodepth iodepth_batch iodepth_batch_complete_min
    iodepth_batch_complete_max iodepth_low direct buffered sync fsync fdatasync
    end_fsync fsync_on_close invalidate fadvise_hint unlink unlink_each_loop
    overwrite create_on_open create_fsync fallocate pre_read allow_mounted_write
    loops ramp_time startdelay exitall exitall_on_error exit_what time_based
    runtime continue_on_error ignore_error clocksource disk_util
    hipri nonvectored fixedbufs registerfiles sqthread_poll sqthread_poll_cpu
    userspace_reap stat_type
    rw rw_sequencer rwmixread rwmixwrite bs bsrange bssplit ba
    bs_unaligned bs_is_seq_rand random_generator randrepeat randseed
    allrandrepeat norandommap softrandommap random_distribution
    percentage_random file_service_type rate rate_min rate_iops rate_iops_min
    rate_process rate_cycle thinktime thinktime_spin thinktime_blocks
    thinktime_blocks_type thinktime_iotime refill_buffers scramble_buffers
    buffer_compress_percentage buffer_compress_chunk dedupe_percentage
    buffer_pattern zero_buffers
    group_reporting stats unified_rw_reporting kb_base unit_base
    significant_figures percentile_list clat_percentiles lat_percentiles
    slat_percentiles gtod_reduce disable_lat disable_clat disable_slat
    disable_bw_measurement bwavgtime iopsavgtime write_bw_log write_lat_log
    write_iops_log write_hist_log log_avg_msec log_max_value log_offset
    per_job_logs log_hist_msec log_hist_coarseness log_unix_epoch
    verify do_verify verify_interval verify_offset verify_pattern verify_fatal
    verify_dump verify_backlog verify_backlog_batch verify_only verify_async
    verify_state_save
    cpus_allowed cpumask cpus_allowed_policy nice prio prioclass mem
    iomem_align lockmem hugepage-size exec_prerun exec_postrun
    latency_target latency_window latency_percentile latency_run max_latency
    serialize_overlap fill_device
    cmdprio_percentage cmdprio_class cmdprio cmdprio_bssplit log_prio
    zonemode zonesize zonerange zoneskip
    dedupe_mode dedupe_global dedupe_working_set_percentage""".split()
    # logs (helper logs, issue 11)
    + """log_entries log_compression log_compression_cpus log_store_compressed log_alternate_epoch log_alternate_epoch_clock_id""".split()
    # steady state (helper steady, issue 11)
    + "steadystate steadystate_duration steadystate_ramp_time".split()
    # engines (issue 11 section 3): engine options
    + """hipri_percentage uncached nowait force_async
    cpuload cpumode cpuchunks exit_on_io_done
    program arguments grace_time std_redirect
    hostname port protocol nodelay listen pingpong interface ttl window_size
    mss thp""".split()
    # verify (issue 11): trims of written blocks, experimental verify, state load
    + "trim_percentage trim_verify_zero trim_backlog trim_backlog_batch experimental_verify verify_state_load verify_async_cpus".split()
    # iolog: I/O logs and replay
    + """write_iolog read_iolog read_iolog_chunked replay_no_stall replay_redirect replay_scale replay_align replay_time_scale replay_skip merge_blktrace_file merge_blktrace_scalars merge_blktrace_iters""".split()
    # stats (helper stats, issue 11): statistics, placement, identity, profiles
    + """block_error_percentiles gtod_cpu error_dump numa_cpu_nodes numa_mem_policy cgroup cgroup_weight cgroup_nodelete uid gid profile""".split()
    # flow: flows, offloaded submission, rate_ignore_thinktime
    + "flow_id flow flow_sleep io_submit_mode rate_ignore_thinktime".split()
    # zoned block devices (helper zones, issue 11)
    + "zonecapacity read_beyond_wp max_open_zones job_max_open_zones ignore_zone_limits zone_reset_threshold zone_reset_frequency".split()
    # engines, second batch (helper engines2, issue 11 section 3): nbd, http, e4defrag
    + "uri".split()
    + """https http_host http_user http_pass http_s3_key http_s3_keyid
    http_swift_auth_token http_s3_region http_s3_sse_customer_key
    http_s3_sse_customer_algorithm http_s3_storage_class http_mode
    http_verbose""".split()
    + "donorname inplace".split()
    # files: file options (issue 11)
    + """openfiles sync_file_range write_hint atomic file_append allow_file_create
    write_barrier unique_filename offset_align create_only create_serialize
    lockfile ioscheduler opendir""".split()
)

# Options of engines that fio 3.33 has but Debian's build lacks, so that the
# executable cannot tell them: http (it needs libcurl). Each is copied from
# fio-3.33's engines/http.c `options[]` (name, `.type`, `.help`, `.def`,
# `.posval` values and helps; none has a range, a parent or an alias;
# category from options.tsv), in that table's order. `fio_type`/`kind` are
# what the generated entries of the same fio types get: FIO_OPT_STR with
# posvals is `Str`/`Choice`, FIO_OPT_STR_STORE `StrStore`/`Text`,
# FIO_OPT_INT `Int`/`Int`. They go after every engine of the build.
def _http(name, fio_type, kind, help_, default=None, posvals=()):
    return dict(engine="http", name=name, fio_type=fio_type, kind=kind, help=help_,
                default=default, posvals=list(posvals))


SUPPLEMENT = [
    _http("https", "Str", "Choice", "Enable https", "off",
          [("off", "No HTTPS"), ("on", "Enable HTTPS"),
           ("insecure", "Enable HTTPS, disable peer verification")]),
    _http("http_host", "StrStore", "Text", "Hostname (S3 bucket)", "localhost"),
    _http("http_user", "StrStore", "Text", "HTTP user name"),
    _http("http_pass", "StrStore", "Text", "HTTP password"),
    _http("http_s3_key", "StrStore", "Text", "S3 secret key", ""),
    _http("http_s3_keyid", "StrStore", "Text", "S3 key id", ""),
    _http("http_swift_auth_token", "StrStore", "Text", "OpenStack Swift auth token", ""),
    _http("http_s3_region", "StrStore", "Text", "S3 region", "us-east-1"),
    _http("http_s3_sse_customer_key", "StrStore", "Text", "S3 SSE Customer Key", ""),
    _http("http_s3_sse_customer_algorithm", "StrStore", "Text", "S3 SSE Customer Algorithm", "AES256"),
    _http("http_s3_storage_class", "StrStore", "Text", "S3 Storage Class", "STANDARD"),
    _http("http_mode", "Str", "Choice", "Whether to use WebDAV, Swift, or S3", "webdav",
          [("webdav", "WebDAV server"), ("s3", "S3 storage backend"),
           ("swift", "OpenStack Swift storage")]),
    _http("http_verbose", "Int", "Int", "increase http engine verbosity", "0"),
]

# Kinds that the HOWTO type column does not tell.
# Engine options the reference notes call "str" that fio reads as a
# choice of its posvals (io_uring's write_mode: "failed parsing" otherwise).
ENGINE_KIND_OVERRIDES = {"write_mode": "Choice"}

KIND_OVERRIDES = {
    # placement IDs, checked as fio's str_fdp_pli_cb checks them
    "plids": "PlacementIds",
    # a choice followed by ":modifier" (rw=randread:8, mem=mmaphuge:/f,
    # file_service_type=random:4, steadystate=iops_slope:0.1%)
    "rw": "ChoiceWithModifier",
    # the others keep their ":postfix" as text for the option to read
    "mem": "Choice",
    "file_service_type": "Choice",
    "steadystate": "Choice",
    "random_distribution": "RandomDistribution",
    "bssplit": "BsSplit",
    "cpus_allowed": "CpuList",
    "verify_async_cpus": "CpuList",
    "log_compression_cpus": "CpuList",
    # fio accepts `filesize=lo-hi` (a random size per file) as well as a size
    "filesize": "SizeOrRange",
    # ioengine has posvals but fio stores any string (io_uring_cmd, filestat,
    # external:/path are not among them)
    "ioengine": "EngineName",
    # `startdelay=1-3`: a random delay between the two times
    "startdelay": "TimeOrRange",
}
# `size|zones` options that take a percentage (N%) in fio 3.33.
PERCENT = {"size", "io_size", "offset", "offset_increment"}


def kind_of(name, tsv_type, raw):
    base, _, _ = tsv_type.partition("[")
    split = "One"
    if tsv_type.endswith("[r,w,t]"):
        split = "ReadWriteTrim"
    elif tsv_type.endswith("[r,w]"):
        split = "ReadWrite"
    time_unit = "Seconds"
    if name in KIND_OVERRIDES and not raw.get("engine"):
        kind = KIND_OVERRIDES[name]
    elif name in ENGINE_KIND_OVERRIDES and raw.get("engine"):
        kind = ENGINE_KIND_OVERRIDES[name]
    elif raw["type"] in DEPRECATED:
        kind = "Ignored"
    elif raw["is_time"] or base.startswith("time"):
        kind = "Time"
        time_unit = "Seconds" if raw["is_seconds"] else "Micros"
    elif base == "size|zones":
        kind = "SizeOrPercent" if name in PERCENT else "Size"
    else:
        kind = {
            "int": "Int",
            "size": "Size",
            "bool": "Bool",
            "flag": "Flag",
            "choice": "Choice",
            "choice_list": "Choice",
            "choice:float[%]": "Choice",
            "str": "Text",
            "range": "SizeRange",
            "float_list": "FloatList",
            "deprecated": "Ignored",
        }[base]
    if base.startswith("time") and not raw["is_time"] and raw["type"] != "StrValTime":
        raise SystemExit(f"{name}: HOWTO says time but fio has no time flag")
    return kind, time_unit, split


def read_tsv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    header, rows = rows[0], rows[1:]
    assert header[:8] == ["name", "aliases", "type", "fio_type", "default", "category", "engine", "availability"]
    return [r for r in rows if "NOT in 3.33" not in r[7]]


# ---------------------------------------------------------------------------
# Rust output


def lit(s):
    if s is None:
        return "None"
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20:
            out.append("\\u{%x}" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def some(s):
    return "None" if s is None else f"Some({lit(s)})"


def some_int(v):
    return "None" if v is None else f"Some({v})"


def emit(entry):
    items = [f"pv({lit(v)}, {lit(h or '')})" for v, h in entry["posvals"]]
    posvals = "&[" + ", ".join(items) + "]"
    if len("        posvals: ,") + len(posvals) > 100:
        posvals = "&[\n" + "".join(f"            {i},\n" for i in items) + "        ]"
    aliases = f"{lit(entry['alias'])}" if entry["alias"] else ""
    engines = ", ".join(lit(e) for e in entry["engines"])
    return f"""    OptionDef {{
        name: {lit(entry['name'])},
        aliases: &[{aliases}],
        fio_type: FioType::{entry['fio_type']},
        kind: ValueKind::{entry['kind']},
        time_unit: TimeUnit::{entry['time_unit']},
        split: Split::{entry['split']},
        default: {some(entry['default'])},
        min: {some_int(entry['min'])},
        max: {some_int(entry['max'])},
        posvals: {posvals},
        prio: {entry['prio']},
        parent: {some(entry['parent'])},
        category: {lit(entry['category'])},
        help: {lit(entry['help'])},
        engines: &[{engines}],
        support: Support::{entry['support']},
    }},
"""


HEADER = """\
//! The static option table: every option fio 3.33 accepts, core options
//! first (in fio's own table order), then ioengine options grouped by engine
//! in `fio --enghelp` order.
//!
//! GENERATED from fio 3.33 (Debian build, /usr/bin/fio) by
//! `scripts/gen-options.py`; do not edit by hand. To regenerate:
//!
//! ```text
//! python3 scripts/gen-options.py          # rewrites this file, runs rustfmt
//! python3 scripts/gen-options.py --check  # exit 1 if it is out of date
//! ```
//!
//! Help, alias, type, default, range and valid values are fio's
//! `--cmdhelp=NAME` / `--enghelp=ENGINE,NAME` output, byte for byte; table
//! order, `parent`, `prio` and the deprecated options come from fio's option
//! arrays in the executable; kind, split and category from the reference
//! notes (options.tsv). Conventions:
//!
//! * `help: ""` is fio's NULL help (deprecated options); a posval `help: ""`
//!   is a NULL posval help, printed without the separating space.
//! * `min`/`max` are what `--cmdhelp` prints on its `range:` line; `max=-1`
//!   (fio's UINT_MAX) is `None`. Core `Int`/`Ull` options always print a range
//!   (fio's options_init sets UINT_MAX), engine options print theirs raw.
//! * `parent` is fio's string verbatim: `bs_is_seq_rand` names `blocksize` and
//!   `iomem_align` names `iomem` (aliases), so fio never lists them in
//!   `--cmdhelp=all`.
//! * Engine options that several engines share through one fio table
//!   (net/netsplice, io_uring/io_uring_cmd, gfapi/gfapi_async) are one entry;
//!   same-named options of different tables (`cmdprio` of libaio and io_uring,
//!   `hipri`, `nowait`, `hostname`, `port`, ...) are separate entries.
"""


TESTS = """
#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn core() -> impl Iterator<Item = &'static OptionDef> {
        OPTIONS.iter().filter(|o| !o.is_engine_option())
    }

    #[test]
    fn core_names_and_aliases_are_unique() {
        let mut seen = HashSet::new();
        for o in core() {
            for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                assert!(seen.insert(n), "duplicate core option name {n}");
            }
        }
    }

    #[test]
    fn engine_option_names_are_unique_per_engine_and_apart_from_core() {
        let core: HashSet<_> = core().flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied())).collect();
        let mut seen = HashSet::new();
        for o in OPTIONS.iter().filter(|o| o.is_engine_option()) {
            for e in o.engines {
                for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                    assert!(seen.insert((*e, n)), "duplicate option {n} of engine {e}");
                    assert!(!core.contains(n), "engine option {n} shadowed by a core option");
                }
            }
        }
    }

    #[test]
    fn posvals_are_non_empty_and_unique() {
        for o in OPTIONS {
            let mut seen = HashSet::new();
            for pv in o.posvals {
                assert!(!pv.value.is_empty(), "empty posval in {}", o.name);
                assert!(seen.insert(pv.value), "duplicate posval {} in {}", pv.value, o.name);
            }
        }
    }

    #[test]
    fn every_parent_exists_among_the_same_options() {
        for o in OPTIONS {
            if let Some(p) = o.parent {
                // fio's parent strings are names, except two that are aliases
                // (bs_is_seq_rand -> blocksize, iomem_align -> iomem).
                let found = OPTIONS.iter().any(|q| q.answers_to(p) && q.engines == o.engines);
                assert!(found, "{}: parent {p} does not exist", o.name);
            }
        }
    }

    #[test]
    fn fields_are_consistent() {
        for o in OPTIONS {
            let choice = matches!(o.kind, ValueKind::Choice | ValueKind::ChoiceWithModifier);
            assert!(!choice || !o.posvals.is_empty(), "{}: choice without posvals", o.name);
            let deprecated = matches!(o.fio_type, FioType::Deprecated | FioType::SoftDeprecated);
            assert_eq!(deprecated, o.kind == ValueKind::Ignored, "{}", o.name);
            assert!(!deprecated || o.support == Support::Ignored, "{}", o.name);
            assert!(o.is_engine_option() || !o.category.is_empty(), "{}", o.name);
            if o.kind != ValueKind::Time {
                assert_eq!(o.time_unit, TimeUnit::Seconds, "{}", o.name);
            }
            assert!(o.prio == 0 || !o.is_engine_option(), "{}", o.name);
        }
    }

    #[test]
    fn priorities_match_fio() {
        let prio: Vec<_> = OPTIONS.iter().filter(|o| o.prio != 0).map(|o| (o.name, o.prio)).collect();
        assert_eq!(
            prio,
            [
                ("filename", -1),
                ("filename_format", -1),
                ("lockfile", 1),
                ("cpus_allowed_policy", 1),
                ("kb_base", 1),
                ("unit_base", 1),
            ]
        );
    }
}
"""


def extract(fio, tsv, extra_rows=(), supported=SUPPORTED, strict=True):
    """Every option of the fio at `fio`, as table entries, in table order.

    `tsv` holds the reference notes' rows (kind, split, category);
    `extra_rows` rows of the same shape for options the notes lack (those a
    later fio added). Returns (entries, skipped)."""
    elf = Elf(fio)
    tsv = list(tsv) + list(extra_rows)
    core_rows = {r[0]: r for r in tsv if r[6] == "-"}
    entries = []
    skipped = []

    for raw in core_table(elf):
        row = core_rows.pop(raw["name"])
        if raw["type"] in DEPRECATED:
            info = dict(help=raw["help"] or "", alias=raw["alias"], default=raw["default"], min=None, max=None, posvals=[])
        else:
            info = from_help(fio, "--cmdhelp=" + raw["name"], raw, engine=False)
        kind, time_unit, split = kind_of(raw["name"], row[2], raw)
        support = "Yes" if raw["name"] in supported else "NotYet"
        if raw["type"] in DEPRECATED:
            support = "Ignored"
        entries.append(
            dict(
                name=raw["name"],
                fio_type=raw["type"],
                kind=kind,
                time_unit=time_unit,
                split=split,
                prio=raw["prio"],
                parent=raw["parent"],
                category=row[5],
                engines=[],
                support=support,
                **info,
            )
        )
    for name, row in core_rows.items():
        skipped.append(f"{name}: {row[7]}")

    # ioengines, in --enghelp order
    out, _, _ = run_fio(fio, "--enghelp")
    lines = out.split("\n")
    assert lines[0] == "Available IO engines:"
    engines = [line.strip() for line in lines[1:] if line.strip()]
    by_table = {}
    order = []
    for engine in engines:
        out, _, rc = run_fio(fio, "--enghelp=" + engine)
        if rc != 0:
            assert out == f"IO engine {engine} has no options\n", out
            continue
        listed = parse_list(out)
        first_help = out.split("\n")[0].partition(": ")[2]
        addr, table = engine_table(elf, listed[0][0], first_help, [n for n, _ in listed])
        for name, parent in listed:
            raw = next(o for o in table if o["name"] == name)
            check(f"--enghelp={engine} parent of {name}", parent, raw["parent"])
        if addr in by_table:
            by_table[addr]["engines"].append(engine)
        else:
            by_table[addr] = dict(engines=[engine], table=table)
            order.append(addr)

    eng_rows = {}
    for r in tsv:
        if r[6] != "-":
            for e in r[6].split(","):
                eng_rows[(e, r[0])] = r
    used = set()
    for addr in order:
        t = by_table[addr]
        first = t["engines"][0]
        for raw in t["table"]:
            raw = dict(raw, engine=True)
            info = from_help(fio, f"--enghelp={first},{raw['name']}", raw, engine=True)
            row = eng_rows[(first, raw["name"])]
            for e in t["engines"]:
                used.add((e, raw["name"]))
            kind, time_unit, split = kind_of(raw["name"], row[2], raw)
            entries.append(
                dict(
                    name=raw["name"],
                    fio_type=raw["type"],
                    kind=kind,
                    time_unit=time_unit,
                    split=split,
                    prio=raw["prio"],
                    parent=raw["parent"],
                    category=row[5],
                    engines=t["engines"],
                    support=(
                        "Ignored"
                        if raw["type"] in DEPRECATED
                        else ("Yes" if raw["name"] in supported else "NotYet")
                    ),
                    **info,
                )
            )
    for sup in SUPPLEMENT:
        if sup["engine"] in engines:
            continue  # this build has the engine: its options came from it
        row = eng_rows[(sup["engine"], sup["name"])]
        used.add((sup["engine"], sup["name"]))
        entries.append(
            dict(
                name=sup["name"],
                fio_type=sup["fio_type"],
                kind=sup["kind"],
                time_unit="Seconds",
                split="One",
                prio=0,
                parent=None,
                category=row[5],
                engines=[sup["engine"]],
                support="Yes" if sup["name"] in supported else "NotYet",
                help=sup["help"],
                alias=None,
                default=sup["default"],
                min=None,
                max=None,
                posvals=sup.get("posvals", []),
            )
        )
    seen = set()
    for (e, name), r in eng_rows.items():
        if (e, name) not in used and (r[6], name) not in seen:
            seen.add((r[6], name))
            why = r[7] or "not in this build"
            if r[6].startswith("profile="):
                why = f"fio --cmdhelp={name} does not know it (only with --{r[6]})"
            skipped.append(f"{name} [{r[6]}]: {why}")

    missing = supported - {e["name"] for e in entries}
    if missing and strict:
        raise SystemExit(f"supported options not in fio: {sorted(missing)}")
    return entries, skipped


def rustfmt(text):
    if shutil.which("rustfmt"):
        p = subprocess.run(
            ["rustfmt", "--edition", "2021", "--emit", "stdout"],
            input=text,
            capture_output=True,
            text=True,
        )
        if p.returncode != 0:
            raise SystemExit("rustfmt failed:\n" + p.stderr)
        return p.stdout
    print("note: rustfmt not found; output left unformatted", file=sys.stderr)
    return text


def generate(args):
    entries, skipped = extract(args.fio, read_tsv(args.tsv))
    text = HEADER
    text += "\nuse super::def::*;\n\n"
    text += "/// A posval; `help` empty for fio's NULL help.\n"
    text += "const fn pv(value: &'static str, help: &'static str) -> PosVal {\n"
    text += "    PosVal { value, help }\n}\n\n"
    text += "/// Every option fio 3.33 accepts (core, then ioengine options).\n"
    text += "pub static OPTIONS: &[OptionDef] = &[\n"
    text += "".join(emit(e) for e in entries)
    text += "];\n"
    text += TESTS
    return rustfmt(text), entries, skipped


# ---------------------------------------------------------------------------
# Later releases: src/options/later.rs

FIO_GIT = "/work/.mirror/axboe+fio/repo"
LATER_TAGS = [f"3.{n}" for n in range(34, 43)]

# Options of fio 3.33 whose definition a later release changed, with the
# release and a string whose first appearance in the file marks the change
# (checked against fio's git history when the file is generated).
REVISED = {
    ("randrepeat", ""): ("3.35", "options.c", '.alias\t= "allrandrepeat"'),
    ("fadvise_hint", ""): ("3.35", "options.c", "FADV_NOREUSE"),
    ("verify", ""): ("3.40", "options.c", '"pattern_hdr"'),
    # the smallest interval and offset grow with the verify header
    ("verify_interval", ""): ("3.41", "verify.h", "uint64_t numberio;"),
    ("verify_offset", ""): ("3.41", "verify.h", "uint64_t numberio;"),
    ("log_hist_coarseness", ""): ("3.42", "options.c", ".maxval = 6,"),
    ("log_alternate_epoch", ""): ("3.36", "options.c", '.alias = "log_unix_epoch"'),
    ("log_alternate_epoch_clock_id", ""): ("3.36", "options.c", "If log_alternate_epoch is false"),
    ("steadystate", ""): ("3.42", "options.c", '"lat_slope"'),
    ("uncached", "io_uring"): ("3.40", "engines/io_uring.c", "RWF_DONTCACHE"),
    ("uncached", "pvsync2"): ("3.40", "engines/sync.c", "RWF_DONTCACHE"),
    ("protocol", "net"): ("3.37", "engines/net.c", '"vsock"'),
}
# States of an option between fio 3.33's and the later fio's, which a diff
# of the two tables cannot see: the release, and a string whose first
# appearance in the file marks it. `uncached` was soft-deprecated (accepted,
# ignored, "Option uncached is deprecated") from 3.38 until 3.40 gave it
# RWF_DONTCACHE.
SOFT_DEPRECATED = {
    ("uncached", "io_uring"): ("3.38", "engines/io_uring.c",
                               '"uncached",\n\t\t.lname\t= "Uncached",\n\t\t.type\t= FIO_OPT_SOFT_DEPRECATED,'),
    ("uncached", "pvsync2"): ("3.38", "engines/sync.c",
                              '"uncached",\n\t\t.lname\t= "Uncached",\n\t\t.type\t= FIO_OPT_SOFT_DEPRECATED,'),
}

# Options a later release removed (an alias now, or gone): the release and
# the option that took its name, if any.
REMOVED = {
    ("allrandrepeat", ""): "3.35",
    ("log_unix_epoch", ""): "3.36",
    ("log_max_value", ""): "3.37",
}


def first_tag(path, witness):
    """The first release after 3.33 whose `path` (a file, or a directory of
    files) holds `witness` (an exact string, may span lines)."""
    for tag in LATER_TAGS:
        files = [path]
        if path.endswith("/"):
            out = subprocess.run(
                ["git", f"--git-dir={FIO_GIT}", "ls-tree", "--name-only", f"fio-{tag}", path],
                capture_output=True, text=True, check=True,
            ).stdout
            files = out.split()
        for f in files:
            text = subprocess.run(
                ["git", f"--git-dir={FIO_GIT}", "show", f"fio-{tag}:{f}"],
                capture_output=True, text=True,
            ).stdout
            if witness in text:
                return tag
    raise SystemExit(f"{witness!r} is in no release's {path}")


# Engines whose option table a later release reordered: the release (3.36
# moved the cmdprio options into one shared list, after each engine's own).
REORDERED = {"libaio": "3.36", "io_uring": "3.36"}


def moved_options(old_by, new):
    """The options of `new` that left their place in fio 3.33's order: all
    but the longest run that kept its relative order, per engine group."""
    old_index = {k: i for i, k in enumerate(old_by)}
    groups = {}
    for o in new:
        if key_of(o) in old_index:
            groups.setdefault(",".join(o["engines"]), []).append(key_of(o))
    moved = {}
    for engines, keys in groups.items():
        idx = [old_index[k] for k in keys]
        # longest increasing subsequence, O(n^2): a table has a few dozen
        best = [[i] for i in range(len(idx))]
        for i in range(len(idx)):
            for j in range(i):
                if idx[j] < idx[i] and len(best[j]) + 1 > len(best[i]):
                    best[i] = best[j] + [i]
        keep = set(max(best, key=len)) if best else set()
        for i, k in enumerate(keys):
            if i not in keep:
                engine = engines.split(",")[0]
                if engine not in REORDERED:
                    raise SystemExit(f"{k}: moved in fio's table; add {engine} to REORDERED")
                moved[k] = REORDERED[engine]
    return moved


def release_of(version):
    return "V" + version.replace(".", "_")


def key_of(e):
    return (e["name"], ",".join(e["engines"]))


def later(args):
    """Diff fio 3.33's options against a later fio's, as later.rs."""
    tsv = read_tsv(args.tsv)
    with open(args.tsv, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    added_rows = [r for r in rows if "NOT in 3.33" in r[7] and "post-" not in r[7]]
    added_rows += LATER_ROWS
    old, _ = extract(args.fio, tsv)
    new, _ = extract(args.later, tsv, added_rows, supported=SUPPORTED | SUPPORTED_LATER, strict=False)
    old_engines = {e for o in old for e in o["engines"]}
    new_engines = {e for o in new for e in o["engines"]}
    both = old_engines & new_engines
    # An engine that only one of the two builds has (gfapi, rbd, nbd in
    # Debian's; none the other way but http, whose 3.33 options are the
    # SUPPLEMENT) keeps fio 3.33's definitions.
    kept = []
    for o in new:
        if o["engines"]:
            o = dict(o, engines=[e for e in o["engines"] if e in both])
            if not o["engines"]:
                continue
        kept.append(o)
    new = kept
    old_by = {key_of(o): o for o in old if not o["engines"] or set(o["engines"]) & both}
    new_by = {key_of(o): o for o in new}
    with open(os.path.join(os.path.dirname(args.out), "..", "release", "changes.rs")) as f:
        release_rs = f.read()
    moved = moved_options(old_by, new)
    changes = []  # (since, kind, entry, after)
    fields = ("help", "alias", "default", "min", "max", "posvals", "fio_type", "parent", "kind")
    for i, o in enumerate(new):
        k = key_of(o)
        if k in moved:
            changes.append((moved[k], "Remove", old_by[k], None))
        if k not in old_by or k in moved:
            engine = o["engines"][0] if o["engines"] else ""
            where = f"engines/" if engine else "options.c"
            # an engine option's release as the notes give it (engines/
            # holds same-named options of other engines), else the first
            # release whose source names it
            noted = next(
                (re.match(r"fio-(3\.\d+)\+", r[7]) for r in added_rows
                 if r[0] == o["name"] and engine and engine in r[6].split(",")),
                None,
            )
            since = (moved[k] if k in moved
                     else noted.group(1) if noted
                     else first_tag(where, f'"{o["name"]}"'))
            if not engine and k not in moved:
                m = rf'option\(\s*"{o["name"]}",\s*{release_of(since)},'
                if not re.search(m, release_rs) and o["name"] not in ("log_window_value",):
                    raise SystemExit(f"{o['name']}: src/release/changes.rs does not list it as added in {since}")
            after = []
            for p in reversed(new[:i]):
                if p["engines"] == o["engines"] or (not p["engines"] and not o["engines"]):
                    after.append(p["name"])
                    if key_of(p) in old_by and key_of(p) not in moved:
                        break
            changes.append((since, "Add", o, after))
        else:
            was = old_by[k]
            diff = [f for f in fields if was[f] != o[f]]
            if diff and o["name"] == "ioengine":
                # its valid values are the engines of each build: the
                # engines of each release are the registry's to say
                continue
            if diff:
                rk = (o["name"], o["engines"][0] if o["engines"] else "")
                if rk not in REVISED:
                    raise SystemExit(f"{k}: fio {args.later_version} changed {diff}; add it to REVISED")
                if rk in SOFT_DEPRECATED:
                    interim, path, witness = SOFT_DEPRECATED[rk]
                    found = first_tag(path, witness)
                    if found != interim:
                        raise SystemExit(f"{k}: SOFT_DEPRECATED says {interim}, fio's history says {found}")
                    soft = dict(was, fio_type="SoftDeprecated", kind="Ignored", help="",
                                default=None, support="Ignored")
                    changes.append((interim, "Replace", soft, None))
                since, path, witness = REVISED[rk]
                found = first_tag(path, witness)
                if found != since:
                    raise SystemExit(f"{k}: REVISED says {since}, fio's history says {found}")
                changes.append((since, "Replace", o, None))
    for k, o in old_by.items():
        if k not in new_by:
            rk = (o["name"], o["engines"][0] if o["engines"] else "")
            if rk not in REMOVED:
                raise SystemExit(f"{k}: not in fio {args.later_version}; add it to REMOVED")
            changes.append((REMOVED[rk], "Remove", o, None))
    return changes


def emit_later(changes, version):
    text = LATER_HEADER.replace("VERSION", version)
    text += "\nuse super::def::*;\n\nuse crate::release::Release::*;\n\n"
    text += "const fn pv(value: &'static str, help: &'static str) -> PosVal {\n"
    text += "    PosVal { value, help }\n}\n\n"
    text += f"/// What fio 3.34 to {version} changed in fio 3.33's table, in {version}'s table order.\n"
    text += "pub(crate) static LATER: &[Later] = &[\n"
    for since, kind, o, after in changes:
        rel = release_of(since)
        body = emit(o).strip().rstrip(",")
        if kind == "Add":
            names = ", ".join(lit(a) for a in after)
            text += f"    Later {{ since: {rel}, revision: Revision::Add {{ after: &[{names}], def: {body} }} }},\n"
        elif kind == "Replace":
            text += f"    Later {{ since: {rel}, revision: Revision::Replace({body}) }},\n"
        else:
            engines = ", ".join(lit(e) for e in o["engines"])
            text += f"    Later {{ since: {rel}, revision: Revision::Remove {{ name: {lit(o['name'])}, engines: &[{engines}] }} }},\n"
    text += "];\n"
    return rustfmt(text)


LATER_HEADER = """\
//! What fio 3.34 to VERSION changed in the option table: the options they
//! added, the definitions they changed (help, aliases, valid values, ranges)
//! and the ones they removed, each with the release it came with. Applied to
//! fio 3.33's table ([`super::table::OPTIONS`]) by [`super::later`] to give
//! each release's table.
//!
//! GENERATED from fio 3.33 (Debian build) and a built fio VERSION by
//! `scripts/gen-options.py --later PATH/TO/fio-VERSION`; do not edit by hand.
//! The release of each change is found in fio's git history (a clone at
//! FIO_GIT in the script).
"""

# Rows of the reference notes' shape for later options the notes lack.
LATER_ROWS = [
    ["cmdprio_hint", "", "int[r,w]", "INT", "", "I/O engine specific parameters", e, "fio-3.36+ only"]
    for e in ("io_uring,io_uring_cmd", "libaio")
]

# Options of the later releases that rfio runs (the rest are refused when a
# job sets them: "came with fio X, and rfio does not run it yet").
# One line per area, so that work in parallel merges cleanly.
SUPPORTED_LATER = set()
# Logs (rfio issue 21): the windowed line's values, the issue time column.
SUPPORTED_LATER |= {"log_window_value", "log_issue_time"}
# Steady state: the check interval (3.35).
SUPPORTED_LATER |= {"steadystate_check_interval"}
# Verify (3.38, 3.40).
SUPPORTED_LATER |= {"verify_write_sequence", "verify_header_seed", "verify_pattern_interval"}
# Think cycles between I/Os (3.37).
SUPPORTED_LATER |= {"thinkcycles"}
# The job thread's name (3.42).
SUPPORTED_LATER |= {"comm"}
# Ranges per trim (3.37): 1 runs; more needs an engine with multi-range
# trims (io_uring_cmd on NVMe), which rfio lacks, and is refused as fio does.
SUPPORTED_LATER |= {"num_range"}
# Engines (rfio issue 21): libaio's vectored reads and writes (3.39).
SUPPORTED_LATER |= {"libaio_vectored"}
# The end of the job and the ramp (3.42): syncfs(2) of the files' file
# systems; a ramp by bytes, its end checked once a second.
SUPPORTED_LATER |= {"end_syncfs", "ramp_size"}
# The type all of a job's files are taken to be, unchecked (3.41).
SUPPORTED_LATER |= {"filetype"}
# SSD preconditioning random writes (3.41; spr_cs 3.42), rfio issue 21.
SUPPORTED_LATER |= {"sprandom", "spr_num_regions", "spr_op", "spr_cs"}
# Zoned block devices (rfio issue 21): a zone's remainder written (3.42),
# write errors recovered with care for the write pointer (3.40).
SUPPORTED_LATER |= {"write_zone_remainder", "recover_zbd_write_error"}
# io_uring_cmd's NVMe command fields, which io_uring parses and ignores
# (io_uring_cmd itself is refused: NVMe generic character devices); from
# 3.41 md_per_io_size on io_uring is refused (a block device with
# protection information), rfio issue 21.
SUPPORTED_LATER |= {"readfua", "writefua", "write_mode", "verify_mode", "deac",
                    "md_per_io_size", "pi_act", "pi_chk", "apptag", "apptag_mask"}
# Data placement (3.34 fdp, 3.38 the rest): the placement IDs go only into
# io_uring_cmd's and xnvme's NVMe commands. On the engines rfio runs,
# dataplacement=streams runs as without it; FDP is refused before the job
# starts (an NVMe device with FDP, through io_uring_cmd or xnvme).
SUPPORTED_LATER |= {"fdp", "dataplacement", "plids", "plid_select", "dp_scheme"}
# The job's I/O priority hint (3.36), rfio issue 21; cmdprio_hint and
# job_start_clock_id follow.
SUPPORTED_LATER |= {"priohint"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fio", default="/usr/bin/fio")
    ap.add_argument("--tsv", default="/work/shared/reference/options.tsv")
    ap.add_argument("--out", default=os.path.join(here, "..", "src", "options", "table.rs"))
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ap.add_argument("--later", metavar="FIO", help="a later fio: write src/options/later_table.rs")
    args = ap.parse_args()
    version = subprocess.run([args.fio, "--version"], capture_output=True, text=True).stdout.strip()
    if version != "fio-3.33":
        raise SystemExit(f"{args.fio} is {version!r}, need fio-3.33")
    if args.later:
        v = subprocess.run([args.later, "--version"], capture_output=True, text=True).stdout.strip()
        args.later_version = v.removeprefix("fio-")
        out = os.path.join(os.path.dirname(args.out), "later_table.rs")
        text = emit_later(later(args), args.later_version)
        if args.check:
            with open(out) as f:
                if f.read() != text:
                    print(f"{out} is out of date", file=sys.stderr)
                    sys.exit(1)
            return
        with open(out, "w") as f:
            f.write(text)
        return
    text, entries, skipped = generate(args)
    core = sum(1 for e in entries if not e["engines"])
    print(f"{len(entries)} options: {core} core, {len(entries) - core} engine", file=sys.stderr)
    for s in skipped:
        print(f"skipped: {s}", file=sys.stderr)
    if args.check:
        with open(args.out) as f:
            if f.read() != text:
                print(f"{args.out} is out of date", file=sys.stderr)
                sys.exit(1)
        return
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
