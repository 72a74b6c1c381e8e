//! Records the git commit the `ccrtl` command is built from, for the
//! header of every emitted file.
use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let hash = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(false);
    let rev = if dirty { format!("{hash}-dirty") } else { hash };
    println!("cargo:rustc-env=CCRTL_GIT_REV={rev}");
    // Rebuild when the commit or the index changes. Paths asked from git,
    // so that a worktree (whose `.git` is a file) watches its own HEAD and
    // index: a path that does not exist makes cargo rerun this script on
    // every build, which rebuilt hdl and everything after it each time.
    let watched: Vec<String> = ["HEAD", "index", "refs/heads", "packed-refs"]
        .iter()
        .filter_map(|p| git(&["rev-parse", "--path-format=absolute", "--git-path", p]))
        .filter(|p| std::path::Path::new(p).exists())
        .collect();
    if watched.is_empty() {
        for p in [".git/HEAD", ".git/index", ".git/refs/heads"] {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    for p in watched {
        println!("cargo:rerun-if-changed={p}");
    }
}
