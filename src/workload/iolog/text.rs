//! fio's text I/O logs (`iolog.c` `read_iolog`): a first line
//! `fio version 2 iolog` or `fio version 3 iolog`, then one entry a line:
//!
//! ```text
//! [TIME_US] FILE add|open|close
//! [TIME_US] FILE read|write|sync|datasync|trim|wait OFFSET LENGTH
//! ```
//!
//! Version 3 starts every line with the µs since the log began; version
//! 2 has no times but `wait` lines (wait until OFFSET ms after the job
//! began). Lines are read as fio's `sscanf` reads them: an entry takes
//! exactly its fields (5 or 3 in version 3, 4 or 2 in version 2), numbers
//! end at the first character that is not a digit, and a line fio
//! cannot use is skipped with fio's message, here prefixed with the
//! log's name and the line's number. fio 3.33 replays no `trim` of a
//! text log (`bad ddir: 2`), and skips writes under `--readonly`.
//!
//! Where fio takes hostile input as it comes, rfio refuses it at its
//! `FILE:LINE`: a line longer than [`MAX_LINE`] (a file with no line end,
//! such as `/dev/zero`, cannot fill memory), and a negative or
//! overflowing time, offset or length (which `strtoull` would wrap to a
//! huge value). Messages quoting the log escape its control characters.

use std::ffi::OsStr;
use std::io::BufRead;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::error::{Error, LineError, NumError};
use super::{delay_since, replay_offset, Act, Entry, Files};
use crate::ddir::Ddir;
use crate::plan::resolve::iolog::ReplayOptions;

/// The first line of a version 2 log.
pub(crate) const VERSION_2: &str = "fio version 2 iolog";
/// The first line of a version 3 log (what `write_iolog` writes).
pub(crate) const VERSION_3: &str = "fio version 3 iolog";

/// The longest line of a text log rfio reads, its line end included:
/// 8 KiB. A legal line is far shorter: a time and two numbers of at most
/// 20 digits, a file name and an action that fio reads as at most 256
/// characters each (under 600 bytes in all); fio itself reads a line 4095
/// bytes at a time (`fgets` into 4 KiB). A longer line is an error naming
/// its `FILE:LINE`.
pub(crate) const MAX_LINE: usize = 8192;

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line {
    /// The end of the log: nothing was read.
    End,
    /// A line, with its end unless the log ends without one.
    Read,
    /// [`MAX_LINE`] bytes and no line end: the line is too long.
    TooLong,
}

/// Read one line of at most [`MAX_LINE`] bytes into `buf` (cleared
/// first): never more than that is held, whatever `src` holds.
pub(crate) fn read_line(src: &mut dyn BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    loop {
        let avail = match src.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(if buf.is_empty() {
                Line::End
            } else {
                Line::Read
            });
        }
        let room = MAX_LINE - buf.len();
        if room == 0 {
            return Ok(Line::TooLong);
        }
        let take = avail.len().min(room);
        if let Some(i) = avail[..take].iter().position(|&c| c == b'\n') {
            buf.extend_from_slice(&avail[..=i]);
            src.consume(i + 1);
            return Ok(Line::Read);
        }
        buf.extend_from_slice(&avail[..take]);
        src.consume(take);
    }
}

/// The error for line `line` of `name`, longer than [`MAX_LINE`].
fn too_long(name: &str, line: u64) -> Error {
    Error::Line {
        name: name.to_string(),
        line,
        what: LineError::TooLong { max: MAX_LINE },
    }
}

/// The version a log's first line names (fio compares its start).
pub(crate) fn version(first_line: &[u8]) -> Option<u8> {
    if first_line.starts_with(VERSION_2.as_bytes()) {
        Some(2)
    } else if first_line.starts_with(VERSION_3.as_bytes()) {
        Some(3)
    } else {
        None
    }
}

/// What the readers of a job's log need from its settings.
#[derive(Debug, Clone)]
pub(crate) struct ReadSettings {
    pub(crate) replay: ReplayOptions,
    /// `--readonly`: writes are left out.
    pub(crate) readonly: bool,
    /// `directory=`: where the log's relative file names are.
    pub(crate) dir: Option<PathBuf>,
    /// The log's name in messages.
    pub(crate) name: String,
}

impl ReadSettings {
    /// The path of a file the log names (or of `replay_redirect`).
    pub(crate) fn path(&self, name: &OsStr) -> PathBuf {
        match (&self.dir, &self.replay.redirect) {
            (_, Some(r)) => self.under_dir(OsStr::new(r)),
            _ => self.under_dir(name),
        }
    }

    pub(crate) fn under_dir(&self, name: &OsStr) -> PathBuf {
        match &self.dir {
            Some(d) => d.join(name),
            None => PathBuf::from(name),
        }
    }
}

/// A text log being read, entry by entry, after its first line.
pub(crate) struct TextReader<R> {
    src: R,
    set: ReadSettings,
    version: u8,
    /// Lines read, the first one included.
    line_no: u64,
    /// The previous line's time (version 3).
    last_time: u64,
    /// The last action word read: fio's buffer keeps it for the lines
    /// that have none.
    act: Vec<u8>,
    line: Vec<u8>,
}

/// A line read as fio's `sscanf` reads it: whitespace-separated fields,
/// each conversion starting where the previous ended.
struct Scan<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    fn skip_blanks(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace()
            || self.s.get(self.pos) == Some(&0x0b)
        {
            self.pos += 1;
        }
    }

    /// `%llu`: an optional sign and at least one digit; an overflow
    /// gives the largest value, a minus sign wraps (as `strtoull`), and
    /// [`Num`] says which happened.
    fn number(&mut self) -> Option<Num<'a>> {
        self.skip_blanks();
        let mut p = self.pos;
        let neg = match self.s.get(p) {
            Some(b'-') => {
                p += 1;
                true
            }
            Some(b'+') => {
                p += 1;
                false
            }
            _ => false,
        };
        let start = p;
        let mut v: u64 = 0;
        let mut over = false;
        while let Some(c) = self.s.get(p).filter(|c| c.is_ascii_digit()) {
            match v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(n) => v = n,
                None => over = true,
            }
            p += 1;
        }
        if p == start {
            return None;
        }
        let text = &self.s[self.pos..p];
        let text = &text[text
            .iter()
            .position(|c| !c.is_ascii_whitespace())
            .unwrap_or(0)..];
        self.pos = p;
        Some(Num {
            value: match (over, neg) {
                (true, _) => u64::MAX,
                (false, true) => v.wrapping_neg(),
                (false, false) => v,
            },
            negative: neg && v != 0,
            over,
            text,
        })
    }

    /// `%256s`: up to 256 characters that are not blanks.
    fn word(&mut self) -> Option<&'a [u8]> {
        self.skip_blanks();
        let start = self.pos;
        while self.pos < self.s.len()
            && self.pos - start < 256
            && !self.s[self.pos].is_ascii_whitespace()
            && self.s[self.pos] != 0x0b
        {
            self.pos += 1;
        }
        (self.pos > start).then(|| &self.s[start..self.pos])
    }
}

/// A number of a line: its value as `strtoull` gives it, and whether it
/// was written negative (`-0` is not) or beyond 64 bits.
#[derive(Debug, Default, Clone, Copy)]
struct Num<'a> {
    value: u64,
    negative: bool,
    over: bool,
    /// As written (sign and digits).
    text: &'a [u8],
}

impl Num<'_> {
    /// The value, unless it is negative or beyond `max`: then why not.
    fn within(&self, max: u64) -> Result<u64, NumError> {
        let text = || self.text.to_vec();
        if self.negative {
            Err(NumError::Negative { text: text() })
        } else if self.over || self.value > max {
            Err(NumError::Over { text: text(), max })
        } else {
            Ok(self.value)
        }
    }
}

/// The fields of one line, as far as they converted.
#[derive(Default)]
struct Fields<'a> {
    count: usize,
    time: Option<Num<'a>>,
    name: &'a [u8],
    act: Option<&'a [u8]>,
    offset: Num<'a>,
    bytes: Num<'a>,
}

/// The largest offset a file has (`off_t`): an I/O of a log ends at most
/// there.
const MAX_OFFSET: u64 = i64::MAX as u64;

fn scan(line: &[u8], timed: bool) -> Fields<'_> {
    let mut s = Scan { s: line, pos: 0 };
    let mut f = Fields::default();
    if timed {
        match s.number() {
            Some(t) => f.time = Some(t),
            None => return f,
        }
        f.count += 1;
    }
    let Some(name) = s.word() else { return f };
    f.name = name;
    f.count += 1;
    let Some(act) = s.word() else { return f };
    f.act = Some(act);
    f.count += 1;
    let Some(offset) = s.number() else { return f };
    f.offset = offset;
    f.count += 1;
    // `%u`: fio keeps 32 bits of it; rfio refuses more (see `checked`).
    let Some(bytes) = s.number() else { return f };
    f.bytes = bytes;
    f.count += 1;
    f
}

/// A line of the log, as fio prints it in a message (without its end),
/// its control characters escaped.
fn shown(line: &[u8]) -> String {
    let l = line.strip_suffix(b"\n").unwrap_or(line);
    crate::diag::quote_bytes(l, 256)
}

/// The offset and length of an entry, or why they cannot be replayed:
/// negative, beyond 64 bits (offset) or 32 bits (length, fio's `%u`), or
/// ending beyond the largest file offset.
fn checked(f: &Fields<'_>) -> Result<(u64, u64), LineError> {
    let offset = f.offset.within(MAX_OFFSET).map_err(LineError::BadOffset)?;
    let len = f
        .bytes
        .within(u64::from(u32::MAX))
        .map_err(LineError::BadLength)?;
    if offset.checked_add(len).is_none_or(|end| end > MAX_OFFSET) {
        return Err(LineError::EndsBeyond {
            offset,
            len,
            max: MAX_OFFSET,
        });
    }
    Ok((offset, len))
}

impl<R: BufRead> TextReader<R> {
    /// A reader of a log of `version` whose first line was read from
    /// `src`.
    pub(crate) fn new(src: R, version: u8, set: ReadSettings) -> TextReader<R> {
        TextReader {
            src,
            set,
            version,
            line_no: 1,
            last_time: 0,
            act: Vec::new(),
            line: Vec::new(),
        }
    }

    /// A reader of the log `src`, whose first line it reads: an error
    /// (in fio's words, with the log's name) when that line names no
    /// version rfio reads.
    pub(crate) fn start(mut src: R, set: ReadSettings) -> Result<TextReader<R>, Error> {
        let name = || set.name.clone();
        let mut first = Vec::new();
        match read_line(&mut src, &mut first) {
            Ok(Line::End) => return Err(Error::Empty { name: name() }),
            Ok(Line::Read) => {}
            Ok(Line::TooLong) => return Err(too_long(&set.name, 1)),
            Err(source) => {
                return Err(Error::FirstLine {
                    name: name(),
                    source,
                })
            }
        }
        let version = version(&first).ok_or_else(|| Error::Version1 {
            name: name(),
            versions: [VERSION_2, VERSION_3],
        })?;
        Ok(TextReader::new(src, version, set))
    }

    /// The log's version (2 or 3).
    pub(crate) fn version(&self) -> u8 {
        self.version
    }

    fn at(&self) -> String {
        format!("{}:{}", crate::diag::visible(&self.set.name), self.line_no)
    }

    /// The error `what` of the line just read.
    fn line_error(&self, what: LineError) -> Error {
        Error::Line {
            name: self.set.name.clone(),
            line: self.line_no,
            what,
        }
    }

    /// The next entry, adding the files the log adds to `files`; what fio
    /// would print on the way goes to `say` (a line each, without its
    /// end). `None` at the end of the log; an error ends the replay.
    pub(crate) fn next(
        &mut self,
        files: &mut Files,
        say: &mut dyn FnMut(String),
    ) -> Result<Option<Entry>, Error> {
        loop {
            match read_line(&mut self.src, &mut self.line) {
                Ok(Line::End) => return Ok(None),
                Ok(Line::Read) => {}
                Ok(Line::TooLong) => return Err(too_long(&self.set.name, self.line_no + 1)),
                Err(source) => {
                    return Err(Error::Line {
                        name: self.set.name.clone(),
                        line: self.line_no + 1,
                        what: LineError::Read { source },
                    })
                }
            }
            self.line_no += 1;
            if let Some(e) = self.entry(files, say)? {
                return Ok(Some(e));
            }
        }
    }

    /// The entry of the line just read, if it makes one.
    fn entry(
        &mut self,
        files: &mut Files,
        say: &mut dyn FnMut(String),
    ) -> Result<Option<Entry>, Error> {
        let line = std::mem::take(&mut self.line);
        let result = self.entry_of(&line, files, say);
        self.line = line;
        result
    }

    fn entry_of(
        &mut self,
        line: &[u8],
        files: &mut Files,
        say: &mut dyn FnMut(String),
    ) -> Result<Option<Entry>, Error> {
        let v3 = self.version == 3;
        let f = scan(line, v3);
        if let Some(act) = f.act {
            self.act.clear();
            self.act.extend_from_slice(act);
        }
        let replay = &self.set.replay;
        let mut delay = 0;
        if v3 {
            // A line without a time keeps the previous one (fio's
            // variable is not set again).
            let time = match &f.time {
                Some(t) => t
                    .within(u64::MAX)
                    .map_err(|e| self.line_error(LineError::BadTime(e)))?,
                None => self.last_time,
            };
            delay = delay_since(time, self.last_time, replay.time_scale, replay.no_stall);
            self.last_time = time;
            if self.act == b"wait" {
                say(format!(
                    "{}: iolog: ignoring wait command with version 3 for file {}",
                    self.at(),
                    crate::diag::quote_bytes(f.name, 256)
                ));
                return Ok(None);
            }
        }
        let path = self.set.path(OsStr::from_bytes(f.name));
        let (io_fields, file_fields) = if v3 { (5, 3) } else { (4, 2) };
        let act = crate::diag::quote_bytes(&self.act, 64);
        let missing = |path: &PathBuf| self.line_error(LineError::NotAdded { path: path.clone() });
        let (act, file, offset, len) = if f.count == io_fields {
            let a = match act.as_str() {
                "wait" => Act::Wait,
                "read" => Act::Io(Ddir::Read),
                "write" => Act::Io(Ddir::Write),
                "trim" => Act::Io(Ddir::Trim),
                "sync" => Act::Sync(Ddir::Sync),
                "datasync" => Act::Sync(Ddir::DataSync),
                _ => {
                    say(format!("{}: fio: bad iolog file action: {act}", self.at()));
                    return Ok(None);
                }
            };
            let (offset, len) = checked(&f).map_err(|e| self.line_error(e))?;
            // A wait names a file it does not use (fio looks it up all
            // the same, and finds none without harm).
            let file = match (a, files.find(&path)) {
                (_, Some(i)) => i,
                (Act::Wait, None) => 0,
                (_, None) => return Err(missing(&path)),
            };
            (a, file, offset, len)
        } else if f.count == file_fields {
            let a = match act.as_str() {
                "add" => (Act::Add, files.add(path)),
                "open" => (Act::Open, files.find(&path).ok_or_else(|| missing(&path))?),
                "close" => (Act::Close, files.find(&path).ok_or_else(|| missing(&path))?),
                _ => {
                    say(format!("{}: fio: bad iolog file action: {act}", self.at()));
                    return Ok(None);
                }
            };
            (a.0, a.1, 0, 0)
        } else {
            say(format!(
                "{}: bad iolog{}: {}",
                self.at(),
                self.version,
                shown(line)
            ));
            return Ok(None);
        };
        match act {
            Act::Io(Ddir::Write) if self.set.readonly => return Ok(None),
            Act::Io(Ddir::Trim) => {
                say(format!("{}: bad ddir: {}", self.at(), Ddir::Trim.index()));
                return Ok(None);
            }
            Act::Wait if replay.no_stall => return Ok(None),
            _ => {}
        }
        Ok(Some(match act {
            Act::Wait => Entry {
                act,
                file,
                offset,
                len: 0,
                delay_us: 0,
            },
            Act::Io(_) | Act::Sync(_) => Entry {
                act,
                file,
                offset: replay_offset(offset, replay.scale, replay.align),
                len,
                delay_us: delay,
            },
            _ => Entry::file(act, file, delay),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> ReadSettings {
        ReadSettings {
            replay: ReplayOptions::default(),
            readonly: false,
            dir: None,
            name: "t.log".into(),
        }
    }

    /// Every entry of `body` (after a first line of `version`), the files
    /// and the messages.
    fn read(version: u8, body: &str, set: ReadSettings) -> (Vec<Entry>, Files, Vec<String>) {
        let mut r = TextReader::new(body.as_bytes(), version, set);
        let (mut files, mut said, mut out) = (Files::default(), Vec::new(), Vec::new());
        while let Some(e) = r.next(&mut files, &mut |m| said.push(m)).unwrap() {
            out.push(e);
        }
        (out, files, said)
    }

    fn io(d: Ddir, file: u32, offset: u64, len: u64, delay_us: u64) -> Entry {
        Entry {
            act: Act::Io(d),
            file,
            offset,
            len,
            delay_us,
        }
    }

    #[test]
    fn version_lines() {
        assert_eq!(version(b"fio version 2 iolog\n"), Some(2));
        assert_eq!(version(b"fio version 3 iolog and more\n"), Some(3));
        assert_eq!(version(b"fio version 1 iolog\n"), None);
        assert_eq!(version(b"garbage"), None);
    }

    #[test]
    fn version_3_lines_carry_their_delays() {
        let body = "10 f1 add\n20 f1 open\n30 f1 write 0 4096\n530 f1 read 4096 8192\n\
                    600 f1 sync 0 0\n700 f1 close\n";
        let (e, files, said) = read(3, body, settings());
        assert!(said.is_empty(), "{said:?}");
        assert_eq!(files.paths, [PathBuf::from("f1")]);
        assert_eq!(
            e,
            [
                Entry::file(Act::Add, 0, 0),
                Entry::file(Act::Open, 0, 10),
                io(Ddir::Write, 0, 0, 4096, 10),
                io(Ddir::Read, 0, 4096, 8192, 500),
                Entry {
                    act: Act::Sync(Ddir::Sync),
                    file: 0,
                    offset: 0,
                    len: 0,
                    delay_us: 70
                },
                Entry::file(Act::Close, 0, 100),
            ]
        );
    }

    #[test]
    fn bad_lines_are_skipped_with_fios_messages() {
        let body = "f1 add\nf1 write 0 4096\nf1 wait 200 0\nf1 trim 0 4096\nf1 bogus 0 0\n\
                    f1 read 4096\ntoo many fields 1 2\n\nf1 datasync 0 0\nf1 read 12x 3\n";
        let (e, _, said) = read(2, body, settings());
        assert_eq!(
            said,
            [
                "t.log:5: bad ddir: 2",
                "t.log:6: fio: bad iolog file action: bogus",
                "t.log:7: bad iolog2: f1 read 4096",
                "t.log:8: fio: bad iolog file action: many",
                "t.log:9: bad iolog2: ",
                "t.log:11: bad iolog2: f1 read 12x 3",
            ]
        );
        let acts: Vec<Act> = e.iter().map(|e| e.act).collect();
        assert_eq!(
            acts,
            [
                Act::Add,
                Act::Io(Ddir::Write),
                Act::Wait,
                Act::Sync(Ddir::DataSync)
            ]
        );
        assert_eq!(e[2].offset, 200, "a wait keeps its ms");
    }

    #[test]
    fn a_file_never_added_is_an_error_naming_the_line() {
        let mut r = TextReader::new("f1 add\nf2 read 0 4096\n".as_bytes(), 2, settings());
        let mut files = Files::default();
        let mut said = |_| {};
        assert!(r.next(&mut files, &mut said).unwrap().is_some());
        let e = r.next(&mut files, &mut said).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.log:3: file f2 is not in the log (no 'f2 add' line before this one)"
        );
        // The error keeps the log's name, the line and the file.
        match e {
            Error::Line {
                name,
                line,
                what: LineError::NotAdded { path },
            } => assert_eq!(
                (name.as_str(), line, path),
                ("t.log", 3, PathBuf::from("f2"))
            ),
            other => panic!("not a line's error: {other:?}"),
        }
    }

    #[test]
    fn a_wait_needs_no_file() {
        let (e, files, said) = read(2, "a wait 100 0\n", settings());
        assert!(said.is_empty() && files.paths.is_empty());
        assert_eq!((e[0].act, e[0].offset), (Act::Wait, 100));
    }

    #[test]
    fn replay_options_change_what_is_read() {
        let mut set = settings();
        set.replay.scale = 2;
        set.replay.align = 4096;
        set.replay.redirect = Some("dev".into());
        set.readonly = true;
        set.replay.time_scale = 50;
        let body = "0 a add\n0 b add\n5 a write 0 4096\n10 b read 20000 4096\n30 a wait 1 2\n";
        let (e, files, said) = read(3, body, set);
        assert_eq!(files.paths, [PathBuf::from("dev")], "one file");
        assert_eq!(
            said,
            ["t.log:6: iolog: ignoring wait command with version 3 for file a"]
        );
        assert_eq!(
            e,
            [
                Entry::file(Act::Add, 0, 0),
                Entry::file(Act::Add, 0, 0),
                io(Ddir::Read, 0, 8192, 4096, 10),
            ],
            "the write is left out under --readonly; offsets scaled then aligned; \
             delays doubled"
        );
        let mut set = settings();
        set.replay.no_stall = true;
        let (e, _, _) = read(2, "a add\na wait 100 0\na read 0 1\n", set);
        assert_eq!(e.len(), 2, "no waits without stalls");
    }

    #[test]
    fn numbers_read_as_sscanf_reads_them() {
        let f = scan(b"+12 name act -1 99999999999\n", true);
        assert_eq!(f.count, 5);
        assert_eq!(f.time.map(|t| t.value), Some(12));
        assert_eq!(f.offset.value, u64::MAX, "-1 wraps");
        assert!(f.offset.negative && !f.offset.over);
        assert_eq!(f.bytes.value, 99_999_999_999);
        assert_eq!(f.bytes.text, b"99999999999");
        let f = scan(b"1 n a 99999999999999999999 -0\n", true);
        assert!(f.offset.over && !f.bytes.negative);
        assert_eq!((f.offset.value, f.bytes.value), (u64::MAX, 0));
        let f = scan(b"x name\n", true);
        assert_eq!(f.count, 0);
        let f = scan(b"  name act 12abc 5\n", false);
        assert_eq!((f.count, f.offset.value), (3, 12));
    }

    /// The error `body` (after a first line of `version`) ends with.
    fn fails(version: u8, body: &[u8]) -> String {
        let mut r = TextReader::new(body, version, settings());
        let mut files = Files::default();
        loop {
            match r.next(&mut files, &mut |_| {}) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error in {:?}", String::from_utf8_lossy(body)),
                Err(e) => return e.to_string(),
            }
        }
    }

    #[test]
    fn lines_are_read_up_to_a_bound() {
        let long = [b"a add\n".as_slice(), &vec![b'a'; 3 * MAX_LINE]].concat();
        assert_eq!(
            fails(2, &long),
            "t.log:3: line longer than 8192 bytes (no line end; an iolog line is at most \
             8192 bytes)"
        );
        // A line of MAX_LINE bytes with its end, or without one at the
        // end of the log, is read.
        for end in [&b"\n"[..], b""] {
            let mut line = vec![b' '; MAX_LINE - end.len()];
            line.extend_from_slice(end);
            let mut r = line.as_slice();
            let mut buf = Vec::new();
            assert_eq!(read_line(&mut r, &mut buf).unwrap(), Line::Read);
            assert_eq!(buf.len(), MAX_LINE);
            assert_eq!(read_line(&mut r, &mut buf).unwrap(), Line::End);
        }
        let first = vec![0u8; MAX_LINE + 1];
        let e = TextReader::start(first.as_slice(), settings())
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("t.log:1: line longer than 8192 bytes"), "{e}");
    }

    #[test]
    fn negative_and_overflowing_numbers_are_refused_at_their_line() {
        let cases: [(u8, &str, &str); 7] = [
            (
                3,
                "2 a read 0 -4096\n",
                "t.log:3: bad length -4096: negative",
            ),
            (
                3,
                "2 a read 0 4294967296\n",
                "t.log:3: bad length 4294967296: over 4294967295",
            ),
            (
                3,
                "2 a read -4096 4096\n",
                "t.log:3: bad offset -4096: negative",
            ),
            (
                3,
                "2 a write 99999999999999999999 1\n",
                "t.log:3: bad offset 99999999999999999999: over 9223372036854775807",
            ),
            (
                2,
                "a read 9223372036854775807 4096\n",
                "t.log:3: bad offset 9223372036854775807 and length 4096: the I/O ends beyond \
                 the largest file offset (9223372036854775807)",
            ),
            (3, "-5 a read 0 4096\n", "t.log:3: bad time -5: negative"),
            (2, "a wait -100 0\n", "t.log:3: bad offset -100: negative"),
        ];
        for (version, line, want) in cases {
            let add = if version == 3 { "1 a add\n" } else { "a add\n" };
            assert_eq!(fails(version, format!("{add}{line}").as_bytes()), want);
        }
        // -0 is 0; a file action takes no numbers.
        let (e, _, said) = read(3, "1 a add\n2 a read -0 4096\n", settings());
        assert!(said.is_empty(), "{said:?}");
        assert_eq!((e[1].offset, e[1].len), (0, 4096));
    }

    #[test]
    fn messages_escape_what_they_quote_from_the_log() {
        let body = "a add\na \x1b[2Jbad 0 0\nx\x1b y 1\n";
        let (_, _, said) = read(2, body, settings());
        assert_eq!(
            said,
            [
                "t.log:3: fio: bad iolog file action: \\x1b[2Jbad",
                "t.log:4: bad iolog2: x\\x1b y 1",
            ]
        );
        let e = fails(2, "a add\n\x1b]0;pwned\x07 read 0 1\n".as_bytes());
        assert_eq!(
            e,
            "t.log:3: file \\x1b]0;pwned\\x07 is not in the log (no '\\x1b]0;pwned\\x07 add' \
             line before this one)"
        );
    }
}
