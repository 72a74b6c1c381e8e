//! Files are written whole or not at all: to a temporary name in the same
//! directory, then renamed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};

/// What an interruption must undo: every temporary file and directory
/// handed out, and the process group of every tool running.
struct InFlight {
    temporaries: Vec<PathBuf>,
    children: Vec<u32>,
}

static IN_FLIGHT: Mutex<InFlight> = Mutex::new(InFlight {
    temporaries: Vec::new(),
    children: Vec::new(),
});

/// The registry, also after a panic elsewhere poisoned it. Once
/// [`remove_temporaries`] holds it, it is never released (the process
/// exits): a thread asking for a new temporary or a new tool then waits
/// for that exit, so nothing can be created behind the cleanup.
fn in_flight() -> MutexGuard<'static, InFlight> {
    match IN_FLIGHT.lock() {
        Ok(g) => g,
        Err(e) => e.into_inner(),
    }
}

/// Registers the temporary directory `path` and creates it (empty), as
/// one step against an interruption.
pub fn create_temp_dir(path: &Path) -> std::io::Result<()> {
    let mut g = in_flight();
    g.temporaries.push(path.to_path_buf());
    let _ = std::fs::remove_dir_all(path);
    std::fs::create_dir_all(path)
}

/// A temporary name beside `path` (same directory, so the final rename is
/// atomic), registered and created as a new empty file in one step.
pub fn create_temp_file(path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = path.with_file_name(format!(".{name}.tmp{}", unique_suffix()));
    let mut g = in_flight();
    g.temporaries.push(tmp.clone());
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    Ok((tmp, file))
}

/// A running tool started by [`spawn`]; forgotten by the registry when
/// dropped.
pub struct Tracked {
    child: Option<Child>,
    pid: u32,
}

impl Tracked {
    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("a tracked child is present until dropped")
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let mut g = in_flight();
        g.children.retain(|&p| p != self.pid);
    }
}

/// Starts `cmd` in a process group of its own, recorded so that an
/// interruption kills it and everything it started (a compiler's own
/// children, a solver under sby) before the temporaries are removed: a
/// tool still running could otherwise write into a directory as it is
/// being removed.
pub fn spawn(cmd: &mut Command) -> std::io::Result<Tracked> {
    use std::os::unix::process::CommandExt;
    let mut g = in_flight();
    let child = cmd.process_group(0).spawn()?;
    let pid = child.id();
    g.children.push(pid);
    Ok(Tracked {
        child: Some(child),
        pid,
    })
}

/// [`Command::output`] through [`spawn`]: stdin empty, stdout and stderr
/// captured.
pub fn output(cmd: &mut Command) -> std::io::Result<Output> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut t = spawn(cmd)?;
    let child = t.child.take().expect("just spawned");
    child.wait_with_output()
}

/// Returns at once unless an interruption's cleanup has begun, in which
/// case it waits for that cleanup to exit the process: a command that
/// ends (an error from a file removed under it, or success) while it is
/// being interrupted exits as interrupted, with nothing left behind.
pub fn wait_if_interrupted() {
    drop(in_flight());
}

/// Called on Ctrl-C before exiting, so that an interrupted command leaves
/// no hidden partial file or build directory: takes the registry for good
/// (no new temporary or tool can start), kills every tool's process group,
/// then removes every registered temporary that still exists (those
/// renamed to their final names no longer do). The removal is repeated
/// until two passes 10 ms apart find nothing, for up to two seconds, as a
/// killed tool may finish a write it had started and the main thread may
/// still write into a directory not yet removed.
pub fn remove_temporaries() {
    let g = in_flight();
    for &pid in &g.children {
        // SAFETY: kill(2) on a process group id; no memory is involved.
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
        }
    }
    let mut clean_passes = 0;
    for _ in 0..200 {
        let mut found = false;
        for p in &g.temporaries {
            if p.is_dir() {
                found = true;
                let _ = std::fs::remove_dir_all(p);
            } else if p.exists() {
                found = true;
                let _ = std::fs::remove_file(p);
            }
        }
        clean_passes = if found { 0 } else { clean_passes + 1 };
        if clean_passes == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // The registry stays held: the caller exits.
    std::mem::forget(g);
}

/// A suffix unique to this process and call, for temporary names.
pub fn unique_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (tmp, mut f) = create_temp_file(path)?;
    let result = (|| {
        use std::io::Write;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
