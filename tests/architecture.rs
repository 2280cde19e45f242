//! `docs/ARCHITECTURE.md` is the map of the code: every path it names must
//! exist, and every module of `src/` must be on it.

use std::path::Path;

fn architecture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `code` spans of the text that name a path: a `/` or a file
/// extension, no placeholders (`<collective>`, `*`, `…`).
fn named_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| !span.contains([' ', '<', '*', '…', '(']))
        .filter(|span| span.contains('/') || span.ends_with(".rs") || span.ends_with(".md"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_path_it_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let paths = named_paths(&architecture());
    assert!(paths.len() > 30, "too few paths found: {paths:?}");
    let missing: Vec<&String> = paths.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(missing.is_empty(), "named but missing: {missing:?}");
}

#[test]
fn every_module_of_src_is_on_the_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = architecture();
    let mut absent = Vec::new();
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let path = match root.join("src").join(&name).is_dir() {
            true => format!("src/{name}/"),
            false => format!("src/{name}"),
        };
        if name != "lib.rs" && !text.contains(&format!("`{path}")) {
            absent.push(path);
        }
    }
    absent.sort();
    assert!(absent.is_empty(), "not on docs/ARCHITECTURE.md: {absent:?}");
}

#[test]
fn the_path_finder_sees_paths_and_skips_placeholders() {
    let found = named_paths(
        "`src/a.rs`, `mockups/src/<collective>.rs`, `Results`, `*_tests.rs`, `ci/test`",
    );
    assert_eq!(found, ["src/a.rs", "ci/test"]);
}
