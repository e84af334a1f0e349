//! fio's command line in client mode (`parse_cmd_line` with `--client`):
//! which servers, which job files each one gets, which options are sent
//! to them (a JOBLINE) and which apply here.
//!
//! - Options before the first `--client` apply here only.
//! - After a `--client`, fio's client options (`--output`, `--output-format`,
//!   `--eta`, ... [`is_client_flag`]) are sent to that server, and also apply
//!   here. When a `--client` follows one that got no option yet, the
//!   options after it go to both (fio's `arg_list`).
//! - Job files right after `--client=HOST` are that server's; the others
//!   (trailing ones, and any not right after a `--client`, which getopt
//!   moves to the end) go to every server without files of its own.
//! - `--client=FILE` naming a readable file is a list of servers
//!   (whitespace-separated), none of which takes the files after it.
//! - `--remote-config=PATH`: the last server reads PATH from its own file
//!   system.

use std::path::{Path, PathBuf};

use crate::cli::args::{classify, is_client_flag, Arg};
use crate::remote::Error;
use crate::wire::addr::{Addr, AddrError};

/// A job file for a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JobSource {
    /// A file here, read and sent as text (JOB).
    Local(PathBuf),
    /// A path the server reads itself (`--remote-config`, LOAD_FILE).
    Remote(String),
}

/// One `--client` server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Server {
    pub(crate) addr: Addr,
    /// The options it is sent (`--name=value`), without fio's leading `fio`.
    pub(crate) forwarded: Vec<String>,
    /// Its own job files.
    pub(crate) files: Vec<JobSource>,
}

/// The command line, split.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ClientLine {
    /// In the order given.
    pub(crate) servers: Vec<Server>,
    /// Job files of no server: for every server without its own.
    pub(crate) trailing: Vec<PathBuf>,
    /// The options that apply here, as arguments for `args::parse`.
    pub(crate) local: Vec<String>,
}

/// Split `argv` (without the program name). The error is fio's message.
pub(crate) fn split(argv: &[String], called_fio: bool) -> Result<ClientLine, Error> {
    let mut line = ClientLine::default();
    // Servers added while the one before had no option yet: they get the
    // options of the next one too.
    let mut shared: Vec<usize> = Vec::new();
    let tokens = classify(argv, called_fio);
    let mut k = 0;
    while k < tokens.len() {
        let (arg, range) = &tokens[k];
        k += 1;
        match arg {
            Arg::File(f) => line.trailing.push(PathBuf::from(f)),
            Arg::EndOfOptions => {}
            Arg::Bad => line.local.extend(argv[range.clone()].iter().cloned()),
            Arg::Opt { name, value, .. } => {
                let value = value.clone().unwrap_or_default();
                match *name {
                    "client" => {
                        if let Some(list) = host_list(&value)? {
                            for host in list {
                                add_server(&mut line, &mut shared, &host).map_err(|source| {
                                    Error::AddClient {
                                        host: host.clone(),
                                        from_file: Some(value.clone()),
                                        source,
                                    }
                                })?;
                            }
                            continue;
                        }
                        add_server(&mut line, &mut shared, &value).map_err(|source| {
                            Error::AddClient {
                                host: value.clone(),
                                from_file: None,
                                source,
                            }
                        })?;
                        // The job files right after it are its own.
                        while let Some((Arg::File(f), r)) = tokens.get(k) {
                            if argv[r.start].starts_with('-') {
                                break;
                            }
                            if let Some(s) = line.servers.last_mut() {
                                s.files.push(JobSource::Local(PathBuf::from(f)));
                            }
                            k += 1;
                        }
                    }
                    "remote-config" => match line.servers.last_mut() {
                        Some(s) => s.files.push(JobSource::Remote(value)),
                        None => return Err(Error::RemoteConfigFirst),
                    },
                    "server" | "daemonize" => return Err(Error::ClientAndServer),
                    n => {
                        line.local.extend(argv[range.clone()].iter().cloned());
                        if is_client_flag(n) && !line.servers.is_empty() {
                            let opt = match &arg {
                                Arg::Opt { value: Some(v), .. } => format!("--{n}={v}"),
                                _ => format!("--{n}"),
                            };
                            forward(&mut line, &shared, opt);
                        }
                    }
                }
            }
        }
    }
    Ok(line)
}

/// fio's `fio_client_add`: a server after `cur`; `cur` joins the servers
/// sharing options when it has none yet, else the sharing ends.
fn add_server(line: &mut ClientLine, shared: &mut Vec<usize>, host: &str) -> Result<(), AddrError> {
    let addr = Addr::parse(host)?;
    if let Some(cur) = line.servers.len().checked_sub(1) {
        if line.servers[cur].forwarded.is_empty() {
            shared.push(cur);
        } else {
            shared.clear();
        }
    }
    line.servers.push(Server {
        addr,
        forwarded: Vec::new(),
        files: Vec::new(),
    });
    Ok(())
}

/// An option for the last server and those sharing its options.
fn forward(line: &mut ClientLine, shared: &[usize], opt: String) {
    let last = line.servers.len() - 1;
    for &i in shared.iter().chain(std::iter::once(&last)) {
        line.servers[i].forwarded.push(opt.clone());
    }
}

/// `--client=ARG` naming a readable file: the hosts it lists.
fn host_list(arg: &str) -> Result<Option<Vec<String>>, Error> {
    let path = Path::new(arg);
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read(path).map_err(|source| Error::ClientList {
        path: arg.to_string(),
        source,
    })?;
    Ok(Some(
        String::from_utf8_lossy(&text)
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    ))
}

/// What each server is sent, in order: its own files, else the trailing
/// ones. `as_fio` reproduces fio 3.33's loop over the trailing files
/// (`parse_options`): a server without files gets only the first one, and a
/// server with files gets them once per trailing file. `None`: a server
/// that gets nothing (fio drops it).
pub(crate) fn job_plan(line: &ClientLine, as_fio: bool) -> Vec<Option<Vec<JobSource>>> {
    let trailing: Vec<JobSource> = line
        .trailing
        .iter()
        .map(|p| JobSource::Local(p.clone()))
        .collect();
    line.servers
        .iter()
        .map(|s| {
            let jobs = match (s.files.is_empty(), as_fio) {
                (false, false) => s.files.clone(),
                (false, true) => {
                    let times = trailing.len().max(1);
                    (0..times).flat_map(|_| s.files.iter().cloned()).collect()
                }
                (true, false) => trailing.clone(),
                (true, true) => trailing.iter().take(1).cloned().collect(),
            };
            (!jobs.is_empty()).then_some(jobs)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_of(args: &[&str]) -> ClientLine {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        split(&argv, false).unwrap()
    }

    fn local(p: &str) -> JobSource {
        JobSource::Local(PathBuf::from(p))
    }

    #[test]
    fn options_after_a_client_are_forwarded_in_equals_form() {
        let l = split_of(&[
            "--output-format=terse",
            "--client=ip:127.0.0.1,9000",
            "--output-format",
            "json",
            "--eta=never",
            "--name=x",
            "a.fio",
        ]);
        assert_eq!(l.servers.len(), 1);
        let s = &l.servers[0];
        assert_eq!(s.forwarded, vec!["--output-format=json", "--eta=never"]);
        assert!(s.files.is_empty());
        assert_eq!(l.trailing, vec![PathBuf::from("a.fio")]);
        assert_eq!(
            l.local,
            vec![
                "--output-format=terse",
                "--output-format",
                "json",
                "--eta=never",
                "--name=x"
            ]
        );
        assert_eq!(
            s.addr,
            Addr::Tcp {
                host: "127.0.0.1".into(),
                ipv6: false,
                port: 9000
            }
        );
    }

    #[test]
    fn files_right_after_a_client_are_its_own() {
        let l = split_of(&[
            "--client=h1",
            "a.fio",
            "b.fio",
            "--client",
            "h2",
            "c.fio",
            "--minimal",
            "d.fio",
            "--remote-config=/srv/e.fio",
        ]);
        assert_eq!(l.servers[0].files, vec![local("a.fio"), local("b.fio")]);
        assert_eq!(
            l.servers[1].files,
            vec![local("c.fio"), JobSource::Remote("/srv/e.fio".into())]
        );
        assert_eq!(l.trailing, vec![PathBuf::from("d.fio")]);
        // h1 had no option when h2 came: it shares h2's.
        assert_eq!(l.servers[0].forwarded, vec!["--minimal"]);
        assert_eq!(l.servers[1].forwarded, vec!["--minimal"]);
    }

    #[test]
    fn sharing_ends_at_a_server_with_options() {
        let l = split_of(&[
            "--client=h1",
            "--eta=never",
            "--client=h2",
            "--minimal",
            "--client=h3",
            "--readonly",
        ]);
        let fw: Vec<&Vec<String>> = l.servers.iter().map(|s| &s.forwarded).collect();
        assert_eq!(fw[0], &vec!["--eta=never".to_string()]);
        assert_eq!(fw[1], &vec!["--minimal".to_string()]);
        assert_eq!(fw[2], &vec!["--readonly".to_string()]);
    }

    #[test]
    fn a_host_list_file_adds_every_host() {
        let dir = std::env::temp_dir().join(format!("rfio-hosts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("hosts");
        std::fs::write(&list, "ip:127.0.0.1,9001\n  127.0.0.1,9002 \n").unwrap();
        let l = split_of(&["--client", list.to_str().unwrap(), "x.fio", "--minimal"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(l.servers.len(), 2);
        assert_eq!(l.servers[1].addr.port(), 9002);
        assert!(l.servers.iter().all(|s| s.files.is_empty()));
        assert_eq!(l.trailing, vec![PathBuf::from("x.fio")]);
        // The first host got no option of its own: it shares the last's.
        assert!(l.servers.iter().all(|s| s.forwarded == ["--minimal"]));
    }

    #[test]
    fn bad_lines_get_fios_messages() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            split(&argv(&["--client=h,99999"]), false)
                .unwrap_err()
                .to_string(),
            "fio: bad server port 99999\nfio: failed adding client h,99999"
        );
        assert!(matches!(
            split(&argv(&["--client=h", "--server"]), false),
            Err(Error::ClientAndServer)
        ));
        assert_eq!(
            split(&argv(&["--remote-config=x"]), false)
                .unwrap_err()
                .to_string(),
            "fio: --remote-config needs a --client before it"
        );
    }

    #[test]
    fn job_plans_as_rfio_and_as_fio() {
        let l = split_of(&[
            "--client=h1",
            "own.fio",
            "--client=h2",
            "--minimal",
            "t1.fio",
            "t2.fio",
        ]);
        assert_eq!(
            job_plan(&l, false),
            vec![
                Some(vec![local("own.fio")]),
                Some(vec![local("t1.fio"), local("t2.fio")])
            ]
        );
        assert_eq!(
            job_plan(&l, true),
            vec![
                Some(vec![local("own.fio"), local("own.fio")]),
                Some(vec![local("t1.fio")])
            ]
        );
        let none = split_of(&["--client=h1"]);
        assert_eq!(job_plan(&none, false), vec![None]);
    }
}
