//! OData v2 as the provider speaks it: query options, paging, and the verbose JSON / Atom bodies.

pub mod eval;
pub mod parse;

use crate::store::{Division, Row, Table, table_of};
use crate::value::{self, Val};
use esm_exact::schema::{EdmType, Entity, Kind};
use eval::Bound;
use parse::Expr;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A refusal with the provider's status and message.
#[derive(Debug, Clone, PartialEq)]
pub struct ODataError {
    pub status: u16,
    pub message: String,
}

impl ODataError {
    pub fn bad(message: impl Into<String>) -> ODataError {
        ODataError { status: 400, message: message.into() }
    }
}

/// The message the provider gives when an endpoint needs `$select` (or `$top=1`).
pub const SELECT_REQUIRED: &str = "Please add a $select or a $top=1 statement to the query string.";

/// Parsed query options of one GET.
pub struct Query {
    /// Indexes into the view's fields, in the order asked for.
    pub select: Vec<usize>,
    pub filter: Option<(Expr, Bound)>,
    pub orderby: Vec<(u16, bool)>,
    pub top: Option<usize>,
    pub skiptoken: Option<Val>,
    pub inlinecount: bool,
    /// Indexes of the navigation collections to render inline (`$expand`).
    pub expand: Vec<usize>,
    /// Decoded (name, value) pairs as sent, to rebuild `__next`.
    pub pairs: Vec<(String, String)>,
}

/// The navigation collections the simulator can expand: (entity set, collection, the child
/// endpoint, the child's field that points at the parent). Others stay `__deferred`, and asking to
/// expand one is refused, so a test never takes a missing expansion for an empty one. A goods
/// receipt line's serial numbers are those of its stock transaction (the line itself).
const EXPANSIONS: &[(&str, &str, &str, &str)] = &[
    ("Accounts", "BankAccounts", "crm/BankAccounts", "Account"),
    ("GoodsReceiptLines", "SerialNumbers", "inventory/StockSerialNumbers", "StockTransactionID"),
    ("GoodsReceiptLines", "BatchNumbers", "inventory/StockBatchNumbers", "StockTransactionID"),
];

fn expansion(view: &Entity, collection: &str) -> Option<(&'static str, &'static str)> {
    EXPANSIONS
        .iter()
        .find(|(set, c, _, _)| *set == view.name() && *c == collection)
        .map(|(_, _, child, parent)| (*child, *parent))
}

/// `Exact.Web.Api.Models.…` type name for a view's rows (manufacturing/sync names are a documented guess).
pub fn type_name(view: &Entity) -> String {
    let mut segs: Vec<&str> = view.path.split('/').collect();
    let set = segs.pop().unwrap_or("");
    let singular = if let Some(s) = set.strip_suffix("ies") {
        format!("{s}y")
    } else if let Some(s) = set.strip_suffix("sses") {
        format!("{s}ss")
    } else if let Some(s) = set.strip_suffix('s') {
        s.to_string()
    } else {
        set.to_string()
    };
    let service = segs.last().copied().unwrap_or("");
    match view.kind {
        Kind::Current => "Exact.Web.Api.System.Me".into(),
        Kind::Sync => format!("Exact.Web.Api.Models.Sync.{}", singular),
        _ if matches!(
            service,
            "logistics" | "crm" | "salesorder" | "purchaseorder" | "project" | "payroll" | "system" | ""
        ) =>
        {
            format!("Exact.Web.Api.Models.{singular}")
        }
        _ => {
            let mut cap = service.to_string();
            if let Some(f) = cap.get_mut(0..1) {
                f.make_ascii_uppercase();
            }
            format!("Exact.Web.Api.Models.{cap}.{singular}")
        }
    }
}

/// Split and decode a raw query string (`+` is a space, as browsers and reqwest send it).
pub fn decode_pairs(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| {
                let s = s.replace('+', " ");
                urlencoding::decode(&s).map(|c| c.into_owned()).unwrap_or(s)
            };
            (dec(k), dec(v))
        })
        .collect()
}

/// Whether the provider insists on a `$filter` for GETs on this regular endpoint ("mandatory
/// filtering" applies where a sync twin exists). Employees is exempt: see README.
pub fn needs_filter(view: &Entity) -> bool {
    view.kind == Kind::Regular
        && view.path != "payroll/Employees"
        && esm_exact::schema::entities().iter().any(|e| e.kind == Kind::Sync && e.twin == Some(view.path))
}

pub fn parse_query(view: &Entity, table: &Table, raw: &str) -> Result<Query, ODataError> {
    parse_query_without(view, table, raw, &[])
}

/// The middle of the provider's message for a property it removed.
pub const REMOVED_PROPERTY: &str = "does not have a property named";

/// The provider's answer to a query or a write naming a property it removed (reference §17).
pub fn removed_property(view: &Entity, name: &str) -> ODataError {
    ODataError::bad(format!("Type '{}' {REMOVED_PROPERTY} '{name}'", type_name(view)))
}

/// [`parse_query`] on a view whose `removed` properties are gone: naming one in `$select`,
/// `$filter` or `$orderby` is refused, and a query without `$select` no longer gets them.
pub fn parse_query_without(view: &Entity, table: &Table, raw: &str, removed: &[&str]) -> Result<Query, ODataError> {
    let pairs = decode_pairs(raw);
    let mut q = Query {
        select: Vec::new(),
        filter: None,
        orderby: Vec::new(),
        top: None,
        skiptoken: None,
        inlinecount: false,
        expand: Vec::new(),
        pairs,
    };
    let mut select: Option<String> = None;
    let layout = table.layout;
    for (k, v) in q.pairs.clone() {
        match k.as_str() {
            "$select" => select = Some(v),
            "$filter" => {
                let e = parse::parse_filter(&v).map_err(ODataError::bad)?;
                if !eval::is_boolean(&e) {
                    return Err(ODataError::bad("Expression of type 'System.Boolean' expected at position 0."));
                }
                let mut names = Vec::new();
                e.fields(&mut names);
                if let Some(gone) = names.iter().find(|n| removed.contains(&n.as_str())) {
                    return Err(removed_property(view, gone));
                }
                if view.kind == Kind::Sync {
                    let allowed = |n: &str| n == "Timestamp" || (view.path == "sync/Deleted" && n == "EntityType");
                    if let Some(bad) = names.iter().find(|n| !allowed(n)) {
                        return Err(ODataError::bad(format!(
                            "Filtering on '{bad}' is not supported; only Timestamp may be used in $filter on this endpoint."
                        )));
                    }
                }
                let b = eval::bind(&e, view, layout).map_err(ODataError::bad)?;
                q.filter = Some((e, b));
            }
            "$orderby" => {
                for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let mut w = part.split_whitespace();
                    let name = w.next().unwrap_or("");
                    let desc = match w.next() {
                        None | Some("asc") => false,
                        Some("desc") => true,
                        Some(_) => return Err(ODataError::bad(parse::SYNTAX_ERROR)),
                    };
                    if removed.contains(&name) {
                        return Err(removed_property(view, name));
                    }
                    if view.field(name).is_none() {
                        return Err(ODataError::bad(format!(
                            "No property '{name}' exists in type '{}'.",
                            type_name(view)
                        )));
                    }
                    q.orderby.push((layout.col(name).unwrap_or(u16::MAX), desc));
                }
            }
            "$top" => q.top = Some(v.trim().parse().map_err(|_| ODataError::bad(parse::SYNTAX_ERROR))?),
            "$skiptoken" => match parse::parse_filter(&v) {
                Ok(Expr::Lit(val)) => q.skiptoken = Some(val),
                _ => return Err(ODataError::bad(parse::SYNTAX_ERROR)),
            },
            "$inlinecount" => match v.as_str() {
                "allpages" => q.inlinecount = true,
                "none" => {}
                _ => return Err(ODataError::bad(parse::SYNTAX_ERROR)),
            },
            "$skip" => {
                return Err(ODataError::bad(
                    "The query parameter '$skip' is not supported on this endpoint. Use __next.",
                ));
            }
            "$expand" => {
                for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    let Some(i) = view.fields.iter().position(|f| f.name == name && f.ty == EdmType::Collection) else {
                        return Err(ODataError::bad(format!(
                            "No navigation property '{name}' exists in type '{}'.",
                            type_name(view)
                        )));
                    };
                    if expansion(view, name).is_none() {
                        return Err(ODataError::bad(format!("The simulator cannot expand '{name}' of {}.", view.path)));
                    }
                    if !q.expand.contains(&i) {
                        q.expand.push(i);
                    }
                }
            }
            "$format" => {}
            k if k.starts_with('$') => return Err(ODataError::bad(parse::SYNTAX_ERROR)),
            _ => {}
        }
    }
    let strict = matches!(view.kind, Kind::Sync | Kind::Bulk);
    match select.as_deref().map(str::trim) {
        None | Some("") if strict => return Err(ODataError::bad(SELECT_REQUIRED)),
        Some("*") if strict => {
            return Err(ODataError::bad(format!("This endpoint does not support $select=*: {}", view.path)));
        }
        None | Some("") | Some("*") => {
            q.select = (0..view.fields.len()).filter(|&i| !removed.contains(&view.fields[i].name)).collect();
        }
        Some(list) => {
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                if removed.contains(&name) {
                    return Err(removed_property(view, name));
                }
                match view.fields.iter().position(|f| f.name == name) {
                    Some(i) if !q.select.contains(&i) => q.select.push(i),
                    Some(_) => {}
                    None => {
                        return Err(ODataError::bad(format!(
                            "No property '{name}' exists in type '{}'.",
                            type_name(view)
                        )));
                    }
                }
            }
        }
    }
    if needs_filter(view) && q.filter.is_none() {
        let fields: Vec<&str> = view.fields.iter().filter(|f| f.ty.is_scalar()).map(|f| f.name).take(20).collect();
        return Err(ODataError::bad(format!(
            "A GET request for this endpoint must have a $filter parameter with one of the following fields in the url:{}",
            fields.join(",")
        )));
    }
    Ok(q)
}

/// One page of results.
pub struct Page {
    pub keys: Vec<u128>,
    /// `$skiptoken` literal for the next page, when more rows match.
    pub next: Option<String>,
    pub count: Option<usize>,
}

fn order_rows(table: &Table, keys: &mut [u128], orderby: &[(u16, bool)]) {
    keys.sort_by(|a, b| {
        let (ra, rb) = (table.get(*a), table.get(*b));
        for (col, desc) in orderby {
            let (x, y) = match (ra, rb) {
                (Some(ra), Some(rb)) => (ra.get(*col), rb.get(*col)),
                _ => return Ordering::Equal,
            };
            let o = match (x, y) {
                (Val::Null, Val::Null) => Ordering::Equal,
                (Val::Null, _) => Ordering::Less,
                (_, Val::Null) => Ordering::Greater,
                _ => eval::compare(x, y).unwrap_or(Ordering::Equal),
            };
            let o = if *desc { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        a.cmp(b)
    });
}

/// Run a query against a table: filter, order, page.
pub fn execute(view: &Entity, table: &Table, q: &Query, page_size: usize) -> Page {
    let pass = |row: &Row| q.filter.as_ref().is_none_or(|(_, b)| eval::matches(b, row));
    let limit = q.top.map_or(page_size, |t| t.min(page_size));
    let count = q.inlinecount.then(|| table.rows.values().filter(|r| pass(r)).count());
    let top_left = |served: usize| q.top.is_none_or(|t| t > served);

    if !q.orderby.is_empty() {
        let mut keys: Vec<u128> = table.rows.iter().filter(|(_, r)| pass(r)).map(|(k, _)| *k).collect();
        order_rows(table, &mut keys, &q.orderby);
        let offset = q.skiptoken.as_ref().and_then(Val::as_i64).unwrap_or(0).max(0) as usize;
        let page: Vec<u128> = keys.iter().skip(offset).take(limit).copied().collect();
        let end = offset + page.len();
        let next = (end < keys.len() && top_left(page.len())).then(|| format!("{end}L"));
        return Page { keys: page, next, count };
    }

    let mut keys = Vec::with_capacity(limit.min(1024));
    let mut more = false;
    if view.kind == Kind::Sync {
        let floor = q.filter.as_ref().and_then(|(e, _)| e.timestamp_floor()).unwrap_or(i64::MIN);
        let after = q.skiptoken.as_ref().and_then(Val::as_i64).map_or(i64::MIN, |t| t.saturating_add(1));
        for (_, key) in table.by_ts.range(floor.max(after)..) {
            let Some(row) = table.get(*key) else { continue };
            if pass(row) {
                if keys.len() == limit {
                    more = true;
                    break;
                }
                keys.push(*key);
            }
        }
        let next = (more && top_left(keys.len()))
            .then(|| keys.last().and_then(|k| table.value(*k, "Timestamp").as_i64()).map(|t| format!("{t}L")))
            .flatten();
        return Page { keys, next, count };
    }
    let start = match q.skiptoken.as_ref().and_then(Val::as_guid) {
        Some(g) => std::ops::Bound::Excluded(g),
        None => std::ops::Bound::Unbounded,
    };
    for (key, row) in table.rows.range((start, std::ops::Bound::Unbounded)) {
        if pass(row) {
            if keys.len() == limit {
                more = true;
                break;
            }
            keys.push(*key);
        }
    }
    let next = (more && top_left(keys.len()))
        .then(|| keys.last().map(|k| format!("guid'{}'", value::guid_string(*k))))
        .flatten();
    Page { keys, next, count }
}

/// Where rows of a view live, for `__metadata.uri`.
pub struct UriBase<'a> {
    pub base_url: &'a str,
    pub division: i32,
}

fn row_uri(out: &mut String, u: &UriBase<'_>, view: &Entity, table: &Table, key: u128) {
    let _ = write!(out, "{}/api/v1/{}/{}", u.base_url, u.division, view.path);
    if view.kind == Kind::Sync {
        let ts = table.value(key, "Timestamp").as_i64().unwrap_or(0);
        let _ = write!(out, "({ts}L)");
    } else {
        let _ = write!(out, "(guid'{}')", value::guid_string(key));
    }
}

/// Columns of the selected fields, resolved once per response rather than once per cell.
pub struct Projection<'v> {
    view: &'v Entity,
    fields: Vec<(usize, Option<u16>)>,
    needs_uri: bool,
    tname: String,
    /// Expanded collections: the field, the child rows' view and table, and their keys by parent.
    expanded: Vec<Expanded<'v>>,
}

struct Expanded<'v> {
    field: usize,
    table: &'v Table,
    children: HashMap<u128, Vec<u128>>,
    projection: Box<Projection<'v>>,
}

impl<'v> Projection<'v> {
    pub fn new(view: &'v Entity, table: &Table, select: &[usize]) -> Projection<'v> {
        let fields: Vec<(usize, Option<u16>)> =
            select.iter().map(|&i| (i, table.layout.col(view.fields[i].name))).collect();
        let needs_uri = select.iter().any(|&i| view.fields[i].ty == EdmType::Collection);
        Projection { view, fields, needs_uri, tname: type_name(view), expanded: Vec::new() }
    }

    /// Renders the query's `$expand` collections inline, with the child rows `d` holds for the
    /// parents in `keys` (one pass over each child table).
    pub fn expanding(mut self, q: &Query, d: &'v Division, keys: &[u128]) -> Projection<'v> {
        let wanted: std::collections::HashSet<u128> = keys.iter().copied().collect();
        for &field in &q.expand {
            let Some((child_path, parent_field)) = expansion(self.view, self.view.fields[field].name) else { continue };
            let Some(child_view) = esm_exact::schema::entity(child_path) else { continue };
            let Some(child_table) = d.table(table_of(child_view)) else { continue };
            let Some(col) = child_table.layout.col(parent_field) else { continue };
            let mut children: HashMap<u128, Vec<u128>> = HashMap::new();
            for (key, row) in &child_table.rows {
                if let Some(parent) = row.get(col).as_guid().filter(|p| wanted.contains(p)) {
                    children.entry(parent).or_default().push(*key);
                }
            }
            let all: Vec<usize> = (0..child_view.fields.len()).collect();
            let projection = Box::new(Projection::new(child_view, child_table, &all));
            self.expanded.push(Expanded { field, table: child_table, children, projection });
        }
        self
    }
}

/// Append one row as verbose JSON with `__metadata`.
pub fn write_row(out: &mut String, u: &UriBase<'_>, table: &Table, key: u128, p: &Projection<'_>) {
    let Some(row) = table.get(key) else {
        out.push_str("null");
        return;
    };
    out.push_str("{\"__metadata\":{\"uri\":\"");
    let uri_start = out.len();
    row_uri(out, u, p.view, table, key);
    let uri = if p.needs_uri { out[uri_start..].to_string() } else { String::new() };
    out.push_str("\",\"type\":\"");
    out.push_str(&p.tname);
    out.push_str("\"}");
    for &(i, col) in &p.fields {
        let f = &p.view.fields[i];
        out.push_str(",\"");
        out.push_str(f.name);
        out.push_str("\":");
        match f.ty {
            EdmType::Collection => match p.expanded.iter().find(|x| x.field == i) {
                Some(x) => {
                    out.push_str("{\"results\":[");
                    for (n, child) in x.children.get(&key).map(Vec::as_slice).unwrap_or_default().iter().enumerate() {
                        if n > 0 {
                            out.push(',');
                        }
                        write_row(out, u, x.table, *child, &x.projection);
                    }
                    out.push_str("]}");
                }
                None => {
                    let _ = write!(out, "{{\"__deferred\":{{\"uri\":\"{uri}/{}\"}}}}", f.name);
                }
            },
            EdmType::Complex | EdmType::Binary => out.push_str("null"),
            ty => match col {
                Some(c) => value::write_json(out, ty, row.get(c)),
                None => out.push_str("null"),
            },
        }
    }
    out.push('}');
}

/// The collection envelope `{"d":{"results":[…],"__count":…,"__next":…}}`; `d` holds the rows of
/// expanded collections.
pub fn write_page(u: &UriBase<'_>, view: &Entity, table: &Table, q: &Query, page: &Page, d: &Division) -> String {
    let proj = Projection::new(view, table, &q.select).expanding(q, d, &page.keys);
    let mut out = String::with_capacity(256 + page.keys.len() * (q.select.len() * 40 + 200));
    out.push_str("{\"d\":{\"results\":[");
    for (i, k) in page.keys.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_row(&mut out, u, table, *k, &proj);
    }
    out.push(']');
    if let Some(c) = page.count {
        let _ = write!(out, ",\"__count\":\"{c}\"");
    }
    if let Some(token) = &page.next {
        out.push_str(",\"__next\":");
        value::write_json_str(&mut out, &next_url(u, view, q, token, page.keys.len()));
    }
    out.push_str("}}");
    out
}

/// Absolute `__next`: the original query with `$skiptoken` replaced (and `$top` reduced by what was served).
pub fn next_url(u: &UriBase<'_>, view: &Entity, q: &Query, token: &str, served: usize) -> String {
    let mut url = format!("{}/api/v1/{}/{}?", u.base_url, u.division, view.path);
    for (k, v) in &q.pairs {
        if k == "$skiptoken" {
            continue;
        }
        let v = if k == "$top" {
            q.top.map(|t| t.saturating_sub(served).to_string()).unwrap_or_default()
        } else {
            v.clone()
        };
        let _ = write!(url, "{}={}&", urlencoding::encode(k), urlencoding::encode(&v));
    }
    let _ = write!(url, "$skiptoken={}", urlencoding::encode(token));
    url
}

/// A minimal Atom feed, what the provider answers when the client does not ask for JSON.
pub fn write_atom(u: &UriBase<'_>, view: &Entity, table: &Table, q: &Query, page: &Page) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" \
         xmlns:d=\"http://schemas.microsoft.com/ado/2007/08/dataservices\" \
         xmlns:m=\"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata\">",
    );
    let _ = write!(out, "<title type=\"text\">{}</title>", view.name());
    let tname = type_name(view);
    for k in &page.keys {
        let Some(row) = table.get(*k) else { continue };
        out.push_str("<entry><id>");
        row_uri(&mut out, u, view, table, *k);
        let _ = write!(
            out,
            "</id><category term=\"{tname}\" scheme=\"http://schemas.microsoft.com/ado/2007/08/dataservices/scheme\"/><content type=\"application/xml\"><m:properties>"
        );
        for &i in &q.select {
            let f = &view.fields[i];
            if !f.ty.is_scalar() {
                continue;
            }
            let v = table.layout.col(f.name).map(|c| row.get(c)).unwrap_or(&Val::Null);
            match value::xml_text(f.ty, v) {
                Some(t) => {
                    let _ = write!(out, "<d:{n} m:type=\"{t2}\">{t}</d:{n}>", n = f.name, t2 = f.ty.edm_name());
                }
                None => {
                    let _ = write!(out, "<d:{} m:null=\"true\"/>", f.name);
                }
            }
        }
        out.push_str("</m:properties></content></entry>");
    }
    if let Some(token) = &page.next {
        out.push_str("<link rel=\"next\" href=\"");
        out.push_str(&value::xml_escape(&next_url(u, view, q, token, page.keys.len())));
        out.push_str("\"/>");
    }
    out.push_str("</feed>");
    out
}
