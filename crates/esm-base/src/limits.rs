//! Every input limit of the server in one place (DESIGN "Unattended operation": a hostile or
//! careless request is answered with a 4xx from the catalogue, never with a crash or a server
//! that runs out of memory). The "Input limits" table of docs/architecture.md lists these values; keep it in
//! step when one changes.

/// Deepest nesting of `and(…)`/`or(…)`/`not.…` in a data filter. The parser and the evaluator
/// recurse over the tree: 32 levels is far beyond any filter a person writes, and far below what
/// overflows a worker thread's stack.
pub const FILTER_MAX_DEPTH: usize = 32;

/// Longest filter text (a query string of the data API, or one filter's value), in bytes. A
/// label lookup sends 100 GUIDs in one `in.(…)` (about 3.7 KB); 16 KB leaves room for that and
/// keeps the parser's work per request small.
pub const FILTER_MAX_TEXT: usize = 16 * 1024;

/// Most conditions (and logic nodes) in one query's filters: every one is evaluated per row.
pub const FILTER_MAX_CONDITIONS: usize = 256;

/// Most joins in one `/db/joins` request: each reads another table.
pub const JOIN_MAX_JOINS: usize = 8;

/// Most rows a join attaches to one base row. Real joins (an order's lines, an item's stock per
/// warehouse) attach tens; a join on a flag (`IsStockItem`) attaches half a table to every row.
pub const JOIN_MAX_MATCHES_PER_ROW: usize = 1000;

/// Most rows (base rows plus attached matches) in one join answer.
pub const JOIN_MAX_ROWS: usize = 50_000;

/// Largest join answer, in bytes of JSON, counted before it is built: what the browser can take
/// and what the server holds in memory for one request.
pub const JOIN_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Most ids (or `{id, print_count}` entries) in one label request; each may need a provider read.
pub const LABEL_MAX_IDS: usize = 1000;

/// Most labels one request or print job makes (print counts × copies, over every record): a label
/// roll holds a few thousand, and rendering 5000 labels takes seconds, not minutes.
pub const LABEL_MAX_PER_JOB: usize = 5000;

/// More copies than this of one print request is a typing error, not a print run.
pub const LABEL_MAX_COPIES: u32 = 100;

/// Most rows one read of Exact Online gathers over all its pages (`urlDirect`, the live lists such
/// as storage locations, the client's every-page reads); past it the read answers an error that
/// says so, never a silently shortened list. No factory has this many warehouses or locations.
pub const PROVIDER_READ_MAX_ROWS: usize = 50_000;

/// Largest JSON body of a public route (sign-in and the like): they take a few short fields.
pub const JSON_BODY_MAX_PUBLIC: usize = 16 * 1024;

/// Largest JSON body of a signed-in route (preferences, licence, division switch).
pub const JSON_BODY_MAX_SIGNED_IN: usize = 64 * 1024;

/// Largest JSON body of a full-access route (writes, labels, picture batches): the same as
/// before the limits were gathered here, so nothing that worked stops working.
pub const JSON_BODY_MAX_FULL: usize = 16 * 1024 * 1024;

/// Pictures per batch read (each one inlined as base64) and per batch set (each one fetched).
pub const PICTURE_MAX_BATCH: usize = 100;

/// Item ids per batch picture removal.
pub const PICTURE_MAX_REMOVE: usize = 1000;

/// Largest ImportData upload (streamed to a temporary file, not held in memory): a large
/// organization's export.
pub const IMPORT_MAX_BYTES: usize = 1 << 30;

/// Largest picture file the server takes (before it is decoded).
pub const PICTURE_MAX_BYTES: usize = 20 * 1024 * 1024;

/// Widest or tallest picture the server decodes.
pub const PICTURE_MAX_SIDE: u32 = 12_000;

/// Most pixels in a picture the server decodes: 40 megapixels is a good camera's photo, and
/// decoded as RGBA it takes 160 MB; a small file that claims more is refused before decoding.
pub const PICTURE_MAX_PIXELS: u64 = 40_000_000;

/// Most memory the picture decoder may allocate for one picture.
pub const PICTURE_MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;

/// Sign-ins in flight at once; beyond it a new start is answered 429 and nothing is forgotten,
/// so anonymous login floods keep memory bounded without pushing out a real sign-in in progress.
pub const MAX_PENDING_LOGINS: usize = 1000;
/// Sign-ins in flight from one address (a shared handheld station, a proxy without trusted
/// forwarding): a real browser starts one at a time, a flood from one address stops here.
pub const MAX_PENDING_LOGINS_PER_ADDRESS: usize = 50;
/// Admin password verifications running at once (Argon2 holds about 19 MiB each); one per user.
pub const REAUTH_VERIFICATIONS_AT_ONCE: usize = 2;

/// Event streams one session may hold open (a few tabs).
pub const MAX_STREAMS_PER_SESSION: usize = 4;

/// The longest `returnTo` a sign-in keeps (a screen's path and query, with room to spare).
pub const MAX_RETURN_TO: usize = 2048;

/// Join queries computed at once, server-wide: each holds its base rows and matches parsed (tens
/// of MB for a page of wide rows), so many at once would take the memory of the machine.
pub const JOIN_MAX_CONCURRENT: usize = 2;

/// How long a join query waits for one of those slots before it answers 503.
pub const JOIN_QUEUE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Bytes a printer's IPP answer may have: attribute answers are a few KB, and anything on the LAN
/// can claim to be a printer.
pub const PRINTER_ANSWER_MAX_BYTES: usize = 1024 * 1024;

/// A request body has this long to start arriving (and a slow one this long before its pace is
/// counted): a handheld on weak Wi-Fi sends a booking in well under a second.
pub const BODY_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Bytes a second a body must average after the grace: each byte buys its share of a second, so
/// a client that sends a byte a second is cut at the grace's end (`api::slow_bodies`), while a
/// slow but steady upload goes on up to `BODY_DEADLINE`.
pub const BODY_MIN_RATE: u64 = 1024;

/// Longest any body may take, whatever its pace: a 1 GB ImportData over the LAN takes minutes.
pub const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// Live or direct reads of Exact Online one user may have going at once (`live::slots`).
pub const MAX_LIVE_READS_PER_USER: usize = 4;
/// How long one more read waits for a place before it is answered 429: a screen that reads a list
/// in chunks of ids asks for several at once, and each is seconds at most.
pub const LIVE_READ_SLOT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Most connections the server holds at once, over all workers. Each holds two descriptors (its
/// socket and the duplicate `api::peer_gone` watches), so 4,096 use half of the 16,384 the systemd
/// unit allows (`LimitNOFILE`), leaving the rest for databases, printers and Exact. Where the process may open fewer, a third of what it may (`server::connection_limit`).
pub const MAX_CONNECTIONS: usize = 4096;
