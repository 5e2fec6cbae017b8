//! `stock-manager sim` and `stock-manager demo` as real processes.

use crate::support::binary;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(f)
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(Instant::now() < deadline, "process did not stop");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sim_prints_its_base_url_and_serves_the_sign_in_page() {
    let mut child = Command::new(binary())
        .args(["sim", "--port", "0", "--seed", "5", "--no-rate-limits"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("line");
    let base = line.trim().strip_prefix("Simulator: ").expect("Simulator line").to_string();
    let status = block_on(async {
        crate::support::client()
            .get(format!("{base}/api/oauth2/auth?client_id=demo-client&redirect_uri=http%3A%2F%2Fx%2Fcb"))
            .send()
            .await
            .map(|r| r.status())
    })
    .expect("sign-in page answers");
    assert_eq!(status, 200);
    child.kill().expect("kill");
    let _ = child.wait();
}

#[test]
fn demo_prints_url_simulator_and_user_then_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("dir");
    let mut child = Command::new(binary())
        .env("ESM_MDNS__ENABLED", "false")
        .args(["demo", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    for _ in 0..4 {
        let mut l = String::new();
        reader.read_line(&mut l).expect("line");
        lines.push(l.trim().to_string());
    }
    let url = lines[0].strip_prefix("URL: ").expect("URL line").to_string();
    let sim = lines[1].strip_prefix("Simulator: ").expect("Simulator line").to_string();
    assert!(lines[2].starts_with("Demo user: ") && lines[2].contains('@'), "{lines:?}");
    let code = lines[3].strip_prefix("Licence code: ").expect("Licence code line");
    let demo = stock_manager::auth::licence::Verifier::new(None, true).expect("demo verifier");
    let today = chrono::Local::now().date_naive();
    assert!(
        demo.verify(code, 3154102, "Van Dijk Machinebouw B.V.", today).is_ok(),
        "the demo code activates the first division"
    );
    let (health, divisions) = block_on(async {
        let c = crate::support::client();
        let h = c.get(format!("{url}/api/v1/health")).send().await.map(|r| r.status());
        // Unauthenticated provider calls are refused: proves the simulator is the one answering.
        let d = c.get(format!("{sim}/api/v1/current/Me")).send().await.map(|r| r.status());
        (h, d)
    });
    assert_eq!(health.expect("health"), 200);
    assert_eq!(divisions.expect("sim"), 401);
    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    assert!(wait_exit(&mut child).success());
}
