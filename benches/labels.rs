//! 1000 receipt labels (type 7) with Code 128 rendered to one PDF: time, size and peak RSS.
//! `cargo bench --bench labels -- [--count N] [--out FILE]`; scripts/bench.py reads the last line.

mod common;

use std::time::Instant;
use stock_manager::labels::{LabelBatch, LabelRecord, LabelStatus, LabelType, Templates, render_pdf};

/// The same records the reportlab script in scripts/bench.py draws.
fn records(count: usize) -> Vec<LabelRecord> {
    (0..count)
        .map(|i| LabelRecord {
            item_id: format!("item-{i}"),
            item_code: format!("RC-{:06}", i),
            description: format!("Hex bolt M8x{} zinc plated, box of 100", 20 + i % 60),
            purchase_order_number: Some(format!("{}", 20000 + i / 10)),
            receipt_number: Some(format!("{}", 500 + i / 25)),
            supplier_code: Some("S100".into()),
            supplier_description: Some("Bolts Inc".into()),
            warehouse_and_location_for_label: format!("W-L: 1-A-{:02}", i % 40),
            project_description: Some("Alpha hall".into()),
            print_count: 1,
            ..LabelRecord::default()
        })
        .collect()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let count: usize = arg("--count").map(|c| c.parse()).transpose()?.unwrap_or(1000);
    let templates = Templates::builtin()?;
    let batch = LabelBatch {
        status: LabelStatus::Success,
        messages: vec![],
        label_type: LabelType::parse("receipts")?,
        records: records(count),
    };
    // One warm-up so the figure is the steady state, as a running server would see it.
    render_pdf(&templates, &batch)?;
    let runs = 5;
    let mut times = Vec::with_capacity(runs);
    let mut pdf = Vec::new();
    for _ in 0..runs {
        let t0 = Instant::now();
        pdf = render_pdf(&templates, &batch)?;
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[runs / 2];
    if let Some(out) = arg("--out") {
        std::fs::write(out, &pdf)?;
    }
    println!(
        "labels_pdf count={count} seconds={median:.4} bytes={} peak_rss_mb={:.1}",
        pdf.len(),
        common::peak_rss_mb()
    );
    Ok(())
}
