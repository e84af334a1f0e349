//! How a job treats its files, besides naming them (`plan::files`):
//! `openfiles`, `lockfile`, `file_append`, `create_serialize`,
//! `create_only`, `allow_file_create`, `sync_file_range`, `write_barrier`,
//! `write_hint`, `atomic`, `ioscheduler`, `unique_filename`, with fio's
//! defaults and fix-ups (`init.c` `fixup_options`, `options.c`).

use super::read::Opts;
use crate::options::Value;
use crate::release::Change;

/// `lockfile=`: what a job holds around each I/O (fio's `file_lock_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LockMode {
    #[default]
    None,
    /// One lock per file name, shared by every job that names the file:
    /// an I/O waits until no other job's I/O to the file is being issued.
    Exclusive,
    /// fio 3.33 sets up a read-write lock for it but takes it only when
    /// the file also has the lock of an `exclusive` job: on its own it
    /// locks nothing, and rfio does the same.
    ReadWrite,
}

/// `sync_file_range=FLAGS:N`: a `sync_file_range(2)` of the range written
/// since the last sync, every `every` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyncRange {
    /// `SYNC_FILE_RANGE_WAIT_BEFORE | _WRITE | _WAIT_AFTER`, as chosen.
    pub(crate) flags: u32,
    /// `N` (1 without `:N`), at least 1.
    pub(crate) every: u64,
}

/// `write_hint=`: the lifetime hint set on each file when it is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteHint(pub(crate) u64);

/// `opendir=`: the files found under the directory when the job was
/// added (fio scans it when it reads the option).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenDir {
    /// Every regular file below the directory, in `readdir` order, named
    /// `DIR/NAME` (and `DIR/SUB/NAME` ...), as fio's `recurse_dir`.
    pub(crate) files: Vec<String>,
    /// Where the option was set: fio scans, and says how many files it
    /// added, once per setting (a `[global]` one serves every job).
    pub(crate) at: String,
}

/// The file options of a job (`JobSpec::file`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileOptions {
    /// `openfiles` as given (0 or unset: every file), see
    /// [`FileOptions::open_limit`].
    openfiles: u64,
    pub(crate) lock: LockMode,
    /// `file_append`: a regular file's region starts at its end.
    pub(crate) append: bool,
    /// `create_serialize` (default on): every job's files are set up, in
    /// job order, before the first job starts; off, a job's files are set
    /// up when the job starts.
    pub(crate) create_serialize: bool,
    /// `create_only`: lay the files out, run no I/O.
    pub(crate) create_only: bool,
    /// `allow_file_create` (default on): may the job create files.
    pub(crate) allow_create: bool,
    /// `sync_file_range` (`None`: not set, or `:0`).
    pub(crate) sync_range: Option<SyncRange>,
    /// `write_barrier=N`: fio marks every Nth write a barrier only for an
    /// engine with barriers (`FIO_BARRIER`, libpmem alone), and no engine
    /// of fio 3.33 reads the mark: it changes nothing, in fio as in rfio.
    pub(crate) write_barrier: u64,
    pub(crate) write_hint: Option<WriteHint>,
    /// fio 3.33's `atomic`: `O_DIRECT` (which it implies,
    /// `JobSpec::direct`) and fio's `O_ATOMIC` bit on every open.
    pub(crate) atomic: bool,
    /// `atomic` from fio 3.38 on (`Change::AtomicWrites`): `RWF_ATOMIC` on
    /// each write, by an engine with atomic writes (others are refused
    /// when the job is added); the open is as without it.
    pub(crate) atomic_writes: bool,
    /// `ioscheduler=`: the scheduler to switch the device under each file
    /// to before the job starts.
    pub(crate) ioscheduler: Option<String>,
    /// `unique_filename` (default on): on a server, names joined with
    /// `directory=` get [`FileOptions::name_prefix`]; elsewhere no effect.
    pub(crate) unique_filename: bool,
    /// On a server with `unique_filename`: `ADDR.` before each name joined
    /// with `directory=` (fio's server's own address of the client's
    /// connection, its `set_name_idx`).
    pub(crate) name_prefix: Option<String>,
    /// `opendir=`, scanned when the plan is to run (`plan::files`).
    pub(crate) opendir: Option<std::sync::Arc<OpenDir>>,
    /// `filetype` (fio 3.41): the type every file of the job is taken to
    /// be, without a stat(2) (`None`: `none`, each file's own type).
    pub(crate) filetype: Option<FileType>,
}

/// A type `filetype=` names (fio's `enum fio_filetype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileType {
    File,
    Block,
    Char,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            openfiles: 0,
            lock: LockMode::None,
            append: false,
            create_serialize: true,
            create_only: false,
            allow_create: true,
            sync_range: None,
            write_barrier: 0,
            write_hint: None,
            atomic: false,
            atomic_writes: false,
            ioscheduler: None,
            unique_filename: true,
            name_prefix: None,
            opendir: None,
            filetype: None,
        }
    }
}

impl FileOptions {
    /// How many of `nfiles` files may be open at once (fio's fix-up:
    /// `openfiles` above the number of files, or 0, means all of them).
    pub(crate) fn open_limit(&self, nfiles: usize) -> usize {
        match usize::try_from(self.openfiles) {
            Ok(n) if n > 0 && n < nfiles => n,
            _ => nfiles,
        }
    }
}

/// `SYNC_FILE_RANGE_*` by the position of the choice in the option table
/// (`wait_before`, `write`, `wait_after`).
const SYNC_RANGE_FLAGS: [u32; 3] = [
    libc::SYNC_FILE_RANGE_WAIT_BEFORE,
    libc::SYNC_FILE_RANGE_WRITE,
    libc::SYNC_FILE_RANGE_WAIT_AFTER,
];

/// Resolve the file options; values rfio refuses go to `bad`.
pub(super) fn resolve(o: Opts<'_>, bad: &mut Vec<String>) -> FileOptions {
    // The option's minimum (0) is checked when it is read.
    let openfiles = o.int_or_zero("openfiles").max(0) as u64;
    let lock = match o.choice("lockfile") {
        Some("exclusive") => LockMode::Exclusive,
        Some("readwrite") => LockMode::ReadWrite,
        _ => LockMode::None,
    };
    let write_hint = match o.choice("write_hint") {
        // Linux's RWH_WRITE_LIFE_NONE ... _EXTREME.
        Some("none") => Some(WriteHint(1)),
        Some("short") => Some(WriteHint(2)),
        Some("medium") => Some(WriteHint(3)),
        Some("long") => Some(WriteHint(4)),
        Some("extreme") => Some(WriteHint(5)),
        _ => None,
    };
    FileOptions {
        openfiles,
        lock,
        append: o.is("file_append"),
        create_serialize: o.flag_or_default("create_serialize"),
        create_only: o.is("create_only"),
        filetype: match o.choice_or_default("filetype") {
            "file" => Some(FileType::File),
            "block" => Some(FileType::Block),
            "char" => Some(FileType::Char),
            _ => None,
        },
        allow_create: o.flag_or_default("allow_file_create"),
        sync_range: sync_range(o, bad),
        write_barrier: o.int_or_default("write_barrier").max(0) as u64,
        write_hint,
        atomic: o.is("atomic") && !o.1.has(Change::AtomicWrites),
        atomic_writes: o.is("atomic") && o.1.has(Change::AtomicWrites),
        ioscheduler: o.text("ioscheduler").map(str::to_string),
        unique_filename: o.flag_or_default("unique_filename"),
        name_prefix: None,
        opendir: None,
    }
}

/// `sync_file_range=wait_before,write:8`. fio reads the `:N` with `atoi`
/// (`write:abc` is 0, never); rfio takes whole numbers only.
fn sync_range(o: Opts<'_>, bad: &mut Vec<String>) -> Option<SyncRange> {
    let Some(Value::ChoiceSet { indices, modifier }) = o.value("sync_file_range") else {
        return None;
    };
    let flags = indices
        .iter()
        .filter_map(|&i| SYNC_RANGE_FLAGS.get(i))
        .fold(0, |acc, f| acc | f);
    let every = match modifier.as_deref() {
        None => 1,
        Some(n) => match n.trim().parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                bad.push(format!(
                    "sync_file_range: '{n}' after ':' is not a number of writes \
                     (fio reads it as 0 and never syncs)"
                ));
                return None;
            }
        },
    };
    (every > 0).then_some(SyncRange { flags, every })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::testing::{frontend, job};

    #[test]
    fn defaults_are_fios() {
        let f = job(&["--name=x", "--size=1m"]).file;
        assert_eq!(f, FileOptions::default());
        assert!(f.create_serialize && f.allow_create && f.unique_filename);
        assert_eq!(f.open_limit(7), 7);
    }

    #[test]
    fn openfiles_is_capped_at_the_number_of_files() {
        let f = |n: &str| job(&["--name=x", "--size=1m", n]).file;
        assert_eq!(f("--openfiles=2").open_limit(4), 2);
        assert_eq!(f("--openfiles=9").open_limit(4), 4);
        assert_eq!(f("--openfiles=0").open_limit(4), 4);
    }

    #[test]
    fn the_other_file_options() {
        let f = job(&[
            "--name=x",
            "--size=1m",
            "--lockfile=exclusive",
            "--file_append=1",
            "--create_serialize=0",
            "--create_only=1",
            "--allow_file_create=0",
            "--sync_file_range=wait_before,write:8",
            "--write_barrier=4",
            "--write_hint=long",
            "--atomic=1",
            "--ioscheduler=none",
            "--unique_filename=0",
        ])
        .file;
        assert_eq!(f.lock, LockMode::Exclusive);
        assert!(f.append && !f.create_serialize && f.create_only && !f.allow_create);
        assert_eq!(
            f.sync_range,
            Some(SyncRange {
                flags: libc::SYNC_FILE_RANGE_WAIT_BEFORE | libc::SYNC_FILE_RANGE_WRITE,
                every: 8
            })
        );
        assert_eq!((f.write_barrier, f.write_hint), (4, Some(WriteHint(4))));
        assert!(f.atomic && !f.unique_filename);
        assert_eq!(f.ioscheduler.as_deref(), Some("none"));
        let lock = |v: &str| job(&["--name=x", "--size=1m", v]).file.lock;
        assert_eq!(lock("--lockfile=readwrite:4"), LockMode::ReadWrite);
        assert_eq!(lock("--lockfile=none"), LockMode::None);
    }

    #[test]
    fn sync_file_range_counts() {
        let sr = |v: &str| job(&["--name=x", "--size=1m", v]).file.sync_range;
        assert_eq!(sr("--sync_file_range=write").map(|s| s.every), Some(1));
        assert_eq!(sr("--sync_file_range=write:0"), None, "fio: never");
        let fe = frontend(&["--name=x", "--size=1m", "--sync_file_range=write:abc"]);
        assert!(
            fe.diags.to_string().contains("'abc' after ':'"),
            "{}",
            fe.diags
        );
    }

    #[test]
    fn atomic_implies_direct() {
        assert!(job(&["--name=x", "--size=1m", "--atomic=1"]).direct);
        assert!(!job(&["--name=x", "--size=1m"]).direct);
    }
}
