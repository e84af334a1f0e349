//! What rfio's server lets a client do, beyond fio's (which lets anyone
//! who can connect run anything): an allow-list of client networks, a
//! shared token carried in the job text, and a jail that confines the
//! jobs to one directory. None of it changes the wire: a real fio client
//! works unchanged.

use std::net::IpAddr;
use std::path::{Component, Path, PathBuf};

use crate::plan::Plan;
use crate::remote::Error;

/// The error a refusal's STOP carries (EPERM): fio's client prints
/// `client <HOST>: exited with error 1` and exits 1.
pub(crate) const REFUSED: u32 = libc::EPERM as u32;

/// A name or value the client sent, as a refusal quotes it: control
/// characters escaped, at most 200 characters.
pub(crate) fn shown(text: &str) -> String {
    crate::diag::quote(text, 200)
}

/// The environment variable that holds the server's token.
pub(crate) const TOKEN_ENV: &str = "RFIO_SERVER_TOKEN";
/// The job-file comment that carries it: `# rfio-token: ${RFIO_SERVER_TOKEN}`
/// (fio's client expands `${VAR}` in every line, comments too, before it
/// sends the text; a fio server ignores the comment).
const TOKEN_MARK: &str = "rfio-token:";

/// One network of `--server-allow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cidr {
    net: IpAddr,
    bits: u8,
}

impl Cidr {
    /// `ADDR` or `ADDR/BITS`.
    pub(crate) fn parse(s: &str) -> Result<Cidr, Error> {
        let bad = || Error::BadNetwork(s.to_string());
        let (addr, bits) = match s.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let net: IpAddr = addr.trim().parse().map_err(|_| bad())?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => max,
            Some(b) => match b.trim().parse::<u8>() {
                Ok(n) if n <= max => n,
                _ => return Err(bad()),
            },
        };
        Ok(Cidr { net, bits })
    }

    /// Whether `ip` is in the network (an IPv4 client seen as an
    /// IPv4-mapped IPv6 address counts as IPv4).
    pub(crate) fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        let prefix = |a: &[u8], b: &[u8]| {
            let full = usize::from(self.bits / 8);
            let rest = self.bits % 8;
            a[..full] == b[..full]
                && (rest == 0 || (a[full] ^ b[full]) & (0xffu8 << (8 - rest)) == 0)
        };
        match (self.net, ip) {
            (IpAddr::V4(n), IpAddr::V4(i)) => prefix(&n.octets(), &i.octets()),
            (IpAddr::V6(n), IpAddr::V6(i)) => prefix(&n.octets(), &i.octets()),
            _ => false,
        }
    }
}

/// `--server-allow=CIDR[,CIDR...]`.
pub(crate) fn parse_allow(s: &str) -> Result<Vec<Cidr>, Error> {
    s.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(Cidr::parse)
        .collect()
}

/// The token a job text carries, if any (`rfio-token:` in any line).
fn carried_token(text: &[u8]) -> Option<String> {
    String::from_utf8_lossy(text).lines().find_map(|l| {
        let at = l.find(TOKEN_MARK)?;
        Some(l[at + TOKEN_MARK.len()..].trim().to_string())
    })
}

/// Whether `text` carries `token` (compared in time independent of where
/// they differ).
pub(crate) fn token_matches(text: &[u8], token: &str) -> bool {
    let Some(got) = carried_token(text) else {
        return false;
    };
    let (a, b) = (got.as_bytes(), token.as_bytes());
    let mut diff = a.len() ^ b.len();
    for i in 0..a.len().max(b.len()) {
        diff |= usize::from(a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0));
    }
    diff == 0 && !token.is_empty()
}

/// Whether a job text has an `include` line (any blanks after the word, as
/// the job-file grammar takes them).
pub(crate) fn has_include(text: &[u8]) -> bool {
    String::from_utf8_lossy(text).lines().any(|l| {
        l.trim_start()
            .strip_prefix("include")
            .is_some_and(|rest| rest.starts_with(char::is_whitespace))
    })
}

/// `path` made absolute against `base` with `.` and `..` taken out,
/// without following links.
fn normalize(base: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(path).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Whether `path` (relative to `cwd`) stays under `jail`, links in its
/// existing part followed.
pub(crate) fn inside_jail(jail: &Path, cwd: &Path, path: &Path) -> bool {
    let p = normalize(cwd, path);
    // Follow the links of the longest part that exists.
    let mut existing = p.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return false,
        }
    }
    let Ok(mut real) = existing.canonicalize() else {
        return false;
    };
    for name in rest.into_iter().rev() {
        real.push(name);
    }
    real.starts_with(jail)
}

/// Options that run a command on the server, refused in a jail.
const COMMANDS: &[&str] = &["exec_prerun", "exec_postrun", "trigger", "trigger-remote"];
/// Options that name a file the job reads or writes outside its data
/// files: under a jail, each must stay inside it.
const PATHS: &[&str] = &[
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "write_hist_log",
    "read_iolog",
    "write_iolog",
    "replay_redirect",
    "opendir",
    "directory",
    "filename",
    "lockfile",
    "ioscheduler",
];

/// What a jail at `jail` (canonical) refuses of `plan`'s jobs, run from
/// `cwd`: one line per refusal. (A job text with an `include` never gets
/// this far: the session refuses it before parsing, [`has_include`].)
pub(crate) fn jail_refusals(jail: &Path, cwd: &Path, plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for job in &plan.jobs {
        let runs_programs = crate::plan::engine::flags(job).is_some_and(|f| f.runs_a_program());
        if runs_programs || job.ioengine.starts_with("external") {
            out.push(format!(
                "job '{}': ioengine={} runs programs; refused in the jail",
                shown(&job.name),
                shown(&job.ioengine)
            ));
        }
        for s in &job.options.settings {
            let name = s.def.name;
            let value = s.text.as_deref().unwrap_or("");
            if COMMANDS.contains(&name) {
                out.push(format!(
                    "job '{}': {name} runs a command; refused in the jail",
                    shown(&job.name)
                ));
            } else if PATHS.contains(&name) {
                let outside = value
                    .split(':')
                    .filter(|p| !p.is_empty() && *p != "1" && *p != "0")
                    .find(|p| !inside_jail(jail, cwd, Path::new(p)));
                if let Some(p) = outside {
                    out.push(format!(
                        "job '{}': {name}={} is outside the jail {}",
                        shown(&job.name),
                        shown(p),
                        jail.display()
                    ));
                }
            }
        }
        for f in &job.files {
            if !inside_jail(jail, cwd, &f.path) {
                out.push(format!(
                    "job '{}': file {} is outside the jail {}",
                    shown(&job.name),
                    shown(&f.path.to_string_lossy()),
                    jail.display()
                ));
            }
        }
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks() {
        let lo = Cidr::parse("127.0.0.0/8").unwrap();
        assert!(lo.contains("127.1.2.3".parse().unwrap()));
        assert!(!lo.contains("10.0.0.1".parse().unwrap()));
        assert!(lo.contains("::ffff:127.0.0.1".parse().unwrap()));
        let one = Cidr::parse("192.168.1.7").unwrap();
        assert!(one.contains("192.168.1.7".parse().unwrap()));
        assert!(!one.contains("192.168.1.8".parse().unwrap()));
        let odd = Cidr::parse("10.0.0.0/12").unwrap();
        assert!(odd.contains("10.15.255.255".parse().unwrap()));
        assert!(!odd.contains("10.16.0.0".parse().unwrap()));
        let v6 = Cidr::parse("::1/128").unwrap();
        assert!(v6.contains("::1".parse().unwrap()));
        assert!(!v6.contains("127.0.0.1".parse().unwrap()));
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        assert!(Cidr::parse("nope").is_err());
        assert_eq!(parse_allow("127.0.0.1,::1").unwrap().len(), 2);
    }

    #[test]
    fn includes_with_any_blanks() {
        assert!(has_include(b"[x]\ninclude\t/etc/passwd\n"));
        assert!(has_include(b"  include  a.fio\n"));
        assert!(!has_include(b"[x]\nincludes=1\n# no include here\n"));
    }

    #[test]
    fn tokens() {
        let text = b"[j]\n# rfio-token: s3cret\nrw=read\n";
        assert!(token_matches(text, "s3cret"));
        assert!(!token_matches(text, "s3cre"));
        assert!(!token_matches(text, "s3cret!"));
        assert!(!token_matches(b"[j]\n", "s3cret"));
        // An unset variable expands to nothing on the client: no token.
        assert!(!token_matches(b"# rfio-token: \n", ""));
    }

    #[test]
    fn paths_stay_in_the_jail() {
        let d = std::env::temp_dir().join(format!("rfio-jail-{}", std::process::id()));
        let jail = d.join("jail");
        std::fs::create_dir_all(&jail).unwrap();
        let jail = jail.canonicalize().unwrap();
        assert!(inside_jail(&jail, &jail, Path::new("data/f")));
        assert!(inside_jail(&jail, &jail, Path::new("f")));
        assert!(!inside_jail(&jail, &jail, Path::new("../f")));
        assert!(!inside_jail(&jail, &jail, Path::new("/etc/passwd")));
        assert!(inside_jail(&jail, &jail, &jail.join("x")));
        // A link out of the jail is followed.
        std::os::unix::fs::symlink("/tmp", jail.join("out")).unwrap();
        assert!(!inside_jail(&jail, &jail, Path::new("out/f")));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
