//! Files are written whole or not at all: to a temporary name in the same
//! directory, then renamed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every temporary file and directory handed out, for [`remove_temporaries`].
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Records a temporary path (file or directory) to remove on interruption.
pub fn register_temporary(path: &Path) {
    if let Ok(mut t) = TEMPORARIES.lock() {
        t.push(path.to_path_buf());
    }
}

/// Removes every registered temporary that still exists (those renamed to
/// their final names no longer do). Called on Ctrl-C before exiting, so an
/// interrupted command leaves no hidden partial file or build directory.
///
/// The work in flight does not stop while this runs: a compiler started
/// into a temporary build directory (a child that the signal may not have
/// reached) can add a file while the directory is being removed, and the
/// main thread can create a temporary after its first pass. So the
/// removal is repeated until nothing registered exists, for up to a
/// second.
pub fn remove_temporaries() {
    for _ in 0..100 {
        let paths = match TEMPORARIES.lock() {
            Ok(t) => t.clone(),
            Err(e) => e.into_inner().clone(),
        };
        let mut left = false;
        for p in paths {
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(&p);
            } else if p.exists() {
                let _ = std::fs::remove_file(&p);
            }
            left |= p.exists();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        let again = match TEMPORARIES.lock() {
            Ok(t) => t.iter().any(|p| p.exists()),
            Err(e) => e.into_inner().iter().any(|p| p.exists()),
        };
        if !left && !again {
            return;
        }
    }
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

/// A temporary name beside `path` (same directory, so rename is atomic).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = path.with_file_name(format!(".{name}.tmp{}", unique_suffix()));
    register_temporary(&tmp);
    tmp
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
