//! VCD traces of a checked run: the inputs, the golden model's outputs
//! (`expected`), the design's outputs (`actual`) and a `mismatch` flag, one
//! sample per cycle (10 ns), with a clock whose rising edge ends each cycle.
//! GTKWave opens them. The file is written to a temporary name and renamed
//! when complete.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use vcd::{IdCode, TimescaleUnit, Value};

use crate::ports::{Dir, Port};

/// The file, shared with the vcd writer so it can be flushed (with its
/// error seen) at the end.
#[derive(Clone)]
struct Shared(Rc<RefCell<BufWriter<File>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

pub struct VcdTrace {
    w: vcd::Writer<Shared>,
    file: Shared,
    tmp: PathBuf,
    path: PathBuf,
    clk: IdCode,
    mismatch: IdCode,
    /// Inputs, then expected outputs, then actual outputs: id and width.
    vars: Vec<(IdCode, u32)>,
    /// Last value written of each var (None before the first cycle).
    last: Vec<Option<u128>>,
    done: bool,
}

impl Drop for VcdTrace {
    /// A trace that was not finished (an error on the way) leaves no file.
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

impl VcdTrace {
    pub fn create(path: &Path, block: &str, ports: &[Port]) -> std::io::Result<VcdTrace> {
        let (tmp, file) = crate::fsutil::create_temp_file(path)?;
        let file = Shared(Rc::new(RefCell::new(BufWriter::new(file))));
        let mut w = vcd::Writer::new(file.clone());
        w.timescale(1, TimescaleUnit::NS)?;
        w.add_module(&format!("ccrtl_{block}"))?;
        let clk = w.add_wire(1, "clk")?;
        let mismatch = w.add_wire(1, "mismatch")?;
        let mut ins = vec![];
        for p in ports.iter().filter(|p| p.dir == Dir::In) {
            ins.push((w.add_wire(p.width, p.name)?, p.width));
        }
        let scoped = |w: &mut vcd::Writer<_>, scope: &str| -> std::io::Result<Vec<_>> {
            w.add_module(scope)?;
            let mut v = vec![];
            for p in ports.iter().filter(|p| p.dir == Dir::Out) {
                v.push((w.add_wire(p.width, p.name)?, p.width));
            }
            w.upscope()?;
            Ok(v)
        };
        let mut vars = ins;
        vars.extend(scoped(&mut w, "expected")?);
        vars.extend(scoped(&mut w, "actual")?);
        w.upscope()?;
        w.enddefinitions()?;
        Ok(VcdTrace {
            w,
            file,
            tmp,
            path: path.to_path_buf(),
            clk,
            mismatch,
            last: vec![None; vars.len()],
            vars,
            done: false,
        })
    }

    /// One cycle's values (inputs, expected outputs, actual outputs).
    pub fn cycle(
        &mut self,
        cycle: u64,
        inputs: &[u128],
        expected: &[u128],
        actual: &[u128],
    ) -> std::io::Result<()> {
        let t = cycle * 10;
        self.w.timestamp(t)?;
        self.w.change_scalar(self.clk, Value::V0)?;
        let mism = expected != actual;
        self.w
            .change_scalar(self.mismatch, if mism { Value::V1 } else { Value::V0 })?;
        let values = inputs.iter().chain(expected).chain(actual);
        for (k, (&(id, width), &v)) in self.vars.iter().zip(values).enumerate() {
            if self.last[k] == Some(v) {
                continue;
            }
            self.last[k] = Some(v);
            if width == 1 {
                self.w
                    .change_scalar(id, if v & 1 == 1 { Value::V1 } else { Value::V0 })?;
            } else {
                let bits: Vec<Value> = (0..width)
                    .rev()
                    .map(|b| {
                        if (v >> b) & 1 == 1 {
                            Value::V1
                        } else {
                            Value::V0
                        }
                    })
                    .collect();
                self.w.change_vector(id, &bits)?;
            }
        }
        self.w.timestamp(t + 5)?;
        self.w.change_scalar(self.clk, Value::V1)?;
        Ok(())
    }

    /// Flushes and gives the file its final name.
    pub fn finish(mut self, end_cycle: u64) -> std::io::Result<PathBuf> {
        self.w.timestamp(end_cycle * 10)?;
        self.file.flush()?;
        self.file.0.borrow().get_ref().sync_all()?;
        std::fs::rename(&self.tmp, &self.path)?;
        self.done = true;
        Ok(self.path.clone())
    }
}
