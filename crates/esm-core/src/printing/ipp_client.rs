//! IPP over HTTP with the `ipp` crate's request model and parser, sent by our own reqwest client
//! with a Content-Length body: small embedded print servers refuse the chunked bodies the crate's
//! own clients send.

use ipp::attribute::IppAttribute;
use ipp::model::DelimiterTag;
use ipp::operation::IppOperation;
use ipp::parser::IppParser;
use ipp::prelude::{IppOperationBuilder, IppPayload, IppRequestResponse, IppValue, Uri};
use serde::Serialize;
use std::time::Duration;

/// Why talking to a printer failed, split by what the queue should do about it.
#[derive(Debug, thiserror::Error)]
pub enum IppError {
    /// The printer could not be reached: nothing was sent, so trying again cannot print twice.
    #[error("printer unreachable: {0}")]
    Unreachable(String),
    /// The request may have reached the printer; sending again could print twice.
    #[error("printer did not answer properly: {0}")]
    Transport(String),
    #[error("the printer refused the request: {0}")]
    Refused(String),
    #[error("bad printer URI '{0}'")]
    BadUri(String),
    #[error("the IPP request could not be built: {0}")]
    Build(String),
}

/// What a printer says it can do (Get-Printer-Attributes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PrinterCapabilities {
    #[schema(required = true)]
    pub make_and_model: Option<String>,
    pub document_formats: Vec<String>,
    pub media_supported: Vec<String>,
    #[schema(required = true)]
    pub media_default: Option<String>,
    /// Resolutions in dots per inch (cross-feed).
    pub resolutions: Vec<u32>,
    pub pwg_raster_types: Vec<String>,
    pub pwg_raster_resolutions: Vec<u32>,
    /// `idle`, `processing` or `stopped`.
    pub state: String,
    pub accepting_jobs: bool,
}

impl PrinterCapabilities {
    pub fn accepts_pdf(&self) -> bool {
        self.document_formats.iter().any(|f| f == "application/pdf")
    }

    pub fn accepts_pwg_raster(&self) -> bool {
        self.document_formats.iter().any(|f| f == "image/pwg-raster")
    }

    /// The resolution to rasterise at: the highest PWG raster resolution up to 600 dpi.
    pub fn raster_dpi(&self) -> u32 {
        let candidates =
            if self.pwg_raster_resolutions.is_empty() { &self.resolutions } else { &self.pwg_raster_resolutions };
        candidates
            .iter()
            .copied()
            .filter(|d| *d <= 600)
            .max()
            .or_else(|| candidates.iter().copied().min())
            .unwrap_or(300)
    }
}

/// A printer job's state as IPP reports it (RFC 8011 job-state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IppJobState {
    Pending,
    PendingHeld,
    Processing,
    ProcessingStopped,
    Canceled,
    Aborted,
    Completed,
    Unknown,
}

impl IppJobState {
    fn from_enum(v: i32) -> IppJobState {
        match v {
            3 => IppJobState::Pending,
            4 => IppJobState::PendingHeld,
            5 => IppJobState::Processing,
            6 => IppJobState::ProcessingStopped,
            7 => IppJobState::Canceled,
            8 => IppJobState::Aborted,
            9 => IppJobState::Completed,
            _ => IppJobState::Unknown,
        }
    }

    pub fn is_final(self) -> bool {
        matches!(self, IppJobState::Canceled | IppJobState::Aborted | IppJobState::Completed)
    }
}

/// The HTTP URL an `ipp://` or `ipps://` printer URI is reached at (port 631 by default).
pub fn http_url(printer_uri: &str) -> Result<url::Url, IppError> {
    let mut url = url::Url::parse(printer_uri).map_err(|_| IppError::BadUri(printer_uri.to_string()))?;
    let scheme = match url.scheme() {
        "ipp" | "http" => "http",
        "ipps" | "https" => "https",
        _ => return Err(IppError::BadUri(printer_uri.to_string())),
    };
    let port = url.port().unwrap_or(631);
    let rebuilt = format!(
        "{scheme}://{}:{port}{}",
        url.host_str().ok_or_else(|| IppError::BadUri(printer_uri.to_string()))?,
        url.path()
    );
    url = url::Url::parse(&rebuilt).map_err(|_| IppError::BadUri(printer_uri.to_string()))?;
    Ok(url)
}

/// An IPP client for one trust setting (strict, or accepting self-signed printer certificates).
#[derive(Clone)]
pub struct IppClient {
    http: reqwest::Client,
}

impl IppClient {
    pub fn new(insecure_tls: bool, timeout: Duration) -> Result<IppClient, IppError> {
        crate::tls::install_crypto_provider();
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5).min(timeout))
            .timeout(timeout)
            .danger_accept_invalid_certs(insecure_tls)
            // A printer that redirects could send label data (and our requests) anywhere.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| IppError::Build(e.to_string()))?;
        Ok(IppClient { http })
    }

    async fn send(
        &self,
        printer_uri: &str,
        request: IppRequestResponse,
        document: Document<'_>,
    ) -> Result<IppRequestResponse, IppError> {
        let url = http_url(printer_uri)?;
        let head = request.to_bytes();
        // Both bodies go out with Content-Length, never chunked: a Vec says its length itself, a
        // spooled file's is set by hand (hyper then sends exactly that many bytes).
        let (body, length) = match document {
            Document::Bytes(bytes) => {
                let mut body = head.to_vec();
                body.extend_from_slice(bytes);
                let length = body.len() as u64;
                (reqwest::Body::from(body), length)
            }
            Document::File { path, len } => {
                let file = tokio::fs::File::open(path)
                    .await
                    .map_err(|e| IppError::Build(format!("the spooled document is unreadable: {e}")))?;
                let length = len + head.len() as u64;
                (reqwest::Body::wrap_stream(file_stream(head, file)), length)
            }
        };
        let response = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/ipp")
            .header(reqwest::header::CONTENT_LENGTH, length)
            .body(body)
            .send()
            .await
            .map_err(|e| {
                if e.is_connect() {
                    IppError::Unreachable(format!("{e:#}"))
                } else {
                    IppError::Transport(format!("{e:#}"))
                }
            })?;
        if !response.status().is_success() {
            return Err(IppError::Refused(format!("HTTP {}", response.status())));
        }
        let bytes = read_capped(response, crate::limits::PRINTER_ANSWER_MAX_BYTES).await?;
        let parsed = IppParser::new(std::io::Cursor::new(bytes))
            .parse()
            .map_err(|e| IppError::Transport(format!("unparseable IPP response: {e}")))?;
        let status = parsed.header().status_code();
        if !status.is_success() {
            let message = attr(&parsed, DelimiterTag::OperationAttributes, "status-message").unwrap_or_default();
            return Err(IppError::Refused(format!("{status:?} {message}").trim().to_string()));
        }
        Ok(parsed)
    }

    /// Get-Printer-Attributes: formats, media, resolutions and state.
    pub async fn capabilities(&self, printer_uri: &str) -> Result<PrinterCapabilities, IppError> {
        let op = IppOperationBuilder::get_printer_attributes(parse_uri(printer_uri)?)
            .attributes([
                "printer-make-and-model",
                "document-format-supported",
                "media-supported",
                "media-default",
                "printer-resolution-supported",
                "pwg-raster-document-type-supported",
                "pwg-raster-document-resolution-supported",
                "printer-state",
                "printer-is-accepting-jobs",
            ])
            .build()
            .map_err(|e| IppError::Build(e.to_string()))?;
        let response = self.send(printer_uri, op.into_ipp_request(), Document::Bytes(&[])).await?;
        let group = DelimiterTag::PrinterAttributes;
        let list = |name: &str| values(&response, group, name).iter().map(|v| v.to_string()).collect::<Vec<_>>();
        let dpis = |name: &str| {
            let mut d: Vec<u32> = values(&response, group, name)
                .iter()
                .filter_map(|v| match v {
                    // units 3 = dots per inch, 4 = dots per centimetre.
                    IppValue::Resolution { cross_feed, units, .. } if *cross_feed > 0 => {
                        Some(if *units == 4 { (*cross_feed as f32 * 2.54).round() as u32 } else { *cross_feed as u32 })
                    }
                    _ => None,
                })
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        };
        let state = match values(&response, group, "printer-state").first() {
            Some(IppValue::Enum(3)) => "idle",
            Some(IppValue::Enum(4)) => "processing",
            Some(IppValue::Enum(5)) => "stopped",
            _ => "unknown",
        };
        Ok(PrinterCapabilities {
            make_and_model: attr(&response, group, "printer-make-and-model"),
            document_formats: list("document-format-supported"),
            media_supported: list("media-supported"),
            media_default: attr(&response, group, "media-default"),
            resolutions: dpis("printer-resolution-supported"),
            pwg_raster_types: list("pwg-raster-document-type-supported"),
            pwg_raster_resolutions: dpis("pwg-raster-document-resolution-supported"),
            state: state.to_string(),
            accepting_jobs: !matches!(
                values(&response, group, "printer-is-accepting-jobs").first(),
                Some(IppValue::Boolean(false))
            ),
        })
    }

    /// Print-Job with the document in the body; returns the printer's job id.
    pub async fn print_job(
        &self,
        printer_uri: &str,
        document: Document<'_>,
        format: &str,
        job_name: &str,
    ) -> Result<i32, IppError> {
        let op = IppOperationBuilder::print_job(parse_uri(printer_uri)?, IppPayload::empty())
            .user_name(crate::PRODUCT_NAME)
            .job_title(job_name)
            .document_format(format)
            .attribute(
                IppAttribute::with_name("copies", IppValue::new_integer(1))
                    .map_err(|e| IppError::Build(e.to_string()))?,
            )
            .build()
            .map_err(|e| IppError::Build(e.to_string()))?;
        let response = self.send(printer_uri, op.into_ipp_request(), document).await?;
        match values(&response, DelimiterTag::JobAttributes, "job-id").first() {
            Some(IppValue::Integer(id)) => Ok(*id),
            _ => Err(IppError::Transport("the printer accepted the job without a job-id".into())),
        }
    }

    /// Get-Job-Attributes: the printer's state of one job.
    pub async fn job_state(&self, printer_uri: &str, job_id: i32) -> Result<IppJobState, IppError> {
        let op = IppOperationBuilder::get_job_attributes(parse_uri(printer_uri)?, job_id)
            .build()
            .map_err(|e| IppError::Build(e.to_string()))?;
        let response = self.send(printer_uri, op.into_ipp_request(), Document::Bytes(&[])).await?;
        Ok(match values(&response, DelimiterTag::JobAttributes, "job-state").first() {
            Some(IppValue::Enum(v)) | Some(IppValue::Integer(v)) => IppJobState::from_enum(*v),
            _ => IppJobState::Unknown,
        })
    }
}

impl IppClient {
    /// Cancel-Job: the printer drops a job it holds (one already printed answers an error).
    pub async fn cancel_job(&self, printer_uri: &str, job_id: i32) -> Result<(), IppError> {
        let op = IppOperationBuilder::cancel_job(parse_uri(printer_uri)?, job_id)
            .user_name(crate::PRODUCT_NAME)
            .build()
            .map_err(|e| IppError::Build(e.to_string()))?;
        self.send(printer_uri, op.into_ipp_request(), Document::Bytes(&[])).await.map(|_| ())
    }
}

/// What a Print-Job carries after its attributes.
#[derive(Debug, Clone, Copy)]
pub enum Document<'a> {
    /// In memory (a PDF).
    Bytes(&'a [u8]),
    /// Spooled to a file page by page (PWG raster), read back in chunks as it is sent.
    File { path: &'a std::path::Path, len: u64 },
}

/// The request's attributes, then the file in 64 KiB chunks.
fn file_stream(
    head: bytes::Bytes,
    file: tokio::fs::File,
) -> impl futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static {
    use futures_util::StreamExt;
    use tokio::io::AsyncReadExt;
    let rest = futures_util::stream::unfold(file, |mut file| async move {
        let mut chunk = vec![0u8; 64 * 1024];
        match file.read(&mut chunk).await {
            Ok(0) => None,
            Ok(n) => {
                chunk.truncate(n);
                Some((Ok(bytes::Bytes::from(chunk)), file))
            }
            Err(e) => Some((Err(e), file)),
        }
    });
    futures_util::stream::once(async move { Ok(head) }).chain(rest)
}

/// The answer's body, refused once it grows past `max` bytes (never held whole beyond that).
async fn read_capped(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, IppError> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return Err(IppError::Transport(format!("the printer's answer is larger than {max} bytes")));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| IppError::Transport(format!("{e:#}")))? {
        if body.len() + chunk.len() > max {
            return Err(IppError::Transport(format!("the printer's answer is larger than {max} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn parse_uri(printer_uri: &str) -> Result<Uri, IppError> {
    printer_uri.parse::<Uri>().map_err(|_| IppError::BadUri(printer_uri.to_string()))
}

/// An attribute's values, flattening IPP's 1setOf arrays.
fn values(response: &IppRequestResponse, group: DelimiterTag, name: &str) -> Vec<IppValue> {
    response
        .attributes()
        .groups_of(group)
        .filter_map(|g| g.get(name))
        .flat_map(|a| match a.value() {
            IppValue::Array(items) => items.clone(),
            other => vec![other.clone()],
        })
        .collect()
}

fn attr(response: &IppRequestResponse, group: DelimiterTag, name: &str) -> Option<String> {
    values(response, group, name).first().map(|v| v.to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipp_uris_map_to_http() {
        assert_eq!(http_url("ipp://printer.local/ipp/print").unwrap().as_str(), "http://printer.local:631/ipp/print");
        assert_eq!(http_url("ipps://10.0.0.5:8631/ipp/print").unwrap().as_str(), "https://10.0.0.5:8631/ipp/print");
        assert!(http_url("ftp://x/y").is_err());
    }

    #[test]
    fn raster_resolution_choice() {
        let caps = PrinterCapabilities { resolutions: vec![203, 300, 1200], ..Default::default() };
        assert_eq!(caps.raster_dpi(), 300);
        let caps =
            PrinterCapabilities { pwg_raster_resolutions: vec![203], resolutions: vec![300], ..Default::default() };
        assert_eq!(caps.raster_dpi(), 203);
        assert_eq!(PrinterCapabilities::default().raster_dpi(), 300);
    }

    /// A one-answer HTTP server on loopback: every connection gets `answer`; counts connections.
    async fn answering(answer: Vec<u8>) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut buf = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut buf).await;
                let _ = socket.write_all(&answer).await;
                let _ = socket.shutdown().await;
            }
        });
        (port, hits)
    }

    #[tokio::test]
    async fn redirects_are_not_followed() {
        let (target, target_hits) = answering(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec()).await;
        let redirect = format!(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{target}/ipp/print\r\nContent-Length: 0\r\n\r\n"
        );
        let (port, _) = answering(redirect.into_bytes()).await;
        let client = IppClient::new(false, Duration::from_secs(5)).expect("client");
        let err = client.capabilities(&format!("ipp://127.0.0.1:{port}/ipp/print")).await.expect_err("refused");
        assert!(err.to_string().contains("307"), "{err}");
        assert_eq!(target_hits.load(std::sync::atomic::Ordering::SeqCst), 0, "the redirect was not followed");
    }

    #[tokio::test]
    async fn oversized_answers_are_refused() {
        let max = crate::limits::PRINTER_ANSWER_MAX_BYTES;
        let client = IppClient::new(false, Duration::from_secs(5)).expect("client");
        // Announced as too big.
        let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: {}\r\n\r\n", max + 1);
        let (port, _) = answering(head.into_bytes()).await;
        let err = client.capabilities(&format!("ipp://127.0.0.1:{port}/")).await.expect_err("too big");
        assert!(err.to_string().contains("larger than"), "{err}");
        // Streamed without a length until it is too big.
        let mut body = b"HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nConnection: close\r\n\r\n".to_vec();
        body.extend(std::iter::repeat_n(b'x', max + 10));
        let (port, _) = answering(body).await;
        let err = client.capabilities(&format!("ipp://127.0.0.1:{port}/")).await.expect_err("too big");
        assert!(err.to_string().contains("larger than"), "{err}");
    }
}
