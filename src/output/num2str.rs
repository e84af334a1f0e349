//! fio's number formatter (`lib/num2str.c`, fio 3.33).

/// The unit appended after the prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    None,
    Byte,
    BytePerSec,
    BitPerSec,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Byte => "B",
            Unit::BytePerSec => "B/s",
            Unit::BitPerSec => "bit/s",
        }
    }
}

const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// Format `num` in at most `maxlen` digits, stepping by 1024 (`pow2`) or
/// 1000 with the matching prefixes, as fio's `num2str(num, maxlen, 1, pow2, unit)`.
pub(crate) fn num2str(num: u64, maxlen: usize, pow2: bool, unit: Unit) -> String {
    num2str_from(num, maxlen, 0, pow2, unit)
}

/// [`num2str`] of a number that counts units of prefix `first` already
/// (fio's `base` above 1: `num2str(bw / kb_base, 4, kb_base, ...)` starts
/// at `Ki` or `k`, whichever step `pow2` picks).
pub(crate) fn num2str_from(
    num: u64,
    maxlen: usize,
    first: usize,
    pow2: bool,
    unit: Unit,
) -> String {
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let prefixes = if pow2 { &IEC } else { &SI };
    let mut num = match unit {
        Unit::BitPerSec => num.wrapping_mul(8),
        _ => num,
    };
    let mut post = first;
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < SI.len() {
        if digits(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    let plain = |num: u64, post: usize| {
        let post = if post >= SI.len() { 0 } else { post };
        format!("{num}{}{}", prefixes[post], unit.suffix())
    };
    let Some(modulo) = modulo else {
        return plain(num, post);
    };
    let len = digits(num);
    if maxlen.saturating_sub(len) <= 1 {
        return plain(num + u64::from(carry), post);
    }
    let decimals = maxlen - len - 1;
    let frac = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    // "0.96" rounded to one decimal is "1.0": carry into the integer part.
    let (num, frac) = match frac.strip_prefix("1.") {
        Some(rest) => (num + 1, rest.to_string()),
        None => (num, frac[2..].to_string()),
    };
    let post = if post >= SI.len() { 0 } else { post };
    format!("{num}.{frac}{}{}", prefixes[post], unit.suffix())
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |l| l as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observed_fio_outputs() {
        assert_eq!(num2str(1999, 4, false, Unit::None), "1999");
        assert_eq!(num2str(32000, 4, false, Unit::None), "32.0k");
        assert_eq!(num2str(146_341, 4, false, Unit::None), "146k");
        assert_eq!(num2str(4_096_000, 4, false, Unit::None), "4096k");
        assert_eq!(num2str(8_187_904, 4, true, Unit::BytePerSec), "7996KiB/s");
        assert_eq!(num2str(8_187_904, 4, false, Unit::BytePerSec), "8188kB/s");
        assert_eq!(num2str(16 << 20, 4, true, Unit::Byte), "16.0MiB");
        assert_eq!(num2str(16 << 20, 4, false, Unit::Byte), "16.8MB");
        assert_eq!(
            num2str(16_777_216_000, 4, true, Unit::BytePerSec),
            "15.6GiB/s"
        );
        assert_eq!(
            num2str(16_777_216_000, 4, false, Unit::BytePerSec),
            "16.8GB/s"
        );
        assert_eq!(num2str(4096, 4, true, Unit::Byte), "4096B");
        assert_eq!(num2str(65536, 4, true, Unit::Byte), "64.0KiB");
        assert_eq!(num2str(1_048_576, 4, true, Unit::Byte), "1024KiB");
        assert_eq!(num2str(1_401_500, 6, false, Unit::None), "1401.5k");
        assert_eq!(num2str(512_000, 6, false, Unit::None), "512000");
    }
}
