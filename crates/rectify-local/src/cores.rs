//! How many cores the model can use now: the default thread count.
//!
//! llama.cpp's threads wait for each other at every step of an evaluation, so a thread on a
//! core that another process is using slows the whole evaluation down (measured on 2 cores
//! beside a compiler: 2 threads evaluated a prompt 1.2–1.7× slower than 1, and generated up to
//! 6× slower), while on an idle machine a prompt's evaluation, which is nearly all of an
//! answer's time, splits across the cores (not measured yet: the measuring machine was never
//! idle; docs/BENCHMARKS.md). So the default is the cores the rest of the machine left idle since the last look: on Linux, the
//! CPU time `/proc/stat` counts as busy, less this process's own (`/proc/self/stat`), over the
//! wall time since the model started loading or since the previous call. Elsewhere, or when
//! the window is too short to tell, half the available cores.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A window shorter than this says little (the counters tick 100 times a second).
const MIN_WINDOW: Duration = Duration::from_millis(200);

/// Another process's use of a core below this share still counts the core as free.
const SLACK: f64 = 0.25;

/// The counters at one instant.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    /// Busy and total ticks of all CPUs (`/proc/stat`'s first line).
    busy: u64,
    total: u64,
    /// This process's user and system ticks.
    own: u64,
}

static LAST: Mutex<Option<Sample>> = Mutex::new(None);

/// Starts a window (when the model starts loading), unless one is open.
#[cfg_attr(not(feature = "engine"), allow(dead_code))]
pub(crate) fn mark() {
    let mut last = LAST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if last.is_none() {
        *last = sample();
    }
}

/// The thread count to use: the cores left idle by other processes since the last look (at
/// least 1, at most `limit`); half the available cores when that cannot be measured.
pub(crate) fn free(limit: usize) -> u16 {
    let available = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let fallback = (available / 2).clamp(1, limit.max(1));
    let mut last = LAST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(now) = sample() else {
        return to_u16(fallback);
    };
    let Some(before) = *last else {
        *last = Some(now);
        return to_u16(fallback);
    };
    if now.at.duration_since(before.at) < MIN_WINDOW {
        return to_u16(fallback);
    }
    *last = Some(now);
    let cpus = stat_cpus().unwrap_or(available).max(1);
    let threads = threads_for(&before, &now, cpus, available, limit);
    to_u16(threads)
}

/// The cores other processes left idle between two samples, as a thread count.
fn threads_for(
    before: &Sample,
    now: &Sample,
    cpus: usize,
    available: usize,
    limit: usize,
) -> usize {
    let total = now.total.saturating_sub(before.total);
    if total == 0 {
        return (available / 2).clamp(1, limit.max(1));
    }
    let others = now
        .busy
        .saturating_sub(before.busy)
        .saturating_sub(now.own.saturating_sub(before.own));
    // Ticks are summed over all CPUs: the busy share times the CPU count is in cores.
    let busy_cores = others as f64 / total as f64 * cpus as f64;
    let idle = (available as f64 - busy_cores + SLACK).floor();
    (idle.max(1.0) as usize).clamp(1, limit.max(1))
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(1)
}

fn sample() -> Option<Sample> {
    let at = Instant::now();
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let (busy, total) = parse_stat(&stat)?;
    let own = parse_own(&std::fs::read_to_string("/proc/self/stat").ok()?)?;
    Some(Sample {
        at,
        busy,
        total,
        own,
    })
}

/// Busy and total ticks from `/proc/stat`'s first line (`cpu user nice system idle iowait
/// irq softirq steal …`): idle and iowait are idle, the rest busy; steal counts as busy (the
/// host gave the core to someone else).
fn parse_stat(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let total: u64 = fields.iter().sum();
    let idle = fields.get(3)? + fields.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// The number of `cpuN` lines of `/proc/stat`.
fn stat_cpus() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let n = stat
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    (n > 0).then_some(n)
}

/// User plus system ticks of this process from `/proc/self/stat` (fields 14 and 15, counted
/// after the command name's closing parenthesis, which may hold spaces).
fn parse_own(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ')' the fields start at field 3 (state): utime is field 14, stime 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(busy: u64, total: u64, own: u64) -> Sample {
        Sample {
            at: Instant::now(),
            busy,
            total,
            own,
        }
    }

    #[test]
    fn the_stat_lines_are_read() {
        let stat = "cpu  100 10 50 800 40 0 5 20 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(parse_stat(stat), Some((185, 1025)));
        let own = "4242 (a (tricky) name) S 1 2 3 4 5 6 7 8 9 10 170 30 0 0 20 0";
        assert_eq!(parse_own(own), Some(200));
        assert_eq!(parse_stat("intr 1 2 3"), None);
    }

    #[test]
    fn cores_busy_with_other_work_are_not_used() {
        // 2 CPUs, 100 ticks each: nobody else busy -> both cores.
        assert_eq!(threads_for(&at(0, 0, 0), &at(100, 200, 100), 2, 2, 4), 2);
        // Another process used one core the whole time -> one.
        assert_eq!(threads_for(&at(0, 0, 0), &at(200, 200, 100), 2, 2, 4), 1);
        // Another process used a tenth of a core -> still both.
        assert_eq!(threads_for(&at(0, 0, 0), &at(110, 200, 100), 2, 2, 4), 2);
        // Half a core -> one.
        assert_eq!(threads_for(&at(0, 0, 0), &at(150, 200, 100), 2, 2, 4), 1);
        // Everything busy -> at least one; never above the limit.
        assert_eq!(threads_for(&at(0, 0, 0), &at(800, 800, 0), 8, 8, 4), 1);
        assert_eq!(threads_for(&at(0, 0, 0), &at(0, 800, 0), 8, 8, 4), 4);
    }
}
