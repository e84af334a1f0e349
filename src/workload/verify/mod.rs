//! Data verification (fio 3.33's `verify.c`): what a write carries so it
//! can be checked, the list of written blocks to read back (fio's io
//! pieces), and the checks of the reads that follow.
//!
//! # What a write carries
//!
//! A verified write is filled first (random data from the job's verify
//! generator, or `verify_pattern`), then every `verify_interval` bytes get
//! fio's 40-byte header, little-endian, followed by the checksum of the rest
//! of the interval:
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | magic `0xacca` |
//! | 2..4 | verify type (fio's `VERIFY_*` number, [`Kind`]) |
//! | 4..8 | interval length |
//! | 8..16 | random seed of the data (0 with a pattern) |
//! | 16..24 | offset of the interval in the file |
//! | 24..32 | issue time (seconds, nanoseconds; never checked) |
//! | 32..34 | job number |
//! | 34..36 | `numberio`: how many writes the job issued before this one |
//! | 36..40 | crc32c (fio's: no final inversion) of bytes 0..36 |
//!
//! With `verify_offset` the header (and checksum) is swapped with the bytes
//! at that offset of the interval after the checksum is taken.
//!
//! The checksums are fio's, byte for byte, quirks included (checked against
//! files fio 3.33 writes): crc32 is the unreflected 0x04c11db7 CRC from 0
//! without final inversion, crc32c is stored inverted, sha1 stores its
//! words little-endian, fio's sha256 stores the final padded block (with a
//! little-endian bit length) with the low byte of each state word over its
//! first 8 bytes, and fio's sha512 stores the last block buffer of its
//! update (so it checks the first 128 and the last `len % 128` bytes).
//!
//! # Reading back
//!
//! Completed writes are logged as [`Piece`]s: in write order (fio's
//! list), or sorted by file and offset with overlapping older writes
//! dropped (fio's rb-tree): fio 3.33 sorts unless the job has a random
//! map, 3.40 only when offsets may overlap (the plan's `LogOrder`). The verify phase, and
//! `verify_backlog` during the writes, take them from the front.
//!
//! Everything here that runs per I/O is allocation free; only a failure
//! (its messages and dump files) allocates.
//!
//! # Trims of written blocks
//!
//! With `trim_percentage`, each logged write is put on the trim list with
//! that chance; with `trim_backlog` the loop trims blocks of the list
//! among its writes, and the read back of a trimmed block must then be
//! zeros (`trim_verify_zero`, on by default; off, a trimmed block is not
//! read back at all).
//!
//! The files: `checksum` (fio's checksums), `header` (the header and where
//! it goes), `history` (the written blocks to read back, and the trim
//! list), `verifier` (what a write is filled with, and the checks), `trim`
//! (which blocks are trimmed, and the zero check), `state` (the state
//! file of `verify_state_save` and `verify_state_load`). The options come
//! resolved by the plan ([`crate::plan::resolve::verify`]).
//!
//! [`Kind`]: crate::plan::resolve::verify::Kind

mod checksum;
mod header;
mod history;
mod state;
mod trim;
mod verifier;

pub(crate) use checksum::checksum;
pub(crate) use history::{History, Key, Piece};
pub(crate) use state::{
    save as save_state, Format as StateFormat, LoadedState, StateError, Stop as StateStop,
    WriteComps,
};
pub(crate) use trim::TrimPicker;
pub(crate) use verifier::{ReadBack, Verifier, F_IN_CUR_DEPTH, F_VER_LIST};
