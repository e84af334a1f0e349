//! The architecture rules of ARCHITECTURE.md, checked on the source: which
//! module may import which, no import cycle between files, no option
//! looked up by name below the plan, no hand-written file over 700 lines,
//! no function of the run path over 120, no engine named outside its own.
//!
//! The import graph is read from `crate::…`, `super::…` and `self::…`
//! paths (in `use` lines and inline), each resolved to the deepest module
//! file it names; a file's own `#[cfg(test)] mod tests` is left out, as
//! tests may reach across layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules and the modules each may import (besides itself),
/// every one of them: `api` (the re-exports the tests and benchmarks use)
/// and `fuzz` (the fuzz targets' entry points, one per parser of outside
/// input) too. `cli` (the command line: it drives every action) imports
/// what it drives; `remote` (`--server`, `--client`) reads its command
/// lines with `cli::args` and prints with cli's printers, while only
/// `cli/mod.rs` drives it (the no-cycle rule between files keeps that
/// one-way).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "api",
        &[
            "cli", "ddir", "diag", "ioengine", "jobfile", "logs", "options", "output", "plan",
            "rand", "stats", "workload",
        ],
    ),
    (
        "fuzz",
        &["baseline", "diag", "logs", "plot", "wire", "workload"],
    ),
    ("diag", &[]),
    ("ddir", &[]),
    ("rand", &[]),
    ("replace", &[]),
    ("release", &[]),
    ("debug", &[]),
    ("jobfile", &["diag"]),
    ("options", &["diag", "jobfile", "debug", "release"]),
    ("stats", &["diag", "ddir", "release"]),
    ("logs", &["diag", "ddir", "stats"]),
    ("ioengine", &["diag", "ddir", "rand"]),
    (
        "plan",
        &[
            "diag", "ddir", "rand", "jobfile", "options", "ioengine", "stats", "logs", "release",
        ],
    ),
    (
        "workload",
        &[
            "diag", "ddir", "rand", "plan", "ioengine", "stats", "logs", "debug", "replace",
            "release",
        ],
    ),
    (
        "run",
        &[
            "diag", "ddir", "jobfile", "options", "plan", "stats", "workload",
        ],
    ),
    ("output", &["diag", "stats", "release"]),
    ("lint", &["diag", "options", "plan", "stats"]),
    ("wire", &["diag", "stats"]),
    ("plot", &["diag"]),
    (
        "tools",
        &["debug", "rand", "plan", "workload", "stats", "output"],
    ),
    (
        "baseline",
        &["diag", "jobfile", "plan", "run", "stats", "lint"],
    ),
    (
        "remote",
        &[
            "diag", "jobfile", "plan", "run", "workload", "stats", "logs", "output", "wire", "cli",
            "release",
        ],
    ),
    (
        "cli",
        &[
            "diag", "debug", "replace", "release", "jobfile", "options", "plan", "ioengine",
            "workload", "run", "stats", "logs", "output", "lint", "plot", "tools", "baseline",
            "remote",
        ],
    ),
];

/// Modules below the plan: they read typed values, never an option name.
const BELOW_PLAN: &[&str] = &["workload", "ioengine", "stats", "output", "logs"];

const MAX_LINES: usize = 700;

type Module = Vec<String>;

struct Source {
    path: PathBuf,
    /// The code before the file's `#[cfg(test)] mod tests`, comments removed.
    code: String,
    /// Made by a generator (`scripts/gen-options.py`), not by hand.
    generated: bool,
}

/// Every `.rs` file under `root`, by module path (`workload::exec`).
fn sources(root: &Path) -> BTreeMap<Module, Source> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(root).expect("under root");
            let mut module: Module = rel
                .with_extension("")
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).expect("source file");
            let text = match text.find("#[cfg(test)]\nmod tests") {
                Some(i) => &text[..i],
                None => &text[..],
            };
            // Comments (doc links included) name modules without importing them.
            let code = text
                .lines()
                .map(|l| l.split("//").next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n");
            let generated = text.contains("GENERATED from fio");
            out.insert(
                module,
                Source {
                    path,
                    code,
                    generated,
                },
            );
        }
    }
    out
}

/// The deepest module file that `path` (`crate::a::b::Item`) names, seen
/// from `from`.
fn resolve(mods: &BTreeMap<Module, Source>, from: &Module, path: &[&str]) -> Option<Module> {
    let (mut base, rest): (Module, &[&str]) = match *path.first()? {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (from.clone(), &path[1..]),
        "super" => {
            let mut base = from.clone();
            let mut rest = path;
            while rest.first() == Some(&"super") {
                base.pop();
                rest = &rest[1..];
            }
            (base, rest)
        }
        _ => return None,
    };
    let mut best = mods.contains_key(&base).then(|| base.clone());
    for seg in rest {
        base.push(seg.to_string());
        if mods.contains_key(&base) {
            best = Some(base.clone());
        } else {
            break;
        }
    }
    best
}

/// The paths a piece of code names: `crate::x::y`, and each item of a
/// `crate::x::{a, b::c}` group (one level of braces).
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = [&b"crate::"[..], b"super::", b"self::"]
            .iter()
            .any(|p| bytes[i..].starts_with(p));
        if !starts || (i > 0 && is_ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (is_ident(bytes[j]) || bytes[j..].starts_with(b"::")) {
            j += if bytes[j] == b':' { 2 } else { 1 };
        }
        let head: Vec<String> = code[i..j]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if bytes.get(j) == Some(&b'{') {
            let end = bytes[j..]
                .iter()
                .position(|&b| b == b'}')
                .map_or(bytes.len(), |e| j + e);
            for item in code[j + 1..end].split(',') {
                let item = item.split_whitespace().next().unwrap_or("");
                let mut p = head.clone();
                p.extend(
                    item.split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                );
                out.push(p);
            }
            j = end;
        }
        out.push(head);
        i = j.max(i + 1);
    }
    out
}

/// Module → the other modules its file imports (not its ancestors).
fn graph(mods: &BTreeMap<Module, Source>) -> BTreeMap<Module, BTreeSet<Module>> {
    mods.iter()
        .map(|(m, src)| {
            let deps = paths(&src.code)
                .iter()
                .filter_map(|p| {
                    let p: Vec<&str> = p.iter().map(String::as_str).collect();
                    resolve(mods, m, &p)
                })
                .filter(|d| d != m && !m.starts_with(d))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

/// The strongly connected components of more than one file (Tarjan).
fn cycles(g: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        g: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[v].min(self.low[w]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.low[v].min(self.index[w]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.push(w.join("::"));
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = Tarjan {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
}

fn root(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
}

#[test]
fn top_level_modules_import_only_the_layers_below_them() {
    let mods = sources(&root("src"));
    let g = graph(&mods);
    let mut bad = Vec::new();
    for (m, deps) in &g {
        let Some(top) = m.first() else { continue };
        let Some((_, allowed)) = LAYERS.iter().find(|(name, _)| name == top) else {
            bad.push(format!("src/{top}: a top-level module missing from LAYERS"));
            continue;
        };
        for d in deps {
            let dt = &d[0];
            if dt != top && !allowed.contains(&dt.as_str()) {
                bad.push(format!("{} imports {}", m.join("::"), d.join("::")));
            }
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn no_import_cycles_between_files() {
    for dir in ["src", "conformance/src"] {
        let c = cycles(&graph(&sources(&root(dir))));
        assert!(c.is_empty(), "{dir}: import cycles: {c:?}");
    }
}

#[test]
fn nothing_below_the_plan_reads_an_option_by_name() {
    let mods = sources(&root("src"));
    let mut bad = Vec::new();
    for (m, src) in &mods {
        if !m.first().is_some_and(|t| BELOW_PLAN.contains(&t.as_str())) {
            continue;
        }
        for needle in [
            "crate::options",
            "crate::cli",
            ".opt(\"",
            ".options.get(",
            ".options.value(",
            ".options.settings",
        ] {
            if src.code.contains(needle) {
                bad.push(format!("{}: {needle}", src.path.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "options read below the plan:\n{}",
        bad.join("\n")
    );
}

/// The plan reads options by their table name (`o.int("iodepth_batch")`):
/// a misspelled name would read as "not set" and quietly take the default,
/// so every name the plan reads must be an option of the table.
#[test]
fn every_option_name_the_plan_reads_is_in_the_table() {
    const READS: [&str; 19] = [
        ".value(\"",
        ".set(\"",
        ".flag(\"",
        ".is(\"",
        ".int(\"",
        ".bytes(\"",
        ".micros(\"",
        ".text(\"",
        ".choice(\"",
        ".choice_modifier(\"",
        ".per_dir(\"",
        ".get(\"",
        ".opt(\"",
        ".int_or_default(\"",
        ".flag_or_default(\"",
        ".bytes_or_default(\"",
        ".choice_or_default(\"",
        ".int_or_zero(\"",
        ".bytes_or_zero(\"",
    ];
    // A later release's option is read under the releases that have it.
    let names: BTreeSet<&str> = rfio::api::OPTIONS
        .iter()
        .chain(rfio::api::newest_options())
        .map(|o| o.name)
        .collect();
    let mut read = 0;
    let mut bad = Vec::new();
    for src in sources(&root("src/plan")).values() {
        for call in READS {
            for (i, _) in src.code.match_indices(call) {
                let rest = &src.code[i + call.len()..];
                let Some(end) = rest.find('"') else { continue };
                let name = &rest[..end];
                read += 1;
                if !names.contains(name) {
                    bad.push(format!("{}: {name}", src.path.display()));
                }
            }
        }
    }
    assert!(read > 100, "only {read} reads found: the scan is broken");
    assert!(
        bad.is_empty(),
        "names that are no option:\n{}",
        bad.join("\n")
    );
}

/// Option reads of the plan that fall back to a literal beside the read
/// (`o.int("iodepth").unwrap_or(1)`, `.map_or(1, ..)`, `.flag("x") !=
/// Some(false)`): each (getter and name, the fallback) with its line.
fn literal_fallbacks(code: &str) -> Vec<(String, String, usize)> {
    const GETTERS: [&str; 6] = ["int", "flag", "bytes", "choice", "text", "micros"];
    let literal = |t: &str| {
        let t = t.trim();
        t == "true"
            || t == "false"
            || (t.starts_with('"') && t.ends_with('"') && t.len() >= 2)
            || t.trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_digit())
    };
    let mut out = Vec::new();
    for getter in GETTERS {
        let call = format!(".{getter}(\"");
        for (i, _) in code.match_indices(&call) {
            let rest = &code[i + call.len()..];
            let Some(end) = rest.find("\")") else {
                continue;
            };
            let name = &rest[..end];
            if name.contains(['"', '\n', '(']) {
                continue;
            }
            let after = rest[end + 2..].trim_start();
            let fallback = if let Some(args) = after
                .strip_prefix(".unwrap_or(")
                .or_else(|| after.strip_prefix(".map_or("))
            {
                let (mut depth, mut arg) = (0usize, String::new());
                for c in args.chars() {
                    match c {
                        '(' | '[' | '{' => depth += 1,
                        ')' | ']' | '}' if depth == 0 => break,
                        ')' | ']' | '}' => depth -= 1,
                        ',' if depth == 0 => break,
                        _ => {}
                    }
                    arg.push(c);
                }
                literal(&arg).then(|| arg.trim().to_string())
            } else {
                ["!= Some(", "== Some("]
                    .iter()
                    .find_map(|cmp| after.strip_prefix(cmp))
                    .and_then(|a| a.split(')').next())
                    .filter(|a| *a == "true" || *a == "false")
                    .map(|a| format!("Some({a})"))
            };
            if let Some(fallback) = fallback {
                let line = code[..i].matches('\n').count() + 1;
                out.push((format!("{getter}(\"{name}\")"), fallback, line));
            }
        }
    }
    out.sort_by_key(|(_, _, line)| *line);
    out
}

/// The plan's reads that fall back to a value other than the table's
/// default on purpose, each (file, read, why).
const DELIBERATE_FALLBACKS: &[(&str, &str, &str)] = &[];

/// No option default typed twice (issue 20): an option the plan reads is
/// its setting, else its default from the option table of the job's
/// release (`o.int_or_default("iodepth")`; `o.int_or_zero` for one the
/// table gives none), never a literal beside the read, unless the literal
/// differs from the table's default on purpose (`DELIBERATE_FALLBACKS`).
#[test]
fn no_option_default_is_typed_twice_in_the_plan() {
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    for src in sources(&root("src/plan")).values() {
        let rel = src.path.strip_prefix(root("")).unwrap_or(&src.path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        for (read, fallback, line) in literal_fallbacks(&src.code) {
            match DELIBERATE_FALLBACKS
                .iter()
                .find(|(f, r, _)| *f == rel && *r == read)
            {
                Some((f, r, _)) => {
                    seen.insert((*f, *r));
                }
                None => bad.push(format!("{rel}:{line}: {read} falls back to {fallback}")),
            }
        }
    }
    assert!(
        bad.is_empty(),
        "an option's default typed beside its read (read it with int_or_default, \
         flag_or_default, ... or, where the fallback differs from the table's default on \
         purpose, list it in DELIBERATE_FALLBACKS with why):\n{}",
        bad.join("\n")
    );
    let stale: Vec<_> = DELIBERATE_FALLBACKS
        .iter()
        .filter(|(f, r, _)| !seen.contains(&(*f, *r)))
        .collect();
    assert!(
        stale.is_empty(),
        "listed but no longer read with a literal (take them off the list): {stale:?}"
    );
    // The scan sees the fallbacks over lines, and passes over computed ones
    // and reads of other kinds.
    let code = "let a = o.int(\"iodepth\").unwrap_or(1).max(1);\n\
                let b = o\n    .flag(\"unique_filename\")\n    .unwrap_or(true);\n\
                let c = o.int(\"rate_cycle\").map_or(1000, |n| n as u64);\n\
                let d = o.flag(\"do_verify\") != Some(false);\n\
                let e = o.choice(\"zonemode\").unwrap_or(\"none\");\n\
                let f = o.int(\"x\").unwrap_or(default);\n\
                let g = v.iter().min().unwrap_or(4096);\n\
                let h = o.int_or_default(\"iodepth\");\n";
    let found: Vec<_> = literal_fallbacks(code)
        .into_iter()
        .map(|(r, f, l)| format!("{l}: {r} {f}"))
        .collect();
    assert_eq!(
        found,
        [
            "1: int(\"iodepth\") 1",
            "3: flag(\"unique_filename\") true",
            "5: int(\"rate_cycle\") 1000",
            "6: flag(\"do_verify\") Some(false)",
            "7: choice(\"zonemode\") \"none\"",
        ]
    );
}

#[test]
fn hand_written_files_stay_small() {
    let mut bad = Vec::new();
    for dir in ["src", "conformance/src"] {
        for (m, src) in sources(&root(dir)) {
            // A generated table, or a file that is itself a test module.
            if src.generated || m.last().is_some_and(|l| l == "tests") {
                continue;
            }
            let lines = src.code.lines().count();
            if lines > MAX_LINES {
                bad.push(format!("{}: {lines} lines", src.path.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checker_sees_imports_and_cycles() {
    // The checker itself must be able to fail: a made-up pair of files
    // importing each other is a cycle, and grouped imports count.
    let mut mods = BTreeMap::new();
    for (name, code) in [
        ("a", "use super::b::{X, c::Y};\n"),
        ("b", "use crate::a;\n"),
        ("b::c", ""),
    ] {
        let module: Module = name.split("::").map(str::to_string).collect();
        mods.insert(
            module,
            Source {
                path: PathBuf::from(name),
                code: code.to_string(),
                generated: false,
            },
        );
    }
    let g = graph(&mods);
    let key = |s: &str| -> Module { s.split("::").map(str::to_string).collect() };
    assert!(g[&key("a")].contains(&key("b")));
    assert!(g[&key("a")].contains(&key("b::c")));
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string()]]);
}

/// Quoted engine names (`"falloc"`) in `code`, by line, for each of `names`.
fn quoted_engine_names(code: &str, names: &[&str]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in code.lines().enumerate() {
        for name in names {
            if line.contains(&format!("\"{name}\"")) {
                out.push((i + 1, (*name).to_string()));
            }
        }
    }
    out
}

/// The workload, the plan and their callers ask an engine's flags
/// (`ioengine::flags`, `EngineDef::flags`), never its name: no quoted name
/// of an engine rfio runs appears in code outside `src/ioengine` (where
/// the engines declare themselves), `src/options` (the table of valid
/// `ioengine=` values) and `src/release.rs` with `src/release/` (the release that added or
/// removed an engine, one entry of its `CHANGES` each). Comments and test
/// modules are left out.
#[test]
fn engines_are_asked_for_flags_not_compared_by_name() {
    // Words that are an engine's name and something else too, where they
    // mean the other thing.
    const OTHER_MEANING: &[(&str, &str, &str)] = &[
        ("src/ddir.rs", "sync", "the data direction"),
        ("src/debug.rs", "net", "fio's --debug=net category"),
        ("src/output/json.rs", "sync", "the sync latency section"),
        ("src/output/jsonw.rs", "null", "JSON's null"),
        ("src/output/normal.rs", "sync", "the sync latency section"),
        (
            "src/plan/resolve/io.rs",
            "sync",
            "the sync= option and its values",
        ),
        ("src/plan/resolve/iolog.rs", "sync", "an iolog action"),
        ("src/plan/resolve/verify.rs", "null", "verify=null"),
        (
            "src/stats/info.rs",
            "psync",
            "ioengine='s default, shown in a report built by hand",
        ),
        ("src/workload/iolog/text.rs", "sync", "an iolog action"),
        (
            "src/workload/layout.rs",
            "ftruncate",
            "the system call that failed",
        ),
    ];
    const NOT_YET: &[&str] = &[
        "src/ioengine/",
        "src/options/",
        "src/release.rs",
        "src/release/",
    ];
    let names: Vec<&str> = rfio::api::engine_names().collect();
    assert!(names.contains(&"falloc") && names.len() > 20, "{names:?}");
    let src = root("src");
    let mut bad = Vec::new();
    for source in sources(&src).values() {
        let rel = source.path.strip_prefix(root("")).unwrap_or(&source.path);
        let rel = rel.to_string_lossy().into_owned();
        if NOT_YET.iter().any(|p| rel.starts_with(p)) {
            continue;
        }
        for (line, name) in quoted_engine_names(&source.code, &names) {
            let other = OTHER_MEANING
                .iter()
                .any(|(file, word, _)| rel == *file && name == *word);
            if !other {
                bad.push(format!("{rel}:{line}: \"{name}\""));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "engine names compared outside src/ioengine (ask ioengine::flags):\n{}",
        bad.join("\n")
    );
    // The check itself can fail.
    let names = ["falloc", "io_uring"];
    assert_eq!(
        quoted_engine_names(
            "if job.ioengine == \"falloc\" {}\nlet x = \"io_uring_cmd\";",
            &names
        ),
        [(1, "falloc".to_string())]
    );
}

/// The functions of `code` longer than `max` lines, as (name, lines): from
/// the line of `fn` to its closing brace at the same indentation. A
/// one-line function or a declaration without a body (`fn f();`) is one
/// line long.
fn long_functions(code: &str, max: usize) -> Vec<(String, usize)> {
    const QUALIFIERS: [&str; 4] = ["const ", "async ", "unsafe ", "extern \"C\" "];
    let lines: Vec<&str> = code.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut s = line.trim_start();
        if s.starts_with("pub ") || s.starts_with("pub(") {
            s = s.trim_start_matches("pub");
            if s.starts_with('(') {
                s = s.find(')').map_or("", |e| &s[e + 1..]);
            }
            s = s.trim_start();
        }
        while let Some(q) = QUALIFIERS.iter().find(|q| s.starts_with(*q)) {
            s = &s[q.len()..];
        }
        let Some(rest) = s.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let head = line.trim_end();
        if name.is_empty() || head.ends_with('}') || head.ends_with(';') {
            continue;
        }
        let at = indent(line);
        for (j, next) in lines.iter().enumerate().skip(i + 1) {
            let t = next.trim();
            if t.is_empty() {
                continue;
            }
            if indent(next) == at {
                if t.starts_with('}') {
                    let len = j - i + 1;
                    if len > max {
                        out.push((name.clone(), len));
                    }
                    break;
                }
                if t.ends_with(';') {
                    break; // a declaration whose signature spans lines
                }
            } else if indent(next) < at && t.starts_with('}') {
                break;
            }
        }
    }
    out
}

/// The run path, the plan and the command line are made of small named
/// steps: no function in `src/workload`, `src/plan` or `src/cli` is over
/// 120 lines, none in the I/O loop (`src/workload/exec`, its hooks
/// included) over 80 (code before a file's `#[cfg(test)] mod tests`; test
/// modules left out).
#[test]
fn no_function_in_the_run_path_is_over_120_lines() {
    const MAX_FN_LINES: usize = 120;
    const MAX_LOOP_FN_LINES: usize = 80;
    let mut bad = Vec::new();
    let mut seen = 0;
    for dir in ["src/workload", "src/plan", "src/cli"] {
        for (m, src) in sources(&root(dir)) {
            if m.iter().any(|seg| seg == "tests") {
                continue;
            }
            seen += 1;
            let rel = src.path.strip_prefix(root("")).unwrap_or(&src.path);
            let rel = rel.to_string_lossy().replace('\\', "/");
            let max = if rel.starts_with("src/workload/exec/") {
                MAX_LOOP_FN_LINES
            } else {
                MAX_FN_LINES
            };
            for (name, len) in long_functions(&src.code, max) {
                bad.push(format!("{rel}: fn {name}: {len} lines (at most {max})"));
            }
        }
    }
    assert!(seen > 50, "only {seen} files read: the scan is broken");
    assert!(
        bad.is_empty(),
        "functions too long (split them into named steps):\n{}",
        bad.join("\n")
    );
    // The check itself can fail, and skips bodiless declarations.
    let body = "        x();\n".repeat(MAX_FN_LINES);
    let long = format!("impl A {{\n    pub(crate) fn long(\n        a: u8,\n    ) -> u8 {{\n{body}    }}\n    fn decl(&self);\n}}\n");
    assert_eq!(
        long_functions(&long, MAX_FN_LINES),
        [("long".to_string(), MAX_FN_LINES + 4)]
    );
    assert!(long_functions(&long, MAX_FN_LINES + 4).is_empty());
}

/// Where a function may still return `Result<_, String>` (file, function,
/// why): the string is the value itself, the text to print.
const STRING_IS_THE_VALUE: &[(&str, &str, &str)] = &[
    (
        "src/options/cmdhelp.rs",
        "into_result",
        "--cmdhelp/--enghelp's text: Ok goes to stdout, Err to stderr, both printed as they are",
    ),
    (
        "src/options/cmdhelp.rs",
        "cmdhelp",
        "the same, for --cmdhelp=NAME",
    ),
    (
        "src/options/cmdhelp.rs",
        "enghelp",
        "the same, for --enghelp=ENGINE",
    ),
    (
        "src/options/cmdhelp.rs",
        "enghelp_cmd",
        "the same, for --enghelp=ENGINE,CMD",
    ),
    (
        "src/stats/hist.rs",
        "try_from",
        "serde's #[serde(try_from)]: the error only becomes serde's message",
    ),
];

/// Functions not typed yet (issue 20), each with where it is to go. The
/// list only shrinks: a function typed must leave it.
const NOT_YET_TYPED: &[(&str, &str, &str)] = &[];

/// Each `Result<_, String>` in `code` (balanced `<>`, over lines too): the
/// function it is in (or the `type` it names) and its line.
fn string_results(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("Result<") {
        let start = from + i;
        from = start + "Result<".len();
        // A word that only ends in `Result` (`IoResult<`) is another type.
        if code[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let (mut depth, mut args, mut end) = (1usize, vec![String::new()], None);
        let mut prev = '\0';
        for (j, c) in code[from..].char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' if prev != '-' => depth -= 1,
                ')' | ']' => depth -= 1,
                ',' if depth == 1 => {
                    args.push(String::new());
                    prev = c;
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                end = Some(from + j);
                break;
            }
            if let Some(a) = args.last_mut() {
                a.push(c);
            }
            prev = c;
        }
        // A trailing comma leaves an empty last argument.
        args.retain(|a| !a.trim().is_empty());
        if end.is_none() || args.len() != 2 || args[1].trim() != "String" {
            continue;
        }
        let before = &code[..start];
        let named = |key: &str| {
            before.rfind(key).map(|k| {
                let name: String = before[k + key.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                (k, name)
            })
        };
        let name = match (named("fn "), named("type ")) {
            (Some((f, n)), Some((t, _))) if f > t => n,
            (_, Some((_, n))) => n,
            (Some((_, n)), None) => n,
            (None, None) => String::new(),
        };
        out.push((name, before.matches('\n').count() + 1));
    }
    out
}

/// Every layer has its typed errors (thiserror enums carrying their
/// sources): no function in `src` returns `Result<_, String>` unless the
/// string is the value itself (`STRING_IS_THE_VALUE`) or it is listed as
/// not typed yet (`NOT_YET_TYPED`, which only shrinks).
#[test]
fn errors_are_typed_not_strings() {
    let allowed: BTreeSet<(&str, &str)> = STRING_IS_THE_VALUE
        .iter()
        .chain(NOT_YET_TYPED)
        .map(|(f, n, _)| (*f, *n))
        .collect();
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    let mut files = 0;
    for (m, src) in sources(&root("src")) {
        if m.iter().any(|seg| seg == "tests") || src.generated {
            continue;
        }
        files += 1;
        let rel = src.path.strip_prefix(root("")).unwrap_or(&src.path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        for (name, line) in string_results(&src.code) {
            match allowed.iter().find(|(f, n)| *f == rel && *n == name) {
                Some(key) => {
                    seen.insert(*key);
                }
                None => bad.push(format!("{rel}:{line}: fn {name}: Result<_, String>")),
            }
        }
    }
    assert!(files > 100, "only {files} files read: the scan is broken");
    assert!(
        bad.is_empty(),
        "a String as an error (give the layer's error enum a variant, or, where the string \
         is the value, list the function in STRING_IS_THE_VALUE with why):\n{}",
        bad.join("\n")
    );
    let stale: Vec<_> = allowed.difference(&seen).collect();
    assert!(
        stale.is_empty(),
        "listed but no longer returning Result<_, String> (take them off the list): {stale:?}"
    );
    // The scan sees signatures over lines, nested types and closures, and
    // passes over other error types.
    let code = "fn a() -> Result<Vec<Option<u8>>, String> {}\n\
                fn b(\n    x: u8,\n) -> Result<\n    (u8, u8),\n    String,\n> {\n    \
                let f = |x| -> Result<(), String> { Ok(()) };\n}\n\
                fn c() -> Result<String, Error> {}\n\
                fn d() -> IoResult<u8, String> {}\n\
                type SetUp = Result<Option<u64>, String>;\n";
    assert_eq!(
        string_results(code),
        [
            ("a".to_string(), 1),
            ("b".to_string(), 4),
            ("b".to_string(), 8),
            ("SetUp".to_string(), 12)
        ]
    );
}
