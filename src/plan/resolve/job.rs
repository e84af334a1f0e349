//! A job's options resolved at once, in the order the parts need them.

use super::buffers::{self, BufferOptions};
use super::iolog::{self, IologOptions};
use super::read::Opts;
use super::steadystate::{self, SteadyStateOptions};
use super::{bs, exec, files, io, offsets, placement, random, rate, think, verify, zones};
use super::{flow, submit};
use super::{
    BlockOptions, ExecOptions, FileOptions, IoOptions, OffsetOptions, PlacementOptions,
    RateOptions, Refusal, SeedOptions, ThinkOptions, VerifyOptions, ZoneMode,
};
use crate::options::jobopts::JobOptions;
use crate::options::value::parse_signed_size;
use crate::options::{lookup, Value};
use crate::plan::spec::Pattern;
use crate::release::Change;

/// The parts of a job resolved from its options alone, once per section
/// (its `numjobs` clones share them).
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The release the options were read as.
    pub(crate) release: crate::release::Release,
    pub(crate) pattern: Pattern,
    /// Minimum and maximum block size per direction.
    pub(crate) bs: [(u64, u64); 3],
    pub(crate) io: IoOptions,
    pub(crate) placement: PlacementOptions,
    pub(crate) rate: RateOptions,
    pub(crate) think: ThinkOptions,
    pub(crate) block: BlockOptions,
    pub(crate) buffers: BufferOptions,
    /// The dedupe working set asked for, sized once the job's size and
    /// files are known ([`Resolved::working_set`]).
    working_set: Option<buffers::WorkingSetAsk>,
    pub(crate) zones: Result<Option<ZoneMode>, Refusal>,
    pub(crate) norandommap: bool,
    pub(crate) seeds: SeedOptions,
    pub(crate) offsets: OffsetOptions,
    pub(crate) verify: Option<VerifyOptions>,
    /// `verify_state_load` (whether the job verifies or not).
    pub(crate) verify_state_load: bool,
    pub(crate) exec: ExecOptions,
    /// `None` without `ss_dur`.
    pub(crate) steadystate: Option<SteadyStateOptions>,
    /// I/O logs written and replayed.
    pub(crate) iolog: IologOptions,
    /// Identity, time thread, NUMA, cgroup, error dump, block histogram.
    pub(crate) host: super::host::HostOptions,
    pub(crate) flow: Option<flow::FlowOptions>,
    pub(crate) submit: submit::SubmitOptions,
    /// `directory=`, split at `:`.
    pub(crate) directories: Vec<std::path::PathBuf>,
    /// `openfiles`, `lockfile`, `file_append`, ... (`resolve::files`).
    pub(crate) file: FileOptions,
    /// Values rfio refuses, in its words.
    pub(crate) invalid: Vec<String>,
}

/// Resolve the options `o` of a job, `--readonly` or not, as `release`
/// reads them.
pub(crate) fn resolve(
    options: &JobOptions,
    readonly: bool,
    release: crate::release::Release,
) -> Resolved {
    let pattern = pattern(options);
    let o = Opts(options, release);
    let mut invalid = Vec::new();
    let mut io = io::resolve(o, pattern.random, readonly, &mut invalid);
    io.sync_after_writes_only = release.has(Change::SyncAfterWritesOnly);
    let placement = placement::resolve(o, &mut invalid);
    let (buffers, working_set) = buffers::resolve(o, release, &mut invalid);
    let bs = bs::sizes(o);
    let mut offsets = offsets::resolve(o, pattern.random, &mut invalid);
    offsets.mixed_wraps = release.has(Change::MixedIoSizeWraps);
    let zones = zones::resolve(o, &mut invalid);
    invalid.extend(super::dataplacement::parse_errors(o));
    let (sprandom, mut fixup) = super::sprandom::resolve(o, pattern.write && pattern.random);
    fixup.norandommap |= zones::norandommap_fixup(o);
    offsets.sprandom = sprandom;
    let mut seeds = random::resolve(o, release);
    if fixup.lfsr {
        seeds.generator = crate::rand::Generator::Lfsr;
    }
    let verify = verify::resolve(
        o,
        &bs,
        verify::Rw {
            read: pattern.read,
            write: pattern.write,
            trim: pattern.trim,
            random: pattern.random,
            norandommap: o.is("norandommap") || fixup.norandommap,
            overlap_risk: o.is("norandommap")
                || fixup.norandommap
                || o.is("softrandommap")
                || offsets.seq_nr > 1
                || offsets.seq_add != 0,
            zone_resets: o.value("zone_reset_frequency").is_some()
                && matches!(&zones, Ok(Some(ZoneMode::Zbd(z))) if z.reset_frequency > 0.0),
            iodepth: o.int_or_default("iodepth").max(1) as u32,
            release,
        },
        &mut invalid,
    );
    let block = bs::resolve(o);
    let iolog = iolog::resolve(o, &mut invalid);
    let host = super::host::resolve(o, &mut invalid);
    let file = files::resolve(o, &mut invalid);
    Resolved {
        release,
        pattern,
        bs,
        io,
        placement,
        rate: rate::resolve(o, release, &block),
        think: think::resolve(o, release),
        block,
        buffers,
        working_set,
        zones,
        norandommap: o.is("norandommap") || fixup.norandommap,
        seeds,
        offsets,
        verify,
        verify_state_load: verify::state_load(o),
        exec: exec::resolve(o),
        steadystate: steadystate::resolve(o, release, &mut invalid),
        iolog,
        host,
        flow: flow::resolve(o),
        submit: submit::resolve(o),
        directories: match o.text("directory") {
            Some(d) => crate::plan::files::split_colons(d)
                .iter()
                .map(|d| crate::diag::path_of_text(d))
                .collect(),
            None => Vec::new(),
        },
        file,
        invalid,
    }
}

impl Resolved {
    /// The buffer options of a job of `size` bytes over `nfiles` files
    /// whose smallest write is `min_write`.
    pub(crate) fn buffers(
        &self,
        size: Option<u64>,
        nfiles: usize,
        min_write: u64,
    ) -> BufferOptions {
        let mut b = self.buffers.clone();
        if let Some(ask) = &self.working_set {
            b.working_set = ask.working_set(size, nfiles, min_write).map(Some);
        }
        b
    }
}

/// `rw=` with its modifier.
fn pattern(o: &JobOptions) -> Pattern {
    let (choice, modifier) = match o.value("rw") {
        Some(Value::Choice { index, modifier }) => (
            lookup("rw").map_or("read", |def| def.posvals[*index].value),
            // Validated as a size when the option was read.
            modifier
                .as_deref()
                .and_then(|m| parse_signed_size(m.trim(), &o.parse_ctx()).ok()),
        ),
        _ => ("read", None),
    };
    let (random, read, write, trim) = match choice {
        "write" => (false, false, true, false),
        "trim" => (false, false, false, true),
        "randread" => (true, true, false, false),
        "randwrite" => (true, false, true, false),
        "randtrim" => (true, false, false, true),
        "rw" | "readwrite" => (false, true, true, false),
        "randrw" => (true, true, true, false),
        "trimwrite" => (false, false, true, true),
        "randtrimwrite" => (true, false, true, true),
        _ => (false, true, false, false),
    };
    Pattern {
        read,
        write,
        trim,
        random,
        modifier,
    }
}
