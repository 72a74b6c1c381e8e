//! Runs a Verilog file under Verilator, one clock cycle per call.
//!
//! The `verilated`/`verilator` crates do not build against Verilator 5, so
//! this driver does the work itself, at run time:
//! 1. `verilator --cc` turns the file into C++ (top module given by name);
//! 2. the port list is read back from the generated class header (`VL_IN8`,
//!    `VL_OUTW`, ... lines) and checked against the block's port list: a
//!    missing port or a port of another width is an error naming it;
//! 3. a small `extern "C"` shim is generated from the port list and compiled
//!    with the generated C++ into a shared library, cached under
//!    `build/verilator/<sha256>/` (hash of the Verilog text, the top, the port
//!    list, the shim version and the Verilator version);
//! 4. the library is loaded with `dlopen` (libloading).
//!
//! All input ports (the clock excluded) travel in one flat array of 32-bit
//! words, port after port in the order of the port list, each port taking
//! `ceil(width / 32)` words, least significant word first; the outputs come
//! back the same way. A port wider than 64 bits is thus no special case.
//! One FFI call runs one cycle: set the inputs with the clock low, evaluate,
//! read the outputs (the values seen during the cycle), raise the clock,
//! evaluate.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::ports::{Dir, Port};

/// Changes whenever the generated shim changes, to invalidate the cache.
const SHIM_VERSION: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum VerilatorError {
    #[error("cannot run `{tool}`: {source} (run `make run` or scripts/setup.sh to install it)")]
    Tool {
        tool: String,
        source: std::io::Error,
    },
    #[error("`{cmd}` failed:\n{output}")]
    Failed { cmd: String, output: String },
    #[error("{path}: {message}")]
    Ports { path: String, message: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("loading {path}: {message}")]
    Load { path: String, message: String },
}

/// A Verilog design compiled for simulation.
pub struct Model {
    lib: Arc<libloading::Library>,
    new: unsafe extern "C" fn() -> *mut std::ffi::c_void,
    free: unsafe extern "C" fn(*mut std::ffi::c_void),
    cycle: unsafe extern "C" fn(*mut std::ffi::c_void, *const u32, *mut u32),
    in_words: usize,
    out_words: usize,
    /// Directory of the cached build.
    pub dir: PathBuf,
}

/// One running instance of a [`Model`].
pub struct Instance {
    _lib: Arc<libloading::Library>,
    ptr: *mut std::ffi::c_void,
    free: unsafe extern "C" fn(*mut std::ffi::c_void),
    cycle: unsafe extern "C" fn(*mut std::ffi::c_void, *const u32, *mut u32),
    in_words: usize,
    out_words: usize,
}

// The instance owns its Verilator context; nothing in it is shared.
unsafe impl Send for Instance {}

impl Drop for Instance {
    fn drop(&mut self) {
        unsafe { (self.free)(self.ptr) }
    }
}

impl Instance {
    /// One clock cycle. `inputs` and `outputs` are the packed word arrays.
    #[inline]
    pub fn cycle(&mut self, inputs: &[u32], outputs: &mut [u32]) {
        assert_eq!(inputs.len(), self.in_words);
        assert_eq!(outputs.len(), self.out_words);
        unsafe { (self.cycle)(self.ptr, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }
}

impl Model {
    pub fn instantiate(&self) -> Instance {
        let ptr = unsafe { (self.new)() };
        assert!(!ptr.is_null(), "ccrtl_new returned null");
        Instance {
            _lib: self.lib.clone(),
            ptr,
            free: self.free,
            cycle: self.cycle,
            in_words: self.in_words,
            out_words: self.out_words,
        }
    }

    /// Builds (or finds in the cache) and loads `verilog` with top module
    /// `top`, clock port `clock` and the given ports (clock not included).
    /// `source_name` names the file in error messages.
    pub fn build(
        verilog: &str,
        source_name: &str,
        top: &str,
        clock: &str,
        ports: &[Port],
        cache_root: &Path,
    ) -> Result<Model, VerilatorError> {
        let version = tool_output("verilator", &["--version"])?;
        let mut h = Sha256::new();
        h.update(verilog.as_bytes());
        h.update(format!("\0{top}\0{clock}\0{SHIM_VERSION}\0{version}\0").as_bytes());
        for p in ports {
            h.update(format!("{}:{}:{:?};", p.name, p.width, p.dir).as_bytes());
        }
        let key = hex(&h.finalize()[..12]);
        let dir = cache_root.join(&key);
        let lib_path = dir.join("libdut.so");
        if !lib_path.exists() {
            std::fs::create_dir_all(cache_root)?;
            let tmp = cache_root.join(format!("{key}.tmp{}", crate::fsutil::unique_suffix()));
            let _ = std::fs::remove_dir_all(&tmp);
            std::fs::create_dir_all(&tmp)?;
            let result = compile(
                verilog,
                source_name,
                top,
                clock,
                ports,
                &tmp,
                cache_root,
                &version,
            );
            if let Err(e) = result {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
            // Another process may have finished the same build meanwhile.
            if std::fs::rename(&tmp, &dir).is_err() {
                let _ = std::fs::remove_dir_all(&tmp);
            }
        }
        load(&lib_path, ports, dir)
    }
}

fn load(lib_path: &Path, ports: &[Port], dir: PathBuf) -> Result<Model, VerilatorError> {
    let err = |e: libloading::Error| VerilatorError::Load {
        path: lib_path.display().to_string(),
        message: e.to_string(),
    };
    unsafe {
        let lib = libloading::Library::new(lib_path).map_err(err)?;
        let new = *lib
            .get::<unsafe extern "C" fn() -> *mut std::ffi::c_void>(b"ccrtl_new")
            .map_err(err)?;
        let free = *lib
            .get::<unsafe extern "C" fn(*mut std::ffi::c_void)>(b"ccrtl_free")
            .map_err(err)?;
        let cycle = *lib
            .get::<unsafe extern "C" fn(*mut std::ffi::c_void, *const u32, *mut u32)>(
                b"ccrtl_cycle",
            )
            .map_err(err)?;
        Ok(Model {
            lib: Arc::new(lib),
            new,
            free,
            cycle,
            in_words: words_of(ports, Dir::In),
            out_words: words_of(ports, Dir::Out),
            dir,
        })
    }
}

/// Number of 32-bit words the ports of one direction take.
pub fn words_of(ports: &[Port], dir: Dir) -> usize {
    ports
        .iter()
        .filter(|p| p.dir == dir)
        .map(|p| p.words())
        .sum()
}

#[allow(clippy::too_many_arguments)]
fn compile(
    verilog: &str,
    source_name: &str,
    top: &str,
    clock: &str,
    ports: &[Port],
    dir: &Path,
    cache_root: &Path,
    version: &str,
) -> Result<(), VerilatorError> {
    let vfile = dir.join(format!("{top}.v"));
    std::fs::write(&vfile, verilog)?;
    let obj = dir.join("obj");
    run(Command::new("verilator")
        .args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast"])
        .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
        .args(["--top-module", top, "--prefix", "Vdut", "-Mdir"])
        .arg(&obj)
        .arg(&vfile))?;

    let header = std::fs::read_to_string(obj.join("Vdut.h"))?;
    check_ports(&header, source_name, top, clock, ports)?;

    // One translation unit (the generated C++ and the shim): Verilator's
    // headers are parsed once, which makes a build take ~1.5 s, not ~8 s.
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&obj)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    let mut unity = String::new();
    for src in &sources {
        let name = src.file_name().map(|n| n.to_string_lossy().into_owned());
        let _ = writeln!(unity, "#include \"{}\"", name.unwrap_or_default());
    }
    unity.push_str(&shim_source(clock, ports));
    std::fs::write(dir.join("unity.cpp"), unity)?;

    let root = tool_output("verilator", &["--getenv", "VERILATOR_ROOT"])?;
    let include = PathBuf::from(root.trim()).join("include");
    let runtime = runtime_objects(&include, cache_root, version)?;
    run(Command::new("g++")
        .args(["-shared", "-fPIC", "-O2", "-std=c++17", "-w", "-pthread"])
        .arg(format!("-I{}", include.display()))
        .arg(format!("-I{}", include.join("vltstd").display()))
        .arg(format!("-I{}", obj.display()))
        .arg(dir.join("unity.cpp"))
        .args(&runtime)
        .arg("-o")
        .arg(dir.join("libdut.so")))?;
    Ok(())
}

/// Verilator's runtime, compiled once per Verilator version and shared by
/// every model.
fn runtime_objects(
    include: &Path,
    cache_root: &Path,
    version: &str,
) -> Result<Vec<PathBuf>, VerilatorError> {
    let mut h = Sha256::new();
    h.update(version.as_bytes());
    let dir = cache_root.join(format!("runtime-{}", hex(&h.finalize()[..6])));
    let names = ["verilated", "verilated_threads"];
    let objs: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}.o"))).collect();
    if objs.iter().all(|o| o.exists()) {
        return Ok(objs);
    }
    let tmp = cache_root.join(format!("runtime.tmp{}", crate::fsutil::unique_suffix()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    for n in names {
        run(Command::new("g++")
            .args(["-c", "-fPIC", "-O2", "-std=c++17", "-w", "-pthread"])
            .arg(format!("-I{}", include.display()))
            .arg(format!("-I{}", include.join("vltstd").display()))
            .arg(include.join(format!("{n}.cpp")))
            .arg("-o")
            .arg(tmp.join(format!("{n}.o"))))?;
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(objs)
}

/// A port as Verilator declared it in the generated header.
#[derive(Debug, PartialEq, Eq)]
struct DeclaredPort {
    name: String,
    dir: Dir,
    width: u32,
}

/// Reads `VL_IN8(&name,msb,lsb);`-style lines of the generated header.
fn declared_ports(header: &str) -> Vec<DeclaredPort> {
    let mut out = vec![];
    for line in header.lines() {
        let l = line.trim();
        let (dir, rest) = if let Some(r) = l.strip_prefix("VL_IN") {
            (Dir::In, r)
        } else if let Some(r) = l.strip_prefix("VL_OUT") {
            (Dir::Out, r)
        } else {
            continue;
        };
        let Some(open) = rest.find("(&") else {
            continue;
        };
        let Some(close) = rest.rfind(')') else {
            continue;
        };
        let args: Vec<&str> = rest[open + 2..close].split(',').map(str::trim).collect();
        if args.len() < 3 {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (args[1].parse::<i64>(), args[2].parse::<i64>()) else {
            continue;
        };
        out.push(DeclaredPort {
            name: args[0].to_string(),
            dir,
            width: (msb - lsb).unsigned_abs() as u32 + 1,
        });
    }
    out
}

fn check_ports(
    header: &str,
    source_name: &str,
    top: &str,
    clock: &str,
    ports: &[Port],
) -> Result<(), VerilatorError> {
    let declared = declared_ports(header);
    let mut problems = vec![];
    let find = |n: &str| declared.iter().find(|d| d.name == n);
    match find(clock) {
        Some(d) if d.dir == Dir::In && d.width == 1 => {}
        Some(_) => problems.push(format!("clock `{clock}` must be a 1-bit input")),
        None => problems.push(format!("clock input `{clock}` is missing")),
    }
    for p in ports {
        match find(p.name) {
            None => problems.push(format!(
                "{} port `{}` ({} bits) is missing",
                p.dir, p.name, p.width
            )),
            Some(d) if d.dir != p.dir => problems.push(format!(
                "port `{}` is an {}, expected an {}",
                p.name, d.dir, p.dir
            )),
            Some(d) if d.width != p.width => problems.push(format!(
                "port `{}` is {} bits wide, expected {}",
                p.name, d.width, p.width
            )),
            Some(_) => {}
        }
    }
    for d in &declared {
        if d.name != clock && !ports.iter().any(|p| p.name == d.name) {
            problems.push(format!("unexpected {} port `{}`", d.dir, d.name));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(VerilatorError::Ports {
            path: source_name.to_string(),
            message: format!(
                "module `{top}` does not have the ports of the block:\n  {}",
                problems.join("\n  ")
            ),
        })
    }
}

/// C++ for `ccrtl_new`, `ccrtl_free` and `ccrtl_cycle`.
fn shim_source(clock: &str, ports: &[Port]) -> String {
    let mut s = String::new();
    s.push_str("// Generated by ccrtl-sim: packed-word cycle interface.\n");
    s.push_str("#include <cstdint>\n#include \"verilated.h\"\n#include \"Vdut.h\"\n");
    s.push_str("struct Ctx { VerilatedContext ctx; Vdut* m; };\n");
    s.push_str("extern \"C\" {\n");
    s.push_str("void* ccrtl_new() { Ctx* c = new Ctx; c->m = new Vdut(&c->ctx, \"dut\");\n");
    let _ = writeln!(s, "  c->m->{clock} = 0; c->m->eval(); return c; }}");
    s.push_str(
        "void ccrtl_free(void* p) { Ctx* c = (Ctx*)p; c->m->final(); delete c->m; delete c; }\n",
    );
    s.push_str("void ccrtl_cycle(void* p, const uint32_t* in, uint32_t* out) {\n");
    s.push_str("  Vdut* m = ((Ctx*)p)->m;\n");
    let _ = writeln!(s, "  m->{clock} = 0;");
    let mut off = 0;
    for p in ports.iter().filter(|p| p.dir == Dir::In) {
        let n = p.name;
        match p.width {
            0..=32 => {
                let _ = writeln!(s, "  m->{n} = in[{off}];");
            }
            33..=64 => {
                let _ = writeln!(
                    s,
                    "  m->{n} = (uint64_t)in[{off}] | ((uint64_t)in[{}] << 32);",
                    off + 1
                );
            }
            _ => {
                for k in 0..p.words() {
                    let _ = writeln!(s, "  m->{n}[{k}] = in[{}];", off + k);
                }
            }
        }
        off += p.words();
    }
    s.push_str("  m->eval();\n");
    let mut off = 0;
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        let n = p.name;
        match p.width {
            0..=32 => {
                let _ = writeln!(s, "  out[{off}] = (uint32_t)m->{n};");
            }
            33..=64 => {
                let _ = writeln!(s, "  out[{off}] = (uint32_t)m->{n};");
                let _ = writeln!(
                    s,
                    "  out[{}] = (uint32_t)((uint64_t)m->{n} >> 32);",
                    off + 1
                );
            }
            _ => {
                for k in 0..p.words() {
                    let _ = writeln!(s, "  out[{}] = m->{n}[{k}];", off + k);
                }
            }
        }
        off += p.words();
    }
    let _ = writeln!(s, "  m->{clock} = 1; m->eval();");
    s.push_str("}\n}\n");
    s
}

fn run(cmd: &mut Command) -> Result<(), VerilatorError> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| VerilatorError::Tool {
        tool: cmd.get_program().to_string_lossy().into_owned(),
        source: e,
    })?;
    if out.status.success() {
        Ok(())
    } else {
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        // Keep the message readable: the first lines carry the cause.
        let text: String = text.lines().take(40).collect::<Vec<_>>().join("\n");
        Err(VerilatorError::Failed {
            cmd: shown,
            output: text,
        })
    }
}

fn tool_output(tool: &str, args: &[&str]) -> Result<String, VerilatorError> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| VerilatorError::Tool {
            tool: tool.to_string(),
            source: e,
        })?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_ports_are_parsed_with_widths() {
        let h = "    VL_IN8(&clk,0,0);\n    VL_IN16(&s_enq_len,13,0);\n    VL_OUTW(&flow,103,0,4);\n    VL_OUT64(&x,47,0);\n";
        let d = declared_ports(h);
        assert_eq!(
            d,
            vec![
                DeclaredPort {
                    name: "clk".into(),
                    dir: Dir::In,
                    width: 1
                },
                DeclaredPort {
                    name: "s_enq_len".into(),
                    dir: Dir::In,
                    width: 14
                },
                DeclaredPort {
                    name: "flow".into(),
                    dir: Dir::Out,
                    width: 104
                },
                DeclaredPort {
                    name: "x".into(),
                    dir: Dir::Out,
                    width: 48
                },
            ]
        );
    }
}
