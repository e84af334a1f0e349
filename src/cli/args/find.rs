//! A long option found by name, as glibc's `getopt_long_only` finds it:
//! exact, else a unique prefix.

use super::{long_options, suggest, ArgError, LongOpt, Mode, Release, EXACT_ONLY, RFIO_FLAGS};

/// Find `name` (of argument `arg`) among the long options of the command
/// line's release, as fio 3.NN's getopt does; read strictly, an option a
/// later release added is taken as a job option, which the job's table
/// then refuses naming the release that added it.
/// `known` says which engine options are long options now (all of them,
/// read strictly).
pub(super) fn find_read(
    reading: (Mode, Release),
    arg: &str,
    name: &str,
    known: &dyn Fn(&str) -> bool,
) -> Result<LongOpt, ArgError> {
    let (mode, release) = reading;
    match find(long_options(release), arg, name, known) {
        Err(e) if mode == Mode::Strict && release != Release::NEWEST => {
            find(long_options(Release::NEWEST), arg, name, known)
                .map_err(|_| e)
                .copied()
        }
        found => found.copied(),
    }
}

/// Find `name` (of argument `arg`) among the long options: exact, else a
/// unique prefix. A prefix of one of fio's options means what it means to
/// fio: rfio's own flags are candidates only where none of fio's is
/// (`--serv` is `--server`, not ambiguous with `--server-allow`).
fn find<'a>(
    opts: &'a [LongOpt],
    arg: &str,
    name: &str,
    known: &dyn Fn(&str) -> bool,
) -> Result<&'a LongOpt, ArgError> {
    let opts = || opts.iter().filter(|o| !o.engine || known(o.name));
    if let Some(o) = opts().find(|o| o.name == name) {
        return Ok(o);
    }
    let rfios = |o: &&LongOpt| RFIO_FLAGS.iter().any(|(n, _)| *n == o.name);
    let prefixed = opts().filter(|o| o.name.starts_with(name) && !EXACT_ONLY.contains(&o.name));
    let (own, fios): (Vec<&LongOpt>, Vec<&LongOpt>) = prefixed.partition(rfios);
    let matches = if fios.is_empty() { own } else { fios };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(ArgError::Unrecognized {
            arg: arg.to_string(),
            name: name.to_string(),
            suggestion: suggest::did_you_mean(name, opts().map(|o| o.name)),
            loaded: None,
        }),
        many => Err(ArgError::Ambiguous {
            arg: arg.to_string(),
            name: name.to_string(),
            candidates: many.iter().map(|o| o.name).collect(),
            loaded: None,
        }),
    }
}
