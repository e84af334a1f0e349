//! Working through a list on several threads while handing the results on in list order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

/// Calls `work` on every item using up to `workers` threads, and `done(index, result)` on the
/// calling thread for each item in order, as soon as it and all items before it are finished.
pub(crate) fn for_each_in_order<T, R>(
    items: &[T],
    workers: usize,
    work: impl Fn(&T) -> R + Sync,
    mut done: impl FnMut(usize, R),
) where
    T: Sync,
    R: Send,
{
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            let tx = tx.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else { break };
                if tx.send((index, work(item))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut wanted = 0;
        for (index, result) in rx {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&wanted) {
                done(wanted, result);
                wanted += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn results_arrive_in_order() {
        let items: Vec<u64> = (0..20).collect();
        let mut seen = Vec::new();
        for_each_in_order(
            &items,
            4,
            |&n| {
                // Later items finish first.
                thread::sleep(Duration::from_millis(20 - n));
                n * 10
            },
            |index, result| seen.push((index, result)),
        );
        let expected: Vec<(usize, u64)> = (0..20).map(|n| (n as usize, n * 10)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn empty_list() {
        for_each_in_order(&[] as &[u8], 3, |_| (), |_, ()| panic!("no items"));
    }
}
