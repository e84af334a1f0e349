//! `rfio plot`: charts of fio's logs and JSON output, drawn without
//! gnuplot.
//!
//! Pure: text in, charts out. [`log`] and [`json`] read fio's per-job
//! logs and its JSON/JSON+ reports; [`build`] turns them into [`Chart`]s
//! (values in fio's units, one per log or per kind of log, histograms and
//! percentile curves per job and direction); [`render`] draws a chart as
//! SVG or PNG; [`html`] puts every chart and the runs' summaries on one
//! page. Reading and writing files is the front end's (`cli/plot.rs`).

mod axis;
mod build;
mod chart;
mod error;
mod html;
mod json;
mod log;
mod raster;
mod render;
mod report;
mod runs;
mod stream;
mod units;

pub(crate) use build::{charts, labels, Input, Options};
pub(crate) use chart::Chart;
pub(crate) use error::Error;
pub(crate) use html::page;
pub(crate) use json::{looks_like_json, parse as parse_json, Report};
pub(crate) use log::{parse as parse_log, Log, LogError, LogKind, Reader as LogReader};
pub(crate) use render::{png, svg, use_font, Size};
pub(crate) use runs::{baseline_of, looks_like_baseline, BaselineError};
pub(crate) use stream::{looks_like_stream, parse as parse_stream};
