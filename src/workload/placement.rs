//! Where and how a job thread runs (fio's `thread_main` set-up): CPU
//! affinity, nice, I/O priority, the I/O buffer memory, and the commands
//! run before and after the job.
