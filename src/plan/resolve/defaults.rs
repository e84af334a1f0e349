//! The option tables' defaults, parsed once per process.
//!
//! Every job reads some forty options it does not set, and looking each
//! up in up to three tables and parsing its default text again, job after
//! job, cost more than the rest of a short section's reading. A default
//! is a pure function of the option's name, the way it is looked up, the
//! release and `kb_base`: each is read once and kept for the whole
//! process (at most one per name, lookup, release and `kb_base`: a few
//! hundred at most), in 128 lists by the name's
//! [`name_slot`](crate::options::jobopts::name_slot). A caller that
//! writes the name out has its slot worked out where it is written, and
//! a default read before costs a few compares.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::options::def::ValueKind;
use crate::options::value::{parse_value, ParseCtx, ValueError};
use crate::options::{OptionDef, Value};
use crate::release::Release;

/// The option table's default of `def`, parsed as a job's value is. fio
/// sets its defaults without the bound rfio checks a job's integers
/// against (0 when the table gives none): `nonvectored`'s -1 is kept.
pub(crate) fn default_value(def: &'static OptionDef, ctx: &ParseCtx) -> Option<Value> {
    match parse_value(def, Some(def.default?), ctx) {
        Ok(v) => Some(v),
        Err(ValueError::BelowMin { value, .. } | ValueError::AboveMax { value, .. })
            if def.kind == ValueKind::Int =>
        {
            Some(Value::Int(value))
        }
        Err(_) => None,
    }
}

/// The definition of option `name` that gives its default under
/// `release`: its release's, else (an option that came later, which the
/// job cannot set) the newest release's, else (one a later release
/// removed, or made another's alias, as 3.35 did `allrandrepeat`) fio
/// 3.33's.
pub(crate) fn default_def(release: Release, name: &str) -> Option<&'static OptionDef> {
    let own = |d: &&'static OptionDef| d.name == name;
    crate::options::lookup_in(release, name)
        .filter(own)
        .or_else(|| crate::options::lookup_in(Release::NEWEST, name).filter(own))
        .or_else(|| crate::options::lookup(name).filter(own))
}

/// How a default's option is found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    /// [`default_def`]: the option of that very name, in the release's
    /// table, else the newest, else fio 3.33's (the plan's reads).
    Own,
    /// [`table_def`]: the option answering to the name (an alias too) in
    /// the release's table, else fio 3.33's (the engines' reads).
    Table,
}

/// The definition of `name` in `release`'s table, else (an option a later
/// release removed) in fio 3.33's.
pub(crate) fn table_def(release: Release, name: &str) -> Option<&'static OptionDef> {
    crate::options::lookup_in(release, name).or_else(|| crate::options::lookup(name))
}

struct Cached {
    lookup: Lookup,
    /// The name asked for.
    name: &'static str,
    release: Release,
    kb_base: u32,
    def: &'static OptionDef,
    value: Option<Value>,
    next: Option<&'static Cached>,
}

/// The heads of the lists. Invariant: every pointer stored here is null
/// or comes from `Box::into_raw` of a [`Cached`] that is never changed or
/// freed once stored, whose `next` is an earlier head (so every node
/// reachable is such a node). Nodes are only added (two threads adding
/// the same default at once may each add one: both are right).
static HEADS: [AtomicPtr<Cached>; 128] = [const { AtomicPtr::new(ptr::null_mut()) }; 128];

/// The list of slot `slot`.
#[inline(always)]
fn list(slot: u8) -> Option<&'static Cached> {
    let head = HEADS[usize::from(slot & 127)].load(Ordering::Acquire);
    // SAFETY: null or a node never changed or freed (the invariant of
    // `HEADS`), published by the `Release` exchange in `add`.
    unsafe { head.as_ref() }
}

#[inline(always)]
fn find(
    lookup: Lookup,
    name: &str,
    slot: u8,
    release: Release,
    kb_base: u32,
) -> Option<Option<(&'static OptionDef, &'static Value)>> {
    let mut node = list(slot);
    while let Some(d) = node {
        if d.lookup == lookup && d.release == release && d.kb_base == kb_base && d.name == name {
            return Some(d.value.as_ref().map(|v| (d.def, v)));
        }
        node = d.next;
    }
    None
}

/// The default of option `name` (whose slot is `slot`) under `release`
/// and `kb_base`, its option found as the plan finds it
/// ([`default_def`]); `None` when the table gives none or it does not
/// parse.
#[inline(always)]
pub(crate) fn own(
    name: &str,
    slot: u8,
    release: Release,
    kb_base: u32,
) -> Option<(&'static OptionDef, &'static Value)> {
    match find(Lookup::Own, name, slot, release, kb_base) {
        Some(found) => found,
        None => {
            let def = default_def(release, name)?;
            // Kept under the option's own name (`def.name == name`).
            add(Lookup::Own, def.name, slot, release, kb_base, def)
        }
    }
}

/// The default of option `name` (whose slot is `slot`) under `release`
/// and `kb_base`, its option found as the engines find it
/// ([`table_def`]).
pub(crate) fn table(
    name: &'static str,
    slot: u8,
    release: Release,
    kb_base: u32,
) -> Option<(&'static OptionDef, &'static Value)> {
    match find(Lookup::Table, name, slot, release, kb_base) {
        Some(found) => found,
        None => {
            let def = table_def(release, name)?;
            add(Lookup::Table, name, slot, release, kb_base, def)
        }
    }
}

/// A default read for the first time: parsed, and kept.
#[cold]
#[inline(never)]
fn add(
    lookup: Lookup,
    name: &'static str,
    slot: u8,
    release: Release,
    kb_base: u32,
    def: &'static OptionDef,
) -> Option<(&'static OptionDef, &'static Value)> {
    let ctx = ParseCtx {
        kb_base,
        ..ParseCtx::default()
    };
    let head = &HEADS[usize::from(slot & 127)];
    let mut seen = head.load(Ordering::Acquire);
    let node = Box::into_raw(Box::new(Cached {
        lookup,
        name,
        release,
        kb_base,
        def,
        value: default_value(def, &ctx),
        // SAFETY: as in `list`.
        next: unsafe { seen.as_ref() },
    }));
    while let Err(now) = head.compare_exchange(seen, node, Ordering::Release, Ordering::Acquire) {
        seen = now;
        // SAFETY: `node` is not published yet (this thread is its only
        // user); `now` as in `list`.
        unsafe { (*node).next = now.as_ref() };
    }
    // SAFETY: published, and never changed or freed again.
    let node: &'static Cached = unsafe { &*node };
    node.value.as_ref().map(|v| (node.def, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::jobopts::name_slot;

    /// A default read again is the one read first, for each release and
    /// `kb_base` apart; an alias finds its option only as the engines
    /// look options up.
    #[test]
    fn defaults_are_kept_per_release_and_kb_base() {
        let slot = name_slot("iodepth");
        let (def, v) = own("iodepth", slot, Release::V3_33, 1024).expect("a default");
        assert_eq!((def.name, v), ("iodepth", &Value::Int(1)));
        let again = own("iodepth", slot, Release::V3_33, 1024).expect("a default");
        assert!(std::ptr::eq(again.1, v));
        let other = own("iodepth", slot, Release::NEWEST, 1024).expect("a default");
        assert_eq!(other.1, &Value::Int(1));
        let chunk = name_slot("buffer_compress_chunk");
        let kib = own("buffer_compress_chunk", chunk, Release::V3_33, 1024);
        assert_eq!(kib.map(|(_, v)| v), Some(&Value::Bytes(512)));
        // An option with no default.
        assert!(own("openfiles", name_slot("openfiles"), Release::V3_33, 1024).is_none());
        // Not an option's own name.
        assert!(own("no_such_option", 3, Release::V3_33, 1024).is_none());
    }
}
