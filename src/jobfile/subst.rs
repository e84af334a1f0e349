//! Substitutions fio applies to job-file option lines (not to the command
//! line, where the shell has already expanded variables).
//!
//! In order, on the whole `key=value` text:
//! 1. `${VAR}` becomes the value of environment variable `VAR` (empty when
//!    unset).
//! 2. The keywords `$pagesize`, `$mb_memory` and `$ncpus` become numbers.
//! 3. Only if a keyword was replaced and the value holds `+ - * /` (and no
//!    `'`), the value is evaluated as an integer expression — fio pipes it
//!    through `bc`; rfio evaluates it itself with bc's integer rules.

use super::arith;

/// The machine facts the keywords expand to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keywords {
    pub pagesize: u64,
    pub mb_memory: u64,
    pub ncpus: u64,
}

impl Keywords {
    /// Read the facts from this machine, as fio does at start-up.
    pub fn from_system() -> Keywords {
        // SAFETY: sysconf has no memory-safety preconditions; it returns -1
        // for unknown names, which the max(…) below turns into a sane value.
        let (pagesize, pages, ncpus) = unsafe {
            (
                libc::sysconf(libc::_SC_PAGESIZE),
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_NPROCESSORS_CONF),
            )
        };
        let pagesize = pagesize.max(1) as u64;
        Keywords {
            pagesize,
            mb_memory: (pages.max(0) as u64).saturating_mul(pagesize) / (1024 * 1024),
            ncpus: ncpus.max(1) as u64,
        }
    }
}

/// The result of substituting one option line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Substituted {
    /// The text after substitution.
    Text(String),
    /// A keyword expression fio would hand to `bc` did not evaluate.
    BadExpression { expr: String, reason: super::Error },
}

/// Apply fio's substitutions to one `key=value` line.
pub(crate) fn substitute(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
    kw: &Keywords,
) -> Substituted {
    let text = expand_env(text, env);
    let (text, replaced) = replace_keywords(&text, kw);
    if !replaced {
        return Substituted::Text(text);
    }
    let Some((key, value)) = text.split_once('=') else {
        return Substituted::Text(text);
    };
    if !value.contains(['+', '-', '*', '/']) || text.contains('\'') {
        return Substituted::Text(text);
    }
    match arith::eval(value.trim(), arith::Mode::Bc) {
        Ok(n) => Substituted::Text(format!("{key}={n}")),
        Err(reason) => Substituted::BadExpression {
            expr: value.trim().to_string(),
            reason,
        },
    }
}

/// `${VAR}` → the variable's value, or nothing when it is unset.
pub(crate) fn expand_env(text: &str, env: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        if let Some(v) = env(&rest[start + 2..start + 2 + len]) {
            out.push_str(&v);
        }
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    out
}

/// Replace `$pagesize`, `$mb_memory`, `$ncpus`; say whether any was found.
fn replace_keywords(text: &str, kw: &Keywords) -> (String, bool) {
    let mut out = text.to_string();
    let mut replaced = false;
    for (word, value) in [
        ("$pagesize", kw.pagesize),
        ("$mb_memory", kw.mb_memory),
        ("$ncpus", kw.ncpus),
    ] {
        if out.contains(word) {
            out = out.replace(word, &value.to_string());
            replaced = true;
        }
    }
    (out, replaced)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KW: Keywords = Keywords {
        pagesize: 4096,
        mb_memory: 1000,
        ncpus: 2,
    };

    fn env(name: &str) -> Option<String> {
        (name == "FOO").then(|| "abc".to_string())
    }

    #[test]
    fn env_vars_expand_and_unset_ones_vanish() {
        assert_eq!(expand_env("filename=${FOO}x", env), "filename=abcx");
        assert_eq!(expand_env("size=${NOPE}1m", env), "size=1m");
        assert_eq!(expand_env("a=${FOO}${FOO}", env), "a=abcabc");
        assert_eq!(expand_env("a=${FOO", env), "a=${FOO");
        assert_eq!(expand_env("a=$FOO", env), "a=$FOO");
    }

    #[test]
    fn keywords_and_math() {
        // fio 3.33: `size=$pagesize` → 4096, `size=$pagesize*2` → 8192 (via bc).
        assert_eq!(
            substitute("size=$pagesize", env, &KW),
            Substituted::Text("size=4096".into())
        );
        assert_eq!(
            substitute("size=$pagesize*2", env, &KW),
            Substituted::Text("size=8192".into())
        );
        assert_eq!(
            substitute("numjobs=$ncpus-1", env, &KW),
            Substituted::Text("numjobs=1".into())
        );
        // No keyword: no math (fio reads `8*1024` as 8 and rfio refuses it later).
        assert_eq!(
            substitute("size=8*1024", env, &KW),
            Substituted::Text("size=8*1024".into())
        );
        assert!(matches!(
            substitute("size=$ncpus*x", env, &KW),
            Substituted::BadExpression { .. }
        ));
    }
}
