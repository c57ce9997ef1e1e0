//! RFC 3339 timestamps as whole Unix seconds: enough for CloudTrail windows and "nearest event".
//!
//! Terraform's `@timestamp` carries fractions and an offset (`2024-08-01T13:30:23.123456+02:00`);
//! CloudTrail's `eventTime` is `2024-08-01T11:30:23Z`. Fractions are dropped.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Seconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct UnixSeconds(pub i64);

impl UnixSeconds {
    /// Parses `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)` (also a space or lower-case `t`/`z`).
    pub fn parse_rfc3339(text: &str) -> Option<UnixSeconds> {
        let b = text.trim().as_bytes();
        if b.len() < 20 {
            return None;
        }
        let num = |from: usize, len: usize| -> Option<i64> {
            let part = b.get(from..from + len)?;
            if !part.iter().all(u8::is_ascii_digit) {
                return None;
            }
            std::str::from_utf8(part).ok()?.parse().ok()
        };
        let sep_ok = b[4] == b'-' && b[7] == b'-' && matches!(b[10], b'T' | b't' | b' ');
        if !sep_ok || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
        let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
            return None;
        }
        if second > 60 {
            return None;
        }
        let mut i = 19;
        if b[i] == b'.' {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
        let offset = match b.get(i)? {
            b'Z' | b'z' if i + 1 == b.len() => 0,
            sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
                let minutes = num(i + 1, 2)? * 60 + num(i + 4, 2)?;
                if *sign == b'+' {
                    minutes * 60
                } else {
                    -minutes * 60
                }
            }
            _ => return None,
        };
        let days = days_from_civil(year, month, day);
        Some(UnixSeconds(
            days * 86_400 + hour * 3600 + minute * 60 + second - offset,
        ))
    }

    /// `YYYY-MM-DDThh:mm:ssZ`.
    pub fn to_rfc3339(self) -> String {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        )
    }

    pub fn plus_seconds(self, seconds: i64) -> UnixSeconds {
        UnixSeconds(self.0 + seconds)
    }

    /// Absolute distance in seconds.
    pub fn distance(self, other: UnixSeconds) -> u64 {
        self.0.abs_diff(other.0)
    }
}

impl fmt::Display for UnixSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc3339_variants() {
        let cases = [
            ("1970-01-01T00:00:00Z", Some(0)),
            ("2024-08-01T11:30:23Z", Some(1_722_511_823)),
            ("2024-08-01T13:30:23.123456+02:00", Some(1_722_511_823)),
            ("2024-08-01T06:30:23-05:00", Some(1_722_511_823)),
            ("2024-02-29T00:00:00Z", Some(1_709_164_800)),
            ("2024-08-01 11:30:23z", Some(1_722_511_823)),
            ("2024-08-01T11:30:23", None),
            ("2024-13-01T11:30:23Z", None),
            ("2024-08-01T11:30:23.Z", None),
            ("2024-08-01T11:30:23+0200", None),
            ("not a time at all, really", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                UnixSeconds::parse_rfc3339(text).map(|t| t.0),
                want,
                "{text}"
            );
        }
    }

    #[test]
    fn formats_and_round_trips() {
        assert_eq!(
            UnixSeconds(1_722_511_823).to_rfc3339(),
            "2024-08-01T11:30:23Z"
        );
        for secs in [0, 951_782_400, 1_709_164_800, 4_102_444_799, -86_400] {
            let text = UnixSeconds(secs).to_rfc3339();
            assert_eq!(
                UnixSeconds::parse_rfc3339(&text),
                Some(UnixSeconds(secs)),
                "{text}"
            );
        }
    }

    #[test]
    fn arithmetic() {
        let t = UnixSeconds(100);
        assert_eq!(t.plus_seconds(-300), UnixSeconds(-200));
        assert_eq!(t.distance(UnixSeconds(40)), 60);
        assert_eq!(UnixSeconds(40).distance(t), 60);
    }
}
