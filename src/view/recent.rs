//! A short list of the values used last, the most recent first: what the screen cache and the
//! layouts keep from one view to the next.

/// At most `MAX` values, the most recently used first. Boxed, so that moving one to the front
/// moves a pointer, not the value.
#[derive(Debug)]
pub(crate) struct Recent<T, const MAX: usize> {
    items: Vec<Box<T>>,
}

impl<T, const MAX: usize> Default for Recent<T, MAX> {
    fn default() -> Self {
        Recent { items: Vec::new() }
    }
}

impl<T, const MAX: usize> Recent<T, MAX> {
    /// The most recent value that `matches` accepts, moved to the front.
    pub(crate) fn find(&mut self, matches: impl FnMut(&T) -> bool) -> Option<&T> {
        let mut matches = matches;
        let i = self.items.iter().position(|item| matches(item))?;
        self.items[..=i].rotate_right(1);
        Some(&self.items[0])
    }

    /// Puts `value` at the front, forgetting the oldest value beyond `MAX`.
    pub(crate) fn keep(&mut self, value: T) {
        self.items.insert(0, Box::new(value));
        self.items.truncate(MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found values move to the front; kept values push the oldest out past the bound.
    #[test]
    fn keeps_the_most_recent_first_within_its_bound() {
        let mut recent: Recent<u32, 3> = Recent::default();
        for n in [1, 2, 3, 4] {
            recent.keep(n);
        }
        let order = |r: &Recent<u32, 3>| r.items.iter().map(|b| **b).collect::<Vec<_>>();
        assert_eq!(order(&recent), vec![4, 3, 2]);
        assert_eq!(recent.find(|&n| n == 2), Some(&2));
        assert_eq!(order(&recent), vec![2, 4, 3]);
        assert_eq!(recent.find(|&n| n == 1), None);
        assert_eq!(order(&recent), vec![2, 4, 3]);
    }
}
