//! The state file of `verify_state_save` (fio's `verify_state_save`).

use super::checksum::fio_crc32c;

/// fio's `verify_state_save` file of a writing job: `local-NAME-INDEX-verify.state`,
/// version 3: a header (version, size, crc32c of the rest), then the
/// thread's list: completions kept, depth, files, writes issued, index,
/// random state, name, and the last completed write offsets (newest first).
pub(crate) fn state_file(
    name: &str,
    index: u32,
    depth: u32,
    nr_files: u32,
    numberio: u64,
    comps: &[(u64, u64)],
) -> (String, Vec<u8>) {
    let mut s = Vec::with_capacity(152 + 16 * depth as usize * nr_files as usize);
    s.extend_from_slice(&(comps.len() as u64).to_le_bytes());
    s.extend_from_slice(&depth.to_le_bytes());
    s.extend_from_slice(&nr_files.to_le_bytes());
    s.extend_from_slice(&numberio.to_le_bytes());
    s.extend_from_slice(&u64::from(index).to_le_bytes());
    s.extend_from_slice(&[0u8; 56]);
    let mut nm = [0u8; 64];
    let b = name.as_bytes();
    let n = b.len().min(63);
    nm[..n].copy_from_slice(&b[..n]);
    s.extend_from_slice(&nm);
    for i in 0..(depth as usize * nr_files as usize) {
        let (f, o) = comps.get(i).copied().unwrap_or((0, 0));
        s.extend_from_slice(&f.to_le_bytes());
        s.extend_from_slice(&o.to_le_bytes());
    }
    let mut out = Vec::with_capacity(24 + s.len());
    out.extend_from_slice(&3u64.to_le_bytes());
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(&u64::from(fio_crc32c(&s)).to_le_bytes());
    out.extend_from_slice(&s);
    (format!("local-{name}-{index}-verify.state"), out)
}
