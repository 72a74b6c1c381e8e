//! The params file (`--params FILE.toml`): generation-time sizes and reset
//! values, one table per block. Format in docs/params.md.
//!
//! ```toml
//! [cp]
//! depth_bits = 24
//! len_bits = 14
//! [cp.reset]
//! kmin = 30000
//! kmax = 200000
//! pmax = 0.1        # probability in [0, 1], rounded to Q1.16
//! kdrop = 300000
//! buf_max = 1000000
//! seed = 1
//! ```
//! Every key is optional; missing sizes take their defaults and missing
//! reset values those of `CpParams::reset_for`. Unknown keys are errors,
//! and so is a table that names no block.

use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ParamsError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("{path}: {error}")]
    Param {
        path: String,
        error: ccrtl_golden::ParamError,
    },
}

/// A params file, read once; each block parses its own table from it
/// ([`crate::block::Block::parse_config`]).
#[derive(Debug, Clone, Default)]
pub struct ParamsFile {
    /// The file's text and name, or `None` without `--params`.
    pub file: Option<(String, String)>,
}

impl ParamsFile {
    /// Reads `path` and checks that every top-level table names a block
    /// of `blocks`. `None` gives no file (every block's defaults).
    pub fn load(path: Option<&Path>, blocks: &[&str]) -> Result<ParamsFile, ParamsError> {
        let Some(path) = path else {
            return Ok(ParamsFile::default());
        };
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ParamsError::File {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        ParamsFile::parse(text, &shown, blocks)
    }

    /// As [`ParamsFile::load`], from text.
    pub fn parse(text: String, path: &str, blocks: &[&str]) -> Result<ParamsFile, ParamsError> {
        let top: BTreeMap<toml::Spanned<String>, toml::Value> =
            toml::from_str(&text).map_err(|e| ParamsError::File {
                path: path.to_string(),
                message: e.to_string().trim_end().to_string(),
            })?;
        for (k, _) in top.iter() {
            if !blocks.contains(&k.get_ref().as_str()) {
                let line = text[..k.span().start].matches('\n').count() + 1;
                return Err(ParamsError::File {
                    path: path.to_string(),
                    message: format!(
                        "line {line}: unknown table `{}`; the blocks are: {}",
                        k.get_ref(),
                        blocks.join(", ")
                    ),
                });
            }
        }
        Ok(ParamsFile {
            file: Some((text, path.to_string())),
        })
    }

    /// Block `B`'s configuration: its defaults without a file.
    pub fn config<B: crate::block::Block>(&self) -> Result<B::Config, ParamsError> {
        match &self.file {
            None => Ok(B::default_config()),
            Some((text, path)) => B::parse_config(text, path),
        }
    }
}
