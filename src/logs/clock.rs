//! The alternate epoch of `log_alternate_epoch` and `log_unix_epoch`
//! (fio 3.33 `set_epoch_time`): the time of a `clock_gettime` clock, in
//! ms, read when the job starts; every logged time is added to it.

use std::io;

/// The time of clock `clock` (a `clock_gettime` clock id) in ms.
pub(crate) fn now_ms(clock: i32) -> io::Result<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; an unknown clock id is an
    // EINVAL return, nothing worse.
    let r = unsafe { libc::clock_gettime(clock as libc::clockid_t, &mut ts) };
    if r != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("clock_gettime of clock {clock}: {e}"),
        ));
    }
    Ok(ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_as_ms() {
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let real = now_ms(libc::CLOCK_REALTIME).unwrap();
        assert!(real.abs_diff(unix) < 1000, "{real} vs {unix}");
        let mono = now_ms(libc::CLOCK_MONOTONIC).unwrap();
        assert!(mono < real, "the monotonic clock counts from boot");
        assert!(now_ms(99).is_err());
    }
}
