//! The binary: version, config errors that name the key, secrets kept out of output, SIGTERM.

use crate::support::binary;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn version_prints_the_version() {
    let out = Command::new(binary()).arg("version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("stock-manager {}", stock_manager::VERSION));
}

#[test]
fn invalid_config_names_the_key_and_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "listen = \"not-an-address\"\n").unwrap();
    let out = Command::new(binary()).arg("--config").arg(&file).arg("serve").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`listen`"), "{err}");
}

#[test]
fn invalid_environment_value_names_the_key() {
    let out = Command::new(binary())
        .env("ESM_SYNC__INTERVAL_MINUTES", "often")
        .args(["serve", "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).to_lowercase().contains("sync.interval_minutes"));
}

#[test]
fn missing_config_file_is_an_error() {
    let out = Command::new(binary()).args(["--config", "/nonexistent/esm.toml", "serve"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/esm.toml"));
}

#[test]
fn help_never_shows_a_secret() {
    let out = Command::new(binary()).env("ESM_PROVIDER__CLIENT_SECRET", "s3cr3t-value").arg("--help").output().unwrap();
    assert!(out.status.success());
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!all.contains("s3cr3t-value"));
}

/// The setup code of a server that is not set up goes to the console once and into no log line:
/// logs travel further than the console (collectors, support tickets).
#[test]
fn the_setup_code_is_on_the_console_and_in_no_log_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(binary())
        .env("ESM_MDNS__ENABLED", "false")
        .env("ESM_LOG_LEVEL", "debug")
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut url, mut setup) = (String::new(), String::new());
    stdout.read_line(&mut url).unwrap();
    stdout.read_line(&mut setup).unwrap();
    assert!(url.starts_with("URL: "), "{url}");
    let code =
        setup.strip_prefix("Setup code: ").and_then(|rest| rest.split_whitespace().next()).expect("a setup code");
    assert_eq!(code.len(), 14, "{setup}");
    let url = url.trim().trim_start_matches("URL: ").to_string();
    let needed = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let res = crate::support::client().get(format!("{url}/api/v1/setup")).send().await.unwrap();
            res.json::<serde_json::Value>().await.unwrap()["needed"].clone()
        })
    })
    .join()
    .unwrap();
    assert_eq!(needed, true);
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut log).unwrap();
    assert!(exit.success(), "{exit:?} {log}");
    assert!(log.contains("not set up"), "{log}");
    assert!(!log.contains(code), "the setup code is in the log: {log}");
}

/// The real process: starts, prints its URL, serves, and exits 0 on SIGTERM without leaking the secret.
#[test]
fn serves_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(binary())
        .env("ESM_PROVIDER__CLIENT_SECRET", "s3cr3t-value")
        .env("ESM_MDNS__ENABLED", "false")
        .env("RUST_LOG", "debug")
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("URL: ").expect("URL line").to_string();
    let health = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            crate::support::client().get(format!("{url}/api/v1/health")).send().await.map(|r| r.status())
        })
    })
    .join()
    .unwrap()
    .expect("health answers");
    assert_eq!(health, 200);
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let started = Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed() < Duration::from_secs(15), "stopped within the grace period");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut log).unwrap();
    assert!(!log.contains("s3cr3t-value"), "secret leaked into the log");
}

#[test]
fn license_keygen_and_issue_make_a_code_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("vendor.key");
    let out = Command::new(binary()).args(["license", "keygen", "--out"]).arg(&key).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let public = stdout.lines().find_map(|l| l.strip_prefix("Public key: ")).expect("public key line").to_string();
    let again = Command::new(binary()).args(["license", "keygen", "--out"]).arg(&key).output().unwrap();
    assert_eq!(again.status.code(), Some(2), "never overwrites a key");
    let out = Command::new(binary())
        .args(["license", "issue", "--key"])
        .arg(&key)
        .args(["--division", "3154102", "--customer", "Van Dijk Machinebouw B.V.", "--expires", "2030-01-01"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let code = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let verifier = stock_manager::auth::licence::Verifier::new(Some(&public), false).unwrap();
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    assert!(verifier.verify(&code, 3154102, "Van Dijk Machinebouw B.V.", today).is_ok());
}

/// A service manager's SIGTERM stops the real process within seconds also while a browser holds
/// an event stream open (the stream ends first; before, the stop waited out its whole grace).
#[test]
fn sigterm_stops_the_server_promptly_with_an_event_stream_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(binary())
        .env("ESM_MDNS__ENABLED", "false")
        .args(["demo", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = std::collections::HashMap::new();
    while printed.len() < 4 {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "demo printed its lines");
        if let Some((k, v)) = line.trim().split_once(": ") {
            printed.insert(k.to_string(), v.to_string());
        }
    }
    let (url, licence) = (printed["URL"].clone(), printed["Licence code"].clone());
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let stream = rt.block_on(async {
        let s = crate::provider::browser_sign_in(&url).await;
        let http = crate::support::client();
        let body = serde_json::json!({"division": s.session["division"], "code": licence});
        let res = http.post(format!("{url}/api/v1/license/activate")).header("cookie", &s.cookie).json(&body);
        assert_eq!(res.send().await.unwrap().status(), 200);
        let res = http.get(format!("{url}/api/v1/events")).header("cookie", &s.cookie).send().await.unwrap();
        assert_eq!(res.status(), 200);
        res
    });
    let started = Instant::now();
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let exit = child.wait().unwrap();
    let took = started.elapsed();
    assert!(exit.success(), "{exit:?}");
    // The grace for requests in flight is 3 s; 5 s is the bound a service manager is promised.
    assert!(took < Duration::from_secs(5), "the stop took {took:?}");
    drop(stream);
}
