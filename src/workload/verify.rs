//! Data verification (fio's `verify.c`): what a write carries so it can
//! be checked, and the checks of the reads that follow.
