//! STUB (replaced by the generated help renderers).
use super::def::OptionDef;
pub fn cmdhelp(name: &str) -> Result<String, String> { Err(format!("No such command: {name}")) }
pub fn enghelp_list() -> String { String::new() }
pub fn enghelp(e: &str) -> Result<String, String> { Err(e.to_string()) }
pub fn enghelp_cmd(e: &str, _c: &str) -> Result<String, String> { Err(e.to_string()) }
pub fn valid_values(_d: &OptionDef) -> String { String::new() }
