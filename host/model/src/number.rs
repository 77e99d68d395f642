//! cty's numbers, as go-cty holds, compares, orders and writes them.

mod binary;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use bigdecimal::num_bigint::{BigInt, BigUint, Sign};
use bigdecimal::{BigDecimal, ToPrimitive, Zero};

/// A cty number.
///
/// go-cty holds a number as a binary float (`big.Float`): 512 bits of mantissa when it was
/// parsed from text, 53 when it arrived as a float64, an exact integer when it arrived as
/// one. A `Number` keeps what decides how go-cty compares, orders and writes it:
/// - a decimal: integers, and decimals of at most [`EXACT_DIGITS`] significant digits, which
///   a 512-bit float prints and compares as the decimal itself (longer ones are rounded to
///   the 512-bit float go-cty would hold);
/// - a binary float: a float64 ([`Number::from_f64`], or one from the wire) or a long
///   decimal rounded to 512 bits, with its exact value and the shortest text that names it.
///
/// Equality is go-cty's: integers compare by exact value, other numbers by their shortest
/// text, so `0.1` parsed from text equals the float64 `0.1` (whose exact value is not 0.1),
/// and `1` equals `1.0`. Writing follows go-cty too: integers within `i64` as msgpack
/// integers, non-integers that are exactly a float64 as float64, everything else as text.
#[derive(Clone)]
pub struct Number(Repr);

#[derive(Clone)]
enum Repr {
    /// Exactly this integer: nearly every number a configuration or a state holds (counts,
    /// lengths, ports), held without a `BigDecimal`'s heap allocation, and compared, hashed
    /// and written without one. Every constructor holds an integer within `i64` this way.
    Int(i64),
    /// Exactly this value, normalized: a non-integer, or an integer beyond `i64`.
    Decimal(BigDecimal),
    /// Exactly this value, normalized, eleven significant digits ending in 5: its hash text
    /// depends on which side of it the nearest 512-bit float lies, found once when parsed
    /// (with an exponent near the bound, 55 µs each time it was asked).
    Tie(Box<(BigDecimal, Ordering)>),
    /// `-0` (text "-0" or the float64 -0.0): equal to zero, written "-0" as text.
    NegativeZero,
    /// A binary float whose text is not its exact value.
    Binary(Box<Binary>),
}

#[derive(Clone)]
struct Binary {
    /// Its exact value.
    exact: BigDecimal,
    /// The shortest decimal that names it at its precision: what go-cty writes.
    text: BigDecimal,
    /// The float64 it is, when it is exactly one.
    float64: Option<f64>,
}

/// A number's text could not be parsed, or its magnitude is out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a decimal number{}", if *.out_of_range { format!(" tfwasm can hold (its decimal exponent is beyond ±{MAX_EXPONENT}, or ±{MAX_LONG_EXPONENT} with more than {EXACT_DIGITS} significant digits, or it has more than {MAX_LONG_DIGITS} significant digits)") } else if *.infinite { " tfwasm can hold (an infinity)".to_owned() } else { String::new() })]
pub struct ParseNumberError {
    /// The rejected text, its first [`QUOTED_CHARS`] characters when longer.
    pub text: String,
    /// Well-formed, but too large or too small in magnitude.
    pub out_of_range: bool,
    /// `Inf`: go-cty parses it, but no state or configuration can hold it.
    pub infinite: bool,
}

/// How much of a rejected text an error repeats: a guest may send megabytes of digits.
pub const QUOTED_CHARS: usize = 64;

/// `text` as an error quotes it: whole when short, else its start and its length.
fn quoted(text: &str) -> String {
    match crate::quote::start(text, QUOTED_CHARS) {
        None => text.to_owned(),
        Some(start) => format!("{start}… ({} bytes)", text.len()),
    }
}

/// Largest decimal exponent a number may have. Numbers are written out in plain decimal
/// (as go-cty writes them) and compared exactly, so `1e43313291264` would cost gigabytes;
/// float64 ends at 1e308, and nothing in a configuration comes near this bound. It was
/// 10,000 until the eighth hostile pass: finding which side of a tie decimal near `e-9990`
/// its float lies took 146 µs (6 µs near `e-990`), and a guest's answer is millions of them.
pub const MAX_EXPONENT: i64 = 1_000;

/// Largest decimal exponent of a number with more than [`EXACT_DIGITS`] significant digits.
/// Such a number is rounded to a 512-bit float exactly, with arithmetic on integers as long as
/// its exponent: 9 ms for each 166-byte number near `e-9990`, so a guest's answer of them
/// took minutes. Float64 ends at 1e308; at this bound rounding costs microseconds.
pub const MAX_LONG_EXPONENT: i64 = 400;

/// Most significant digits a number may have: rounding costs grow with them too.
pub const MAX_LONG_DIGITS: i64 = 1000;

/// Significant digits a decimal keeps exactly. A 512-bit float identifies every decimal of
/// up to 153 digits, so go-cty prints and compares such a decimal as itself; beyond that it
/// rounds, and so does tfwasm.
pub const EXACT_DIGITS: u64 = 150;

/// Mantissa bits of a number go-cty parsed from text.
const TEXT_PRECISION: u64 = 512;

/// Below this magnitude every integer is a float64 and prints as itself.
const EXACT_F64_INTEGERS: f64 = 9_007_199_254_740_992.0;

impl Number {
    /// The float64 `value`, as go-cty holds one; `None` for NaN and infinities, which cty
    /// cannot hold as state.
    pub fn from_f64(value: f64) -> Option<Number> {
        if !value.is_finite() {
            return None;
        }
        if value == 0.0 {
            return Some(Number(if value.is_sign_negative() {
                Repr::NegativeZero
            } else {
                Repr::Int(0)
            }));
        }
        if value.fract() == 0.0 && value.abs() < EXACT_F64_INTEGERS {
            return Some(Number(Repr::Int(value as i64)));
        }
        let (m, e) = binary::of_f64(value);
        let negative = value < 0.0;
        Some(Number(Repr::Binary(Box::new(Binary {
            exact: decimal_of(&binary::Digits::of_binary(&m, e), negative),
            text: decimal_of(&binary::shortest(&m, e, 53), negative),
            float64: Some(value),
        }))))
    }

    /// A decimal as a number: an integer within `i64` as [`Repr::Int`], anything else as
    /// the decimal.
    fn of_decimal(d: BigDecimal) -> Number {
        match Self::small_integer(&d) {
            Some(v) => Number(Repr::Int(v)),
            None => Number(Repr::Decimal(d)),
        }
    }

    /// `d` as an `i64`, when it is an integer in range.
    fn small_integer(d: &BigDecimal) -> Option<i64> {
        (integral(d) && order(d) <= 19)
            .then(|| d.to_i64())
            .flatten()
    }

    /// The exact value (zero for -0); an integer's is built when asked, which only the
    /// paths that mix an integer with another kind of number do.
    fn exact(&self) -> Cow<'_, BigDecimal> {
        static ZERO: std::sync::LazyLock<BigDecimal> = std::sync::LazyLock::new(BigDecimal::zero);
        match &self.0 {
            Repr::Int(v) => Cow::Owned(BigDecimal::from(*v)),
            Repr::Decimal(d) => Cow::Borrowed(d),
            Repr::Tie(t) => Cow::Borrowed(&t.0),
            Repr::NegativeZero => Cow::Borrowed(&ZERO),
            Repr::Binary(b) => Cow::Borrowed(&b.exact),
        }
    }

    /// The shortest text that names it, as a decimal (zero for -0).
    fn text(&self) -> Cow<'_, BigDecimal> {
        match &self.0 {
            Repr::Binary(b) => Cow::Borrowed(&b.text),
            _ => self.exact(),
        }
    }

    /// The value as `i64` when it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(v) => Some(*v),
            _ => Self::small_integer(&self.exact()),
        }
    }

    /// The value as `u64` when it is a non-negative integer in range.
    pub fn to_u64(&self) -> Option<u64> {
        if let Repr::Int(v) = self.0 {
            return u64::try_from(v).ok();
        }
        let d = self.exact();
        (integral(&d) && order(&d) <= 20)
            .then(|| d.to_u64())
            .flatten()
    }

    /// The nearest `f64`.
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            // `as` rounds to nearest, ties to even, as the decimal's conversion does.
            Repr::Int(v) => *v as f64,
            Repr::Binary(b) if b.float64.is_some() => b.float64.unwrap_or_default(),
            Repr::NegativeZero => -0.0,
            _ => self.exact().to_f64().unwrap_or(f64::NAN),
        }
    }

    /// The value as an `f64` when it is not an integer and is exactly a float64: go-cty
    /// writes such numbers as msgpack float64 and the rest as integers or text.
    pub fn to_exact_f64(&self) -> Option<f64> {
        match &self.0 {
            Repr::Binary(b) => b.float64.filter(|f| f.fract() != 0.0),
            Repr::Int(_) | Repr::NegativeZero => None,
            Repr::Decimal(_) | Repr::Tie(_) => {
                let d = &*self.exact();
                // Beyond float64's range, and cheap to tell before converting. A float with
                // k binary fractional digits has k decimal ones, at least 0.69k - 17 of them
                // significant: a decimal of at most 150 digits and scale past 250 is none.
                if integral(d) || order(d).abs() > 330 || d.as_bigint_and_scale().1 > 250 {
                    return None;
                }
                let f = d.to_f64()?;
                (f.is_finite() && exact_f64(f) == *d).then_some(f)
            }
        }
    }

    /// True for whole numbers.
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Binary(b) => b
                .float64
                .map_or_else(|| integral(&b.exact), |f| f.fract() == 0.0),
            Repr::Int(_) => true,
            _ => integral(&self.exact()),
        }
    }

    fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Int(v) => *v < 0,
            Repr::NegativeZero => true,
            _ => self.exact().sign() == Sign::Minus,
        }
    }

    /// `big.Float.String()` of the number (`%.10g`): how go-cty hashes a number inside a
    /// set element, which orders sets of objects.
    pub(crate) fn hash_text(&self) -> String {
        let digits = match &self.0 {
            Repr::Int(v) => ten_digits(binary::Digits::of_u64(v.unsigned_abs()), || self.exact()),
            Repr::Decimal(d) => ten_digits(digits_of(d), || Cow::Borrowed(d)),
            Repr::Tie(t) => {
                let mut digits = digits_of(&t.0);
                digits.round_tie(t.1);
                digits
            }
            Repr::NegativeZero => binary::Digits {
                mant: Vec::new(),
                exp: 0,
            },
            Repr::Binary(b) => match b.float64 {
                // Rust formats a float's exact value rounded half to even, as Go's decimal
                // does: no 750-digit expansion of a subnormal (59 µs) at every set level.
                Some(f) => binary::Digits::ten_of_f64(f),
                None => {
                    let mut digits = digits_of(&b.exact);
                    digits.round(10);
                    digits
                }
            },
        };
        let sign = if self.is_negative() { "-" } else { "" };
        format!("{sign}{}", digits.general10())
    }

    /// For two equal numbers, whether go-cty hashes them alike ([`Number::hash_text`]):
    /// not `0` and `-0`, nor a float64 and a decimal whose ten-digit roundings differ.
    pub(crate) fn hashes_alike(&self, other: &Number) -> bool {
        match (&self.0, &other.0) {
            (Repr::NegativeZero, Repr::NegativeZero) => true,
            (
                Repr::Int(_) | Repr::Decimal(_) | Repr::Tie(_),
                Repr::Int(_) | Repr::Decimal(_) | Repr::Tie(_),
            ) => true,
            (Repr::NegativeZero, _) | (_, Repr::NegativeZero) => false,
            _ => self.is_integer() || self.hash_text() == other.hash_text(),
        }
    }

    /// Hashes what decides [`Number::hashes_alike`] between equal numbers: `-0` apart from
    /// every other number, integers alike, anything else by its hash text.
    pub(crate) fn hash_class<H: Hasher>(&self, state: &mut H) {
        match &self.0 {
            Repr::NegativeZero => state.write_u8(1),
            _ if self.is_integer() => state.write_u8(0),
            _ => self.hash_text().hash(state),
        }
    }

    /// Bytes of the plain decimal text this number is written as (JSON, messages): up to
    /// 10,000 digits from a seven-byte `1e9999`, so whoever writes numbers for a guest can
    /// bound what it writes before writing it.
    pub fn plain_len(&self) -> usize {
        if let Repr::Int(v) = self.0 {
            let digits = v
                .unsigned_abs()
                .checked_ilog10()
                .map_or(1, |l| l as usize + 1);
            return usize::from(v < 0) + digits;
        }
        let text = self.text();
        let (_, scale) = text.as_bigint_and_exponent();
        let digits = text.digits() as i64;
        let sign = usize::from(text.sign() == Sign::Minus || matches!(self.0, Repr::NegativeZero));
        let body = if scale <= 0 {
            digits - scale
        } else if scale < digits {
            digits + 1
        } else {
            scale + 2
        };
        sign + body.max(1) as usize
    }

    /// go-cty's order of numbers (`big.Float.Cmp`), consistent with equality.
    pub fn cmp_value(&self, other: &Number) -> Ordering {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0) {
            return a.cmp(b);
        }
        if self == other {
            return Ordering::Equal;
        }
        let (a, b) = (&*self.exact(), &*other.exact());
        // By sign and order of magnitude first: comparing `7e-9990` with `1.5` as decimals
        // scales one to the other's exponent, a 33,000-bit multiplication.
        let sign = |d: &BigDecimal| match d.sign() {
            Sign::Minus => -1,
            Sign::NoSign => 0,
            Sign::Plus => 1,
        };
        match sign(a).cmp(&sign(b)) {
            Ordering::Equal if sign(a) != 0 => {}
            unequal => return unequal,
        }
        match order(a).cmp(&order(b)) {
            Ordering::Equal => a.cmp(b),
            by_order if sign(a) > 0 => by_order,
            by_order => by_order.reverse(),
        }
    }
}

/// A decimal's `digits` rounded to ten. A 512-bit float is within 2^-512 of the decimal, so
/// it rounds to the same ten digits unless the decimal sits exactly on a tie; then which side
/// of it the float lies decides (`decimal`, asked for only then).
fn ten_digits<'a>(
    mut digits: binary::Digits,
    decimal: impl FnOnce() -> Cow<'a, BigDecimal>,
) -> binary::Digits {
    match is_tie(&digits).then(|| float_side(&decimal())) {
        Some(side) => digits.round_tie(side),
        None => digits.round(10),
    }
    digits
}

/// Whether ten-digit rounding of `digits` sits on a tie (eleven digits, the last a 5).
fn is_tie(digits: &binary::Digits) -> bool {
    digits.mant.len() == 11 && digits.mant[10] == b'5'
}

/// Which side of `d` the nearest 512-bit float lies (what go-cty holds of it).
fn float_side(d: &BigDecimal) -> Ordering {
    let (n, exp10) = integer_and_exponent(d);
    binary::round_decimal(&n, exp10, TEXT_PRECISION).2
}

/// Whether `d` is a whole number, without scaling it: BigDecimal's own test computes
/// `10^scale`, 25–65 µs for `7e-9990`, in every comparison and hash of such a number.
fn integral(d: &BigDecimal) -> bool {
    let (n, scale) = d.as_bigint_and_scale();
    if scale <= 0 || n.is_zero() {
        return true;
    }
    // A whole number with a positive scale ends in as many zeros; most numbers fail at once.
    if !(&*n % 10u32).is_zero() {
        return false;
    }
    let (mut n, mut scale) = (n.into_owned(), scale);
    while scale > 0 && !n.is_zero() {
        if !(&n % 10u32).is_zero() {
            return false;
        }
        n /= 10u32;
        scale -= 1;
    }
    true
}

/// The decimal exponent of `d`'s leading digit (0 for zero), from its digit count alone.
fn order(d: &BigDecimal) -> i64 {
    let (n, scale) = d.as_bigint_and_scale();
    if n.is_zero() {
        return 0;
    }
    // `digits` writes the number out in decimal; within a u64 its logarithm says as much.
    let digits = match n.magnitude().to_u64() {
        Some(v) => u64::from(v.ilog10()) + 1,
        None => d.digits(),
    };
    digits as i64 - 1 - scale
}

/// A decimal without trailing zeros, as digits and exponent (`(0, 0)` for zero), when the
/// digits fit an `i64`: what [`Number`]'s hash is made of, without `normalized`'s copy and
/// divisions for the numbers that are nearly all numbers.
fn small_normal(d: &BigDecimal) -> Option<(i64, i64)> {
    let (n, scale) = d.as_bigint_and_scale();
    Some(without_trailing_zeros(n.to_i64()?, scale))
}

/// `v × 10^-scale` with the trailing zeros of `v` moved into the scale (`(0, 0)` for zero).
fn without_trailing_zeros(mut v: i64, mut scale: i64) -> (i64, i64) {
    if v == 0 {
        return (0, 0);
    }
    while v % 10 == 0 {
        v /= 10;
        scale -= 1;
    }
    (v, scale)
}

/// Decimal equality by digits and exponent, trailing zeros aside, without rescaling one to
/// the other's exponent.
fn same_decimal(a: &BigDecimal, b: &BigDecimal) -> bool {
    if a.is_zero() || b.is_zero() {
        return a.is_zero() && b.is_zero();
    }
    // At one scale, equal values have equal digits: what two decoded integers (scale 0) are,
    // answered without normalizing either.
    let ((x, sx), (y, sy)) = (a.as_bigint_and_scale(), b.as_bigint_and_scale());
    if sx == sy {
        return x == y;
    }
    order(a) == order(b)
        && a.normalized().into_bigint_and_exponent() == b.normalized().into_bigint_and_exponent()
}

/// The exact decimal of a finite `f64`.
fn exact_f64(f: f64) -> BigDecimal {
    if f == 0.0 {
        return BigDecimal::zero();
    }
    let (m, e) = binary::of_f64(f);
    decimal_of(&binary::Digits::of_binary(&m, e), f < 0.0)
}

/// Digits as a decimal with a sign.
fn decimal_of(digits: &binary::Digits, negative: bool) -> BigDecimal {
    if digits.mant.is_empty() {
        return BigDecimal::zero();
    }
    let n: BigUint = std::str::from_utf8(&digits.mant)
        .expect("digits")
        .parse()
        .expect("digits");
    let scale = digits.mant.len() as i64 - digits.exp;
    let sign = if negative { Sign::Minus } else { Sign::Plus };
    BigDecimal::new(BigInt::from_biguint(sign, n), scale)
}

/// A decimal's magnitude as `n × 10^exp10`.
fn integer_and_exponent(d: &BigDecimal) -> (BigUint, i64) {
    let (n, scale) = d.as_bigint_and_exponent();
    (n.magnitude().clone(), -scale)
}

/// A decimal's magnitude as digits.
fn digits_of(d: &BigDecimal) -> binary::Digits {
    let (n, exp10) = integer_and_exponent(d);
    binary::Digits::of_integer(&n, exp10)
}

/// A number's text read in one pass: its sign and its significant digits (no leading or
/// trailing zeros; none for zero), the last of them worth `10^exponent`.
struct Scanned {
    negative: bool,
    digits: String,
    exponent: i64,
}

/// Why a text is not a number tfwasm holds.
enum ScanError {
    /// Not what go-cty's `ParseNumberVal` accepts (Go's `big.ParseFloat` in base 10): a sign,
    /// digits with at most one point and at least one digit, an exponent.
    Malformed,
    /// Well-formed, but its exponent is beyond [`MAX_EXPONENT`].
    OutOfRange,
}

/// Reads `text` in linear time, refusing a magnitude out of range before any arithmetic:
/// parsing four million digits as a decimal took half a minute (the parse is quadratic), and
/// a guest chooses the texts the host parses.
fn scan(text: &str) -> Result<Scanned, ScanError> {
    let b = text.as_bytes();
    let negative = b.first() == Some(&b'-');
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits_from = |i: usize| i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let integer = i..digits_from(i);
    i = integer.end;
    let fraction = if b.get(i) == Some(&b'.') {
        i + 1..digits_from(i + 1)
    } else {
        i..i
    };
    i = fraction.end;
    if integer.is_empty() && fraction.is_empty() {
        return Err(ScanError::Malformed);
    }
    // The exponent field, saturated: anything past 19 digits is out of range anyway.
    let mut exponent: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let sign = match b.get(i) {
            Some(b'-') => -1,
            Some(b'+') => 1,
            _ => 0,
        };
        i += usize::from(sign != 0);
        let field = i..digits_from(i);
        if field.is_empty() {
            return Err(ScanError::Malformed);
        }
        for &c in &b[field.clone()] {
            exponent = exponent
                .saturating_mul(10)
                .saturating_add(i64::from(c - b'0'));
        }
        exponent = exponent.min(i64::MAX / 4) * if sign < 0 { -1 } else { 1 };
        i = field.end;
    }
    if i != b.len() {
        return Err(ScanError::Malformed);
    }
    let mantissa = || b[integer.clone()].iter().chain(&b[fraction.clone()]);
    let Some(first) = mantissa().position(|&c| c != b'0') else {
        return Ok(Scanned {
            negative,
            digits: String::new(),
            exponent: 0,
        });
    };
    let last = (mantissa().enumerate())
        .filter(|(_, c)| **c != b'0')
        .last()
        .map_or(first, |(k, _)| k);
    let span = (last - first + 1) as i64;
    // The last significant digit's place, and the first's (the number's magnitude).
    let place = exponent.saturating_add(integer.len() as i64 - 1 - last as i64);
    let magnitude = place.saturating_add(span - 1);
    if place.abs() > MAX_EXPONENT || magnitude.abs() > MAX_EXPONENT {
        return Err(ScanError::OutOfRange);
    }
    if span > EXACT_DIGITS as i64 && (magnitude.abs() > MAX_LONG_EXPONENT || span > MAX_LONG_DIGITS)
    {
        return Err(ScanError::OutOfRange);
    }
    let digits = mantissa()
        .skip(first)
        .take(last - first + 1)
        .map(|&c| char::from(c))
        .collect();
    Ok(Scanned {
        negative,
        digits,
        exponent: place,
    })
}

impl FromStr for Number {
    type Err = ParseNumberError;
    fn from_str(text: &str) -> Result<Number, ParseNumberError> {
        let error = |out_of_range, infinite| ParseNumberError {
            text: quoted(text),
            out_of_range,
            infinite,
        };
        if matches!(text.trim_start_matches(['+', '-']), "Inf" | "inf") {
            return Err(error(false, true));
        }
        let scanned = scan(text).map_err(|e| error(matches!(e, ScanError::OutOfRange), false))?;
        if scanned.digits.is_empty() {
            return Ok(Number(if scanned.negative {
                Repr::NegativeZero
            } else {
                Repr::Int(0)
            }));
        }
        let sign = if scanned.negative { "-" } else { "" };
        let short = format!("{sign}{}e{}", scanned.digits, scanned.exponent);
        let d = BigDecimal::from_str(&short).map_err(|_| error(false, false))?;
        if d.digits() <= EXACT_DIGITS {
            if !integral(&d) && is_tie(&digits_of(&d)) {
                let side = float_side(&d);
                return Ok(Number(Repr::Tie(Box::new((d, side)))));
            }
            return Ok(Number::of_decimal(d));
        }
        // Too long for a 512-bit float to tell apart: what go-cty holds is that float.
        let negative = d.sign() == Sign::Minus;
        let (n, exp10) = integer_and_exponent(&d);
        let (m, e, _) = binary::round_decimal(&n, exp10, TEXT_PRECISION);
        let exact = decimal_of(&binary::Digits::of_binary(&m, e), negative);
        let text = decimal_of(&binary::shortest(&m, e, TEXT_PRECISION), negative);
        let float64 = exact
            .to_f64()
            .filter(|f| f.is_finite() && exact_f64(*f) == exact);
        Ok(Number(Repr::Binary(Box::new(Binary {
            exact,
            text,
            float64,
        }))))
    }
}

impl PartialEq for Number {
    /// go-cty's `rawNumberEqual`: integers by exact value, other numbers by their text.
    fn eq(&self, other: &Number) -> bool {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0) {
            return a == b;
        }
        let (a, b) = (&*self.exact(), &*other.exact());
        let whole = self.is_integer();
        if a.sign() != b.sign() || whole != other.is_integer() {
            return false;
        }
        if whole {
            same_decimal(a, b)
        } else {
            same_decimal(&self.text(), &other.text())
        }
    }
}

impl Eq for Number {}

/// Agrees with equality: integers hash their value, other numbers their text.
impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Digits and exponent, trailing zeros dropped: equal decimals hash alike, and
        // `1e9990` hashes one digit (BigDecimal's own hash wrote out all 9,990 zeros).
        // Digits within an `i64` hash as one, whichever path found them.
        let normal = match &self.0 {
            Repr::Int(v) => Ok(without_trailing_zeros(*v, 0)),
            _ => {
                let d = if self.is_integer() {
                    self.exact()
                } else {
                    self.text()
                };
                small_normal(&d).map(Ok).unwrap_or_else(|| {
                    let (digits, scale) = d.normalized().into_bigint_and_exponent();
                    digits
                        .to_i64()
                        .map(|small| (small, scale))
                        .ok_or((digits, scale))
                })
            }
        };
        match normal {
            Ok((digits, scale)) => {
                state.write_u8(0);
                state.write_i64(digits);
                state.write_i64(scale);
            }
            Err((digits, scale)) => {
                state.write_u8(1);
                digits.hash(state);
                scale.hash(state);
            }
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// [`Number::cmp_value`].
impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        self.cmp_value(other)
    }
}

impl From<i64> for Number {
    fn from(value: i64) -> Number {
        Number(Repr::Int(value))
    }
}

impl From<u64> for Number {
    fn from(value: u64) -> Number {
        match i64::try_from(value) {
            Ok(v) => Number(Repr::Int(v)),
            Err(_) => Number(Repr::Decimal(BigDecimal::from(value))),
        }
    }
}

impl From<i32> for Number {
    fn from(value: i32) -> Number {
        Number(Repr::Int(i64::from(value)))
    }
}

/// Plain decimal text without an exponent, as go-cty writes numbers (`Text('f', -1)`).
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Repr::NegativeZero => return f.write_str("-0"),
            Repr::Int(v) => return write!(f, "{v}"),
            _ => {}
        }
        let d = &*self.text();
        let sign = if d.sign() == Sign::Minus { "-" } else { "" };
        write!(f, "{sign}{}", digits_of(d).plain())
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
        for text in ["4E43313291264", "1e-1001", "-1e1001"] {
            let e = text.parse::<Number>().unwrap_err();
            assert!(e.out_of_range, "{text}");
            assert!(e.to_string().contains("beyond ±1000"), "{e}");
        }
        for text in ["1e308", "1e-308", "1e999", "123.456e-20"] {
            let n: Number = text.parse().unwrap();
            assert!(n.to_string().len() < 1_100, "{text}");
        }
        assert!(!"x1".parse::<Number>().unwrap_err().out_of_range);
    }

    #[test]
    fn megabytes_of_digits_are_read_in_one_pass() {
        let digits = "7".repeat(16 << 20);
        for text in [
            format!("0.{digits}"),
            digits.clone(),
            format!("{digits}e-16777216"),
        ] {
            let e = text.parse::<Number>().unwrap_err();
            assert!(e.out_of_range, "{e}");
            assert!(
                e.text.len() < 100,
                "the error repeats {} bytes",
                e.text.len()
            );
        }
        // Zeros that do not count: the value is small, so it is held.
        let zeros = "0".repeat(16 << 20);
        let half: Number = format!("0.5{zeros}").parse().unwrap();
        assert_eq!(half, "0.5".parse().unwrap());
        let one: Number = format!("{zeros}1").parse().unwrap();
        assert_eq!(one, Number::from(1));
        let tiny: Number = format!("0.{}1", &zeros[..999]).parse().unwrap();
        assert_eq!(tiny, "1e-1000".parse().unwrap());
        assert!(
            format!("0.{}1", &zeros[..1_000])
                .parse::<Number>()
                .unwrap_err()
                .out_of_range
        );
        let zero: Number = format!("-{zeros}e999999999999999999999999")
            .parse()
            .unwrap();
        assert_eq!(zero.to_string(), "-0");
        let e = "1e999999999999999999999999".parse::<Number>().unwrap_err();
        assert!(e.out_of_range, "{e}");
        // The bound is on the magnitude, not the text: 1,000 digits of an integer are held.
        let big: Number = format!("1{}", &zeros[..1_000]).parse().unwrap();
        assert_eq!(big, "1e1000".parse().unwrap());
        for malformed in ["", "-", ".", "1e", "1e+", "1.2.3", "1x", "e5", "+-1", "1_0"] {
            assert!(
                !malformed.parse::<Number>().unwrap_err().out_of_range,
                "{malformed}"
            );
        }
    }

    #[test]
    fn long_numbers_have_a_tighter_exponent_bound() {
        let digits = "123456789".repeat(18);
        for text in [
            format!("{digits}e-9990"),
            format!("0.{digits}e-500"),
            format!("{digits}e300"),
        ] {
            let e = text.parse::<Number>().unwrap_err();
            assert!(e.out_of_range && e.to_string().contains("±400"), "{e}");
        }
        let held: Number = format!("0.{digits}e-250").parse().unwrap();
        assert!(held.to_f64() > 0.0);
        let e = format!("0.{}", "7".repeat(1001))
            .parse::<Number>()
            .unwrap_err();
        assert!(
            e.out_of_range && e.to_string().contains("more than 1000"),
            "{e}"
        );
        // Short numbers keep the wide bound.
        assert!("1.5e-990".parse::<Number>().is_ok());
        let hash = |n: &Number| std::hash::BuildHasher::hash_one(crate::hash::hash_state(), n);
        let (a, b): (Number, Number) = ("1e990".parse().unwrap(), "10e989".parse().unwrap());
        assert_eq!(hash(&a), hash(&b));
    }

    /// Equal numbers hash alike whichever way they were written: the hash's fast path for
    /// digits within an `i64` and its general path (digits that fit only once their
    /// trailing zeros are dropped, or never) give one hash per value.
    #[test]
    fn equal_numbers_hash_alike_on_either_path() {
        let hash = |n: &Number| std::hash::BuildHasher::hash_one(crate::hash::hash_state(), n);
        let groups: [&[&str]; 8] = [
            &[
                "443",
                "443.0",
                "4.43e2",
                "4430e-1",
                "44300000000000000000000e-20",
            ],
            &["-443", "-443.000", "-4.43e2"],
            &["0", "0.000", "0e5"],
            &["1e20", "100000000000000000000", "10e19"],
            &["9223372036854775807", "9223372036854775807.0"],
            &["-9223372036854775808", "-92233720368547758080e-1"],
            &["99999999999999999999", "99999999999999999999.00"],
            &["1.5", "15e-1", "1.50"],
        ];
        for group in groups {
            let numbers: Vec<Number> = group.iter().map(|t| t.parse().unwrap()).collect();
            for (a, b) in numbers.iter().zip(&numbers[1..]) {
                assert_eq!(a, b, "{a} {b}");
                assert_eq!(hash(a), hash(b), "{a} {b}");
            }
        }
        // Digits that fit an `i64` only once their trailing zeros are dropped: the general
        // path (text parsing strips them, so these come from integers and floats).
        let pairs = [
            (Number::from(10_000_000_000_000_000_000u64), "1e19"),
            (Number::from(18_000_000_000_000_000_000u64), "1.8e19"),
            (Number::from_f64(1e22).unwrap(), "1e22"),
            (Number::from_f64(-4.5e20).unwrap(), "-45e19"),
        ];
        for (number, text) in pairs {
            let parsed: Number = text.parse().unwrap();
            assert_eq!(number, parsed, "{text}");
            assert_eq!(hash(&number), hash(&parsed), "{text}");
        }
        // Text too long for a 512-bit float, rounding to a whole number within an `i64`:
        // held as the float it rounds to, it must hash as the `Int` it equals, trailing
        // zeros and all.
        for (long, whole) in [("4429.", 4430), ("-99.", -100), ("999999.", 1_000_000)] {
            let text = format!("{long}{}", "9".repeat(160));
            let rounded: Number = text.parse().unwrap();
            assert!(!matches!(rounded.0, Repr::Int(_)), "{text}");
            assert_eq!(rounded, Number::from(whole), "{text}");
            assert_eq!(hash(&rounded), hash(&Number::from(whole)), "{text}");
        }
        assert_eq!(hash(&Number::from(443)), hash(&"443".parse().unwrap()));
        assert_eq!(hash(&Number::from(0)), hash(&"-0".parse().unwrap()));
        assert_ne!(hash(&Number::from(443)), hash(&Number::from(4430)));
        assert_ne!(Number::from(443), "443.5".parse::<Number>().unwrap());
    }

    /// An integer within `i64` is held as `Repr::Int` whichever way it arrived, so the fast
    /// paths are the ones taken.
    #[test]
    fn every_constructor_holds_a_small_integer_without_a_decimal() {
        let from_text = [
            "5",
            "5.0",
            "5e2",
            "50e-1",
            "0.0e0",
            "-0.5e1",
            "+7",
            "9223372036854775807",
        ];
        let numbers = from_text
            .iter()
            .map(|t| t.parse::<Number>().unwrap())
            .chain([
                Number::from_f64(5.0).unwrap(),
                Number::from_f64(0.0).unwrap(),
                Number::from(5u64),
                Number::from(-5i32),
                Number::from(i64::MIN),
            ]);
        for n in numbers {
            assert!(matches!(n.0, Repr::Int(_)), "{n} is not held as an integer");
        }
        for beyond in ["9223372036854775808", "-9223372036854775809", "1e19", "5.5"] {
            let n = beyond.parse::<Number>().unwrap();
            assert!(!matches!(n.0, Repr::Int(_)), "{beyond}");
        }
        assert!(!matches!(Number::from(u64::MAX).0, Repr::Int(_)));
        assert!(matches!(
            "-0".parse::<Number>().unwrap().0,
            Repr::NegativeZero
        ));
    }

    /// What an integer's fast paths answer is what the same integer held as a decimal
    /// answers, against every kind of number: `Repr::Int` changes the cost, never the value.
    #[test]
    fn an_integer_answers_as_the_same_decimal_does() {
        let ints = [
            0,
            1,
            -1,
            10,
            -100,
            443,
            1_000_000,
            12_345_678_905,
            -12_345_678_905,
            12_345_678_915,
            99_999_999_995,
            9_007_199_254_740_993,
            1_000_000_000_000_000_000,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        let others: Vec<Number> = [
            "-0",
            "0.5",
            "1e20",
            "-1e20",
            "443.0000001",
            "1.2345678905",
            "1e-400",
        ]
        .iter()
        .map(|t| t.parse().unwrap())
        .chain(
            ints.iter()
                .map(|&v| Number(Repr::Decimal(BigDecimal::from(v)))),
        )
        .chain(ints.iter().map(|&v| Number::from(v)))
        .collect();
        let hash = |n: &Number| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            n.hash(&mut h);
            h.finish()
        };
        for &v in &ints {
            let (int, dec) = (Number::from(v), Number(Repr::Decimal(BigDecimal::from(v))));
            assert!(matches!(int.0, Repr::Int(_)));
            assert_eq!(int.to_string(), dec.to_string(), "{v}");
            assert_eq!(int.plain_len(), dec.plain_len(), "{v}");
            assert_eq!(int.plain_len(), int.to_string().len(), "{v}");
            assert_eq!(int.hash_text(), dec.hash_text(), "{v}");
            assert_eq!(hash(&int), hash(&dec), "{v}");
            assert_eq!(int.to_i64(), dec.to_i64(), "{v}");
            assert_eq!(int.to_u64(), dec.to_u64(), "{v}");
            assert_eq!(int.to_f64().to_bits(), dec.to_f64().to_bits(), "{v}");
            assert_eq!(int.to_exact_f64(), dec.to_exact_f64(), "{v}");
            assert_eq!(int.is_integer(), dec.is_integer(), "{v}");
            assert_eq!(int.is_negative(), dec.is_negative(), "{v}");
            for o in &others {
                assert_eq!(int == *o, dec == *o, "{v} == {o}");
                assert_eq!(*o == int, *o == dec, "{o} == {v}");
                assert_eq!(int.cmp_value(o), dec.cmp_value(o), "{v} vs {o}");
                assert_eq!(o.cmp_value(&int), o.cmp_value(&dec), "{o} vs {v}");
                assert_eq!(int.hashes_alike(o), dec.hashes_alike(o), "{v} ~ {o}");
            }
        }
    }

    /// The eighth hostile pass: `7e-9990` cost 25–65 µs in every comparison and hash, as
    /// BigDecimal's own tests scale it. The cheap tests must agree with BigDecimal's.
    #[test]
    fn cheap_integer_order_and_equality_agree_with_bigdecimal() {
        let texts = [
            "0",
            "-0",
            "7",
            "-7",
            "70",
            "7e-990",
            "-7e-990",
            "7e990",
            "1.5",
            "-1.5",
            "0.1",
            "10.00",
            "1e20",
            "99999999999999999999",
            "18446744073709551615",
            "1.2345678905",
            "1.2345678905e-900",
            "1e-400",
            "123456789e-3",
            "123000e-3",
        ];
        let numbers: Vec<Number> = texts
            .iter()
            .map(|t| t.parse().unwrap())
            .chain([
                Number::from_f64(0.1).unwrap(),
                Number::from_f64(-2.5).unwrap(),
                Number::from_f64(1e300).unwrap(),
                Number::from_f64(5e-324).unwrap(),
            ])
            .collect();
        for a in &numbers {
            assert_eq!(a.is_integer(), a.exact().is_integer(), "{a}");
            assert_eq!(
                a.to_i64(),
                if a.exact().is_integer() {
                    a.exact().to_i64()
                } else {
                    None
                },
                "{a}"
            );
            assert_eq!(
                a.to_u64(),
                if a.exact().is_integer() {
                    a.exact().to_u64()
                } else {
                    None
                },
                "{a}"
            );
            for b in &numbers {
                let (x, y) = (&*a.exact(), &*b.exact());
                if a != b {
                    assert_eq!(a.cmp_value(b), x.cmp(y), "{a} vs {b}");
                }
                let old = x.sign() == y.sign()
                    && x.is_integer() == y.is_integer()
                    && if x.is_integer() {
                        x == y
                    } else {
                        a.text() == b.text()
                    };
                assert_eq!(a == b, old, "{a} == {b}");
            }
        }
        let tie: Number = "1.2345678905e-900".parse().unwrap();
        assert!(
            matches!(tie.0, Repr::Tie(_)),
            "its float's side is found once"
        );
    }

    /// The fast ten digits of a float64 are the exact value's rounded, as Go rounds them.
    #[test]
    fn float_hash_text_agrees_with_rounding_the_exact_value() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            5e-324,
            2.2250738585072014e-308,
            1234567890.5,
            1234567891.5,
            0.5,
            1e300,
        ];
        let floats = specials
            .into_iter()
            .chain((0..20_000).map(|_| f64::from_bits(next())));
        for f in floats.filter(|f| f.is_finite() && *f != 0.0) {
            let mut slow = digits_of(&exact_f64(f));
            slow.round(10);
            assert_eq!(binary::Digits::ten_of_f64(f), slow, "{f:e}");
        }
    }

    #[test]
    fn plain_length_is_the_written_length() {
        for text in [
            "0",
            "-0",
            "7",
            "-12",
            "1e999",
            "1.5",
            "-0.00125",
            "123.456e-20",
            "1e-999",
        ] {
            let n: Number = text.parse().unwrap();
            assert_eq!(n.plain_len(), n.to_string().len(), "{text}");
        }
        let f = Number::from_f64(0.1).unwrap();
        assert_eq!(f.plain_len(), f.to_string().len());
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

    /// go-cty writes a non-integer as a float64 only when it is exactly one: a float64 it
    /// was given, or a decimal such as 0.5; the decimal 0.1 is not a float64 (its 512-bit
    /// float is not the float64 0.1), so it is written as text.
    #[test]
    fn exact_f64_only_when_lossless() {
        assert_eq!("0.5".parse::<Number>().unwrap().to_exact_f64(), Some(0.5));
        assert_eq!("0.1".parse::<Number>().unwrap().to_exact_f64(), None);
        assert_eq!(Number::from_f64(0.1).unwrap().to_exact_f64(), Some(0.1));
        assert_eq!(
            "0.1000000000000000000001"
                .parse::<Number>()
                .unwrap()
                .to_exact_f64(),
            None
        );
    }

    /// Equality as go-cty's: integers by value, other numbers by their shortest text.
    #[test]
    fn a_float64_equals_the_decimal_it_prints_as() {
        let float = Number::from_f64(0.1).unwrap();
        let text: Number = "0.1".parse().unwrap();
        assert_eq!(float, text);
        assert_eq!(float.to_string(), "0.1");
        // 1e23 as a float64 is 99999999999999991611392: an integer, compared exactly, but
        // written as its shortest text.
        let big = Number::from_f64(1e23).unwrap();
        assert_ne!(big, "1e23".parse().unwrap());
        assert_eq!(big.to_string(), "100000000000000000000000");
        assert_eq!(Number::from_f64(-0.0).unwrap().to_string(), "-0");
        assert_eq!(Number::from_f64(-0.0).unwrap(), Number::from(0));
    }

    /// Beyond 150 significant digits a decimal is the 512-bit float go-cty parses it to.
    #[test]
    fn long_decimals_round_as_go_cty_parses_them() {
        let long = format!("1.{}1", "0".repeat(200));
        let n: Number = long.parse().unwrap();
        assert_eq!(
            n,
            Number::from(1),
            "the 1 in the 202nd digit is beyond 512 bits"
        );
        let exact = format!("1.{}1", "0".repeat(100));
        assert_ne!(exact.parse::<Number>().unwrap(), Number::from(1));
    }

    #[test]
    fn only_go_ctys_number_syntax_parses() {
        for text in ["1e3", "1E3", "+5", "-0", ".5", "5.", "00012", "-1.5e+2"] {
            assert!(text.parse::<Number>().is_ok(), "{text}");
        }
        for text in [
            " 1", "1 ", "1_000", "0x10", "e5", "1e", ".", "--1", "Inf", "NaN",
        ] {
            assert!(text.parse::<Number>().is_err(), "{text}");
        }
        assert!("Inf".parse::<Number>().unwrap_err().infinite);
    }

    #[test]
    fn garbage_is_rejected() {
        assert!("abc".parse::<Number>().is_err());
        assert!("".parse::<Number>().is_err());
        assert!("NaN".parse::<Number>().is_err());
    }
}
