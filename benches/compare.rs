//! Side-by-side benchmarks of rfio and real fio (placeholder).
fn main() {}
