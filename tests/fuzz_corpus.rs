//! Replays the fuzz corpus (`fuzz/corpus/jobfile`) through the front end:
//! every input that ever found a problem stays fixed.

#[test]
fn fuzz_corpus_replays_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/jobfile");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/corpus/jobfile exists") {
        let path = entry.expect("readable entry").path();
        let bytes = std::fs::read(&path).expect("readable corpus file");
        rfio::front_end_check(&bytes);
        n += 1;
    }
    assert!(n >= 50, "expected the fuzz corpus, found {n} inputs");
}
