//! The files a run writes are formats others build on: results.json
//! against its JSON Schema (docs/results.schema.json).

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// The schema, compiled.
fn schema() -> (Value, jsonschema::Validator) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid JSON Schema");
    (schema, validator)
}

/// The schema at `#/$defs/…` for a `$ref`, else `node` itself.
fn resolve<'a>(schema: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference.trim_start_matches('#');
            resolve(
                schema,
                schema.pointer(pointer).expect("a $ref into the schema"),
            )
        }
        None => node,
    }
}

/// Every property of `instance` that the schema lists properties for is
/// described there: a field added to results.json must be documented.
fn undocumented(schema: &Value, node: &Value, instance: &Value, at: &str, out: &mut Vec<String>) {
    let node = resolve(schema, node);
    match instance {
        Value::Object(fields) => {
            let Some(properties) = node.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (name, value) in fields {
                match properties.get(name) {
                    Some(inner) => undocumented(schema, inner, value, &format!("{at}.{name}"), out),
                    None => out.push(format!("{at}.{name}")),
                }
            }
        }
        Value::Array(items) => {
            if let Some(inner) = node.get("items") {
                for (i, item) in items.iter().enumerate() {
                    undocumented(schema, inner, item, &format!("{at}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// Temporary and lock files (`.results.json.tmp`) are no output.
fn entry_is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

/// `results` is valid against the schema and every field is described.
fn assert_conforms(name: &str, results: &Value) {
    let (schema, validator) = schema();
    let errors: Vec<String> = validator
        .iter_errors(results)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name}: {}", errors.join("\n"));
    let mut missing = Vec::new();
    undocumented(&schema, &schema, results, "", &mut missing);
    assert!(
        missing.is_empty(),
        "{name}: not in docs/results.schema.json: {}",
        missing.join(", ")
    );
}

/// A run's results.json, after `pgcheck run INPUT ARGS` on 2 ranks.
fn run(dir: &Path, name: &str, yaml: &str, args: &[&str], env: &[(&str, &str)]) -> Value {
    let file = input(dir, &format!("{name}.yaml"), yaml);
    let launch = Launch::new(2, &["run", &file])
        .output(&dir.join(name))
        .args(args);
    let out = with_env(launch, env).run();
    assert!(matches!(out.code, Some(0 | 1 | 3 | 9)), "{}", out.text());
    out.results().clone()
}

const AA: &str = "budget: 60ms\nrounds: 8\nsync: barrier\ndatatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [512, 8192]\n    competitors: [allreduce_as_allreduce_self]\n";

/// Runs with a violation, against a baseline, and with a wrong
/// candidate, written as pgcheck writes them, conform to the schema.
#[test]
#[cfg_attr(not(feature = "testing"), ignore = "needs --features testing")]
fn every_results_json_conforms_to_its_schema() {
    let dir = scratch("formats-schema");
    // The library's call slowed 5× against itself: a violation.
    let slowed = run(
        &dir,
        "violated",
        AA,
        &["--margin", "1.5"],
        &[("PGCHECK_TEST_SLOW_DEFAULT", "5")],
    );
    assert_eq!(slowed["schema_version"], 1);
    assert!(slowed["meta"]["run_id"]
        .as_str()
        .is_some_and(|id| !id.is_empty()));
    assert_conforms("a run with a violation", &slowed);
    let baseline = dir.join("violated");
    let against = run(
        &dir,
        "against-baseline",
        AA,
        &["--margin", "1.5", "--baseline", baseline.to_str().unwrap()],
        &[],
    );
    assert!(against["baseline"].is_object(), "{against}");
    assert_conforms("a run with a baseline", &against);
    let wrong = run(
        &dir,
        "wrong",
        "budget: 20ms\nrounds: 8\ndatatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [64]\n    competitors: [allreduce_as_allreduce_corrupted, allreduce_as_allreduce_self]\n",
        &[],
        &[],
    );
    assert_eq!(wrong["checks"][0]["candidates"][1]["status"], "wrong");
    assert_conforms("a run with a wrong candidate", &wrong);
    // `run --help` names every file a run writes.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["run", "--help"])
        .output()
        .expect("pgcheck starts");
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for entry in std::fs::read_dir(&baseline).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        let named = match name.split_once('-') {
            Some((kind @ ("check" | "rounds" | "usual"), _)) => {
                format!("{kind}-<collective>-<size>B.svg")
            }
            Some(("latency", _)) => "latency-<collective>.svg".to_string(),
            _ => name.clone(),
        };
        if !entry_is_hidden(&name) {
            assert!(
                help.contains(&named),
                "{name} is not in run --help:\n{help}"
            );
        }
    }
    // `analyze` writes the same format.
    let again = dir.join("again");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .arg("analyze")
        .args(REPORT_ONLY)
        .arg(&baseline)
        .arg("--output")
        .arg(&again)
        .output()
        .expect("pgcheck starts");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_conforms("an analysis", &results(&again));
}

/// The schema finds what it is there to find: a field removed, a wrong
/// type, a field nobody described.
#[test]
fn the_schema_refuses_what_it_does_not_describe() {
    let (schema, validator) = schema();
    let good = serde_json::json!({
        "schema_version": 1,
        "complete": true,
        "checks": [{
            "collective": "allreduce", "size_bytes": 8, "count": 8, "datatype": "byte",
            "op": "bor", "root": 0, "verdict": "holds", "candidates": [],
            "slowdown": null, "p_value": null, "fastest": null, "severity": "ok",
            "violated_by": null
        }]
    });
    assert!(validator.is_valid(&good));
    let mut no_verdict = good.clone();
    no_verdict["checks"][0]
        .as_object_mut()
        .unwrap()
        .remove("verdict");
    assert!(!validator.is_valid(&no_verdict));
    let mut text_size = good.clone();
    text_size["checks"][0]["size_bytes"] = "8".into();
    assert!(!validator.is_valid(&text_size));
    let mut newer = good.clone();
    newer["schema_version"] = 2.into();
    assert!(!validator.is_valid(&newer));
    let mut added = good.clone();
    added["checks"][0]["colour"] = "red".into();
    let mut missing = Vec::new();
    undocumented(&schema, &schema, &added, "", &mut missing);
    assert_eq!(missing, [".checks[0].colour"]);
    // The schema itself refuses a field it does not describe, in a case
    // (whose key's fields it takes from case_key) and at the top.
    assert!(!validator.is_valid(&added));
    assert_eq!(
        schema_errors(&added),
        ["Additional properties are not allowed ('colour' was unexpected) at /checks/0"]
    );
    let mut top = good.clone();
    top["colour"] = "red".into();
    assert!(!validator.is_valid(&top));
    let mut guidelines = good.clone();
    guidelines["guidelines"] = serde_json::json!({ "monotony": [], "colour": "red" });
    assert!(!validator.is_valid(&guidelines));
}
