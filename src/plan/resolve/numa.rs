//! `numa_cpu_nodes` and `numa_mem_policy`, checked as fio 3.33 checks them
//! when it reads them (`options.c` `str_numa_cpunodes_cb` and
//! `str_numa_mpol_cb`, which hand the node lists to libnuma's
//! `numa_parse_nodestring`).
//!
//! A node list is read as libnuma 2.0 reads it: `all`, or comma-separated
//! node numbers and `A-B` ranges (numbers as C's `strtoul` with base 0
//! reads them: `0x1` and `010` too), the whole optionally preceded by `!`
//! (every configured node but these) and then `+` (numbers counted among
//! the allowed nodes). Every node named must be one this process may use
//! (its cpuset's `Mems_allowed`, or every configured node when that names
//! node 0 at most); libnuma's warning and fio's refusal become the plan's
//! error. The `netdev:`, `file:`, `pci:` and `block:` forms (nodes near a
//! device) are refused: rfio does not resolve devices to nodes.

use std::sync::OnceLock;

use crate::plan::error::{Error, NodeError, PolicyError};

/// `numa_mem_policy=`, resolved (fio's `numa_mem_mode` with its nodes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MemPolicy {
    /// `default`: fio leaves the thread's policy alone.
    Default,
    /// `prefer:N`: the node as C's `atoi` reads it.
    Prefer(i64),
    /// `bind:LIST`.
    Bind(Vec<usize>),
    /// `interleave[:LIST]` (`all` without a list).
    Interleave(Vec<usize>),
    /// `local`.
    Local,
}

/// The machine's nodes as libnuma sees them when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nodes {
    /// The nodes this process may use (libnuma's `numa_all_nodes_ptr`).
    pub(crate) allowed: Vec<usize>,
    /// One more than the highest node in /sys/devices/system/node.
    pub(crate) configured: usize,
    /// Bits of the kernel's node mask (libnuma's `nodemask_sz`).
    pub(crate) mask_bits: usize,
}

impl Nodes {
    /// The machine's nodes, read once per process.
    pub(crate) fn of_machine() -> &'static Nodes {
        static NODES: OnceLock<Nodes> = OnceLock::new();
        NODES.get_or_init(|| {
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let configured = std::fs::read_dir("/sys/devices/system/node")
                .map(|d| {
                    d.flatten()
                        .filter_map(|e| {
                            let name = e.file_name().into_string().ok()?;
                            name.strip_prefix("node")?.parse::<usize>().ok()
                        })
                        .max()
                        .map_or(1, |n| n + 1)
                })
                .unwrap_or(1);
            Nodes::from_status(&status, configured)
        })
    }

    /// The nodes of a `/proc/self/status` text on a machine with
    /// `configured` nodes.
    pub(crate) fn from_status(status: &str, configured: usize) -> Nodes {
        let mems = status
            .lines()
            .find_map(|l| l.strip_prefix("Mems_allowed:\t"))
            .unwrap_or("");
        // libnuma: 9 characters (8 hex digits and a comma or the newline)
        // per 32 bits.
        let mask_bits = match (mems.len() + 1) * 32 / 9 {
            0 => 1024,
            n => n,
        };
        let mut allowed: Vec<usize> = Vec::new();
        for (i, group) in mems.split(',').rev().enumerate() {
            let word = u32::from_str_radix(group.trim(), 16).unwrap_or(0);
            allowed.extend((0..32).filter(|b| word >> b & 1 == 1).map(|b| i * 32 + b));
        }
        // libnuma takes a mask naming node 0 at most for "every node".
        if allowed.iter().all(|&n| n == 0) {
            allowed = (0..configured).collect();
        }
        Nodes {
            allowed,
            configured,
            mask_bits,
        }
    }

    fn allows(&self, node: u64) -> bool {
        usize::try_from(node).is_ok_and(|n| self.allowed.contains(&n))
    }
}

/// C's `strtoul(s, &end, 0)`: the value and the rest of `s` (all of `s`
/// when no number starts it).
fn strtoul(s: &str) -> (u64, &str) {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if (t.starts_with("0x") || t.starts_with("0X"))
        && t[2..].starts_with(|c: char| c.is_ascii_hexdigit())
    {
        (16, &t[2..])
    } else if t.starts_with('0') {
        (8, t)
    } else {
        (10, t)
    };
    let len = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    if len == 0 {
        return (0, s);
    }
    let n = digits[..len].chars().fold(0u64, |acc, c| {
        acc.saturating_mul(u64::from(radix))
            .saturating_add(u64::from(c.to_digit(radix).unwrap_or(0)))
    });
    (if neg { n.wrapping_neg() } else { n }, &digits[len..])
}

/// libnuma's `get_nr`: a node number, counted among the allowed nodes
/// when `relative`.
fn node_number<'s>(s: &'s str, nodes: &Nodes, relative: bool) -> (u64, &'s str) {
    let (n, rest) = strtoul(s);
    if !relative || rest.len() == s.len() {
        return (n, rest);
    }
    // The n-th allowed node (0-based), or past every node.
    let node = nodes
        .allowed
        .get(usize::try_from(n).unwrap_or(usize::MAX))
        .map_or(nodes.mask_bits as u64, |&n| n as u64);
    (node, rest)
}

/// libnuma's `numa_parse_nodestring`: the nodes of `text`, or libnuma's
/// warning (empty when it prints none).
pub(crate) fn parse_nodes(text: &str, nodes: &Nodes) -> Result<Vec<usize>, NodeError> {
    let mut set: Vec<usize> = Vec::new();
    if text.is_empty() {
        return Ok(set);
    }
    let mut s = text;
    let invert = s.starts_with('!');
    if invert {
        s = &s[1..];
    }
    let relative = s.starts_with('+');
    if relative {
        s = &s[1..];
    }
    loop {
        if s.starts_with(|c: char| c.is_ascii_alphabetic()) {
            if s == "all" {
                set = nodes.allowed.clone();
                break;
            }
            if ["netdev:", "file:", "ip:", "pci:", "block:"]
                .iter()
                .any(|p| s.starts_with(p))
            {
                return Err(NodeError::Device(s.to_string()));
            }
        }
        let (arg, rest) = node_number(s, nodes, relative);
        if rest.len() == s.len() {
            return Err(NodeError::Unparseable(s.to_string()));
        }
        if !nodes.allows(arg) {
            return Err(NodeError::OutOfRange(arg as i32));
        }
        set.push(arg as usize);
        s = rest;
        if let Some(after) = s.strip_prefix('-') {
            let (arg2, rest2) = node_number(after, nodes, relative);
            if rest2.len() == after.len() {
                return Err(NodeError::MissingArgument(after.to_string()));
            }
            if !nodes.allows(arg2) {
                return Err(NodeError::EndOutOfRange(arg2 as i32));
            }
            set.extend(
                (arg..=arg2)
                    .filter(|&n| nodes.allows(n))
                    .map(|n| n as usize),
            );
            s = rest2;
        }
        match s.strip_prefix(',') {
            Some(more) => s = more,
            None if s.is_empty() => break,
            // Something after a number: refused without a warning.
            None => return Err(NodeError::Trailing),
        }
    }
    if invert {
        set = (0..nodes.configured).filter(|n| !set.contains(n)).collect();
    }
    set.sort_unstable();
    set.dedup();
    Ok(set)
}

/// `numa_cpu_nodes=TEXT`.
pub(crate) fn cpu_nodes(text: &str, nodes: &Nodes) -> Result<Vec<usize>, Error> {
    parse_nodes(text, nodes).map_err(|w| refusal("numa_cpu_nodes", text, w))
}

/// `numa_mem_policy=TEXT`, with fio's messages for a bad one.
pub(crate) fn mem_policy(text: &str, nodes: &Nodes) -> Result<MemPolicy, Error> {
    let bad = |why| Error::MemPolicy {
        text: text.to_string(),
        why,
    };
    let (mode, list) = match text.split_once(':') {
        Some((m, l)) => (m, Some(l)),
        None => (text, None),
    };
    let policy = match (mode, list) {
        ("default" | "local", Some(_)) => return Err(bad(PolicyError::NodeListGiven)),
        ("default", None) => MemPolicy::Default,
        ("local", None) => MemPolicy::Local,
        ("prefer", None) => {
            return Err(bad(PolicyError::PreferNeedsNode));
        }
        ("prefer", Some(l)) => {
            if !l.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(PolicyError::PreferOneNode));
            }
            // C's atoi: "" is 0.
            MemPolicy::Prefer(
                l.parse::<i64>()
                    .unwrap_or(if l.is_empty() { 0 } else { i64::MAX }),
            )
        }
        ("bind", None) => return Err(bad(PolicyError::BindNeedsList)),
        ("bind", Some(l)) => {
            MemPolicy::Bind(parse_nodes(l, nodes).map_err(|w| refusal("numa_mem_policy", text, w))?)
        }
        ("interleave", l) => MemPolicy::Interleave(
            parse_nodes(l.unwrap_or("all"), nodes)
                .map_err(|w| refusal("numa_mem_policy", text, w))?,
        ),
        _ => return Err(bad(PolicyError::Unknown)),
    };
    Ok(policy)
}

fn refusal(option: &'static str, text: &str, warning: NodeError) -> Error {
    Error::NodeList {
        option,
        text: text.to_string(),
        warning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One node (this machine's usual shape), and four of which 1 and 3
    /// are allowed.
    fn one() -> Nodes {
        Nodes::from_status("Mems_allowed:\t00000000,00000001\n", 1)
    }
    fn four_odd() -> Nodes {
        Nodes::from_status("Mems_allowed:\t00000000,0000000a\n", 4)
    }

    #[test]
    fn masks_read_as_libnuma() {
        let n = one();
        assert_eq!(
            (n.allowed.clone(), n.configured, n.mask_bits),
            (vec![0], 1, 64)
        );
        assert_eq!(four_odd().allowed, vec![1, 3]);
        let s = format!("Mems_allowed:\t{}00000001\n", "00000000,".repeat(31));
        assert_eq!(Nodes::from_status(&s, 1).mask_bits, 1024);
    }

    #[test]
    fn node_lists_as_libnuma_reads_them() {
        let n = one();
        for ok in ["0", "all", "0-0", "+0", "0,0", "00", "0x0"] {
            assert_eq!(parse_nodes(ok, &n), Ok(vec![0]), "{ok}");
        }
        assert_eq!(parse_nodes("!0", &n), Ok(vec![]));
        assert_eq!(parse_nodes("1", &n), Err(NodeError::OutOfRange(1)));
        assert_eq!(
            NodeError::OutOfRange(1).to_string(),
            "node argument 1 is out of range"
        );
        assert_eq!(parse_nodes("0-1", &n), Err(NodeError::EndOutOfRange(1)));
        assert_eq!(
            NodeError::EndOutOfRange(1).to_string(),
            "node argument 1 out of range"
        );
        assert_eq!(
            parse_nodes("x", &n),
            Err(NodeError::Unparseable("x".into()))
        );
        assert_eq!(
            NodeError::Unparseable("x".into()).to_string(),
            "unparseable node description `x'"
        );
        assert_eq!(parse_nodes("0x", &n), Err(NodeError::Trailing));
        assert_eq!(
            parse_nodes("0-", &n),
            Err(NodeError::MissingArgument(String::new()))
        );
        assert_eq!(
            cpu_nodes("0x", &n).unwrap_err().to_string(),
            "numa_cpu_nodes=0x: not a node list (fio: numa_parse_nodestring failed)"
        );
        let f = four_odd();
        assert_eq!(parse_nodes("1-3", &f), Ok(vec![1, 3]));
        assert_eq!(parse_nodes("+1", &f), Ok(vec![3]));
        assert_eq!(parse_nodes("!1", &f), Ok(vec![0, 2, 3]));
        assert!(parse_nodes("2", &f).is_err());
    }

    #[test]
    fn policies_as_fio_checks_them() {
        let n = one();
        assert_eq!(mem_policy("default", &n).ok(), Some(MemPolicy::Default));
        assert_eq!(mem_policy("local", &n).ok(), Some(MemPolicy::Local));
        assert_eq!(
            mem_policy("interleave", &n).ok(),
            Some(MemPolicy::Interleave(vec![0]))
        );
        assert_eq!(
            mem_policy("interleave:!0", &n).ok(),
            Some(MemPolicy::Interleave(vec![]))
        );
        assert_eq!(
            mem_policy("bind:0", &n).ok(),
            Some(MemPolicy::Bind(vec![0]))
        );
        assert_eq!(mem_policy("bind:", &n).ok(), Some(MemPolicy::Bind(vec![])));
        assert_eq!(mem_policy("prefer:5", &n).ok(), Some(MemPolicy::Prefer(5)));
        assert_eq!(mem_policy("prefer:", &n).ok(), Some(MemPolicy::Prefer(0)));
        for (bad, why) in [
            ("bind", "a nodelist is needed for 'bind'"),
            ("prefer", "one node is needed for 'prefer'"),
            ("prefer:x", "one node only for 'prefer'"),
            ("local:0", "NO nodelist"),
            ("default:0", "NO nodelist"),
            ("foo", "memory policy should be"),
            ("bind:1", "node argument 1 is out of range"),
        ] {
            let e = mem_policy(bad, &n).unwrap_err().to_string();
            assert!(e.starts_with(&format!("numa_mem_policy={bad}: ")), "{e}");
            assert!(e.contains(why), "{bad}: {e}");
        }
        // A caller can tell why.
        assert!(matches!(
            mem_policy("bind", &n),
            Err(Error::MemPolicy {
                why: PolicyError::BindNeedsList,
                ..
            })
        ));
        assert!(matches!(
            mem_policy("bind:1", &n),
            Err(Error::NodeList {
                option: "numa_mem_policy",
                warning: NodeError::OutOfRange(1),
                ..
            })
        ));
    }
}
