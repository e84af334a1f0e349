//! The calling thread's CPU affinity and `errno`, for the job set-up
//! (`placement`, `host`) and the time thread (`gtod`).

pub(super) fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Pin the calling thread to `cpus` (`sched_setaffinity(0, ...)`).
pub(super) fn set_affinity(cpus: &[usize]) -> Result<(), i32> {
    // SAFETY: an all-zero cpu_set_t is an empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(libc::EINVAL);
        }
        // SAFETY: `c` is below CPU_SETSIZE, the size of `set`.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size given; 0 is this thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r == -1 {
        return Err(last_errno());
    }
    Ok(())
}
