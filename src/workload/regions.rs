//! A job's files sized before it runs (fio's `setup_files`, as far as it
//! sizes them): what each file holds now, the size it gets (`size`,
//! `filesize`, `fill_device`, the engine's own), and where its region
//! starts, for the job made ready to run (`job.rs`).

use std::path::{Path, PathBuf};

use super::error::RunError;
use super::offsets;
use crate::ioengine::Caps;
use crate::plan::spec::{FileSpec, JobSpec};

/// A file's size under `fill_device` without a size (fio uses -1): far
/// beyond any filesystem, small enough that offsets never overflow.
const FILL_SIZE: u64 = 1 << 62;

/// One file of a job: where its I/O region is.
#[derive(Debug, Clone)]
pub(crate) struct FileRegion {
    pub(crate) path: PathBuf,
    /// First byte of the region (`offset` plus this clone's
    /// `offset_increment`).
    pub(crate) start: u64,
    pub(crate) len: u64,
}

impl FileRegion {
    pub(crate) fn end(&self) -> u64 {
        self.start + self.len
    }
}

/// A job's files, sized.
pub(super) struct Sized {
    /// The files with I/O to do, and their regions.
    pub(super) files: Vec<FileRegion>,
    /// Each such file's region as the generators are set up over it.
    pub(super) regions: Vec<offsets::FileRegion>,
    /// Every file's size before any layout (fio reads the zones then).
    pub(super) sizes: Vec<u64>,
    /// No file is a device.
    pub(super) all_regular: bool,
    /// Files with nothing to do (the prepared job's `ignored`).
    pub(super) ignored: Vec<PathBuf>,
}

/// What a file is before the job touches it.
#[derive(Clone, Copy)]
struct Found {
    /// The engine's own size of it (nbd's export: the first file).
    fixed: Option<u64>,
    /// Its size, if it exists (or the engine's).
    existing: Option<u64>,
    is_device: bool,
    /// `existing` is the engine's size of every file (filecreate's one
    /// block): without a size, the job's region is what it leaves past
    /// the offset; with one, the file grows to it.
    engine_sized: bool,
}

/// Size the files of `spec` on an engine with `caps` (`engine_size`: the
/// engine's own size of the first file; `block`: its size of every file
/// before the job's size applies, filecreate's one block, whatever is
/// there; `fill`: `fill_device` without a size). An error stops the job
/// before it starts.
pub(super) fn size_files(
    spec: &JobSpec,
    caps: Caps,
    engine_size: Option<u64>,
    block: Option<u64>,
    fill: bool,
) -> Result<Sized, RunError> {
    let nfiles = spec.files.len() as u64;
    let mut out = Sized {
        files: Vec::with_capacity(spec.files.len()),
        regions: Vec::with_capacity(spec.files.len()),
        sizes: Vec::with_capacity(spec.files.len()),
        all_regular: true,
        ignored: Vec::new(),
    };
    // filesize=lo-hi: the next draw (in file order) for a file that
    // does not keep its existing size.
    let mut draw = 0;
    for (i, f) in spec.files.iter().enumerate() {
        let mut found = found(spec, caps, f, engine_size.filter(|_| i == 0))?;
        if let Some(b) = block {
            // fio's real_file_size from the engine, whatever is there.
            found.existing = Some(b);
            found.engine_sized = true;
        }
        // fio's real_file_size before the layout: a diskless engine's
        // missing file has the job's share of `size`.
        out.sizes
            .push(found.existing.unwrap_or(if caps.needs_files {
                0
            } else {
                spec.size.unwrap_or(0) / nfiles
            }));
        out.all_regular &= !found.is_device;
        // fio keeps an existing file whose size is in the range and takes
        // no draw for it; the others take the draws in order.
        let drawn = match f.range {
            Some((lo, hi)) => match found.existing.filter(|e| (lo..=hi).contains(e)) {
                Some(e) => Some(e),
                None => {
                    draw += 1;
                    spec.files[draw - 1].size
                }
            },
            None => f.size,
        };
        let (start, size, whole) = region(spec, caps, f, found, drawn, fill)?;
        match size {
            Some(s) if s > 0 => {
                let region = FileRegion {
                    path: f.path.clone(),
                    start,
                    len: s,
                };
                out.regions.push(offsets::FileRegion {
                    file_offset: start,
                    io_size: s,
                    real_file_size: found
                        .fixed
                        .unwrap_or(found.existing.unwrap_or(0).max(region.end())),
                });
                out.files.push(region);
            }
            // fio's setup_files: without a size, a file that has none
            // gets no I/O when another file of the job has some.
            _ if caps.needs_files && spec.size.is_none() && !whole => {
                out.ignored.push(f.path.clone());
            }
            _ => {
                return Err(RunError::NoSize {
                    job: spec.name.clone(),
                })
            }
        }
    }
    if out.files.is_empty() {
        return Err(RunError::NoSize {
            job: spec.name.clone(),
        });
    }
    Ok(out)
}

/// What file `f` of `spec` is now (`fixed`: the engine's own size of it).
/// A FIFO, socket or directory is never laid out over (fio: "failed to
/// get file size"): only files and devices are targets.
fn found(spec: &JobSpec, caps: Caps, f: &FileSpec, fixed: Option<u64>) -> Result<Found, RunError> {
    use std::os::unix::fs::FileTypeExt;
    let meta = std::fs::metadata(&f.path).ok().filter(|_| fixed.is_none());
    if let Some(m) = meta.as_ref().filter(|_| caps.needs_files) {
        let t = m.file_type();
        if !(t.is_file() || t.is_block_device() || t.is_char_device()) {
            return Err(RunError::Invalid {
                job: spec.name.clone(),
                at: spec.span.to_string(),
                msg: format!(
                    "failed to get file size of {}: not a regular file or a device",
                    crate::diag::show_path(&f.path)
                ),
            });
        }
    }
    Ok(Found {
        fixed,
        existing: fixed.or(meta.as_ref().map(|m| file_size(&f.path, m))),
        is_device: meta
            .as_ref()
            .is_some_and(|m| m.file_type().is_block_device() || m.file_type().is_char_device()),
        engine_sized: false,
    })
}

/// Where the region of file `f` (`found` so, `drawn` its `filesize=`
/// draw) starts, its size (`None`: it has none), and whether that size is
/// the whole file's (`filesize=`).
fn region(
    spec: &JobSpec,
    caps: Caps,
    f: &FileSpec,
    found: Found,
    drawn: Option<u64>,
    fill: bool,
) -> Result<(u64, Option<u64>, bool), RunError> {
    let Found {
        fixed,
        existing,
        is_device,
        engine_sized,
    } = found;
    let nfiles = spec.files.len() as u64;
    // An engine without I/O (cpuio, exec) needs no size: it gets a
    // block, which it never touches.
    let planned = drawn
        .or(spec.size.map(|s| s / nfiles))
        .or((fill && !is_device).then_some(FILL_SIZE))
        .or(caps.no_io.then(|| spec.bs[0].1.max(1)));
    // fio's real_file_size when it places the region: what the file
    // has (a file not there yet has nothing); `start_offset` takes
    // percentages of it. With `filesize=` the drawn size is the
    // whole file's; without files, what the job will cover.
    let whole = drawn.filter(|_| f.whole);
    let real = match (fixed, whole) {
        (Some(size), _) => size,
        (None, Some(w)) => existing.unwrap_or(0).max(w),
        (None, None) if caps.needs_files => existing.unwrap_or(0),
        (None, None) => existing
            .unwrap_or(0)
            .max(spec.offset + planned.unwrap_or(0)),
    };
    // file_append: a regular file's region starts at its end (fio's
    // get_start_offset; a missing file is empty).
    let start = if spec.file.append && !is_device {
        existing.unwrap_or(0)
    } else {
        offsets::start_offset(spec, real)
    };
    let from_file = || {
        (caps.needs_files || fixed.is_some() || engine_sized)
            .then(|| existing.map(|len| len.saturating_sub(start)))
            .flatten()
    };
    let size = match whole {
        // fio: `io_size = filesize - file_offset`.
        Some(w) if start > w => {
            return Err(RunError::Refused {
                job: spec.name.clone(),
                msg: format!("{}: you need to specify valid offset=", spec.name),
            })
        }
        Some(w) => Some(w - start),
        None => planned.or_else(from_file),
    };
    Ok((start, size, whole.is_some()))
}

/// A file's size: its length, or a block device's capacity.
fn file_size(path: &Path, m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::FileTypeExt;
    if m.file_type().is_block_device() {
        if let Ok(mut f) = std::fs::File::open(path) {
            use std::io::Seek;
            return f.seek(std::io::SeekFrom::End(0)).unwrap_or(0);
        }
    }
    m.len()
}
