//! Quantities a user types: durations, amounts of memory, fractions. One
//! parser reads a number and its unit for all three.

use std::time::Duration;

/// Splits `text` into a number and the unit after it, and scales the number
/// by the unit's factor from `units` (`""` is the bare number). An unknown
/// unit is named with `hint` (the units to use), or else the whole text is
/// said not to be `like` the example.
fn quantity(
    text: &str,
    units: &[(&str, f64)],
    like: &str,
    hint: Option<&str>,
) -> Result<f64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not {like}"))?;
    let unit = unit.trim();
    let scale = units
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, scale)| scale)
        .ok_or_else(|| match hint {
            Some(hint) => format!("unknown unit `{unit}` in `{text}` (use {hint})"),
            None => format!("`{text}` is not {like}"),
        })?;
    Ok(value * scale)
}

/// Parses `500ms`, `2s`, `1.5s`, `250us`, `1m`; a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    const UNITS: &[(&str, f64)] = &[
        ("", 1.0),
        ("us", 1e-6),
        ("µs", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
        ("m", 60.0),
        ("min", 60.0),
    ];
    let seconds = quantity(
        text,
        UNITS,
        "a duration like 500ms or 2s",
        Some("us, ms, s or m"),
    )?;
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(format!("the duration `{}` must be positive", text.trim()));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A duration, or `0` for none.
pub fn parse_duration_or_zero(text: &str) -> Result<Duration, String> {
    if text.trim() == "0" {
        Ok(Duration::ZERO)
    } else {
        parse_duration(text)
    }
}

/// Parses `4096`, `64KiB`, `512MiB`, `2GiB` (also kB/MB/GB as powers of 1000).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    const UNITS: &[(&str, f64)] = &[
        ("", 1.0),
        ("B", 1.0),
        ("KiB", 1024.0),
        ("K", 1024.0),
        ("MiB", 1048576.0),
        ("M", 1048576.0),
        ("GiB", 1073741824.0),
        ("G", 1073741824.0),
        ("kB", 1e3),
        ("MB", 1e6),
        ("GB", 1e9),
    ];
    let bytes = quantity(
        text,
        UNITS,
        "an amount of memory like 512MiB",
        Some("B, KiB, MiB, GiB"),
    )?;
    if !(bytes >= 1.0 && bytes.is_finite()) {
        return Err(format!("`{}` must be at least one byte", text.trim()));
    }
    Ok(bytes as u64)
}

/// Parses `5%` or `0.05`: a fraction between 0 and 10.
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    const UNITS: &[(&str, f64)] = &[("", 1.0), ("%", 0.01)];
    let value = quantity(text, UNITS, "a fraction like 5% or 0.05", None)?;
    if !(0.0..10.0).contains(&value) {
        return Err(format!(
            "tolerance `{}` must be between 0% and 1000%",
            text.trim()
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3h")
            .unwrap_err()
            .contains("unknown unit `h`"));
        assert_eq!(parse_duration_or_zero("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration_or_zero("5ms"), Ok(Duration::from_millis(5)));
    }

    #[test]
    fn parses_memory() {
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("2 kB"), Ok(2000));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("lots").is_err());
    }

    #[test]
    fn parses_fractions() {
        assert_eq!(parse_fraction("5%"), Ok(0.05));
        assert_eq!(parse_fraction("0.1"), Ok(0.1));
        assert_eq!(parse_fraction(" 25 % "), Ok(0.25));
        assert!(parse_fraction("-5%").is_err());
        assert!(parse_fraction("2000%").is_err());
        assert!(parse_fraction("much").is_err());
    }
}
