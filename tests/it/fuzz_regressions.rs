//! Replays the fuzz targets' seeds and every input a fuzzer once crashed on (saved by
//! `scripts/fuzz` under `fuzz/regressions/<target>/`), so a fixed crash stays fixed.

use std::path::{Path, PathBuf};
use stock_manager::fuzzing;

fn inputs(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for target in fuzzing::TARGETS {
        let Ok(entries) = std::fs::read_dir(dir.join(target)) else { continue };
        for e in entries.flatten() {
            if e.path().is_file() {
                found.push((target.to_string(), e.path()));
            }
        }
    }
    found.sort();
    found
}

fn replay(dir: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(dir);
    let mut failures = Vec::new();
    let all = inputs(&root);
    for (target, path) in &all {
        let data = std::fs::read(path).unwrap();
        let ran = std::panic::catch_unwind(|| fuzzing::run(target, &data));
        match ran {
            Ok(true) => {}
            Ok(false) => failures.push(format!("{}: no target {target}", path.display())),
            Err(_) => failures.push(format!("{} panics", path.display())),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    all.len()
}

#[test]
fn every_target_runs_its_seeds() {
    let n = replay("seeds");
    assert!(n >= fuzzing::TARGETS.len() * 2, "each target has seeds ({n} found)");
}

#[test]
fn inputs_that_once_crashed_stay_fixed() {
    replay("regressions");
}

#[test]
fn an_unknown_target_is_reported() {
    assert!(!fuzzing::run("no_such_target", b""));
}
