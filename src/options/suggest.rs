//! STUB
pub fn did_you_mean<'a>(_name: &str, _c: impl Iterator<Item = &'a str>) -> Option<&'a str> { None }
