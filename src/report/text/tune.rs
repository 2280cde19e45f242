//! What `pgcheck tune` changed and why, and how to load the file.

use crate::tuning::Tuning;
use std::path::Path;

/// One line per case, then the file and how to load it.
pub fn render(tuning: &Tuning, file: &Path, how: &[String]) -> String {
    let mut out = String::new();
    for d in &tuning.decisions {
        let what = match &d.change {
            Some(c) => format!(
                "select {} ({}={})",
                c.algorithm.item, c.algorithm.variable, c.algorithm.value
            ),
            None => "keep the library's choice".into(),
        };
        out += &format!("{}: {what}: {}\n", d.key.label(), d.why);
    }
    let changes = tuning.changes().count();
    out += &format!(
        "{changes} of {} cases changed; wrote {}\n",
        tuning.decisions.len(),
        file.display()
    );
    if changes > 0 {
        out += "load it with:\n";
        for line in how {
            out += &format!("  {line}\n");
        }
        if tuning.library == "open_mpi" {
            out += &format!(
                "  (as environment: {})\n",
                how.iter()
                    .map(|v| format!("OMPI_MCA_{v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
    out
}
