//! Operating it: the admin password as a hash, forwarded headers only from trusted proxies, and
//! `stock-manager doctor` against the simulator.

use crate::provider::{browser_sign_in, server_for};
use crate::support::{binary, client};
use esm_sim::{SimOptions, Simulator};
use reqwest::Method;
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use stock_manager::auth::licence::Issuer;
use stock_manager::config::{Config, PrinterConfig, Secret};
use stock_manager::doctor::{self, Check, Level};

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

fn hash_with_the_binary(password: &str) -> String {
    let mut child = Command::new(binary())
        .arg("hash-password")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{password}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let phc = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(phc.starts_with("$argon2id$"), "{phc}");
    assert!(!phc.contains(password));
    phc
}

#[test]
fn hash_password_refuses_an_empty_password() {
    let out = Command::new(binary()).arg("hash-password").stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
}

#[actix_web::test]
async fn the_admin_password_can_be_a_hash_from_hash_password() {
    let phc = hash_with_the_binary("s3cure horse");
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let server = server_for(&sim, &issuer, |c| c.admin.password = Secret::new(phc.clone())).await;
    let s = browser_sign_in(&server.url).await;
    let reauth = |password: &str| {
        server
            .client
            .post(server.at("/api/v1/auth/reauth"))
            .header("cookie", &s.cookie)
            .json(&json!({ "password": password }))
            .send()
    };
    assert_eq!(reauth("s3cure horse ").await.unwrap().status(), 401);
    assert_eq!(reauth(&phc).await.unwrap().status(), 401, "the hash is no password");
    assert_eq!(reauth("s3cure horse").await.unwrap().status(), 200);
    server.stop().await;
    sim.stop().await;
}

/// The sign-in's callback URL follows `X-Forwarded-Proto`/`-Host` from a trusted proxy only.
#[actix_web::test]
async fn forwarded_headers_count_only_from_trusted_proxies() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let issuer = Issuer::generate();
    let redirect_of = |res: &reqwest::Response| {
        let location = url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap();
        location.query_pairs().find(|(k, _)| k == "redirect_uri").map(|(_, v)| v.into_owned()).unwrap()
    };
    let login = |url: String| async move {
        client()
            .get(format!("{url}/api/v1/auth/login"))
            .header("x-forwarded-proto", "https")
            .header("x-forwarded-host", "esm.factory.lan")
            .header("x-forwarded-for", "203.0.113.9")
            .send()
            .await
            .unwrap()
    };
    let untrusting = server_for(&sim, &issuer, |_| {}).await;
    let res = login(untrusting.url.clone()).await;
    assert_eq!(redirect_of(&res), format!("{}/callback", untrusting.url));
    untrusting.stop().await;

    let trusting =
        server_for(&sim, &issuer, |c| c.server.trusted_proxies = vec!["10.0.0.0/8".into(), "127.0.0.1".into()]).await;
    let res = login(trusting.url.clone()).await;
    assert_eq!(redirect_of(&res), "https://esm.factory.lan/callback");
    // The same origin follows: a state-changing call from the proxied site passes the CSRF check.
    let logout = client()
        .request(Method::POST, trusting.at("/api/v1/auth/logout"))
        .header("origin", "https://esm.factory.lan")
        .header("x-forwarded-host", "esm.factory.lan")
        .send()
        .await
        .unwrap();
    assert_ne!(logout.status(), 403);
    trusting.stop().await;
    sim.stop().await;
}

fn by_name<'a>(checks: &'a [Check], name: &str) -> &'a Check {
    checks.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no {name} check in {checks:?}"))
}

/// A config for doctor: the simulator as Exact, a data directory a server has used, self-signed TLS.
async fn installed(sim: &Simulator, dir: &tempfile::TempDir) -> Config {
    let issuer = Issuer::generate();
    let data_dir = dir.path().join("data");
    let kept = data_dir.clone();
    let server = server_for(sim, &issuer, move |c| {
        c.data_dir = kept;
        c.tls.enabled = true;
        c.tls.self_signed = true;
    })
    .await;
    let mut config = server.running.as_ref().unwrap().state().config.as_ref().clone();
    server.stop().await;
    config.data_dir = data_dir;
    config
}

#[actix_web::test]
async fn doctor_checks_an_install_against_the_simulator() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = installed(&sim, &dir).await;
    let checks = doctor::run(&config).await;
    for name in ["exact-app", "data-dir", "server.redb", "writable", "disk", "exact", "clock", "tls", "mdns"] {
        let check = by_name(&checks, name);
        assert!(check.level != Level::Fail, "{check}");
    }
    assert_eq!(by_name(&checks, "server.redb").level, Level::Ok, "the server makes it mode 600");
    assert_eq!(by_name(&checks, "clock").level, Level::Ok, "same machine, same clock");
    assert!(by_name(&checks, "tls").message.contains("valid until"));
    assert!(!doctor::failed(&checks));

    // A printer that does not answer and an Exact that is down are failures, with their fix.
    let closed = crate::printing::free_port();
    config.printers.push(PrinterConfig {
        name: "Receipts desk".into(),
        uri: format!("ipp://127.0.0.1:{closed}/ipp/print"),
        label_types: vec![],
        insecure_tls: false,
    });
    let printers = doctor::check_printers(&config).await;
    assert_eq!(printers.len(), 1);
    assert_eq!(printers[0].level, Level::Fail);
    assert!(printers[0].message.contains("Receipts desk") && printers[0].message.contains("[[printers]]"));
    config.provider.base_url = format!("http://127.0.0.1:{closed}");
    let exact = doctor::check_exact(&config).await;
    assert_eq!(exact[0].level, Level::Fail, "{:?}", exact);
    sim.stop().await;
}

/// A real IPP printer answers Get-Printer-Attributes (skipped where CUPS' ippeveprinter is missing).
#[actix_web::test]
async fn doctor_reaches_a_real_ipp_printer() {
    if crate::labels::tool("ippeveprinter").is_none() || !crate::printing::ensure_mdns_daemons() {
        eprintln!("skipped: ippeveprinter is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = crate::printing::free_port();
    let _printer = crate::printing::IppEve::start(port, "doctor", "application/pdf", &dir.path().join("spool"));
    let mut config = Config::default();
    config.printers.push(PrinterConfig {
        name: "Desk".into(),
        uri: format!("ipp://localhost:{port}/ipp/print"),
        label_types: vec![],
        insecure_tls: false,
    });
    let checks = doctor::check_printers(&config).await;
    assert_eq!(checks[0].level, Level::Ok, "{}", checks[0]);
    assert!(checks[0].message.contains("takes PDF"));
}

/// The command: one line per check, exit code 0 when nothing fails and 1 when something does.
#[actix_web::test]
async fn the_doctor_command_prints_a_line_per_check_and_fails_on_fail() {
    let sim = Simulator::start(sim_options()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = installed(&sim, &dir).await;
    let file = dir.path().join("config.toml");
    let write_config = |printer: Option<u16>| {
        let mut text = format!(
            "data_dir = {:?}\n[provider]\nbase_url = {:?}\nclient_id = \"demo-client\"\nclient_secret_file = {:?}\n[mdns]\nenabled = false\n",
            config.data_dir.display().to_string(),
            sim.base_url(),
            dir.path().join("secret").display().to_string(),
        );
        if let Some(port) = printer {
            text.push_str(&format!("[[printers]]\nname = \"Desk\"\nuri = \"ipp://127.0.0.1:{port}/ipp/print\"\n"));
        }
        std::fs::write(&file, text).unwrap();
    };
    std::fs::write(dir.path().join("secret"), "demo-secret\n").unwrap();
    let run = |file: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || {
            Command::new(binary())
                .arg("--config")
                .arg(file)
                .arg("doctor")
                .env("ESM_LOG_LEVEL", "warn")
                .output()
                .unwrap()
        })
    };

    write_config(None);
    let out = run(file.clone()).await.unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.lines().next().unwrap().starts_with("OK   config"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("OK   exact ")), "{text}");
    assert!(text.lines().all(|l| ["OK ", "WARN", "FAIL"].iter().any(|p| l.starts_with(p))), "{text}");

    write_config(Some(crate::printing::free_port()));
    let out = run(file.clone()).await.unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.lines().any(|l| l.starts_with("FAIL printer")), "{text}");

    std::fs::write(&file, "listen = \"nonsense\"\n").unwrap();
    let out = run(file).await.unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("FAIL config"));
    sim.stop().await;
}
