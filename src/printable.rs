//! Text that comes from outside pgcheck (the library's version string,
//! MPI_T's names, host names, environment variables) made safe to print
//! and to publish: no control characters. Open MPI's
//! `MPI_Get_library_version` counts its terminating NUL into the length it
//! returns, and one NUL makes `grep` call report.md binary; a stray escape
//! sequence would rewrite a terminal or a CI log. Cleaned where pgcheck
//! reads it, so that every output built from it is clean.

/// `raw` without control characters, line breaks and tabs included: for
/// one-line values (names, host names, variables).
pub fn line(raw: &str) -> String {
    raw.chars().filter(|c| !c.is_control()).collect()
}

/// `raw` without control characters but line breaks and tabs, with `\r\n`
/// as `\n`, and without surrounding whitespace: for text of several lines
/// (the library's version).
pub fn text(raw: &str) -> String {
    raw.chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_go_and_line_breaks_stay_where_text_allows_them() {
        let open_mpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\0";
        assert_eq!(text(open_mpi), open_mpi.trim_end_matches('\0'));
        let mpich = "MPICH Version:\t4.0.2\r\nMPICH Release date: Thu\u{1b}[31m\n\0";
        assert_eq!(
            text(mpich),
            "MPICH Version:\t4.0.2\nMPICH Release date: Thu[31m"
        );
        assert_eq!(line("a\tb\nc\0\u{7f}\u{85}d é"), "abcd é");
    }
}
