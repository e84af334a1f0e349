//! A minimal JSON value and writer (RFC 8259), enough for the report: objects keep the order
//! their fields were added in, output is indented by two spaces.

use std::fmt::Write;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    /// Fields in output order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// An object from `(key, value)` pairs, in that order.
    pub(crate) fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
        Value::Object(
            fields
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    }

    /// A string from bytes that should be UTF-8; invalid sequences become U+FFFD.
    pub(crate) fn lossy(bytes: &[u8]) -> Value {
        Value::String(String::from_utf8_lossy(bytes).into_owned())
    }

    /// The value as indented JSON text, with a final newline.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            // JSON has no NaN or infinity.
            Value::Float(x) if !x.is_finite() => out.push_str("null"),
            Value::Float(x) => {
                let _ = write!(out, "{x}");
            }
            Value::String(s) => write_string(out, s),
            Value::Array(items) if items.is_empty() => out.push_str("[]"),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push(']');
            }
            Value::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Value::Object(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    write_string(out, key);
                    out.push_str(": ");
                    value.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push('}');
            }
        }
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_strings() {
        let v = Value::String("a\"b\\c\nd\te\u{1}f\u{7f}é".into());
        assert_eq!(v.render(), "\"a\\\"b\\\\c\\nd\\te\\u0001f\\u007fé\"\n");
    }

    #[test]
    fn lossy_bytes() {
        assert_eq!(Value::lossy(b"a\xffb"), Value::String("a\u{fffd}b".into()));
    }

    #[test]
    fn renders_nested_values_in_order() {
        let v = Value::object([
            ("z", Value::Int(-1)),
            ("a", Value::Array(vec![Value::Bool(true), Value::Null])),
            ("e", Value::Array(Vec::new())),
            ("o", Value::object([])),
            ("f", Value::Float(1.5)),
            ("nan", Value::Float(f64::NAN)),
        ]);
        let expected = "{\n  \"z\": -1,\n  \"a\": [\n    true,\n    null\n  ],\n  \"e\": [],\n  \
                        \"o\": {},\n  \"f\": 1.5,\n  \"nan\": null\n}\n";
        assert_eq!(v.render(), expected);
    }
}
