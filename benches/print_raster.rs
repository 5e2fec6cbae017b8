//! A raster-only printer's job end to end: N receipt labels rendered as PWG raster at the printer's
//! resolution (600 dpi for ippeveprinter), spooled and sent to the printer at `--uri`, followed
//! until the printer has it. Time and peak RSS of this process, which holds the print service.
//! `cargo bench --bench print_raster -- --uri ipp://localhost:PORT/ipp/print [--count 5000]`;
//! scripts/bench.py starts the printer and reads the last line.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};
use stock_manager::config::PrinterConfig;
use stock_manager::labels::{LabelBatch, LabelRecord, LabelStatus, LabelType, Templates};
use stock_manager::printing::{JobState, PrintOptions, PrintService, PrinterRegistry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let count: u32 = arg("--count").map(|c| c.parse()).transpose()?.unwrap_or(5000);
    let uri = arg("--uri").ok_or_else(|| anyhow::anyhow!("--uri ipp://… of a printer that takes PWG raster only"))?;
    let data = tempfile::tempdir()?;
    let registry = PrinterRegistry::from_config(&[PrinterConfig {
        name: "bench".into(),
        uri,
        label_types: vec![],
        insecure_tls: false,
    }]);
    let options = PrintOptions { request_timeout: Duration::from_secs(600), ..PrintOptions::default() };
    let service = PrintService::start(data.path(), registry, Arc::new(Templates::builtin()?), options)?;
    let record = LabelRecord {
        item_id: "item-1".into(),
        item_code: "RC-000001".into(),
        description: "Hex bolt M8x40 zinc plated, box of 100".into(),
        purchase_order_number: Some("20001".into()),
        warehouse_and_location_for_label: "W-L: 1-A-01".into(),
        print_count: count,
        ..LabelRecord::default()
    };
    let batch = LabelBatch {
        status: LabelStatus::Success,
        messages: vec![],
        label_type: LabelType::parse("receipts")?,
        records: vec![record],
    };
    let t0 = Instant::now();
    let id = service.submit("bench", &batch)?;
    let job = loop {
        let job = service.status(id)?.ok_or_else(|| anyhow::anyhow!("the job vanished"))?;
        // Printing: the printer has the whole document; what it does with it is its own time.
        if job.state.is_final() || job.state == JobState::Printing {
            break job;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let seconds = t0.elapsed().as_secs_f64();
    if job.state != JobState::Printing && job.state != JobState::Completed {
        anyhow::bail!("the job ended {:?}: {}", job.state, job.message.unwrap_or_default());
    }
    println!(
        "print_raster count={count} format={} seconds={seconds:.2} peak_rss_mb={:.1}",
        job.format.unwrap_or_default(),
        common::peak_rss_mb()
    );
    service.shutdown().await;
    Ok(())
}
