//! `plids` (fio 3.38; `fdp_pli` from 3.34): placement IDs and ranges as
//! fio's `str_fdp_pli_cb` reads them.

/// fio's `FIO_MAX_DP_IDS`.
const MAX_IDS: usize = 128;

/// What fio says of `plids=TEXT` when it cannot read it (the lines before
/// its `failed parsing`; none for a range that runs backwards), else the
/// IDs.
pub(crate) fn parse_plids(text: &str) -> Result<Vec<u32>, Vec<String>> {
    let mut ids = Vec::new();
    for item in text.trim().split(',') {
        if item.is_empty() {
            break;
        }
        let mut pieces = item.split('-');
        let first = pieces.next().unwrap_or("");
        let start = strtoul(first);
        // The last non-empty piece after the first ends the range.
        let mut end = None;
        for p in std::iter::once(first).chain(pieces) {
            if p.is_empty() {
                break;
            }
            end = Some(strtoul(p));
        }
        let end = end.unwrap_or(start);
        if start > end {
            return Err(Vec::new());
        }
        for id in start..=end {
            if ids.len() >= MAX_IDS {
                return Err(vec![format!("fio: only {MAX_IDS} IDs supported")]);
            }
            if id > 0xffff {
                return Err(vec!["Placement IDs cannot exceed 0xFFFF".into()]);
            }
            ids.push(id);
        }
    }
    Ok(ids)
}

/// C's `strtoull(text, NULL, 0)` kept to 32 bits (fio stores it in an
/// `unsigned int`): leading blanks, a sign, `0x` hex or `0` octal, the
/// digits up to the first other character (none: 0).
fn strtoul(text: &str) -> u32 {
    let t = text.trim_start();
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.starts_with('0') {
        (8, t)
    } else {
        (10, t)
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v
            .saturating_mul(u64::from(radix))
            .saturating_add(u64::from(d));
    }
    let v = if negative { v.wrapping_neg() } else { v };
    v as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plids_read_as_fio_reads_them() {
        assert_eq!(parse_plids("1,3-5"), Ok(vec![1, 3, 4, 5]));
        assert_eq!(parse_plids("0x10,010"), Ok(vec![16, 8]));
        // Not a number: 0, as strtoull says.
        assert_eq!(parse_plids("abc"), Ok(vec![0]));
        // An empty item ends the list.
        assert_eq!(parse_plids("1,,2"), Ok(vec![1]));
        assert_eq!(parse_plids("5-3"), Err(vec![]));
        assert_eq!(
            parse_plids("99999"),
            Err(vec!["Placement IDs cannot exceed 0xFFFF".to_string()])
        );
        assert_eq!(
            parse_plids("0-128"),
            Err(vec!["fio: only 128 IDs supported".to_string()])
        );
        assert_eq!(parse_plids("0-127").map(|v| v.len()), Ok(128));
    }
}
