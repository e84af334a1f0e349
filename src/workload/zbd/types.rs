//! What a zoned device is made of (fio's `zbd_types.h`): its zoned model,
//! and each zone's type, condition, start, write pointer and capacity, in
//! bytes.

/// A device's zoned model (fio's `enum zbd_zoned_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// No zones: fio emulates them (regular files, devices whose
    /// `queue/zoned` is `none`).
    None,
    /// Zones, writes anywhere allowed (`host-aware`).
    HostAware,
    /// Zones, sequential zones written at their write pointer only
    /// (`host-managed`).
    HostManaged,
}

impl Model {
    /// The model a block device's `queue/zoned` sysfs attribute names
    /// (fio treats anything else as no zones).
    pub fn from_sysfs(text: &str) -> Model {
        match text {
            "host-aware" => Model::HostAware,
            "host-managed" => Model::HostManaged,
            _ => Model::None,
        }
    }
}

/// A zone's type (fio's `enum zbd_zone_type`, the kernel's
/// `BLK_ZONE_TYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneType {
    /// No write pointer: written anywhere.
    Conventional,
    /// Sequential write required.
    SeqWriteRequired,
    /// Sequential write preferred.
    SeqWritePreferred,
}

/// A zone's condition (fio's `enum zbd_zone_cond`). Read-only zones are
/// reported as offline, as fio does: neither is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneCond {
    NotWp,
    Empty,
    ImplicitOpen,
    ExplicitOpen,
    Closed,
    Full,
    Offline,
}

/// One zone as a device reports it (fio's `struct zbd_zone`), in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    pub start: u64,
    pub len: u64,
    /// The write pointer (`start` for an offline zone).
    pub wp: u64,
    /// Bytes usable from the start (`len` when the device has no zone
    /// capacity).
    pub capacity: u64,
    pub kind: ZoneType,
    pub cond: ZoneCond,
}

impl Zone {
    /// An empty sequential-write-required zone of `len` bytes at `start`,
    /// `capacity` of them usable.
    pub fn empty(start: u64, len: u64, capacity: u64) -> Zone {
        Zone {
            start,
            len,
            wp: start,
            capacity,
            kind: ZoneType::SeqWriteRequired,
            cond: ZoneCond::Empty,
        }
    }
}
