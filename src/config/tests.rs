//! Whole files through `parse`: messages, their lines and the defaults.

use super::*;
use crate::settings::TimedForms;

fn parse_str(text: &str) -> Result<Config, InputError> {
    parse(Path::new("test.yaml"), text)
}

fn error(text: &str) -> String {
    parse_str(text).unwrap_err().0
}

/// `text` fails at `line` with a message that contains `part`.
fn fails_at(text: &str, line: usize, part: &str) {
    let err = error(text);
    assert!(
        err.starts_with(&format!("test.yaml:{line}:")) && err.contains(part),
        "{err}"
    );
}

#[test]
fn parses_defaults_and_checks() {
    let config = parse_str(
        "budget: 250ms\ndatatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [8, 64]\n  - collective: bcast\n    sizes: [4]\n    root: 2\n",
    )
    .unwrap();
    assert_eq!(config.budget, Some(Duration::from_millis(250)));
    assert_eq!(config.checks.len(), 2);
    assert_eq!(config.checks[1].root, 2);
    assert_eq!(config.checks[1].line, 7);
    assert_eq!(config.checks[0].datatype, Datatype::Int32);
    assert_eq!(config.ppn_line, None);
    let config =
        parse_str("budget: 1s\nppn: 2\nchecks:\n  - collective: allreduce\n    sizes: [8]\n")
            .unwrap();
    assert_eq!((config.ppn, config.ppn_line), (Some(2), Some(2)));
}

#[test]
fn sync_takes_auto_barrier_and_roundtime() {
    use crate::settings::SyncRequest;
    let checks = "checks:\n  - collective: allreduce\n    sizes: [8]\n";
    assert_eq!(parse_str(checks).unwrap().sync, None);
    for request in [
        SyncRequest::Auto,
        SyncRequest::Barrier,
        SyncRequest::Roundtime,
    ] {
        let config = parse_str(&format!("sync: {}\n{checks}", request.name())).unwrap();
        assert_eq!(config.sync, Some(request));
    }
    fails_at(&format!("sync: clocks\n{checks}"), 1, "auto");
}

#[test]
fn names_the_line_and_suggests() {
    fails_at(
        "checks:\n  - collective: allreduc\n    sizes: [8]\n",
        2,
        "did you mean `allreduce`",
    );
    fails_at(
        "checks:\n  - collective: allreduce\n    sizes: [8]\n    colour: red\n",
        4,
        "colour",
    );
    fails_at(
        "budgt: 1s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n",
        1,
        "did you mean `budget`",
    );
}

#[test]
fn values_are_reported_at_their_own_line() {
    fails_at(
        "checks:\n  - sizes: [8]\n    collective: allreduc\n",
        3,
        "unknown collective",
    );
    fails_at(
        "datatype: byte\n\nbudget: -1s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n",
        3,
        "positive",
    );
    fails_at(
        "checks:\n  - collective: allreduce\n    sizes:\n      - 8\n      - 0\n",
        5,
        "size 0",
    );
    fails_at(
        "rounds: 1\nppn: 0\nchecks:\n  - collective: allreduce\n    sizes: [8]\n",
        2,
        "ppn",
    );
    fails_at(
        "checks:\n  - collective: bcast\n    sizes: [8]\n    competitors: 5\n",
        4,
        "`all`, `library` or a list",
    );
}

#[test]
fn checks_sizes_against_the_datatype() {
    fails_at(
        "datatype: int64\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [12]\n",
        4,
        "multiple",
    );
    fails_at(
        "checks:\n  - collective: bcast\n    sizes: [1000000000000000]\n",
        2,
        "MPI count",
    );
    let fits =
        "datatype: int64\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [17179869176]\n";
    assert!(parse_str(fits).is_ok());
}

#[test]
fn duplicate_keys_are_reported_where_they_repeat() {
    let err = error(
        "budget: 1s\nrounds: 2\nbudget: 2s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n",
    );
    assert!(
        err.starts_with("test.yaml:3: duplicate field `budget`"),
        "{err}"
    );
    let err = error("checks:\n  - collective: allreduce\n    sizes: [8]\n  - collective: bcast\n    sizes: [8]\n    sizes: [16]\n");
    assert!(
        err.starts_with("test.yaml:6: checks[1]: duplicate field `sizes`"),
        "{err}"
    );
}

#[test]
fn libyaml_messages_lose_only_the_location() {
    let err = error("checks:\n  - collective: allreduce\n    sizes: [8, 64]]\n");
    assert_eq!(
        err,
        "test.yaml:3: did not find expected key, while parsing a block mapping"
    );
}

#[test]
fn an_empty_list_of_checks_has_a_line() {
    for text in ["budget: 1s\nchecks: []\n", "budget: 1s\nchecks:\n"] {
        fails_at(text, 2, "empty");
    }
    assert!(error("# nothing\n").contains("empty"));
}

#[test]
fn finds_entry_lines_in_every_layout() {
    let flush =
        "checks:\n- collective: allreduce\n  sizes: [8]\n- collective: bcast\n  sizes: [8]\n";
    let lines: Vec<usize> = parse_str(flush)
        .unwrap()
        .checks
        .iter()
        .map(|c| c.line)
        .collect();
    assert_eq!(lines, [2, 4]);
    let flow = "budget: 1s\nchecks: [{collective: allreduce, sizes: [8]}]\n";
    assert_eq!(parse_str(flow).unwrap().checks[0].line, 2);
}

#[test]
fn rejects_settings_that_do_not_apply() {
    let check = "checks:\n  - collective: allreduce\n    sizes: [8]\n";
    fails_at(&format!("{check}    root: 0\n"), 2, "`root` applies only");
    fails_at(
        &format!("{check}    blocks: 4\n"),
        2,
        "`blocks` applies only",
    );
    fails_at(
        &format!("{check}    competitors: [bcast_as_scatter_allgather]\n"),
        2,
        "is a competitor of bcast",
    );
}

#[test]
fn library_and_all_select_families_in_a_competitor_list() {
    let config = parse_str(
        "checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: library\n  - collective: bcast\n    sizes: [8]\n    competitors: [all, library]\n",
    )
    .unwrap();
    assert_eq!(
        config.checks[0].competitors,
        Some(vec!["library".to_string()])
    );
    assert_eq!(
        config.checks[1].competitors,
        Some(vec!["all".to_string(), "library".to_string()])
    );
    // `all` expands to the built-in competitors, never the library's.
    let names = crate::candidates::select(
        crate::collective::Collective::Bcast.into(),
        &config.checks[1].competitors.clone().unwrap(),
    );
    assert!(names.contains(&"bcast_as_scatter_allgather"));
    assert!(names.iter().all(|n| !n.contains("_as_library_")));
}

/// A nonblocking collective is its own check: `iallreduce` beside
/// `allreduce` at the same sizes is no duplicate; its competitors are its
/// own, and a blocking one's name is refused, with whose it is.
#[test]
fn nonblocking_collectives_are_checks_of_their_own() {
    let config = parse_str(
        "checks:\n  - collective: allreduce\n    sizes: [8]\n  - collective: iallreduce\n    sizes: [8]\n    competitors: [iallreduce_as_allreduce]\n",
    )
    .unwrap();
    assert_eq!(config.checks[1].operation.name(), "iallreduce");
    assert_eq!(
        config.checks[1].operation.form,
        crate::operation::Form::Nonblocking
    );
    fails_at(
        "checks:\n  - collective: iallreduce\n    sizes: [8]\n    competitors: [allreduce_as_reduce_bcast]\n",
        2,
        "(`allreduce_as_reduce_bcast` is a competitor of allreduce)",
    );
    fails_at(
        "checks:\n  - collective: iallreduse\n    sizes: [8]\n",
        2,
        "(did you mean `iallreduce`?)",
    );
}

#[test]
fn in_place_chooses_the_timed_forms_of_default() {
    let check = "checks:\n  - collective: allreduce\n    sizes: [8]\n";
    let forms = |value: &str| {
        parse_str(&format!("{check}    in_place: {value}\n"))
            .unwrap()
            .checks[0]
            .in_place
    };
    assert_eq!(
        parse_str(check).unwrap().checks[0].in_place,
        TimedForms::Usual
    );
    assert_eq!(forms("false"), TimedForms::Usual);
    assert_eq!(forms("true"), TimedForms::InPlace);
    assert_eq!(forms("both"), TimedForms::Both);
    assert_eq!(forms("\"true\""), TimedForms::InPlace);
}

#[test]
fn a_bad_in_place_is_reported_at_its_line() {
    let check = "checks:\n  - collective: scan\n    sizes: [8]\n";
    for value in ["yes_please", "2", "bothh", "[true]"] {
        let text = format!("{check}    in_place: {value}\n");
        let line = 4;
        let err = error(&text);
        assert!(
            err.starts_with(&format!("test.yaml:{line}:")) && err.contains("`true` or `both`"),
            "{value}: {err}"
        );
    }
    // bcast has no MPI_IN_PLACE form: reported at the line of its check.
    fails_at(
        "checks:\n  - collective: allreduce\n    sizes: [8]\n  - collective: bcast\n    sizes: [8]\n    in_place: both\n",
        4,
        "`in_place` applies to every blocking collective but bcast",
    );
    // Nor are the nonblocking forms timed in place.
    fails_at(
        "checks:\n  - collective: iallreduce\n    sizes: [8]\n    in_place: true\n",
        2,
        "`in_place` applies to every blocking collective but bcast",
    );
    fails_at(
        "checks:\n  - collective: gather\n    sizes: [8]\n    in_plase: true\n",
        4,
        "in_place",
    );
}

#[test]
fn sizes_take_units_and_ranges_as_the_command_line_does() {
    let sizes = |yaml: &str| {
        let text = format!("checks:\n  - collective: allreduce\n    sizes: {yaml}\n");
        parse_str(&text).map(|c| c.checks[0].sizes.clone())
    };
    assert_eq!(
        sizes("[8, 1KiB, 4K:16K]").unwrap(),
        [8, 1024, 4096, 8192, 16384]
    );
    assert_eq!(sizes("[\"1K\", 64]").unwrap(), [1024, 64]);
    assert_eq!(sizes("8, 1K:4K").unwrap(), [8, 1024, 2048, 4096]);
    assert_eq!(sizes("4K:1M:16").unwrap(), [4096, 65536, 1 << 20]);
    assert_eq!(sizes("64").unwrap(), [64]);
    // The error names the bad entry, at the line where it stands.
    fails_at(
        "checks:\n  - collective: allreduce\n    sizes:\n      - 8\n      - 1X\n",
        5,
        "unknown unit `X` in `1X`",
    );
    fails_at(
        "checks:\n  - collective: allreduce\n    sizes: [8, 8:64]\n",
        3,
        "size 8 is listed twice",
    );
    fails_at(
        "checks:\n  - collective: allreduce\n    sizes: 1M:4K\n",
        3,
        "range `1M:4K` ends below its start",
    );
}

#[test]
fn a_check_from_the_options_is_checked_as_a_file_s_and_names_the_options() {
    let check = |collective: Collective, root, datatype| RawCheck {
        collective: collective.into(),
        sizes: vec![8, 1024],
        root,
        competitors: None,
        datatype,
        op: None,
        blocks: None,
        in_place: None,
    };
    let config = from_options(check(Collective::Bcast, Some(1), None)).unwrap();
    assert_eq!(config.source, Source::Options);
    assert_eq!(config.checks[0].sizes, [8, 1024]);
    assert_eq!(config.checks[0].root, 1);
    assert_eq!(
        (config.checks[0].datatype, config.checks[0].op),
        (Datatype::Byte, Op::Bor)
    );
    let err = from_options(check(Collective::Allreduce, Some(1), None)).unwrap_err();
    assert_eq!(
        err.0,
        "--root applies only to bcast, gather, reduce and scatter"
    );
    let err =
        from_options(check(Collective::Allreduce, None, Some(Datatype::Float32))).unwrap_err();
    assert_eq!(
        err.0,
        "op `bor` is not defined for datatype `float32` (bitwise ops need an integer type) \
         (give --op, the default is bor)"
    );
    let err = from_options(RawCheck {
        competitors: Some(vec!["bcast_as_scatter_allgathr".into()]),
        ..check(Collective::Bcast, None, None)
    })
    .unwrap_err();
    assert!(
        err.0
            .starts_with("unknown competitor of bcast `bcast_as_scatter_allgathr`"),
        "{}",
        err.0
    );
}

#[test]
fn the_default_input_is_inputs_quick_yaml_with_automatic_synchronisation() {
    let file =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/inputs/quick.yaml")).unwrap();
    assert_eq!(DEFAULT_INPUT, file, "compiled in from the file to copy");
    let config = default_input().unwrap();
    assert_eq!(config.source, Source::Default);
    // No `sync: roundtime`, whose warning on shared CPUs confused users
    // who never asked for it.
    assert_eq!(config.sync, Some(SyncRequest::Auto));
    assert_eq!(config.checks.len(), 5);
    // Its errors name it as the default input.
    let broken = parse_from(DEFAULT_INPUT_NAME, Source::Default, "checks: 3\n").unwrap_err();
    assert!(
        broken
            .0
            .starts_with("the default input (inputs/quick.yaml):1: "),
        "{broken}"
    );
    let config = default_input().unwrap();
    let e = config.error_at(7, "no");
    assert_eq!(e.0, "the default input (inputs/quick.yaml):7: no");
}

#[test]
fn in_place_from_the_command_line_goes_over_every_check_with_an_in_place_form() {
    let config = default_input().unwrap().with_in_place(TimedForms::Both);
    for check in &config.checks {
        let expected = match check.operation.collective {
            Collective::Bcast => TimedForms::Usual,
            _ => TimedForms::Both,
        };
        assert_eq!(check.in_place, expected, "{:?}", check.operation);
    }
}

/// Only a barrier, which moves no data, may leave out `sizes`.
#[test]
fn only_a_barrier_needs_no_sizes() {
    for barrier in ["barrier", "ibarrier", "barrier_init"] {
        let config = parse_str(&format!("checks:\n  - collective: {barrier}\n")).unwrap();
        assert!(config.checks[0].sizes.is_empty(), "{barrier}");
    }
    fails_at(
        "checks:\n  - collective: barrier\n  - collective: iallreduce\n",
        3,
        "`sizes` is missing",
    );
}
