//! The fake set-up the loop's unit tests share (exec's own and its
//! hooks'): a log that keeps the job's messages, and a clock whose time
//! moves only when a test advances it.

use std::sync::{Arc, Mutex};

use crate::workload::clock::{FakeClock, FakeTime};
use crate::workload::log::Log;

/// The job's messages, in order (`info` and `err` alike).
#[derive(Default)]
pub(crate) struct Lines(Mutex<Vec<String>>);

impl Log for Lines {
    fn info(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_string());
    }
    fn err(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_string());
    }
}

impl Lines {
    /// The messages so far.
    pub(crate) fn seen(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Whether nothing was said.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.lock().unwrap().is_empty()
    }

    /// All the messages.
    pub(crate) fn into_vec(self) -> Vec<String> {
        self.0.into_inner().unwrap()
    }
}

/// A clock at 0 and its time, which the test advances.
pub(crate) fn fake_clock() -> (Arc<FakeTime>, FakeClock) {
    let time = Arc::new(FakeTime::default());
    (time.clone(), FakeClock::new(time))
}
