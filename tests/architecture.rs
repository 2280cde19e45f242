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

/// The top-level modules of `src/` (but the crate roots).
fn modules() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "lib.rs" && n != "main.rs")
        .map(|n| n.trim_end_matches(".rs").to_string())
        .collect();
    names.sort();
    // `exit.rs` and its children's `exit/` are one module.
    names.dedup();
    names
}

/// `source` with comments, string and character literals blanked out, so
/// that what is left is code (line breaks kept).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let starts = |s: &str| s.chars().zip(rest).filter(|(a, b)| a == *b).count() == s.len();
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let end = if starts("//") {
            rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
        } else if starts("/*") {
            let mut depth = 0;
            let mut j = 0;
            loop {
                if rest[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break j;
                    }
                } else {
                    j += 1;
                }
            }
        } else if !ident_before
            && (starts("r\"") || starts("r#") || starts("br\"") || starts("br#"))
        {
            let open = rest.iter().position(|&c| c == '"').unwrap();
            let hashes = open - rest.iter().position(|&c| c == 'r').unwrap() - 1;
            let mut j = open + 1;
            while !(rest[j] == '"' && rest[j + 1..].iter().take(hashes).all(|&c| c == '#')) {
                j += 1;
            }
            j + 1 + hashes
        } else if rest[0] == '"' {
            let mut j = 1;
            while rest[j] != '"' {
                j += if rest[j] == '\\' { 2 } else { 1 };
            }
            j + 1
        } else if rest[0] == '\'' && rest.len() > 2 && (rest[2] == '\'' || rest[1] == '\\') {
            // A character literal ('x', '\n', '\u{1F}'), not a lifetime ('a).
            rest[1..].iter().skip(1).position(|&c| c == '\'').unwrap() + 3
        } else {
            out.push(rest[0]);
            i += 1;
            continue;
        };
        out.extend(rest[..end].iter().map(|&c| blank(c)));
        i += end;
    }
    out
}

/// `code` without the items under `#[cfg(test)]` (a module, a function, an
/// impl, or a declaration ending in `;`).
fn without_tests(code: &str) -> String {
    let mut code = code.to_string();
    while let Some(at) = code.find("#[cfg(test)]") {
        let after = at + "#[cfg(test)]".len();
        let brace = code[after..].find('{').map(|b| after + b);
        let semicolon = code[after..].find(';').map(|s| after + s);
        let end = match (brace, semicolon) {
            (Some(b), Some(s)) if s < b => s + 1,
            (None, Some(s)) => s + 1,
            (Some(b), _) => {
                let mut depth = 0;
                let mut end = b;
                for (j, c) in code[b..].char_indices() {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        end = b + j + 1;
                        break;
                    }
                }
                end
            }
            (None, None) => code.len(),
        };
        code.replace_range(at..end, "");
    }
    code
}

/// The files that exist only in tests: `#[cfg(test)] mod name;`.
fn test_only_files(file: &Path, code: &str) -> Vec<std::path::PathBuf> {
    let dir = file.parent().unwrap();
    let own = match file.file_name().unwrap().to_str().unwrap() {
        "mod.rs" | "lib.rs" => dir.to_path_buf(),
        name => dir.join(name.trim_end_matches(".rs")),
    };
    let mut files = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let rest = &code[at + "#[cfg(test)]".len()..];
        let Some(end) = rest.find([';', '{']) else {
            continue;
        };
        let words: Vec<&str> = rest[..end].split_whitespace().collect();
        if let (Some(';'), [.., "mod", name]) = (rest[end..].chars().next(), &words[..]) {
            files.push(own.join(format!("{name}.rs")));
            files.push(own.join(name).join("mod.rs"));
        }
    }
    files
}

/// The first path segments after every `crate::` of `code`, groups
/// (`crate::{a::B, c}`) opened.
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (at, found) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[at + found.len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let mut depth = 0;
                let mut item_start = 0;
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            names.push(ident(&group[item_start..j]));
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            names.push(ident(&group[item_start..j]));
                            item_start = j + 1;
                        }
                        _ => {}
                    }
                }
            }
            None => names.push(ident(rest)),
        }
    }
    names
}

/// Every `.rs` file at or under `path`.
fn rust_files(path: &Path) -> Vec<std::path::PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// What each top-level module of `src/` imports through `crate::` paths,
/// outside its tests.
fn imports_in_code() -> std::collections::BTreeMap<String, Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules();
    let all_files = rust_files(&src);
    let mut test_only = Vec::new();
    for file in &all_files {
        test_only.extend(test_only_files(
            file,
            &code_only(&std::fs::read_to_string(file).unwrap()),
        ));
    }
    let mut imports = std::collections::BTreeMap::new();
    for module in &modules {
        // `src/m/`, `src/m.rs`, or both (`m.rs` with its children in `m/`).
        let paths = [src.join(module), src.join(format!("{module}.rs"))];
        let mut names: Vec<String> = paths
            .iter()
            .filter(|path| path.exists())
            .flat_map(|path| rust_files(path))
            .filter(|f| !test_only.contains(f))
            .flat_map(|f| {
                crate_paths(&without_tests(&code_only(
                    &std::fs::read_to_string(f).unwrap(),
                )))
            })
            .filter(|name| name != module && modules.contains(name))
            .collect();
        names.sort();
        names.dedup();
        imports.insert(module.clone(), names);
    }
    imports
}

/// The table under "Who imports whom": module → what the page says it
/// imports.
fn imports_on_the_map() -> std::collections::BTreeMap<String, Vec<String>> {
    let text = architecture();
    let section = text
        .split("\n## Who imports whom\n")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a section `## Who imports whom`");
    let section = section.split("\n## ").next().unwrap();
    let mut imports = std::collections::BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with("| `src/")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let module = cells[1]
            .trim_matches('`')
            .trim_start_matches("src/")
            .trim_end_matches('/')
            .trim_end_matches(".rs")
            .to_string();
        let mut names: Vec<String> = cells[2]
            .split(',')
            .map(|n| n.trim().trim_matches('`').to_string())
            .filter(|n| !n.is_empty() && n != "—")
            .collect();
        names.sort();
        imports.insert(module, names);
    }
    imports
}

#[test]
fn the_imports_it_claims_are_the_codes() {
    let code = imports_in_code();
    let map = imports_on_the_map();
    let mut wrong = Vec::new();
    for (module, imports) in &code {
        match map.get(module) {
            None => wrong.push(format!("{module}: not in the table (imports {imports:?})")),
            Some(claimed) if claimed != imports => wrong.push(format!(
                "{module}: the table says {claimed:?}, the code imports {imports:?}"
            )),
            Some(_) => {}
        }
    }
    for module in map.keys().filter(|m| !code.contains_key(*m)) {
        wrong.push(format!("{module}: in the table but not a module of src/"));
    }
    assert!(
        wrong.is_empty(),
        "docs/ARCHITECTURE.md, Who imports whom:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_import_reader_sees_code_only() {
    let source = r#"
use crate::a::X;
use crate::{b::Y, c, d::{e, f}};
// crate::in_a_comment
/* crate::in_a_block /* nested */ */
fn g<'l>(s: &'l str) -> char { let _ = "crate::in_a_string"; let _ = r"crate::raw"; '{' }
fn h() { crate::g::call(); other_crate::x(); }
#[cfg(test)]
mod tests {
    use crate::only_in_tests;
}
#[cfg(test)]
mod fixture;
"#;
    let code = without_tests(&code_only(source));
    assert_eq!(crate_paths(&code), ["a", "b", "c", "d", "g"]);
    let files = test_only_files(Path::new("src/x/mod.rs"), &code_only(source));
    assert_eq!(
        files,
        [
            Path::new("src/x/fixture.rs"),
            Path::new("src/x/fixture/mod.rs")
        ]
    );
}
