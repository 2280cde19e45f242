//! The README is a front page and docs/ holds the rest: every relative link
//! of README.md and docs/*.md leads to a file that exists (and to a heading
//! of it, when it names one), the README stays short, papers are cited by
//! name, and the README's exit-status table lists every status.

use std::path::{Path, PathBuf};

/// The most lines the front page may have.
const README_MAX_LINES: usize = 250;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every Markdown page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The lines of `markdown` outside fenced code blocks.
fn outside_fences(markdown: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// The text outside code blocks and code spans, where a `[x](y)` is a
/// link.
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    for line in outside_fences(markdown) {
        // Between backticks is code: keep every other piece.
        out.extend(line.split('`').step_by(2));
        out.push('\n');
    }
    out
}

/// The targets of the inline links `[text](target)` of `markdown`.
fn link_targets(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    let mut targets = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].trim().to_string());
            rest = &rest[end..];
        }
    }
    targets
}

/// A heading's anchor as GitHub makes it: lower case, spaces to hyphens,
/// everything but letters, digits, `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of every heading of `markdown`.
fn anchors(markdown: &str) -> Vec<String> {
    outside_fences(markdown)
        .into_iter()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// What is wrong with one link of `page`, if anything.
fn broken(page: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (file, fragment) = match target.split_once('#') {
        Some((file, fragment)) => (file, Some(fragment)),
        None => (target, None),
    };
    let dest = match file {
        "" => page.to_path_buf(),
        file => page.parent().unwrap().join(file),
    };
    if !dest.exists() {
        return Some(format!("{target}: no file {}", dest.display()));
    }
    let fragment = fragment?;
    if dest.extension().is_some_and(|e| e == "md")
        && !anchors(&read(&dest)).iter().any(|a| a == fragment)
    {
        return Some(format!(
            "{target}: no heading #{fragment} in {}",
            dest.display()
        ));
    }
    None
}

#[test]
fn every_relative_link_leads_to_a_file_and_heading_that_exist() {
    let mut links = 0;
    let mut problems = Vec::new();
    for page in pages() {
        for target in link_targets(&read(&page)) {
            links += 1;
            if let Some(problem) = broken(&page, &target) {
                let name = page.strip_prefix(root()).unwrap().display().to_string();
                problems.push(format!("{name}: {problem}"));
            }
        }
    }
    assert!(links > 20, "too few links found: {links}");
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_readme_is_a_front_page() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; the front page keeps at most {README_MAX_LINES}, the rest goes to docs/"
    );
}

/// Every file under `dir` (recursively).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        match path.is_dir() {
            true => files.extend(files_under(&path)),
            false => files.push(path),
        }
    }
    files
}

/// Where `text` cites a paper by a private number ("seed 003") instead of
/// by its authors.
fn private_citations(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    lower
        .match_indices("seed 0")
        .filter(|(at, found)| {
            lower[at + found.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|(at, _)| lower[at..(at + 12).min(lower.len())].to_string())
        .collect()
}

#[test]
fn papers_are_cited_by_name_not_by_a_private_number() {
    let mut shipped = files_under(&root().join("src"));
    shipped.extend(pages());
    let mut found = Vec::new();
    for path in shipped {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for citation in private_citations(&text) {
            let name = path.strip_prefix(root()).unwrap().display().to_string();
            found.push(format!("{name}: {citation}"));
        }
    }
    assert!(
        found.is_empty(),
        "cite the paper by its authors (docs/REFERENCES.md): {found:?}"
    );
}

#[test]
fn the_readme_lists_every_exit_status() {
    let readme = read(&root().join("README.md"));
    // The table of its own section: other tables may start a row with a
    // number too.
    let rows: Vec<i32> = readme
        .lines()
        .skip_while(|l| *l != "## Exit status")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("| ")?.split(' ').next()?.parse().ok())
        .collect();
    let codes: Vec<i32> = pgcheck::exit::Exit::ALL
        .map(pgcheck::exit::Exit::code)
        .to_vec();
    assert_eq!(
        rows, codes,
        "README.md's exit-status table against exit::Exit::ALL"
    );
}

#[test]
fn the_link_finder_and_the_anchors_follow_markdown() {
    let page = "[a](docs/x.md) `[not](code)`\n```\n[in](fence.md)\n```\n[b](#two-words)";
    assert_eq!(link_targets(page), ["docs/x.md", "#two-words"]);
    assert_eq!(
        anchor(" The library's own algorithms, and `tune`"),
        "the-librarys-own-algorithms-and-tune"
    );
    assert_eq!(
        anchor("Trust: wrong and hung calls"),
        "trust-wrong-and-hung-calls"
    );
    assert_eq!(
        private_citations("Seed 003's model; --seed 0; seed 0)"),
        ["seed 003's m"]
    );
}

/// The fences of `markdown` without a language (quoted terminal output),
/// each with the paragraph before it.
fn quoted_outputs(markdown: &str) -> Vec<(String, Vec<&str>)> {
    let (mut quotes, mut paragraph, mut ended) = (Vec::new(), String::new(), false);
    // Inside a fence: Some(its lines) for quoted output, None for code.
    let mut fence: Option<Option<Vec<&str>>> = None;
    for line in markdown.lines() {
        let marker = line.trim_start().strip_prefix("```");
        match (&mut fence, marker) {
            (None, Some(language)) => fence = Some(language.is_empty().then(Vec::new)),
            (Some(quote), Some(_)) => {
                if let Some(lines) = quote.take() {
                    quotes.push((std::mem::take(&mut paragraph), lines));
                }
                fence = None;
            }
            (Some(quote), None) => quote.iter_mut().for_each(|lines| lines.push(line)),
            (None, None) if line.trim().is_empty() => ended = true,
            (None, None) => {
                if std::mem::take(&mut ended) {
                    paragraph.clear();
                }
                paragraph += &format!("{line}\n");
            }
        }
    }
    quotes
}

/// Quoted reports are the current ones: their tables fit the 100 columns
/// of a piped report, but where the text before says the quote is from
/// an earlier pgcheck.
#[test]
fn quoted_report_tables_fit_100_columns() {
    let mut problems = Vec::new();
    for page in pages() {
        let markdown = read(&page);
        for (before, lines) in quoted_outputs(&markdown) {
            let before = before.split_whitespace().collect::<Vec<_>>().join(" ");
            if before.contains("earlier pgcheck") {
                continue;
            }
            for line in lines
                .iter()
                .filter(|l| l.starts_with('|') || l.starts_with("+-"))
            {
                if line.chars().count() > 100 {
                    problems.push(format!("{}: {line}", page.display()));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "tables wider than the report's:\n{}",
        problems.join("\n")
    );
}

/// results.json's schema names every operation pgcheck checks, and no
/// other.
#[test]
fn the_schema_names_every_operation() {
    let schema: serde_json::Value =
        serde_json::from_str(&read(&root().join("docs/results.schema.json"))).unwrap();
    let mut names: Vec<String> = pgcheck::operation::Operation::all()
        .map(|o| o.name())
        .collect();
    let mut listed: Vec<String> = schema["$defs"]["collective"]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("no $defs.collective.enum in the schema"))
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    names.sort();
    listed.sort();
    assert_eq!(listed, names);
}
