//! go-cty holds a number as Go's `big.Float`: binary floating point of 512 bits when parsed
//! from text, of 53 when it arrived as a float64. These are the parts of that arithmetic
//! tfwasm needs to agree with it exactly: the nearest 512-bit float to a decimal, the
//! shortest decimal that identifies a float at its precision (`Text('f', -1)`, what go-cty
//! writes), and a float's first ten digits (`String()`, which orders sets of objects).
//! The rounding follows Go's `math/big` step by step, quirks included.

use std::cmp::Ordering;

use bigdecimal::num_bigint::BigUint;
use bigdecimal::num_traits::{One, Zero};

/// Decimal digits `0.d₁d₂d₃… × 10^exp`, as Go's `big.decimal`: ASCII digits without leading
/// or trailing zeros (none at all for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digits {
    pub mant: Vec<u8>,
    pub exp: i64,
}

impl Digits {
    /// The exact decimal of `m × 2^shift`.
    pub fn of_binary(m: &BigUint, shift: i64) -> Digits {
        if m.is_zero() {
            return Digits {
                mant: Vec::new(),
                exp: 0,
            };
        }
        let (n, k) = if shift >= 0 {
            (m << shift as u64, 0)
        } else {
            // Trailing zero bits first, so the power of five stays small.
            let tz = m.trailing_zeros().unwrap_or(0).min(shift.unsigned_abs());
            let m = m >> tz;
            let k = shift.unsigned_abs() - tz;
            (m * BigUint::from(5u8).pow(k as u32), k as i64)
        };
        Digits::of_integer(&n, -k)
    }

    /// A finite, non-zero float64's exact value rounded to ten digits, half to even.
    pub fn ten_of_f64(f: f64) -> Digits {
        let text = format!("{:.9e}", f.abs());
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let mut out = Digits {
            mant: mantissa.bytes().filter(u8::is_ascii_digit).collect(),
            exp: exp.parse::<i64>().unwrap_or(0) + 1,
        };
        out.trim();
        out
    }

    /// The decimal of `n × 10^exp10`.
    pub fn of_integer(n: &BigUint, exp10: i64) -> Digits {
        Digits::of_integer_text(n.to_str_radix(10).into_bytes(), exp10)
    }

    /// The digits of an integer.
    pub fn of_u64(n: u64) -> Digits {
        Digits::of_integer_text(n.to_string().into_bytes(), 0)
    }

    /// An integer's decimal text, times `10^exp10`.
    fn of_integer_text(text: Vec<u8>, exp10: i64) -> Digits {
        let mut out = Digits {
            exp: text.len() as i64 + exp10,
            mant: text,
        };
        out.trim();
        out
    }

    fn trim(&mut self) {
        while self.mant.last() == Some(&b'0') {
            self.mant.pop();
        }
        if self.mant.is_empty() {
            self.exp = 0;
        }
    }

    /// The `i`th digit, `'0'` beyond the last.
    pub fn at(&self, i: usize) -> u8 {
        self.mant.get(i).copied().unwrap_or(b'0')
    }

    /// Rounds to `n` digits, half to even on an exact tie (Go's `decimal.round`).
    pub fn round(&mut self, n: usize) {
        if n >= self.mant.len() {
            return;
        }
        if self.should_round_up(n) {
            self.round_up(n);
        } else {
            self.round_down(n);
        }
    }

    fn should_round_up(&self, n: usize) -> bool {
        if self.mant[n] == b'5' && n + 1 == self.mant.len() {
            return n > 0 && (self.mant[n - 1] - b'0') & 1 != 0;
        }
        self.mant[n] >= b'5'
    }

    /// Rounds a tie at ten digits towards the side the value's float lies on (`Equal`: the
    /// float is the tie itself, half to even).
    pub fn round_tie(&mut self, side: std::cmp::Ordering) {
        match side {
            std::cmp::Ordering::Greater => self.round_up(10),
            std::cmp::Ordering::Less => self.round_down(10),
            std::cmp::Ordering::Equal => self.round(10),
        }
    }

    pub fn round_up(&mut self, mut n: usize) {
        if n >= self.mant.len() {
            return;
        }
        while n > 0 && self.mant[n - 1] >= b'9' {
            n -= 1;
        }
        if n == 0 {
            self.mant.truncate(1);
            self.mant[0] = b'1';
            self.exp += 1;
            return;
        }
        self.mant[n - 1] += 1;
        self.mant.truncate(n);
    }

    pub fn round_down(&mut self, n: usize) {
        if n >= self.mant.len() {
            return;
        }
        self.mant.truncate(n);
        self.trim();
    }

    /// Plain decimal text (`Text('f', -1)` of these digits), without a sign.
    pub fn plain(&self) -> String {
        self.fixed((self.mant.len() as i64 - self.exp).max(0))
    }

    /// The digits in fixed notation with `fraction` digits after the point (zeros past the
    /// last digit), without a sign.
    fn fixed(&self, fraction: i64) -> String {
        let mut out = String::new();
        if self.exp > 0 {
            let m = (self.mant.len() as i64).min(self.exp) as usize;
            out.push_str(std::str::from_utf8(&self.mant[..m]).expect("digits"));
            for _ in m as i64..self.exp {
                out.push('0');
            }
        } else {
            out.push('0');
        }
        if fraction > 0 {
            out.push('.');
            for i in 0..fraction {
                out.push(self.at((self.exp + i) as usize) as char);
            }
        }
        out
    }

    /// `%g` with ten significant digits, as `big.Float.String()` writes a number, without a
    /// sign; the digits must already be rounded to ten.
    pub fn general10(&self) -> String {
        let prec: i64 = 10;
        let len = self.mant.len() as i64;
        let mut eprec = prec;
        if eprec > len && len >= self.exp {
            eprec = len;
        }
        let exp = self.exp - 1;
        if exp < -4 || exp >= eprec {
            let prec = prec.min(len) - 1;
            let mut out = String::new();
            out.push(*self.mant.first().unwrap_or(&b'0') as char);
            if prec > 0 {
                out.push('.');
                for i in 1..=prec as usize {
                    out.push(self.at(i) as char);
                }
            }
            let e = if self.mant.is_empty() {
                0
            } else {
                self.exp - 1
            };
            out.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
            return out;
        }
        let prec = if prec > self.exp { len } else { prec };
        self.fixed((prec - self.exp).max(0))
    }
}

/// The exact value of a finite nonzero `f64`'s magnitude as `m × 2^e`.
pub(crate) fn of_f64(f: f64) -> (BigUint, i64) {
    let bits = f.abs().to_bits();
    let exponent = (bits >> 52) as i64;
    let fraction = bits & ((1 << 52) - 1);
    if exponent == 0 {
        (BigUint::from(fraction), -1074)
    } else {
        (BigUint::from(fraction | (1 << 52)), exponent - 1075)
    }
}

/// The `prec`-bit float nearest to `digits × 10^exp10` (ties to even), as `m × 2^e` with `m`
/// of exactly `prec` bits, and whether that float is below, equal to or above the decimal.
pub(crate) fn round_decimal(digits: &BigUint, exp10: i64, prec: u64) -> (BigUint, i64, Ordering) {
    // value = num / den exactly.
    let (num, den) = if exp10 >= 0 {
        (
            digits * BigUint::from(10u8).pow(exp10 as u32),
            BigUint::one(),
        )
    } else {
        (
            digits.clone(),
            BigUint::from(10u8).pow(exp10.unsigned_abs() as u32),
        )
    };
    // Scale by 2^s so that the quotient has exactly prec bits.
    let mut s = prec as i64 - (num.bits() as i64 - den.bits() as i64);
    loop {
        let (n, d) = scaled(&num, &den, s);
        let q = &n / &d;
        let bits = q.bits();
        if bits > prec {
            s -= 1;
            continue;
        }
        if bits < prec {
            s += 1;
            continue;
        }
        let r = &n - &q * &d;
        let twice = &r << 1u8;
        let (mut q, ord) = match twice.cmp(&d) {
            Ordering::Less if r.is_zero() => (q, Ordering::Equal),
            Ordering::Less => (q, Ordering::Less),
            Ordering::Greater => (q + 1u8, Ordering::Greater),
            Ordering::Equal => {
                if q.bit(0) {
                    (q + 1u8, Ordering::Greater)
                } else {
                    (q, Ordering::Less)
                }
            }
        };
        let mut e = -s;
        if q.bits() > prec {
            q >>= 1u8;
            e += 1;
        }
        return (q, e, ord);
    }
}

fn scaled(num: &BigUint, den: &BigUint, s: i64) -> (BigUint, BigUint) {
    if s >= 0 {
        (num << s as u64, den.clone())
    } else {
        (num.clone(), den << s.unsigned_abs())
    }
}

/// The shortest decimal that a `prec`-bit float `m × 2^e` rounds back to (Go's
/// `roundShortest`, step by step).
pub(crate) fn shortest(m: &BigUint, e: i64, prec: u64) -> Digits {
    let mut d = Digits::of_binary(m, e);
    if d.mant.is_empty() {
        return d;
    }
    // Mantissa of prec + 1 bits: its last bit is half an ulp.
    let bits = m.bits() as i64;
    let s = bits - (prec as i64 + 1);
    let (mant, exp) = if s < 0 {
        (m << s.unsigned_abs(), e + s)
    } else {
        (m >> s as u64, e + s)
    };
    let lower = Digits::of_binary(&(&mant - 1u8), exp);
    let upper = Digits::of_binary(&(&mant + 1u8), exp);
    let inclusive = !mant.bit(1);
    for i in 0..d.mant.len() {
        let m = d.mant[i];
        let l = lower.at(i);
        let u = upper.at(i);
        let okdown = l != m || inclusive && i + 1 == lower.mant.len();
        let okup = m != u && (inclusive || m + 1 < u || i + 1 < upper.mant.len());
        match (okdown, okup) {
            (true, true) => {
                d.round(i + 1);
                break;
            }
            (true, false) => {
                d.round_down(i + 1);
                break;
            }
            (false, true) => {
                d.round_up(i + 1);
                break;
            }
            (false, false) => {}
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortest_f64(f: f64) -> String {
        let (m, e) = of_f64(f);
        shortest(&m, e, 53).plain()
    }

    #[test]
    fn shortest_digits_of_normal_floats_are_rusts() {
        for f in [
            0.1,
            0.3,
            1.5,
            123.456,
            1e21,
            1e23,
            2.5e-8,
            9_007_199_254_740_993.0,
            f64::MAX,
        ] {
            let rust: bigdecimal::BigDecimal = format!("{f:e}").parse().unwrap();
            let go: bigdecimal::BigDecimal = shortest_f64(f).parse().unwrap();
            assert_eq!(go, rust, "{f:e}");
        }
    }

    #[test]
    fn a_subnormal_float_keeps_53_bits_of_precision() {
        // go-cty holds a float64 in a 53-bit big.Float, so a subnormal prints more digits
        // than the float64 itself needs ("5e-324"); these are the digits go-cty writes.
        let text = shortest_f64(5e-324);
        assert_eq!(text.len(), 341);
        assert!(text.ends_with("4940656458412465"), "{text}");
    }

    #[test]
    fn decimals_round_to_the_nearest_float() {
        let ten = BigUint::from(1u8);
        let (m, e, ord) = round_decimal(&ten, -1, 53);
        assert_eq!((m.clone(), e), of_f64(0.1).clone());
        assert_eq!(
            ord,
            Ordering::Greater,
            "0.1 as a float64 is slightly above 0.1"
        );
        let (_, _, ord) = round_decimal(&BigUint::from(5u8), -1, 53);
        assert_eq!(ord, Ordering::Equal);
    }

    #[test]
    fn ten_digits_as_go_prints_them() {
        let digits = |text: &str, exp: i64| Digits {
            mant: text.as_bytes().to_vec(),
            exp,
        };
        assert_eq!(digits("1", 1).general10(), "1");
        assert_eq!(digits("15", 1).general10(), "1.5");
        assert_eq!(digits("1", 11).general10(), "1e+10");
        assert_eq!(digits("123", -5).general10(), "1.23e-06");
        assert_eq!(digits("123", -3).general10(), "0.000123");
        assert_eq!(digits("1234567891", 10).general10(), "1234567891");
        assert_eq!(digits("", 0).general10(), "0");
    }
}
