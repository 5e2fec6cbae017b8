//! Printing against a real IPP printer: CUPS' `ippeveprinter` on loopback, once taking PDF and
//! once PWG raster only, keeping every document (`-k`) so the test can read back what arrived.

use crate::labels::{tool, zbar_decode};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use stock_manager::config::PrinterConfig;
use stock_manager::labels::raster::pwg;
use stock_manager::labels::{LabelBatch, LabelRecord, LabelStatus, LabelType, Templates};
use stock_manager::printing::{Cancelled, JobState, PrintJob, PrintOptions, PrintService, PrinterRegistry};

/// ippeveprinter refuses to start without a system D-Bus and avahi (even with `-r off`); start them
/// once per test process. Tests run in parallel, so a second start would race the first and fail.
pub(crate) fn ensure_mdns_daemons() -> bool {
    static STARTED: OnceLock<bool> = OnceLock::new();
    *STARTED.get_or_init(start_mdns_daemons)
}

fn start_mdns_daemons() -> bool {
    let (Some(dbus), Some(avahi), Some(dbus_send)) = (tool("dbus-daemon"), tool("avahi-daemon"), tool("dbus-send"))
    else {
        return false;
    };
    let socket = "/run/dbus/system_bus_socket";
    // The socket file can outlive its daemon (a machine restored from a snapshot): connect to tell.
    if std::os::unix::net::UnixStream::connect(socket).is_err() {
        let _ = std::fs::remove_file(socket);
        let _ = std::fs::remove_file("/run/dbus/pid");
        let _ = std::fs::create_dir_all("/run/dbus");
        let status = Command::new(&dbus).args(["--system", "--fork"]).status();
        assert!(status.is_ok_and(|s| s.success()), "dbus-daemon --system did not start");
    }
    // Ask avahi itself over D-Bus: `avahi-daemon --check` trusts the pid file, which names a
    // zombie after a kill. ippeveprinter also aborts while avahi is still registering its host
    // name (server state 1), so "up" means state 2, running.
    let up_within = |secs: u64| {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            match avahi_server_state(&dbus_send) {
                Ok(()) => return Ok(()),
                Err(state) if Instant::now() > deadline => return Err(state),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    };
    if up_within(2).is_err() {
        let _ = std::fs::remove_file("/run/avahi-daemon/pid");
        let started = Command::new(&avahi).args(["--no-chroot", "--no-drop-root", "--no-rlimits", "-D"]).status();
        if let Err(state) = up_within(20) {
            panic!("avahi-daemon did not start ({started:?}): {state}");
        }
    }
    true
}

fn avahi_server_state(dbus_send: &Path) -> Result<(), String> {
    let out = Command::new(dbus_send)
        .args([
            "--system",
            "--print-reply",
            "--dest=org.freedesktop.Avahi",
            "/",
            "org.freedesktop.Avahi.Server.GetState",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if text.contains("int32 2") { Ok(()) } else { Err(text) }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

/// A running ippeveprinter, killed on drop.
pub(crate) struct IppEve {
    child: Child,
    spool: PathBuf,
}

impl IppEve {
    pub(crate) fn start(port: u16, name: &str, formats: &str, spool: &Path) -> IppEve {
        Self::start_with(port, name, formats, spool, None)
    }

    /// Started with `processor` processing each job (`-c`) instead of the default one.
    pub(crate) fn start_with(port: u16, name: &str, formats: &str, spool: &Path, processor: Option<&Path>) -> IppEve {
        let bin = tool("ippeveprinter").expect("checked by the caller");
        std::fs::create_dir_all(spool).expect("spool dir");
        let mut command = Command::new(bin);
        command.args(["-p", &port.to_string(), "-n", "localhost", "-k", "-f", formats, "-m", "ESM Test Label", "-d"]);
        command.arg(spool);
        // CUPS' own PWG raster reader turns what arrives into PCL: an independent check of our encoder.
        if let Some(processor) = processor {
            command.arg("-c").arg(processor);
        } else if !formats.contains("application/pdf") {
            command.arg("-c").arg(tool("ippevepcl").expect("ippevepcl ships with ippeveprinter"));
        }
        let log_path = spool.with_extension("log");
        let log = std::fs::File::create(&log_path).expect("printer log");
        let mut child = command.arg(name).stdout(Stdio::null()).stderr(log).spawn().expect("ippeveprinter starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            let exited = child.try_wait().ok().flatten();
            if exited.is_some() || Instant::now() > deadline {
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("ippeveprinter did not listen on {port} (exit {exited:?}): {log}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        IppEve { child, spool: spool.to_path_buf() }
    }

    /// Documents kept in the spool folder.
    pub(crate) fn documents(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "pdf" || e == "pwg") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.spool, &mut out);
        out
    }
}

impl Drop for IppEve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn tools_present() -> bool {
    [tool("ippeveprinter"), tool("zbarimg"), tool("pdftoppm")].iter().all(Option::is_some) && ensure_mdns_daemons()
}

fn registry(name: &str, port: u16) -> PrinterRegistry {
    PrinterRegistry::from_config(&[PrinterConfig {
        name: name.into(),
        uri: format!("ipp://localhost:{port}/ipp/print"),
        label_types: vec!["receipts".into()],
        insecure_tls: false,
    }])
}

fn fast() -> PrintOptions {
    PrintOptions {
        initial_backoff: Duration::from_millis(300),
        max_backoff: Duration::from_secs(1),
        poll_interval: Duration::from_millis(500),
        request_timeout: Duration::from_secs(30),
    }
}

fn batch() -> LabelBatch {
    let record = |code: &str| LabelRecord {
        item_id: format!("id-{code}"),
        item_code: code.into(),
        description: "Hex bolt M8x40 zinc".into(),
        print_count: 1,
        ..LabelRecord::default()
    };
    LabelBatch {
        status: LabelStatus::Success,
        messages: vec![],
        label_type: LabelType::parse("receipts").expect("type"),
        records: vec![record("RC-1001"), record("RC-1002")],
    }
}

async fn wait_for(service: &PrintService, id: u64, until: impl Fn(&PrintJob) -> bool, secs: u64) -> PrintJob {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let job = service.status(id).expect("status").expect("job exists");
        if until(&job) {
            return job;
        }
        assert!(Instant::now() < deadline, "job stuck: {job:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the printer has written `count` documents and they stay that many.
pub(crate) async fn kept_documents(printer: &IppEve, count: usize) -> Vec<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while printer.documents().len() < count {
        assert!(Instant::now() < deadline, "the printer kept no document");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    printer.documents()
}

pub(crate) fn decode_kept(path: &Path, dir: &Path) -> Vec<String> {
    let zbarimg = tool("zbarimg").expect("checked");
    let mut codes = Vec::new();
    if path.extension().is_some_and(|e| e == "pwg") {
        let data = std::fs::read(path).expect("kept raster");
        let pages = pwg::decode(&data).expect("the kept file is PWG raster");
        for (i, page) in pages.iter().enumerate() {
            let png = dir.join(format!("kept-{i}.png"));
            std::fs::write(&png, page.to_png().expect("png")).expect("write");
            codes.extend(zbar_decode(&zbarimg, &png));
        }
    } else {
        let pdftoppm = tool("pdftoppm").expect("checked");
        let status = Command::new(pdftoppm).args(["-r", "300", "-png"]).arg(path).arg(dir.join("kept")).status();
        assert!(status.is_ok_and(|s| s.success()));
        for entry in std::fs::read_dir(dir).expect("dir").flatten() {
            if entry.path().extension().is_some_and(|e| e == "png") {
                codes.extend(zbar_decode(&zbarimg, &entry.path()));
            }
        }
    }
    codes.sort();
    codes
}

async fn print_once_and_read_back(formats: &str, expected_format: &str) {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let printer = IppEve::start(port, "esm-test", formats, &dir.path().join("spool"));
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let service =
        PrintService::start(&dir.path().join("data"), registry("labels", port), templates, fast()).expect("service");
    let id = service.submit("labels", &batch()).expect("submitted");
    let job = wait_for(&service, id, |j| j.state.is_final(), 90).await;
    assert_eq!(job.state, JobState::Completed, "{job:?}");
    assert_eq!(job.format.as_deref(), Some(expected_format));
    let kept = kept_documents(&printer, 1).await;
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(decode_kept(&kept[0], dir.path()), vec!["RC-1001", "RC-1002"]);
    if expected_format == "image/pwg-raster" {
        // ippevepcl (libcups' raster reader) started one PCL raster graphic per page it could read.
        let pcl = std::fs::read(kept[0].with_extension("prn")).expect("ippevepcl output");
        let pages = pcl.windows(5).filter(|w| *w == b"\x1b*r1A").count();
        assert_eq!(pages, 2, "CUPS read {pages} raster pages");
    }
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pdf_printer_gets_the_pdf() {
    print_once_and_read_back("application/pdf,image/pwg-raster", "application/pdf").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raster_only_printer_gets_pwg_raster_that_decodes() {
    print_once_and_read_back("image/pwg-raster", "image/pwg-raster").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn printer_off_then_on_prints_exactly_once_even_across_a_restart() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let port = free_port();
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let first = PrintService::start(&data, registry("labels", port), templates.clone(), fast()).expect("service");
    let id = first.submit("labels", &batch()).expect("submitted");
    let waiting = wait_for(&first, id, |j| j.state == JobState::WaitingForPrinter && j.attempts >= 2, 30).await;
    assert!(waiting.message.as_deref().is_some_and(|m| m.starts_with("Waiting for printer")), "{waiting:?}");
    first.shutdown().await;
    drop(first);

    // A new process (same data directory) finds the job and prints it once the printer is back.
    let second = PrintService::start(&data, registry("labels", port), templates, fast()).expect("service");
    assert_eq!(second.list().expect("list").len(), 1);
    let printer = IppEve::start(port, "esm-test", "image/pwg-raster", &dir.path().join("spool"));
    let job = wait_for(&second, id, |j| j.state.is_final(), 90).await;
    assert_eq!(job.state, JobState::Completed, "{job:?}");
    assert_eq!(job.ipp_job_id, Some(1), "the printer saw exactly one job");
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(kept_documents(&printer, 1).await.len(), 1, "printed exactly once");
    second.shutdown().await;
}

#[tokio::test]
async fn unknown_printer_and_wrong_label_type_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let service = PrintService::start(dir.path(), registry("labels", 9), templates, fast()).expect("service");
    assert!(service.submit("nope", &batch()).expect_err("unknown").to_string().contains("Unknown printer"));
    let mut cnc = batch();
    cnc.label_type = LabelType::parse("cnc-new").expect("type");
    assert!(service.submit("labels", &cnc).expect_err("wrong type").to_string().contains("not set up for"));
    assert_eq!(service.printers().len(), 1);
    service.shutdown().await;
}

/// A job that cannot be rendered (too many labels, or one the server died rendering) fails once
/// with its reason: the start-up goes on, the queue behind it moves, and a restart leaves it be.
#[tokio::test]
async fn a_job_that_cannot_be_rendered_fails_once_and_never_blocks_the_queue() {
    use stock_manager::printing::store::JobStore;
    let dir = tempfile::tempdir().expect("temp dir");
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let closed = free_port();
    let now = chrono::Utc::now();
    let job = |state: JobState, print_count: u32| {
        let mut records = batch().records;
        records[0].print_count = print_count;
        PrintJob {
            id: 0,
            division: None,
            printer: "labels".into(),
            label_type: LabelType::parse("receipts").expect("type"),
            title: "injected".into(),
            records,
            state,
            message: None,
            attempts: 0,
            format: None,
            ipp_job_id: None,
            created: now,
            updated: now,
            next_attempt: now,
        }
    };
    // Put into the queue file as an older version (or a hand) could have left them.
    let (huge, died, fine) = {
        let store = JobStore::open(dir.path()).expect("queue file");
        let huge = store.insert(job(JobState::Queued, u32::MAX)).expect("huge").id;
        let died = store.insert(job(JobState::Rendering, 1)).expect("died").id;
        let fine = store.insert(job(JobState::Queued, 1)).expect("fine").id;
        (huge, died, fine)
    };
    let service =
        PrintService::start(dir.path(), registry("labels", closed), templates.clone(), fast()).expect("starts");
    let failed = wait_for(&service, huge, |j| j.state == JobState::Failed, 20).await;
    assert!(failed.message.as_deref().unwrap_or_default().contains("Too many labels"), "{failed:?}");
    let failed = wait_for(&service, died, |j| j.state == JobState::Failed, 20).await;
    assert!(failed.message.as_deref().unwrap_or_default().contains("could not be rendered"), "{failed:?}");
    // The job behind them is worked on: it waits for its (absent) printer.
    wait_for(&service, fine, |j| j.state == JobState::WaitingForPrinter, 20).await;
    let before = service.list().expect("list");
    service.shutdown().await;
    drop(service);

    let again = PrintService::start(dir.path(), registry("labels", closed), templates, fast()).expect("restarts");
    tokio::time::sleep(Duration::from_millis(500)).await;
    for id in [huge, died] {
        let then = before.iter().find(|j| j.id == id).expect("listed");
        let now = again.status(id).expect("status").expect("kept");
        assert_eq!((now.state, &now.message, now.updated), (then.state, &then.message, then.updated), "failed once");
    }
    // Too many labels are refused on submit, before they reach the queue.
    let mut big = batch();
    big.records[0].print_count = 100_000;
    assert!(again.submit("labels", &big).expect_err("too many").to_string().contains("Too many labels"));
    again.shutdown().await;
}

/// A job that has not left (its printer is off) is cancelled at once and never prints, also
/// when the printer comes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_job_is_cancelled_before_it_leaves() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let service =
        PrintService::start(&dir.path().join("data"), registry("labels", port), templates, fast()).expect("service");
    let id = service.submit("labels", &batch()).expect("submitted");
    wait_for(&service, id, |j| j.state == JobState::WaitingForPrinter, 30).await;
    match service.cancel(id, "Anna").expect("cancel") {
        Some(Cancelled::Now(job)) => assert_eq!(job.state, JobState::Cancelled, "{job:?}"),
        other => panic!("not cancelled at once: {other:?}"),
    }
    let job = service.status(id).expect("status").expect("kept");
    assert_eq!((job.state, job.message.as_deref()), (JobState::Cancelled, Some("Cancelled by Anna")));
    let printer = IppEve::start(port, "esm-test", "image/pwg-raster", &dir.path().join("spool"));
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(printer.documents().is_empty(), "a cancelled job printed");
    assert!(matches!(service.cancel(id, "Anna").expect("again"), Some(Cancelled::Ended(_))));
    assert!(service.cancel(id + 100, "Anna").expect("unknown").is_none());
    service.shutdown().await;
}

/// A job the printer holds (its processing takes long) is cancelled there with Cancel-Job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_on_the_printer_is_cancelled_there() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let slow = dir.path().join("slow-printer.sh");
    std::fs::write(&slow, "#!/bin/sh\nexec sleep 8\n").expect("script");
    std::fs::set_permissions(&slow, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let port = free_port();
    let _printer = IppEve::start_with(port, "esm-test", "image/pwg-raster", &dir.path().join("spool"), Some(&slow));
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let service =
        PrintService::start(&dir.path().join("data"), registry("labels", port), templates, fast()).expect("service");
    let id = service.submit("labels", &batch()).expect("submitted");
    let printing = wait_for(&service, id, |j| j.state == JobState::Printing, 60).await;
    assert!(matches!(service.cancel(id, "Anna").expect("cancel"), Some(Cancelled::Requested(_))));
    assert!(service.cancel_requested(id));
    let job = wait_for(&service, id, |j| j.state.is_final(), 30).await;
    assert_eq!((job.state, job.message.as_deref()), (JobState::Cancelled, Some("Cancelled")), "{job:?}");
    assert!(!service.cancel_requested(id));
    let client = stock_manager::printing::IppClient::new(false, Duration::from_secs(5)).expect("client");
    let uri = format!("ipp://localhost:{port}/ipp/print");
    let ipp_id = printing.ipp_job_id.expect("a printer job id");
    // ippeveprinter lets its processing command run to its end (8 s here), then reads canceled.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let at_printer = client.job_state(&uri, ipp_id).await.expect("asked");
        if at_printer == stock_manager::printing::IppJobState::Canceled {
            break;
        }
        assert!(Instant::now() < deadline, "the printer still reads {at_printer:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    service.shutdown().await;
}

/// A long raster job is spooled page by page and stops between pages when cancelled: nothing
/// reaches the printer and no spool file is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raster_job_is_cancelled_while_it_renders() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let printer = IppEve::start(port, "esm-test", "image/pwg-raster", &dir.path().join("spool"));
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let data = dir.path().join("data");
    let service = PrintService::start(&data, registry("labels", port), templates, fast()).expect("service");
    let mut long = batch();
    long.records[0].print_count = 2_000;
    let id = service.submit("labels", &long).expect("submitted");
    wait_for(&service, id, |j| j.state == JobState::Rendering, 60).await;
    assert!(matches!(service.cancel(id, "Anna").expect("cancel"), Some(Cancelled::Requested(_))));
    let job = wait_for(&service, id, |j| j.state.is_final(), 60).await;
    assert_eq!(job.state, JobState::Cancelled, "{job:?}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(printer.documents().is_empty(), "a cancelled job reached the printer");
    let spooled = std::fs::read_dir(data.join("print-spool")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(spooled, 0, "the spool file is removed");
    service.shutdown().await;
}

/// A stop while a long raster job renders does not wait for it: the render stops between pages,
/// the job is queued again (nothing was sent) and the next start renders it anew.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_during_a_render_queues_the_job_for_the_next_start() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let _printer = IppEve::start(port, "esm-test", "image/pwg-raster", &dir.path().join("spool"));
    let templates = Arc::new(Templates::builtin().expect("templates"));
    let data = dir.path().join("data");
    let first = PrintService::start(&data, registry("labels", port), templates.clone(), fast()).expect("service");
    let mut long = batch();
    long.records[0].print_count = 2_000;
    let id = first.submit("labels", &long).expect("submitted");
    wait_for(&first, id, |j| j.state == JobState::Rendering, 60).await;
    let stopping = Instant::now();
    first.shutdown().await;
    assert!(stopping.elapsed() < Duration::from_secs(3), "the stop waited {:?}", stopping.elapsed());
    let job = first.status(id).expect("status").expect("kept");
    assert_eq!(job.state, JobState::Queued, "{job:?}");
    assert!(job.message.as_deref().unwrap_or_default().contains("rendered again"), "{job:?}");
    drop(first);

    let second = PrintService::start(&data, registry("labels", port), templates, fast()).expect("restarts");
    wait_for(&second, id, |j| j.state == JobState::Rendering, 60).await;
    assert!(matches!(second.cancel(id, "Anna").expect("cancel"), Some(Cancelled::Requested(_))));
    wait_for(&second, id, |j| j.state == JobState::Cancelled, 60).await;
    second.shutdown().await;
}

/// A printer announced over mDNS on loopback shows up in the registry with its URI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovered_printers_join_the_registry() {
    use mdns_sd::{IfKind, ServiceDaemon, ServiceInfo};
    let loopback = || {
        let d = ServiceDaemon::new().expect("mdns daemon");
        d.disable_interface(IfKind::All).expect("restrict");
        d.enable_interface(IfKind::LoopbackV4).expect("loopback");
        d
    };
    let announcer = loopback();
    let info = ServiceInfo::new(
        "_ipp._tcp.local.",
        "ESM Test Printer",
        "esm-test-printer.local.",
        "127.0.0.1",
        16631,
        &[("rp", "ipp/print"), ("pdl", "image/pwg-raster")][..],
    )
    .expect("service info");
    announcer.register(info).expect("register");
    let browser = loopback();
    let registry = PrinterRegistry::default();
    registry.browse(&browser).expect("browse");
    let deadline = Instant::now() + Duration::from_secs(15);
    let printer = loop {
        if let Some(p) = registry.get("ESM Test Printer") {
            break p;
        }
        assert!(Instant::now() < deadline, "the printer was not discovered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(printer.uri, "ipp://127.0.0.1:16631/ipp/print");
    let _ = browser.shutdown();
    let _ = announcer.shutdown();
}
