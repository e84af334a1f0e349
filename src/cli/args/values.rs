//! The values of rfio's and fio's flags that are read alike: output
//! formats and time intervals.

use super::{ArgError, Format};

pub(super) fn push_format(formats: &mut Vec<Format>, f: Format) {
    if !formats.contains(&f) {
        formats.push(f);
    }
}

/// `--output-format=normal,json`: fio's names (`terse`, `minimal`, `csv`,
/// `json`, `json+`, `normal`).
pub(super) fn output_formats(list: &str) -> Result<Vec<Format>, ArgError> {
    let mut out = Vec::new();
    for name in list.split(',') {
        let f = match name {
            "terse" | "minimal" | "csv" => Format::Terse,
            "json" => Format::Json,
            "json+" => Format::JsonPlus,
            "normal" => Format::Normal,
            "ndjson" => Format::Ndjson,
            _ => return Err(ArgError::OutputFormat(name.to_string())),
        };
        push_format(&mut out, f);
    }
    Ok(out)
}

/// A time argument (bare = seconds) in milliseconds, at least `min_ms`.
pub(super) fn interval_ms(flag: &'static str, text: &str, min_ms: u64) -> Result<u64, ArgError> {
    let def = crate::options::lookup("runtime").expect("runtime is in the option table");
    let ms = match crate::options::parse_value(def, Some(text), &Default::default()) {
        Ok(crate::options::Value::Micros(us)) => us / 1000,
        _ => {
            let text = text.to_string();
            return Err(ArgError::BadTime { flag, text });
        }
    };
    if ms < min_ms {
        return Err(ArgError::TimeTooShort { flag, min_ms });
    }
    Ok(ms)
}
