//! The statistics bodies: TS (a report entry, fio's `thread_stat` with
//! its group's `group_run_stats`), GS (a group's totals), ETA (the running
//! status), DU (a disk's utilization) and IOLOG (a job's log), as bytes ↔
//! rfio's report types, for the wire versions of fio 3.33 (97) to 3.42
//! (120). Layouts are in [`layout`], derived from one table of field
//! sizes; every offset, count and length read from a peer is checked
//! against the body.

pub(crate) mod du;
pub(crate) mod eta;
pub(crate) mod gs;
pub(crate) mod iolog;
pub(crate) mod layout;
pub(crate) mod ts;

#[cfg(test)]
mod tests;

/// `unit_base` between fio's code (`enum n2s_unit`: 4 bytes/s, 5 bits/s)
/// and rfio's option value (8 bytes, 1 bits). The map swaps 4 ↔ 8 and
/// 5 ↔ 1 and keeps every other value, so any `u32` comes back unchanged.
mod units {
    pub(super) fn unit_base_to_fio(rfio: u32) -> u32 {
        match rfio {
            8 => 4,
            4 => 8,
            1 => 5,
            5 => 1,
            v => v,
        }
    }

    pub(super) fn unit_base_from_fio(fio: u32) -> u32 {
        // The swap is its own inverse.
        unit_base_to_fio(fio)
    }
}
