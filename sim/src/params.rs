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

use ccrtl_golden::cp::{reference::pmax_q16, CpConfig, CpParams, CpShape};
use serde::Deserialize;

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

/// CP's table: `[cp]` with `depth_bits`, `len_bits` and `[cp.reset]`.
#[derive(Debug, Default, Deserialize)]
struct CpFile {
    cp: Option<CpTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CpTable {
    depth_bits: Option<u32>,
    len_bits: Option<u32>,
    reset: Option<CpReset>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CpReset {
    kmin: Option<u32>,
    kmax: Option<u32>,
    pmax: Option<toml::Value>,
    kdrop: Option<u32>,
    buf_max: Option<u32>,
    seed: Option<u32>,
}

/// Parses and validates CP's table of params text; `path` names it.
pub fn parse_cp(text: &str, path: &str) -> Result<CpConfig, ParamsError> {
    let file: CpFile = toml::from_str(text).map_err(|e| ParamsError::File {
        path: path.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let t = file.cp.unwrap_or_default();
    let defaults = CpShape::default();
    let shape = CpShape {
        depth_bits: t.depth_bits.unwrap_or(defaults.depth_bits),
        len_bits: t.len_bits.unwrap_or(defaults.len_bits),
    };
    let perr = |error| ParamsError::Param {
        path: path.to_string(),
        error,
    };
    shape.validate().map_err(perr)?;
    let base = CpParams::reset_for(&shape);
    let r = t.reset.unwrap_or_default();
    let pmax = match r.pmax {
        None => base.pmax,
        Some(v) => {
            let p = match v {
                toml::Value::Float(f) => f,
                toml::Value::Integer(i) => i as f64,
                other => {
                    return Err(ParamsError::File {
                        path: path.to_string(),
                        message: format!(
                            "cp.reset.pmax: expected a probability between 0 and 1, found {other}"
                        ),
                    })
                }
            };
            pmax_q16(p).ok_or_else(|| {
                perr(ccrtl_golden::ParamError::new(
                    "pmax",
                    format!("{p} is not a probability between 0 and 1"),
                ))
            })?
        }
    };
    let reset = CpParams {
        kmin: r.kmin.unwrap_or(base.kmin),
        kmax: r.kmax.unwrap_or(base.kmax),
        pmax,
        kdrop: r.kdrop.unwrap_or(base.kdrop),
        buf_max: r.buf_max.unwrap_or(base.buf_max),
        seed: r.seed.unwrap_or(base.seed),
    };
    let cp = CpConfig { shape, reset };
    cp.validate().map_err(perr)?;
    Ok(cp)
}
