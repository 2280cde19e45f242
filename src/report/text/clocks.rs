//! `pgcheck clocks`: residual clock offsets after synchronisation.

use super::{bind, fitted, style, Look};
use comfy_table::{Cell, CellAlignment, Table};

/// Offsets of every rank's global clock to rank 0, in µs, right after
/// synchronising and `wait` seconds later.
pub fn render(sync_s: f64, wait_s: f64, now: &[f64], later: &[f64]) -> String {
    let mut table = Table::new();
    style(&mut table, &Look::auto());
    table.set_header(vec![
        "rank".to_string(),
        "offset after sync [µs]".to_string(),
        bind(&format!("offset after {wait_s:.1} s [µs]")),
    ]);
    for (rank, (a, b)) in now.iter().zip(later).enumerate() {
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            right(rank.to_string()),
            right(format!("{:+.3}", a * 1e6)),
            right(format!("{:+.3}", b * 1e6)),
        ]);
    }
    let worst = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs())) * 1e6;
    format!(
        "clock synchronisation of {} processes took {:.3} ms\n{}largest |offset|: {:.3} µs after sync, {:.3} µs after {wait_s:.1} s\n",
        now.len(),
        sync_s * 1e3,
        fitted(table),
        worst(now),
        worst(later)
    )
}
