//! Timestamps as the runtime writes them: `yyyy-MM-dd HH:mm:ss` local time in MEMORY.md,
//! epoch milliseconds (or ISO text from older rows) in SQLite.

use chrono::{DateTime, Local, NaiveDate, NaiveDateTime, TimeZone, Utc};

pub const ENTRY_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

pub fn now_local() -> NaiveDateTime {
    // MEMORY.md has second precision; drop the fraction so that what we return equals what we read back.
    let now = Local::now().naive_local();
    now.with_nanosecond_zero()
}

trait NanoZero {
    fn with_nanosecond_zero(self) -> Self;
}

impl NanoZero for NaiveDateTime {
    fn with_nanosecond_zero(self) -> Self {
        use chrono::Timelike;
        self.with_nanosecond(0).unwrap_or(self)
    }
}

pub fn format_entry_ts(ts: &NaiveDateTime) -> String {
    ts.format(ENTRY_FORMAT).to_string()
}

/// [`format_entry_ts`] written into `buf` without the formatter (which costs more than the rest
/// when a review key is made for each of tens of thousands of findings); `None` for what only
/// the formatter writes (a year outside 0–9999, a leap second).
pub fn write_entry_ts<'b>(ts: &NaiveDateTime, buf: &'b mut [u8; 19]) -> Option<&'b str> {
    use chrono::{Datelike, Timelike};
    let year = u32::try_from(ts.year()).ok().filter(|y| *y <= 9999)?;
    if ts.nanosecond() >= 1_000_000_000 {
        return None;
    }
    let fields = [
        (0, 4, year),
        (5, 2, ts.month()),
        (8, 2, ts.day()),
        (11, 2, ts.hour()),
        (14, 2, ts.minute()),
        (17, 2, ts.second()),
    ];
    for (at, width, mut n) in fields {
        for d in buf[at..at + width].iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
    }
    (buf[4], buf[7], buf[10], buf[13], buf[16]) = (b'-', b'-', b' ', b':', b':');
    std::str::from_utf8(buf).ok()
}

/// Parses the bracketed timestamp of an entry line: seconds, minutes or a bare date (older files).
pub fn parse_entry_ts(s: &str) -> Option<NaiveDateTime> {
    if let Some(t) = runtime_entry_ts(s.as_bytes()) {
        return Some(t);
    }
    let s = s.trim();
    NaiveDateTime::parse_from_str(s, ENTRY_FORMAT)
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M"))
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
}

/// [`ENTRY_FORMAT`] exactly as the runtime writes it, read by hand: chrono's format parser
/// costs ~0.3 µs a call, more than the rest of reading an entry (a 100 MB MEMORY.md has
/// ~900 000). `None` for any other form, a leap second (`:60`) and impossible dates too: those
/// are chrono's to judge.
pub fn runtime_entry_ts(b: &[u8]) -> Option<NaiveDateTime> {
    let [y, mo, d, h, mi, sec] = runtime_fields(b)?;
    NaiveDate::from_ymd_opt(y as i32, mo, d).and_then(|date| date.and_hms_opt(h, mi, sec))
}

/// Whether [`runtime_entry_ts`] reads a time from `b`, without making one (checking the
/// calendar by hand costs a fraction of chrono's date: reading a large file asks this of
/// every line and needs the time of few).
pub fn is_runtime_entry_ts(b: &[u8]) -> bool {
    let Some([y, mo, d, h, mi, _]) = runtime_fields(b) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d) && h < 24 && mi < 60
}

/// Year, month, day, hour, minute and second of `yyyy-MM-dd HH:mm:ss` (seconds under 60).
fn runtime_fields(b: &[u8]) -> Option<[u32; 6]> {
    let shape = b.len() == 19
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b' '
        && b[13] == b':'
        && b[16] == b':';
    if !shape {
        return None;
    }
    let num = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let fields = [
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    ];
    (fields[5] < 60).then_some(fields)
}

/// Local wall-clock time to epoch milliseconds (ambiguous DST times take the earlier instant).
pub fn local_to_epoch_ms(ts: &NaiveDateTime) -> i64 {
    match Local.from_local_datetime(ts) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            t.timestamp_millis()
        }
        chrono::LocalResult::None => Utc.from_utc_datetime(ts).timestamp_millis(),
    }
}

pub fn epoch_ms_to_local(ms: i64) -> Option<NaiveDateTime> {
    DateTime::<Utc>::from_timestamp_millis(ms).map(|t| t.with_timezone(&Local).naive_local())
}

pub fn now_epoch_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// Reads a SQLite timestamp cell: epoch ms (integer or numeric text), ISO-8601 with or without
/// offset, or `yyyy-MM-dd HH:mm:ss`. Returns local wall-clock time.
pub fn parse_db_time(value: &rusqlite::types::Value) -> Option<NaiveDateTime> {
    use rusqlite::types::Value;
    match value {
        Value::Integer(ms) => epoch_ms_to_local(*ms),
        Value::Real(ms) => epoch_ms_to_local(*ms as i64),
        Value::Text(t) => parse_text_time(t),
        _ => None,
    }
}

fn parse_text_time(t: &str) -> Option<NaiveDateTime> {
    let t = t.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return epoch_ms_to_local(ms);
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Some(dt.with_timezone(&Local).naive_local());
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(dt) = NaiveDateTime::parse_from_str(t, fmt) {
            return Some(dt);
        }
    }
    parse_entry_ts(t)
}

/// ISO-8601 local time with offset, for JSON that leaves this process.
pub fn to_iso(ts: &NaiveDateTime) -> String {
    match Local.from_local_datetime(ts) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            t.to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
        }
        chrono::LocalResult::None => ts.format("%Y-%m-%dT%H:%M:%S%.3f").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rusqlite::types::Value;

    #[test]
    fn written_entry_times_are_the_formatter_s() {
        let day = NaiveDate::from_ymd_opt(2026, 1, 2).unwrap();
        let mut times: Vec<NaiveDateTime> = (0..86_400 * 3)
            .step_by(997)
            .map(|s| day.and_hms_opt(0, 0, 0).unwrap() + chrono::Duration::seconds(s * 37))
            .collect();
        times.extend(
            [(1, 1, 1), (999, 12, 31), (9999, 12, 31), (2024, 2, 29)].map(|(y, m, d)| {
                NaiveDate::from_ymd_opt(y, m, d)
                    .unwrap()
                    .and_hms_opt(23, 59, 59)
                    .unwrap()
            }),
        );
        for t in &times {
            let mut buf = [0; 19];
            assert_eq!(
                write_entry_ts(t, &mut buf),
                Some(format_entry_ts(t).as_str())
            );
        }
        let far = NaiveDate::from_ymd_opt(10_000, 1, 1)
            .unwrap()
            .and_hms_opt(0, 0, 0)
            .unwrap();
        let leap = day.and_hms_milli_opt(23, 59, 59, 1_000).unwrap();
        for t in [far, leap] {
            assert_eq!(
                write_entry_ts(&t, &mut [0; 19]),
                None,
                "{}",
                format_entry_ts(&t)
            );
        }
    }

    #[test]
    fn the_calendar_by_hand_is_chronos() {
        for y in [0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 9999] {
            for mo in 0..=13 {
                for d in 0..=32 {
                    for (h, mi, s) in [(0, 0, 0), (23, 59, 59), (24, 0, 0), (0, 60, 0), (0, 0, 60)]
                    {
                        let t = format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}");
                        let b = t.as_bytes();
                        assert_eq!(is_runtime_entry_ts(b), runtime_entry_ts(b).is_some(), "{t}");
                    }
                }
            }
        }
        assert!(is_runtime_entry_ts(b"2024-02-29 12:00:00"));
        assert!(!is_runtime_entry_ts(b"2023-02-29 12:00:00"));
        assert!(!is_runtime_entry_ts(b"2024-02-29 12:00"));
    }

    #[test]
    fn the_runtime_form_reads_as_chrono_reads_it() {
        for s in [
            "2026-01-02 03:04:05",
            "0000-01-01 00:00:00",
            "9999-12-31 23:59:59",
            "2024-02-29 12:00:00",
            "2025-02-29 12:00:00",
            "2026-13-02 03:04:05",
            "2026-00-10 03:04:05",
            "2026-01-02 24:00:00",
            "2026-01-02 03:60:00",
            "2026-01-02 03:04:60",
            "2026-01-02 03:04:5x",
            "2026-01-02T03:04:05",
            "2026-1-02 03:04:05",
            " 2026-01-02 03:04:05",
            "2026-01-02 03:04",
            "2026-01-02",
        ] {
            let chrono = NaiveDateTime::parse_from_str(s, ENTRY_FORMAT).ok();
            if let Some(t) = runtime_entry_ts(s.as_bytes()) {
                assert_eq!(Some(t), chrono, "{s}");
            }
            let old = NaiveDateTime::parse_from_str(s.trim(), ENTRY_FORMAT)
                .or_else(|_| NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M"))
                .ok()
                .or_else(|| {
                    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
                        .ok()
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                });
            assert_eq!(parse_entry_ts(s), old, "{s}");
        }
        assert!(runtime_entry_ts(b"2026-01-02 03:04:05").is_some());
    }

    #[test]
    fn entry_timestamps_of_every_dialect() {
        assert_eq!(
            parse_entry_ts("2026-07-22 09:30:00").map(|t| format_entry_ts(&t)),
            Some("2026-07-22 09:30:00".into())
        );
        assert_eq!(
            parse_entry_ts("2026-07-22 09:30").map(|t| format_entry_ts(&t)),
            Some("2026-07-22 09:30:00".into())
        );
        assert_eq!(
            parse_entry_ts("2026-07-22").map(|t| format_entry_ts(&t)),
            Some("2026-07-22 00:00:00".into())
        );
        assert_eq!(parse_entry_ts("yesterday"), None);
    }

    #[test]
    fn db_times_in_ms_and_iso_agree() {
        let ts = parse_entry_ts("2026-07-22 09:30:00").unwrap();
        let ms = local_to_epoch_ms(&ts);
        assert_eq!(parse_db_time(&Value::Integer(ms)), Some(ts));
        assert_eq!(parse_db_time(&Value::Text(ms.to_string())), Some(ts));
        assert_eq!(parse_db_time(&Value::Text(to_iso(&ts))), Some(ts));
        assert_eq!(
            parse_db_time(&Value::Text("2026-07-22T09:30:00".into())),
            Some(ts)
        );
        assert_eq!(parse_db_time(&Value::Null), None);
    }
}
