//! Sync benchmark (prints figures, asserts nothing): a full sync of every sync endpoint from a
//! simulator process into a fresh store, with rate limits off; and a small sync with rate limits
//! on, counting provider calls against the floor and 429s.
//!
//! `cargo bench --bench sync -- [small|medium|large]` (default large; `ESM_BENCH_CATALOGUE` keeps the
//! scan catalogue's JSON in that file; `ESM_BENCH_CACHE_MB` sets the
//! store's page cache, to weigh memory against speed). Needs the release binary
//! (`cargo build --release`) for the simulator process.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use stock_manager::exact::catalogue;
use stock_manager::exact::oauth::OAuthClient;
use stock_manager::exact::tokens::TokenManager;
use stock_manager::exact::{ExactClient, Waits};
use stock_manager::serverdb::ServerDb;
use stock_manager::store::Stores;
use stock_manager::sync::engine::OrgToken;
use stock_manager::sync::{SyncEngine, SyncSink};

fn start_sim(scale: &str, rate_limits: bool) -> (Child, String) {
    let bin = concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/stock-manager");
    let mut args = vec!["sim", "--scale", scale, "--port", "0"];
    if !rate_limits {
        args.push("--no-rate-limits");
    }
    let mut child = Command::new(bin)
        .args(&args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the release binary exists (cargo build --release)");
    let stdout = child.stdout.take().expect("stdout");
    let base = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("Simulator: ").map(str::to_string))
        .expect("simulator URL");
    (child, base)
}

async fn sign_in(http: &reqwest::Client, base: &str, redirect: &str) -> String {
    let url = format!(
        "{base}/api/oauth2/auth?client_id=demo-client&redirect_uri={}&response_type=code&state=b",
        urlencoding::encode(redirect)
    );
    let html = http.get(&url).send().await.expect("auth page").text().await.expect("html");
    let mut form = Vec::new();
    for part in html.split("<input").skip(1) {
        let attr = |name: &str| {
            let key = format!("{name}=\"");
            part.find(&key).map(|i| part[i + key.len()..].split('"').next().unwrap_or("").to_string())
        };
        let ty = attr("type").unwrap_or_default();
        if ty == "hidden" || (ty == "radio" && part.contains("checked")) {
            form.push((attr("name").unwrap_or_default(), attr("value").unwrap_or_default()));
        }
    }
    let res = http.post(format!("{base}/api/oauth2/auth")).form(&form).send().await.expect("approve");
    let location = res.headers()["location"].to_str().expect("location").to_string();
    url::Url::parse(&location)
        .expect("redirect url")
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("code")
}

/// Disk space the directory's files take: allocated blocks, not lengths, since an open redb
/// file is extended ahead of what it has written (sparse), and trimmed when it closes.
fn dir_size_mb(path: &std::path::Path) -> f64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(path)
        .map(|d| d.filter_map(|e| e.ok()).filter_map(|e| e.metadata().ok()).map(|m| m.blocks() * 512).sum::<u64>())
        .unwrap_or(0) as f64
        / 1024.0
        / 1024.0
}

struct Run {
    rows: u64,
    seconds: f64,
    calls: u64,
    rejected: u64,
    store_mb: f64,
    failed: Vec<String>,
    /// Fewest calls that can fetch these rows: one per page of 1000, at least one per table.
    floor: u64,
    peak_rss: f64,
    /// The scan catalogue built from the synced store (`api::scan_catalogue`).
    catalogue: CatalogueFigures,
}

struct CatalogueFigures {
    build_ms: f64,
    json_bytes: usize,
    /// As the server sends it (gzipped once at the best level).
    gzip_bytes: usize,
    gzip_ms: f64,
    counts: String,
}

/// Builds the organization's scan catalogue as the endpoint does and measures it.
fn measure_catalogue(
    store: &stock_manager::store::OrgStore,
    division: i64,
    keep: Option<&std::path::Path>,
) -> CatalogueFigures {
    let started = Instant::now();
    let body = stock_manager::scanning::catalogue::build(store, division).expect("catalogue");
    let build_ms = started.elapsed().as_secs_f64() * 1000.0;
    // kept to weigh each list of it
    if let Some(path) = keep {
        std::fs::write(path, &body).expect("catalogue file");
    }
    let gzip_bytes = stock_manager::scanning::catalogue::gzip(&body).expect("gzip").len();
    let gzip_ms = started.elapsed().as_secs_f64() * 1000.0 - build_ms;
    let c = stock_manager::scanning::catalogue::catalogue(store, division).expect("catalogue");
    let counts = format!(
        "items {}, locations {}, warehouses {}, location stock {}, warehouse stock {}, open orders {}, material lines {}",
        c.items.len(),
        c.locations.len(),
        c.warehouses.len(),
        c.location_stock.len(),
        c.warehouse_stock.len(),
        c.orders.len(),
        c.plans.len()
    );
    CatalogueFigures { build_ms, json_bytes: body.len(), gzip_bytes, gzip_ms, counts }
}

/// Writes every synced table as PostgreSQL COPY text (key, indexed fields, row JSON) plus a
/// `tables.json` naming each file's columns, so a peer database loads exactly these rows.
fn export(store: &stock_manager::store::OrgStore, dir: &std::path::Path) {
    use std::io::Write;
    std::fs::create_dir_all(dir).expect("export dir");
    let mut manifest = serde_json::Map::new();
    for spec in store.registry().specs() {
        let ep = catalogue::by_table(&spec.name).expect("catalogued");
        if ep.kind != catalogue::Kind::Sync {
            continue;
        }
        let mut cols = vec![spec.key.clone()];
        cols.extend(spec.indexed.iter().filter(|c| **c != spec.key).cloned());
        let mut out =
            std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{}.tsv", spec.name))).expect("file"));
        let escape = |s: &str| s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n");
        store
            .for_each_row(&spec.name, |_, bytes| {
                let v: serde_json::Value = serde_json::from_slice(bytes).expect("stored row");
                for c in &cols {
                    let field = match &v[c] {
                        serde_json::Value::Null => "\\N".to_string(),
                        serde_json::Value::String(s) => escape(s),
                        other => other.to_string(),
                    };
                    write!(out, "{field}\t").expect("write");
                }
                writeln!(out, "{}", escape(std::str::from_utf8(bytes).expect("utf-8"))).expect("write");
                true
            })
            .expect("export");
        out.flush().expect("flush");
        manifest.insert(spec.name.clone(), serde_json::json!(cols));
    }
    std::fs::write(dir.join("tables.json"), serde_json::to_vec(&manifest).expect("json")).expect("manifest");
}

async fn full_sync(
    base: &str,
    data_dir: Option<&std::path::Path>,
    export_to: Option<&std::path::Path>,
    keep_catalogue: Option<&std::path::Path>,
) -> Run {
    stock_manager::tls::install_crypto_provider();
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = data_dir.unwrap_or(tmp.path());
    std::fs::create_dir_all(dir).expect("data dir");
    let http = ExactClient::http_client(Duration::from_secs(120)).expect("http");
    let redirect = "http://127.0.0.1:9/callback";
    // The sign-in answers with a redirect to the app, which must not be followed.
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let code = sign_in(&browser, base, redirect).await;
    let oauth = OAuthClient::new(http.clone(), base, "demo-client", stock_manager::config::Secret::new("demo-secret"));
    let set = oauth.exchange_code(&code, redirect).await.expect("token");
    let client = ExactClient::new(http, base, Waits::default());
    let me = client.me(&set.access_token).await.expect("me");
    let user = me["UserID"].as_str().expect("user").to_string();
    let division = me["CurrentDivision"].as_i64().expect("division");
    let db = Arc::new(ServerDb::open(dir).expect("server db"));
    let tokens = Arc::new(TokenManager::new(db, oauth));
    tokens.store(&user, &set).expect("store token");
    let mut stores = Stores::new(dir, catalogue::table_specs());
    if let Some(mb) = std::env::var("ESM_BENCH_CACHE_MB").ok().and_then(|v| v.parse::<usize>().ok()) {
        stores = stores.with_cache_bytes(mb << 20);
    }
    let store = stores.get(division).expect("store");
    let engine = SyncEngine::new(client.clone());
    let endpoints = SyncEngine::resolve(&[]).expect("endpoints");
    let started = Instant::now();
    let report = engine
        .run(division, &OrgToken { tokens, user }, &endpoints, store.clone() as Arc<dyn SyncSink>)
        .await
        .expect("sync runs");
    let seconds = started.elapsed().as_secs_f64();
    let rows = report.tables.values().map(|t| t.rows).sum();
    let (calls, rejected) = client.limiter(division).counters();
    let failed = report.failed_tables().into_iter().map(str::to_string).collect();
    let floor = report.tables.values().map(|t| t.rows.div_ceil(1000).max(1)).sum();
    let store_mb = dir_size_mb(dir);
    // Peak memory of the sync itself, before an export reads the tables again.
    let peak_rss = common::peak_rss_mb();
    let catalogue = measure_catalogue(&store, division, keep_catalogue);
    if let Some(to) = export_to {
        export(&store, to);
    }
    Run { rows, seconds, calls, rejected, store_mb, failed, floor, peak_rss, catalogue }
}

fn main() {
    let scale = std::env::args().skip(1).find(|a| ["small", "medium", "large"].contains(&a.as_str()));
    let scale = scale.unwrap_or_else(|| "large".into());
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");

    let (mut sim, base) = start_sim(&scale, false);
    let export_to = std::env::var_os("ESM_BENCH_EXPORT").map(std::path::PathBuf::from);
    // ESM_BENCH_DATA_DIR keeps the synced data directory (for a server start on it).
    let data_dir = std::env::var_os("ESM_BENCH_DATA_DIR").map(std::path::PathBuf::from);
    let keep_catalogue = std::env::var_os("ESM_BENCH_CATALOGUE").map(std::path::PathBuf::from);
    let run = rt.block_on(full_sync(&base, data_dir.as_deref(), export_to.as_deref(), keep_catalogue.as_deref()));
    let _ = sim.kill();
    let _ = sim.wait();
    println!("scale: {scale}");
    println!("rows: {}", run.rows);
    println!("seconds: {:.2}", run.seconds);
    println!("rows_per_s: {:.0}", run.rows as f64 / run.seconds);
    println!("peak_rss_mb: {:.0}", run.peak_rss);
    println!("store_mb: {:.0}", run.store_mb);
    println!("failed_tables: {}", run.failed.join(","));
    println!("catalogue_build_ms: {:.0}", run.catalogue.build_ms);
    println!("catalogue_json_bytes: {}", run.catalogue.json_bytes);
    println!("catalogue_gzip_bytes: {}", run.catalogue.gzip_bytes);
    println!("catalogue_gzip_ms: {:.0}", run.catalogue.gzip_ms);
    println!("catalogue_counts: {}", run.catalogue.counts);

    let (mut sim, base) = start_sim("small", true);
    let limited = rt.block_on(full_sync(&base, None, None, None));
    let _ = sim.kill();
    let _ = sim.wait();
    // The floor: one call per page of 1000 rows per table, plus the empty last page of each.
    println!("limited_rows: {}", limited.rows);
    println!("limited_calls: {}", limited.calls);
    println!("limited_floor: {}", limited.floor);
    println!("limited_429: {}", limited.rejected);
    println!("limited_seconds: {:.1}", limited.seconds);
    println!("limited_failed_tables: {}", limited.failed.join(","));
}
