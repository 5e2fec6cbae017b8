//! Integration tests: the real server (and later the simulator) on ephemeral loopback ports,
//! talked to over real HTTP. One binary, so it links once.

mod support;

mod cli;
mod discovery;
mod labels;
mod printing;
mod server;
