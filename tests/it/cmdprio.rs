//! Per-command I/O priorities (`cmdprio_percentage`, `cmdprio_class`,
//! `cmdprio`, `cmdprio_bssplit`) and fio's per-priority statistics: the
//! normal output's `clat prio C/L` lines and `clat prio C/L (NN.NN% of IOs)
//! percentiles` tables, JSON `prios` arrays, the priority column of the
//! logs, and how group reports sum them.
//!
//! The golden cases are real fio 3.33 runs (`--output-format=normal,json+`,
//! the command lines below): the run report is rebuilt from fio's JSON+
//! numbers (each latency's N, min, max, mean, stddev and bins), rendered by
//! rfio and compared with fio's text: every line exactly, except that a
//! percentile value may differ by up to fio's bucket width, 1/64 (rfio's
//! histogram is finer than fio's buckets, and rfio clamps percentiles to
//! the exact min and max where fio prints a bucket's middle).
//!
//! loop to report each I/O's priority slot (`ThreadStats::complete`
//! with `IoEngine::prio_slot`, see `src/workload/exec.rs`).

use std::path::Path;

use rfio::api::Ddir;
use rfio::api::{
    global_options, lookup_engine, AlignedBuf, ClatPrio, Completion, DirReport, FileTarget, Io,
    IoMem, JobInfo, JobReport, LatAccum, LatHist, OpenFlags, Plan, Queued, RunReport, Summary,
    ThreadStats, NO_SLAT,
};
use serde_json::Value;

use crate::common;
use common::{plan, TempDir};

/// One latency object of fio's JSON+.
struct L {
    n: u64,
    min: u64,
    max: u64,
    mean: f64,
    stddev: f64,
    /// The `percentile` values, in fio's order (empty: none printed).
    pct: &'static str,
    /// The JSON+ `bins`, `value:count,...`.
    bins: &'static str,
}

/// One entry of a direction's `prios`.
struct P {
    class: u16,
    level: u16,
    /// `clat_ns`, or `lat_ns` with lat_percentiles.
    key: &'static str,
    lat: L,
}

/// One direction of fio's JSON+.
struct D {
    name: &'static str,
    bytes: u64,
    ios: u64,
    runtime: u64,
    slat: L,
    clat: L,
    lat: L,
    prios: &'static [P],
}

/// `fio --name=p --ioengine=libaio --filename=/tmp/cp/p.dat --size=8M
/// --rw=randread --iodepth=4 --cmdprio_percentage=50 --cmdprio_class=1
/// --direct=1 --output-format=normal,json+`
const S1_CMD: &[&str] = &[
    "--name=p",
    "--ioengine=libaio",
    "--filename=p.dat",
    "--size=8M",
    "--rw=randread",
    "--iodepth=4",
    "--cmdprio_percentage=50",
    "--cmdprio_class=1",
    "--direct=1",
];

/// What fio 3.33 printed in JSON+ for [`S1_CMD`].
#[rustfmt::skip]
const S1: &[D] = &[D {
    name: "read",
    bytes: 8388608,
    ios: 2048,
    runtime: 67,
    slat: L {
            n: 2048,
            min: 2254,
            max: 55763,
            mean: 8105.333008,
            stddev: 6248.19959,
            pct: "",
            bins: "",
        },
    clat: L {
            n: 2048,
            min: 21382,
            max: 4452625,
            mean: 120317.46875,
            stddev: 284735.821497,
            pct: "37632,38656,47872,58112,66048,69120,76288,80384,85504,122368,191488,252928,700416,2899968,4423680,4423680,4423680",
            bins: "21376:1,24704:1,25728:1,37120:9,37632:18,38144:35,38656:38,39168:11,39680:10,40192:4,40704:2,41216:1,41728:2,42240:4,42752:5,43264:4,43776:1,44288:3,44800:2,45312:1,45824:3,46336:3,46848:16,47360:29,47872:16,48384:19,48896:5,49408:9,49920:6,50432:3,50944:6,51456:6,51968:7,52480:5,52992:7,53504:3,54016:4,54528:3,55040:11,55552:11,56064:13,56576:20,57088:22,57600:26,58112:22,58624:25,59136:16,59648:15,60160:11,60672:6,61184:9,61696:7,62208:10,62720:7,63232:10,63744:8,64256:10,64768:20,65280:23,66048:74,67072:64,68096:58,69120:31,70144:38,71168:30,72192:17,73216:21,74240:14,75264:28,76288:55,77312:83,78336:71,79360:31,80384:33,81408:49,82432:44,83456:33,84480:28,85504:33,86528:29,87552:25,88576:16,89600:19,90624:14,91648:15,92672:11,93696:8,94720:2,95744:2,96768:5,97792:1,98816:1,99840:3,101888:2,102912:3,103936:4,104960:2,105984:3,108032:2,111104:3,112128:1,113152:3,114176:3,116224:2,118272:5,119296:2,120320:4,121344:6,122368:5,123392:2,124416:3,125440:6,126464:7,127488:3,128512:1,129536:7,130560:4,132096:6,134144:11,136192:11,138240:21,140288:17,142336:18,144384:11,146432:11,148480:5,150528:8,152576:4,154624:2,156672:2,160768:1,162816:1,166912:1,168960:2,171008:4,173056:1,175104:2,177152:4,179200:3,181248:2,183296:4,187392:7,189440:7,191488:4,193536:4,195584:5,197632:10,199680:6,201728:4,203776:12,205824:1,207872:4,209920:6,211968:4,214016:2,216064:3,218112:5,220160:2,222208:3,224256:2,226304:2,234496:2,236544:1,238592:3,240640:5,242688:3,244736:3,246784:4,248832:2,250880:1,252928:4,254976:2,257024:6,259072:2,261120:2,264192:3,268288:3,272384:2,276480:3,284672:6,288768:4,292864:2,296960:2,301056:3,305152:1,309248:1,313344:2,317440:4,333824:1,337920:2,342016:2,346112:3,350208:2,354304:1,358400:1,362496:1,378880:1,382976:2,387072:1,395264:2,423936:1,428032:1,436224:1,440320:1,452608:1,464896:1,493568:1,505856:1,509952:1,514048:1,528384:1,544768:1,626688:1,700416:1,1236992:1,1302528:1,1351680:2,1384448:1,1499136:1,1564672:1,1581056:1,2670592:1,2899968:1,2932736:2,3063808:3,3719168:1,4292608:1,4423680:3",
        },
    lat: L {
            n: 2048,
            min: 44356,
            max: 4455649,
            mean: 128422.801758,
            stddev: 284258.041276,
            pct: "",
            bins: "",
        },
    prios: &[P {
        class: 0,
        level: 0,
        key: "clat_ns",
        lat: L {
            n: 1017,
            min: 25818,
            max: 4452625,
            mean: 165867.371681,
            stddev: 350858.481799,
            pct: "47360,59136,66048,72192,78336,83456,88576,121344,140288,189440,248832,317440,1564672,3063808,4423680,4423680,4423680",
            bins: "25728:1,40192:1,41216:1,44288:1,44800:1,47360:6,47872:1,48384:2,48896:1,49408:1,50432:1,50944:1,52992:1,54016:1,55040:1,55552:4,56064:1,56576:3,57088:5,57600:8,58112:4,58624:2,59136:4,59648:1,60672:2,61184:3,61696:2,62208:3,63232:5,64256:2,64768:9,65280:11,66048:41,67072:34,68096:13,69120:4,70144:13,71168:8,72192:6,73216:5,74240:3,75264:9,76288:26,77312:30,78336:38,79360:12,80384:15,81408:25,82432:28,83456:24,84480:18,85504:20,86528:20,87552:19,88576:11,89600:15,90624:11,91648:10,92672:8,93696:8,94720:2,95744:1,96768:1,97792:1,99840:2,101888:1,102912:3,103936:4,104960:2,105984:2,108032:2,111104:1,112128:1,113152:3,114176:3,116224:2,118272:5,119296:2,120320:4,121344:6,122368:5,123392:2,124416:3,125440:6,126464:7,127488:2,128512:1,129536:7,130560:4,132096:6,134144:10,136192:11,138240:21,140288:17,142336:18,144384:11,146432:11,148480:5,150528:8,152576:4,154624:2,156672:2,160768:1,162816:1,166912:1,168960:2,171008:4,173056:1,175104:2,177152:4,179200:3,181248:2,183296:4,187392:7,189440:7,191488:4,193536:4,195584:5,197632:10,199680:6,201728:4,203776:12,205824:1,207872:4,209920:6,211968:4,214016:2,216064:3,218112:5,220160:2,222208:3,224256:2,226304:2,234496:2,236544:1,238592:3,240640:5,242688:3,244736:3,246784:4,248832:2,250880:1,252928:4,254976:2,257024:6,259072:2,261120:2,264192:3,268288:3,272384:2,276480:3,284672:6,288768:4,292864:2,296960:2,301056:3,305152:1,309248:1,313344:2,317440:4,333824:1,337920:2,342016:2,346112:3,350208:2,354304:1,358400:1,362496:1,378880:1,382976:2,387072:1,395264:2,423936:1,428032:1,436224:1,440320:1,452608:1,464896:1,493568:1,505856:1,509952:1,514048:1,528384:1,544768:1,626688:1,700416:1,1351680:2,1384448:1,1499136:1,1564672:1,1581056:1,2899968:1,2932736:2,3063808:2,3719168:1,4423680:3",
        },
    },P {
        class: 1,
        level: 0,
        key: "clat_ns",
        lat: L {
            n: 1031,
            min: 21382,
            max: 4310853,
            mean: 75386.090204,
            stddev: 188753.443658,
            pct: "37120,38144,39168,47872,56064,59136,66048,68096,73216,77312,81408,86528,101888,134144,3063808,4292608,4292608",
            bins: "21376:1,24704:1,37120:9,37632:18,38144:35,38656:38,39168:11,39680:10,40192:3,40704:2,41728:2,42240:4,42752:5,43264:4,43776:1,44288:2,44800:1,45312:1,45824:3,46336:3,46848:16,47360:23,47872:15,48384:17,48896:4,49408:8,49920:6,50432:2,50944:5,51456:6,51968:7,52480:5,52992:6,53504:3,54016:3,54528:3,55040:10,55552:7,56064:12,56576:17,57088:17,57600:18,58112:18,58624:23,59136:12,59648:14,60160:11,60672:4,61184:6,61696:5,62208:7,62720:7,63232:5,63744:8,64256:8,64768:11,65280:12,66048:33,67072:30,68096:45,69120:27,70144:25,71168:22,72192:11,73216:16,74240:11,75264:19,76288:29,77312:53,78336:33,79360:19,80384:18,81408:24,82432:16,83456:9,84480:10,85504:13,86528:9,87552:6,88576:5,89600:4,90624:3,91648:5,92672:3,95744:1,96768:4,98816:1,99840:1,101888:1,105984:1,111104:2,127488:1,134144:1,1236992:1,1302528:1,2670592:1,3063808:1,4292608:1",
        },
    }],
}];

/// The read block of fio's normal output for [`S1_CMD`], up to the
/// latency distribution.
const S1_NORMAL: &str = r#"  read: IOPS=30.6k, BW=119MiB/s (125MB/s)(8192KiB/67msec)
    slat (nsec): min=2254, max=55763, avg=8105.33, stdev=6248.20
    clat (usec): min=21, max=4452, avg=120.32, stdev=284.74
     lat (usec): min=44, max=4455, avg=128.42, stdev=284.26
    clat prio 0/0 (usec): min=25, max=4452, avg=165.87, stdev=350.86
    clat prio 1/0 (usec): min=21, max=4310, avg=75.39, stdev=188.75
    clat percentiles (usec):
     |  1.00th=[   38],  5.00th=[   39], 10.00th=[   48], 20.00th=[   59],
     | 30.00th=[   67], 40.00th=[   70], 50.00th=[   77], 60.00th=[   81],
     | 70.00th=[   86], 80.00th=[  123], 90.00th=[  192], 95.00th=[  253],
     | 99.00th=[  701], 99.50th=[ 2900], 99.90th=[ 4424], 99.95th=[ 4424],
     | 99.99th=[ 4424]
    clat prio 0/0 (49.66% of IOs) percentiles (usec):
     |  1.00th=[   48],  5.00th=[   60], 10.00th=[   67], 20.00th=[   73],
     | 30.00th=[   79], 40.00th=[   84], 50.00th=[   89], 60.00th=[  122],
     | 70.00th=[  141], 80.00th=[  190], 90.00th=[  249], 95.00th=[  318],
     | 99.00th=[ 1565], 99.50th=[ 3064], 99.90th=[ 4424], 99.95th=[ 4424],
     | 99.99th=[ 4424]
    clat prio 1/0 (50.34% of IOs) percentiles (usec):
     |  1.00th=[   38],  5.00th=[   39], 10.00th=[   40], 20.00th=[   48],
     | 30.00th=[   57], 40.00th=[   60], 50.00th=[   67], 60.00th=[   69],
     | 70.00th=[   74], 80.00th=[   78], 90.00th=[   82], 95.00th=[   87],
     | 99.00th=[  102], 99.50th=[  135], 99.90th=[ 3064], 99.95th=[ 4293],
     | 99.99th=[ 4293]
"#;

/// `fio --name=p --ioengine=libaio --filename=/tmp/cp/p.dat --size=2M
/// --rw=randrw --iodepth=4 --cmdprio_percentage=30,60 --cmdprio_class=1,3
/// --cmdprio=0,5 --direct=1 --lat_percentiles=1
/// --output-format=normal,json+`: per-direction priorities, and with
/// lat_percentiles the per-priority statistics are of the total latency.
const S2_CMD: &[&str] = &[
    "--name=p",
    "--ioengine=libaio",
    "--filename=p.dat",
    "--size=2M",
    "--rw=randrw",
    "--iodepth=4",
    "--cmdprio_percentage=30,60",
    "--cmdprio_class=1,3",
    "--cmdprio=0,5",
    "--direct=1",
    "--lat_percentiles=1",
];

/// What fio 3.33 printed in JSON+ for [`S2_CMD`].
#[rustfmt::skip]
const S2: &[D] = &[D {
    name: "read",
    bytes: 991232,
    ios: 242,
    runtime: 19,
    slat: L {
            n: 242,
            min: 2954,
            max: 65367,
            mean: 9278.57438,
            stddev: 7512.692525,
            pct: "",
            bins: "",
        },
    clat: L {
            n: 242,
            min: 25999,
            max: 2951897,
            mean: 80968.871901,
            stddev: 192126.136333,
            pct: "28544,38144,39168,42752,47360,50944,56064,59136,67072,79360,111104,152576,264192,585728,2965504,2965504,2965504",
            bins: "25984:1,27776:1,28544:1,30080:1,33536:1,37120:1,37632:2,38144:7,38656:4,39168:8,39680:8,40192:3,40704:2,41728:4,42752:5,43264:2,43776:1,44288:3,44800:2,45312:2,45824:2,46336:1,46848:6,47360:6,47872:8,48384:3,48896:5,49408:5,50432:1,50944:2,51968:4,52480:3,52992:1,53504:3,54016:2,54528:2,55040:4,55552:3,56064:6,56576:2,57088:3,57600:7,58112:1,58624:6,59136:2,59648:1,60160:2,60672:2,61696:1,62208:2,62720:1,63232:4,63744:3,64256:1,65280:3,66048:1,67072:7,68096:3,69120:2,70144:3,71168:1,72192:4,73216:1,75264:1,76288:2,78336:1,79360:2,81408:2,83456:1,84480:1,85504:1,89600:1,90624:1,91648:1,93696:1,95744:2,96768:1,98816:1,100864:1,101888:1,102912:1,103936:1,105984:1,107008:1,108032:2,110080:1,111104:1,114176:1,117248:1,118272:1,120320:1,122368:2,136192:1,140288:1,146432:1,150528:1,152576:2,156672:1,158720:1,160768:1,173056:1,189440:1,216064:1,224256:1,246784:1,261120:1,264192:1,585728:1,2965504:1",
        },
    lat: L {
            n: 242,
            min: 42764,
            max: 2966739,
            mean: 90247.446281,
            stddev: 192213.916102,
            pct: "43264,45312,49920,54016,58112,62208,63232,68096,73216,89600,114176,162816,268288,593920,2965504,2965504,2965504",
            bins: "42752:1,43264:2,43776:4,44288:2,44800:3,45312:2,45824:1,46336:1,46848:1,47872:3,48384:1,48896:2,49408:1,49920:1,50432:1,51456:1,51968:1,52480:2,52992:4,53504:10,54016:7,54528:3,55040:2,55552:4,56064:3,56576:3,57088:1,57600:3,58112:4,58624:1,59136:3,59648:4,60160:1,60672:4,61184:2,61696:6,62208:3,62720:11,63232:13,63744:4,64256:1,64768:4,66048:5,67072:5,68096:6,69120:3,70144:3,71168:9,72192:3,73216:6,74240:3,75264:1,76288:2,77312:1,78336:3,79360:4,81408:1,83456:1,84480:1,86528:1,87552:2,88576:2,89600:1,90624:1,92672:1,93696:2,94720:1,95744:1,97792:1,99840:4,101888:1,103936:1,105984:1,107008:3,109056:1,110080:1,111104:2,112128:1,113152:1,114176:1,118272:1,120320:1,122368:1,123392:1,125440:2,140288:1,144384:1,152576:1,154624:1,156672:1,162816:1,164864:1,171008:1,177152:1,191488:1,209920:1,220160:1,230400:1,250880:1,264192:1,268288:1,593920:1,2965504:1",
        },
    prios: &[P {
        class: 0,
        level: 0,
        key: "lat_ns",
        lat: L {
            n: 166,
            min: 43475,
            max: 2966739,
            mean: 97747.078313,
            stddev: 227651.122749,
            pct: "43776,45312,48896,56064,60672,63232,66048,72192,79360,99840,123392,171008,268288,2965504,2965504,2965504,2965504",
            bins: "43264:1,43776:3,44288:2,44800:2,45312:2,45824:1,46848:1,47872:2,48384:1,48896:2,49408:1,51968:1,52992:3,53504:5,54016:3,54528:1,55552:2,56064:2,56576:3,57088:1,57600:2,58112:3,59136:2,59648:3,60672:3,61184:1,61696:4,62720:6,63232:10,63744:4,64256:1,64768:3,66048:2,67072:4,68096:4,70144:3,71168:5,72192:2,73216:5,74240:3,75264:1,76288:2,77312:1,78336:3,79360:3,83456:1,86528:1,87552:2,88576:1,89600:1,90624:1,92672:1,93696:1,94720:1,95744:1,97792:1,99840:4,101888:1,103936:1,105984:1,107008:2,109056:1,110080:1,111104:2,113152:1,114176:1,118272:1,120320:1,122368:1,123392:1,125440:2,140288:1,144384:1,152576:1,154624:1,156672:1,171008:1,177152:1,191488:1,220160:1,230400:1,250880:1,264192:1,268288:1,2965504:1",
        },
    },P {
        class: 1,
        level: 0,
        key: "lat_ns",
        lat: L {
            n: 76,
            min: 42764,
            max: 590361,
            mean: 73866.671053,
            stddev: 65642.615517,
            pct: "42752,44800,50432,53504,54528,58624,61696,62720,67072,71168,88576,162816,593920,593920,593920,593920,593920",
            bins: "42752:1,43264:1,43776:1,44800:1,46336:1,47872:1,49920:1,50432:1,51456:1,52480:2,52992:1,53504:5,54016:4,54528:2,55040:2,55552:2,56064:1,57600:1,58112:1,58624:1,59136:1,59648:1,60160:1,60672:1,61184:1,61696:2,62208:3,62720:5,63232:3,64768:1,66048:3,67072:1,68096:2,69120:3,71168:4,72192:1,73216:1,79360:1,81408:1,84480:1,88576:1,93696:1,107008:1,112128:1,162816:1,164864:1,209920:1,593920:1",
        },
    }],
},D {
    name: "write",
    bytes: 1105920,
    ios: 270,
    runtime: 19,
    slat: L {
            n: 270,
            min: 2544,
            max: 538143,
            mean: 13229.633333,
            stddev: 45742.331285,
            pct: "",
            bins: "",
        },
    clat: L {
            n: 270,
            min: 20531,
            max: 3148731,
            mean: 170127.507407,
            stddev: 290771.576661,
            pct: "32128,41728,51968,61184,67072,72192,82432,110080,142336,205824,342016,489472,1044480,2932736,3162112,3162112,3162112",
            bins: "20608:1,22144:1,32128:1,36608:3,37120:3,38656:1,39168:1,41216:1,41728:3,42240:1,43264:1,45312:1,50944:2,51456:3,51968:4,52480:1,52992:7,53504:2,54016:1,54528:1,55552:1,56064:1,56576:2,57088:1,57600:1,58112:2,59136:1,60160:1,60672:3,61184:2,61696:2,62208:1,62720:3,63232:2,64256:1,64768:2,65280:2,66048:9,67072:12,68096:5,69120:6,70144:3,71168:5,72192:5,73216:3,74240:4,75264:5,76288:2,77312:2,78336:3,80384:1,81408:1,82432:3,83456:2,86528:3,87552:1,89600:4,90624:1,93696:1,94720:3,96768:2,97792:1,98816:3,101888:1,107008:1,108032:1,109056:1,110080:1,111104:1,112128:1,118272:1,119296:1,120320:1,121344:1,123392:1,127488:1,128512:2,129536:2,130560:1,132096:3,134144:1,136192:2,138240:4,140288:3,142336:1,152576:1,154624:2,162816:1,166912:2,171008:2,173056:2,175104:2,177152:2,179200:2,181248:1,187392:3,189440:1,195584:2,197632:1,199680:1,203776:1,205824:1,214016:2,218112:1,220160:1,224256:1,226304:1,228352:1,234496:1,236544:1,238592:1,240640:1,248832:1,264192:1,272384:1,280576:2,284672:1,288768:3,301056:2,317440:1,321536:1,325632:2,342016:2,346112:1,350208:1,399360:1,407552:1,411648:1,428032:2,436224:1,440320:2,481280:2,489472:1,501760:1,528384:1,561152:1,618496:1,626688:2,651264:1,675840:1,733184:1,913408:1,1044480:1,2932736:1,3162112:1",
        },
    lat: L {
            n: 270,
            min: 47721,
            max: 3151966,
            mean: 183357.140741,
            stddev: 291192.251835,
            pct: "51968,57600,59136,70144,76288,85504,97792,124416,164864,228352,358400,528384,1044480,2965504,3162112,3162112,3162112",
            bins: "47872:1,51968:3,52992:1,54016:1,54528:1,55040:1,56064:1,56576:2,57088:2,57600:5,58112:6,58624:2,59136:1,60160:1,60672:2,61184:3,62208:1,62720:1,63232:1,64256:2,66048:3,67072:2,68096:5,69120:2,70144:6,71168:6,72192:4,73216:1,74240:3,75264:6,76288:5,77312:4,78336:2,79360:3,80384:1,81408:7,82432:2,83456:5,84480:2,85504:4,86528:1,87552:5,88576:2,89600:3,90624:4,91648:1,92672:2,93696:2,95744:1,96768:1,97792:3,98816:2,99840:2,100864:2,101888:2,102912:4,104960:2,105984:2,107008:1,110080:1,111104:1,113152:1,114176:1,116224:2,122368:1,123392:1,124416:2,125440:1,126464:1,127488:1,132096:3,134144:3,136192:2,140288:3,142336:2,144384:1,146432:1,150528:1,154624:1,156672:3,158720:1,162816:1,164864:1,168960:1,171008:1,173056:1,175104:4,177152:1,179200:2,181248:2,183296:2,189440:2,191488:1,193536:1,195584:1,197632:1,199680:1,203776:1,209920:1,214016:1,218112:1,226304:1,228352:2,230400:1,232448:2,238592:1,240640:2,242688:1,252928:1,257024:1,268288:1,276480:1,284672:1,288768:1,292864:3,296960:1,301056:1,305152:1,321536:2,329728:1,342016:1,346112:2,358400:1,370688:1,403456:1,415744:1,428032:1,432128:2,440320:1,452608:2,485376:2,493568:1,505856:1,528384:1,544768:1,569344:1,577536:1,626688:1,634880:1,643072:1,667648:1,675840:1,733184:1,921600:1,1044480:1,2965504:1,3162112:1",
        },
    prios: &[P {
        class: 0,
        level: 0,
        key: "lat_ns",
        lat: L {
            n: 117,
            min: 47721,
            max: 642059,
            mean: 102179.623932,
            stddev: 99839.670742,
            pct: "51968,54016,57088,58112,63232,71168,75264,79360,89600,104960,140288,228352,626688,643072,643072,643072,643072",
            bins: "47872:1,51968:3,52992:1,54016:1,54528:1,55040:1,56064:1,56576:2,57088:2,57600:5,58112:6,58624:2,59136:1,60160:1,60672:2,61184:3,62208:1,62720:1,63232:1,64256:2,68096:3,69120:1,70144:3,71168:5,72192:2,73216:1,74240:3,75264:4,76288:4,77312:4,78336:2,79360:1,80384:1,81408:3,82432:2,83456:1,84480:1,87552:2,89600:2,90624:2,92672:1,95744:1,96768:1,98816:2,99840:1,100864:1,102912:1,104960:1,111104:1,114176:1,116224:1,123392:1,124416:1,125440:1,134144:1,136192:2,140288:3,142336:1,158720:1,177152:1,189440:2,228352:1,230400:1,544768:1,569344:1,626688:1,643072:1",
        },
    },P {
        class: 3,
        level: 5,
        key: "lat_ns",
        lat: L {
            n: 153,
            min: 66199,
            max: 3151966,
            mean: 245434.065359,
            stddev: 365380.267869,
            pct: "66048,69120,75264,85504,97792,116224,156672,181248,238592,305152,452608,634880,2965504,3162112,3162112,3162112,3162112",
            bins: "66048:3,67072:2,68096:2,69120:1,70144:3,71168:1,72192:2,75264:2,76288:1,79360:2,81408:4,83456:4,84480:1,85504:4,86528:1,87552:3,88576:2,89600:1,90624:2,91648:1,92672:1,93696:2,97792:3,99840:1,100864:1,101888:2,102912:3,104960:1,105984:2,107008:1,110080:1,113152:1,116224:1,122368:1,124416:1,126464:1,127488:1,132096:3,134144:2,142336:1,144384:1,146432:1,150528:1,154624:1,156672:3,162816:1,164864:1,168960:1,171008:1,173056:1,175104:4,179200:2,181248:2,183296:2,191488:1,193536:1,195584:1,197632:1,199680:1,203776:1,209920:1,214016:1,218112:1,226304:1,228352:1,232448:2,238592:1,240640:2,242688:1,252928:1,257024:1,268288:1,276480:1,284672:1,288768:1,292864:3,296960:1,301056:1,305152:1,321536:2,329728:1,342016:1,346112:2,358400:1,370688:1,403456:1,415744:1,428032:1,432128:2,440320:1,452608:2,485376:2,493568:1,505856:1,528384:1,577536:1,634880:1,667648:1,675840:1,733184:1,921600:1,1044480:1,2965504:1,3162112:1",
        },
    }],
}];

/// The read and write blocks of fio's normal output for [`S2_CMD`].
const S2_NORMAL: &str = r#"  read: IOPS=12.7k, BW=49.8MiB/s (52.2MB/s)(968KiB/19msec)
    slat (nsec): min=2954, max=65367, avg=9278.57, stdev=7512.69
    clat (usec): min=25, max=2951, avg=80.97, stdev=192.13
     lat (usec): min=42, max=2966, avg=90.25, stdev=192.21
    lat prio 0/0 (usec): min=43, max=2966, avg=97.75, stdev=227.65
    lat prio 1/0 (usec): min=42, max=590, avg=73.87, stdev=65.64
    clat percentiles (usec):
     |  1.00th=[   29],  5.00th=[   39], 10.00th=[   40], 20.00th=[   43],
     | 30.00th=[   48], 40.00th=[   51], 50.00th=[   57], 60.00th=[   60],
     | 70.00th=[   68], 80.00th=[   80], 90.00th=[  112], 95.00th=[  153],
     | 99.00th=[  265], 99.50th=[  586], 99.90th=[ 2966], 99.95th=[ 2966],
     | 99.99th=[ 2966]
    lat percentiles (usec):
     |  1.00th=[   44],  5.00th=[   46], 10.00th=[   50], 20.00th=[   55],
     | 30.00th=[   59], 40.00th=[   63], 50.00th=[   64], 60.00th=[   69],
     | 70.00th=[   74], 80.00th=[   90], 90.00th=[  115], 95.00th=[  163],
     | 99.00th=[  269], 99.50th=[  594], 99.90th=[ 2966], 99.95th=[ 2966],
     | 99.99th=[ 2966]
    lat prio 0/0 (68.60% of IOs) percentiles (usec):
     |  1.00th=[   44],  5.00th=[   46], 10.00th=[   49], 20.00th=[   57],
     | 30.00th=[   61], 40.00th=[   64], 50.00th=[   67], 60.00th=[   73],
     | 70.00th=[   80], 80.00th=[  100], 90.00th=[  124], 95.00th=[  172],
     | 99.00th=[  269], 99.50th=[ 2966], 99.90th=[ 2966], 99.95th=[ 2966],
     | 99.99th=[ 2966]
    lat prio 1/0 (31.40% of IOs) percentiles (usec):
     |  1.00th=[   43],  5.00th=[   45], 10.00th=[   51], 20.00th=[   54],
     | 30.00th=[   55], 40.00th=[   59], 50.00th=[   62], 60.00th=[   63],
     | 70.00th=[   68], 80.00th=[   72], 90.00th=[   89], 95.00th=[  163],
     | 99.00th=[  594], 99.50th=[  594], 99.90th=[  594], 99.95th=[  594],
     | 99.99th=[  594]
  write: IOPS=14.2k, BW=55.5MiB/s (58.2MB/s)(1080KiB/19msec); 0 zone resets
    slat (usec): min=2, max=538, avg=13.23, stdev=45.74
    clat (usec): min=20, max=3148, avg=170.13, stdev=290.77
     lat (usec): min=47, max=3151, avg=183.36, stdev=291.19
    lat prio 0/0 (usec): min=47, max=642, avg=102.18, stdev=99.84
    lat prio 3/5 (usec): min=66, max=3151, avg=245.43, stdev=365.38
    clat percentiles (usec):
     |  1.00th=[   33],  5.00th=[   42], 10.00th=[   52], 20.00th=[   62],
     | 30.00th=[   68], 40.00th=[   73], 50.00th=[   83], 60.00th=[  111],
     | 70.00th=[  143], 80.00th=[  206], 90.00th=[  343], 95.00th=[  490],
     | 99.00th=[ 1045], 99.50th=[ 2933], 99.90th=[ 3163], 99.95th=[ 3163],
     | 99.99th=[ 3163]
    lat percentiles (usec):
     |  1.00th=[   52],  5.00th=[   58], 10.00th=[   60], 20.00th=[   71],
     | 30.00th=[   77], 40.00th=[   86], 50.00th=[   98], 60.00th=[  125],
     | 70.00th=[  165], 80.00th=[  229], 90.00th=[  359], 95.00th=[  529],
     | 99.00th=[ 1045], 99.50th=[ 2966], 99.90th=[ 3163], 99.95th=[ 3163],
     | 99.99th=[ 3163]
    lat prio 0/0 (43.33% of IOs) percentiles (usec):
     |  1.00th=[   52],  5.00th=[   55], 10.00th=[   58], 20.00th=[   59],
     | 30.00th=[   64], 40.00th=[   72], 50.00th=[   76], 60.00th=[   80],
     | 70.00th=[   90], 80.00th=[  105], 90.00th=[  141], 95.00th=[  229],
     | 99.00th=[  627], 99.50th=[  644], 99.90th=[  644], 99.95th=[  644],
     | 99.99th=[  644]
    lat prio 3/5 (56.67% of IOs) percentiles (usec):
     |  1.00th=[   67],  5.00th=[   70], 10.00th=[   76], 20.00th=[   86],
     | 30.00th=[   98], 40.00th=[  117], 50.00th=[  157], 60.00th=[  182],
     | 70.00th=[  239], 80.00th=[  306], 90.00th=[  453], 95.00th=[  635],
     | 99.00th=[ 2966], 99.50th=[ 3163], 99.90th=[ 3163], 99.95th=[ 3163],
     | 99.99th=[ 3163]
"#;

fn hist(bins: &str) -> Option<Box<LatHist>> {
    if bins.is_empty() {
        return None;
    }
    let mut h = LatHist::new();
    for b in bins.split(',') {
        let (v, c) = b.split_once(':').unwrap();
        h.record_n(v.parse().unwrap(), c.parse().unwrap());
    }
    Some(Box::new(h))
}

fn acc(l: &L) -> LatAccum {
    LatAccum::from_parts(l.n, l.min, l.max, l.mean, l.stddev)
}

fn dir_report(d: &D) -> DirReport {
    DirReport {
        bytes: d.bytes,
        ios: d.ios,
        short_ios: 0,
        drop_ios: 0,
        runtime_ms: d.runtime,
        bw: d.bytes * 1000 / d.runtime,
        iops: d.ios * 1000 / d.runtime,
        slat: acc(&d.slat),
        clat: acc(&d.clat),
        lat: acc(&d.lat),
        slat_hist: hist(d.slat.bins),
        clat_hist: hist(d.clat.bins),
        lat_hist: hist(d.lat.bins),
        bw_samples: LatAccum::default(),
        iops_samples: LatAccum::default(),
    }
}

/// The run report behind fio's JSON+ numbers.
fn replay(dirs: &[D], plan: &Plan) -> RunReport {
    let mut j = JobReport::empty(plan.jobs[0].report.clone(), 4458);
    for d in dirs {
        let i = ["read", "write", "trim"]
            .iter()
            .position(|n| *n == d.name)
            .unwrap();
        j.dirs[i] = dir_report(d);
        j.prios[i] = d
            .prios
            .iter()
            .map(|p| ClatPrio {
                ioprio: p.class << 13 | p.level,
                lat: acc(&p.lat),
                hist: hist(p.lat.bins),
            })
            .collect();
    }
    j.run_ms = 67;
    RunReport::new(vec![j], global_options(plan), 1_000, 2_000, Vec::new())
}

/// The direction blocks of a normal report: from the first `  read:` or
/// `  write:` line up to the latency distribution.
fn dir_blocks(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !(l.starts_with("  read:") || l.starts_with("  write:")))
        .take_while(|l| !l.starts_with("  lat (") && !l.starts_with("  cpu "))
        .filter(|l| !l.starts_with("   bw (") && !l.starts_with("   iops "))
        .collect()
}

/// The values of a percentile row (`| 1.00th=[   38], ...`).
fn row_values(line: &str) -> Vec<u64> {
    line.split("=[")
        .skip(1)
        .map(|s| s.split(']').next().unwrap().trim().parse().unwrap())
        .collect()
}

/// rfio's normal blocks equal fio's, percentile values within one unit.
fn assert_blocks(rfio: &str, fio: &str) {
    let (r, f) = (dir_blocks(rfio), dir_blocks(fio));
    assert_eq!(
        r.len(),
        f.len(),
        "rfio:\n{}\nfio:\n{}",
        r.join("\n"),
        f.join("\n")
    );
    for (a, b) in r.iter().zip(&f) {
        if b.contains("th=[") {
            let mask = |l: &str| {
                l.split("=[")
                    .map(|s| s.split_once(']').map_or(s, |(_, rest)| rest))
                    .collect::<Vec<_>>()
                    .join("=[")
            };
            assert_eq!(mask(a), mask(b), "row layout");
            for (x, y) in row_values(a).iter().zip(row_values(b)) {
                // Within fio's bucket width (1/64): rfio's histogram is
                // finer, and clamps to the exact extremes.
                assert!(x.abs_diff(y) * 64 <= y.max(64), "rfio {a}\n  fio {b}");
            }
        } else {
            assert_eq!(a, b);
        }
    }
}

fn normal(report: &RunReport) -> String {
    rfio::api::normal_results(report)
}

fn json(report: &RunReport) -> Value {
    serde_json::from_str(&rfio::api::render_json(report, true)).unwrap()
}

#[test]
fn normal_output_per_priority_as_fio() {
    for (cmd, dirs, text) in [(S1_CMD, S1, S1_NORMAL), (S2_CMD, S2, S2_NORMAL)] {
        let p = plan(cmd);
        assert_blocks(&normal(&replay(dirs, &p)), text);
    }
}

#[test]
fn json_prios_as_fio() {
    for (cmd, dirs) in [(S1_CMD, S1), (S2_CMD, S2)] {
        let p = plan(cmd);
        let doc = json(&replay(dirs, &p));
        let job = &doc["jobs"][0];
        for d in dirs {
            let obj = job[d.name].as_object().unwrap();
            let keys: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
            let at = keys.iter().position(|k| *k == "prios").expect("prios");
            assert_eq!(
                &keys[at - 3..=at + 1],
                ["slat_ns", "clat_ns", "lat_ns", "prios", "bw_min"]
            );
            let prios = obj["prios"].as_array().unwrap();
            assert_eq!(prios.len(), d.prios.len());
            for (got, want) in prios.iter().zip(d.prios) {
                let o = got.as_object().unwrap();
                let keys: Vec<&str> = o.keys().map(|k| k.as_str()).collect();
                assert_eq!(keys, ["prioclass", "prio", want.key]);
                assert_eq!(o["prioclass"], u64::from(want.class));
                assert_eq!(o["prio"], u64::from(want.level));
                let l = &o[want.key];
                assert_eq!(l["N"], want.lat.n);
                assert_eq!(l["min"], want.lat.min);
                assert_eq!(l["max"], want.lat.max);
                let mean = l["mean"].as_f64().unwrap();
                assert!((mean - want.lat.mean).abs() < 1e-3, "{mean}");
                let pct: Vec<u64> = l["percentile"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                let fio: Vec<u64> = want
                    .lat
                    .pct
                    .split(',')
                    .map(|v| v.parse().unwrap())
                    .collect();
                assert_eq!(pct.len(), fio.len());
                for (r, f) in pct.iter().zip(&fio) {
                    // rfio clamps to the exact extremes, fio's bucket values
                    // are within 1/64 of them.
                    assert!(r.abs_diff(*f) * 64 <= *f, "{r} vs fio {f}");
                }
                let bins: Vec<String> = l["bins"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| format!("{k}:{v}"))
                    .collect();
                assert_eq!(bins.join(","), want.lat.bins);
            }
        }
        assert!(job["trim"].get("prios").is_none());
        assert!(job["sync"].get("prios").is_none());
    }
}

/// fio 3.33's terse output has no per-priority fields: the same line with
/// or without them.
#[test]
fn terse_is_unchanged() {
    let p = plan(S1_CMD);
    let with = replay(S1, &p);
    // The report is built again: its summary is computed when it is built.
    let mut jobs = with.jobs.clone();
    jobs[0].prios = Default::default();
    let without = RunReport::new(jobs, global_options(&p), 1_000, 2_000, Vec::new());
    for v in [2, 3, 4, 5] {
        let a = rfio::api::render_terse(&with, v);
        let b = rfio::api::render_terse(&without, v);
        assert_eq!(a, b, "terse v{v}");
    }
    // And without the tables there are no prio lines.
    assert!(!normal(&without).contains("prio"));
}

/// A job's statistics fed one I/O at a time, as the I/O loop does.
struct Feed {
    info: JobInfo,
    ts: ThreadStats,
    t: u64,
}

impl Feed {
    fn new(spec: &rfio::api::JobSpec) -> Feed {
        let mut ts = common::thread_stats(spec);
        ts.job_started();
        Feed {
            info: spec.report.clone(),
            ts,
            t: 0,
        }
    }

    /// `n` reads (`dir` 0) or writes of 4 KiB with completion latency
    /// `clat`, at priority slot `slot`.
    fn io(&mut self, dir: usize, n: u64, slat: u64, clat: u64, slot: u16) -> &mut Feed {
        for _ in 0..n {
            self.t += 1_000_000;
            self.ts.complete(&Completion {
                dir: Ddir::DATA[dir],
                bytes: 4096,
                slat_ns: slat,
                clat_ns: clat,
                at_ns: self.t,
                offset: self.t,
                prio_slot: slot,
                ..Completion::default()
            });
        }
        self
    }

    fn report(&mut self) -> JobReport {
        self.ts.elapsed_us = self.t / 1000 + 1;
        self.ts.job_finished();
        JobReport::new(self.info.clone(), 1, None, &self.ts)
    }
}

fn prio_n(prios: &[ClatPrio]) -> Vec<(u16, u16, u64)> {
    prios
        .iter()
        .map(|p| (p.class(), p.level(), p.lat.samples()))
        .collect()
}

#[test]
fn slots_follow_the_job_and_its_command_priorities() {
    let p = plan(&[
        "--name=j",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randrw",
        "--prioclass=2",
        "--prio=7",
        "--cmdprio_percentage=20,0",
        "--cmdprio_class=3",
        "--cmdprio=1",
    ]);
    let mut f = Feed::new(&p.jobs[0]);
    assert_eq!(f.ts.ioprio, 0x4007);
    assert_eq!(prio_n(&f.ts.prios[0]), [(2, 7, 0), (3, 1, 0)]);
    assert!(f.ts.prios[1].is_empty(), "no command priorities for writes");
    f.io(0, 3, 1000, 50_000, 0)
        .io(0, 2, 1000, 90_000, 1)
        .io(1, 4, 1000, 70_000, 0);
    let j = f.report();
    assert_eq!(j.ioprio, 0x4007);
    assert_eq!(prio_n(&j.prios[0]), [(2, 7, 3), (3, 1, 2)]);
    let s = Summary::new(&RunReport::new(vec![j], global_options(&p), 0, 1, Vec::new()).jobs);
    let e = &s.entries[0];
    assert_eq!(prio_n(&e.prios[0]), [(2, 7, 3), (3, 1, 2)]);
    // Writes have no table: all of them under the job's priority (one
    // priority, not reported).
    assert_eq!(prio_n(&e.prios[1]), [(2, 7, 4)]);
    let out = normal(&RunReport::new(
        vec![],
        global_options(&p),
        0,
        1,
        Vec::new(),
    ));
    assert!(!out.contains("prio"));
}

#[test]
fn lat_percentiles_count_the_total_latency() {
    let p = plan(&[
        "--name=j",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randread",
        "--cmdprio_percentage=50",
        "--lat_percentiles=1",
    ]);
    let mut f = Feed::new(&p.jobs[0]);
    f.io(0, 2, 5_000, 100_000, 0).io(0, 2, 5_000, 40_000, 1);
    let j = f.report();
    let s = |i: usize| j.prios[0][i].lat.summary().unwrap();
    assert_eq!((s(0).min, s(0).max), (105_000, 105_000));
    assert_eq!((s(1).min, s(1).max), (45_000, 45_000));
    let r = RunReport::new(vec![j], global_options(&p), 0, 1, Vec::new());
    let out = normal(&r);
    assert!(
        out.contains(
            "    lat prio 0/0 (nsec): min=105000, max=105000, avg=105000.00, stdev= 0.00\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("    lat prio 1/0 (nsec): min=45000, max=45000, avg=45000.00, stdev= 0.00\n")
    );
    assert!(out.contains("    lat prio 1/0 (50.00% of IOs) percentiles (nsec):\n"));
    let doc = json(&r);
    assert_eq!(doc["jobs"][0]["read"]["prios"][1]["lat_ns"]["min"], 45_000);
    // clat_percentiles=0 and lat_percentiles=0: the per-priority lines
    // stay, the tables go, and JSON has no percentiles for them.
    let p = plan(&[
        "--name=j",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randread",
        "--cmdprio_percentage=50",
        "--clat_percentiles=0",
    ]);
    let mut f = Feed::new(&p.jobs[0]);
    f.io(0, 2, 5_000, 100_000, 0).io(0, 2, 5_000, 40_000, 1);
    let r = RunReport::new(vec![f.report()], global_options(&p), 0, 1, Vec::new());
    let out = normal(&r);
    assert!(
        out.contains("    clat prio 1/0 (nsec): min=40000, max=40000"),
        "{out}"
    );
    assert!(!out.contains("of IOs"));
    let doc = json(&r);
    assert!(doc["jobs"][0]["read"]["prios"][0]["clat_ns"]
        .get("percentile")
        .is_none());
}

/// group_reporting sums the members' statistics by priority (fio's
/// `sum_clat_prio_stats`).
#[test]
fn groups_sum_by_priority() {
    let p = plan(&[
        "--name=g",
        "--ioengine=libaio",
        "--size=1m",
        "--rw=randread",
        "--cmdprio_percentage=40",
        "--numjobs=2",
        "--group_reporting",
    ]);
    let mut a = Feed::new(&p.jobs[0]);
    a.io(0, 5, 1000, 30_000, 0).io(0, 3, 1000, 20_000, 1);
    let mut b = Feed::new(&p.jobs[1]);
    b.io(0, 2, 1000, 60_000, 1).io(0, 1, 1000, 10_000, 0);
    let r = RunReport::new(
        vec![a.report(), b.report()],
        global_options(&p),
        0,
        1,
        Vec::new(),
    );
    let s = Summary::new(&r.jobs);
    assert_eq!(s.entries.len(), 1);
    assert_eq!(prio_n(&s.entries[0].prios[0]), [(0, 0, 6), (1, 0, 5)]);
    let out = normal(&r);
    assert!(
        out.contains("    clat prio 0/0 (54.55% of IOs) percentiles (nsec):\n"),
        "{out}"
    );
    assert!(out.contains("    clat prio 1/0 (45.45% of IOs) percentiles (nsec):\n"));
}

/// Jobs of different priorities (`prio`, no command priorities) reported
/// together: fio keeps per-priority statistics for the group, each job's
/// I/Os under its own priority. The same priority, or no group: none.
#[test]
fn groups_of_different_job_priorities() {
    let argv = |prio2: &str, group: bool| {
        let mut a = vec![
            "--ioengine=psync",
            "--size=256k",
            "--rw=randread",
            "--name=a",
            "--prio=3",
            "--name=b",
        ];
        a.push(prio2);
        if group {
            a.insert(0, "--group_reporting");
        }
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |p: &Plan| {
        let mut a = Feed::new(&p.jobs[0]);
        a.io(0, 4, NO_SLAT, 30_000, 0);
        let mut b = Feed::new(&p.jobs[1]);
        b.io(0, 4, NO_SLAT, 50_000, 0);
        RunReport::new(
            vec![a.report(), b.report()],
            global_options(p),
            0,
            1,
            Vec::new(),
        )
    };
    let p = plan(&argv("--prio=5", true));
    assert!(p.jobs.iter().all(|j| j.group_reporting));
    let r = run(&p);
    let s = Summary::new(&r.jobs);
    assert_eq!(prio_n(&s.entries[0].prios[0]), [(2, 3, 4), (2, 5, 4)]);
    let out = normal(&r);
    assert!(
        out.contains("    clat prio 2/3 (nsec): min=30000, max=30000, avg=30000.00, stdev= 0.00\n"),
        "{out}"
    );
    assert!(out.contains("    clat prio 2/5 (50.00% of IOs) percentiles (nsec):\n"));
    let doc = json(&r);
    let prios = doc["jobs"][0]["read"]["prios"].as_array().unwrap();
    assert_eq!(prios.len(), 2);
    assert_eq!(prios[1]["prioclass"], 2);
    assert_eq!(prios[1]["prio"], 5);
    for (a, group) in [("--prio=3", true), ("--prio=5", false)] {
        let p = plan(&argv(a, group));
        assert!(!normal(&run(&p)).contains("prio"), "{a} {group}");
    }
}

/// unified_rw_reporting: `mixed` sums reads and writes by priority; `both`
/// adds a mixed block with its own per-priority statistics.
#[test]
fn unified_reporting_sums_directions() {
    for mode in ["mixed", "both"] {
        let p = plan(&[
            "--name=u",
            "--ioengine=libaio",
            "--size=1m",
            "--rw=randrw",
            "--prio=7",
            "--prioclass=2",
            "--cmdprio_percentage=40",
            &format!("--unified_rw_reporting={mode}"),
        ]);
        let mut f = Feed::new(&p.jobs[0]);
        f.io(0, 3, 1000, 30_000, 0)
            .io(0, 1, 1000, 20_000, 1)
            .io(1, 2, 1000, 40_000, 1)
            .io(1, 1, 1000, 40_000, 0);
        let r = RunReport::new(vec![f.report()], global_options(&p), 0, 1, Vec::new());
        let s = Summary::new(&r.jobs);
        let e = &s.entries[0];
        let mixed = if mode == "mixed" {
            e.prios[0].clone()
        } else {
            e.mixed_prios()
        };
        assert_eq!(prio_n(&mixed), [(2, 7, 4), (1, 0, 3)], "{mode}");
        let doc = json(&r);
        let prios = doc["jobs"][0]["mixed"]["prios"].as_array().unwrap();
        assert_eq!(prios[0]["clat_ns"]["N"], 4);
        assert_eq!(prios[1]["clat_ns"]["N"], 3);
        let out = normal(&r);
        assert!(
            out.contains("    clat prio 1/0 (42.86% of IOs) percentiles (nsec):\n"),
            "{out}"
        );
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The last column of the per-I/O logs: the I/O's priority value with
/// `log_prio=1` (`0x%04x`), else 1 for the real-time class (fio 3.33:
/// `0, 215561, 0, 4096, 0x2000`; `0, 247639, 0, 4096, 1`).
#[test]
fn logs_show_each_ios_priority() {
    let dir = TempDir::new("cmdprio-logs");
    for (log_prio, rt, other) in [("1", "0x2000", "0x4003"), ("0", "1", "0")] {
        let prefix = dir.file(&format!("p{log_prio}")).display().to_string();
        let p = plan(&[
            "--name=j",
            "--ioengine=libaio",
            "--size=1m",
            "--rw=randread",
            "--prio=3",
            "--cmdprio_percentage=50",
            &format!("--write_lat_log={prefix}"),
            &format!("--write_bw_log={prefix}"),
            &format!("--log_prio={log_prio}"),
            "--log_offset=1",
        ]);
        let mut f = Feed::new(&p.jobs[0]);
        f.io(0, 1, 1000, 30_000, 1).io(0, 1, 1000, 30_000, 0);
        f.report();
        for kind in ["lat", "clat", "slat", "bw"] {
            let text = read(Path::new(&format!("{prefix}_{kind}.1.log")));
            let last: Vec<&str> = text
                .lines()
                .map(|l| l.rsplit(", ").next().unwrap())
                .collect();
            assert_eq!(last, [rt, other], "{kind}: {text}");
            assert_eq!(
                text.lines().next().unwrap().split(", ").nth(4),
                Some("1000000"),
                "{kind} offset"
            );
        }
    }
}

/// The engines pick the same I/Os as fio: the slots of 64 reads of a
/// libaio (and io_uring) job at iodepth 1 are fio's (its `log_prio=1`
/// latency log for `--rw=randread --iodepth=1 --cmdprio_percentage=30
/// --cmdprio_class=1 --direct=1 --size=1M`: 0x2000 as 1).
#[test]
fn engines_pick_the_ios_fio_picks() {
    const FIO: &str = "1011000000000100001000111000100011011010000010000001010000001100";
    let dir = TempDir::new("cmdprio-engine");
    let path = dir.file("f");
    std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    for engine in ["libaio", "io_uring"] {
        if !common::require_engine(engine, 1) {
            continue;
        }
        let p = plan(&[
            "--name=p",
            &format!("--ioengine={engine}"),
            "--size=1m",
            "--rw=randread",
            "--cmdprio_percentage=30",
            "--cmdprio_class=1",
        ]);
        let mut buf = AlignedBuf::new(4096);
        let mem = IoMem {
            base: buf.as_mut_ptr(),
            unit: 4096,
            units: 1,
        };
        let spec = &p.jobs[0].engine;
        assert_eq!(spec.common.iodepth, 1);
        let def = lookup_engine(engine).unwrap();
        let mut e = (def.new)(spec, mem, None).unwrap_or_else(|err| panic!("{engine}: {err}"));
        let target = FileTarget {
            path: path.clone(),
            flags: OpenFlags::default(),
            region_end: 1 << 20,
        };
        let file = e.open(&target).unwrap();
        e.post_init().unwrap();
        let mut got = String::new();
        for k in 0..64u64 {
            let io = Io {
                token: 0,
                file,
                dir: Ddir::Read,
                offset: k * 4096,
                len: 4096,
                buf: mem.base,
            };
            // SAFETY: `buf` (4096 bytes) outlives the I/O, which completes
            // before the next is queued; token 0 is the only one.
            match unsafe { e.queue(&io) } {
                Queued::Queued => {
                    e.commit().unwrap();
                    assert_eq!(e.getevents(1, 1, None).unwrap(), 1);
                    assert_eq!(e.event(0).result, Ok(4096));
                }
                other => panic!("{engine}: {other:?}"),
            }
            got.push(if e.prio_slot(0) == 1 { '1' } else { '0' });
        }
        e.close_all();
        assert_eq!(got, FIO, "{engine}");
    }
}

fn run(argv: &[&str]) -> RunReport {
    let p = plan(argv);
    rfio::api::run(&p).expect("run starts")
}

/// jobfiles/cmdprio/percentage.fio end to end: fio 3.33 puts 262 of the
/// 512 reads at 0/0 and 250 at 1/0, every run.
#[test]
fn end_to_end_counts_per_priority_as_fio() {
    let dir = TempDir::new("cmdprio-e2e");
    let file = dir.arg("p.dat");
    for engine in ["libaio", "io_uring"] {
        if !common::require_engine(engine, 4) {
            continue;
        }
        let r = run(&[
            "--name=p",
            &format!("--ioengine={engine}"),
            &file,
            "--size=2m",
            "--rw=randread",
            "--iodepth=4",
            "--cmdprio_percentage=50",
            "--cmdprio_class=1",
        ]);
        let j = &r.jobs[0];
        assert_eq!(j.error, 0, "{engine}: {:?}", j.error_msg);
        assert_eq!(prio_n(&j.prios[0]), [(0, 0, 262), (1, 0, 250)], "{engine}");
    }
}
