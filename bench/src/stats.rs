//! Small statistics over samples.

use std::time::Duration;

/// The `q` quantile (0..=1) of `samples` (nearest rank); zero when empty.
pub fn quantile(samples: &[Duration], q: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The median.
pub fn median(samples: &[Duration]) -> Duration {
    quantile(samples, 0.5)
}

/// `a / b` as a ratio (0 when `b` is zero).
pub fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        0.0
    } else {
        a.as_secs_f64() / b.as_secs_f64()
    }
}

/// Microseconds with one decimal.
pub fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

/// `a − b` in microseconds with one decimal, signed: a baseline may be the slower one.
pub fn us_difference(a: Duration, b: Duration) -> String {
    if a >= b {
        us(a - b)
    } else {
        format!("−{}", us(b - a))
    }
}

/// Milliseconds with one decimal.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let s: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(quantile(&s, 0.5), Duration::from_millis(50));
        assert_eq!(quantile(&s, 0.99), Duration::from_millis(99));
        assert_eq!(quantile(&s, 1.0), Duration::from_millis(100));
        assert_eq!(median(&[]), Duration::ZERO);
        assert!((ratio(Duration::from_secs(3), Duration::from_secs(2)) - 1.5).abs() < 1e-9);
    }

    #[test]
    fn a_difference_keeps_its_sign() {
        let (a, b) = (Duration::from_micros(30), Duration::from_micros(12));
        assert_eq!(us_difference(a, b), "18.0 µs");
        assert_eq!(us_difference(b, a), "−18.0 µs");
        assert_eq!(us_difference(a, a), "0.0 µs");
    }
}
