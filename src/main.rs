//! Command line: parsing and dispatch only.
#![forbid(unsafe_code)]

use clap::{Args, Parser, Subcommand};
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
        Command::Serve(args) => {
            let config = match load_config(cli.config.as_deref(), &args) {
                Ok(c) => c,
                Err(code) => return code,
            };
            run_async(serve(config))
        }
    }
}

fn load_config(file: Option<&std::path::Path>, args: &ServeArgs) -> Result<Config, ExitCode> {
    let mut config = Config::load(file).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    if let Some(listen) = &args.listen {
        config.listen = listen.clone();
    }
    if let Some(dir) = &args.data_dir {
        config.data_dir = dir.clone();
    }
    config.validate().map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    Ok(config)
}

fn run_async(fut: impl std::future::Future<Output = anyhow::Result<()>>) -> ExitCode {
    match actix_web::rt::System::new().block_on(fut) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    stock_manager::telemetry::init(&config);
    stock_manager::tls::install_crypto_provider();
    let running = server::start(config, StartOptions { handle_signals: true, ..StartOptions::default() }).await?;
    println!("URL: {}", running.url);
    running.wait().await
}
