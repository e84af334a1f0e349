//! Where a job's I/O goes: `ba` (`blockalign`), `offset`,
//! `offset_increment`, `offset_align`, `random_distribution`,
//! `percentage_random`, the `:N` of `rw=`, `rw_sequencer` and
//! `file_service_type`, with fio's defaults and checks (`options.c`
//! `str_rw_cb`, `str_fst_cb`, `str_random_distribution_cb`). The offset
//! generators (`workload::offsets`) read only these, `norandommap`
//! (`JobSpec::norandommap`) and the seed table (`JobSpec::seeds`).

use super::read::Opts;
use super::Refusal;
use crate::options::value::parse_signed_size;
use crate::options::Value;
use crate::plan::error::{Error, FileServiceError};

/// Where a job's I/O goes (`JobSpec::offsets`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OffsetOptions {
    /// A sequential `rw=rw` job whose `io_size` is over its size does it
    /// in one pass, each direction starting its file over at the end
    /// ([`Change::MixedIoSizeWraps`], fio 3.38; set by the job's resolver).
    ///
    /// [`Change::MixedIoSizeWraps`]: crate::release::Change::MixedIoSizeWraps
    pub(crate) mixed_wraps: bool,
    /// `ba` per direction (each at least 1), when set: fio then turns the
    /// random map off ("Any use of blockalign= turns off randommap"). A
    /// direction left out aligns to its smallest block size.
    pub(crate) blockalign: Option<[Option<u64>; 3]>,
    /// `offset`: where the I/O region starts.
    pub(crate) offset: Share,
    /// `offset_increment`: what each `numjobs` clone adds to `offset`.
    pub(crate) offset_increment: Share,
    /// `offset_align` (when above 0): what a percentage offset is rounded
    /// up to, instead of the smallest block size.
    pub(crate) offset_align: Option<u64>,
    /// `random_distribution`.
    pub(crate) distribution: Distribution,
    /// `percentage_random` per direction (0 to 100, default 100).
    pub(crate) percentage_random: [u32; 3],
    /// `rw=rand…:N`: a new random offset every N I/Os (fio's
    /// `ddir_seq_nr`; 1 without a modifier).
    pub(crate) seq_nr: u32,
    /// `rw=…:N` after a sequential pattern: N bytes skipped after each
    /// I/O, backwards when negative (fio's `ddir_seq_add`).
    pub(crate) seq_add: i64,
    /// `rw_sequencer=identical`: repeat the offset between random ones.
    pub(crate) identical: bool,
    /// `file_service_type`, or fio's refusal of its value
    /// (`zipf theta must be different than 1.0`): fio refuses it while
    /// parsing, rfio when it sets the job up, in fio's words.
    pub(crate) file_service: Result<FileService, Refusal>,
    /// `sprandom` (3.41), when on (set by the job's resolver).
    pub(crate) sprandom: Option<super::sprandom::SprandomOptions>,
}

/// A size that may be a percentage of the file (`offset`,
/// `offset_increment`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Share {
    Bytes(u64),
    Percent(f64),
}

/// `random_distribution`: how random offsets spread over the file, as the
/// option parser read it (a `center` is where the hot spot goes, in
/// `[0, 1]` of the range; `None`: fio's random offset).
pub(crate) use crate::options::value::Distribution;
#[cfg(test)]
pub(crate) use crate::options::value::Zone;

/// `file_service_type`: how the file of the next I/O is chosen (fio's
/// `__get_next_file`). `nr` is the `:N` of the uniform kinds: I/Os on a
/// file before the next choice (1 by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FileService {
    RoundRobin {
        nr: u32,
    },
    Sequential {
        nr: u32,
    },
    Random {
        nr: u32,
    },
    /// `zipf[:theta[:center]]` (theta 1.1 by default).
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    /// `pareto[:h[:center]]` (h 0.2 by default).
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    /// `normal[:dev[:center]]` (or `gauss`; dev 0 by default).
    Normal {
        dev: f64,
        center: Option<f64>,
    },
}

impl FileService {
    /// fio's `__FIO_FSERVICE_NONUNIFORM`: zipf, pareto, normal (files run
    /// out and start over instead of being done).
    pub(crate) fn nonuniform(&self) -> bool {
        matches!(
            self,
            FileService::Zipf { .. } | FileService::Pareto { .. } | FileService::Normal { .. }
        )
    }
}

/// The offset options of a job whose `rw=` is a random pattern or not;
/// values rfio refuses go to `bad`.
pub(super) fn resolve(o: Opts<'_>, random: bool, bad: &mut Vec<String>) -> OffsetOptions {
    let per_dir = |name: &str| match o.value(name) {
        Some(Value::PerDir(v)) => std::array::from_fn(|d| v.get(d).cloned().flatten()),
        _ => [None, None, None],
    };
    let blockalign = o.set("ba").then(|| {
        per_dir("ba").map(|v| match v {
            Some(Value::Bytes(b)) => Some(b.max(1)),
            _ => None,
        })
    });
    let percentage_random = per_dir("percentage_random").map(|v| match v {
        Some(Value::Int(n)) => n.clamp(0, 100) as u32,
        _ => 100,
    });
    let share = |name: &str| match o.value(name) {
        Some(Value::Percent(p)) => Share::Percent(*p),
        _ => Share::Bytes(o.bytes_or_default(name)),
    };
    let (seq_nr, seq_add) = rw_modifier(o, random).unwrap_or_else(|e| {
        bad.push(e.to_string());
        (1, 0)
    });
    OffsetOptions {
        blockalign,
        offset: share("offset"),
        offset_increment: share("offset_increment"),
        offset_align: o.bytes("offset_align").filter(|&b| b > 0),
        distribution: match o.value("random_distribution") {
            Some(Value::Distribution(d)) => d.clone(),
            _ => Distribution::Random,
        },
        percentage_random,
        seq_nr,
        seq_add,
        identical: o.choice("rw_sequencer") == Some("identical"),
        file_service: file_service(o).map_err(|e| Refusal(e.to_string())),
        mixed_wraps: false,
        sprandom: None,
    }
}

/// `rw=`'s `:N`: (`ddir_seq_nr`, `ddir_seq_add`). The option parser has
/// checked it already.
fn rw_modifier(o: Opts<'_>, random: bool) -> Result<(u32, i64), Error> {
    let Some(m) = o.choice_modifier("rw") else {
        return Ok((1, 0));
    };
    let refused = || Error::RwPostfix {
        modifier: m.to_string(),
    };
    if random {
        // 0 only comes from `--compat=fio` (fio's `atoi` of the text);
        // the strict parser wants at least 1.
        match m.trim().parse::<u32>() {
            Ok(n) => Ok((n, 0)),
            _ => Err(refused()),
        }
    } else {
        parse_signed_size(m.trim(), &o.0.parse_ctx())
            .map(|add| (1, add))
            .map_err(|_| refused())
    }
}

/// `file_service_type=kind[:value[:center]]` (fio's `str_fst_cb` and
/// `split_parse_distr`), with fio's range checks.
fn file_service(o: Opts<'_>) -> Result<FileService, FileServiceError> {
    let modifier = o.choice_modifier("file_service_type");
    let kind = o.choice_or_default("file_service_type");
    // `value[:center]`: the center is fio's random offset unless given.
    let float = |default: f64| -> Result<(f64, Option<f64>), FileServiceError> {
        let Some(m) = modifier else {
            return Ok((default, None));
        };
        let num = |t: &str| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| FileServiceError::NotANumber {
                    kind: kind.to_string(),
                    modifier: m.to_string(),
                })
        };
        let (value, center) = match m.split_once(':') {
            Some((v, c)) => (num(v)?, Some(num(c)?)),
            None => (num(m)?, None),
        };
        if center.is_some_and(|c| c != -1.0 && !(0.0..=1.0).contains(&c)) {
            return Err(FileServiceError::Center);
        }
        Ok((value, center.filter(|&c| c != -1.0)))
    };
    Ok(match kind {
        "random" | "roundrobin" | "sequential" => {
            let nr = match modifier {
                Some(m) => m
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| FileServiceError::NotACount {
                        kind: kind.to_string(),
                        modifier: m.to_string(),
                    })?
                    .max(1),
                None => 1,
            };
            match kind {
                "random" => FileService::Random { nr },
                "sequential" => FileService::Sequential { nr },
                _ => FileService::RoundRobin { nr },
            }
        }
        "zipf" => {
            let (theta, center) = float(1.1)?;
            if theta == 1.0 {
                return Err(FileServiceError::ZipfTheta);
            }
            FileService::Zipf { theta, center }
        }
        "pareto" => {
            let (h, center) = float(0.2)?;
            if h <= 0.0 || h >= 1.0 {
                return Err(FileServiceError::Pareto);
            }
            FileService::Pareto { h, center }
        }
        _ => {
            let (dev, center) = float(0.0)?;
            if !(0.0..100.0).contains(&dev) {
                return Err(FileServiceError::Normal);
            }
            FileService::Normal { dev, center }
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::plan::testing::job;

    use super::*;

    #[test]
    fn defaults() {
        let o = job(&["--name=x", "--size=1m"]).offsets;
        assert_eq!(o.blockalign, None);
        assert_eq!(o.offset, Share::Bytes(0));
        assert_eq!(o.distribution, Distribution::Random);
        assert_eq!(o.percentage_random, [100; 3]);
        assert_eq!((o.seq_nr, o.seq_add), (1, 0));
        assert_eq!(o.file_service, Ok(FileService::RoundRobin { nr: 1 }));
    }

    #[test]
    fn values_as_written() {
        let o = job(&[
            "--name=x",
            "--size=1m",
            "--rw=randread:4",
            "--ba=8k,,4k",
            "--offset=10%",
            "--offset_increment=4k",
            "--percentage_random=20,0",
            "--file_service_type=zipf:1.2",
            "--random_distribution=zoned:60/10:40/90",
        ])
        .offsets;
        assert_eq!(o.blockalign, Some([Some(8192), None, Some(4096)]));
        assert_eq!(o.offset, Share::Percent(10.0));
        assert_eq!(o.offset_increment, Share::Bytes(4096));
        assert_eq!(o.percentage_random, [20, 0, 0]);
        assert_eq!((o.seq_nr, o.seq_add), (4, 0));
        assert_eq!(
            o.file_service,
            Ok(FileService::Zipf {
                theta: 1.2,
                center: None
            })
        );
        let zone = |io_pct, size| Zone { io_pct, size };
        assert_eq!(
            o.distribution,
            Distribution::Zoned {
                absolute: false,
                zones: vec![zone(60, 10), zone(40, 90)]
            }
        );
        let o = job(&["--name=x", "--size=1m", "--rw=write:-8k"]).offsets;
        assert_eq!((o.seq_nr, o.seq_add), (1, -8192));
    }

    /// fio refuses these when it parses `file_service_type`; the plan
    /// keeps the refusal for the run, which says it in fio's words.
    #[test]
    fn file_service_values_fio_refuses() {
        for (fst, msg) in [
            (
                "zipf:1.2:2",
                "distribution center out of range (0 <= center <= 1.0)",
            ),
            ("zipf:1", "zipf theta must be different than 1.0"),
            ("pareto:1.5", "pareto input out of range (0 < input < 1.0)"),
            (
                "normal:200",
                "normal deviation out of range (0 <= input < 100.0)",
            ),
            ("random:x", "file_service_type=random:x: not a count"),
            ("zipf:x", "file_service_type=zipf:x: not a number"),
        ] {
            let fst = format!("--file_service_type={fst}");
            let o = job(&["--name=x", "--size=1m", &fst]).offsets;
            assert_eq!(o.file_service, Err(Refusal(msg.to_string())), "{fst}");
        }
        let o = job(&["--name=x", "--size=1m", "--file_service_type=normal:5:-1"]).offsets;
        assert_eq!(
            o.file_service,
            Ok(FileService::Normal {
                dev: 5.0,
                center: None
            })
        );
    }
}
