//! Dependency graphs of steps and of `foreach` items: cycles, levels, ancestors.

use std::collections::BTreeSet;

/// A cycle in `deps` (`deps[i]` are the nodes `i` needs), as the nodes along it with the
/// first repeated at the end; `None` when the graph is acyclic.
pub fn find_cycle(deps: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; deps.len()];
    for start in 0..deps.len() {
        if mark[start] != Mark::New {
            continue;
        }
        // Iterative depth-first search: (node, next edge index).
        let mut stack = vec![(start, 0usize)];
        mark[start] = Mark::Open;
        while let Some(&mut (node, ref mut edge)) = stack.last_mut() {
            if let Some(&next) = deps[node].get(*edge) {
                *edge += 1;
                match mark.get(next) {
                    Some(Mark::New) => {
                        mark[next] = Mark::Open;
                        stack.push((next, 0));
                    }
                    Some(Mark::Open) => {
                        let from = stack.iter().position(|&(n, _)| n == next).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack[from..].iter().map(|&(n, _)| n).collect();
                        cycle.push(next);
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    None
}

/// Nodes grouped in levels: every node's needs are in earlier levels, and the nodes of one
/// level may run in parallel. Nodes on a cycle are left out.
pub fn levels(deps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut level: Vec<Option<usize>> = vec![None; deps.len()];
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for node in 0..deps.len() {
            if level[node].is_some() {
                continue;
            }
            let mut highest = 0;
            let mut ready = true;
            for &d in &deps[node] {
                match level.get(d).copied().flatten() {
                    Some(l) => highest = highest.max(l + 1),
                    None => ready = false,
                }
            }
            if ready {
                level[node] = Some(highest);
                if out.len() <= highest {
                    out.resize(highest + 1, Vec::new());
                }
                out[highest].push(node);
                changed = true;
            }
        }
    }
    out
}

/// Every node `node` needs, directly or not.
pub fn ancestors(deps: &[Vec<usize>], node: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<usize> = deps.get(node).cloned().unwrap_or_default();
    while let Some(n) = todo.pop() {
        if seen.insert(n) {
            todo.extend(deps.get(n).into_iter().flatten().copied());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_found_with_their_path() {
        assert_eq!(find_cycle(&[vec![], vec![0], vec![1]]), None);
        let cycle = find_cycle(&[vec![2], vec![0], vec![1]]).unwrap();
        assert_eq!(cycle.first(), cycle.last());
        assert_eq!(cycle.len(), 4);
        assert_eq!(find_cycle(&[vec![0]]), Some(vec![0, 0]));
    }

    #[test]
    fn levels_put_needs_first() {
        // 0 and 1 independent; 2 needs both; 3 needs 0.
        let deps = [vec![], vec![], vec![0, 1], vec![0]];
        assert_eq!(levels(&deps), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(ancestors(&[vec![], vec![0], vec![1]], 2), [0, 1].into());
    }
}
