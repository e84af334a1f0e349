//! fio's JSON writer (`json.c`): pretty-printed with two spaces per level,
//! `"key" : value`, integers as `%lld`, floats as `%f`, and (before fio
//! 3.39, "json: allow empty string values") empty strings left out with
//! their key. Keys keep the order they were added in.
//!
//! fio escapes only `\` and `"` in strings, so a TAB or newline in a job
//! name makes its report invalid JSON; rfio escapes every control character
//! as RFC 8259 requires (`\t`, `\n`, `\u001f`, ...), so the report always
//! parses.

use std::borrow::Cow;

use super::cfmt;

/// A JSON value as fio builds it; its strings borrow from the report when
/// they can (a run with 100,000 global options copies none of them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json<'a> {
    Int(i128),
    Float(f64),
    Str(Cow<'a, str>),
    Obj(Obj<'a>),
    Arr(Vec<Json<'a>>),
    /// rfio's own sections only (`--repeat`, `--baseline-compare`): fio's
    /// keys are never null or boolean.
    Null,
    Bool(bool),
}

/// An object: pairs in insertion order (duplicates kept, as fio).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Obj<'a>(pub(crate) Vec<(Cow<'a, str>, Json<'a>)>);

impl<'a> Obj<'a> {
    pub(crate) fn new() -> Obj<'a> {
        Obj(Vec::new())
    }

    pub(crate) fn int(&mut self, k: impl Into<Cow<'a, str>>, v: impl Into<i128>) -> &mut Obj<'a> {
        self.0.push((k.into(), Json::Int(v.into())));
        self
    }

    /// `v`, or `null` for `None`.
    pub(crate) fn opt_float(&mut self, k: impl Into<Cow<'a, str>>, v: Option<f64>) -> &mut Obj<'a> {
        self.0.push((k.into(), v.map_or(Json::Null, Json::Float)));
        self
    }

    pub(crate) fn bool(&mut self, k: impl Into<Cow<'a, str>>, v: bool) -> &mut Obj<'a> {
        self.0.push((k.into(), Json::Bool(v)));
        self
    }

    pub(crate) fn float(&mut self, k: impl Into<Cow<'a, str>>, v: f64) -> &mut Obj<'a> {
        self.0.push((k.into(), Json::Float(v)));
        self
    }

    /// A string value (an empty one is printed only where the document
    /// keeps them, [`Obj::to_document_with`]).
    pub(crate) fn str(
        &mut self,
        k: impl Into<Cow<'a, str>>,
        v: impl Into<Cow<'a, str>>,
    ) -> &mut Obj<'a> {
        self.0.push((k.into(), Json::Str(v.into())));
        self
    }

    pub(crate) fn obj(&mut self, k: impl Into<Cow<'a, str>>, v: Obj<'a>) -> &mut Obj<'a> {
        self.0.push((k.into(), Json::Obj(v)));
        self
    }

    pub(crate) fn arr(&mut self, k: impl Into<Cow<'a, str>>, v: Vec<Json<'a>>) -> &mut Obj<'a> {
        self.0.push((k.into(), Json::Arr(v)));
        self
    }

    /// The document: the object and a newline, empty strings left out
    /// with their keys (fio 3.33's `json.c`).
    #[cfg(test)]
    pub(crate) fn to_document(&self) -> String {
        self.to_document_with(false)
    }

    /// The document, with empty strings printed (`""`) when `keep_empty`
    /// (fio 3.39 on) or left out with their keys.
    pub(crate) fn to_document_with(&self, keep_empty: bool) -> String {
        let mut out = String::new();
        print_obj(self, 0, keep_empty, &mut out);
        out.push('\n');
        out
    }
}

/// Whether `v` is printed: an empty string only where they are kept.
fn printed(v: &Json<'_>, keep_empty: bool) -> bool {
    keep_empty || !matches!(v, Json::Str(s) if s.is_empty())
}

fn indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

fn print_obj(o: &Obj<'_>, level: usize, keep_empty: bool, out: &mut String) {
    out.push_str("{\n");
    let pairs = o.0.iter().filter(|(_, v)| printed(v, keep_empty));
    for (i, (k, v)) in pairs.enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(level + 1, out);
        out.push('"');
        escape(k, out);
        out.push_str("\" : ");
        print_value(v, level + 1, keep_empty, out);
    }
    out.push('\n');
    indent(level, out);
    out.push('}');
}

fn print_value(v: &Json<'_>, level: usize, keep_empty: bool, out: &mut String) {
    match v {
        Json::Int(n) => out.push_str(&n.to_string()),
        Json::Float(f) => out.push_str(&cfmt::f(*f, 6)),
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Str(s) => {
            out.push('"');
            escape(s, out);
            out.push('"');
        }
        Json::Obj(o) => print_obj(o, level, keep_empty, out),
        Json::Arr(a) => {
            out.push_str("[\n");
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(level + 1, out);
                print_value(e, level + 1, keep_empty, out);
            }
            out.push('\n');
            indent(level, out);
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_fio() {
        let mut inner = Obj::new();
        inner.int("a", 1).float("b", 0.5).str("empty", "");
        let mut job = Obj::new();
        job.str("jobname", "x\"y").obj("read", inner);
        let mut root = Obj::new();
        root.str("fio version", "fio-3.33")
            .arr("jobs", vec![Json::Obj(job)]);
        assert_eq!(
            root.to_document(),
            "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"x\\\"y\",\n      \"read\" : {\n        \"a\" : 1,\n        \"b\" : 0.500000\n      }\n    }\n  ]\n}\n"
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        let mut o = Obj::new();
        o.str("name", "a\tb\nc\r\u{1}\u{1f}\\\"\u{7f}é");
        let doc = o.to_document();
        assert_eq!(
            doc,
            "{\n  \"name\" : \"a\\tb\\nc\\r\\u0001\\u001f\\\\\\\"\u{7f}é\"\n}\n"
        );
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["name"], "a\tb\nc\r\u{1}\u{1f}\\\"\u{7f}é");
    }
}
