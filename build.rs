//! Builds the React UI (ui/) into ui/dist when it is missing or older than its sources, so that
//! `cargo build` alone makes a complete binary. Set ESM_SKIP_UI_BUILD=1 to skip (the binary then
//! serves a notice instead of the UI).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const UI_INPUTS: &[&str] = &[
    "src",
    "public",
    "index.html",
    "package.json",
    "package-lock.json",
    "vite.config.ts",
    "tsconfig.json",
    "tsconfig.app.json",
    "tsconfig.node.json",
];

fn main() {
    let ui = PathBuf::from("ui");
    for input in UI_INPUTS {
        println!("cargo:rerun-if-changed=ui/{input}");
    }
    println!("cargo:rerun-if-env-changed=ESM_SKIP_UI_BUILD");
    if std::env::var_os("ESM_SKIP_UI_BUILD").is_some_and(|v| v != "0" && !v.is_empty()) {
        println!("cargo:warning=ESM_SKIP_UI_BUILD is set: the UI bundle is not rebuilt");
        return;
    }
    // The bundle itself too: a checkout whose ui/dist was removed (or never built) must build it
    // again even when no UI source changed, or the binary silently ships without the UI. (Not
    // when skipping: a missing file would make every build rerun this script.)
    println!("cargo:rerun-if-changed=ui/dist/index.html");
    let index = ui.join("dist/index.html");
    let built = modified(&index);
    let newest_input = UI_INPUTS.iter().filter_map(|i| newest(&ui.join(i))).max();
    let stale = match (built, newest_input) {
        (None, _) => true,
        (Some(b), Some(i)) => i > b,
        (Some(_), None) => false,
    };
    if !stale {
        return;
    }
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    if Command::new(npm).arg("--version").output().is_err() {
        panic!(
            "the web UI (ui/) must be built but npm was not found: install Node.js 20+ with npm, \
             or set ESM_SKIP_UI_BUILD=1 to build without the UI"
        );
    }
    let lock = modified(&ui.join("package-lock.json"));
    let installed = modified(&ui.join("node_modules/.package-lock.json"));
    if installed.is_none() || lock > installed {
        // `npm ci` cannot be used: the registry lacks other platforms' optional native packages.
        run(Command::new(npm).args(["install", "--no-audit", "--no-fund"]).current_dir(&ui), "npm install");
    }
    run(Command::new(npm).args(["run", "build"]).current_dir(&ui), "npm run build");
    // Date the new bundle's index.html back to its newest source: cargo reruns this script when a
    // watched file is newer than the script's start, and a fresh mtime would cost one more build
    // of the product crate next time.
    if let Some(at) = newest_input {
        let stamped = std::fs::File::options().write(true).open(&index).and_then(|f| f.set_modified(at));
        if let Err(e) = stamped {
            println!("cargo:warning=could not date ui/dist/index.html back: {e}");
        }
    }
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd.status().unwrap_or_else(|e| panic!("{what} could not start: {e}"));
    if !status.success() {
        panic!("{what} failed in ui/ ({status}); see the output above");
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time of a file or of any file below a folder.
fn newest(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return meta.modified().ok();
    }
    std::fs::read_dir(path).ok()?.filter_map(|e| e.ok()).filter_map(|e| newest(&e.path())).max()
}
