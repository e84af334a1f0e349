//! ioengine=e4defrag on an ext4 filesystem in a loop device, against real
//! fio 3.33: the same moves, errors, counts and donor sizes.

use std::path::PathBuf;
use std::process::Command;

use crate::common;
use common::json::{json_of, summary};
use common::TempDir;

/// An ext4 filesystem in a file, loop-mounted on a directory (root only),
/// unmounted when dropped; `None`, with the reason, where mkfs.ext4 or the
/// loop mount is not available.
struct Ext4 {
    dir: TempDir,
    mnt: PathBuf,
}

impl Ext4 {
    fn mount() -> Result<Ext4, String> {
        let dir = TempDir::new("ext4");
        let img = dir.file("fs.img");
        let mnt = dir.file("mnt");
        std::fs::create_dir(&mnt).unwrap();
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(32 << 20))
            .map_err(|e| e.to_string())?;
        let run = |cmd: &mut Command| -> Result<(), String> {
            match cmd.output() {
                Ok(o) if o.status.success() => Ok(()),
                Ok(o) => Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&o.stderr))),
                Err(e) => Err(format!("{cmd:?}: {e}")),
            }
        };
        run(Command::new("mkfs.ext4").args(["-F", "-q"]).arg(&img))?;
        run(Command::new("mount")
            .args(["-o", "loop"])
            .arg(&img)
            .arg(&mnt))?;
        Ok(Ext4 { dir, mnt })
    }

    fn arg(&self) -> String {
        format!("--directory={}", self.mnt.display())
    }

    /// Remove the files of the filesystem (`lost+found` stays).
    fn clean(&self) {
        for e in std::fs::read_dir(&self.mnt).unwrap().flatten() {
            if e.path().is_file() {
                std::fs::remove_file(e.path()).unwrap();
            }
        }
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mnt).status();
    }
}

/// fio 3.33 and rfio, e4defrag on a fresh loop-mounted ext4: donors
/// allocated once (`inplace=0`, from offset to `filesize`) or for each
/// write (`inplace=1`, truncated after); direct or buffered; verify after
/// the moves (the data is the file's, untouched by the move); and the
/// failures: no donorname (`'donorname' options required`, error 1 with
/// no text), no filesize (fallocate's EINVAL at `e4defrag.c:113`), a donor
/// that cannot be created (`Can't open donor file ...`, ENOENT at
/// `e4defrag.c:93`), a read (EINVAL, `td_io_queue`). Same errors, counts,
/// lines and donor sizes from both.
#[test]
fn e4defrag_moves_blocks_as_fio() {
    let fio = common::real_fio();
    let Some(fs) = common::need("loop", Ext4::mount()) else {
        return;
    };
    let d = fs.arg();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--donorname=a.def",
                "--filesize=1m",
                "--bs=32k",
                "--rw=write",
                "--direct=1",
            ],
            "",
        ),
        (
            &[
                "--donorname=b.def",
                "--inplace=1",
                "--size=256k",
                "--bs=4k",
                "--rw=randwrite",
            ],
            "",
        ),
        (
            &[
                "--donorname=c.def",
                "--filesize=512k",
                "--offset=128k",
                "--bs=16k",
                "--rw=randwrite",
                "--verify=crc32c",
            ],
            "",
        ),
        (
            &["--size=256k", "--rw=write"],
            "'donorname' options required\nfio: io engine e4defrag init failed.\n",
        ),
        (
            &["--donorname=d.def", "--size=256k", "--rw=write"],
            "fio: io engine e4defrag init failed.\n",
        ),
        (
            &["--donorname=nodir/e.def", "--filesize=256k", "--rw=write"],
            "Can't open donor file ",
        ),
        (
            &[
                "--donorname=f.def",
                "--inplace=1",
                "--size=256k",
                "--rw=read",
            ],
            "",
        ),
    ];
    for (i, (case, line)) in cases.iter().enumerate() {
        let file = format!("--filename=f{i}");
        let mut args = vec!["--name=d", "--ioengine=e4defrag", d.as_str(), file.as_str()];
        args.extend_from_slice(case);
        let (f, fio_err, fio_rc) = json_of(fio, &fs.dir, &args);
        let donor = |c: &[&str]| {
            c.iter()
                .find_map(|a| a.strip_prefix("--donorname="))
                .and_then(|n| std::fs::metadata(fs.mnt.join(n)).ok())
                .map(|m| m.len())
        };
        let fio_donor = donor(case);
        fs.clean();
        let (r, err, rc) = json_of(common::RFIO, &fs.dir, &args);
        assert_eq!(
            (rc, summary(&r, 0)),
            (fio_rc, summary(&f, 0)),
            "{case:?}: {err}"
        );
        assert_eq!(donor(case), fio_donor, "{case:?}: the donor's size");
        assert!(fio_err.contains(line), "fio {case:?}: {fio_err}");
        assert!(err.contains(line), "rfio {case:?}: {err}");
        fs.clean();
    }
}
