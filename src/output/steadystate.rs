//! A job's steady state in the normal and JSON outputs (fio's
//! `show_ss_normal` and the `steadystate` object of
//! `show_thread_status_json`). Terse has none.

use super::cfmt;
use super::jsonw::{Json, Obj};
use super::num2str::{num2str, num2str_from, Unit};
use crate::stats::summary::Entry;
use crate::stats::SteadyStateReport;

/// The `steadystate  :` line of an entry, newline included (`None` without
/// steady state):
/// `  steadystate  : attained=yes, bw=8278MiB/s (8477MB/s), iops=2119k, bw slope=-8.330%`.
///
/// fio divides the mean bandwidth by `kb_base` and prints it from the
/// first prefix on, in both steps: the second figure is that many
/// thousands (`8477MB/s` for 8278 MiB/s, not 8680).
pub(crate) fn normal_line(e: &Entry) -> Option<String> {
    let ss = e.steadystate.as_ref()?;
    let cfg = &e.cfg;
    let kb_base = u64::from(cfg.kb_base.max(1));
    let pow2 = kb_base.is_power_of_two();
    let unit = match cfg.unit_base {
        1 => Unit::BitPerSec,
        8 => Unit::BytePerSec,
        _ => Unit::None,
    };
    let bw = ss.bw_mean() / kb_base;
    // fio 3.42 asks for usec or msec with a deviation of 0, which never
    // passes: the mean latency is always in nsec.
    let lat = if ss.lat {
        format!(
            ", lat={}nsec",
            num2str(ss.lat_mean(), cfg.sig_figs, false, Unit::None)
        )
    } else {
        String::new()
    };
    Some(format!(
        "  steadystate  : attained={}, bw={} ({}), iops={}{lat}, {}{}={}{}\n",
        if ss.attained { "yes" } else { "no" },
        num2str_from(bw, cfg.sig_figs, 1, pow2, unit),
        num2str_from(bw, cfg.sig_figs, 1, !pow2, unit),
        num2str(ss.iops_mean(), cfg.sig_figs, false, Unit::None),
        ss.measure(),
        if ss.slope { " slope" } else { " mean dev" },
        cfmt::f(ss.criterion, 3),
        if ss.pct { "%" } else { "" }
    ))
}

/// Add an entry's `steadystate` object to its JSON job object `o`.
pub(crate) fn add_json(o: &mut Obj<'_>, e: &Entry) {
    let Some(ss) = e.steadystate.as_ref() else {
        return;
    };
    o.obj("steadystate", json_obj(ss));
}

/// fio's `steadystate` object: the criterion and limit, whether it was
/// met, the last values, and the measurements oldest first.
fn json_obj(ss: &SteadyStateReport) -> Obj<'static> {
    let pct = if ss.pct { "%" } else { "" };
    let (mut bw, mut iops, mut lat) = (Vec::new(), Vec::new(), Vec::new());
    for (b, i, l) in ss.in_order3() {
        bw.push(Json::Int(b.into()));
        iops.push(Json::Int(i.into()));
        lat.push(Json::Int(l.into()));
    }
    let mut data = Obj::new();
    data.int("bw_mean", ss.bw_mean())
        .int("iops_mean", ss.iops_mean());
    if ss.lat {
        data.int("lat_mean", ss.lat_mean()).arr("lat_ns", lat);
    }
    data.arr("iops", iops).arr("bw", bw);
    let mut o = Obj::new();
    o.str("ss", ss.spec())
        .int("duration", ss.duration as i32)
        .int("attained", i32::from(ss.attained))
        // fio prints the criterion as a C float.
        .str(
            "criterion",
            format!("{}{pct}", cfmt::f(f64::from(ss.criterion as f32), 6)),
        )
        .float("max_deviation", ss.deviation)
        .float("slope", ss.slope_value)
        .obj("data", data);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> SteadyStateReport {
        SteadyStateReport {
            iops: true,
            slope: false,
            pct: true,
            limit: 10.0,
            duration: 2,
            attained: true,
            buffer_full: true,
            head: 1,
            slope_value: 0.0,
            deviation: 72973.5,
            criterion: 2.656335,
            bw_data: vec![10_953_427_544, 11_551_225_173],
            iops_data: vec![2_674_176, 2_820_123],
            ..Default::default()
        }
    }

    #[test]
    fn the_json_object_reads_as_fios() {
        let mut o = Obj::new();
        o.obj("steadystate", json_obj(&report()));
        let text = o.to_document();
        let want = r#"{
  "steadystate" : {
    "ss" : "iops:10.000000%",
    "duration" : 2,
    "attained" : 1,
    "criterion" : "2.656335%",
    "max_deviation" : 72973.500000,
    "slope" : 0.000000,
    "data" : {
      "bw_mean" : 11252326358,
      "iops_mean" : 2747149,
      "iops" : [
        2820123,
        2674176
      ],
      "bw" : [
        11551225173,
        10953427544
      ]
    }
  }
}
"#;
        assert_eq!(text, want);
    }
}
