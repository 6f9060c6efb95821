//! Criterion benches of the in-process figures of `askd-bench`: one key press alone
//! (`core_ns_per_key`), one key press with its full view rendered at 80 columns and serialised
//! (`view_us_per_key`), and that view cost with 10 and with 1,000 options (`options_ratio`).
//! The workloads are the command's own, shared by path: `cargo bench --bench engine`.

use std::hint::black_box;

use askd::core::Key;
use askd::view::ScreenCache;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

// Only the workloads are used here; the rest of the file is the command.
#[allow(dead_code)]
#[path = "../src/bin/askd-bench.rs"]
mod command;

use command::workload;

/// A key script repeated without end.
struct Cycle {
    keys: Vec<Key>,
    at: usize,
}

impl Cycle {
    fn new(keys: Vec<Key>) -> Cycle {
        Cycle { keys, at: 0 }
    }

    fn next(&mut self) -> Key {
        let key = self.keys[self.at];
        self.at += 1;
        if self.at == self.keys.len() {
            self.at = 0;
        }
        key
    }
}

fn core_key(c: &mut Criterion) {
    let mut session = workload::open(&workload::flow_payload());
    let mut keys = Cycle::new(workload::flow_keys());
    c.bench_function("core_key", |b| {
        b.iter(|| {
            session
                .press(black_box(keys.next()))
                .expect("the flow stays open")
        })
    });
}

fn view_key(c: &mut Criterion) {
    let mut session = workload::open(&workload::flow_payload());
    let mut cache = ScreenCache::default();
    let mut keys = Cycle::new(workload::flow_keys());
    c.bench_function("view_key", |b| {
        b.iter(|| workload::key_and_view(&mut session, &mut cache, black_box(keys.next())))
    });
}

fn options_view_key(c: &mut Criterion) {
    let mut group = c.benchmark_group("options_view_key");
    for n in [10, 1_000] {
        let mut session = workload::open(&workload::options_payload(n));
        let mut cache = ScreenCache::default();
        let mut keys = Cycle::new(workload::options_keys(n));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| workload::key_and_view(&mut session, &mut cache, black_box(keys.next())))
        });
    }
    group.finish();
}

criterion_group!(benches, core_key, view_key, options_view_key);
criterion_main!(benches);
