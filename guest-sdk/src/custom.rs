//! Custom types: a string attribute type with its own validation and semantic equality, for
//! any attribute at any depth ([`Attr::custom`](crate::Attr::custom)), like the framework's
//! `timetypes.RFC3339`, `cidrtypes` and `jsontypes`. Configured values are validated with
//! their attribute's path; a value equal by meaning to the prior one plans no change.
//!
//! ```
//! use tfwasm_sdk::{Attr, custom};
//! let expires = Attr::custom("expires_at", &custom::RFC3339).optional();
//! let network = Attr::custom("cidr", &custom::CIDR).required();
//! ```

use tfwasm_model::Value;

use crate::semantic::SemanticEquals;

/// A string type with validation and, optionally, semantic equality.
#[derive(Debug)]
pub struct CustomType {
    /// What a valid value is, for error messages ("an RFC 3339 timestamp").
    pub description: &'static str,
    /// Why a string is not a valid value.
    pub check: fn(&str) -> Result<(), String>,
    /// Values that differ in text but mean the same.
    pub equal: Option<SemanticEquals>,
}

/// An RFC 3339 timestamp (`2024-05-01T12:00:00Z`, `2024-05-01T14:00:00+02:00`); two
/// timestamps naming the same instant are equal.
pub const RFC3339: CustomType = CustomType {
    description: "an RFC 3339 timestamp such as 2024-05-01T12:00:00Z",
    check: |s| instant(s).map(drop),
    equal: Some(|a, b| same_parsed(a, b, instant)),
};

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); equal when
/// address and prefix length are (`2001:0db8::/32` is `2001:db8::/32`).
pub const CIDR: CustomType = CustomType {
    description: "an IP network in CIDR notation such as 10.0.0.0/8",
    check: |s| cidr(s).map(drop),
    equal: Some(|a, b| same_parsed(a, b, cidr)),
};

/// A JSON document; equal after parsing (see [`crate::semantic::json`]).
pub const JSON: CustomType = CustomType {
    description: "a JSON document",
    check: |s| {
        serde_json::from_str::<serde_json::Value>(s)
            .map(drop)
            .map_err(|e| e.to_string())
    },
    equal: Some(crate::semantic::json),
};

fn same_parsed<T: PartialEq, E>(a: &Value, b: &Value, parse: fn(&str) -> Result<T, E>) -> bool {
    match (a.as_str().map(parse), b.as_str().map(parse)) {
        (Some(Ok(x)), Some(Ok(y))) => x == y,
        _ => false,
    }
}

/// Seconds since the epoch (UTC) and the fraction's digits without trailing zeros.
fn instant(s: &str) -> Result<(i64, String), String> {
    // Compiled once: checks and equality run on every element of every plan.
    static FORM: std::sync::LazyLock<regex_lite::Regex> = std::sync::LazyLock::new(|| {
        regex_lite::Regex::new(
            r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$",
        )
        .expect("a valid pattern")
    });
    let c = FORM
        .captures(s)
        .ok_or_else(|| "not of the form YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)".to_owned())?;
    let n = |i: usize| {
        c.get(i)
            .map_or(0, |m| m.as_str().parse::<i64>().unwrap_or(-1))
    };
    let (year, month, day, hour, minute, second) = (n(1), n(2), n(3), n(4), n(5), n(6));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(format!("month {month} does not exist")),
    };
    if !(1..=days_in_month).contains(&day) {
        return Err(format!("day {day} does not exist in month {month}"));
    }
    if hour > 23 || minute > 59 || second > 60 {
        return Err(format!(
            "{hour:02}:{minute:02}:{second:02} is not a time of day"
        ));
    }
    let offset = if c.get(8).is_some() {
        0
    } else {
        let (h, m) = (n(10), n(11));
        if h > 23 || m > 59 {
            return Err(format!("offset {h:02}:{m:02} is out of range"));
        }
        let sign = if c.get(9).map(|m| m.as_str()) == Some("-") {
            -1
        } else {
            1
        };
        sign * (h * 3600 + m * 60)
    };
    // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let fraction = c.get(7).map_or("", |m| m.as_str()).trim_end_matches('0');
    Ok((
        days * 86_400 + hour * 3600 + minute * 60 + second - offset,
        fraction.to_owned(),
    ))
}

fn cidr(s: &str) -> Result<(std::net::IpAddr, u8), String> {
    let (addr, prefix) = s
        .split_once('/')
        .ok_or_else(|| "no /prefix length".to_owned())?;
    let addr: std::net::IpAddr = addr.parse().map_err(|e| format!("{addr:?}: {e}"))?;
    let prefix: u8 = prefix
        .parse()
        .map_err(|_| format!("prefix length {prefix:?} is not a number"))?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if prefix > max {
        return Err(format!("prefix length {prefix} is longer than {max}"));
    }
    Ok((addr, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn equal(t: &CustomType, a: &str, b: &str) -> bool {
        (t.equal.unwrap())(&Value::from(a), &Value::from(b))
    }

    #[test]
    fn timestamps_validate_and_compare_by_instant() {
        assert!((RFC3339.check)("2024-02-29T23:59:60.500Z").is_ok());
        assert!(
            (RFC3339.check)("2023-02-29T00:00:00Z")
                .unwrap_err()
                .contains("day 29")
        );
        assert!((RFC3339.check)("2024-05-01 12:00:00").is_err());
        assert!(equal(
            &RFC3339,
            "2024-05-01T12:00:00Z",
            "2024-05-01T14:00:00+02:00"
        ));
        assert!(equal(
            &RFC3339,
            "2024-05-01T12:00:00.50Z",
            "2024-05-01T12:00:00.5z"
        ));
        assert!(!equal(
            &RFC3339,
            "2024-05-01T12:00:00Z",
            "2024-05-01T12:00:01Z"
        ));
        assert_eq!(instant("1970-01-01T00:00:00Z").unwrap().0, 0);
        assert_eq!(instant("2000-03-01T00:00:00Z").unwrap().0, 951_868_800);
    }

    #[test]
    fn networks_validate_and_compare_parsed() {
        assert!((CIDR.check)("10.0.0.0/8").is_ok());
        assert!(
            (CIDR.check)("10.0.0.0/33")
                .unwrap_err()
                .contains("longer than 32")
        );
        assert!((CIDR.check)("10.0.0.0").is_err());
        assert!(equal(&CIDR, "2001:0db8::/32", "2001:db8::/32"));
        assert!(!equal(&CIDR, "10.0.0.0/8", "10.0.0.0/16"));
        assert!((JSON.check)("{\"a\":1}").is_ok() && (JSON.check)("{").is_err());
    }
}
