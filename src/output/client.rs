//! What fio's client prints of its servers' results (client.c, fio 3.33):
//! each statistics block, group and disk in the client's own formats (the
//! run loop keeps them per server and prints them when the server quits),
//! the "All clients" aggregate, and the JSON document at the end.
//!
//! JSON document: an empty line, then `fio version`, `timestamp` and
//! `time` (when the jobs were started), `global options` (every server's,
//! in one object), `client_stats` (each block as a local job object, less
//! `eta` and `elapsed`, plus `hostname` and `port`), `disk_util` (each
//! disk plus `hostname` and `port`). Empty containers keep their empty
//! line, as fio prints them.

use std::io::{self, Write};

use super::jsonw::{Json, Obj};
use super::normal::ctime;
use super::{json, normal, terse, Formats};
use crate::stats::clients::{ClientsReport, Origin, Stamp};
use crate::stats::disk::DiskAgg;
use crate::stats::summary::{Entry, GroupRun};
use crate::stats::DiskUtil;

/// The JSON document (`plus`: JSON+), with fio's empty line before it.
pub(crate) fn json_document(r: &ClientsReport, plus: bool) -> String {
    let mut root = Obj::new();
    root.str("fio version", r.release.name())
        .int("timestamp", r.started.secs)
        .str("time", ctime(r.started.secs, r.started.utc_offset));
    match &r.per_server {
        Some(servers) => {
            let globals = servers
                .iter()
                .map(|(from, opts)| {
                    let mut o = Obj::new();
                    origin(&mut o, from);
                    for (name, value) in opts.iter() {
                        o.str(name, value);
                    }
                    Json::Obj(o)
                })
                .collect();
            root.arr("global options", globals);
        }
        None => {
            root.obj("global options", json::options_obj(&r.global_options));
        }
    }
    let stats = r
        .stats
        .iter()
        .map(|s| {
            let mut o = json::client_entry(&s.entry, &s.group, s.options.as_ref(), plus, r.release);
            origin(&mut o, &s.origin);
            Json::Obj(o)
        })
        .collect();
    root.arr("client_stats", stats);
    let disks = r
        .disks
        .iter()
        .map(|d| {
            let mut o = json::disk_obj_with(&d.disk, d.agg, r.release);
            origin(&mut o, &d.origin);
            Json::Obj(o)
        })
        .collect();
    root.arr("disk_util", disks);
    let keep_empty = r.release.has(crate::release::Change::JsonEmptyStrings);
    format!("\n{}", root.to_document_with(keep_empty))
}

/// fio's `json_object_add_client_info`.
fn origin<'a>(o: &mut Obj<'a>, from: &'a Origin) {
    o.str("hostname", from.host.as_str()).int("port", from.port);
}

/// A statistics block in the text formats asked for (terse, then normal,
/// as fio's `show_thread_status`), dated `at`.
pub(crate) fn block_text(e: &Entry, g: &GroupRun, formats: &Formats, at: Stamp) -> String {
    super::written(|out| {
        if formats.terse {
            terse::client_entry(out, e, g, formats.terse_version, formats.release)?;
        }
        if formats.normal {
            normal::client_entry(out, e, g, &ctime(at.secs, at.utc_offset), formats.release)?;
        }
        Ok(())
    })
}

/// A group's totals (normal format only: `Run status group N`).
pub(crate) fn group_text(g: &GroupRun, formats: &Formats) -> String {
    super::written(|out| match formats.normal {
        true => normal::group_block(out, g),
        false => Ok(()),
    })
}

/// A disk: `Disk stats (read/write):` and its line in the normal format
/// (a heading per disk, as fio's client prints them), its terse line
/// (terse version 3 and up).
pub(crate) fn disk_text(d: &DiskUtil, agg: Option<DiskAgg>, formats: &Formats) -> String {
    super::written(|out: &mut dyn Write| -> io::Result<()> {
        if formats.normal {
            normal::client_disk(out, d, agg, formats.release)?;
        }
        if formats.terse && formats.terse_version >= 3 {
            terse::client_disk(out, d, agg)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::clients::{AllClients, ClientDisk, ClientStat};
    use crate::stats::summary::GroupDirRun;
    use crate::stats::{DirReport, StatsConfig};

    /// The client's outputs as fio 3.33's client prints them (the texts
    /// below are that release's).
    fn formats_33() -> Formats {
        Formats {
            release: crate::release::Release::V3_33,
            ..Formats::default()
        }
    }

    fn one_block() -> (Entry, GroupRun) {
        let mut e = AllClients::new().entry;
        e.name = "job1".into();
        e.group_id = 0;
        e.members = 1;
        e.pid = 42;
        e.cfg = StatsConfig::default();
        e.latency_depth = 1;
        e.dirs[0] = DirReport {
            bytes: 67_108_864,
            ios: 16_384,
            runtime_ms: 4,
            ..DirReport::default()
        };
        e.run_ms = 4;
        e.depth.depth[0] = 16_384;
        let g = GroupRun {
            id: 0,
            dirs: [
                Some(GroupDirRun {
                    bytes: 67_108_864,
                    agg: 16_777_216_000,
                    min_bw: 16_777_216_000,
                    max_bw: 16_777_216_000,
                    min_run: 4,
                    max_run: 4,
                }),
                None,
                None,
            ],
            kb_base: 1024,
            unit_base: 8,
            sig_figs: 4,
            unified_bits: 0,
        };
        (e, g)
    }

    fn origin() -> Origin {
        Origin {
            host: "127.0.0.1".into(),
            port: 8765,
        }
    }

    #[test]
    fn the_document_has_fios_client_keys() {
        let (e, g) = one_block();
        let mut all = AllClients::new();
        all.add(&e, &g);
        let mut r = ClientsReport {
            started: Stamp {
                secs: 1_796_156_768,
                utc_offset: 0,
            },
            release: crate::release::Release::V3_33,
            ..ClientsReport::default()
        };
        r.global_options.push("ioengine", "null");
        r.global_options.push("ioengine", "null");
        let mut opts = crate::stats::OptionList::default();
        opts.push("rw", "read");
        r.stats.push(ClientStat {
            entry: e,
            group: g,
            options: Some(opts),
            origin: origin(),
        });
        r.stats.push(ClientStat {
            entry: all.entry,
            group: all.group,
            options: None,
            origin: origin(),
        });
        let doc = json_document(&r, false);
        assert!(doc.starts_with("\n{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1796156768,\n  \"time\" : \"Tue Dec  1 20:26:08 2026\",\n  \"global options\" : {\n    \"ioengine\" : \"null\",\n    \"ioengine\" : \"null\"\n  },\n  \"client_stats\" : [\n    {\n      \"jobname\" : \"job1\",\n      \"groupid\" : 0,\n      \"error\" : 0,\n      \"job options\" : {\n        \"rw\" : \"read\"\n      },\n      \"read\" : {"), "{doc}");
        assert!(doc.ends_with("      \"hostname\" : \"127.0.0.1\",\n      \"port\" : 8765\n    }\n  ],\n  \"disk_util\" : [\n\n  ]\n}\n"), "{doc}");
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        let stats = v["client_stats"].as_array().unwrap();
        assert_eq!(stats[1]["jobname"], "All clients");
        assert!(stats[1].get("job options").is_none());
        assert!(stats[0].get("eta").is_none() && stats[0].get("elapsed").is_none());
        assert_eq!(stats[0]["latency_depth"], 1);
        assert!(stats[1].get("latency_depth").is_none());
        assert!(stats[0]["read"]["clat_ns"].get("percentile").is_none());
    }

    #[test]
    fn an_empty_run_prints_fios_skeleton() {
        let doc = json_document(&ClientsReport::default(), false);
        assert!(doc.contains("  \"global options\" : {\n\n  },\n  \"client_stats\" : [\n\n  ],\n  \"disk_util\" : [\n\n  ]\n}\n"), "{doc}");
        let mut r = ClientsReport::default();
        r.disks.push(ClientDisk {
            disk: DiskUtil {
                name: "vda".into(),
                ..DiskUtil::default()
            },
            agg: None,
            origin: origin(),
        });
        let doc = json_document(&r, false);
        assert!(doc.contains("\"name\" : \"vda\""), "{doc}");
        assert!(
            doc.contains("\"hostname\" : \"127.0.0.1\",\n      \"port\" : 8765\n    }\n  ]"),
            "{doc}"
        );
    }

    #[test]
    fn all_clients_in_normal_output_lacks_units_as_fio() {
        let (e, g) = one_block();
        let mut all = AllClients::new();
        all.add(&e, &g);
        let at = Stamp {
            secs: 1_796_156_768,
            utc_offset: 0,
        };
        let f = formats_33();
        let text = block_text(&all.entry, &all.group, &f, at);
        assert!(text.starts_with("All clients: (groupid=0, jobs=1): err= 0: pid=0: Tue Dec  1 20:26:08 2026\n  read: IOPS=4096k, BW=15.6Gi (16.8G)(64.0MiB/4msec)\n"), "{text}");
        assert!(
            !text.contains("percentiles") && !text.contains("latency   :"),
            "{text}"
        );
        all.fix_units_and_percentiles(&e.cfg);
        let text = block_text(&all.entry, &all.group, &f, at);
        assert!(text.contains("BW=15.6GiB/s (16.8GB/s)"), "{text}");
        let own = block_text(&e, &g, &f, at);
        assert!(
            own.contains("pid=42") && own.contains("latency   : target=0"),
            "{own}"
        );
        let terse = Formats {
            normal: false,
            terse: true,
            ..formats_33()
        };
        let line = block_text(&e, &g, &terse, at);
        assert!(line.starts_with("3;fio-3.33;job1;0;0;65536;"), "{line}");
        assert_eq!(line.lines().count(), 1);
        let gt = group_text(&g, &f);
        assert!(
            gt.starts_with("\nRun status group 0 (all jobs):\n   READ: bw="),
            "{gt}"
        );
        assert_eq!(group_text(&g, &terse), "");
    }

    #[test]
    fn a_disk_gets_its_heading_and_its_terse_line() {
        let d = DiskUtil {
            name: "vda".into(),
            msec: 1000,
            ..DiskUtil::default()
        };
        let both = Formats {
            normal: true,
            terse: true,
            ..formats_33()
        };
        assert_eq!(
            disk_text(&d, None, &both),
            "\nDisk stats (read/write):\n  vda: ios=0/0, merge=0/0, ticks=0/0, in_queue=0, util=0.00%\n;vda;0;0;0;0;0;0;0;0.00%\n"
        );
    }
}
