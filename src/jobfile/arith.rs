//! Integer arithmetic in option values.
//!
//! Two places use it:
//! - keyword math (`size=$pagesize*2`), which fio 3.33 pipes through `bc`
//!   (integer division, `^` is power, `%` is remainder);
//! - parenthesised expressions (`bs=(2*2048)`), documented by upstream fio
//!   for every numeric option. Debian's fio 3.33 is built without them and
//!   fails to parse such values; rfio accepts them as upstream documents.
//!   Numbers inside may carry unit suffixes (`(4k*2)`), which the caller
//!   resolves through `atom`.
//!
//! Grammar (`grammar/jobfile.ebnf`, rule `expr`):
//! `expr = term { ("+"|"-") term }`, `term = power { ("*"|"/"|"%") power }`,
//! `power = unary [ "^" power ]`, `unary = [ "-" | "+" ] unary | primary`,
//! `primary = "(" expr ")" | number`.

pub(crate) use super::Error;

/// How numbers inside an expression are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Plain decimal integers, as `bc` reads them.
    Bc,
}

/// Evaluate `text` as a whole expression.
pub(crate) fn eval(text: &str, mode: Mode) -> Result<i64, Error> {
    eval_with(text, &|atom: &str| match mode {
        Mode::Bc => atom
            .parse::<i64>()
            .map_err(|_| Error::NotANumber(atom.to_string())),
    })
}

/// Evaluate `text`, reading each number (digits and the letters after them)
/// with `atom`.
pub(crate) fn eval_with(
    text: &str,
    atom: &dyn Fn(&str) -> Result<i64, Error>,
) -> Result<i64, Error> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        atom,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(Error::Trailing {
            rest: text[p.pos..].to_string(),
            text: text.to_string(),
        });
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    atom: &'a dyn Fn(&str) -> Result<i64, Error>,
    depth: u32,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<i64, Error> {
        let mut v = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.term()?;
            v = if op == b'+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or(Error::Overflow)?;
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<i64, Error> {
        let mut v = self.power()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            let r = self.power()?;
            v = match op {
                b'*' => v.checked_mul(r).ok_or(Error::Overflow)?,
                _ if r == 0 => return Err(Error::DivisionByZero),
                b'/' => v / r,
                _ => v % r,
            };
        }
        Ok(v)
    }

    fn power(&mut self) -> Result<i64, Error> {
        let base = self.unary()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let exp = self.power()?;
            let exp = u32::try_from(exp).map_err(|_| Error::BadExponent)?;
            return base.checked_pow(exp).ok_or(Error::Overflow);
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<i64, Error> {
        self.depth += 1;
        if self.depth > 64 {
            return Err(Error::TooDeep);
        }
        let v = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                self.unary()?.checked_neg().ok_or(Error::Overflow)?
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()?
            }
            _ => self.primary()?,
        };
        self.depth -= 1;
        Ok(v)
    }

    fn primary(&mut self) -> Result<i64, Error> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(Error::MissingParen);
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                // The bytes are ASCII alphanumerics, so this is valid UTF-8.
                let text = std::str::from_utf8(&self.s[start..self.pos])
                    .map_err(|e| Error::Number(e.to_string()))?;
                (self.atom)(text)
            }
            Some(c) => Err(Error::Unexpected(c as char)),
            None => Err(Error::EndsEarly),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bc_rules() {
        assert_eq!(eval("4096*2", Mode::Bc), Ok(8192));
        assert_eq!(eval("2+3*4", Mode::Bc), Ok(14));
        assert_eq!(eval("(2+3)*4", Mode::Bc), Ok(20));
        assert_eq!(eval("7/2", Mode::Bc), Ok(3));
        assert_eq!(eval("7%4", Mode::Bc), Ok(3));
        assert_eq!(eval("2^10", Mode::Bc), Ok(1024));
        assert_eq!(eval("2^3^2", Mode::Bc), Ok(512));
        assert_eq!(eval("-3+5", Mode::Bc), Ok(2));
        assert_eq!(eval("1/0", Mode::Bc), Err(Error::DivisionByZero));
        assert_eq!(eval("2*", Mode::Bc), Err(Error::EndsEarly));
        assert_eq!(eval("(2", Mode::Bc), Err(Error::MissingParen));
        assert_eq!(
            eval("4k", Mode::Bc).unwrap_err().to_string(),
            "'4k' is not a number"
        );
        assert_eq!(
            eval("2 3", Mode::Bc).unwrap_err().to_string(),
            "unexpected '3' in expression '2 3'"
        );
        assert_eq!(eval(&"(".repeat(500), Mode::Bc), Err(Error::TooDeep));
    }
}
