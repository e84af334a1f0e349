//! fio's error texts: `strerror`, and `td_verror`'s `file:SRC, func=FUNC,
//! error=STRERROR`; the places in fio's source are the job's release's
//! (`crate::release::places`).

use crate::release::places::Site;
use crate::release::Release;

/// `strerror(errno)`.
pub(crate) fn strerror(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    match s.rfind(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// fio's `td_verror` text: `file:SRC, func=FUNC, error=STRERROR`.
pub(crate) fn verror(src: &str, func: &str, errno: i32) -> String {
    format!("file:{src}, func={func}, error={}", strerror(errno))
}

/// fio's source location (in `release`) and function of a failed
/// verify: the completion path of a synchronous engine or of a queued I/O.
pub(crate) fn verify_site(is_sync: bool, release: Release) -> (&'static str, &'static str) {
    if is_sync {
        (release.place(Site::IoUSyncComplete), "io_u_sync_complete")
    } else {
        (
            release.place(Site::IoUQueuedComplete),
            "io_u_queued_complete",
        )
    }
}

/// fio's `td_verror` text for an engine's error `e`: with fio's source
/// place where rfio knows the one fio names for this failure, in fio's
/// shape without it (`func=FUNC, error=STRERROR`) otherwise.
pub(crate) fn engine_verror(e: &crate::ioengine::EngineError, place: Option<&str>) -> String {
    if e.func.is_empty() && e.src.is_none() && place.is_none() {
        // No td_verror: fio's text is empty (`err=1/`).
        return String::new();
    }
    let error = e.text.clone().unwrap_or_else(|| strerror(e.errno));
    let mut s = match place.or(e.src) {
        Some(src) => format!("file:{src}, func={}, error={error}", e.func),
        None => format!("func={}, error={error}", e.func),
    };
    if let Some(d) = &e.detail {
        s.push_str(&format!(" ({d})"));
    }
    // The function names the file (`open(PATH)`), which a replayed log
    // may name with control characters.
    crate::diag::visible(&s).into_owned()
}

/// Where `release` reports the engine of flags `engine` failing to open
/// (or, for the file operations, to act on) a file, as the engine declares
/// it: the engines that open through fio's `generic_open_file` (whose
/// place is the release's), and the file operations' own opens. `func` is
/// the failed call as the engine names it (`open(PATH)`).
pub(crate) fn open_place(
    engine: &crate::ioengine::EngineFlags,
    func: &str,
    release: Release,
) -> Option<&'static str> {
    let call = func.split('(').next().unwrap_or(func);
    let place = engine.open_error_place(call)?;
    let generic = crate::ioengine::GENERIC_OPEN.map(|g| g.1);
    Some(if Some(place) == generic {
        release.place(Site::GenericOpen)
    } else {
        place
    })
}
