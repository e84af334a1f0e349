//! Data placement (fio 3.34's `fdp`, 3.38's `dataplacement`, `plids`,
//! `plid_select`, `dp_scheme`): the placement IDs fio puts into the NVMe
//! write commands of io_uring_cmd and xnvme. No other engine sends them,
//! so on the engines rfio runs they change nothing but what fio checks:
//!
//! - `plids` as fio's `str_fdp_pli_cb` reads it (the option parser,
//!   [`crate::options::parse_plids`]); `dp_scheme` a regular file
//!   (`str_dp_scheme_cb`, when a job file is read to run);
//! - `fdp=1` with `dataplacement=streams` or `none` refused as the job is
//!   added (`fixup_options`);
//! - FDP itself (`fdp=1`, `dataplacement=fdp`) asks the engine for the
//!   device's reclaim unit handles as the files are set up, which only
//!   io_uring_cmd and xnvme on an NVMe device with FDP can answer: the job
//!   is refused before it starts, naming that;
//! - `dataplacement=streams` needs `plids` (fio: "stream IDs must be
//!   provided"), and then runs as without it.

use super::read::Opts;
use crate::options::parse_plids;

/// What fio refuses of a job's data placement as it reads the job file
/// to run it (`dp_scheme`'s callback, skipped by `--parse-only` and
/// `--showcmd`): its lines. (`plids` the option parser reads.)
pub(crate) fn parse_errors(o: Opts<'_>) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(path) = o.text("dp_scheme") {
        let name = path.trim();
        match std::fs::symlink_metadata(name) {
            Err(_) => errors.push(format!(
                "fio: lstat() error related to {name}\nfio: failed parsing dp_scheme={path}"
            )),
            Ok(m) if !m.file_type().is_file() => errors.push(format!(
                "fio: {name} is not a file\nfio: failed parsing dp_scheme={path}"
            )),
            Ok(_) => {}
        }
    }
    errors
}

/// Why a job's data placement is refused before it runs, if it is: what
/// fio says (as it adds the job or sets its files up, exit 1) and what
/// rfio says.
pub(crate) fn refusal(o: Opts<'_>, files: &[String], engine: &str) -> Option<(String, String)> {
    let fdp = o.is("fdp");
    let dp = o.choice("dataplacement");
    if fdp && matches!(dp, Some("streams" | "none")) {
        let fio = "fio: fdp=1 is not compatible with dataplacement={streams, none}".to_string();
        return Some((fio.clone(), fio));
    }
    if fdp || dp == Some("fdp") {
        let file = files.first().map_or("", String::as_str);
        let fio = format!(
            "{file}: engine ({engine}) lacks fetch ruhs\nfio: ruh info failed for {file} (22)"
        );
        let rfio = format!(
            "{} needs an NVMe device with Flexible Data Placement, driven through \
             ioengine=io_uring_cmd or xnvme (fio asks the engine for the device's reclaim \
             unit handles as it sets the files up; ioengine={engine} has none to give): \
             rfio drives neither",
            if fdp { "fdp=1" } else { "dataplacement=fdp" }
        );
        return Some((fio, rfio));
    }
    if dp == Some("streams")
        && o.text("plids")
            .is_none_or(|t| parse_plids(t).is_ok_and(|ids| ids.is_empty()))
    {
        let fio = "fio: stream IDs must be provided for dataplacement=streams".to_string();
        return Some((fio.clone(), format!("{fio} (plids=)")));
    }
    if dp == Some("streams")
        && o.choice("plid_select") == Some("scheme")
        && o.text("dp_scheme").is_none()
    {
        let why = "plid_select=scheme needs dp_scheme (the file of offset ranges and their \
                   placement IDs)"
            .to_string();
        return Some((why.clone(), why));
    }
    None
}
