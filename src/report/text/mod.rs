//! Plain text for the terminal: a writer of the document
//! `sections::terminal` builds for `run`'s and `analyze`'s report (and of
//! `compare`'s and `history`'s), and the
//! tables of `verify`, `list` and `clocks`, and what `tune` changed. Every
//! table and line fits the width of the [`Look`].

pub mod clocks;
pub mod grid;
pub mod list;
pub mod tune;
pub mod verify;

use crate::analyse::Results;
use crate::report::document::{Align, Block, Span};
use comfy_table::{
    presets, Attribute, Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table,
    TableComponent, Width,
};

/// How text looks on standard output, decided once: colour and box
/// borders for a person at a terminal, and the width to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    pub color: bool,
    pub width: u16,
}

/// The width when neither `COLUMNS` nor a terminal says: what a log or a
/// CI page shows without scrolling.
pub const DEFAULT_WIDTH: u16 = 100;

/// The narrowest width honoured: tables need some room.
const MIN_WIDTH: u16 = 40;

impl Look {
    /// The look for standard output: colour as `color` decides, the
    /// width of the terminal.
    pub fn stdout(color: bool) -> Look {
        Look {
            color,
            width: width(),
        }
    }

    /// The look for standard output without a `--color` option.
    pub fn auto() -> Look {
        Look::stdout(crate::report::colour_auto())
    }
}

/// The width to fit: `COLUMNS` when set, else the terminal's when a
/// person watches standard output, else [`DEFAULT_WIDTH`].
pub fn width() -> u16 {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok());
    let terminal = || {
        crate::report::interactive(&std::io::stdout())
            .then(|| Table::new().width())
            .flatten()
    };
    columns
        .or_else(terminal)
        .unwrap_or(DEFAULT_WIDTH)
        .max(MIN_WIDTH)
}

/// The whole terminal report; `details` adds every candidate of every check.
pub fn render(results: &Results, details: bool, look: &Look) -> String {
    write(&crate::report::sections::terminal(results, details), look)
}

/// The blocks as lines of at most `look.width` columns: a blank line
/// before each heading, tables boxed.
pub fn write(blocks: &[Block], look: &Look) -> String {
    unbind(&write_bound(blocks, look))
}

/// A number and its unit, or a comparison and its number, are one word:
/// they wrap together. Held together by a no-break space, which comfy-table
/// and [`wrap`] never break at, and which [`unbind`] makes a space again.
const BIND: char = '\u{a0}';

/// The units that follow a number: sizes, times, shares and factors.
const UNITS: [&str; 14] = [
    "B", "KiB", "MiB", "GiB", "kB", "MB", "GB", "ns", "µs", "us", "ms", "s", "%", "×",
];

/// `text` with each number bound to the unit after it ("14.82 µs",
/// "2 KiB") and each comparison to the number after it ("≥ 1.43×").
pub fn bind(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut words = text.split(' ').peekable();
    while let Some(word) = words.next() {
        out += word;
        let Some(next) = words.peek() else { break };
        let unit = next.trim_end_matches([',', ';', ')', '.', ':']);
        let number = word.ends_with(|c: char| c.is_ascii_digit()) && UNITS.contains(&unit);
        let comparison = ["≥", "≤", "<", ">", "≈", "~"]
            .iter()
            .any(|c| word.ends_with(c))
            && next.starts_with(|c: char| c.is_ascii_digit());
        out.push(if number || comparison { BIND } else { ' ' });
    }
    out
}

/// What [`bind`] bound, spaced again for the reader (and for anything
/// that searches the text).
pub fn unbind(text: &str) -> String {
    text.replace(BIND, " ")
}

/// [`write`] with numbers still bound to their units.
fn write_bound(blocks: &[Block], look: &Look) -> String {
    let width = usize::from(look.width);
    let mut out = String::new();
    for block in blocks {
        match block {
            Block::Heading(_, line) => {
                out += "\n";
                out += &wrap(&bind(&line.words()), width, "");
            }
            Block::Paragraph(line) => out += &wrap(&bind(&line.words()), width, ""),
            Block::Warning(line) => {
                out += &wrap(&bind(&format!("WARNING: {}", line.words())), width, "")
            }
            Block::List(items) => {
                for item in items {
                    out += &wrap(&bind(&format!("  {}", item.words())), width, "    ");
                }
            }
            Block::Table(t) => out += &table_bound(t, look),
            Block::Fold(_, blocks) => out += &write_bound(blocks, look),
        }
    }
    out
}

/// A document table boxed to the look's width, or as records when its
/// words cannot all stand whole side by side.
pub fn table_text(t: &crate::report::document::Table, look: &Look) -> String {
    unbind(&table_bound(t, look))
}

/// [`table_text`] with numbers still bound to their units.
fn table_bound(t: &crate::report::document::Table, look: &Look) -> String {
    match table(t, look) {
        Some(boxed) => format!("{boxed}\n"),
        None => {
            // A record is one line per cell: the lines of a name or a cell
            // run on.
            let one_line = |text: &str| text.replace('\n', " ");
            let header: Vec<String> = t.columns.iter().map(|(name, _)| one_line(name)).collect();
            let rows = t
                .rows
                .iter()
                .map(|row| row.iter().map(|c| bind(&one_line(&c.words()))).collect());
            records(&header, rows, usize::from(look.width))
        }
    }
}

/// A comfy table fitted to its width ([`arrange`]), or as records when its
/// words cannot all stand whole side by side; its cells bound ([`bind`])
/// by whoever filled it, spaced again here.
pub fn fitted(mut table: Table) -> String {
    match arrange(&mut table) {
        true => unbind(&format!("{table}\n")),
        false => {
            let width = usize::from(table.width().unwrap_or(DEFAULT_WIDTH));
            let header: Vec<String> = table
                .header()
                .map(|h| {
                    h.cell_iter()
                        .map(|c| c.content().replace('\n', " "))
                        .collect()
                })
                .unwrap_or_default();
            let rows = table.row_iter().map(|r| {
                r.cell_iter()
                    .map(|c| c.content().replace('\n', " "))
                    .collect()
            });
            unbind(&records(&header, rows, width))
        }
    }
}

/// A table too wide for the width with its words whole, as one record per
/// row: the first column's header and cell, then each other column's,
/// indented; empty cells left out.
fn records(header: &[String], rows: impl Iterator<Item = Vec<String>>, width: usize) -> String {
    let mut out = String::new();
    for row in rows {
        for (i, (name, cell)) in header.iter().zip(row).enumerate() {
            let (indent, more) = if i == 0 {
                ("", "    ")
            } else {
                ("  ", "      ")
            };
            let name = name.trim();
            if cell.trim().is_empty() && i > 0 {
                continue;
            }
            out += &wrap(&format!("{indent}{name}: {}", cell.trim()), width, more);
        }
    }
    out
}

/// A document table as a comfy table arranged to the width, None if its
/// names alone are wider; marked cells painted when the look has colour.
fn table(t: &crate::report::document::Table, look: &Look) -> Option<Table> {
    let mut table = Table::new();
    style(&mut table, look);
    let alignment = |align: Align| match align {
        Align::Left => CellAlignment::Left,
        Align::Right => CellAlignment::Right,
        Align::Center => CellAlignment::Center,
    };
    table.set_header(
        t.columns
            .iter()
            .map(|(name, align)| Cell::new(bind(name)).set_alignment(alignment(*align))),
    );
    for row in &t.rows {
        table.add_row(row.iter().zip(&t.columns).map(|(line, (_, align))| {
            let cell = Cell::new(bind(&line.words())).set_alignment(alignment(*align));
            // comfy-table styles whole cells: a cell wholly strong is bold.
            let strong = matches!(&line.0[..], [Span::Strong(_), ..])
                && line.0.iter().all(|s| matches!(s, Span::Strong(_)));
            match (look.color, line.first_mark()) {
                (true, Some(mark)) => grid::paint(cell, mark),
                (true, None) if strong => cell.add_attribute(Attribute::Bold),
                _ => cell,
            }
        }));
    }
    arrange(&mut table).then_some(table)
}

/// Once the rows are in: two spaces between columns instead of three (the
/// room of a wider cell before anything wraps), and every column's width
/// chosen here, so that cells wrap only at spaces and no word breaks
/// (comfy-table breaks only words wider than their column). False if the
/// widest words of the columns side by side are wider than the table may
/// be: the caller then writes records.
pub fn arrange(table: &mut Table) -> bool {
    let count = table.column_count();
    // comfy-table draws a line, or a space, between columns when the
    // style has any of these.
    let between = [
        TableComponent::VerticalLines,
        TableComponent::TopBorderIntersections,
        TableComponent::MiddleHeaderIntersections,
        TableComponent::MiddleIntersections,
        TableComponent::BottomBorderIntersections,
    ];
    let separators = match between.into_iter().any(|c| table.style(c).is_some()) {
        true => count.saturating_sub(1),
        false => 0,
    };
    let needs = columns(table);
    let words = needs.iter().map(|n| n.word).sum::<usize>();
    let width = usize::from(table.width().unwrap_or(u16::MAX));
    let room_with = |padding: &dyn Fn(usize) -> (u16, u16)| {
        let paddings: usize = (0..count)
            .map(|i| usize::from(padding(i).0 + padding(i).1))
            .sum();
        width.saturating_sub(2 + separators + paddings)
    };
    let loose = |i: usize| if i == 0 { (1, 1) } else { (0, 1) };
    // Where the words do not fit so, the separator's space alone between
    // columns (verify's longest names at 100 columns).
    let tight = |i: usize| match i {
        0 => (1, 1),
        i if i + 1 == count => (0, 1),
        _ => (0, 0),
    };
    let padding: &dyn Fn(usize) -> (u16, u16) = match words > room_with(&loose) && separators > 0 {
        true => &tight,
        false => &loose,
    };
    let room = room_with(padding);
    let fits = words <= room;
    let widths = column_widths(&needs, room);
    for (i, (column, width)) in table.column_iter_mut().zip(widths).enumerate() {
        let (left, right) = padding(i);
        column.set_padding((left, right));
        let width = u16::try_from(width).unwrap_or(u16::MAX) + left + right;
        column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(width)));
    }
    fits
}

/// What a column needs: its widest line, its widest word and its widest
/// name, header included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Needs {
    line: usize,
    word: usize,
    name: usize,
}

fn columns(table: &mut Table) -> Vec<Needs> {
    let mut needs = vec![Needs::default(); table.column_count()];
    let width = |text: &str| text.chars().count();
    for row in table.header().into_iter().chain(table.row_iter()) {
        for (cell, needs) in row.cell_iter().zip(&mut needs) {
            let content = cell.content();
            for line in content.lines() {
                needs.line = needs.line.max(width(line));
                // Words as comfy-table splits them: at spaces only, so
                // that bound numbers and units count as one.
                for word in line.split(' ') {
                    needs.word = needs.word.max(width(word));
                    if is_name(word) {
                        needs.name = needs.name.max(width(word));
                    }
                }
            }
        }
    }
    needs
}

/// The content width of each column in `room` columns: each its widest
/// line if all fit; else at least its widest word if every column's fits,
/// else at least its widest name; what is left shared out evenly among the
/// columns that would still wrap.
fn column_widths(columns: &[Needs], room: usize) -> Vec<usize> {
    let words: usize = columns.iter().map(|c| c.word).sum();
    let mut widths: Vec<usize> = match words <= room {
        true => columns.iter().map(|c| c.word).collect(),
        false => columns.iter().map(|c| c.name.max(1)).collect(),
    };
    let mut left = room.saturating_sub(widths.iter().sum());
    loop {
        let open: Vec<usize> = (0..columns.len())
            .filter(|&i| widths[i] < columns[i].line)
            .collect();
        if open.is_empty() || left == 0 {
            return widths;
        }
        let share = (left / open.len()).max(1);
        for i in open {
            let more = share.min(columns[i].line - widths[i]).min(left);
            widths[i] += more;
            left -= more;
        }
    }
}

/// Whether a word is (part of) a name a reader looks up or copies:
/// `allreduce_lane`, `MPI_Allreduce,`.
fn is_name(word: &str) -> bool {
    word.contains('_')
}

/// The look of every table: box borders and colour for a person at a
/// terminal, ASCII otherwise, so that logs and CI summaries stay plain;
/// cells wrapped to the look's width.
pub fn style(table: &mut Table, look: &Look) {
    table.load_preset(match look.color {
        true => presets::UTF8_BORDERS_ONLY,
        false => presets::ASCII_BORDERS_ONLY_CONDENSED,
    });
    if look.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table.style_text_only();
    table
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(look.width);
}

/// `text` broken at spaces into lines of at most `width` characters (a
/// word longer than that stands alone); each line keeps its leading
/// spaces, continued lines start with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    for paragraph in text.lines() {
        let words = paragraph.trim_start();
        let mut line = paragraph[..paragraph.len() - words.len()].to_string();
        let mut first = true;
        for word in words.split(' ').filter(|w| !w.is_empty()) {
            if !first && line.chars().count() + 1 + word.chars().count() > width {
                out += &line;
                out.push('\n');
                line = indent.to_string();
                first = true;
            }
            if !first {
                line.push(' ');
            }
            line += word;
            first = false;
        }
        out += &line;
        out.push('\n');
    }
    out
}

/// Asserts that `render` at 60, 80 and 100 columns breaks no word: every
/// word of its lines, numbers bound to their units again ([`bind`]), is a
/// word of its render at a width that wraps nothing. Box borders aside, and
/// the colon that records put after a column's name.
#[cfg(test)]
pub(crate) fn assert_no_word_broken(render: impl Fn(u16) -> String) {
    let words = |text: &str| -> Vec<String> {
        text.lines()
            .flat_map(|line| {
                bind(line)
                    .split(' ')
                    .map(|w| w.trim_end_matches(':').to_string())
                    .collect::<Vec<_>>()
            })
            .filter(|w| !w.is_empty() && !w.chars().all(|c| "+-|=".contains(c)))
            .collect()
    };
    let whole: std::collections::HashSet<String> = words(&render(10_000)).into_iter().collect();
    for width in [60, 80, 100] {
        let text = render(width);
        for word in words(&text) {
            assert!(
                whole.contains(&word),
                "{word:?} is broken at {width} columns:\n{text}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{
        self, CaseData, CaseKey, Correction, Options, Outcome, Outliers, Sample, Test,
    };
    use crate::candidates::native::DEFAULT;
    use crate::report::fixture;
    use crate::report::model::{model_name, seconds, title, LEGEND};

    /// The run-in headings of two checks' candidates.
    const ALLREDUCE_8K: &str = "MPI_Allreduce, 8 KiB (8192 × byte, bor): ";
    const BCAST_8: &str = "MPI_Bcast, 8 B (8 × byte), root 2: ";

    const PLAIN: Look = Look {
        color: false,
        width: 100,
    };

    fn report(results: &Results) -> String {
        render(results, false, &PLAIN)
    }

    fn details(results: &Results) -> String {
        render(results, true, &PLAIN)
    }

    fn position(text: &str, word: &str) -> usize {
        text.find(word)
            .unwrap_or_else(|| panic!("{word} missing in\n{text}"))
    }

    /// Ten rounds of three observations around `center` seconds.
    fn sample(name: &str, center: f64, outcome: Outcome) -> Sample {
        let (mut seconds, mut rounds) = (Vec::new(), Vec::new());
        if outcome == Outcome::Measured {
            for round in 0..10u32 {
                for k in 0..3 {
                    let wobble = 1.0 + 0.01 * f64::from((round * 7 + k * 3) % 5);
                    seconds.push(center * wobble);
                    rounds.push(round);
                }
            }
        }
        Sample {
            name: name.into(),
            outcome,
            seconds,
            rounds,
            invalid_rounds: Vec::new(),
        }
    }

    fn case(size_bytes: u64, samples: Vec<Sample>) -> CaseData {
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(size_bytes),
            samples,
            smaller: None,
        }
    }

    /// The report of what the analysis found, not of a hand-made verdict.
    #[test]
    fn rows_and_notes_say_what_the_analysis_found() {
        let wrong = |why: &str| Outcome::Wrong(why.into());
        let cases = vec![
            case(
                8,
                vec![
                    sample(DEFAULT, 20e-6, Outcome::Measured),
                    sample("fast", 10e-6, Outcome::Measured),
                ],
            ),
            case(
                64,
                vec![
                    sample(DEFAULT, 0.0, wrong("rank 3, element 8: expected 1, got 0")),
                    sample("fast", 10e-6, Outcome::Measured),
                ],
            ),
            case(
                512,
                vec![
                    sample(DEFAULT, 10e-6, Outcome::Measured),
                    sample("broken", 0.0, wrong("rank 1, element 0: expected 5, got 4")),
                    sample("same", 10e-6, Outcome::Measured),
                ],
            ),
        ];
        let options = Options {
            alpha: 0.05,
            test: Test::Paired,
            correction: Correction::Holm,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
            margin: analyse::DEFAULT_MARGIN,
            qmax: analyse::DEFAULT_QMAX,
            timer_resolution_s: 0.0,
            fail_on: None,
        };
        let results = Results {
            meta: crate::meta::Meta::default(),
            complete: true,
            checks: analyse::verdicts(&cases, &options),
            guidelines: Default::default(),
            baseline: None,
            failure: None,
            exit: None,
        };
        // The compact report names the case of each failure.
        let compact = report(&results);
        assert!(
            compact
                .contains("! allreduce 64 B: the library's collective is wrong: rank 3, element 8")
                && compact.contains("! allreduce 512 B: broken failed verification"),
            "{compact}"
        );
        let text = details(&results);
        let row = |size: &str| {
            text.lines()
                .find(|l| l.trim_start_matches('|').trim_start().starts_with(size))
                .unwrap_or_else(|| panic!("no row {size}:\n{text}"))
        };
        assert!(row("8 ").contains("violated · medium-high"), "{text}");
        assert!(
            row("8 ").contains("2.000") && row("8 ").contains("fast"),
            "{text}"
        );
        assert!(
            row("64 ").contains("WRONG") && row("64 ").contains("library wrong"),
            "{text}"
        );
        assert!(row("512 ").contains("holds !"), "{text}");
        assert!(
            text.contains("! 64 B: the library's collective is wrong: rank 3, element 8"),
            "{text}"
        );
        assert!(
            text.contains("! 512 B: broken failed verification"),
            "{text}"
        );
        let lines = crate::report::failures(&results);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("the library's collective is wrong: MPI_Allreduce 64 B"));
    }

    #[test]
    fn the_baseline_shows_violations_removed_remaining_and_new() {
        let text = render(
            &fixture::results(),
            false,
            &Look {
                color: false,
                width: 300,
            },
        );
        let text = &text[position(&text, "\nBaseline\n")..];
        assert!(
            text.contains("Violations: 1 removed, 1 remaining, 0 new."),
            "{text}"
        );
        fixture::assert_contains(
            text,
            &[
                "removed",
                "violated by library_ring (1.500×, medium)",
                "only a new algorithm beats the library:",
                "Only in the baseline: MPI_Gather, 8 B per process (8 × byte), root 0",
            ],
        );
        // The removed case comes first.
        assert!(text.find("library_ring") < text.find("library_binomial"));
    }

    #[test]
    fn the_noise_verdict_heads_the_report() {
        use crate::analyse::NoiseVerdict;
        assert!(!report(&fixture::results()).contains("noise:"));
        let mut results = fixture::results_noisy();
        // In the answer, among what limits the verdicts, once.
        let text = report(&results);
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let noisy = "The set-up limits these verdicts: WARNING: noisy run: ";
        assert!(
            words.matches(noisy).count() == 1
                && words.find(noisy) > words.find("What this means")
                && words.contains(
                    "cases undecided and unable to flag 1.1× (twice the --margin's excess), more than half; median case sensitivity 1.200×"
                ),
            "{text}"
        );
        let noise = results.meta.noise.as_mut().unwrap();
        noise.verdict = NoiseVerdict::Quiet;
        noise.reason = "median case sensitivity 1.010× ≤ 1.05×".into();
        let text = report(&results);
        assert!(!text.contains("WARNING"), "{text}");
        // The details' settings say why the run is quiet.
        let text = details(&results);
        let quiet = "noise: quiet: median case sensitivity 1.010× ≤ 1.05×";
        assert!(
            text.lines().any(|l| l == quiet)
                && text.find("slowdown = ") < text.find(quiet)
                && text.find(quiet) < text.find("MPI_Allreduce"),
            "{text}"
        );
    }

    /// Constant columns leave the table: N and ppn are in the settings
    /// line, count only where it is not the size, competitors without
    /// their collective's prefix; one verdict column.
    #[test]
    fn the_table_holds_only_what_varies() {
        let mut results = fixture::results();
        let text = details(&results);
        assert!(text.starts_with("8 processes (2 nodes × 4 ppn)"), "{text}");
        let header = text.lines().find(|l| l.contains("size [B]")).unwrap();
        for gone in ["count", " N ", "ppn", "severity", "sensitivity"] {
            assert!(!header.contains(gone), "{gone} in {header}");
        }
        assert!(header.contains("verdict"), "{header}");
        let row = text.lines().find(|l| l.contains(" 8192 ")).unwrap();
        assert!(
            row.contains(" reducescatter_allgather ") && !row.contains("allreduce_as_"),
            "{row}"
        );
        results.checks[1].key.count = 2048;
        let text = details(&results);
        let header = text.lines().find(|l| l.contains("size [B]")).unwrap();
        assert!(header.contains("count"), "{header}");
        let bcast = &text[position(&text, "MPI_Bcast")..];
        let header = bcast.lines().find(|l| l.contains("size [B]")).unwrap();
        assert!(!header.contains("count"), "only where it differs: {header}");
    }

    #[test]
    fn fastest_first_then_the_unmeasured_with_reasons() {
        let text = details(&fixture::results());
        let check = &text[position(&text, ALLREDUCE_8K)..position(&text, BCAST_8)];
        let order = [
            "reducescatter_allgather",
            "default",
            "reduce_bcast",
            "allreduce_lane: wrong: rank 3: element 17 is 4, expected 5",
            "allreduce_hier: skipped: needs a commutative operator",
        ];
        let positions: Vec<usize> = order.iter().map(|w| position(check, w)).collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "order wrong in\n{check}"
        );
        let row = |name: &str| {
            check
                .lines()
                .find(|l| l.starts_with('|') && l.contains(&format!(" {name} ")))
                .unwrap()
        };
        let fastest = row("reducescatter_allgather");
        assert!(
            fastest.contains("55.00 µs") && fastest.contains("1.818 *"),
            "{fastest}"
        );
        assert!(fastest.contains("52.25–60.50 µs"), "{fastest}");
        // The corrected p-value the verdict used, not the raw 1.00e-6.
        assert!(fastest.contains("3.00e-6") && !fastest.contains("1.00e-6"));
        assert!(row("default").contains("1.000"), "{check}");
        assert!(!check.contains("invalid"), "no late starts, no column");
        let words = check.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(
                "violated · medium-high (set by reducescatter_allgather), sensitivity 1.20×"
            ),
            "{check}"
        );
    }

    /// Ranks and the median shown are the per-round medians that
    /// slowdowns compare, not the median of all observations.
    #[test]
    fn ranks_by_the_median_slowdown_compares() {
        let mut results = fixture::results();
        for c in &mut results.checks[1].candidates {
            if c.name == "allreduce_as_reduce_bcast" {
                // Slower over all observations than default (100 µs),
                // faster by its rounds.
                c.median_s = Some(130e-6);
                c.round_median_s = Some(90e-6);
                c.slowdown = Some(100.0 / 90.0);
            }
        }
        let text = details(&results);
        let check = &text[position(&text, ALLREDUCE_8K)..position(&text, BCAST_8)];
        assert!(
            position(check, " reduce_bcast ") < position(check, " default "),
            "{check}"
        );
        let row = check
            .lines()
            .find(|l| l.starts_with('|') && l.contains(" reduce_bcast "))
            .unwrap();
        assert!(
            row.contains("90.00 µs") && !row.contains("130.00 µs"),
            "{row}"
        );
    }

    #[test]
    fn titles_name_size_type_op_and_root() {
        let results = fixture::results();
        assert_eq!(
            title(&results.checks[1]),
            "MPI_Allreduce, 8 KiB (8192 × byte, bor)"
        );
        assert_eq!(
            title(&results.checks[2]),
            "MPI_Bcast, 8 B (8 × byte), root 2"
        );
        assert_eq!(
            title(&results.checks[3]),
            "MPI_Scatter, 1 MiB per process (1048576 × byte), root 0"
        );
    }

    #[test]
    fn marks_noise_and_a_default_never_measured() {
        let text = details(&fixture::results());
        let close = text
            .lines()
            .find(|l| l.contains("reducescatter_allgather") && l.contains("10.20 µs"));
        assert!(
            close.is_some_and(|l| l.contains('~') && !l.contains('*')),
            "{text}"
        );
        assert!(text.contains("default: skipped: interrupted"), "{text}");
        assert!(text.contains("root 0: no verdict: default not measured"));
        assert!(text.contains(&LEGEND[..60]));
    }

    #[test]
    fn the_raw_p_value_without_correction_and_late_starts_when_any() {
        let mut results = fixture::results();
        for check in &mut results.checks {
            for candidate in &mut check.candidates {
                candidate.p_adjusted = None;
                candidate.invalid = 10;
            }
        }
        let text = details(&results);
        let row = text
            .lines()
            .find(|l| l.starts_with('|') && l.contains("55.00 µs"))
            .unwrap();
        assert!(row.contains("1.00e-6") && row.contains("9.1 %"), "{row}");
        assert!(text.contains("invalid"), "{text}");
    }

    #[test]
    fn usual_times_follow_each_check_s_candidates() {
        assert!(!details(&fixture::results()).contains("usual times"));
        let results = fixture::results_with_usual();
        let text = render(
            &results,
            true,
            &Look {
                color: false,
                width: 200,
            },
        );
        assert_eq!(
            text.matches("usual times (Kluge et al. 2005, q_max 0.95)")
                .count(),
            3,
            "{text}"
        );
        let check = &text[position(&text, ALLREDUCE_8K)..position(&text, BCAST_8)];
        let usual = &check[position(check, "usual times")..];
        for name in ["default", "reduce_bcast", "reducescatter_allgather"] {
            let row = usual
                .lines()
                .find(|l| l.contains(&format!(" {name} ")))
                .unwrap();
            let full = match name {
                "default" => name.to_string(),
                _ => format!("allreduce_as_{name}"),
            };
            let u = &results.checks[1]
                .candidates
                .iter()
                .find(|c| c.name == full)
                .unwrap()
                .usual
                .as_ref()
                .unwrap()
                .fit;
            assert!(row.contains(model_name(u.model)), "{row}");
            assert!(row.contains(&seconds(u.tmax_s)), "{row}");
            assert!(row.contains(&format!("{} of 200", u.above_tmax)), "{row}");
        }
        assert!(
            !usual.contains("allreduce_lane"),
            "no usual time when wrong"
        );
    }

    /// Every line of the report, with details, fits the width asked for.
    #[test]
    fn every_line_fits_the_width() {
        let results = fixture::results_with_usual();
        for width in [100u16, 80] {
            for color in [false, true] {
                let look = Look { color, width };
                let text = render(&results, true, &look);
                for line in text.lines() {
                    let visible = strip_ansi(line).chars().count();
                    assert!(
                        visible <= usize::from(width),
                        "{visible} > {width} columns: {line}\n{text}"
                    );
                }
            }
        }
    }

    /// The line without ANSI escape sequences.
    fn strip_ansi(line: &str) -> String {
        let mut out = String::new();
        let mut escape = false;
        for c in line.chars() {
            match (escape, c) {
                (false, '\x1b') => escape = true,
                (true, 'm') => escape = false,
                (true, _) => {}
                (false, c) => out.push(c),
            }
        }
        out
    }

    /// Columns get their widest line when all fit, else their widest word
    /// and what is left shared out; where the widest words do not fit side
    /// by side, `arrange` says so (the caller writes records).
    #[test]
    fn columns_wrap_at_spaces_and_never_break_a_word() {
        let needs = |line, word, name| Needs { line, word, name };
        let columns = [needs(8, 4, 0), needs(19, 19, 19), needs(33, 12, 0)];
        assert_eq!(column_widths(&columns, 60), [8, 19, 33]);
        assert_eq!(column_widths(&columns, 40), [7, 19, 14]);
        let table_at = |width| {
            let mut table = Table::new();
            style(
                &mut table,
                &Look {
                    color: false,
                    width,
                },
            );
            table.set_header(vec!["size [B]", "competitor", "verdict"]);
            table.add_row(vec![
                "8".to_string(),
                "allgather_circulant".to_string(),
                bind("inconclusive (≥ 5.15×) and more"),
            ]);
            table
        };
        let mut table = table_at(44);
        assert!(arrange(&mut table));
        let text = table.to_string();
        assert!(text.lines().all(|l| l.chars().count() <= 44), "{text}");
        assert!(text.contains(" allgather_circulant "), "{text}");
        assert!(text.contains(" inconclusive "), "{text}");
        assert!(text.contains("(≥\u{a0}5.15×)"), "{text}");
        // 4 + 19 + 12 columns of words fit 42 with the separators alone between
        // the columns (7 of borders), not 41.
        assert!(arrange(&mut table_at(42)));
        assert!(!arrange(&mut table_at(41)));
    }

    /// Names that do not fit side by side: a record per row, within the
    /// width, every name whole.
    #[test]
    fn a_table_whose_names_cannot_fit_becomes_records() {
        use crate::report::document::{Line, Table as Document};
        let mut t = Document::new([
            ("violation", Align::Left),
            ("baseline", Align::Left),
            ("now", Align::Left),
        ]);
        let name = "reducescatterblock_allgather";
        t.push(vec![
            Line::plain("remaining"),
            Line::plain(format!("violated by {name} (1.312×, medium)")),
            Line::plain(format!("violated by {name} (1.3×)")),
        ]);
        let look = Look {
            color: false,
            width: 60,
        };
        let text = write(&[Block::Table(t)], &look);
        assert_eq!(
            text,
            format!(
                "violation: remaining\n  baseline: violated by {name}\n      (1.312×, medium)\n  now: violated by {name} (1.3×)\n"
            )
        );
    }

    /// Every table and line of the report, with every candidate, at 60,
    /// 80 and 100 columns: no word broken ("collectiv/e", "14.82/µs").
    #[test]
    fn the_report_breaks_no_word_at_any_width() {
        let results = fixture::results();
        for details in [false, true] {
            assert_no_word_broken(|width| {
                render(
                    &results,
                    details,
                    &Look {
                        color: false,
                        width,
                    },
                )
            });
        }
    }

    /// A competitor left out for memory says why on the terminal too, not
    /// only in report.md; other skips stay in the details.
    #[test]
    fn a_skip_for_memory_is_named_without_details() {
        let mut results = fixture::results();
        let why = "may need 70.0 MiB per process with the scratch of 2 competitors, above --max-memory 64.0 MiB";
        results.checks[0].candidates.push(fixture::excluded(
            "allreduce_as_reduce_bcast",
            "skipped",
            why,
        ));
        let text = report(&results)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            text.matches("above --max-memory 64.0 MiB").count(),
            1,
            "{text}"
        );
        assert!(
            text.contains("allreduce 8 B: skipped: reduce_bcast: may need 70.0 MiB"),
            "{text}"
        );
        assert!(!text.contains("needs a commutative operator"), "{text}");
    }

    #[test]
    fn binds_numbers_to_units_and_comparisons_to_numbers() {
        assert_eq!(
            bind("took 14.82 µs, 2 KiB (≥ 1.43×) at 8 B"),
            "took 14.82\u{a0}µs, 2\u{a0}KiB (≥\u{a0}1.43×) at 8\u{a0}B"
        );
        assert_eq!(unbind(&bind("8 B")), "8 B");
        assert_eq!(bind("split-robustness holds"), "split-robustness holds");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_indents_what_follows() {
        assert_eq!(wrap("aa bb cc", 5, "  "), "aa bb\n  cc\n");
        assert_eq!(
            wrap("  a-very-long-word b", 6, "    "),
            "  a-very-long-word\n    b\n"
        );
        assert_eq!(wrap("short", 100, ""), "short\n");
    }
}
