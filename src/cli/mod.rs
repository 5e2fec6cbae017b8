//! The commands that work on the data directory beside (or instead of) the server: a sync from
//! the terminal, labels to a file or a printer, the sessions of a user. The top of the product
//! crate, beside `server`: they open the services the way the server does, so no service
//! imports them.

pub mod labels;
pub mod sessions;
pub mod sync;
