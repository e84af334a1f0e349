//! `--debug=random`'s list of each job's seed table, as fio 3.35 on prints
//! it while it adds the job (`init.c` `setup_random_seeds`).

use crate::debug::{dprint, Cat};
use crate::plan::spec::Plan;

/// List the seeds of every job of `plan`, in job order (none before 3.35:
/// the tables' `listed` is 0).
pub(crate) fn list(plan: &Plan) {
    if !crate::debug::on(Cat::Random) {
        return;
    }
    for job in &plan.jobs {
        let seeds = job.seeds.listed();
        if seeds.is_empty() {
            continue;
        }
        if job.seeds.from_system {
            dprint!(Cat::Random, "using system RNG for random seeds\n");
        }
        dprint!(Cat::Random, "FIO_RAND_NR_OFFS={}\n", seeds.len());
        for (i, seed) in seeds.iter().enumerate() {
            dprint!(Cat::Random, "rand_seeds[{i}]={seed}\n");
        }
    }
}
