//! Quantities a user types: durations, amounts of memory, message sizes,
//! fractions. One parser reads a number and its unit for all of them.

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
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("the duration `{}` is too long", text.trim()))
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

/// The units of a message size: binary, as MPI benchmarks count (`K` is
/// 1024 bytes, like `KiB`).
const SIZE_UNITS: &[(&str, f64)] = &[
    ("", 1.0),
    ("B", 1.0),
    ("K", 1024.0),
    ("KiB", 1024.0),
    ("M", 1048576.0),
    ("MiB", 1048576.0),
    ("G", 1073741824.0),
    ("GiB", 1073741824.0),
];

/// One message size in bytes: `8`, `1K`, `64KiB`, `1.5M` (binary: `K` is
/// 1024 bytes); a bare number is bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let bytes = quantity(
        text,
        SIZE_UNITS,
        "a size like 8, 1K or 64KiB",
        Some("B, K or KiB, M or MiB, G or GiB; K is 1024 bytes"),
    )?;
    if !(bytes >= 1.0 && bytes.fract() == 0.0) {
        return Err(format!(
            "size `{text}` must be a positive whole number of bytes"
        ));
    }
    if bytes >= u64::MAX as f64 {
        return Err(format!("size `{text}` is too large"));
    }
    Ok(bytes as u64)
}

/// One entry of a size list, in bytes: a size, or an OSU-style doubling
/// range `START:END` (START, 2·START, 4·START, … up to END) or
/// `START:END:FACTOR` (START, FACTOR·START, …).
pub fn parse_size_entry(text: &str) -> Result<Vec<u64>, String> {
    let text = text.trim();
    let parts: Vec<&str> = text.split(':').collect();
    let (start, end, factor) = match parts[..] {
        [size] => return parse_size(size).map(|s| vec![s]),
        [start, end] => (start, end, 2),
        [start, end, factor] => {
            let factor = match factor.trim().parse::<u64>() {
                Ok(f) if f >= 2 => f,
                _ => {
                    return Err(format!(
                        "range `{text}`: the factor `{}` must be a whole number of at least 2",
                        factor.trim()
                    ))
                }
            };
            (start, end, factor)
        }
        _ => {
            return Err(format!(
                "range `{text}` must be START:END or START:END:FACTOR, like 4K:1M"
            ))
        }
    };
    let (start, end) = (parse_size(start)?, parse_size(end)?);
    if end < start {
        return Err(format!(
            "range `{text}` ends below its start: write the smaller size first"
        ));
    }
    let mut sizes = vec![start];
    while let Some(next) = sizes[sizes.len() - 1].checked_mul(factor) {
        if next > end {
            break;
        }
        sizes.push(next);
    }
    Ok(sizes)
}

/// Adds `entry`'s sizes to `sizes`; a size already there is an error.
pub fn add_sizes(sizes: &mut Vec<u64>, entry: Vec<u64>) -> Result<(), String> {
    for size in entry {
        if sizes.contains(&size) {
            return Err(format!("size {size} is listed twice"));
        }
        sizes.push(size);
    }
    Ok(())
}

/// A comma-separated list of sizes and ranges, in bytes, in the order
/// given: `8,1K:4K,64KiB` is 8, 1024, 2048, 4096 and 65536.
pub fn parse_sizes(text: &str) -> Result<Vec<u64>, String> {
    size_list(text, false)
}

/// [`parse_sizes`] where `0` may stand as a size of its own (a call with
/// no elements): what `verify` checks, and `run` does not measure.
pub fn parse_sizes_or_zero(text: &str) -> Result<Vec<u64>, String> {
    size_list(text, true)
}

fn size_list(text: &str, zero: bool) -> Result<Vec<u64>, String> {
    let mut sizes = Vec::new();
    for entry in text.split(',') {
        if entry.trim().is_empty() {
            return Err(format!("the size list `{text}` has an empty entry"));
        }
        let entry = match entry.trim() {
            "0" | "0B" if zero => vec![0],
            entry => parse_size_entry(entry)?,
        };
        add_sizes(&mut sizes, entry)?;
    }
    Ok(sizes)
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

    #[test]
    fn parses_sizes_with_binary_units() {
        assert_eq!(parse_size("8"), Ok(8));
        assert_eq!(parse_size("8B"), Ok(8));
        assert_eq!(parse_size("1K"), Ok(1024));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1.5M"), Ok(1572864));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size(" 4K "), Ok(4096));
    }

    #[test]
    fn a_bad_size_names_its_token() {
        assert_eq!(
            parse_size("1X"),
            Err(
                "unknown unit `X` in `1X` (use B, K or KiB, M or MiB, G or GiB; K is 1024 bytes)"
                    .into()
            )
        );
        assert_eq!(
            parse_size("1kB"),
            Err(
                "unknown unit `kB` in `1kB` (use B, K or KiB, M or MiB, G or GiB; K is 1024 bytes)"
                    .into()
            )
        );
        assert_eq!(parse_sizes_or_zero("0,1,7:8"), Ok(vec![0, 1, 7]));
        assert!(parse_sizes("0,1").is_err());
        assert_eq!(
            parse_size("0"),
            Err("size `0` must be a positive whole number of bytes".into())
        );
        assert_eq!(
            parse_size("1.5"),
            Err("size `1.5` must be a positive whole number of bytes".into())
        );
        assert_eq!(
            parse_size("-8"),
            Err("`-8` is not a size like 8, 1K or 64KiB".into())
        );
        assert_eq!(
            parse_size("99999999999G"),
            Err("size `99999999999G` is too large".into())
        );
    }

    #[test]
    fn ranges_double_from_start_to_end() {
        assert_eq!(
            parse_size_entry("4K:64K"),
            Ok(vec![4096, 8192, 16384, 32768, 65536])
        );
        assert_eq!(parse_size_entry("8:8"), Ok(vec![8]));
        // OSU's ranges stop at the last size not above the end.
        assert_eq!(parse_size_entry("3:20"), Ok(vec![3, 6, 12]));
        assert_eq!(parse_size_entry("1K:1M:4").unwrap().len(), 6);
        assert_eq!(parse_size_entry("1K:1M:4").unwrap()[5], 1 << 20);
        assert_eq!(parse_size_entry("1:16G").unwrap().len(), 35);
        assert_eq!(
            parse_size_entry("1M:4K"),
            Err("range `1M:4K` ends below its start: write the smaller size first".into())
        );
        assert_eq!(
            parse_size_entry("4K:1M:1"),
            Err("range `4K:1M:1`: the factor `1` must be a whole number of at least 2".into())
        );
        assert_eq!(
            parse_size_entry("4K:1M:1.5"),
            Err("range `4K:1M:1.5`: the factor `1.5` must be a whole number of at least 2".into())
        );
        assert_eq!(
            parse_size_entry("1:2:2:2"),
            Err("range `1:2:2:2` must be START:END or START:END:FACTOR, like 4K:1M".into())
        );
        assert!(parse_size_entry("4X:1M").unwrap_err().contains("`4X`"));
    }

    #[test]
    fn size_lists_keep_their_order_and_refuse_repeats() {
        assert_eq!(
            parse_sizes("8,1K:4K,64KiB"),
            Ok(vec![8, 1024, 2048, 4096, 65536])
        );
        assert_eq!(parse_sizes("1024,8"), Ok(vec![1024, 8]));
        assert_eq!(
            parse_sizes("8,2K,1K:4K"),
            Err("size 2048 is listed twice".into())
        );
        assert_eq!(
            parse_sizes("8,,16"),
            Err("the size list `8,,16` has an empty entry".into())
        );
        assert_eq!(
            parse_sizes("8,1Q"),
            Err(
                "unknown unit `Q` in `1Q` (use B, K or KiB, M or MiB, G or GiB; K is 1024 bytes)"
                    .into()
            )
        );
    }
}
