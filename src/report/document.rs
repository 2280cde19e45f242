//! The report as one document that no format owns: headings, paragraphs,
//! tables with their alignment, lists and folds, whose words carry marks
//! (code, emphasis, a severity) instead of markup. `sections` builds it from
//! the results once; the terminal (`text`) and Markdown (`markdown`) writers
//! only decide how each piece looks.

use super::model::Mark;

/// A piece of a line and what it is.
#[derive(Clone, Debug, PartialEq)]
pub enum Span {
    Plain(String),
    /// A name the reader may type: a candidate, a file, a variable.
    Code(String),
    /// What must not be missed.
    Strong(String),
    /// Words that stand for a mark of the grid (coloured on a terminal,
    /// with an emoji in Markdown).
    Mark(Mark, String),
    /// A sign that only formats with pictures show.
    Icon(Icon),
    /// The end of a line within a table's cell.
    Break,
}

/// The signs of a headline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icon {
    Pass,
    Fail,
    Warning,
}

/// A line of spans; also a table's cell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line(pub Vec<Span>);

impl Line {
    pub fn plain(text: impl Into<String>) -> Line {
        Line(vec![Span::Plain(text.into())])
    }

    pub fn code(text: impl Into<String>) -> Line {
        Line(vec![Span::Code(text.into())])
    }

    pub fn mark(mark: Mark, text: impl Into<String>) -> Line {
        Line(vec![Span::Mark(mark, text.into())])
    }

    /// This line, then `text`.
    pub fn and(mut self, text: impl Into<String>) -> Line {
        self.0.push(Span::Plain(text.into()));
        self
    }

    /// This line, then `text` as code.
    pub fn and_code(mut self, text: impl Into<String>) -> Line {
        self.0.push(Span::Code(text.into()));
        self
    }

    /// This line, then `text` emphasised.
    pub fn and_strong(mut self, text: impl Into<String>) -> Line {
        self.0.push(Span::Strong(text.into()));
        self
    }

    /// These lines, one under the other.
    pub fn lines(lines: impl IntoIterator<Item = Line>) -> Line {
        let mut all = Line::default();
        for (i, line) in lines.into_iter().enumerate() {
            if i > 0 {
                all.0.push(Span::Break);
            }
            all.0.extend(line.0);
        }
        all
    }

    pub fn and_icon(mut self, icon: Icon) -> Line {
        self.0.push(Span::Icon(icon));
        self
    }

    /// The words without marks, as a format without markup shows them.
    pub fn words(&self) -> String {
        self.0
            .iter()
            .map(|span| match span {
                Span::Plain(s) | Span::Code(s) | Span::Strong(s) | Span::Mark(_, s) => s.as_str(),
                Span::Icon(_) => "",
                Span::Break => "\n",
            })
            .collect()
    }

    /// The mark of the line's first marked span, for colouring a cell.
    pub fn first_mark(&self) -> Option<Mark> {
        self.0.iter().find_map(|span| match span {
            Span::Mark(mark, _) => Some(*mark),
            _ => None,
        })
    }
}

impl From<String> for Line {
    fn from(text: String) -> Line {
        Line::plain(text)
    }
}

impl From<&str> for Line {
    fn from(text: &str) -> Line {
        Line::plain(text)
    }
}

/// How a column's cells line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
    Center,
}

impl Align {
    /// Right for numbers, left for words.
    pub fn numeric(numeric: bool) -> Align {
        if numeric {
            Align::Right
        } else {
            Align::Left
        }
    }
}

/// A table: named, aligned columns and rows of as many cells; a `\n` in a
/// column's name breaks it into lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Align)>,
    pub rows: Vec<Vec<Line>>,
}

impl Table {
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = (S, Align)>) -> Table {
        Table {
            columns: columns.into_iter().map(|(c, a)| (c.into(), a)).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<Line>) {
        debug_assert_eq!(row.len(), self.columns.len(), "a cell per column");
        self.rows.push(row);
    }
}

/// One piece of the document.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// Level 2 heads the report, 3 a section, 4 a run-in heading of one
    /// case (Markdown keeps it out of the outline).
    Heading(u8, Line),
    Paragraph(Line),
    /// A warning a reader must see before anything else.
    Warning(Line),
    Table(Table),
    /// Notes, one a line.
    List(Vec<Line>),
    /// Content a reader opens on demand, with what it holds.
    Fold(String, Vec<Block>),
}
