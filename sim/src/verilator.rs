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
//! One FFI call runs a batch of cycles; each cycle sets the inputs with the
//! clock low, evaluates, reads the outputs (the values seen during the
//! cycle), raises the clock and evaluates. A design that uses only its
//! clock's rising edge (no `negedge` in its text, no edge of another input,
//! no cell library) is verilated inside a generated wrapper that does the
//! same in one evaluation a cycle ([`wrapper_source`]): Verilator 5
//! evaluates the logic of the inputs in every evaluation, and the second
//! one of a cycle did it again on unchanged inputs. The design alone is
//! verilated first for the port check.
//!
//! Power-up state is random: the model is verilated with `--x-initial unique
//! --x-assign unique` and every instance is created with a seed of its own
//! (`Instance::seed`), so a register or memory the design relies on without
//! resetting it shows up as a mismatch, and the seed reproduces it.
//!
//! `$finish`, `$stop`, `$fatal` and failing assertions (`--assert`) in the
//! design never end the process: Verilator's `vl_finish`, `vl_stop` and
//! `vl_fatal` are replaced (`VL_USER_*`) by functions that record the event
//! with its file and line; the batch stops at that cycle and the caller
//! gets a [`DesignStop`].

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::ports::{Dir, Port};

/// Changes whenever the generated shim changes, to invalidate the cache.
const SHIM_VERSION: u32 = 13;

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

type NewFn = unsafe extern "C" fn(u32) -> *mut std::ffi::c_void;
type FreeFn = unsafe extern "C" fn(*mut std::ffi::c_void);
type CyclesFn = unsafe extern "C" fn(*mut std::ffi::c_void, u64, *const u32, *mut u32) -> u64;
type EventFn = unsafe extern "C" fn(*mut std::ffi::c_void, *mut u8, u64) -> i32;

/// A Verilog design compiled for simulation.
pub struct Model {
    lib: Arc<libloading::Library>,
    new: NewFn,
    free: FreeFn,
    cycles: CyclesFn,
    event: EventFn,
    in_words: usize,
    out_words: usize,
    /// Directory of the cached build.
    pub dir: PathBuf,
    /// The name of the Verilog file, for messages.
    source_name: String,
    /// The name the file had when it was verilated (in Verilator's messages).
    verilated_name: String,
}

/// Verilog read by Verilator beside the design: the cell simulation models
/// of a synthesized netlist (vendor files, read where they are installed),
/// with the options they need.
#[derive(Debug, Clone, Default)]
pub struct CellLibrary {
    pub files: Vec<PathBuf>,
    pub include_dirs: Vec<PathBuf>,
    /// Extra Verilator options (defines, warning waivers).
    pub args: Vec<String>,
}

/// The design ended the simulation itself: `$finish`, `$stop`, `$fatal` or
/// a failing assertion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesignStop {
    /// `$finish`, `$stop` or `$fatal` (assertions report as `$stop` or
    /// `$fatal` with their message).
    pub kind: &'static str,
    /// `file:line: message` as Verilator gives it, with the user's file name.
    pub message: String,
}

impl std::fmt::Display for DesignStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the design called {}: {}", self.kind, self.message)
    }
}

/// One running instance of a [`Model`].
pub struct Instance {
    _lib: Arc<libloading::Library>,
    ptr: *mut std::ffi::c_void,
    free: FreeFn,
    cycles: CyclesFn,
    event: EventFn,
    in_words: usize,
    out_words: usize,
    seed: u32,
    source_name: String,
    verilated_name: String,
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
    pub fn cycle(&mut self, inputs: &[u32], outputs: &mut [u32]) -> Result<(), DesignStop> {
        self.cycles(1, inputs, outputs).map_err(|(_, why)| why)
    }

    /// `n` clock cycles in one call: `inputs` holds `n` packed input arrays
    /// one after the other, `outputs` receives `n` packed output arrays.
    /// If the design stops itself in cycle `k`, the outputs of cycles
    /// `0..k` are valid and the error says why.
    pub fn cycles(
        &mut self,
        n: usize,
        inputs: &[u32],
        outputs: &mut [u32],
    ) -> Result<(), (usize, DesignStop)> {
        assert_eq!(inputs.len(), n * self.in_words);
        assert_eq!(outputs.len(), n * self.out_words);
        let done =
            unsafe { (self.cycles)(self.ptr, n as u64, inputs.as_ptr(), outputs.as_mut_ptr()) }
                as usize;
        if done == n {
            return Ok(());
        }
        let mut buf = vec![0u8; 1024];
        let kind = unsafe { (self.event)(self.ptr, buf.as_mut_ptr(), buf.len() as u64) };
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let raw = String::from_utf8_lossy(&buf[..end]).into_owned();
        let message = raw.replace(&self.verilated_name, &self.source_name);
        let kind = match kind {
            1 => "$finish",
            2 => "$stop",
            _ => "$fatal",
        };
        Err((done, DesignStop { kind, message }))
    }

    /// The seed of this instance's random power-up state.
    pub fn seed(&self) -> u32 {
        self.seed
    }
}

impl Model {
    /// An instance whose registers and memories start from random values
    /// drawn with `seed` (any value; 0 is mapped to 1).
    pub fn instantiate(&self, seed: u32) -> Instance {
        let seed = (seed & 0x7fff_ffff).max(1);
        let ptr = unsafe { (self.new)(seed) };
        assert!(!ptr.is_null(), "ccrtl_new returned null");
        Instance {
            _lib: self.lib.clone(),
            ptr,
            free: self.free,
            cycles: self.cycles,
            event: self.event,
            in_words: self.in_words,
            out_words: self.out_words,
            seed,
            source_name: self.source_name.clone(),
            verilated_name: self.verilated_name.clone(),
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
        Self::build_with(verilog, source_name, top, clock, ports, cache_root, None, false)
    }

    /// [`Model::build`] compiled for a short build rather than a fast
    /// simulation ([`cxx_opt`]): a model that runs a few million cycles
    /// once (a planted mutant, a test's run).
    pub fn build_quick(
        verilog: &str,
        source_name: &str,
        top: &str,
        clock: &str,
        ports: &[Port],
        cache_root: &Path,
    ) -> Result<Model, VerilatorError> {
        Self::build_with(verilog, source_name, top, clock, ports, cache_root, None, true)
    }

    /// [`Model::build`] with a cell library verilated beside the file (a
    /// gate-level netlist's cell simulation models); `quick` for a short
    /// build rather than a fast simulation ([`cxx_opt`]), as a synthesized
    /// netlist is.
    #[allow(clippy::too_many_arguments)]
    pub fn build_with(
        verilog: &str,
        source_name: &str,
        top: &str,
        clock: &str,
        ports: &[Port],
        cache_root: &Path,
        library: Option<&CellLibrary>,
        quick: bool,
    ) -> Result<Model, VerilatorError> {
        let version = tool_output("verilator", &["--version"])?;
        let mut h = Sha256::new();
        h.update(verilog.as_bytes());
        h.update(format!("\0{top}\0{clock}\0{SHIM_VERSION}\0{version}\0").as_bytes());
        if let Some(lib) = library {
            // The models' text and every option they are verilated with.
            for f in &lib.files {
                h.update(f.display().to_string().as_bytes());
                h.update(std::fs::read(f)?);
            }
            for d in &lib.include_dirs {
                h.update(d.display().to_string().as_bytes());
            }
            h.update(lib.args.join(" ").as_bytes());
        }
        // Every flag the model is compiled with.
        h.update(cxx_opt(quick).as_bytes());
        h.update(USER_HOOKS.join(" ").as_bytes());
        h.update(PRINTF_HEADER.as_bytes());
        for p in ports {
            h.update(format!("{}:{}:{:?};", p.name, p.width, p.dir).as_bytes());
        }
        let key = hex(&h.finalize()[..12]);
        let dir = cache_root.join(&key);
        let lib_path = dir.join("libdut.so");
        if !lib_path.exists() {
            std::fs::create_dir_all(cache_root)?;
            let tmp = cache_root.join(format!("{key}.tmp{}", crate::fsutil::unique_suffix()));
            crate::fsutil::create_temp_dir(&tmp)?;
            let result = compile(
                verilog,
                source_name,
                top,
                clock,
                ports,
                &tmp,
                cache_root,
                &version,
                library,
                quick,
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
        let mut m = load(&lib_path, ports, dir)?;
        m.source_name = source_name.to_string();
        m.verilated_name = verilated_name(top);
        Ok(m)
    }
}

/// The file name the Verilog has when Verilator reads it (relative to the
/// build directory, so messages can be given the user's name back).
fn verilated_name(top: &str) -> String {
    format!("{top}.v")
}

fn load(lib_path: &Path, ports: &[Port], dir: PathBuf) -> Result<Model, VerilatorError> {
    let err = |e: libloading::Error| VerilatorError::Load {
        path: lib_path.display().to_string(),
        message: e.to_string(),
    };
    unsafe {
        let lib = libloading::Library::new(lib_path).map_err(err)?;
        let new = *lib.get::<NewFn>(b"ccrtl_new").map_err(err)?;
        let free = *lib.get::<FreeFn>(b"ccrtl_free").map_err(err)?;
        let cycles = *lib.get::<CyclesFn>(b"ccrtl_cycles").map_err(err)?;
        let event = *lib.get::<EventFn>(b"ccrtl_event").map_err(err)?;
        Ok(Model {
            lib: Arc::new(lib),
            new,
            free,
            cycles,
            event,
            in_words: words_of(ports, Dir::In),
            out_words: words_of(ports, Dir::Out),
            dir,
            source_name: String::new(),
            verilated_name: String::new(),
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
    library: Option<&CellLibrary>,
    quick: bool,
) -> Result<(), VerilatorError> {
    let vname = verilated_name(top);
    let mut extra: Vec<String> = vec![];
    if let Some(lib) = library {
        extra.extend(lib.args.iter().cloned());
        extra.extend(
            lib.include_dirs
                .iter()
                .map(|d| format!("-I{}", d.display())),
        );
        extra.extend(lib.files.iter().map(|f| f.display().to_string()));
    }
    std::fs::write(dir.join(&vname), verilog)?;
    let obj = dir.join("obj");
    let order = single_eval(verilog, library, top, clock, ports);
    let wrapped = order.is_some();
    // The design alone first: its generated header gives the ports to
    // check (and, without the wrapper, it is the model).
    let design_dir = if wrapped { "design" } else { "obj" };
    // Verilator runs in the build directory on the file's bare name, so its
    // messages (and the file names compiled into the model) can be given
    // the user's file name back.
    run(
        verilator_command(dir, top, design_dir)
            .arg(&vname)
            .args(&extra),
        Some((&vname, source_name)),
    )?;

    let header = std::fs::read_to_string(dir.join(design_dir).join("Vdut.h"))?;
    check_ports(&header, source_name, top, clock, ports)?;

    if let Some(order) = &order {
        std::fs::write(
            dir.join(WRAPPER_FILE),
            wrapper_source(top, clock, ports, order),
        )?;
        run(
            verilator_command(dir, WRAPPER, "obj")
                .arg(WRAPPER_FILE)
                .arg(&vname),
            Some((&vname, source_name)),
        )?;
    }

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
    unity.push_str(&shim_source(clock, ports, wrapped));
    std::fs::write(dir.join("unity.cpp"), unity)?;

    let root = tool_output("verilator", &["--getenv", "VERILATOR_ROOT"])?;
    let include = PathBuf::from(root.trim()).join("include");
    let runtime = runtime_objects(&include, cache_root, version)?;
    // A quick build includes Verilator's header precompiled (with the
    // declaration of `ccrtl_printf`); a build for speed parses it.
    let first = if quick {
        precompiled_header(&include, cache_root, version)?
    } else {
        printf_header(dir)?
    };
    run(
        Command::new("g++")
            .args(model_cxx_flags(quick))
            .arg("-shared")
            .arg("-include")
            .arg(first)
            .arg(format!("-I{}", include.display()))
            .arg(format!("-I{}", include.join("vltstd").display()))
            .arg(format!("-I{}", obj.display()))
            .arg(dir.join("unity.cpp"))
            .args(&runtime)
            .arg("-o")
            .arg(dir.join("libdut.so")),
        None,
    )?;
    Ok(())
}

/// The C++ optimisation level of a model: `-O3` for a model that runs for
/// long (soaks, benchmarks, `ccrtl verify`), `-O0` for a quick build. A
/// gate-level netlist is one flat module of ten thousands of cells that
/// runs for ten thousands of cycles: measured on DCTCP_TX's netlists of 16
/// flows, the unity file of the iCE40 one (14,260 cells) took 100 s to
/// compile at `-O3`, 55 s at `-O1` and 15 s at `-O0`, and at `-O0` the
/// ECP5 and iCE40 netlists still simulate at 11,000 to 14,000 cycles/s. A
/// planted mutant runs once for 5e5 (fast tier) to 1e6 cycles: measured on
/// TIMELY's RTL, the unity file compiles in 6.2 s at `-O3`, 3.4 at `-O1`
/// and 1.8 at `-O0`, and the lockstep runs 826,000, 641,000 and 348,000
/// cycles/s, so build and 1e6 cycles take 7.4, 5.0 and 4.7 s (Verilator's
/// own step, 1 s, besides): `-O0` is the shorter up to about 2.5e6 cycles.
fn cxx_opt(quick: bool) -> &'static str {
    if quick {
        "-O0"
    } else {
        "-O3"
    }
}

/// The flags a model's unity file is compiled with (and, for a quick
/// build, its precompiled header: GCC uses it only if they match). Hidden
/// visibility: the model's functions are not interposable, so the compiler
/// inlines across the unity file (the shim's entry points are exported by
/// attribute).
fn model_cxx_flags(quick: bool) -> Vec<&'static str> {
    let mut f = vec!["-fPIC", cxx_opt(quick), "-std=c++17", "-w", "-pthread"];
    f.extend(["-fvisibility=hidden", "-fno-semantic-interposition"]);
    f.extend(USER_HOOKS);
    f
}

/// The header a quick build includes first: `ccrtl_printf`'s declaration
/// and `verilated.h`, precompiled once per Verilator version and shared by
/// every quick build under `cache_root` (returned: the header, its `.gch`
/// beside it). Parsing Verilator's headers is most of a quick build: on
/// TIMELY's unity file, 3.3 s without it, 1.3 s with it (the header takes
/// 6 s to precompile, once).
fn precompiled_header(
    include: &Path,
    cache_root: &Path,
    version: &str,
) -> Result<PathBuf, VerilatorError> {
    let text = format!("#pragma once\n{PRINTF_HEADER}#include \"verilated.h\"\n");
    let mut h = Sha256::new();
    h.update(version.as_bytes());
    h.update(model_cxx_flags(true).join(" ").as_bytes());
    h.update(text.as_bytes());
    let dir = cache_root.join(format!("pch-{}", hex(&h.finalize()[..6])));
    let header = dir.join("ccrtl_pch.h");
    built_once(cache_root, &dir, &[dir.join("ccrtl_pch.h.gch")], "pch", |tmp| {
        std::fs::write(tmp.join("ccrtl_pch.h"), &text)?;
        run(
            Command::new("g++")
                .args(model_cxx_flags(true))
                .args(["-x", "c++-header"])
                .arg(format!("-I{}", include.display()))
                .arg(format!("-I{}", include.join("vltstd").display()))
                .arg(tmp.join("ccrtl_pch.h"))
                .arg("-o")
                .arg(tmp.join("ccrtl_pch.h.gch")),
            None,
        )
    })?;
    Ok(header)
}

/// Makes cache directory `dir` (under `cache_root`) once: unless every
/// file of `made` exists, `build` fills a fresh temporary directory, which
/// is then renamed to `dir` (a build that fails leaves nothing; when a
/// concurrent build put `dir` there first, its copy is kept). `what` names
/// the temporary directory.
fn built_once(
    cache_root: &Path,
    dir: &Path,
    made: &[PathBuf],
    what: &str,
    build: impl FnOnce(&Path) -> Result<(), VerilatorError>,
) -> Result<(), VerilatorError> {
    if made.iter().all(|f| f.exists()) {
        return Ok(());
    }
    let tmp = cache_root.join(format!("{what}.tmp{}", crate::fsutil::unique_suffix()));
    crate::fsutil::create_temp_dir(&tmp)?;
    if let Err(e) = build(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if std::fs::rename(&tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(())
}

/// The runtime's `vl_finish`, `vl_stop` and `vl_fatal` are the shim's.
const USER_HOOKS: &[&str] = &[
    "-DVL_USER_FINISH",
    "-DVL_USER_STOP",
    "-DVL_USER_FATAL",
    "-DVL_PRINTF=ccrtl_printf",
];

/// Declares the shim's `ccrtl_printf` (the runtime's and the model's
/// `VL_PRINTF`: text the design prints goes to stderr, never into the
/// command's stdout, and its last line is kept for the stop message).
const PRINTF_HEADER: &str = "#pragma once\nint ccrtl_printf(const char* fmt, ...);\n";

/// Writes the header that declares `ccrtl_printf` into `dir`; its path.
fn printf_header(dir: &Path) -> Result<PathBuf, VerilatorError> {
    let p = dir.join("ccrtl_printf.h");
    std::fs::write(&p, PRINTF_HEADER)?;
    Ok(p)
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
    h.update(USER_HOOKS.join(" ").as_bytes());
    h.update(PRINTF_HEADER.as_bytes());
    let dir = cache_root.join(format!("runtime-{}", hex(&h.finalize()[..6])));
    let names = ["verilated", "verilated_threads"];
    let objs: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}.o"))).collect();
    built_once(cache_root, &dir, &objs, "runtime", |tmp| {
        let header = printf_header(tmp)?;
        for n in names {
            run(
                Command::new("g++")
                    .args(["-c", "-fPIC", "-O2", "-std=c++17", "-w", "-pthread"])
                    .args(USER_HOOKS)
                    .arg("-include")
                    .arg(&header)
                    .arg(format!("-I{}", include.display()))
                    .arg(format!("-I{}", include.join("vltstd").display()))
                    .arg(include.join(format!("{n}.cpp")))
                    .arg("-o")
                    .arg(tmp.join(format!("{n}.o"))),
                None,
            )?;
        }
        Ok(())
    })?;
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

/// The one Verilator invocation of the driver, run in `dir` (the build
/// directory) on files named relative to it: C++ output, optimised, the
/// design's assertions compiled in, undriven bits and initial values random
/// (`unique`, seeded per instance through the context's `randSeed`), and no
/// warning fatal (the tests lint the emitted files with Verilator's
/// `--lint-only`). The design and the wrapper around it are built with the
/// same flags; the caller adds the files.
fn verilator_command(dir: &Path, top: &str, mdir: &str) -> Command {
    let mut c = Command::new("verilator");
    c.current_dir(dir)
        .args(["--cc", "-O3", "--assert"])
        .args(["--x-assign", "unique", "--x-initial", "unique"])
        .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
        .args(["--top-module", top, "--prefix", "Vdut", "-Mdir", mdir]);
    c
}

/// The port order of a single-evaluation model: the order of the top
/// module's header, when the design uses only its clock's rising edge (no
/// `negedge` in its text, no cell library: the vendors' cell models have
/// falling-edge cells; no edge of an input port other than the clock, whose
/// edge would come in the clock's evaluation instead of the one before it)
/// and the header names each port exactly once. `None`: two evaluations a
/// cycle. (Such a design behaves the same either way, state and outputs,
/// cycle by cycle, from the same power-up state.)
fn single_eval<'a>(
    verilog: &str,
    library: Option<&CellLibrary>,
    top: &str,
    clock: &'a str,
    ports: &'a [Port],
) -> Option<Vec<&'a str>> {
    if library.is_some() || verilog.contains("negedge") {
        return None;
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut last = "";
    for w in verilog.split(|c: char| !ident(c)).filter(|w| !w.is_empty()) {
        if matches!(last, "posedge" | "edge")
            && ports.iter().any(|p| p.dir == Dir::In && p.name == w)
        {
            return None;
        }
        last = w;
    }
    let names: Vec<&str> = std::iter::once(clock)
        .chain(ports.iter().map(|p| p.name))
        .collect();
    let order = header_order(verilog, top, &names)?;
    (order.len() == names.len()).then_some(order)
}

/// The port names of `names` in the order the header of module `top`
/// (`module top [#(...)] (...);`, comments removed) lists them.
fn header_order<'a>(verilog: &str, top: &str, names: &[&'a str]) -> Option<Vec<&'a str>> {
    // Comments out (the header is short; a block comment is skipped whole).
    let mut text = String::new();
    let mut rest = verilog;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
            text.push(' ');
        } else {
            let c = rest.chars().next()?;
            text.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let words: Vec<(usize, &str)> = text
        .match_indices(|c: char| !ident(c))
        .scan(0, |start, (i, sep)| {
            let w = (*start, &text[*start..i]);
            *start = i + sep.len();
            Some(w)
        })
        .filter(|(_, w)| !w.is_empty())
        .collect();
    let at = words
        .windows(2)
        .find(|w| w[0].1 == "module" && w[1].1 == top)
        .map(|w| w[1].0 + top.len())?;
    // Past an optional parameter list, the port list in parentheses.
    let mut tail = text[at..].trim_start();
    if let Some(t) = tail.strip_prefix('#') {
        tail = t.trim_start();
        let mut depth = 0;
        let end = tail.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        tail = tail[end + 1..].trim_start();
    }
    let list = tail.strip_prefix('(')?;
    let list = &list[..list.find(';')?];
    let mut order: Vec<&str> = vec![];
    for w in list.split(|c: char| !ident(c)) {
        if let Some(&n) = names.iter().find(|&&n| n == w) {
            if order.contains(&n) {
                return None;
            }
            order.push(n);
        }
    }
    Some(order)
}

/// The wrapper around the design of a single-evaluation model, and its file.
const WRAPPER: &str = "ccrtl_lockstep_wrapper";
const WRAPPER_FILE: &str = "ccrtl_lockstep_wrapper.sv";

/// Verilog of the single-evaluation wrapper: the design's ports, in the
/// design's order, the clock replaced by an input `ccrtl_lockstep_tick`
/// that the shim flips once a cycle, then one output
/// `ccrtl_lockstep_q_<port>` per output. The design's clock is
/// `tick ^ phase`: flipping the tick raises it, and its rising edge flips
/// the phase, which lowers it again, all in one evaluation (Verilator 5
/// evaluates the logic of the inputs once an evaluation, so the second
/// evaluation of a two-evaluation cycle computed it again on unchanged
/// inputs). The outputs of the cycle are the `_q_` ports: the design's
/// outputs sampled at that edge (a nonblocking assignment reads the values
/// before the edge), so an output that depends on inputs through logic is
/// seen as before.
///
/// The power-up state is that of the design alone: the wrapper's ports are
/// the design's, in the same order and widths (the clock's place taken by
/// the 1-bit tick), so they draw the same random values from the instance's
/// seed, and everything the wrapper adds is 2-state (`bit`), which
/// Verilator sets to 0 without a draw; so every register of the design
/// draws the value it drew before.
fn wrapper_source(top: &str, clock: &str, ports: &[Port], order: &[&str]) -> String {
    let range = |w: u32| {
        if w > 1 {
            format!("[{}:0] ", w - 1)
        } else {
            String::new()
        }
    };
    let outs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let mut decl = vec![];
    for &n in order {
        decl.push(match ports.iter().find(|p| p.name == n) {
            None => "    input wire ccrtl_lockstep_tick".to_string(),
            Some(p) => format!("    {} wire {}{}", p.dir, range(p.width), p.name),
        });
    }
    for p in &outs {
        decl.push(format!(
            "    output bit {}ccrtl_lockstep_q_{}",
            range(p.width),
            p.name
        ));
    }
    let mut conn = vec![];
    for &n in order {
        conn.push(if n == clock {
            format!("        .{clock}(ccrtl_lockstep_clk)")
        } else {
            format!("        .{n}({n})")
        });
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by ccrtl-sim: one evaluation a cycle (sim/src/verilator.rs)."
    );
    let _ = writeln!(s, "module {WRAPPER}(\n{}\n);", decl.join(",\n"));
    let _ = writeln!(s, "    bit ccrtl_lockstep_phase;");
    let _ = writeln!(s, "    bit ccrtl_lockstep_clk;");
    let _ = writeln!(
        s,
        "    assign ccrtl_lockstep_clk = ccrtl_lockstep_tick ^ ccrtl_lockstep_phase;"
    );
    let _ = writeln!(s, "    {top} dut(\n{}\n    );", conn.join(",\n"));
    let _ = writeln!(s, "    always @(posedge ccrtl_lockstep_clk) begin");
    let _ = writeln!(s, "        ccrtl_lockstep_phase <= ~ccrtl_lockstep_phase;");
    for p in &outs {
        let _ = writeln!(s, "        ccrtl_lockstep_q_{0} <= {0};", p.name);
    }
    let _ = writeln!(s, "    end");
    let _ = writeln!(s, "endmodule");
    s
}

/// C++ for `ccrtl_new`, `ccrtl_free`, `ccrtl_cycles`, `ccrtl_event` and the
/// runtime's `vl_finish`, `vl_stop`, `vl_fatal`.
fn shim_source(clock: &str, ports: &[Port], wrapped: bool) -> String {
    let in_words = words_of(ports, Dir::In);
    let out_words = words_of(ports, Dir::Out);
    let mut s = String::new();
    s.push_str("// Generated by ccrtl-sim: packed-word batch interface.\n");
    s.push_str("#include <cstdint>\n#include <cstdio>\n#include <cstdarg>\n#include <cstring>\n");
    s.push_str("#include \"verilated.h\"\n#include \"Vdut.h\"\n");
    s.push_str(
        r#"struct Ctx { VerilatedContext ctx; Vdut* m; int kind; char msg[1024]; char printed[512]; };
struct CcrtlStop {};
static thread_local Ctx* ccrtl_cur = nullptr;
int ccrtl_printf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fputs(buf, stderr);
  Ctx* c = ccrtl_cur;
  if (c && !c->kind) {
    size_t len = std::strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
    if (len) std::strncpy(c->printed, buf, sizeof c->printed - 1);
  }
  return n;
}
static void ccrtl_record(int kind, const char* f, int l, const char* what) {
  Ctx* c = ccrtl_cur;
  if (!c || c->kind) return;
  c->kind = kind;
  if (c->printed[0])
    std::snprintf(c->msg, sizeof c->msg, "%s:%d: %s (the design printed: %s)", f ? f : "?", l, what, c->printed);
  else
    std::snprintf(c->msg, sizeof c->msg, "%s:%d: %s", f ? f : "?", l, what);
}
void vl_finish(const char* f, int l, const char*) {
  ccrtl_record(1, f, l, "Verilog $finish");
  Verilated::threadContextp()->gotFinish(true);
}
void vl_stop(const char* f, int l, const char*) {
  ccrtl_record(2, f, l, "Verilog $stop");
  Verilated::threadContextp()->gotFinish(true);
}
void vl_fatal(const char* f, int l, const char*, const char* msg) {
  ccrtl_record(3, f, l, msg);
  throw CcrtlStop{};
}
#define CCRTL_EXPORT __attribute__((visibility("default")))
extern "C" {
CCRTL_EXPORT void* ccrtl_new(uint32_t seed) {
  Ctx* c = new Ctx;
  c->kind = 0; c->msg[0] = 0; c->printed[0] = 0;
  c->ctx.randReset(2);
  c->ctx.randSeed((int)seed);
  Verilated::threadContextp(&c->ctx);
  ccrtl_cur = c;
  c->m = new Vdut(&c->ctx, "dut");
"#,
    );
    // The clock (or the wrapper's tick) low, and a first evaluation.
    let clk = if wrapped {
        "ccrtl_lockstep_tick"
    } else {
        clock
    };
    let _ = writeln!(s, "  c->m->{clk} = 0;");
    s.push_str(
        r#"  try { c->m->eval(); } catch (CcrtlStop&) {}
  return c;
}
CCRTL_EXPORT void ccrtl_free(void* p) { Ctx* c = (Ctx*)p; ccrtl_cur = c; c->m->final(); delete c->m; delete c; }
CCRTL_EXPORT int ccrtl_event(void* p, char* buf, uint64_t len) {
  Ctx* c = (Ctx*)p;
  if (len) { std::strncpy(buf, c->msg, len - 1); buf[len - 1] = 0; }
  return c->kind;
}
CCRTL_EXPORT uint64_t ccrtl_cycles(void* p, uint64_t n, const uint32_t* in, uint32_t* out) {
  Ctx* c = (Ctx*)p;
  Vdut* m = c->m;
  ccrtl_cur = c;
  Verilated::threadContextp(&c->ctx);
  if (c->kind) return 0;
  c->printed[0] = 0;
  uint64_t i = 0;
  try {
    for (; i < n; ++i, in += IN_WORDS, out += OUT_WORDS) {
"#,
    );
    s = s.replace("IN_WORDS", &in_words.to_string());
    s = s.replace("OUT_WORDS", &out_words.to_string());
    if !wrapped {
        let _ = writeln!(s, "      m->{clock} = 0;");
    }
    let mut off = 0;
    for p in ports.iter().filter(|p| p.dir == Dir::In) {
        let n = p.name;
        match p.width {
            0..=32 => {
                let _ = writeln!(s, "      m->{n} = in[{off}];");
            }
            33..=64 => {
                let _ = writeln!(
                    s,
                    "      m->{n} = (uint64_t)in[{off}] | ((uint64_t)in[{}] << 32);",
                    off + 1
                );
            }
            _ => {
                for k in 0..p.words() {
                    let _ = writeln!(s, "      m->{n}[{k}] = in[{}];", off + k);
                }
            }
        }
        off += p.words();
    }
    if wrapped {
        // One evaluation: the rising edge, the outputs sampled before it.
        s.push_str("      m->ccrtl_lockstep_tick ^= 1;\n      m->eval();\n");
        s.push_str("      if (c->kind) return i;\n");
    } else {
        s.push_str("      m->eval();\n");
    }
    let mut off = 0;
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        let q = format!("ccrtl_lockstep_q_{}", p.name);
        let n = if wrapped { q.as_str() } else { p.name };
        match p.width {
            0..=32 => {
                let _ = writeln!(s, "      out[{off}] = (uint32_t)m->{n};");
            }
            33..=64 => {
                let _ = writeln!(s, "      out[{off}] = (uint32_t)m->{n};");
                let _ = writeln!(
                    s,
                    "      out[{}] = (uint32_t)((uint64_t)m->{n} >> 32);",
                    off + 1
                );
            }
            _ => {
                for k in 0..p.words() {
                    let _ = writeln!(s, "      out[{}] = m->{n}[{k}];", off + k);
                }
            }
        }
        off += p.words();
    }
    if !wrapped {
        let _ = writeln!(s, "      if (c->kind) return i;");
        let _ = writeln!(s, "      m->{clock} = 1; m->eval();");
        let _ = writeln!(s, "      if (c->kind) return i;");
    }
    s.push_str("    }\n  } catch (CcrtlStop&) {}\n  return i;\n}\n}\n");
    s
}

/// Runs a tool; on failure the error holds its output, with `rename`'s first
/// string replaced by the second (the build copy's name by the user's), and
/// then names the tool and the user's file rather than the build copy.
fn run(cmd: &mut Command, rename: Option<(&str, &str)>) -> Result<(), VerilatorError> {
    let shown = match rename {
        Some((_, user)) => format!("{} on {user}", cmd.get_program().to_string_lossy()),
        None => format!("{cmd:?}"),
    };
    let out = crate::fsutil::output(cmd).map_err(|e| VerilatorError::Tool {
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
        let text = match rename {
            Some((from, to)) => text.replace(from, to),
            None => text,
        };
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

    #[test]
    fn header_order_reads_the_top_modules_port_list() {
        let names = ["clk", "a", "b", "q"];
        let v = "module other(q, b);\n// module t(b, a)\nmodule t #(parameter W = (2)) /* (q) */ (\n  input clk, // a\n  input [W-1:0] b, a,\n  output q);\nendmodule";
        assert_eq!(
            header_order(v, "t", &names),
            Some(vec!["clk", "b", "a", "q"])
        );
        assert_eq!(
            header_order("module t(clk, a, b, q, a);", "t", &names),
            None,
            "a port named twice"
        );
        assert_eq!(
            header_order("module t(clk, a, q);", "t", &names).map(|o| o.len()),
            Some(3)
        );
        assert_eq!(header_order("module u(clk, a, b, q);", "t", &names), None);
    }

    /// A design verilated for one evaluation a cycle gives the outputs and
    /// the power-up state of the same design in two evaluations a cycle
    /// (forced here by a comment that says `negedge`): an output that
    /// depends on an input through logic, one straight from a register, a
    /// register that reset does not clear, a 100-bit port.
    #[test]
    fn one_evaluation_a_cycle_matches_two() {
        // Inputs and outputs interleaved in the header, the clock not first.
        let verilog = "module t(input wire [7:0] a, output reg [7:0] sum, input wire clk,
    output reg [7:0] q, input wire rst, input wire [99:0] w, output reg [99:0] wq,
    output reg [15:0] junk);
    reg [7:0] n;
    reg [15:0] free;
    always @(*) sum = a + n;
    always @(posedge clk) begin
        if (rst) n <= 8'd0; else n <= n + a;
        q <= n ^ a;
        wq <= w ^ {92'd0, n};
        free <= free + 16'd1;
    end
    always @(*) junk = free;
endmodule
";
        let ports = [
            Port::input("rst", 1),
            Port::input("a", 8),
            Port::input("w", 100),
            Port::output("sum", 8),
            Port::output("q", 8),
            Port::output("wq", 100),
            Port::output("junk", 16),
        ];
        assert!(single_eval(verilog, None, "t", "clk", &ports).is_some());
        let two_evals = format!("// negedge: two evaluations a cycle\n{verilog}");
        assert!(single_eval(&two_evals, None, "t", "clk", &ports).is_none());
        // An edge of another input (an asynchronous reset, a second clock).
        let async_reset = verilog.replace("posedge clk)", "posedge clk or posedge rst)");
        assert!(single_eval(&async_reset, None, "t", "clk", &ports).is_none());
        let cache = std::env::temp_dir().join(format!(
            "ccrtl-one-eval-test-{}",
            crate::fsutil::unique_suffix()
        ));
        let one = Model::build(verilog, "t.v", "t", "clk", &ports, &cache).unwrap();
        let two = Model::build(&two_evals, "t.v", "t", "clk", &ports, &cache).unwrap();
        let (iw, ow) = (words_of(&ports, Dir::In), words_of(&ports, Dir::Out));
        let mut r = crate::rng::Rng::new(3);
        let n = 500;
        let mut ins = vec![0u32; n * iw];
        for (k, x) in ins.iter_mut().enumerate() {
            *x = r.next_u32();
            if k % iw == 0 {
                *x = (k / iw % 97 == 5) as u32;
            }
        }
        // w is 100 bits: its top word has 4.
        for k in 0..n {
            ins[k * iw + 1] &= 0xff;
            ins[k * iw + 5] &= 0xf;
        }
        for seed in [1, 2, 77] {
            let (mut a, mut b) = (vec![0u32; n * ow], vec![0u32; n * ow]);
            one.instantiate(seed).cycles(n, &ins, &mut a).unwrap();
            two.instantiate(seed).cycles(n, &ins, &mut b).unwrap();
            assert_eq!(a, b, "power-up seed {seed}");
        }
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// A design that stops itself stops in the same cycle, with the same
    /// outputs before it, whether it is evaluated once a cycle or twice: a
    /// stop at the clock edge, an assertion in logic on an input and the
    /// state (before the edge), and one on the state the edge wrote.
    #[test]
    fn one_evaluation_a_cycle_stops_in_the_same_cycle_as_two() {
        let ports = [
            Port::input("rst", 1),
            Port::input("a", 8),
            Port::output("n", 8),
        ];
        let design = |what: &str| {
            format!(
                "module t(input wire clk, input wire rst, input wire [7:0] a, output reg [7:0] n);
    always @(posedge clk) begin
        if (rst) n <= 8'd0; else n <= n + 8'd1;
        {what}
    end
endmodule
"
            )
        };
        let cases = [
            ("if (!rst && n == 8'd40) $finish;", "", 41),
            (
                "",
                "always @(*) if (!rst && a == 8'd7 && n > 8'd20) $stop;",
                0,
            ),
            ("", "always @(*) assert (rst || n != 8'd60);", 60),
        ];
        let cache = std::env::temp_dir().join(format!(
            "ccrtl-one-eval-stop-test-{}",
            crate::fsutil::unique_suffix()
        ));
        let n = 200;
        let mut ins = vec![0u32; n * 2];
        let mut r = crate::rng::Rng::new(11);
        ins[0] = 1;
        for k in 1..n {
            // `a` is 7 first in cycle 30 (n == 28 during it).
            ins[k * 2 + 1] = if k == 30 { 7 } else { r.next_u32() % 7 };
        }
        for (edge, logic, expect) in cases {
            let verilog = design(edge).replace("endmodule", &format!("    {logic}\nendmodule"));
            let two_evals = format!("// negedge: two evaluations a cycle\n{verilog}");
            assert!(single_eval(&verilog, None, "t", "clk", &ports).is_some());
            let one = Model::build(&verilog, "t.v", "t", "clk", &ports, &cache).unwrap();
            let two = Model::build(&two_evals, "t.v", "t", "clk", &ports, &cache).unwrap();
            let (mut a, mut b) = (vec![0u32; n], vec![0u32; n]);
            let (ka, why_a) = one.instantiate(1).cycles(n, &ins, &mut a).expect_err(logic);
            let (kb, why_b) = two.instantiate(1).cycles(n, &ins, &mut b).expect_err(logic);
            assert_eq!(ka, kb, "{edge}{logic}: {why_a} / {why_b}");
            if expect > 0 {
                assert_eq!(ka, expect, "{edge}{logic}");
            } else {
                assert_eq!(ka, 30, "{edge}{logic}");
            }
            assert_eq!(why_a.kind, why_b.kind);
            assert_eq!(a[..ka], b[..kb], "{edge}{logic}: outputs before the stop");
        }
        let _ = std::fs::remove_dir_all(&cache);
    }
}
