//! Which zone operations a job's file has (fio's `zbd_get_zoned_model`):
//! a regular file emulates its zones, a block device has those its
//! `queue/zoned` says, anything else has no model.

use std::path::Path;

use super::blkzoned::BlkZoned;
use super::device::{Emulated, ZonedDevice};
use super::types::Model;

/// Why a file's zone model could not be found (fio's
/// `zbd_get_zoned_model` failing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProbeError {
    /// A pipe: `zonemode=zbd does not support pipes`.
    Pipe,
    /// Not a regular file or a block device: fio's `get zoned model
    /// failed`.
    NoModel,
}

/// The zone operations of `path` (fio's `zbd_get_zoned_model`): a regular
/// file (or a file not there yet) always emulates its zones, a block
/// device has the model its `queue/zoned` says.
pub(crate) fn probe(path: &Path) -> Result<Box<dyn ZonedDevice>, ProbeError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(Box::new(Emulated));
    };
    let t = meta.file_type();
    if t.is_fifo() {
        Err(ProbeError::Pipe)
    } else if t.is_block_device() {
        let dev = BlkZoned::new(path, &meta);
        if dev.model() == Model::None {
            Ok(Box::new(Emulated))
        } else {
            Ok(Box::new(dev))
        }
    } else if t.is_file() {
        Ok(Box::new(Emulated))
    } else {
        Err(ProbeError::NoModel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_emulate_their_zones_other_things_have_no_model() {
        let dir = std::env::temp_dir().join(format!("rfio-zbd-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f");
        assert_eq!(probe(&f).map(|d| d.model()).ok(), Some(Model::None));
        std::fs::write(&f, b"x").unwrap();
        assert_eq!(probe(&f).map(|d| d.model()).ok(), Some(Model::None));
        assert_eq!(
            probe(Path::new("/dev/null")).err(),
            Some(ProbeError::NoModel)
        );
        assert_eq!(probe(&dir).err(), Some(ProbeError::NoModel));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
