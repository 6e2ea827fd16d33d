//! Which of many byte ranges hold or overlap a given one, in logarithmic time. Choosing one
//! candidate among n leaves n − 1 out, and asking each of them against every other range
//! (or every repair against each of them) was quadratic: 40,000 candidates took 14 s.

/// A set of byte ranges `s..e`, sorted by start, with the furthest end reached so far.
pub(crate) struct Cover {
    starts: Vec<usize>,
    /// `reach[i]`: the largest end among the first `i + 1` ranges by start.
    reach: Vec<usize>,
}

impl Cover {
    pub fn new(ranges: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let mut ranges: Vec<(usize, usize)> = ranges.into_iter().collect();
        crate::work::add(ranges.len());
        ranges.sort_unstable();
        let mut furthest = 0;
        let reach = ranges
            .iter()
            .map(|&(_, e)| {
                furthest = furthest.max(e);
                furthest
            })
            .collect();
        let starts = ranges.into_iter().map(|(s, _)| s).collect();
        Cover { starts, reach }
    }

    /// The furthest end among the first `n` ranges by start.
    fn reach_of_first(&self, n: usize) -> Option<usize> {
        crate::work::add(1);
        self.reach.get(n.checked_sub(1)?).copied()
    }

    /// True when one range `s..e` holds `start..end`: `s <= start < e` and `end <= e`.
    pub fn holds(&self, start: usize, end: usize) -> bool {
        let n = self.starts.partition_point(|&s| s <= start);
        self.reach_of_first(n)
            .is_some_and(|e| start < e && end <= e)
    }

    /// True when one range `s..e` overlaps `start..end`: `s < end` and `start < e`.
    pub fn overlaps(&self, start: usize, end: usize) -> bool {
        let n = self.starts.partition_point(|&s| s < end);
        self.reach_of_first(n).is_some_and(|e| start < e)
    }
}

#[cfg(test)]
mod tests {
    use super::Cover;
    use proptest::prelude::*;

    fn range() -> impl Strategy<Value = (usize, usize)> {
        (0usize..40, 0usize..12).prop_map(|(s, len)| (s, s + len))
    }

    proptest! {
        #[test]
        fn agrees_with_asking_every_range(
            ranges in proptest::collection::vec(range(), 0..12),
            probes in proptest::collection::vec(range(), 1..12),
        ) {
            let cover = Cover::new(ranges.iter().copied());
            for (start, end) in probes {
                let holds = ranges.iter().any(|&(s, e)| s <= start && start < e && end <= e);
                let overlaps = ranges.iter().any(|&(s, e)| s < end && start < e);
                prop_assert_eq!(cover.holds(start, end), holds);
                prop_assert_eq!(cover.overlaps(start, end), overlaps);
            }
        }
    }
}
