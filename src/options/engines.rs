//! STUB
pub static ENGINES: &[&str] = &["psync", "sync", "null", "libaio", "io_uring"];
pub fn is_available(name: &str) -> bool { ENGINES.contains(&name) || name.starts_with("external:") }
