//! `async-without-direct`: an asynchronous engine on buffered files queues
//! nothing at the device.

use super::{at, Ctx, Hit, Rule};

pub(super) const RULE: Rule = Rule {
    name: "async-without-direct",
    summary: "libaio, posixaio or io_uring without direct=1",
    check,
};

fn check(cx: &Ctx) -> Option<Hit> {
    let engine = cx.job.ioengine.as_str();
    let flags = crate::plan::engine::flags(cx.job);
    if cx.job.direct || !flags.is_some_and(|f| f.queues_file_io()) {
        return None;
    }
    let why = match flags.is_some_and(|f| f.buffered_io_goes_to_kernel_workers()) {
        true => format!(
            "{engine} on buffered files is served from the page cache or by kernel \
             worker threads: iodepth does not queue I/O at the device"
        ),
        false => "asynchronous I/O on buffered files runs synchronously in the kernel: \
                  the submit blocks and iodepth queues nothing"
            .to_string(),
    };
    Some(Hit {
        target: None,
        jobs: Vec::new(),
        span: at(cx.job, &["ioengine"]),
        message: format!("ioengine={engine} without direct=1: {why}"),
        fix: "set direct=1",
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::with;

    #[test]
    fn async_engines_need_direct() {
        assert_eq!(with(&["--direct=0"]), ["async-without-direct"]);
        assert_eq!(
            with(&["--ioengine=io_uring", "--direct=0"]),
            ["async-without-direct"]
        );
    }
}
