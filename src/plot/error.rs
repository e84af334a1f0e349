//! Why a report does not read or a chart does not draw: the plot layer's
//! one error (a log's own is [`super::LogError`], with its line).

/// What went wrong reading fio's JSON output or drawing a chart.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No line of the input opens a JSON object.
    #[error("no JSON object in it")]
    NoJsonObject,
    /// JSON, but not fio's report.
    #[error("not fio JSON output (no \"jobs\" array)")]
    NotFioJson,
    /// Not valid JSON; `before`: the lines of the input before the object
    /// (the position named counts from the input's start).
    #[error("{}", syntax(source, *before))]
    Json {
        source: serde_json::Error,
        before: usize,
    },
    /// A line of a status stream (1-based) that does not read, and why
    /// (one of the stream line's errors below, or the report's).
    #[error("line {line}: {why}")]
    StreamLine {
        line: usize,
        #[source]
        why: Box<Error>,
    },
    /// A stream line that is not JSON (serde_json's words, without its
    /// position: the line is named).
    #[error("{}", super::json::syntax_of(source))]
    LineJson { source: serde_json::Error },
    /// A stream line of neither type.
    #[error("not a status or final line (no \"type\")")]
    NotStreamLine,
    /// A status line without its time.
    #[error("no \"elapsed_ms\"")]
    NoElapsed,
    /// A status line without its jobs.
    #[error("no \"jobs\" array")]
    NoJobs,
    /// A final line without its report.
    #[error("no \"report\"")]
    NoReport,
    /// Job number `job` (1-based) has no name.
    #[error("job {job}: no \"jobname\"")]
    NoJobName { job: usize },
    /// The font handed in is not one.
    #[error("not a TrueType or OpenType font")]
    NotAFont,
    /// A chart was asked for before a font.
    #[error("no font for the charts' text")]
    NoFont,
    /// The drawing library's refusal, as it words it.
    #[error("{0}")]
    Draw(String),
    /// The PNG encoder's.
    #[error("PNG: {0}")]
    Png(#[from] png::EncodingError),
}

/// serde_json's error at its line in the whole input, its position first
/// as in the other errors.
fn syntax(e: &serde_json::Error, before: usize) -> String {
    let text = e.to_string();
    let what = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    match e.line() {
        0 => format!("not valid JSON: {what}"),
        line => format!(
            "line {}, column {}: not valid JSON: {what}",
            line + before,
            e.column()
        ),
    }
}
