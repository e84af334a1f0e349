//! fio's data direction (`io_ddir.h` `enum fio_ddir`): what an I/O does.
//! One type from the plan (`rw=`'s directions) through the engines (which
//! also sync) to the statistics, which index their per-direction arrays
//! with [`Ddir::index`].

/// A data direction, in fio's order: reads, writes and trims move (or
/// discard) data and are counted as I/Os; syncs are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ddir {
    Read = 0,
    Write = 1,
    Trim = 2,
    /// `fsync(2)` of the file (`fsync=N`, `end_fsync`).
    Sync = 3,
    /// `fdatasync(2)` of the file (`fdatasync=N`).
    DataSync = 4,
}

impl Ddir {
    /// The directions that move data, in fio's order (`DDIR_RWDIR_CNT`).
    pub const DATA: [Ddir; 3] = [Ddir::Read, Ddir::Write, Ddir::Trim];

    /// Whether this moves (or discards) data, i.e. is counted as an I/O.
    #[inline]
    pub(crate) fn is_data(self) -> bool {
        matches!(self, Ddir::Read | Ddir::Write | Ddir::Trim)
    }

    /// The index of a data direction in per-direction arrays (0 read,
    /// 1 write, 2 trim; the syncs follow).
    #[inline]
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// fio's `io_ddir_name`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
            Ddir::Sync => "sync",
            Ddir::DataSync => "datasync",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ddir;

    #[test]
    fn fio_order_and_names() {
        for (i, d) in Ddir::DATA.into_iter().enumerate() {
            assert_eq!(d.index(), i);
            assert!(d.is_data());
        }
        assert!(!Ddir::Sync.is_data() && !Ddir::DataSync.is_data());
        assert_eq!(Ddir::DataSync.index(), 4);
        assert_eq!(Ddir::Trim.name(), "trim");
        assert_eq!(Ddir::DataSync.name(), "datasync");
    }
}
