//! `--alloc-size=KiB`: the size of fio's shared memory pool (`smalloc`,
//! where fio keeps what its job processes share: file and disk state,
//! verify lists), 16 MiB by default. fio reads the value with `atoi`
//! (digits after optional blanks and a sign; anything else is 0), shifts
//! it into KiB in an unsigned int, and raises anything under 16 MiB to
//! 16 MiB. It checks nothing: a negative size makes it crash.
//!
//! rfio runs its jobs as threads of one process and has no shared pool
//! to size: it reads the value as fio does, refuses a negative one, and
//! otherwise ignores it.

use super::args::error::ArgError;

/// Check `--alloc-size`'s value; Err: why it is refused.
pub(crate) fn alloc_size(value: &str) -> Result<(), ArgError> {
    if atoi(value) < 0 {
        return Err(ArgError::AllocSize(value.to_string()));
    }
    Ok(())
}

/// C's `atoi`: optional blanks, an optional sign, then decimal digits
/// (as many as there are; 0 for none).
fn atoi(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg {
        -v
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_as_atoi() {
        assert_eq!(atoi("16384"), 16384);
        assert_eq!(atoi(" 4k"), 4);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("-5"), -5);
        assert_eq!(atoi("+7"), 7);
        assert!(alloc_size("0").is_ok());
        assert!(alloc_size("abc").is_ok());
        assert!(alloc_size("1000000000").is_ok());
        assert_eq!(
            alloc_size("-5").unwrap_err().to_string(),
            "bad --alloc-size value '-5': the pool size cannot be negative"
        );
        assert!(alloc_size("-0").is_ok());
    }
}
