//! `stock-manager sessions list` and `sessions end --user ID`: who is signed in, in every
//! organization, and ending one user's sessions at once (a worker who left, a lost handheld).
//! With the server running they ask it (`api::admin`, through the control file), so its event
//! streams close and the user's tokens are let go as on the administrator page; with it stopped
//! they work on `server.redb` directly.

use crate::auth::session::Sessions;
use crate::auth::users::{Ended, UserSessions, per_user};
use crate::backup::control;
use crate::config::Config;
use crate::exact::oauth::now_ms;
use crate::serverdb::ServerDb;
use anyhow::{Context, Result, bail};
use std::sync::Arc;

/// Every signed-in user, most recently used first.
pub async fn list(config: &Config) -> Result<Vec<UserSessions>> {
    if let Some(answer) = ask_server(config, reqwest::Method::GET, "/api/v1/admin/sessions").await? {
        return answer.json().await.context("reading the server's list of sessions");
    }
    let sessions = offline(config)?;
    Ok(per_user(sessions.live_records(now_ms())?, None))
}

/// Ends every session of `user` (an Exact user id, or a user name as listed).
pub async fn end(config: &Config, user: &str) -> Result<Ended> {
    let listed = list(config).await?;
    let Some(known) =
        listed.iter().find(|u| u.user.eq_ignore_ascii_case(user) || u.user_name.eq_ignore_ascii_case(user))
    else {
        bail!("nobody signed in as '{user}' (see `stock-manager sessions list`)");
    };
    let path = format!("/api/v1/admin/sessions/{}", urlencoding::encode(&known.user));
    if let Some(answer) = ask_server(config, reqwest::Method::DELETE, &path).await? {
        return answer.json().await.context("reading the server's answer");
    }
    let db = Arc::new(ServerDb::open(&config.data_dir)?);
    let ended = Sessions::new(db.clone()).end_all_of(&known.user)?;
    // As when their last session ends on the page: no longer an account of their organizations.
    db.remove_org_user(&known.user)?;
    Ok(Ended { user: known.user.clone(), ended })
}

/// The running server's answer, or `None` when no server holds the data directory.
async fn ask_server(config: &Config, method: reqwest::Method, path: &str) -> Result<Option<reqwest::Response>> {
    let Some(c) = control::read(&config.data_dir)? else { return Ok(None) };
    let sent = control::client()?.request(method, format!("{}{path}", c.url)).bearer_auth(&c.token).send().await;
    match sent.map_err(anyhow::Error::from) {
        Ok(res) if res.status().is_success() => Ok(Some(res)),
        Ok(res) => {
            let status = res.status();
            bail!("the server at {} answered {status}: {}", c.url, res.text().await.unwrap_or_default())
        }
        // A control file left by a server that is gone: the data directory is free.
        Err(e) if control::nobody_there(&e) => Ok(None),
        Err(e) => Err(e.context(format!("asking the server at {}", c.url))),
    }
}

fn offline(config: &Config) -> Result<Sessions> {
    if !config.data_dir.is_dir() {
        bail!("the data directory {} does not exist", config.data_dir.display());
    }
    Ok(Sessions::new(Arc::new(ServerDb::open(&config.data_dir)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::session::SessionRecord;

    fn record(user: &str) -> SessionRecord {
        SessionRecord {
            user: user.into(),
            user_name: format!("{user}@example.com"),
            full_name: user.to_uppercase(),
            division: 1,
            customer_name: String::new(),
            divisions: vec![],
            registered: true,
            reauth_until_ms: None,
            created_ms: now_ms(),
            last_seen_ms: now_ms(),
        }
    }

    #[tokio::test]
    async fn with_the_server_stopped_the_files_are_read_and_changed() {
        let dir = tempfile::tempdir().expect("dir");
        let config = Config { data_dir: dir.path().to_path_buf(), ..Config::default() };
        {
            let sessions = Sessions::new(Arc::new(ServerDb::open(dir.path()).expect("db")));
            sessions.create(&record("u1")).expect("session");
            sessions.create(&record("u1")).expect("session");
            sessions.create(&record("u2")).expect("session");
        }
        // A control file left by a server that was killed: nothing answers there.
        control::publish(dir.path(), "127.0.0.1:9".parse().expect("addr"), false).expect("control");
        let users = list(&config).await.expect("listed");
        assert_eq!(users.iter().map(|u| (u.user.as_str(), u.sessions)).collect::<Vec<_>>().len(), 2);
        let ended = end(&config, "U1@example.com").await.expect("ended by user name");
        assert_eq!((ended.user.as_str(), ended.ended), ("u1", 2));
        let left = list(&config).await.expect("listed");
        assert_eq!(left.iter().map(|u| u.user.as_str()).collect::<Vec<_>>(), ["u2"]);
        let unknown = end(&config, "nobody").await.expect_err("not signed in");
        assert!(unknown.to_string().contains("nobody signed in as 'nobody'"), "{unknown:#}");
    }
}
