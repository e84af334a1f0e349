//! The small message bodies, each with fio 3.33's layout (unchanged up to
//! fio 3.42). The statistics bodies (TS, GS, ETA, DU, IOLOG) are in
//! [`super::stats`].

use super::{BodyError, Le, Put};

/// PROBE from a client (136 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProbeRequest {
    /// Bit 0: the client can inflate zlib (IOLOG bodies).
    pub(crate) flags: u64,
    /// The server's address as the client printed it.
    pub(crate) server: String,
}

/// PROBE request flag: the client can inflate zlib.
pub(crate) const PROBE_ZLIB: u64 = 1;

impl ProbeRequest {
    pub(crate) const LEN: usize = 136;

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(Self::LEN);
        p.u64(0, self.flags);
        p.cstr(8, 128, &self.server);
        p.b
    }

    /// fio's server takes a short PROBE too (it reads what is there); rfio
    /// reads the fields present.
    pub(crate) fn decode(b: &[u8]) -> Result<ProbeRequest, BodyError> {
        let r = Le::new("PROBE", b, 8)?;
        Ok(ProbeRequest {
            flags: r.u64(0),
            server: r.cstr(8, 128),
        })
    }
}

/// PROBE reply from a server (112 bytes): who it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProbeReply {
    pub(crate) hostname: String,
    pub(crate) bigendian: u8,
    pub(crate) fio_version: String,
    /// fio's OS code (1 Linux).
    pub(crate) os: u8,
    /// fio's architecture code (1 x86-64, 13 aarch64).
    pub(crate) arch: u8,
    /// Pointer size in bytes.
    pub(crate) bpp: u8,
    pub(crate) cpus: u32,
    /// Bit 0: the server compresses IOLOG bodies.
    pub(crate) flags: u64,
}

impl ProbeReply {
    pub(crate) const LEN: usize = 112;

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(Self::LEN);
        p.cstr(0, 64, &self.hostname);
        p.u8(64, self.bigendian);
        p.cstr(65, 32, &self.fio_version);
        p.u8(97, self.os);
        p.u8(98, self.arch);
        p.u8(99, self.bpp);
        p.u32(100, self.cpus);
        p.u64(104, self.flags);
        p.b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<ProbeReply, BodyError> {
        let r = Le::new("PROBE reply", b, Self::LEN)?;
        Ok(ProbeReply {
            hostname: r.cstr(0, 64),
            bigendian: r.u8(64),
            fio_version: r.cstr(65, 32),
            os: r.u8(97),
            arch: r.u8(98),
            bpp: r.u8(99),
            cpus: r.u32(100),
            flags: r.u64(104),
        })
    }

    /// fio's name for the OS code (`fio_get_os_string`).
    pub(crate) fn os_name(&self) -> &'static str {
        const OS: [&str; 12] = [
            "Invalid",
            "Linux",
            "AIX",
            "FreeBSD",
            "HP-UX",
            "OSX",
            "NetBSD",
            "OpenBSD",
            "Solaris",
            "Windows",
            "Android",
            "DragonFly",
        ];
        OS.get(usize::from(self.os)).copied().unwrap_or("Invalid")
    }

    /// fio's name for the architecture code (`fio_get_arch_string`).
    pub(crate) fn arch_name(&self) -> &'static str {
        const ARCH: [&str; 15] = [
            "Invalid", "x86-64", "x86", "ppc", "ia64", "s390", "alpha", "sparc", "sparc64", "arm",
            "sh", "hppa", "mips", "aarch64", "generic",
        ];
        ARCH.get(usize::from(self.arch))
            .copied()
            .unwrap_or("Invalid")
    }

    /// The codes of the machine rfio runs on.
    pub(crate) fn this_machine() -> (u8, u8) {
        let os = if cfg!(target_os = "linux") { 1 } else { 0 };
        let arch = match std::env::consts::ARCH {
            "x86_64" => 1,
            "x86" => 2,
            "powerpc" | "powerpc64" => 3,
            "s390x" => 5,
            "sparc64" => 8,
            "arm" => 9,
            "mips" | "mips64" => 12,
            "aarch64" => 13,
            _ => 14,
        };
        (os, arch)
    }
}

/// START (8 bytes): the server's jobs and expected statistics outputs so
/// far, counted over every job file of the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Start {
    pub(crate) jobs: u32,
    pub(crate) stat_outputs: u32,
}

impl Start {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(8);
        p.u32(0, self.jobs);
        p.u32(4, self.stat_outputs);
        p.b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Start, BodyError> {
        let r = Le::new("START", b, 8)?;
        Ok(Start {
            jobs: r.u32(0),
            stat_outputs: r.u32(4),
        })
    }
}

/// STOP (8 bytes): how the server's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Stop {
    /// fio's exit value of the run.
    pub(crate) error: u32,
    /// The signal that ended it, or 0.
    pub(crate) signal: u32,
}

impl Stop {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(8);
        p.u32(0, self.error);
        p.u32(4, self.signal);
        p.b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Stop, BodyError> {
        let r = Le::new("STOP", b, 8)?;
        Ok(Stop {
            error: r.u32(0),
            signal: r.u32(4),
        })
    }
}

/// fio's log levels in TEXT.
pub(crate) const LEVEL_INFO: u32 = 2;
pub(crate) const LEVEL_ERR: u32 = 3;

/// TEXT: console output of the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    /// 1 debug, 2 info, 3 error.
    pub(crate) level: u32,
    /// When it was sent (gettimeofday).
    pub(crate) sec: u64,
    pub(crate) usec: u64,
    pub(crate) text: String,
}

impl Text {
    const HEADER: usize = 24;

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(Self::HEADER);
        p.u32(0, self.level);
        p.u32(4, self.text.len() as u32);
        p.u64(8, self.sec);
        p.u64(16, self.usec);
        p.b.extend_from_slice(self.text.as_bytes());
        p.b
    }

    /// The text is what the body holds, up to its `buf_len` (a larger
    /// `buf_len` than the body is cut to the body, not trusted).
    pub(crate) fn decode(b: &[u8]) -> Result<Text, BodyError> {
        let r = Le::new("TEXT", b, Self::HEADER)?;
        let len = (r.u32(4) as usize).min(b.len() - Self::HEADER);
        let raw = &b[Self::HEADER..Self::HEADER + len];
        let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
        Ok(Text {
            level: r.u32(0),
            sec: r.u64(8),
            usec: r.u64(16),
            text: String::from_utf8_lossy(&raw[..end]).into_owned(),
        })
    }
}

/// JOB_OPT (200 bytes): one option of the report's `global options` or of
/// one statistics block's `job options`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JobOpt {
    pub(crate) global: bool,
    pub(crate) truncated: bool,
    /// The index of the TS it belongs to (0 for global ones).
    pub(crate) index: u32,
    pub(crate) name: String,
    pub(crate) value: String,
}

impl JobOpt {
    pub(crate) const LEN: usize = 200;

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Put::zeroed(Self::LEN);
        let truncated = self.truncated || self.name.len() >= 64 || self.value.len() >= 128;
        p.u16(0, u16::from(self.global));
        p.u16(2, u16::from(truncated));
        p.u32(4, self.index);
        p.cstr(8, 64, &self.name);
        p.cstr(72, 128, &self.value);
        p.b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<JobOpt, BodyError> {
        let r = Le::new("JOB_OPT", b, Self::LEN)?;
        Ok(JobOpt {
            global: r.u16(0) != 0,
            truncated: r.u16(2) != 0,
            index: r.u32(4),
            name: r.cstr(8, 64),
            value: r.cstr(72, 128),
        })
    }
}

/// The client type rfio sends (fio's command-line client).
pub(crate) const CLIENT_TYPE_CLI: u16 = 1;

/// JOBLINE: a command line for the server (element 0 is the program name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JobLine {
    pub(crate) client_type: u16,
    pub(crate) args: Vec<String>,
}

impl JobLine {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(self.args.len() as u16).to_le_bytes());
        b.extend_from_slice(&self.client_type.to_le_bytes());
        for a in &self.args {
            let len = a.len() + 1;
            b.extend_from_slice(&(len as u16).to_le_bytes());
            b.extend_from_slice(a.as_bytes());
            b.push(0);
        }
        b
    }

    /// Every record's length is checked against the body.
    pub(crate) fn decode(b: &[u8]) -> Result<JobLine, BodyError> {
        let r = Le::new("JOBLINE", b, 4)?;
        let lines = r.u16(0);
        let mut at = 4usize;
        let mut args = Vec::with_capacity(usize::from(lines).min(b.len() / 2));
        for i in 0..lines {
            let len = usize::from(Le::new("JOBLINE", b, at + 2)?.u16(at));
            let text = b.get(at + 2..at + 2 + len).ok_or(BodyError::Bad {
                what: "JOBLINE",
                why: format!("argument {i} runs past the end ({len} bytes)"),
            })?;
            let end = text.iter().position(|&c| c == 0).unwrap_or(text.len());
            args.push(String::from_utf8_lossy(&text[..end]).into_owned());
            at += 2 + len;
        }
        Ok(JobLine {
            client_type: r.u16(2),
            args,
        })
    }
}

/// JOB: the text of one job file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Job {
    pub(crate) client_type: u32,
    pub(crate) text: Vec<u8>,
}

impl Job {
    /// `buf_len` is the text's length with its NUL (fio's client adds 8 KiB
    /// of slack; its server needs none).
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.text.len() + 9);
        b.extend_from_slice(&(self.text.len() as u32 + 1).to_le_bytes());
        b.extend_from_slice(&self.client_type.to_le_bytes());
        b.extend_from_slice(&self.text);
        b.push(0);
        b
    }

    /// The text runs to the first NUL within `buf_len` and the body.
    pub(crate) fn decode(b: &[u8]) -> Result<Job, BodyError> {
        let r = Le::new("JOB", b, 8)?;
        let len = (r.u32(0) as usize).min(b.len() - 8);
        let raw = &b[8..8 + len];
        let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
        Ok(Job {
            client_type: r.u32(4),
            text: raw[..end].to_vec(),
        })
    }
}

/// LOAD_FILE: a job file the server reads from its own file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadFile {
    pub(crate) client_type: u16,
    pub(crate) path: String,
}

impl LoadFile {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.path.len() + 5);
        b.extend_from_slice(&(self.path.len() as u16).to_le_bytes());
        b.extend_from_slice(&self.client_type.to_le_bytes());
        b.extend_from_slice(self.path.as_bytes());
        b.push(0);
        b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<LoadFile, BodyError> {
        let r = Le::new("LOAD_FILE", b, 4)?;
        let len = usize::from(r.u16(0)).min(b.len() - 4);
        let raw = &b[4..4 + len];
        let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
        Ok(LoadFile {
            client_type: r.u16(2),
            path: String::from_utf8_lossy(&raw[..end]).into_owned(),
        })
    }
}

/// SENDFILE from a server (256 bytes): the path of a file it asks for.
pub(crate) fn decode_sendfile(b: &[u8]) -> Result<String, BodyError> {
    Ok(Le::new("SENDFILE", b, 1)?.cstr(0, 256))
}

/// SENDFILE reply: a file's bytes, or the errno that kept it.
pub(crate) fn encode_sendfile_reply(error: u32, data: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + data.len());
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(&error.to_le_bytes());
    b.extend_from_slice(data);
    b
}

/// UPDATE_JOB reply: 0, or ENODEV for a job the server does not have.
pub(crate) fn encode_update_job_reply(error: u32) -> Vec<u8> {
    error.to_le_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobline_as_fios_client_sends_it() {
        let l = JobLine {
            client_type: CLIENT_TYPE_CLI,
            args: vec!["fio".into(), "--output-format=json".into()],
        };
        let b = l.encode();
        assert_eq!(b.len(), 33);
        assert_eq!(&b[..8], &[2, 0, 1, 0, 4, 0, b'f', b'i']);
        assert_eq!(JobLine::decode(&b).unwrap(), l);
        // A count past the records, or a length past the end: refused.
        let mut lying = b.clone();
        lying[0] = 3;
        assert!(JobLine::decode(&lying).is_err());
        let mut long = b.clone();
        long[4] = 200;
        assert!(JobLine::decode(&long).is_err());
        assert!(JobLine::decode(&[1]).is_err());
    }

    #[test]
    fn job_text_stops_at_its_nul_and_its_length() {
        let j = Job {
            client_type: 1,
            text: b"[j]\nrw=read\n".to_vec(),
        };
        assert_eq!(Job::decode(&j.encode()).unwrap(), j);
        // fio's client: buf_len = text + 8 KiB, garbage after the NUL.
        let mut fio = Vec::new();
        fio.extend_from_slice(&(8192u32 + 4).to_le_bytes());
        fio.extend_from_slice(&1u32.to_le_bytes());
        fio.extend_from_slice(b"[j]\n\0\x7f\x01garbage");
        assert_eq!(Job::decode(&fio).unwrap().text, b"[j]\n");
        assert!(Job::decode(&[0; 7]).is_err());
    }

    #[test]
    fn probe_reply_fields_at_fios_offsets() {
        let p = ProbeReply {
            hostname: "h".into(),
            bigendian: 0,
            fio_version: "fio-3.33".into(),
            os: 1,
            arch: 1,
            bpp: 8,
            cpus: 2,
            flags: 1,
        };
        let b = p.encode();
        assert_eq!(b.len(), 112);
        assert_eq!(&b[65..73], b"fio-3.33");
        assert_eq!((b[97], b[98], b[99], b[100], b[104]), (1, 1, 8, 2, 1));
        assert_eq!(ProbeReply::decode(&b).unwrap(), p);
        assert_eq!((p.os_name(), p.arch_name()), ("Linux", "x86-64"));
        let q = ProbeRequest {
            flags: PROBE_ZLIB,
            server: "127.0.0.1".into(),
        };
        assert_eq!(q.encode().len(), 136);
        assert_eq!(ProbeRequest::decode(&q.encode()).unwrap(), q);
    }

    #[test]
    fn text_and_job_opt_bounds() {
        let t = Text {
            level: LEVEL_ERR,
            sec: 1,
            usec: 2,
            text: "fio: oops\n".into(),
        };
        assert_eq!(Text::decode(&t.encode()).unwrap(), t);
        // buf_len larger than the body: cut to the body.
        let mut lying = t.encode();
        lying[4] = 200;
        assert_eq!(Text::decode(&lying).unwrap().text, "fio: oops\n");
        let o = JobOpt {
            global: true,
            truncated: false,
            index: 0,
            name: "ioengine".into(),
            value: "null".into(),
        };
        assert_eq!(JobOpt::decode(&o.encode()).unwrap(), o);
        let long = JobOpt {
            value: "x".repeat(300),
            ..o.clone()
        };
        let d = JobOpt::decode(&long.encode()).unwrap();
        assert_eq!((d.value.len(), d.truncated), (127, true));
        let s = Start {
            jobs: 2,
            stat_outputs: 1,
        };
        assert_eq!(Start::decode(&s.encode()).unwrap(), s);
        assert!(Stop::decode(&[0; 4]).is_err());
        let lf = LoadFile {
            client_type: 1,
            path: "/srv/jobs/a.fio".into(),
        };
        assert_eq!(lf.encode().len(), 4 + 15 + 1);
        assert_eq!(LoadFile::decode(&lf.encode()).unwrap(), lf);
    }
}
