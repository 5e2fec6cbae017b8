//! Labels without the world around them: a label record by the spec's rules (`records`), its
//! type (`types`), one layout per type in millimetres (`layout`, built-in `templates` that
//! `{data_dir}/labels/templates/` can override), barcodes (`barcode`), and the renderers: PDF
//! for a browser tab (`pdf`) and 1-bit raster for label printers (`raster`, with the PWG encoder).
//!
//! Where the records come from (Exact Online or the local copy) and how a failure is answered over
//! HTTP is `stock_manager::labels`, above this crate.

pub mod barcode;
pub mod layout;
pub mod pdf;
pub mod raster;
pub mod records;
pub mod templates;
pub mod types;
