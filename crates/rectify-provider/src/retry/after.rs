//! Parsing `Retry-After` (RFC 9110 §10.2.3).

use std::time::{Duration, SystemTime};

/// Parses a `Retry-After` value: delay seconds (`"120"`, also `"1.5"`) or an HTTP date
/// (`"Wed, 21 Oct 2015 07:28:00 GMT"`). A date in the past means "now" (zero). Returns `None`
/// for anything else.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses the non-standard `retry-after-ms` header some APIs send (milliseconds).
pub fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    let millis = value.trim().parse::<f64>().ok()?;
    Duration::try_from_secs_f64(millis / 1000.0).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        let now = SystemTime::now();
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn http_date_in_the_future_and_past() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let later = "Wed, 21 Oct 2015 07:28:30 GMT";
        assert_eq!(parse_retry_after(later, now), Some(Duration::from_secs(30)));
        let earlier = "Wed, 21 Oct 2015 07:27:00 GMT";
        assert_eq!(parse_retry_after(earlier, now), Some(Duration::ZERO));
    }

    #[test]
    fn milliseconds_header() {
        assert_eq!(
            parse_retry_after_ms("250"),
            Some(Duration::from_millis(250))
        );
        assert_eq!(parse_retry_after_ms("x"), None);
    }
}
