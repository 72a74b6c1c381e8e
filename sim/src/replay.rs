//! CSV replay: one row per clock cycle (docs/replay.md).
//!
//! Stimulus file: a header of input port names (any order, any subset; a
//! port without a column is 0 every cycle), then one row per cycle of
//! unsigned values in decimal, `0x` hexadecimal or `0b` binary. The first
//! cycle must assert `rst`: the registers have no power-up value.
//! Output file: `cycle`, then every output port, in decimal.
//!
//! Both directions stream: [`StimulusReader`] holds one line at a time and
//! [`OutputWriter`] writes through a `BufWriter`, so memory does not grow
//! with the length of the trace.
//!
//! Lines end with LF, CRLF or a lone CR (old Mac), and may be mixed; blank
//! lines (empty, or spaces and tabs only) are skipped but counted, so that
//! every error names the line a text editor shows. A UTF-8 byte-order mark
//! before the header is ignored. Fields are split at every comma, trimmed of
//! spaces and tabs, and may be enclosed in double quotes (`"0x1f"`); a quoted
//! field cannot contain a comma.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::ports::{Dir, Port};

/// An error in a stimulus or output file. `Io` is about the file as a whole
/// (cannot open, read or write it; empty; no cycle; same file as the
/// stimulus); `At` names a line and a column (the field number, from 1);
/// `Line` names a line only.
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

/// Longest line accepted: a guard against reading a file that has no line
/// ends (a binary, say) into memory. A row of 128 ports of 128 bits written
/// in binary with separators is about 25 kB.
const MAX_LINE: usize = 1 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Streams a stimulus CSV: header of input port names (any order, any
/// subset; missing port = 0), then one row per cycle.
pub struct StimulusReader {
    input: BufReader<Box<dyn Read>>,
    shown: String,
    /// The current line, without its end.
    line: Vec<u8>,
    /// Number of the current line, from 1.
    line_no: u64,
    /// The last line ended with CR: an LF right after it belongs to it.
    skip_lf: bool,
    /// End of file was reported.
    done: bool,
    /// Names of the input ports, in port order (for messages).
    inputs: Vec<&'static str>,
    /// For each field of a row: the input port it sets, and its width and max.
    columns: Vec<Column>,
    /// The reset port's name and its index among the inputs, if it is one.
    reset: Option<(String, Option<usize>)>,
    rows: u64,
}

#[derive(Clone, Copy)]
struct Column {
    input: usize,
    name: &'static str,
    width: u32,
    max: u128,
}

impl std::fmt::Debug for StimulusReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StimulusReader")
            .field("shown", &self.shown)
            .field("line", &self.line_no)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl StimulusReader {
    /// Opens `path` (shown in errors as `path.display()`); reads and checks
    /// the header only.
    pub fn open(
        path: &Path,
        ports: &[Port],
        reset: Option<&str>,
    ) -> Result<StimulusReader, ReplayError> {
        let shown = path.display().to_string();
        let file = File::open(path).map_err(|e| ReplayError::Io {
            path: shown.clone(),
            message: format!("cannot open: {e}"),
        })?;
        Self::from_reader(Box::new(file), &shown, ports, reset)
    }

    /// Same over any byte reader; `shown` names it in errors.
    pub fn from_reader(
        r: Box<dyn Read>,
        shown: &str,
        ports: &[Port],
        reset: Option<&str>,
    ) -> Result<StimulusReader, ReplayError> {
        let ins: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::In).collect();
        let mut reader = StimulusReader {
            input: BufReader::with_capacity(1 << 17, r),
            shown: shown.to_string(),
            line: Vec::with_capacity(256),
            line_no: 0,
            skip_lf: false,
            done: false,
            inputs: ins.iter().map(|p| p.name).collect(),
            columns: vec![],
            reset: reset.map(|r| (r.to_string(), ins.iter().position(|p| p.name == r))),
            rows: 0,
        };
        reader.read_header(&ins)?;
        Ok(reader)
    }

    /// Fills `row` (one value per INPUT port, in port order) with the next
    /// cycle; Ok(false) at end of file (and on every later call). The first
    /// data row must assert the reset port if `reset` is Some. A file with
    /// a header but no row is an error.
    ///
    /// Panics if `row` does not have one element per input port.
    pub fn next_row(&mut self, row: &mut [u128]) -> Result<bool, ReplayError> {
        assert_eq!(
            row.len(),
            self.inputs.len(),
            "next_row takes one value per input port"
        );
        if self.done {
            return Ok(false);
        }
        loop {
            if !self.read_line()? {
                self.done = true;
                if self.rows == 0 {
                    return Err(self.whole(
                        "the stimulus has no cycle (a header and at least one row are needed)",
                    ));
                }
                return Ok(false);
            }
            if !is_blank(&self.line) {
                break;
            }
        }
        let fields = self.line.iter().filter(|&&b| b == b',').count() + 1;
        if fields != self.columns.len() {
            return Err(self.not_utf8().unwrap_or_else(|| ReplayError::Line {
                path: self.shown.clone(),
                line: self.line_no,
                message: format!("{fields} fields, but the header has {}", self.columns.len()),
            }));
        }
        row.fill(0);
        for (c, (field, col)) in self
            .line
            .split(|&b| b == b',')
            .zip(&self.columns)
            .enumerate()
        {
            match parse_value(field) {
                Ok(v) if v <= col.max => row[col.input] = v,
                bad => return Err(self.field_error(c, field, bad)),
            }
        }
        self.rows += 1;
        if self.rows == 1 {
            if let Some((rst, k)) = &self.reset {
                if k.is_none_or(|k| row[k] == 0) {
                    return Err(ReplayError::Line {
                        path: self.shown.clone(),
                        line: self.line_no,
                        message: format!(
                            "the first cycle must assert `{rst}` (the registers have no power-up value)"
                        ),
                    });
                }
            }
        }
        Ok(true)
    }

    /// Rows read so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Number (from 1) of the line last read: the header's after `open`,
    /// then the last row's.
    pub fn line(&self) -> u64 {
        self.line_no
    }

    /// Reads the header: the first line that is not blank.
    fn read_header(&mut self, ins: &[&Port]) -> Result<(), ReplayError> {
        loop {
            if !self.read_line()? {
                return Err(self.whole(
                    "the stimulus is empty (a header of input port names, then one row per cycle, is needed)",
                ));
            }
            if self.line_no == 1 && self.line.starts_with(BOM) {
                self.line.drain(..BOM.len());
            }
            if !is_blank(&self.line) {
                break;
            }
        }
        if let Some(e) = self.not_utf8() {
            return Err(e);
        }
        let at = |column: usize, message: String| ReplayError::At {
            path: self.shown.clone(),
            line: self.line_no,
            column,
            message,
        };
        let mut columns: Vec<Column> = vec![];
        for (c, name) in self.line.split(|&b| b == b',').enumerate() {
            // Valid UTF-8 (checked above), split at an ASCII byte: still valid.
            let name = std::str::from_utf8(trim(name)).unwrap_or_default();
            let Some(k) = ins.iter().position(|p| p.name == name) else {
                let what = if name.is_empty() {
                    "an empty column name".to_string()
                } else {
                    format!("`{name}`")
                };
                return Err(at(
                    c + 1,
                    format!(
                        "{what} is not an input port of this block; the inputs are: {}",
                        self.inputs.join(", ")
                    ),
                ));
            };
            if columns.iter().any(|col| col.input == k) {
                return Err(at(c + 1, format!("port `{name}` has two columns")));
            }
            columns.push(Column {
                input: k,
                name: ins[k].name,
                width: ins[k].width,
                max: ins[k].max(),
            });
        }
        self.columns = columns;
        Ok(())
    }

    /// Reads the next line, without its end, into `self.line`. Lines end
    /// with LF, CRLF or a lone CR. Ok(false) at end of file.
    fn read_line(&mut self) -> Result<bool, ReplayError> {
        self.line.clear();
        let mut started = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(ReplayError::Io {
                        path: self.shown.clone(),
                        message: format!("cannot read: {e}"),
                    });
                }
            };
            if buf.is_empty() {
                if started {
                    self.line_no += 1;
                }
                return Ok(started);
            }
            if std::mem::take(&mut self.skip_lf) && buf[0] == b'\n' {
                self.input.consume(1);
                continue;
            }
            started = true;
            match buf.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    self.skip_lf = buf[i] == b'\r';
                    self.line.extend_from_slice(&buf[..i]);
                    self.input.consume(i + 1);
                    self.line_no += 1;
                    return Ok(true);
                }
                None => {
                    let n = buf.len();
                    self.line.extend_from_slice(buf);
                    self.input.consume(n);
                    if self.line.len() > MAX_LINE {
                        return Err(ReplayError::Line {
                            path: self.shown.clone(),
                            line: self.line_no + 1,
                            message: format!(
                                "line longer than {MAX_LINE} bytes; is this a CSV stimulus?"
                            ),
                        });
                    }
                }
            }
        }
    }

    fn whole(&self, message: &str) -> ReplayError {
        ReplayError::Io {
            path: self.shown.clone(),
            message: message.to_string(),
        }
    }

    /// The error for the current line if it is not UTF-8, naming the field
    /// and the byte.
    fn not_utf8(&self) -> Option<ReplayError> {
        let e = std::str::from_utf8(&self.line).err()?;
        let i = e.valid_up_to();
        Some(ReplayError::At {
            path: self.shown.clone(),
            line: self.line_no,
            column: self.line[..i].iter().filter(|&&b| b == b',').count() + 1,
            message: format!(
                "not UTF-8 text: byte 0x{:02x} at byte {} of the line (save the file as UTF-8 or ASCII)",
                self.line[i],
                i + 1
            ),
        })
    }

    fn field_error(&self, c: usize, field: &[u8], bad: Result<u128, Bad>) -> ReplayError {
        if let Some(e) = self.not_utf8() {
            return e;
        }
        let col = self.columns[c];
        let text = String::from_utf8_lossy(trim(field));
        let message = match bad {
            Ok(v) => format!(
                "{v} does not fit port `{}` ({} bits, max {})",
                col.name, col.width, col.max
            ),
            Err(Bad::TooBig) => format!(
                "{text} does not fit port `{}` ({} bits, max {})",
                col.name, col.width, col.max
            ),
            Err(Bad::NotNumber) => format!(
                "`{text}` is not an unsigned number (decimal, 0x.. or 0b..) for port `{}`",
                col.name
            ),
        };
        ReplayError::At {
            path: self.shown.clone(),
            line: self.line_no,
            column: c + 1,
            message,
        }
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Trims spaces and tabs, then one pair of enclosing double quotes.
fn trim(f: &[u8]) -> &[u8] {
    match trim_blank(f) {
        [b'"', inner @ .., b'"'] => trim_blank(inner),
        f => f,
    }
}

/// Trims spaces and tabs on both sides.
fn trim_blank(f: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = f.iter().position(|b| !blank(b)).unwrap_or(f.len());
    let end = f.iter().rposition(|b| !blank(b)).map_or(start, |e| e + 1);
    &f[start..end]
}

enum Bad {
    NotNumber,
    /// More than 128 bits.
    TooBig,
}

/// Parses a field: decimal, `0x` hexadecimal or `0b` binary, `_` allowed
/// between digits, surrounding blanks and quotes ignored. No allocation.
fn parse_value(field: &[u8]) -> Result<u128, Bad> {
    let f = trim(field);
    match f {
        [b'0', b'x' | b'X', d @ ..] => digits(d, 16),
        [b'0', b'b' | b'B', d @ ..] => digits(d, 2),
        d => digits(d, 10),
    }
}

fn digits(d: &[u8], radix: u32) -> Result<u128, Bad> {
    let digit = |c: u8| -> Result<u32, Bad> {
        let x = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return Err(Bad::NotNumber),
        } as u32;
        if x < radix {
            Ok(x)
        } else {
            Err(Bad::NotNumber)
        }
    };
    let mut any = false;
    // Up to this many characters cannot overflow a u64: the fast path.
    let fast = match radix {
        2 => 64,
        16 => 16,
        _ => 19,
    };
    let v = if d.len() <= fast {
        let mut v = 0u64;
        for &c in d {
            if c != b'_' {
                v = v * radix as u64 + digit(c)? as u64;
                any = true;
            }
        }
        v as u128
    } else {
        let mut v = 0u128;
        let mut too_big = false;
        for &c in d {
            if c != b'_' {
                let x = digit(c)?;
                any = true;
                match v
                    .checked_mul(radix as u128)
                    .and_then(|v| v.checked_add(x as u128))
                {
                    Some(n) => v = n,
                    None => too_big = true,
                }
            }
        }
        if too_big {
            return Err(Bad::TooBig);
        }
        v
    };
    if any {
        Ok(v)
    } else {
        Err(Bad::NotNumber)
    }
}

/// Reads a whole stimulus held in memory into one value per input port per
/// cycle: a convenience for small inputs and tests, over [`StimulusReader`].
pub fn read_stimulus(
    text: &str,
    path: &str,
    ports: &[Port],
    reset: Option<&str>,
) -> Result<Vec<Vec<u128>>, ReplayError> {
    let bytes = text.as_bytes().to_vec();
    let mut r = StimulusReader::from_reader(Box::new(io::Cursor::new(bytes)), path, ports, reset)?;
    let n = ports.iter().filter(|p| p.dir == Dir::In).count();
    let mut rows = vec![];
    let mut row = vec![0u128; n];
    while r.next_row(&mut row)? {
        rows.push(row.clone());
    }
    Ok(rows)
}

/// Writes the output CSV (`cycle`, then every output port in decimal) to a
/// temporary file beside `path` (crate::fsutil::temp_path), renamed to
/// `path` by `finish`; dropped without finish => the temporary is removed.
pub struct OutputWriter {
    out: Option<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
    n_out: usize,
    cycle: u64,
    buf: Vec<u8>,
    renamed: bool,
}

impl std::fmt::Debug for OutputWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputWriter")
            .field("path", &self.path)
            .field("tmp", &self.tmp)
            .field("rows", &self.cycle)
            .finish_non_exhaustive()
    }
}

impl OutputWriter {
    /// Creates the temporary file and writes the header.
    pub fn create(path: &Path, ports: &[Port]) -> Result<OutputWriter, ReplayError> {
        let (tmp, file) = crate::fsutil::create_temp_file(path).map_err(|e| ReplayError::Io {
                path: path.display().to_string(),
                message: format!("cannot create: {e}"),
            })?;
        let mut w = OutputWriter {
            out: Some(BufWriter::with_capacity(1 << 17, file)),
            tmp,
            path: path.to_path_buf(),
            n_out: 0,
            cycle: 0,
            buf: Vec::with_capacity(256),
            renamed: false,
        };
        w.buf.extend_from_slice(b"cycle");
        for p in ports.iter().filter(|p| p.dir == Dir::Out) {
            w.buf.push(b',');
            w.buf.extend_from_slice(p.name.as_bytes());
            w.n_out += 1;
        }
        w.buf.push(b'\n');
        w.write_buf()?;
        Ok(w)
    }

    /// Writes one cycle: one value per OUTPUT port, in port order.
    ///
    /// Panics if `outputs` does not have one element per output port.
    pub fn row(&mut self, outputs: &[u128]) -> Result<(), ReplayError> {
        assert_eq!(
            outputs.len(),
            self.n_out,
            "OutputWriter::row takes one value per output port"
        );
        self.buf.clear();
        push_decimal(&mut self.buf, self.cycle as u128);
        for &v in outputs {
            self.buf.push(b',');
            push_decimal(&mut self.buf, v);
        }
        self.buf.push(b'\n');
        self.write_buf()?;
        self.cycle += 1;
        Ok(())
    }

    /// Writes one cycle whose outputs are unknown (`x` for every output
    /// port): the cycles before the first reset, when the registers hold
    /// their power-up values.
    pub fn row_unknown(&mut self) -> Result<(), ReplayError> {
        self.buf.clear();
        push_decimal(&mut self.buf, self.cycle as u128);
        for _ in 0..self.n_out {
            self.buf.extend_from_slice(b",x");
        }
        self.buf.push(b'\n');
        self.write_buf()?;
        self.cycle += 1;
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.cycle
    }

    /// Flushes, syncs and renames the temporary to the final path.
    pub fn finish(mut self) -> Result<(), ReplayError> {
        let out = self.out.take().expect("the writer is open until finish");
        let result = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            drop(file);
            std::fs::rename(&self.tmp, &self.path)
        })();
        match result {
            Ok(()) => {
                self.renamed = true;
                Ok(())
            }
            // Drop removes the temporary.
            Err(e) => Err(self.io_error(e)),
        }
    }

    fn write_buf(&mut self) -> Result<(), ReplayError> {
        let out = self.out.as_mut().expect("the writer is open until finish");
        out.write_all(&self.buf).map_err(|e| {
            let path = self.path.display().to_string();
            ReplayError::Io {
                path,
                message: format!("cannot write: {e}"),
            }
        })
    }

    fn io_error(&self, e: io::Error) -> ReplayError {
        ReplayError::Io {
            path: self.path.display().to_string(),
            message: format!("cannot write: {e}"),
        }
    }
}

impl Drop for OutputWriter {
    fn drop(&mut self) {
        if !self.renamed {
            drop(self.out.take());
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Appends `v` in decimal without allocating.
fn push_decimal(buf: &mut Vec<u8>, mut v: u128) {
    let mut digits = [0u8; 39];
    let mut i = digits.len();
    if let Ok(mut small) = u64::try_from(v) {
        loop {
            i -= 1;
            digits[i] = b'0' + (small % 10) as u8;
            small /= 10;
            if small == 0 {
                break;
            }
        }
    } else {
        while v != 0 {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Writes the output rows (one value per output port per cycle) atomically:
/// a convenience over [`OutputWriter`].
pub fn write_outputs(path: &Path, ports: &[Port], rows: &[Vec<u128>]) -> Result<(), ReplayError> {
    let mut w = OutputWriter::create(path, ports)?;
    for r in rows {
        w.row(r)?;
    }
    w.finish()
}

/// Refuses an `--out` that is the stimulus file itself, also through a
/// symlink or hard link (compares canonical paths and, on unix, (dev, inode)
/// when `out` exists).
pub fn check_distinct(stimulus: &Path, out: &Path) -> Result<(), ReplayError> {
    if same_file(stimulus, out) {
        return Err(ReplayError::Io {
            path: out.display().to_string(),
            message: format!(
                "the output would overwrite the stimulus `{}` (the same file, through another path or a link); choose another output file",
                stimulus.display()
            ),
        });
    }
    Ok(())
}

fn same_file(stimulus: &Path, out: &Path) -> bool {
    let Ok(s) = std::fs::canonicalize(stimulus) else {
        // No stimulus to overwrite; opening it will say why.
        return false;
    };
    // An `out` that does not exist cannot be the stimulus, which does.
    let Ok(o) = std::fs::canonicalize(out) else {
        return false;
    };
    if o == s {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata(stimulus), std::fs::metadata(out)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORTS: &[Port] = &[
        Port::input("rst", 1),
        Port::input("len", 4),
        Port::output("o", 1),
    ];

    /// Reads every row of `bytes` through `from_reader`.
    fn read_bytes(bytes: &[u8]) -> Result<Vec<Vec<u128>>, ReplayError> {
        read_from(
            Box::new(io::Cursor::new(bytes.to_vec())),
            PORTS,
            Some("rst"),
        )
    }

    fn read_from(
        r: Box<dyn Read>,
        ports: &[Port],
        reset: Option<&str>,
    ) -> Result<Vec<Vec<u128>>, ReplayError> {
        let mut r = StimulusReader::from_reader(r, "t.csv", ports, reset)?;
        let mut rows = vec![];
        let mut row = vec![0; ports.iter().filter(|p| p.dir == Dir::In).count()];
        while r.next_row(&mut row)? {
            rows.push(row.clone());
        }
        assert!(!r.next_row(&mut row).unwrap(), "end of file stays the end");
        Ok(rows)
    }

    /// Hands out its bytes `chunk` at a time, to split lines and CRLF pairs
    /// across reads.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
        chunk: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.chunk.min(out.len()).min(self.bytes.len() - self.at);
            out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn tmp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "ccrtl-replay-{name}-{}",
            crate::fsutil::unique_suffix()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

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
        // Order of columns, blanks, quotes, separators, upper-case prefixes.
        let rows = read_stimulus(
            " len , \"rst\"\n 0X_f ,1\n\"0b1_1\", 0\n1_0,0\t\n",
            "t.csv",
            PORTS,
            Some("rst"),
        )
        .unwrap();
        assert_eq!(rows, vec![vec![1, 15], vec![0, 3], vec![0, 10]]);
    }

    #[test]
    fn wide_values_up_to_128_bits() {
        const WIDE: &[Port] = &[Port::input("w", 128), Port::input("v", 70)];
        let max = u128::MAX.to_string();
        let text = format!(
            "w,v\n{max},0x3f_ffff_ffff_ffff_ffff\n0x{:x},0b1{}\n",
            u128::MAX - 1,
            "0".repeat(69)
        );
        let rows = read_stimulus(&text, "t.csv", WIDE, None).unwrap();
        assert_eq!(
            rows,
            vec![vec![u128::MAX, (1 << 70) - 1], vec![u128::MAX - 1, 1 << 69]]
        );
        let e = read_stimulus("w,v\n0,0b1", "t.csv", WIDE, None);
        assert_eq!(e.unwrap(), vec![vec![0, 1]]);
        let e =
            read_stimulus(&format!("w,v\n0,{}\n", 1u128 << 70), "t.csv", WIDE, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "t.csv:2:2: {} does not fit port `v` (70 bits, max {})",
                1u128 << 70,
                (1u128 << 70) - 1
            )
        );
        // Beyond 128 bits: the text as written.
        let e = read_stimulus(&format!("w,v\n{max}0,0\n"), "t.csv", WIDE, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("t.csv:2:1: {max}0 does not fit port `w` (128 bits, max {max})")
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read_stimulus("rst,len\n1,3\n0,16\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:3:2: 16 does not fit port `len` (4 bits, max 15)"
        );
        let e = read_stimulus("rst,len\n1,x\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:2:2: `x` is not an unsigned number (decimal, 0x.. or 0b..) for port `len`"
        );
        for bad in ["", "_", "0x", "0b2", "+1", "-1", "1.0", "0x1g", "1 2"] {
            let e =
                read_stimulus(&format!("rst,len\n1,{bad}\n"), "t.csv", PORTS, None).unwrap_err();
            assert!(
                e.to_string().starts_with("t.csv:2:2: `"),
                "{bad:?} gives {e}"
            );
        }
        let e = read_stimulus("rst,lenn\n1,1\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:1:2: `lenn` is not an input port of this block; the inputs are: rst, len"
        );
        let e = read_stimulus("rst,len,o\n1,1,1\n", "t.csv", PORTS, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:1:3: `o` is not an input port"),
            "{e}"
        );
        let e = read_stimulus("rst,,len\n1,1,1\n", "t.csv", PORTS, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:1:2: an empty column name is not an input port"),
            "{e}"
        );
        let e = read_stimulus("rst,len\n1,1\n0\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(e.to_string(), "t.csv:3: 1 fields, but the header has 2");
        let e = read_stimulus("rst,len\n1,1\n0,1,\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(e.to_string(), "t.csv:3: 3 fields, but the header has 2");
        let e = read_stimulus("rst,len\n0,1\n", "t.csv", PORTS, Some("rst")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:2: the first cycle must assert `rst` (the registers have no power-up value)"
        );
        let e = read_stimulus("rst,len\n\n0,1\n", "t.csv", PORTS, Some("rst")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:3: the first cycle must assert `rst`"),
            "{e}"
        );
        let e = read_stimulus("len\n1\n", "t.csv", PORTS, Some("rst")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:2: the first cycle must assert `rst`"),
            "{e}"
        );
        // Only the first cycle must assert reset.
        assert!(read_stimulus("rst\n1\n0\n", "t.csv", PORTS, Some("rst")).is_ok());
        let e = read_stimulus("len,rst,rst\n1,1,1\n", "t.csv", PORTS, None).unwrap_err();
        assert_eq!(e.to_string(), "t.csv:1:3: port `rst` has two columns");
    }

    #[test]
    fn line_numbers_are_right_with_lf_crlf_and_cr_endings() {
        for end in ["\n", "\r\n", "\r"] {
            for chunk in [1, 2, 3, 1 << 20] {
                let read = |text: String| {
                    let r = Trickle {
                        bytes: text.into_bytes(),
                        at: 0,
                        chunk,
                    };
                    read_from(Box::new(r), PORTS, Some("rst"))
                };
                let e = read(format!("rst,len{end}1,3{end}0,16{end}0,1{end}")).unwrap_err();
                assert_eq!(
                    e.to_string(),
                    "t.csv:3:2: 16 does not fit port `len` (4 bits, max 15)",
                    "{end:?} in chunks of {chunk}"
                );
                // Blank lines are skipped but counted.
                let e = read(format!("rst,len{end}{end}1,3{end} {end}0,1,2{end}")).unwrap_err();
                assert_eq!(
                    e.to_string(),
                    "t.csv:5: 3 fields, but the header has 2",
                    "{end:?} in chunks of {chunk}"
                );
                // A final line end, a blank final line, or none at all.
                for tail in [String::new(), end.to_string(), format!("{end}{end}")] {
                    let rows = read(format!("rst,len{end}1,3{end}0,5{tail}")).unwrap();
                    assert_eq!(rows, vec![vec![1, 3], vec![0, 5]], "{end:?} {tail:?}");
                }
            }
        }
        // Mixed endings in one file.
        let e = read_bytes(b"rst,len\r\n1,3\r0,1\n\r\n0,x\n").unwrap_err();
        assert!(e.to_string().starts_with("t.csv:5:2: `x`"), "{e}");
    }

    #[test]
    fn bytes_that_are_not_utf8_name_line_and_column() {
        let e = read_bytes(b"rst,len\n1,3\n0,\xff5\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:3:2: not UTF-8 text: byte 0xff at byte 3 of the line (save the file as UTF-8 or ASCII)"
        );
        // In the header.
        let e = read_bytes(b"rst,l\xe9n\n1,3\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:1:2: not UTF-8 text: byte 0xe9 at byte 6"),
            "{e}"
        );
        // In a row with the wrong number of fields, with CR endings.
        let e = read_bytes(b"rst,len\r1,3\r0,1,caf\xe9\r").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:3:3: not UTF-8 text: byte 0xe9"),
            "{e}"
        );
        // A UTF-16 file.
        let e = read_bytes(b"\xff\xfer\0s\0t\0\n\0").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.csv:1:1: not UTF-8 text: byte 0xff at byte 1"),
            "{e}"
        );
    }

    #[test]
    fn byte_order_mark_is_accepted() {
        let rows = read_bytes(b"\xEF\xBB\xBFrst,len\r\n1,2\r\n").unwrap();
        assert_eq!(rows, vec![vec![1, 2]]);
        // Only before the header.
        let e = read_bytes(b"rst,len\n\xEF\xBB\xBF1,2\n").unwrap_err();
        assert!(e.to_string().starts_with("t.csv:2:1: `\u{feff}1`"), "{e}");
    }

    #[test]
    fn empty_file_and_header_without_rows_are_refused() {
        for empty in [&b""[..], b"\n", b"\r\n\r\n", b"\xEF\xBB\xBF", b"  \n"] {
            let e = read_bytes(empty).unwrap_err();
            assert_eq!(
                e.to_string(),
                "t.csv: the stimulus is empty (a header of input port names, then one row per cycle, is needed)",
                "{empty:?}"
            );
        }
        for header_only in [&b"rst,len"[..], b"rst,len\n", b"rst,len\r\n\r\n"] {
            let r = Box::new(io::Cursor::new(header_only.to_vec()));
            let mut r = StimulusReader::from_reader(r, "t.csv", PORTS, Some("rst")).unwrap();
            let e = r.next_row(&mut [0, 0]).unwrap_err();
            assert_eq!(
                e.to_string(),
                "t.csv: the stimulus has no cycle (a header and at least one row are needed)",
                "{header_only:?}"
            );
        }
    }

    #[test]
    fn open_names_the_path() {
        let dir = tmp_dir("open");
        let missing = dir.join("missing.csv");
        let e = StimulusReader::open(&missing, PORTS, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{}: cannot open: ", missing.display())),
            "{e}"
        );
        let p = dir.join("in.csv");
        std::fs::write(&p, "rst,len\n1,2\n0,16\n").unwrap();
        let mut r = StimulusReader::open(&p, PORTS, Some("rst")).unwrap();
        let mut row = [0; 2];
        assert!(r.next_row(&mut row).unwrap());
        assert_eq!((row, r.rows(), r.line()), ([1, 2], 1, 2));
        let e = r.next_row(&mut row).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:3:2: 16 does not fit port `len` (4 bits, max 15)",
                p.display()
            )
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_line_without_end_is_refused_past_a_bound() {
        let mut text = b"rst,len\n1,2\n".to_vec();
        text.extend(std::iter::repeat_n(b'0', MAX_LINE + 10));
        let e = read_bytes(&text).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("t.csv:3: line longer than {MAX_LINE} bytes; is this a CSV stimulus?")
        );
    }

    /// Generates `rst,len` then `rows` rows on the fly, with the three line
    /// endings in turn, so that no big text exists anywhere.
    struct Generated {
        rows: u64,
        next: u64,
        pending: Vec<u8>,
        at: usize,
    }

    impl Read for Generated {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.at == self.pending.len() {
                self.pending.clear();
                self.at = 0;
                // About a few kB per refill, a size that does not divide rows.
                while self.pending.len() < 4000 && self.next <= self.rows {
                    let end: &[u8] = match self.next % 3 {
                        0 => b"\n",
                        1 => b"\r\n",
                        _ => b"\r",
                    };
                    if self.next == 0 {
                        self.pending.extend_from_slice(b"rst,len");
                    } else {
                        let rst = (self.next == 1) as u64;
                        write!(self.pending, "{rst},{}", self.next % 16).unwrap();
                    }
                    self.pending.extend_from_slice(end);
                    self.next += 1;
                }
            }
            let n = out.len().min(self.pending.len() - self.at);
            out[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn streams_two_million_generated_rows_without_accumulating() {
        let n = 2_000_000;
        let g = Generated {
            rows: n,
            next: 0,
            pending: vec![],
            at: 0,
        };
        let mut r = StimulusReader::from_reader(Box::new(g), "gen", PORTS, Some("rst")).unwrap();
        let mut row = [0u128; 2];
        let mut sum = 0u128;
        let start = std::time::Instant::now();
        while r.next_row(&mut row).unwrap() {
            sum += row[0] * 1000 + row[1];
            assert_eq!(row[1], (r.rows() % 16) as u128);
        }
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(r.rows(), n);
        assert_eq!(r.line(), n + 1);
        assert_eq!(sum, 1000 + (1..=n).map(|k| (k % 16) as u128).sum::<u128>());
        // One line is held at a time.
        assert!(r.line.capacity() <= 256, "{}", r.line.capacity());
        eprintln!(
            "{n} rows in {secs:.2} s ({:.1} M rows/s)",
            n as f64 / secs / 1e6
        );
    }

    /// Counts the bytes each thread holds, to show that streaming does not
    /// accumulate (a test binary's allocator; it forwards to `System`).
    mod counting {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::cell::Cell;

        pub struct Counting;

        thread_local! {
            static LIVE: Cell<i64> = const { Cell::new(0) };
            static PEAK: Cell<i64> = const { Cell::new(0) };
        }

        fn add(n: i64) {
            let _ = LIVE.try_with(|l| {
                let v = l.get() + n;
                l.set(v);
                let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
            });
        }

        unsafe impl GlobalAlloc for Counting {
            unsafe fn alloc(&self, l: Layout) -> *mut u8 {
                let p = unsafe { System.alloc(l) };
                if !p.is_null() {
                    add(l.size() as i64);
                }
                p
            }
            unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
                unsafe { System.dealloc(p, l) };
                add(-(l.size() as i64));
            }
            unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
                let q = unsafe { System.realloc(p, l, size) };
                if !q.is_null() {
                    add(size as i64 - l.size() as i64);
                }
                q
            }
        }

        #[global_allocator]
        static A: Counting = Counting;

        /// Runs `f` and returns the most bytes this thread held at once
        /// during it, above what it held before.
        pub fn peak_during(f: impl FnOnce()) -> i64 {
            let base = LIVE.with(|l| l.get());
            PEAK.with(|p| p.set(base));
            f();
            PEAK.with(|p| p.get()) - base
        }
    }

    #[test]
    fn reader_and_writer_hold_bounded_memory() {
        let dir = tmp_dir("memory");
        let n = 300_000;
        let peak = counting::peak_during(|| {
            let g = Generated {
                rows: n,
                next: 0,
                pending: vec![],
                at: 0,
            };
            let mut r =
                StimulusReader::from_reader(Box::new(g), "gen", PORTS, Some("rst")).unwrap();
            let mut w = OutputWriter::create(&dir.join("out.csv"), PORTS).unwrap();
            let mut row = [0u128; 2];
            while r.next_row(&mut row).unwrap() {
                w.row(&[row[1] & 1]).unwrap();
            }
            assert_eq!((r.rows(), w.rows()), (n, n));
            w.finish().unwrap();
        });
        // Two 128 kB buffers and a few small ones; the rows alone would take
        // megabytes in memory (300,000 rows of input, about 2.5 MB of output).
        assert!(peak < 400_000, "peak {peak} bytes");
        let out = std::fs::read_to_string(dir.join("out.csv")).unwrap();
        assert_eq!(out.lines().count() as u64, n + 1);
        assert!(
            out.starts_with("cycle,o\n0,1\n1,0\n2,1\n"),
            "{}",
            &out[..40]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn output_writer_streams_and_renames_on_finish_only() {
        const OUT: &[Port] = &[
            Port::input("rst", 1),
            Port::output("a", 1),
            Port::output("b", 128),
        ];
        let dir = tmp_dir("out");
        let path = dir.join("out.csv");
        std::fs::write(&path, "old").unwrap();
        let mut w = OutputWriter::create(&path, OUT).unwrap();
        w.row(&[1, 0]).unwrap();
        w.row(&[0, u128::MAX]).unwrap();
        w.row(&[1, 1 << 64]).unwrap();
        assert_eq!(w.rows(), 3);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "old",
            "not yet replaced"
        );
        assert_eq!(entries(&dir).len(), 2, "a temporary beside it");
        w.finish().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("cycle,a,b\n0,1,0\n1,0,{}\n2,1,{}\n", u128::MAX, 1u128 << 64)
        );
        assert_eq!(entries(&dir), vec!["out.csv"], "no temporary left");
        // Dropped without finish: nothing written, no temporary left.
        let other = dir.join("other.csv");
        let mut w = OutputWriter::create(&other, OUT).unwrap();
        w.row(&[1, 2]).unwrap();
        drop(w);
        assert_eq!(entries(&dir), vec!["out.csv"]);
        // The wrapper writes the same file.
        write_outputs(
            &other,
            OUT,
            &[vec![1, 0], vec![0, u128::MAX], vec![1, 1 << 64]],
        )
        .unwrap();
        assert_eq!(
            std::fs::read(&other).unwrap(),
            std::fs::read(&path).unwrap()
        );
        // An unusable directory is named.
        let e = OutputWriter::create(&dir.join("no/such/dir.csv"), OUT).unwrap_err();
        assert!(
            e.to_string().contains("no/such/dir.csv: cannot create: "),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn out_may_not_be_the_stimulus_by_any_path() {
        let dir = tmp_dir("distinct");
        let stim = dir.join("in.csv");
        std::fs::write(&stim, "rst\n1\n").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        let refused = |out: &Path| {
            let e = check_distinct(&stim, out).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "{}: the output would overwrite the stimulus `{}` (the same file, through another path or a link); choose another output file",
                    out.display(),
                    stim.display()
                )
            );
        };
        refused(&stim);
        refused(&dir.join("sub/../in.csv"));
        refused(&dir.join("./in.csv"));
        #[cfg(unix)]
        {
            let sym = dir.join("sym.csv");
            std::os::unix::fs::symlink(&stim, &sym).unwrap();
            refused(&sym);
            let hard = dir.join("hard.csv");
            std::fs::hard_link(&stim, &hard).unwrap();
            refused(&hard);
            // The stimulus given through a link, the output by its name.
            let e = check_distinct(&hard, &stim);
            assert!(e.is_err());
        }
        // Other files, existing or not, are fine.
        let other = dir.join("other.csv");
        check_distinct(&stim, &other).unwrap();
        std::fs::write(&other, "rst\n1\n").unwrap();
        check_distinct(&stim, &other).unwrap();
        check_distinct(&stim, &dir.join("sub/in.csv")).unwrap();
        check_distinct(&stim, &dir.join("nowhere/in.csv")).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }
}
