//! Printing: IPP printers from the config and the LAN, a durable job queue, and a worker that
//! sends PDF or PWG raster (whatever each printer takes) and follows the job to the end.
//!
//! The lead wires it as: `PrintService::start(&data_dir, registry, templates, PrintOptions::default())`
//! with `PrinterRegistry::from_config(&config.printers)` (plus `registry.browse(discovery.daemon())`),
//! then `submit(printer, &batch) -> JobId`, `status(id)`, `list()`, `printers()`.

pub mod ipp_client;
pub mod raster_doc;
pub mod registry;
pub mod service;
pub mod store;

pub use ipp_client::{IppClient, IppError, IppJobState, PrinterCapabilities};
pub use registry::{Printer, PrinterRegistry, PrinterSource};
pub use service::{Cancelled, PrintError, PrintOptions, PrintService};
pub use store::{JobId, JobState, PrintJob};
