//! Parameter errors shared by every block.

use std::fmt;

/// A parameter that is out of range or inconsistent with another one.
///
/// `name` is the parameter as it is spelled in the params TOML file and in the
/// block's port list (`kmin`, `depth_bits`, ...), so a user can find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    pub name: &'static str,
    pub message: String,
}

impl ParamError {
    pub fn new(name: &'static str, message: impl Into<String>) -> Self {
        Self {
            name,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter `{}`: {}", self.name, self.message)
    }
}

impl std::error::Error for ParamError {}
