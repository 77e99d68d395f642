//! cty's arbitrary-precision number.

use std::fmt;
use std::str::FromStr;

use bigdecimal::{BigDecimal, ToPrimitive};

/// An arbitrary-precision decimal, as cty numbers are. Equality is numeric: `1` equals `1.0`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Number(BigDecimal);

/// A number's text could not be parsed, or its magnitude is out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a decimal number{}", if *.out_of_range { format!(" tfwasm can hold (its decimal exponent is beyond ±{MAX_EXPONENT})") } else { String::new() })]
pub struct ParseNumberError {
    /// The rejected text.
    pub text: String,
    /// Well-formed, but too large or too small in magnitude.
    pub out_of_range: bool,
}

/// Largest decimal exponent a number may have. Numbers are written out in plain decimal
/// (as go-cty writes them) and compared exactly, so `1e43313291264` would cost gigabytes;
/// float64 ends at 1e308, and nothing in a configuration comes near this bound.
pub const MAX_EXPONENT: i64 = 10_000;

impl Number {
    /// Exact value of an `f64`; `None` for NaN and infinities, which cty cannot hold as state.
    pub fn from_f64(value: f64) -> Option<Number> {
        if !value.is_finite() {
            return None;
        }
        // Display of f64 is the shortest text that round-trips, which is what a
        // Go client decoding the same float64 would print and compare.
        BigDecimal::from_str(&format!("{value}"))
            .ok()
            .map(|d| Number(d.normalized()))
    }

    /// The value as `i64` when it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        if self.0.is_integer() {
            self.0.to_i64()
        } else {
            None
        }
    }

    /// The value as `u64` when it is a non-negative integer in range.
    pub fn to_u64(&self) -> Option<u64> {
        if self.0.is_integer() {
            self.0.to_u64()
        } else {
            None
        }
    }

    /// The nearest `f64`.
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64().unwrap_or(f64::NAN)
    }

    /// The value as an `f64` only when that conversion is exact (the wire sends such
    /// non-integers as float64, as go-cty does).
    pub fn to_exact_f64(&self) -> Option<f64> {
        let f = self.0.to_f64()?;
        Number::from_f64(f).filter(|back| back == self).map(|_| f)
    }

    /// True for whole numbers.
    pub fn is_integer(&self) -> bool {
        self.0.is_integer()
    }
}

impl FromStr for Number {
    type Err = ParseNumberError;
    fn from_str(text: &str) -> Result<Number, ParseNumberError> {
        let trimmed = text.trim();
        let valid = !trimmed.is_empty()
            && trimmed
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'));
        let error = |out_of_range| ParseNumberError {
            text: text.to_owned(),
            out_of_range,
        };
        if !valid {
            return Err(error(false));
        }
        let d = BigDecimal::from_str(trimmed)
            .map_err(|_| error(false))?
            .normalized();
        // Found by fuzzing (fuzz/corpus/json_value/huge-exponent): an exponent in the
        // billions parsed fine and then ran out of memory when written out.
        let (digits, scale) = d.as_bigint_and_exponent();
        let magnitude = digits.magnitude().bits() as i64 / 3 - scale;
        if scale.unsigned_abs() > MAX_EXPONENT as u64 || magnitude.abs() > MAX_EXPONENT {
            return Err(error(true));
        }
        Ok(Number(d))
    }
}

impl From<i64> for Number {
    fn from(value: i64) -> Number {
        Number(BigDecimal::from(value))
    }
}

impl From<u64> for Number {
    fn from(value: u64) -> Number {
        Number(BigDecimal::from(value))
    }
}

impl From<i32> for Number {
    fn from(value: i32) -> Number {
        Number(BigDecimal::from(value))
    }
}

/// Plain decimal text without an exponent, as go-cty writes numbers.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0.normalized();
        let (digits, scale) = d.as_bigint_and_exponent();
        if scale <= 0 {
            let mut s = digits.to_string();
            if digits.sign() != bigdecimal::num_bigint::Sign::NoSign {
                s.push_str(&"0".repeat((-scale) as usize));
            }
            return f.write_str(&s);
        }
        let negative = digits.sign() == bigdecimal::num_bigint::Sign::Minus;
        let magnitude = digits.magnitude().to_string();
        let scale = scale as usize;
        let (int_part, frac_part) = if magnitude.len() > scale {
            let split = magnitude.len() - scale;
            (magnitude[..split].to_owned(), magnitude[split..].to_owned())
        } else {
            (
                "0".to_owned(),
                format!("{}{}", "0".repeat(scale - magnitude.len()), magnitude),
            )
        };
        write!(
            f,
            "{}{}.{}",
            if negative { "-" } else { "" },
            int_part,
            frac_part
        )
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magnitudes_beyond_the_exponent_bound_are_refused_not_expanded() {
        for text in ["4E43313291264", "1e-10001", "-1e10001"] {
            let e = text.parse::<Number>().unwrap_err();
            assert!(e.out_of_range, "{text}");
            assert!(e.to_string().contains("beyond ±10000"), "{e}");
        }
        for text in ["1e308", "1e-308", "1e9999", "123.456e-20"] {
            let n: Number = text.parse().unwrap();
            assert!(n.to_string().len() < 10_100, "{text}");
        }
        assert!(!"x1".parse::<Number>().unwrap_err().out_of_range);
    }

    #[test]
    fn equality_is_numeric() {
        assert_eq!(
            "1".parse::<Number>().unwrap(),
            "1.000".parse::<Number>().unwrap()
        );
        assert_eq!(Number::from(10), "1e1".parse::<Number>().unwrap());
    }

    #[test]
    fn display_has_no_exponent() {
        assert_eq!("1e3".parse::<Number>().unwrap().to_string(), "1000");
        assert_eq!(
            "-0.00125".parse::<Number>().unwrap().to_string(),
            "-0.00125"
        );
        assert_eq!("0".parse::<Number>().unwrap().to_string(), "0");
        assert_eq!(
            "123456789012345678901234567890.5"
                .parse::<Number>()
                .unwrap()
                .to_string(),
            "123456789012345678901234567890.5"
        );
    }

    #[test]
    fn exact_f64_only_when_lossless() {
        assert_eq!("0.5".parse::<Number>().unwrap().to_exact_f64(), Some(0.5));
        assert_eq!("0.1".parse::<Number>().unwrap().to_exact_f64(), Some(0.1));
        assert_eq!(
            "0.1000000000000000000001"
                .parse::<Number>()
                .unwrap()
                .to_exact_f64(),
            None
        );
    }

    #[test]
    fn garbage_is_rejected() {
        assert!("abc".parse::<Number>().is_err());
        assert!("".parse::<Number>().is_err());
        assert!("NaN".parse::<Number>().is_err());
    }
}
