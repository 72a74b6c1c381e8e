//! CSV replay: one row per clock cycle (docs/replay.md).
//!
//! Stimulus file: a header of input port names (any order, any subset; a
//! port without a column is 0 every cycle), then one row per cycle of
//! unsigned values in decimal, `0x` hexadecimal or `0b` binary. The first
//! cycle must assert `rst`: the registers have no power-up value.
//! Output file: `cycle`, then every output port, in decimal.

use std::path::Path;

use crate::ports::{Dir, Port};

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}:{line}:{column}: {message}")]
    At {
        path: String,
        line: u64,
        column: usize,
        message: String,
    },
    #[error("{path}:{line}: {message}")]
    Line {
        path: String,
        line: u64,
        message: String,
    },
}

fn parse_value(s: &str) -> Option<u128> {
    let s = s.trim().replace('_', "");
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u128::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u128::from_str_radix(b, 2).ok()
    } else if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

/// Reads a stimulus file into one value per input port per cycle.
pub fn read_stimulus(
    text: &str,
    path: &str,
    ports: &[Port],
    reset: Option<&str>,
) -> Result<Vec<Vec<u128>>, ReplayError> {
    let ins: Vec<Port> = ports.iter().filter(|p| p.dir == Dir::In).copied().collect();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers = rdr.headers().map_err(|e| ReplayError::Line {
        path: path.into(),
        line: 1,
        message: e.to_string(),
    })?;
    let mut columns = vec![];
    for (c, name) in headers.iter().enumerate() {
        let Some(k) = ins.iter().position(|p| p.name == name) else {
            let names: Vec<&str> = ins.iter().map(|p| p.name).collect();
            return Err(ReplayError::At {
                path: path.into(),
                line: 1,
                column: c + 1,
                message: format!(
                    "`{name}` is not an input port of this block; the inputs are: {}",
                    names.join(", ")
                ),
            });
        };
        if columns.contains(&k) {
            return Err(ReplayError::At {
                path: path.into(),
                line: 1,
                column: c + 1,
                message: format!("port `{name}` has two columns"),
            });
        }
        columns.push(k);
    }
    let mut rows = vec![];
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            let message = match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields, but the header has {expected_len}"),
                _ => e.to_string(),
            };
            ReplayError::Line {
                path: path.into(),
                line,
                message,
            }
        })?;
        let line = rec.position().map(|p| p.line()).unwrap_or(0);
        let mut row = vec![0u128; ins.len()];
        for (c, field) in rec.iter().enumerate() {
            let port = ins[columns[c]];
            let at = |message: String| ReplayError::At {
                path: path.into(),
                line,
                column: c + 1,
                message,
            };
            let v = parse_value(field).ok_or_else(|| {
                at(format!(
                    "`{field}` is not an unsigned number (decimal, 0x.. or 0b..) for port `{}`",
                    port.name
                ))
            })?;
            if v > port.max() {
                return Err(at(format!(
                    "{v} does not fit port `{}` ({} bits, max {})",
                    port.name,
                    port.width,
                    port.max()
                )));
            }
            row[columns[c]] = v;
        }
        rows.push(row);
    }
    if let (Some(rst), Some(first)) = (reset, rows.first()) {
        let k = ins.iter().position(|p| p.name == rst);
        if k.is_none_or(|k| first[k] == 0) {
            return Err(ReplayError::Line {
                path: path.into(),
                line: 2,
                message: format!(
                    "the first cycle must assert `{rst}` (the registers have no power-up value)"
                ),
            });
        }
    }
    Ok(rows)
}

/// Writes the output rows (one value per output port per cycle) atomically.
pub fn write_outputs(path: &Path, ports: &[Port], rows: &[Vec<u128>]) -> Result<(), ReplayError> {
    let outs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let mut text = String::from("cycle");
    for p in &outs {
        text.push(',');
        text.push_str(p.name);
    }
    text.push('\n');
    for (n, row) in rows.iter().enumerate() {
        text.push_str(&n.to_string());
        for v in row {
            text.push(',');
            text.push_str(&v.to_string());
        }
        text.push('\n');
    }
    crate::fsutil::write_atomic(path, text.as_bytes()).map_err(|e| ReplayError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORTS: &[Port] = &[
        Port::input("rst", 1),
        Port::input("len", 4),
        Port::output("o", 1),
    ];

    #[test]
    fn values_in_every_base_and_missing_columns_are_zero() {
        let rows = read_stimulus(
            "rst,len\n1,0x3\n0,0b101\n0,15\n",
            "t.csv",
            PORTS,
            Some("rst"),
        )
        .unwrap();
        assert_eq!(rows, vec![vec![1, 3], vec![0, 5], vec![0, 15]]);
        let rows = read_stimulus("rst\n1\n", "t.csv", PORTS, Some("rst")).unwrap();
        assert_eq!(rows, vec![vec![1, 0]]);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read_stimulus("rst,len\n1,3\n0,16\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:3:2: 16 does not fit port `len` (4 bits, max 15)"
        );
        let e = read_stimulus("rst,len\n1,x\n", "t.csv", PORTS, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:2:2: `x` is not an unsigned number"),
            "{e}"
        );
        let e = read_stimulus("rst,lenn\n1,1\n", "t.csv", PORTS, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:1:2: `lenn` is not an input port"),
            "{e}"
        );
        let e = read_stimulus("rst,len\n1,1\n0\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(e.to_string(), "t.csv:3: 1 fields, but the header has 2");
        let e = read_stimulus("rst,len\n0,1\n", "t.csv", PORTS, Some("rst")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:2: the first cycle must assert `rst`"),
            "{e}"
        );
        let e = read_stimulus("rst,rst\n1,1\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(e.to_string(), "t.csv:1:2: port `rst` has two columns");
    }
}
