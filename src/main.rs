//! Command line: parsing and dispatch only.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use stock_manager::config::Config;
use stock_manager::server::{self, StartOptions};

#[derive(Parser)]
#[command(name = "stock-manager", version, about = "Stock Manager: stock and production for Exact Online companies")]
struct Cli {
    /// Configuration file (TOML); default ./config.toml when present.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web UI and API (the default).
    Serve(ServeArgs),
    /// Print the version.
    Version,
    /// Sync organizations from Exact Online now, with a progress bar (for cron and first installs).
    Sync(SyncArgs),
    /// Make labels from Exact Online data: a PDF file, or straight to a printer.
    Labels(LabelsArgs),
    /// Write a backup of the data directory to FILE (asks the running server, which holds the files).
    Backup(BackupArgs),
    /// Bring a backup back into an empty data directory.
    Restore(RestoreArgs),
    /// Who is signed in, and ending a user's sessions at once (a worker who left, a lost handheld).
    Sessions {
        #[command(subcommand)]
        action: SessionsAction,
        /// Data directory (overrides `data_dir`).
        #[arg(long, value_name = "DIR", global = true)]
        data_dir: Option<PathBuf>,
    },
    /// Licence codes, for the vendor: make a signing key, issue codes.
    License {
        #[command(subcommand)]
        action: LicenseAction,
    },
    /// Read a password (without echo on a terminal, else one line of stdin) and print its Argon2
    /// hash for `[admin] password`.
    HashPassword,
    /// Check this install: config, data directory, Exact Online, printers, TLS, mDNS, disk.
    Doctor {
        /// Data directory (overrides `data_dir`).
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Run the built-in Exact Online simulator alone and print its base URL.
    #[cfg(feature = "demo")]
    Sim(SimArgs),
    /// Run the simulator and the server together with demo data.
    #[cfg(feature = "demo")]
    Demo(DemoArgs),
}

#[cfg(feature = "demo")]
#[derive(Args)]
struct SimArgs {
    /// Amount of demo data.
    #[arg(long, value_enum, default_value = "small")]
    scale: stock_manager::sim::Scale,
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Seed of the demo data generator.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Do not enforce the provider's rate limits.
    #[arg(long)]
    no_rate_limits: bool,
}

#[cfg(feature = "demo")]
#[derive(Args)]
struct DemoArgs {
    /// Amount of demo data.
    #[arg(long, value_enum, default_value = "small")]
    scale: stock_manager::sim::Scale,
    /// Seed of the demo data generator.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Do not enforce the provider's rate limits (60 calls a minute per organization): for
    /// walking through screens quickly; the real provider always enforces them.
    #[arg(long)]
    no_rate_limits: bool,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum LicenseAction {
    /// Create a new signing key: writes the private key file and prints the public key.
    Keygen {
        /// Where to write the private key (kept secret: it issues licences).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Issue a licence code for an organization.
    Issue {
        /// The private key file from `license keygen`.
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// The organization's division number.
        #[arg(long)]
        division: i64,
        /// The customer name exactly as Exact Online shows it.
        #[arg(long)]
        customer: String,
        /// Last valid day, YYYY-MM-DD; default no expiry.
        #[arg(long, value_name = "DATE")]
        expires: Option<chrono::NaiveDate>,
    },
}

#[derive(Subcommand)]
enum SessionsAction {
    /// Every signed-in user of every organization, most recently used first.
    List,
    /// End every session of a user at once: each browser and handheld of theirs is signed out.
    End {
        /// The Exact user id or user name, as `sessions list` shows it.
        #[arg(long, value_name = "ID")]
        user: String,
    },
}

#[derive(Args)]
struct BackupArgs {
    /// The backup file to write (must not exist yet).
    #[arg(long, value_name = "FILE")]
    to: PathBuf,
    /// Data directory (overrides `data_dir`).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

#[derive(Args)]
struct RestoreArgs {
    /// A file written by `stock-manager backup` or the daily backup.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Data directory to restore into; it must be empty or not exist (overrides `data_dir`).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

#[derive(Args)]
struct SyncArgs {
    /// Only this organization (division number); default every organization that signed in.
    #[arg(long, value_name = "DIV")]
    org: Option<i64>,
    /// Tables or endpoint names to sync; default every sync endpoint except deleted entries
    /// (which are synced after every sync anyway).
    #[arg(long, value_name = "NAME", num_args = 1..)]
    endpoints: Vec<String>,
    /// Data directory (overrides `data_dir`).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

#[derive(Args)]
struct LabelsArgs {
    /// Where the ids come from.
    #[arg(long, value_enum)]
    source: LabelSourceArg,
    /// A shop order, item or goods receipt line ID (GUID); repeat for more.
    #[arg(long = "id", value_name = "ID", required = true)]
    ids: Vec<String>,
    /// Label type by name (electrical-72001926, electrical-72001925, electrical-x4, electrical-NEW,
    /// cnc-new, receipts) or number.
    #[arg(long = "type", value_name = "NAME", default_value = "electrical-72001926", value_parser = parse_label_type)]
    label_type: stock_manager::labels::LabelType,
    /// Write the PDF here.
    #[arg(long, value_name = "FILE", required_unless_present = "printer", conflicts_with = "printer")]
    out: Option<PathBuf>,
    /// Print on this printer (configured or announced on the LAN).
    #[arg(long, value_name = "NAME")]
    printer: Option<String>,
    /// The organization (division number); default the only one that signed in.
    #[arg(long, value_name = "DIV")]
    org: Option<i64>,
    /// Data directory (overrides `data_dir`).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum LabelSourceArg {
    ShopOrder,
    Item,
    Receipt,
}

fn parse_label_type(s: &str) -> Result<stock_manager::labels::LabelType, String> {
    stock_manager::labels::LabelType::parse(s).map_err(|e| e.to_string())
}

#[derive(Args, Default)]
struct ServeArgs {
    /// Listen address, HOST:PORT (overrides `listen`).
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// Data directory (overrides `data_dir`).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve(ServeArgs::default())) {
        Command::Version => {
            println!("stock-manager {}", stock_manager::VERSION);
            ExitCode::SUCCESS
        }
        #[cfg(feature = "demo")]
        Command::Sim(args) => run_async(sim(args)),
        #[cfg(feature = "demo")]
        Command::Demo(args) => {
            let config = match load_config(cli.config.as_deref(), &args.serve) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let opts = stock_manager::demo::DemoOptions {
                sim: stock_manager::sim::SimOptions {
                    scale: args.scale,
                    seed: args.seed,
                    rate_limits: !args.no_rate_limits,
                    ..Default::default()
                },
                keep_data_dir: args.serve.data_dir.is_some(),
            };
            run_async(async move {
                stock_manager::telemetry::init(&config);
                stock_manager::tls::install_crypto_provider();
                stock_manager::demo::run(config, opts).await
            })
        }
        Command::License { action } => license(action),
        Command::HashPassword => hash_password(),
        Command::Doctor { data_dir } => {
            let serve = ServeArgs { listen: None, data_dir };
            let config = match load_config(cli.config.as_deref(), &serve) {
                Ok(c) => c,
                // load_config printed the reason; say it as a check line too.
                Err(_) => {
                    println!(
                        "FAIL config     the configuration does not load (above): fix it, see config.example.toml"
                    );
                    return ExitCode::FAILURE;
                }
            };
            let shown = cli.config.as_ref().map(|p| p.display().to_string());
            println!("OK   config     {} parses", shown.as_deref().unwrap_or("the configuration"));
            let checks = actix_web::rt::System::new().block_on(stock_manager::doctor::run(&config));
            for check in &checks {
                println!("{check}");
            }
            if stock_manager::doctor::failed(&checks) { ExitCode::FAILURE } else { ExitCode::SUCCESS }
        }
        Command::Backup(args) => {
            let serve = ServeArgs { listen: None, data_dir: args.data_dir.clone() };
            let config = match load_config(cli.config.as_deref(), &serve) {
                Ok(c) => c,
                Err(code) => return code,
            };
            run_async(async move {
                stock_manager::telemetry::init(&config);
                let manifest = stock_manager::backup::run_backup(&config, &args.to).await?;
                println!("Backup: {}", args.to.display());
                println!("Contents: {}", stock_manager::backup::describe(&manifest));
                Ok(())
            })
        }
        Command::Sessions { action, data_dir } => {
            let serve = ServeArgs { listen: None, data_dir };
            let config = match load_config(cli.config.as_deref(), &serve) {
                Ok(c) => c,
                Err(code) => return code,
            };
            run_async(async move {
                use stock_manager::cli::sessions as sessions_cli;
                match action {
                    SessionsAction::List => {
                        let users = sessions_cli::list(&config).await?;
                        if users.is_empty() {
                            println!("Nobody is signed in.");
                        }
                        for u in users {
                            let seen = chrono::DateTime::from_timestamp_millis(u.last_seen)
                                .map(|t| t.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M").to_string())
                                .unwrap_or_default();
                            println!(
                                "{}  {} ({})  {} session(s), last used {seen}",
                                u.user, u.user_name, u.full_name, u.sessions
                            );
                        }
                    }
                    SessionsAction::End { user } => {
                        let ended = sessions_cli::end(&config, &user).await?;
                        println!("Ended {} session(s) of {}", ended.ended, ended.user);
                    }
                }
                Ok(())
            })
        }
        Command::Restore(args) => {
            let serve = ServeArgs { listen: None, data_dir: args.data_dir.clone() };
            let config = match load_config(cli.config.as_deref(), &serve) {
                Ok(c) => c,
                Err(code) => return code,
            };
            stock_manager::telemetry::init(&config);
            match stock_manager::backup::restore::restore(&args.file, &config.data_dir) {
                Ok(r) => {
                    println!("Restored: {}", config.data_dir.display());
                    println!("Contents: {}", stock_manager::backup::describe(&r.manifest));
                    println!(
                        "Queued writes: {} checked at Exact Online before they go, {} left for you to check in the queue",
                        r.writes_checked, r.writes_for_user
                    );
                    println!(
                        "Print jobs open in the backup, marked failed (print again if needed): {}",
                        r.print_jobs_failed
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Sync(args) => {
            let serve = ServeArgs { listen: None, data_dir: args.data_dir.clone() };
            let config = match load_config(cli.config.as_deref(), &serve) {
                Ok(c) => c,
                Err(code) => return code,
            };
            run_async(async move {
                stock_manager::telemetry::init(&config);
                stock_manager::cli::sync::run(&config, args.org, &args.endpoints).await
            })
        }
        Command::Labels(args) => {
            use stock_manager::cli::labels as labels_cli;
            use stock_manager::labels::LabelSource;
            let serve = ServeArgs { listen: None, data_dir: args.data_dir.clone() };
            let config = match load_config(cli.config.as_deref(), &serve) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let command = labels_cli::LabelsCommand {
                source: match args.source {
                    LabelSourceArg::ShopOrder => LabelSource::ShopOrder,
                    LabelSourceArg::Item => LabelSource::ItemDirect,
                    LabelSourceArg::Receipt => LabelSource::GoodsReceipt,
                },
                ids: args.ids,
                label_type: args.label_type,
                output: match (args.out, args.printer) {
                    (Some(file), _) => labels_cli::Output::File(file),
                    (None, Some(name)) => labels_cli::Output::Printer(name),
                    // clap requires one of them.
                    (None, None) => return ExitCode::from(2),
                },
                org: args.org,
            };
            run_async(async move {
                stock_manager::telemetry::init(&config);
                stock_manager::tls::install_crypto_provider();
                labels_cli::run(&config, command).await
            })
        }
        Command::Serve(args) => {
            let config = match load_config(cli.config.as_deref(), &args) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let file = cli.config.clone();
            // After the first-run setup wrote the config, it is read again the same way.
            let reload = move || {
                load_config(file.as_deref(), &args).map_err(|_| anyhow::anyhow!("the configuration no longer loads"))
            };
            run_async(serve(config, reload))
        }
    }
}

fn license(action: LicenseAction) -> ExitCode {
    use stock_manager::auth::licence::Issuer;
    match action {
        LicenseAction::Keygen { out } => {
            if out.exists() {
                eprintln!("error: {} exists; refusing to overwrite a signing key", out.display());
                return ExitCode::from(2);
            }
            let issuer = Issuer::generate();
            if let Err(e) = esm_base::files::write_new_private(&out, issuer.to_key_file().as_bytes()) {
                eprintln!("error: cannot write {}: {e:#}", out.display());
                return ExitCode::FAILURE;
            }
            println!("Private key: {}", out.display());
            println!("Public key: {}", issuer.public_key());
            ExitCode::SUCCESS
        }
        LicenseAction::Issue { key, division, customer, expires } => {
            let text = match std::fs::read_to_string(&key) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", key.display());
                    return ExitCode::from(2);
                }
            };
            match Issuer::from_key_file(&text) {
                Ok(issuer) => {
                    println!("{}", issuer.issue(division, &customer, expires));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

fn hash_password() -> ExitCode {
    let password = match read_password() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match stock_manager::password::hash(&password) {
        Ok(phc) => {
            println!("{phc}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot hash the password: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The password to hash: asked twice without echo on a terminal, else the first line of stdin.
fn read_password() -> Result<String, String> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    let password = if stdin.is_terminal() {
        let first = prompt_hidden("Password: ")?;
        if prompt_hidden("Again: ")? != first {
            return Err("the two passwords differ".into());
        }
        first
    } else {
        let mut line = String::new();
        stdin.read_line(&mut line).map_err(|e| format!("cannot read stdin: {e}"))?;
        line.trim_end_matches(['\r', '\n']).to_string()
    };
    if password.is_empty() {
        return Err("the password is empty".into());
    }
    Ok(password)
}

/// Reads a line from the terminal with echo off (restored even when reading fails).
fn prompt_hidden(prompt: &str) -> Result<String, String> {
    use std::io::Write;
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    let saved = {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        let stdin = rustix::stdio::stdin();
        let saved = tcgetattr(stdin).map_err(|e| format!("cannot read the terminal settings: {e}"))?;
        let mut quiet = saved.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        tcsetattr(stdin, OptionalActions::Now, &quiet).map_err(|e| format!("cannot turn echo off: {e}"))?;
        saved
    };
    let mut line = String::new();
    let read = std::io::stdin().read_line(&mut line);
    #[cfg(unix)]
    {
        use rustix::termios::{OptionalActions, tcsetattr};
        let _ = tcsetattr(rustix::stdio::stdin(), OptionalActions::Now, &saved);
    }
    eprintln!();
    read.map_err(|e| format!("cannot read the password: {e}"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

fn load_config(file: Option<&std::path::Path>, args: &ServeArgs) -> Result<Config, ExitCode> {
    let cli = stock_manager::config::Overrides { listen: args.listen.clone(), data_dir: args.data_dir.clone() };
    Config::load(file, &cli).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

fn run_async(fut: impl std::future::Future<Output = anyhow::Result<()>>) -> ExitCode {
    let system = actix_web::rt::System::new();
    let result = system.block_on(fut);
    // the runtime waits here for blocking work still running (a store commit of a sync)
    let ending = std::time::Instant::now();
    drop(system);
    tracing::info!(ms = ending.elapsed().as_millis() as u64, "runtime ended");
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A line on the console for whoever started the server; a closed stdout (a reader that took the
/// first line and went) must not stop the server, as `println!` would by panicking.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

async fn serve(config: Config, reload: impl Fn() -> anyhow::Result<Config>) -> anyhow::Result<()> {
    stock_manager::telemetry::init(&config);
    stock_manager::tls::install_crypto_provider();
    let mut config = config;
    loop {
        let running = server::start(config, StartOptions { handle_signals: true, ..StartOptions::default() }).await?;
        say(&format!("URL: {}", running.url));
        if let Some(code) = running.setup_code() {
            say(&format!("Setup code: {code} (open the URL above to set up the connection to Exact Online)"));
        }
        match running.wait_or_restart().await? {
            server::Ended::Stopped => return Ok(()),
            server::Ended::Restart => config = reload()?,
        }
    }
}

#[cfg(feature = "demo")]
async fn sim(args: SimArgs) -> anyhow::Result<()> {
    use stock_manager::sim::{SimOptions, Simulator};
    let opts = SimOptions {
        scale: args.scale,
        seed: args.seed,
        bind: format!("127.0.0.1:{}", args.port),
        rate_limits: !args.no_rate_limits,
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let sim = Simulator::start(opts).await?;
    println!("Simulator: {}", sim.base_url());
    let h = sim.handle();
    let rows: usize = h.divisions().into_iter().filter_map(|d| h.table_sizes(d)).flatten().map(|(_, n)| n).sum();
    eprintln!(
        "demo data: {rows} rows in {:.1} s; client id {}, secret {}",
        started.elapsed().as_secs_f64(),
        stock_manager::sim::DEMO_CLIENT_ID,
        stock_manager::sim::DEMO_CLIENT_SECRET
    );
    tokio::signal::ctrl_c().await?;
    sim.stop().await;
    Ok(())
}
