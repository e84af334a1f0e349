//! An in-memory zoned device for the tests: zones with types, conditions,
//! capacities and write pointers, a limit on open zones, and writes that
//! fail as a host-managed device's do (not at the write pointer, past the
//! capacity, or opening more zones than the limit).

use std::sync::{Arc, Mutex, MutexGuard};

use super::device::{Errno, ZonedDevice};
use super::types::{Model, Zone, ZoneCond, ZoneType};

/// The device's state, shared by its handles.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) zones: Vec<Zone>,
    /// `queue/max_open_zones` (0: none).
    pub(crate) max_open: u32,
    /// Write pointer resets the device did, per zone index.
    pub(crate) resets: Vec<u32>,
    /// Bytes written.
    pub(crate) written: u64,
}

/// A handle on a fake zoned device (clones share the device).
#[derive(Debug, Clone)]
pub(crate) struct FakeZoned {
    model: Model,
    state: Arc<Mutex<State>>,
}

impl FakeZoned {
    /// A host-managed device of `nr` sequential zones of `size` bytes,
    /// `cap` usable, all empty, `max_open` of them open at once at most.
    pub(crate) fn new(nr: usize, size: u64, cap: u64, max_open: u32) -> FakeZoned {
        let zones = (0..nr as u64)
            .map(|i| Zone::empty(i * size, size, cap))
            .collect();
        FakeZoned {
            model: Model::HostManaged,
            state: Arc::new(Mutex::new(State {
                zones,
                max_open,
                resets: vec![0; nr],
                written: 0,
            })),
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Make zone `i` conventional (no write pointer).
    pub(crate) fn conventional(self, i: usize) -> FakeZoned {
        {
            let mut s = self.state();
            let z = &mut s.zones[i];
            z.kind = ZoneType::Conventional;
            z.cond = ZoneCond::NotWp;
            z.wp = z.start;
        }
        self
    }

    /// Zone `i` in condition `cond`, with `data` bytes written.
    pub(crate) fn with_zone(self, i: usize, cond: ZoneCond, data: u64) -> FakeZoned {
        {
            let mut s = self.state();
            let z = &mut s.zones[i];
            z.cond = cond;
            z.wp = z.start + data;
        }
        self
    }

    /// Zones open now.
    pub(crate) fn open_now(&self) -> usize {
        self.state()
            .zones
            .iter()
            .filter(|z| matches!(z.cond, ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen))
            .count()
    }

    /// A write of `len` bytes at `offset`, as a host-managed device takes
    /// it: EIO off the write pointer or past the capacity (fio's
    /// "unaligned write"), ETOOMANYREFS when it would open one zone too
    /// many.
    pub(crate) fn write(&self, offset: u64, len: u64) -> Result<(), Errno> {
        let open = self.open_now();
        let mut s = self.state();
        let max_open = s.max_open as usize;
        let Some(z) = s
            .zones
            .iter_mut()
            .find(|z| z.start <= offset && offset < z.start + z.len)
        else {
            return Err(libc::EINVAL);
        };
        if z.kind == ZoneType::SeqWriteRequired {
            if matches!(z.cond, ZoneCond::Offline | ZoneCond::Full)
                || offset != z.wp
                || offset + len > z.start + z.capacity
            {
                return Err(libc::EIO);
            }
            let opens = matches!(z.cond, ZoneCond::Empty | ZoneCond::Closed);
            if opens && max_open > 0 && open >= max_open {
                return Err(libc::ETOOMANYREFS);
            }
            z.wp += len;
            z.cond = if z.wp == z.start + z.capacity {
                ZoneCond::Full
            } else if z.cond == ZoneCond::ExplicitOpen {
                ZoneCond::ExplicitOpen
            } else {
                ZoneCond::ImplicitOpen
            };
        } else if offset + len > z.start + z.len {
            return Err(libc::EINVAL);
        }
        s.written += len;
        Ok(())
    }

    /// The zone holding `offset`.
    pub(crate) fn zone_at(&self, offset: u64) -> Zone {
        *self
            .state()
            .zones
            .iter()
            .find(|z| z.start <= offset && offset < z.start + z.len)
            .expect("an offset on the device")
    }

    /// Apply `f` to each zone of `offset..offset + len` with a write
    /// pointer.
    fn each(&mut self, offset: u64, len: u64, f: impl Fn(&mut Zone) -> bool) -> Result<(), Errno> {
        let mut s = self.state();
        let mut hit = Vec::new();
        for (i, z) in s.zones.iter_mut().enumerate() {
            if z.start >= offset && z.start < offset + len && z.kind != ZoneType::Conventional {
                if z.cond == ZoneCond::Offline {
                    return Err(libc::EIO);
                }
                if f(z) {
                    hit.push(i);
                }
            }
        }
        for i in hit {
            s.resets[i] += 1;
        }
        Ok(())
    }
}

impl ZonedDevice for FakeZoned {
    fn model(&self) -> Model {
        self.model
    }

    fn report_zones(&mut self, offset: u64, zones: &mut [Zone]) -> Result<usize, Errno> {
        let s = self.state();
        let from = s
            .zones
            .iter()
            .position(|z| offset < z.start + z.len)
            .unwrap_or(s.zones.len());
        let n = (s.zones.len() - from).min(zones.len());
        zones[..n].copy_from_slice(&s.zones[from..from + n]);
        Ok(n)
    }

    fn reset_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.each(offset, len, |z| {
            z.wp = z.start;
            z.cond = ZoneCond::Empty;
            true
        })
    }

    fn open_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.each(offset, len, |z| {
            z.cond = ZoneCond::ExplicitOpen;
            false
        })
    }

    fn close_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.each(offset, len, |z| {
            if matches!(z.cond, ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen) {
                z.cond = if z.wp == z.start {
                    ZoneCond::Empty
                } else {
                    ZoneCond::Closed
                };
            }
            false
        })
    }

    fn finish_zones(&mut self, offset: u64, len: u64) -> Result<(), Errno> {
        self.each(offset, len, |z| {
            z.wp = z.start + z.capacity;
            z.cond = ZoneCond::Full;
            false
        })
    }

    fn max_open_zones(&mut self) -> Result<u32, Errno> {
        Ok(self.state().max_open)
    }
}
