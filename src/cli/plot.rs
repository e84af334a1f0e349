//! `rfio plot LOG_OR_JSON... -o DIR`: reads fio's logs and JSON output,
//! writes their charts (SVG, PNG) and, with `--html`, one page holding
//! them all into DIR. The charts themselves are `crate::plot`'s.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::diag::io_reason;
use crate::plot::{self, Input, LogKind, Size};

const USAGE: &str = "\
Usage: rfio plot [OPTIONS] FILE... -o DIR

Charts of fio's logs and JSON output, drawn without gnuplot.

FILE is a per-job log written by rfio or fio (NAME_iops.N.log, NAME_bw.N.log,
NAME_lat.N.log, NAME_clat.N.log, NAME_slat.N.log, also .log.fz), the output
of --output-format=json or json+, or an NDJSON status stream
(--output-format=ndjson, --status-format=ndjson), or an rfio baseline file
(--baseline-save, rfio-baseline/2), drawn beside the JSON reports.

  Logs: IOPS, bandwidth (KiB/s, MiB/s or GiB/s) or latency (nsec, usec or
        msec) over time (s), a series per direction; one chart per log.
  JSON: per job, direction and latency (clat, lat, slat), the percentile
        curve and, from json+, the latency histogram.
  NDJSON: IOPS, bandwidth and completion latency (mean, p99) of each
        status line over time, a series per job and direction; the final
        line's report as JSON.
  rfio's own: the clat percentile curve of a --repeat report is the
        median run's, in the band of the runs' least to greatest; a
        baseline file's curve (its runs' medians, in its band) is drawn
        beside each report's, else the saved medians of the report's
        --baseline-compare verdicts; --html adds their tables.

Each metric has one unit on every chart (the largest value's); each file
is named by the shortest end of its path that tells it from the others.

Options:
  -o, --output DIR     write the charts into DIR (created if missing); each
                       file is replaced, never written through a symlink
  --overlay            one chart per kind of log (iops, bw, lat, clat, slat),
                       a series per file and direction; one percentile
                       chart and one histogram per direction and latency
                       of the JSON inputs, a series per file (and job)
  --latency-axis=A     log (default) or linear: the latency axis of
                       percentile curves and histograms
  --format=FMT         svg, png or both (default both)
  --html               also write DIR/index.html: every chart inline and the
                       summary of each JSON input (its --repeat runs and its
                       --baseline-compare verdicts too)
  --size=WxH           chart size in pixels (default 800x480)
  --font=FILE          TrueType font for the charts' text (default: DejaVu
                       Sans or Liberation Sans from the system)
  -h, --help           this text
";

/// Fonts looked for when `--font` is not given (Debian's fonts-dejavu-core
/// first).
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
];

const NEED_FONT: &str =
    "charts need a TrueType font: apt-get install fonts-dejavu-core, or --font=FILE";

/// Why `rfio plot` stops: its command line (printed with a pointer to
/// `--help`), an input, an output, or the font.
#[derive(Debug, thiserror::Error)]
enum PlotError {
    #[error("{0} needs a value")]
    NeedsValue(String),
    #[error("--format={0}: want svg, png or both")]
    BadFormat(String),
    #[error("--latency-axis={0}: want log or linear")]
    BadLatencyAxis(String),
    #[error("--size={0}: want WIDTHxHEIGHT, each 200 to 8000 pixels")]
    BadSize(String),
    #[error("unknown option {0}")]
    UnknownOption(String),
    #[error("no log or JSON file given")]
    NoInputs,
    #[error("no output directory given (-o DIR)")]
    NoOutputDir,
    /// The one input given is a log without samples.
    #[error("{0}: empty log (no samples)")]
    EmptyLog(String),
    #[error("nothing to plot: every log is empty ({})", .0.join(", "))]
    AllEmpty(Vec<String>),
    #[error("{}: {source}", path.display())]
    Log {
        path: PathBuf,
        source: plot::LogError,
    },
    /// (`logs::InflateError` is not a `std::error::Error`: no source.)
    #[error("{}: {why}", path.display())]
    Inflate {
        path: PathBuf,
        why: crate::logs::InflateError,
    },
    #[error("{}: {source}", path.display())]
    Report { path: PathBuf, source: plot::Error },
    #[error("{}: {source}", path.display())]
    Baseline {
        path: PathBuf,
        source: plot::BaselineError,
    },
    /// Its position first, as the other inputs' errors.
    #[error("{}: line {line}, column {column}: not valid JSON: {what}", path.display())]
    BaselineJson {
        path: PathBuf,
        line: usize,
        column: usize,
        what: String,
    },
    #[error("{0}: a baseline is drawn beside a JSON report of a run: give one too")]
    BaselineAlone(String),
    #[error("{}: nothing to plot ({why})", path.display())]
    Nothing { path: PathBuf, why: &'static str },
    #[error("{}: {}", path.display(), io_reason(source))]
    Read { path: PathBuf, source: io::Error },
    #[error("{}: over {} MiB, too large to be fio JSON output", path.display(), MAX_WHOLE >> 20)]
    TooLarge { path: PathBuf },
    #[error("{}: neither a fio log (NAME_iops|bw|lat|clat|slat[.N].log) nor fio JSON output", path.display())]
    Neither { path: PathBuf },
    #[error("{}: {source}", path.display())]
    CreateDir { path: PathBuf, source: io::Error },
    #[error("{}: {}", path.display(), io_reason(source))]
    Write { path: PathBuf, source: io::Error },
    /// Standard output or error failed.
    #[error("{0}")]
    Stream(#[from] io::Error),
    #[error("chart {chart}: {source}")]
    Chart { chart: String, source: plot::Error },
    #[error("{NEED_FONT}")]
    NeedFont,
    #[error("--font={}: {}", path.display(), io_reason(source))]
    FontRead { path: PathBuf, source: io::Error },
    #[error("{}: {source}", path.display())]
    Font { path: PathBuf, source: plot::Error },
}

struct Opts {
    inputs: Vec<String>,
    dir: Option<String>,
    overlay: bool,
    log_latency: bool,
    html: bool,
    svg: bool,
    png: bool,
    size: Size,
    font: Option<String>,
}

enum Parsed {
    Help,
    Run(Opts),
}

/// `rfio plot ARGS` (the arguments after `plot`); the exit status.
pub(crate) fn main(argv: &[String], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let opts = match parse(argv) {
        Ok(Parsed::Help) => {
            out.write_all(USAGE.as_bytes())?;
            return Ok(0);
        }
        Ok(Parsed::Run(o)) => o,
        Err(e) => {
            writeln!(err, "rfio plot: {e}\nTry 'rfio plot --help'.")?;
            return Ok(1);
        }
    };
    match run(&opts, out, err) {
        Ok(()) => Ok(0),
        Err(e) => {
            writeln!(err, "rfio plot: {e}")?;
            Ok(1)
        }
    }
}

fn parse(argv: &[String]) -> Result<Parsed, PlotError> {
    let mut o = Opts {
        inputs: Vec::new(),
        dir: None,
        overlay: false,
        log_latency: true,
        html: false,
        svg: true,
        png: true,
        size: Size::default(),
        font: None,
    };
    let mut args = argv.iter();
    let mut only_files = false;
    while let Some(a) = args.next() {
        if only_files || !a.starts_with('-') || a == "-" {
            o.inputs.push(a.clone());
            continue;
        }
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if a.starts_with("--") => (k, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, PlotError> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args
                    .next()
                    .cloned()
                    .ok_or_else(|| PlotError::NeedsValue(name.to_string())),
            }
        };
        match key {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--" => only_files = true,
            "-o" | "--output" => o.dir = Some(value(key)?),
            "--overlay" => o.overlay = true,
            "--latency-axis" => {
                o.log_latency = match value(key)?.as_str() {
                    "log" => true,
                    "linear" => false,
                    v => return Err(PlotError::BadLatencyAxis(v.to_string())),
                }
            }
            "--html" => o.html = true,
            "--format" => {
                (o.svg, o.png) = match value(key)?.as_str() {
                    "svg" => (true, false),
                    "png" => (false, true),
                    "both" => (true, true),
                    v => return Err(PlotError::BadFormat(v.to_string())),
                }
            }
            "--size" => {
                let v = value(key)?;
                o.size = parse_size(&v).ok_or(PlotError::BadSize(v))?;
            }
            "--font" => o.font = Some(value(key)?),
            _ if key.starts_with("-o") => o.dir = Some(key[2..].to_string()),
            _ => return Err(PlotError::UnknownOption(a.clone())),
        }
    }
    if o.inputs.is_empty() {
        return Err(PlotError::NoInputs);
    }
    if o.dir.as_deref().is_none_or(str::is_empty) {
        return Err(PlotError::NoOutputDir);
    }
    Ok(Parsed::Run(o))
}

fn parse_size(v: &str) -> Option<Size> {
    let (w, h) = v.split_once('x')?;
    let (width, height) = (w.parse().ok()?, h.parse().ok()?);
    let ok = |n: u32| (200..=8000).contains(&n);
    (ok(width) && ok(height)).then_some(Size { width, height })
}

fn run(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), PlotError> {
    // An empty log (fio and rfio write an empty `_slat` log for every sync
    // engine) is skipped with a note, so that `rfio plot *.log` works; only
    // empty logs is an error.
    let mut inputs = Vec::new();
    let mut empty = Vec::new();
    for p in &o.inputs {
        match read_input(Path::new(p))? {
            Some(input) => {
                // Never a success with nothing drawn.
                if let Some(why) = input.nothing_to_plot() {
                    return Err(PlotError::Nothing {
                        path: PathBuf::from(p),
                        why,
                    });
                }
                inputs.push(input)
            }
            None => empty.push(p.as_str()),
        }
    }
    if inputs.is_empty() {
        return Err(match empty.as_slice() {
            [one] => PlotError::EmptyLog(one.to_string()),
            _ => PlotError::AllEmpty(empty.iter().map(|e| e.to_string()).collect()),
        });
    }
    for p in &empty {
        writeln!(err, "rfio plot: {p}: empty log (no samples), skipped")?;
    }
    if inputs.iter().all(|i| matches!(i, Input::Baseline { .. })) {
        return Err(PlotError::BaselineAlone(inputs[0].name().to_string()));
    }
    // plotters measures the text of SVG and PNG charts alike.
    load_font(o.font.as_deref(), FONTS)?;
    let charts = plot::charts(
        &inputs,
        &plot::Options {
            overlay: o.overlay,
            log_latency: o.log_latency,
        },
    );
    let dir = PathBuf::from(o.dir.as_deref().unwrap_or("."));
    std::fs::create_dir_all(&dir).map_err(|source| PlotError::CreateDir {
        path: dir.clone(),
        source,
    })?;
    let write = |name: String, bytes: &[u8], out: &mut dyn Write| -> Result<(), PlotError> {
        let path = dir.join(&name);
        if let Err(source) = write_new(&dir, &name, bytes) {
            return Err(PlotError::Write { path, source });
        }
        Ok(writeln!(out, "{}", path.display())?)
    };
    let mut svgs = Vec::new();
    for c in &charts {
        let failed = |source| PlotError::Chart {
            chart: c.name.clone(),
            source,
        };
        if o.svg || o.html {
            let svg = plot::svg(c, o.size).map_err(failed)?;
            if o.svg {
                write(format!("{}.svg", c.name), svg.as_bytes(), out)?;
            }
            svgs.push(svg);
        }
        if o.png {
            let png = plot::png(c, o.size).map_err(failed)?;
            write(format!("{}.png", c.name), &png, out)?;
        }
    }
    if o.html {
        // Each report under its label, as in the charts.
        let names: Vec<&str> = inputs.iter().map(Input::name).collect();
        let labels = plot::labels(&names);
        let reports: Vec<(&str, &plot::Report)> = inputs
            .iter()
            .zip(&labels)
            .filter_map(|(i, label)| Some((label.as_str(), i.report()?)))
            .collect();
        let figures: Vec<(&plot::Chart, &str)> =
            charts.iter().zip(svgs.iter().map(String::as_str)).collect();
        write(
            "index.html".into(),
            plot::page(&reports, &figures).as_bytes(),
            out,
        )?;
    }
    Ok(())
}

/// The largest file read whole (JSON output, or a file that is not a log):
/// fio's JSON+ report of a thousand jobs is well under this.
const MAX_WHOLE: usize = 1 << 30;

/// How much of a file is read at a time.
const CHUNK: usize = 64 << 10;

/// One input file, read and parsed (`None`: a log without samples);
/// errors name it. A log (named as one, its first non-blank byte not `{`)
/// is read a chunk at a time, so that memory is its samples; anything
/// else is read whole, up to [`MAX_WHOLE`].
fn read_input(path: &Path) -> Result<Option<Input>, PlotError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let kind = LogKind::from_file_name(&name);
    let neither = || PlotError::Neither {
        path: path.to_path_buf(),
    };
    let bad_log = |source| PlotError::Log {
        path: path.to_path_buf(),
        source,
    };
    let log = |r: Result<plot::Log, plot::LogError>| match r {
        Ok(log) => Ok(Some(Input::Log {
            name: path.display().to_string(),
            log,
        })),
        Err(plot::LogError::Empty) => Ok(None),
        Err(e) => Err(bad_log(e)),
    };
    if name.ends_with(".fz") {
        let kind = kind.ok_or_else(neither)?;
        let mut sink = LogSink {
            reader: plot::LogReader::new(kind),
            error: None,
        };
        if let Err(e) = crate::logs::inflate_file(path, &mut sink) {
            return Err(match sink.error {
                Some(bad) => bad_log(bad),
                None => PlotError::Inflate {
                    path: path.to_path_buf(),
                    why: e,
                },
            });
        }
        return log(sink.reader.finish());
    }
    let failed = |source| PlotError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(failed)?;
    // Bytes held until the file is told a log (then streamed) or not (then
    // held whole: `whole`); `blank`: how many of them are known blank.
    let mut held = Vec::new();
    let mut blank = 0;
    let mut whole = false;
    let mut reader: Option<plot::LogReader> = None;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match io::Read::read(&mut file, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(failed(e)),
        };
        if let Some(r) = reader.as_mut() {
            r.push(&buf[..n]).map_err(bad_log)?;
            continue;
        }
        held.extend_from_slice(&buf[..n]);
        if held.len() > MAX_WHOLE {
            return Err(PlotError::TooLarge {
                path: path.to_path_buf(),
            });
        }
        let Some(kind) = kind.filter(|_| !whole) else {
            continue;
        };
        let first = held[blank..].iter().find(|b| !b.is_ascii_whitespace());
        match first {
            None if held.len() < CHUNK => blank = held.len(),
            // JSON named as a log: read whole.
            Some(b'{') => whole = true,
            _ => {
                let mut r = plot::LogReader::new(kind);
                r.push(&held).map_err(bad_log)?;
                held = Vec::new();
                reader = Some(r);
            }
        }
    }
    if let Some(r) = reader {
        return log(r.finish());
    }
    if plot::looks_like_stream(&held) {
        let stream = plot::parse_stream(&held).map_err(|source| PlotError::Report {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path.display().to_string();
        return Ok(Some(Input::Stream { name, stream }));
    }
    if let Some(baseline) = baseline_input(path, &held)? {
        return Ok(Some(baseline));
    }
    if plot::looks_like_json(&held) {
        let report = plot::parse_json(&held).map_err(|source| PlotError::Report {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path.display().to_string();
        return Ok(Some(Input::Report { name, report }));
    }
    match kind {
        Some(kind) => log(plot::parse_log(kind, &held)),
        None => Err(neither()),
    }
}

/// `bytes` read from `path` as a baseline file (`None`: not one).
fn baseline_input(path: &Path, bytes: &[u8]) -> Result<Option<Input>, PlotError> {
    if !plot::looks_like_baseline(bytes) {
        return Ok(None);
    }
    let doc: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        let text = e.to_string();
        let what = text.rfind(" at line ").map_or(&text[..], |at| &text[..at]);
        PlotError::BaselineJson {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            what: what.to_string(),
        }
    })?;
    let bad = |source| PlotError::Baseline {
        path: path.to_path_buf(),
        source,
    };
    let name = path.display().to_string();
    Ok(plot::baseline_of(&doc)
        .map_err(bad)?
        .map(|runs| Input::Baseline { name, runs }))
}

/// The inflater's output, read as a log as it comes; a bad line stops the
/// inflating (as a write error) and is kept in `error`.
struct LogSink {
    reader: plot::LogReader,
    error: Option<plot::LogError>,
}

impl Write for LogSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self.reader.push(bytes) {
            Ok(()) => Ok(bytes.len()),
            Err(e) => {
                self.error = Some(e);
                Err(io::Error::other("not a fio log"))
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `bytes` as `dir/name` without following a symlink planted in
/// DIR ([`crate::replace::Replacement`]: a fresh hidden temporary,
/// renamed over `name`, which replaces a symlink there, not its target,
/// and leaves the other names of a hard-linked file as they were). DIR
/// itself is the user's: a symlink given as DIR is followed. Chart names
/// never start with a dot (`plot::Chart`'s file stems), so the temporary
/// names are never an output's.
fn write_new(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let mut out = crate::replace::Replacement::beside(&dir.join(name))?;
    out.file().write_all(bytes)?;
    out.commit()
}

/// Registers the font `given`, or else the first of `system` present.
fn load_font(given: Option<&str>, system: &[&str]) -> Result<(), PlotError> {
    let path = match given {
        Some(p) => PathBuf::from(p),
        None => system
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .ok_or(PlotError::NeedFont)?,
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(source) => return Err(PlotError::FontRead { path, source }),
    };
    plot::use_font(bytes).map_err(|source| PlotError::Font { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_font_nothing_is_drawn() {
        let gone = ["/nonexistent/DejaVuSans.ttf"];
        let e = load_font(None, &gone).unwrap_err();
        assert!(matches!(e, PlotError::NeedFont));
        assert_eq!(e.to_string(), NEED_FONT);
        assert_eq!(
            NEED_FONT,
            "charts need a TrueType font: apt-get install fonts-dejavu-core, or --font=FILE"
        );
    }
}
