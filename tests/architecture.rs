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
            // `exit.rs` with its children in `exit/` is one module.
            true if root.join("src").join(format!("{name}.rs")).exists() => continue,
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

/// Where the brace that `open` opens in `code` closes (the end of the
/// code if it never does).
fn closing_brace(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (j, c) in code[open..].char_indices() {
        depth += match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        };
        if depth == 0 {
            return open + j;
        }
    }
    code.len() - 1
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
            (Some(b), _) => closing_brace(&code, b) + 1,
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

/// A file's module path from the crate root: `src/report/model.rs` is
/// `report::model`, `src/report/mod.rs` is `report`.
fn module_of(file: &Path) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let relative = file.strip_prefix(&src).unwrap().with_extension("");
    let mut module: Vec<String> = relative
        .iter()
        .map(|s| s.to_str().unwrap().to_string())
        .collect();
    if module.last().is_some_and(|m| m == "mod") {
        module.pop();
    }
    module
}

/// The modules `code` declares as files of its own (`mod name;`).
fn children(code: &str) -> Vec<String> {
    code.split(';')
        .filter_map(|statement| {
            let words: Vec<&str> = statement.split_whitespace().collect();
            match words[..] {
                [.., "mod", name] if name.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                    Some(name.to_string())
                }
                _ => None,
            }
        })
        .collect()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a use tree (`a::{b::C, d}`), as segments.
fn use_tree(text: &str) -> Vec<Vec<String>> {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut paths = Vec::new();
        let (mut depth, mut item) = (0, 0);
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths.extend(use_tree(&group[item..j]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths.extend(use_tree(&group[item..j]));
                    item = j + 1;
                }
                _ => {}
            }
        }
        return paths;
    }
    let name: String = text.chars().take_while(|&c| is_ident(c)).collect();
    if name.is_empty() || name == "self" {
        return vec![Vec::new()];
    }
    match text[name.len()..].trim_start().strip_prefix("::") {
        Some(rest) => use_tree(rest)
            .into_iter()
            .map(|tail| std::iter::once(name.clone()).chain(tail).collect())
            .collect(),
        None => vec![vec![name]],
    }
}

/// The paths from the crate root that `code` of `module` names: through
/// `crate::`, `super::`, `self::` or a module it declares, groups opened.
fn paths_named(module: &[String], code: &str) -> Vec<Vec<String>> {
    let children = children(code);
    let mut paths = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let word: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if word.is_empty() {
            at += rest.chars().next().unwrap().len_utf8();
            continue;
        }
        let before = code[..at].trim_end();
        let inside_a_path = before.ends_with("::") || before.ends_with(is_ident);
        at += word.len();
        let Some(tail) = code[at..].trim_start().strip_prefix("::") else {
            continue;
        };
        if inside_a_path && !before.ends_with("use") {
            continue;
        }
        let mut base: Vec<String> = match word.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            child if children.iter().any(|c| c == child) => {
                let mut base = module.to_vec();
                base.push(child.to_string());
                base
            }
            _ => continue,
        };
        let mut tail = tail;
        while let Some(rest) = tail.trim_start().strip_prefix("super::") {
            base.pop();
            tail = rest;
        }
        for path in use_tree(tail) {
            paths.push(base.iter().cloned().chain(path).collect());
        }
    }
    paths
}

/// Every file of `src/` that is compiled outside tests (but the crate
/// roots), with its code outside tests.
fn sources() -> Vec<(std::path::PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_files(&src);
    let code: Vec<String> = files
        .iter()
        .map(|f| code_only(&std::fs::read_to_string(f).unwrap()))
        .collect();
    let test_only: Vec<std::path::PathBuf> = files
        .iter()
        .zip(&code)
        .flat_map(|(f, c)| test_only_files(f, c))
        .collect();
    let roots = [src.join("lib.rs"), src.join("main.rs")];
    files
        .into_iter()
        .zip(code)
        .filter(|(f, _)| !test_only.contains(f) && !roots.contains(f))
        .map(|(f, c)| (f, without_tests(&c)))
        .collect()
}

type Graph = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// Which file of `src/` imports which, each named from `src/` on
/// (`report/model.rs`).
fn file_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources = sources();
    let name = |f: &Path| f.strip_prefix(&src).unwrap().display().to_string();
    let by_module: std::collections::BTreeMap<Vec<String>, String> = sources
        .iter()
        .map(|(f, _)| (module_of(f), name(f)))
        .collect();
    let mut graph = Graph::new();
    for (file, code) in &sources {
        let module = module_of(file);
        let imports = graph.entry(name(file)).or_default();
        for path in paths_named(&module, code) {
            let target = (1..=path.len())
                .rev()
                .find_map(|k| by_module.get(&path[..k]));
            if let Some(target) = target.filter(|t| **t != name(file)) {
                imports.insert(target.clone());
            }
        }
    }
    graph
}

/// The import cycles of `graph`: its strongly connected components of more
/// than one file (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: std::collections::BTreeMap<&'g str, (usize, usize)>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g str) -> usize {
            let n = self.index.len();
            self.index.insert(node, (n, n));
            self.stack.push(node);
            let mut low = n;
            for next in self.graph.get(node).into_iter().flatten() {
                low = match self.index.get(next.as_str()) {
                    None => low.min(self.visit(next)),
                    Some(&(i, _)) if self.stack.contains(&next.as_str()) => low.min(i),
                    Some(_) => low,
                };
            }
            self.index.insert(node, (n, low));
            if low == n {
                let at = self.stack.iter().rposition(|&s| s == node).unwrap();
                let component: Vec<String> = self.stack.drain(at..).map(str::to_string).collect();
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
            low
        }
    }
    let mut walk = Walk {
        graph,
        index: Default::default(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

/// The imports between modules side by side in one folder of `src/` (or
/// at its top): `from -> to` when a file in `from` imports a file in `to`,
/// with the first such pair of files seen. A folder's `mod.rs` is the
/// folder itself, which may use its parts and be used by them.
fn module_graph(files: &Graph) -> (Graph, std::collections::BTreeMap<(String, String), String>) {
    let module =
        |file: &str| module_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file));
    let mut graph = Graph::new();
    let mut witness = std::collections::BTreeMap::new();
    for (from_file, imports) in files {
        let from = module(from_file);
        for to_file in imports {
            let to = module(to_file);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue;
            }
            let (a, b) = (from[..=common].join("/"), to[..=common].join("/"));
            graph.entry(a.clone()).or_default().insert(b.clone());
            witness
                .entry((a, b))
                .or_insert_with(|| format!("{from_file} -> {to_file}"));
        }
    }
    (graph, witness)
}

#[test]
fn no_module_imports_itself_through_others() {
    let files = file_graph();
    assert!(files.len() > 100, "too few files read: {}", files.len());
    let (graph, witness) = module_graph(&files);
    let witness = &witness;
    let described: Vec<String> = cycles(&graph)
        .iter()
        .map(|cycle| {
            let arrows: Vec<String> = cycle
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|to| cycle.contains(to))
                        .map(move |to| {
                            format!(
                                "  {from} -> {to} ({})",
                                witness[&(from.clone(), to.clone())]
                            )
                        })
                })
                .collect();
            format!("{}:\n{}", cycle.join(", "), arrows.join("\n"))
        })
        .collect();
    assert!(
        described.is_empty(),
        "import cycles:\n{}",
        described.join("\n")
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
    let named: Vec<String> = paths_named(&[], &code)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(named, ["a::X", "b::Y", "c", "d::e", "d::f", "g::call"]);
    let files = test_only_files(Path::new("src/x/mod.rs"), &code_only(source));
    assert_eq!(
        files,
        [
            Path::new("src/x/fixture.rs"),
            Path::new("src/x/fixture/mod.rs")
        ]
    );
}

/// The layers of `src/`, top first: a module imports only from the layers
/// below its own, never from its own or one above. docs/ARCHITECTURE.md
/// shows the same table.
const LAYERS: &[(&str, &[&str])] = &[
    ("subcommands", &["commands"]),
    ("command line", &["cli"]),
    ("files", &["store"]),
    ("presenting", &["report", "exit"]),
    ("measuring, tuning", &["measure", "tuning"]),
    ("planning", &["plan"]),
    ("input, deciding", &["config", "analyse"]),
    (
        "vocabulary",
        &["settings", "candidates", "control", "reference", "case"],
    ),
    ("the host", &["host", "meta", "mpit", "watchdog"]),
    ("what is checked", &["operation"]),
    (
        "foundations",
        &["collective", "element", "units", "printable", "stats"],
    ),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

#[test]
fn every_module_imports_only_from_layers_below_its_own() {
    let files = file_graph();
    let (graph, witness) = module_graph(&files);
    let top: Vec<&String> = graph.keys().filter(|m| !m.contains('/')).collect();
    let unplaced: Vec<&&String> = top.iter().filter(|m| layer_of(m).is_none()).collect();
    assert!(unplaced.is_empty(), "modules in no layer: {unplaced:?}");
    let mut upward = Vec::new();
    for from in top {
        for to in graph[from].iter().filter(|t| !t.contains('/')) {
            if layer_of(to) <= layer_of(from) {
                upward.push(format!(
                    "{from} -> {to} ({})",
                    witness[&(from.clone(), to.clone())]
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports from a layer not below:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_map_shows_the_layers_of_the_code() {
    let text = architecture();
    let section = text
        .split("\n## Layers\n")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a section `## Layers`");
    let section = section.split("\n## ").next().unwrap();
    let rows: Vec<(String, Vec<String>)> = section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| layer") && !l.starts_with("|--"))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let modules = cells[2]
                .split(',')
                .map(|m| {
                    m.trim()
                        .trim_matches('`')
                        .trim_start_matches("src/")
                        .trim_end_matches('/')
                        .trim_end_matches(".rs")
                        .to_string()
                })
                .collect();
            (cells[1].to_string(), modules)
        })
        .collect();
    let code: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(name, modules)| {
            (
                name.to_string(),
                modules.iter().map(|m| m.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        rows, code,
        "docs/ARCHITECTURE.md, Layers, against tests/architecture.rs"
    );
}

/// The files of `src/` outside `allowed` (folders or files, from `src/`)
/// whose code, outside tests, contains one of `needles`.
fn files_using(needles: &[&str], allowed: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (file, code) in sources() {
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        if allowed.iter().any(|a| name.starts_with(a)) {
            continue;
        }
        for needle in needles {
            for (at, _) in code.match_indices(needle) {
                if !code[..at].ends_with(is_ident) {
                    let line = code[..at].matches('\n').count() + 1;
                    found.push(format!("{name}:{line}: {needle}"));
                }
            }
        }
    }
    found
}

#[test]
fn only_report_prints() {
    let printing = [
        "println!",
        "eprintln!",
        "print!",
        "eprint!",
        "dbg!",
        "stdout()",
        "stderr()",
    ];
    let found = files_using(&printing, &["report/"]);
    assert!(
        found.is_empty(),
        "printing outside src/report/:\n{}",
        found.join("\n")
    );
}

#[test]
fn only_store_config_and_host_touch_files() {
    let files = ["fs::", "File::", "OpenOptions"];
    let found = files_using(&files, &["store/", "config/", "host/"]);
    assert!(
        found.is_empty(),
        "files touched outside src/store/, src/config/ and src/host/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_invariant_checks_see_what_they_guard() {
    // A cycle of three and a tail; a chain without one.
    let graph = |edges: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    let found = cycles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]));
    assert_eq!(found.len(), 1);
    let mut cycle = found[0].clone();
    cycle.sort();
    assert_eq!(cycle, ["a", "b", "c"]);
    assert!(cycles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    // Files side by side and across folders, a folder's mod.rs with its part.
    let files = graph(&[
        ("measure/pin.rs", "measure/machine.rs"),
        ("measure/machine.rs", "measure/pin.rs"),
        ("measure/mod.rs", "measure/pin.rs"),
        ("measure/pin.rs", "measure/mod.rs"),
        ("report/model.rs", "measure/mod.rs"),
    ]);
    let (modules, _) = module_graph(&files);
    assert_eq!(cycles(&modules).len(), 1, "{modules:?}");
    assert!(modules["measure/pin"].contains("measure/machine"));
    assert!(modules["report"].contains("measure"));
    assert!(!modules.contains_key("measure/mod"));
    // Paths through crate::, super::, self:: and a declared module, groups
    // opened; an outside crate's path and a path's tail are not imports.
    let code = "mod part; use crate::{a::B, c::{d, e::F}}; use super::g; fn h() { self::i::j(); part::k(); other::crate_like::x(); std::fs::read(); }";
    let module = ["top".to_string(), "here".to_string()];
    let named: Vec<String> = paths_named(&module, code)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        named,
        [
            "a::B",
            "c::d",
            "c::e::F",
            "top::g",
            "top::here::i::j",
            "top::here::part::k"
        ]
    );
}

/// The functions of `code` as (name, first line, lines from `fn` to its
/// closing brace); a function inside another counts within it too.
fn function_lengths(code: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if code[..at].ends_with(is_ident) {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|&c| is_ident(c))
            .collect();
        let Some(open) = code[at..].find(['{', ';']).map(|o| at + o) else {
            continue;
        };
        if name.is_empty() || code.as_bytes()[open] == b';' {
            continue;
        }
        let close = closing_brace(code, open);
        let first = code[..at].matches('\n').count() + 1;
        let lines = code[at..=close].lines().count();
        found.push((name, first, lines));
    }
    found
}

/// The longest a function of `src/` may be, from `fn` to its closing brace.
const LONGEST_FUNCTION: usize = 80;

#[test]
fn no_function_is_longer_than_a_screen() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut long = Vec::new();
    for (file, code) in sources() {
        for (name, line, lines) in function_lengths(&code) {
            if lines > LONGEST_FUNCTION {
                let file = file.strip_prefix(&src).unwrap().display().to_string();
                long.push(format!("{file}:{line}: {name}, {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {LONGEST_FUNCTION} lines:\n{}",
        long.join("\n")
    );
    let sample = "fn a() {\n    if x { y() }\n}\nfn b();\nfn c() { fn d() {} }\n";
    assert_eq!(
        function_lengths(sample),
        [("a".into(), 1, 3), ("c".into(), 5, 1), ("d".into(), 5, 1)]
    );
}
