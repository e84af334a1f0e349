//! `sprandom` (fio 3.41): SSD preconditioning random writes, with
//! `spr_num_regions`, `spr_op` and (3.42) `spr_cs`, and fio's fix-ups of
//! the job (`init.c` `fixup_options`): sprandom needs random writes from
//! an LFSR without a random map, sets `random_generator=lfsr` and
//! `norandommap=1` when they are not set, and refuses the job when they
//! are set otherwise. The offsets themselves are the workload's
//! (`workload::offsets::sprandom`).

use super::read::Opts;
use super::Refusal;

/// A job's `sprandom` settings (`OffsetOptions::sprandom`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SprandomOptions {
    /// `spr_num_regions` (default 100).
    pub(crate) regions: u32,
    /// `spr_op`: the over-provisioning ratio (default 0.15).
    pub(crate) over_provisioning: f64,
    /// `spr_cs` (3.42, default 0): the device's cache in bytes; above 0,
    /// a region's rewrites wait until the next region is written.
    pub(crate) cache_size: u64,
    /// fio's `log_info` lines of the fix-up (`sprandom sets ...`), each
    /// with its `fio: `.
    pub(crate) notes: Vec<&'static str>,
    /// fio's `log_err` lines when the job cannot run sprandom: fio
    /// refuses it as it adds it.
    pub(crate) refusal: Option<Refusal>,
}

/// What the fix-up changes in the job's other options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Fixup {
    /// `random_generator=lfsr`.
    pub(crate) lfsr: bool,
    /// `norandommap=1`.
    pub(crate) norandommap: bool,
}

/// `sprandom` of `o` (`None` when off), and what it sets of the job,
/// whose pattern has `random_writes` or not (fio's `td_write(td) &&
/// td_random(td)`).
pub(crate) fn resolve(o: Opts<'_>, random_writes: bool) -> (Option<SprandomOptions>, Fixup) {
    let mut fixup = Fixup::default();
    if !o.1.has(crate::release::Change::Option("sprandom")) || !o.is("sprandom") {
        return (None, fixup);
    }
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    if random_writes {
        match o.choice("random_generator") {
            Some("lfsr") => {}
            Some(_) => errors.push("sprandom requires random_generator=lfsr"),
            None => {
                notes.push("fio: sprandom sets random_generator=lfsr");
                fixup.lfsr = true;
            }
        }
        match o.flag("norandommap") {
            Some(true) => {}
            Some(false) => errors.push("sprandom requires norandommap=1"),
            None => {
                notes.push("fio: sprandom sets norandommap=1");
                fixup.norandommap = true;
            }
        }
    } else {
        errors.push("sprandom requires random write, random_generator=lfsr, norandommap=1");
    }
    let refusal = (!errors.is_empty()).then(|| Refusal(errors.join("\nfio: ")));
    let op = o.floats_or_default("spr_op");
    let spec = SprandomOptions {
        regions: o
            .int_or_default("spr_num_regions")
            .clamp(0, i64::from(u32::MAX)) as u32,
        over_provisioning: op.first().copied().unwrap_or_default(),
        // 3.41 has no spr_cs: 0, its behaviour.
        cache_size: o.bytes_or_default("spr_cs"),
        notes,
        refusal,
    };
    (Some(spec), fixup)
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::job_as;
    use crate::rand::Generator;

    fn spr(args: &[&str]) -> crate::plan::spec::JobSpec {
        let mut argv = vec!["--name=x", "--size=1m", "--sprandom=1"];
        argv.extend_from_slice(args);
        job_as("3.42", &argv)
    }

    #[test]
    fn defaults_and_the_fixups() {
        let j = spr(&["--rw=randwrite"]);
        let s = j.offsets.sprandom.clone().unwrap();
        assert_eq!(
            (s.regions, s.over_provisioning, s.cache_size),
            (100, 0.15, 0)
        );
        assert_eq!(
            s.notes,
            [
                "fio: sprandom sets random_generator=lfsr",
                "fio: sprandom sets norandommap=1"
            ]
        );
        assert_eq!(s.refusal, None);
        assert_eq!(j.seeds.generator, Generator::Lfsr);
        assert!(j.norandommap);
        let s = spr(&[
            "--rw=randwrite",
            "--spr_num_regions=7",
            "--spr_op=0.5",
            "--spr_cs=32k",
        ])
        .offsets
        .sprandom
        .unwrap();
        assert_eq!(
            (s.regions, s.over_provisioning, s.cache_size),
            (7, 0.5, 32768)
        );
    }

    #[test]
    fn refusals_in_fios_words() {
        let refusal = |args: &[&str]| {
            spr(args)
                .offsets
                .sprandom
                .and_then(|s| s.refusal)
                .map(|r| r.0)
        };
        assert_eq!(
            refusal(&["--rw=randread"]).as_deref(),
            Some("sprandom requires random write, random_generator=lfsr, norandommap=1")
        );
        assert_eq!(
            refusal(&["--rw=randwrite", "--random_generator=tausworthe"]).as_deref(),
            Some("sprandom requires random_generator=lfsr")
        );
        assert_eq!(
            refusal(&["--rw=randwrite", "--norandommap=0"]).as_deref(),
            Some("sprandom requires norandommap=1")
        );
        assert_eq!(
            refusal(&[
                "--rw=randwrite",
                "--norandommap=1",
                "--random_generator=lfsr"
            ]),
            None
        );
    }

    #[test]
    fn off_unless_set() {
        let j = job_as("3.42", &["--name=x", "--size=1m", "--rw=randwrite"]);
        assert_eq!(j.offsets.sprandom, None);
        assert_eq!(j.seeds.generator, Generator::Tausworthe);
    }
}
