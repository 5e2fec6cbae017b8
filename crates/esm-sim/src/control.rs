//! Control of a running simulator, in-process (`SimHandle`) and over HTTP under `/_sim/`,
//! plus the two non-OData answers (`current/Me`, `system/Divisions`).

use super::server::{St, error};
use super::store::table_of;
use super::{Counters, Faults, SimState};
use actix_web::{HttpResponse, web};
use esm_exact::schema;
use serde::Deserialize;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// In-process control of a simulator (cheap to clone).
#[derive(Clone)]
pub struct SimHandle(pub Arc<SimState>);

impl SimHandle {
    /// Move the simulated clock forward (token lifetimes, codes, rate-limit windows).
    pub fn advance_clock(&self, secs: i64) {
        self.0.clock.advance_ms(secs * 1000);
    }

    pub fn now_ms(&self) -> i64 {
        self.0.clock.now_ms()
    }

    /// The simulated clock, for a product that must reckon by it (see `exact::clock`).
    pub fn clock(&self) -> esm_base::clock::Clock {
        esm_base::clock::Clock::following(self.0.clock.clone())
    }

    pub fn set_faults(&self, f: Faults) {
        *self.0.faults.lock() = f;
    }

    pub fn faults(&self) -> Faults {
        self.0.faults.lock().clone()
    }

    /// Stop (or resume) answering: while stopped every connection is dropped, like a provider outage.
    pub fn set_serving(&self, on: bool) {
        self.0.serving.store(on, Ordering::SeqCst);
    }

    pub fn set_rate_limits(&self, on: bool) {
        self.0.rate_limits_on.store(on, Ordering::SeqCst);
    }

    /// Lifetime of access tokens issued from now on (the provider's is 600 s).
    pub fn set_token_lifetime(&self, seconds: i64) {
        self.0.oauth.lock().set_access_ttl_ms(seconds.saturating_mul(1000));
    }

    /// Invalidate every access and refresh token (the user revoked the app).
    pub fn revoke_tokens(&self) {
        self.0.oauth.lock().revoke_all();
    }

    /// End one simulated user's grant (removed from the company): their refresh token is then
    /// refused with `invalid_grant`, their access tokens with 401; other users go on.
    pub fn revoke_user(&self, user: usize) {
        self.0.oauth.lock().revoke_user(user);
    }

    pub fn counters(&self) -> Counters {
        self.0.counters.lock().clone()
    }

    /// Codes of the simulated divisions, first one is the user's current division.
    pub fn divisions(&self) -> Vec<i32> {
        self.0.divisions.iter().map(|d| d.code).collect()
    }

    /// The division-wide Timestamp high-water mark.
    pub fn last_timestamp(&self, division: i32) -> Option<i64> {
        let i = self.0.division_index(division)?;
        Some(self.0.data[i].read().last_timestamp())
    }

    /// Current rows of an endpoint (any path the API serves, e.g. `sync/Inventory/StockPositions`),
    /// every field, rendered exactly as the API would, in key (or Timestamp) order.
    pub fn rows(&self, division: i32, path: &str) -> Option<Vec<serde_json::Value>> {
        let i = self.0.division_index(division)?;
        let e = schema::entity(path)?;
        let d = self.0.data[i].read();
        let t = d.table(table_of(e))?;
        let u = super::odata::UriBase { base_url: &self.0.base_url, division };
        let all: Vec<usize> = (0..e.fields.len()).collect();
        let proj = super::odata::Projection::new(e, t, &all);
        let keys: Vec<u128> = if e.kind == schema::Kind::Sync {
            t.by_ts.values().copied().collect()
        } else {
            t.rows.keys().copied().collect()
        };
        Some(
            keys.into_iter()
                .filter_map(|k| {
                    let mut s = String::new();
                    super::odata::write_row(&mut s, &u, t, k, &proj);
                    serde_json::from_str(&s).ok()
                })
                .collect(),
        )
    }

    /// Deletes a record the way someone in Exact Online would (its lines with it, logged in
    /// `sync/Deleted` where Exact logs the entity); false when there is no such record.
    pub fn delete(&self, division: i32, path: &str, id: &str) -> bool {
        let (Some(i), Some(e), Ok(key)) =
            (self.0.division_index(division), schema::entity(path), id.parse::<uuid::Uuid>())
        else {
            return false;
        };
        super::writes::remove(&mut self.0.data[i].write(), e, key.as_u128()).is_ok()
    }

    /// Stores records as they stand in Exact Online (any field, read-only ones too, with the
    /// endpoint's field types), each with a fresh Timestamp, in order: a history a test needs
    /// (finished orders, thousands of lines) that no write through the API could make. A row
    /// without `ID` gets a new one. Answers the keys, or why a row was refused (the derived
    /// `sync/PurchaseOrder/PurchaseOrders` is refused: put its orders and lines).
    pub fn put_rows(&self, division: i32, path: &str, rows: &[serde_json::Value]) -> Result<Vec<String>, String> {
        let i = self.0.division_index(division).ok_or_else(|| format!("no division {division}"))?;
        let e = schema::entity(path).ok_or_else(|| format!("no endpoint {path}"))?;
        if table_of(e) == crate::store::purchase_sync::TABLE {
            return Err(format!(
                "{path} is derived from {} and {}: put those",
                crate::store::purchase_sync::ORDERS,
                crate::store::purchase_sync::LINES
            ));
        }
        let now = self.0.clock.now_ms();
        let mut d = self.0.data[i].write();
        d.now_ms = now;
        let mut keys = Vec::with_capacity(rows.len());
        for row in rows {
            let obj = row.as_object().ok_or_else(|| format!("not an object: {row}"))?;
            let mut vals = Vec::with_capacity(obj.len());
            for (name, v) in obj {
                let f = e.field(name).ok_or_else(|| format!("{path} has no field {name}"))?;
                vals.push((f.name, super::value::from_json(f.ty, v)?));
            }
            let key = obj
                .get(e.key)
                .and_then(serde_json::Value::as_str)
                .and_then(|s| uuid::Uuid::parse_str(s).ok())
                .map_or_else(|| uuid::Uuid::new_v4().as_u128(), |u| u.as_u128());
            d.upsert(table_of(e), key, &vals);
            keys.push(super::value::guid_string(key));
        }
        Ok(keys)
    }

    /// Removes properties from a path the way Exact does without notice (reference §17): from
    /// then on every read that selects, filters or orders by one, and every write that sends one,
    /// is answered 400 `Type '…' does not have a property named '…'`, naming the type the path
    /// answers with. A regular path (`Logistics/Items`) removes them from the entity: its sync and
    /// bulk views lose the ones they have too; a sync or bulk path (`sync/Logistics/Items`) only
    /// from that view, as Exact removed `DeductibilityPercentages` from GLAccountSync alone.
    pub fn remove_properties(&self, path: &str, names: &[String]) -> Result<(), String> {
        let e = schema::entity(path).ok_or_else(|| format!("no such path: {path}"))?;
        let mut fields = Vec::new();
        for name in names {
            let f = e.field(name).ok_or_else(|| format!("{} has no property {name}", e.path))?;
            fields.push(f.name);
        }
        let mut removed = self.0.removed.write();
        for view in views_of(e) {
            let gone = removed.entry(view.path).or_default();
            for name in fields.iter().filter(|n| view.field(n).is_some()) {
                if !gone.contains(name) {
                    gone.push(*name);
                }
            }
        }
        Ok(())
    }

    /// Brings back every property removed through `path` (and, for a regular path, from its
    /// sync and bulk views).
    pub fn restore_properties(&self, path: &str) -> Result<(), String> {
        let e = schema::entity(path).ok_or_else(|| format!("no such path: {path}"))?;
        let mut removed = self.0.removed.write();
        for view in views_of(e) {
            removed.remove(view.path);
        }
        Ok(())
    }

    /// The removed properties per view path.
    pub fn removed_properties(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        self.0
            .removed
            .read()
            .iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(path, names)| (path.to_string(), names.iter().map(|n| n.to_string()).collect()))
            .collect()
    }

    /// Row counts per table of a division.
    pub fn table_sizes(&self, division: i32) -> Option<Vec<(String, usize)>> {
        let i = self.0.division_index(division)?;
        let d = self.0.data[i].read();
        let mut v: Vec<(String, usize)> = d.tables.iter().map(|(k, t)| (k.to_string(), t.len())).collect();
        v.sort();
        Some(v)
    }

    /// Check the stock invariant: every StockPositions.CurrentStock equals the sum of its
    /// StorageLocationStockPositions.Stock. Returns the offending (item, warehouse) pairs.
    pub fn stock_mismatches(&self, division: i32) -> Vec<(u128, u128, f64, f64)> {
        let Some(i) = self.0.division_index(division) else { return Vec::new() };
        super::stock::mismatches(&self.0.data[i].read())
    }

    /// Check that tracked items' numbers hold their stock: at every warehouse and storage
    /// location, the booked StockSerialBatchNumbers of a serial or batch item add up to its
    /// StorageLocationStockPositions stock. Returns the offending (item, warehouse, location,
    /// location stock, numbers' stock).
    pub fn number_mismatches(&self, division: i32) -> Vec<(u128, u128, u128, f64, f64)> {
        let Some(i) = self.0.division_index(division) else { return Vec::new() };
        super::tracking::mismatches(&self.0.data[i].read())
    }
}

/// A path and, for a regular one, its sync and bulk views.
fn views_of(e: &'static schema::Entity) -> Vec<&'static schema::Entity> {
    let mut views = vec![e];
    if e.kind == schema::Kind::Regular {
        views.extend(
            schema::entities()
                .iter()
                .filter(|v| v.twin == Some(e.path) && matches!(v.kind, schema::Kind::Sync | schema::Kind::Bulk)),
        );
    }
    views
}

#[derive(Deserialize)]
struct SchemaChange {
    path: String,
    #[serde(default)]
    remove: Vec<String>,
    #[serde(default)]
    restore: bool,
}

#[derive(Deserialize)]
struct ClockMove {
    advance_secs: Option<i64>,
    set_ms: Option<i64>,
}

#[derive(Deserialize)]
struct Switch {
    on: bool,
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/_sim")
            .route("/clock", web::get().to(clock_get))
            .route("/clock", web::post().to(clock_post))
            .route("/faults", web::get().to(faults_get))
            .route("/faults", web::put().to(faults_put))
            .route("/serving", web::post().to(serving))
            .route("/rate-limits", web::post().to(rate_limits))
            .route("/revoke-tokens", web::post().to(revoke))
            .route("/users/{user}/revoke", web::post().to(revoke_user))
            .route("/token-lifetime", web::post().to(token_lifetime))
            .route("/counters", web::get().to(counters))
            .route("/stats", web::get().to(stats))
            .route("/schema", web::get().to(schema_get))
            .route("/schema", web::post().to(schema_post))
            .route("/rows/{division}/{path:.*}", web::get().to(rows)),
    );
}

fn handle(st: &St) -> SimHandle {
    SimHandle(st.get_ref().clone())
}

async fn clock_get(st: St) -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"now_ms": st.clock.now_ms(), "cet_ms": st.clock.cet_ms()}))
}

async fn clock_post(st: St, body: web::Json<ClockMove>) -> HttpResponse {
    if let Some(s) = body.advance_secs {
        st.clock.advance_ms(s * 1000);
    }
    if let Some(ms) = body.set_ms {
        st.clock.set_ms(ms);
    }
    clock_get(st).await
}

async fn faults_get(st: St) -> HttpResponse {
    HttpResponse::Ok().json(handle(&st).faults())
}

async fn faults_put(st: St, body: web::Json<Faults>) -> HttpResponse {
    handle(&st).set_faults(body.into_inner());
    faults_get(st).await
}

async fn serving(st: St, body: web::Json<Switch>) -> HttpResponse {
    handle(&st).set_serving(body.on);
    HttpResponse::NoContent().finish()
}

async fn rate_limits(st: St, body: web::Json<Switch>) -> HttpResponse {
    handle(&st).set_rate_limits(body.on);
    HttpResponse::NoContent().finish()
}

async fn revoke(st: St) -> HttpResponse {
    handle(&st).revoke_tokens();
    HttpResponse::NoContent().finish()
}

async fn revoke_user(st: St, user: web::Path<usize>) -> HttpResponse {
    handle(&st).revoke_user(user.into_inner());
    HttpResponse::NoContent().finish()
}

#[derive(Deserialize)]
struct Lifetime {
    seconds: i64,
}

async fn token_lifetime(st: St, body: web::Json<Lifetime>) -> HttpResponse {
    handle(&st).set_token_lifetime(body.seconds);
    HttpResponse::NoContent().finish()
}

async fn counters(st: St) -> HttpResponse {
    HttpResponse::Ok().json(handle(&st).counters())
}

/// Row counts per division and table, and the total.
async fn stats(st: St) -> HttpResponse {
    let h = handle(&st);
    let mut total = 0;
    let mut divisions = serde_json::Map::new();
    for code in h.divisions() {
        let sizes = h.table_sizes(code).unwrap_or_default();
        total += sizes.iter().map(|(_, n)| n).sum::<usize>();
        divisions.insert(
            code.to_string(),
            serde_json::json!(sizes.into_iter().collect::<std::collections::BTreeMap<_, _>>()),
        );
    }
    HttpResponse::Ok().json(serde_json::json!({"total_rows": total, "divisions": divisions}))
}

/// `{"removed": {"{view path}": [property, …]}}`.
async fn schema_get(st: St) -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"removed": handle(&st).removed_properties()}))
}

async fn schema_post(st: St, body: web::Json<SchemaChange>) -> HttpResponse {
    let h = handle(&st);
    let done =
        if body.restore { h.restore_properties(&body.path) } else { h.remove_properties(&body.path, &body.remove) };
    match done {
        Ok(()) => schema_get(st).await,
        Err(message) => error(400, &message),
    }
}

async fn rows(st: St, path: web::Path<(i32, String)>) -> HttpResponse {
    let (division, p) = path.into_inner();
    match handle(&st).rows(division, &p) {
        Some(rows) => HttpResponse::Ok().json(rows),
        None => error(404, "Not found"),
    }
}

/// `GET /api/v1/current/Me`: a one-row collection.
pub fn me(st: &SimState, user: usize, json: bool) -> HttpResponse {
    let Some(u) = st.users.get(user) else { return error(401, "Unauthorized") };
    let current = st.divisions.first().map_or(0, |d| d.code);
    let id = super::value::guid_string(u.id);
    let row = serde_json::json!({
        "__metadata": {"uri": format!("{}/api/v1/current/Me(guid'{id}')", st.base_url), "type": "Exact.Web.Api.System.Me"},
        "UserID": id, "AccountingDivision": current, "CurrentDivision": current, "CustomerCode": "                 1",
        "DivisionCustomer": super::value::guid_string(super::store::deterministic_id(7, 7)),
        "DivisionCustomerCode": "                 1", "DivisionCustomerName": st.divisions.first().map(|d| d.description.clone()),
        "DivisionCustomerSiretNumber": null, "DivisionCustomerVatNumber": "NL001234567B01", "DossierDivision": null,
        "Email": u.email, "EmployeeID": null, "FirstName": u.first_name, "FullName": u.full_name(), "Gender": "O",
        "Initials": u.first_name.chars().next().map(|c| format!("{c}.")), "IsClientUser": false,
        "IsEmployeeSelfServiceUser": false, "IsMyFirmLiteUser": false, "IsMyFirmPortalUser": false,
        "IsOEIMigrationMandatory": false, "IsStarterUser": false, "Language": "NL-NL", "LanguageCode": "nl-NL",
        "LastName": u.last_name, "Legislation": "1", "MiddleName": null, "Mobile": null, "Nationality": "NL",
        "PackageCode": "MFG-PRO", "Phone": null, "PhoneExtension": null,
        "PictureUrl": "https://start.exactonline.nl//docs/images/placeholder_contact_myeol.png",
        "ServerTime": chrono::DateTime::from_timestamp_millis(st.clock.cet_ms()).map(|d| d.naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string()),
        "ServerUtcOffset": ((st.clock.cet_ms() - st.clock.now_ms()) / 1000) as f64,
        "ThumbnailPicture": null, "ThumbnailPictureFormat": null, "Title": null, "UserName": u.user_name,
    });
    if !json {
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:d=\"http://schemas.microsoft.com/ado/2007/08/dataservices\" xmlns:m=\"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata\"><entry><content type=\"application/xml\"><m:properties><d:CurrentDivision m:type=\"Edm.Int32\">{current}</d:CurrentDivision><d:UserName>{}</d:UserName></m:properties></content></entry></feed>",
            super::value::xml_escape(&u.user_name)
        );
        return HttpResponse::Ok().content_type("application/atom+xml;type=feed;charset=utf-8").body(xml);
    }
    HttpResponse::Ok()
        .content_type("application/json; charset=utf-8")
        .body(serde_json::json!({"d": {"results": [row]}}).to_string())
}

/// `GET /api/v1/{division}/system/Divisions`: every division the user may access.
pub fn divisions(st: &SimState, asked: i32, json: bool) -> HttpResponse {
    let current = st.divisions.first().map_or(0, |d| d.code);
    let rows: Vec<serde_json::Value> = st
        .divisions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            serde_json::json!({
                "__metadata": {"uri": format!("{}/api/v1/{asked}/system/Divisions({})", st.base_url, d.code), "type": "Exact.Web.Api.Models.System.Division"},
                "Code": d.code, "Description": d.description, "City": d.city, "Country": "NL ", "Currency": "EUR",
                "Current": d.code == current, "Hid": (i as i64 + 1).to_string(), "IsMainDivision": i == 0,
                "IsDossierDivision": false, "IsHRDivision": false, "IsPracticeDivision": false, "Status": 1,
                "BlockingStatus": 0, "DivisionMoveDate": null, "DivisionHRLinkUnlinkDate": null, "Legislation": "1",
                "VATNumber": format!("NL00{}B01", d.code), "Customer": super::value::guid_string(super::store::deterministic_id(7, 7)),
                "CustomerName": st.divisions.first().map(|d| d.description.clone()),
            })
        })
        .collect();
    if !json {
        return HttpResponse::NotAcceptable().body("Send Accept: application/json for system/Divisions");
    }
    HttpResponse::Ok()
        .content_type("application/json; charset=utf-8")
        .body(serde_json::json!({"d": {"results": rows}}).to_string())
}

/// `GET /api/v1/{division}/hrm/Divisions`: the divisions of the current licence (all of the
/// simulator's, one customer), as a regular endpoint: 60 rows a page with `__next`, `$select`,
/// `$top`, `$skiptoken` (the last `Code`), key addressing `(Code)`, and `$filter` on `Code eq N`
/// only (what clients use it for; other filters answer 400 rather than a wrong list).
pub fn hrm_divisions(
    st: &SimState,
    e: &schema::Entity,
    asked: i32,
    key: Option<&str>,
    raw_query: &str,
    json: bool,
) -> HttpResponse {
    if !json {
        return HttpResponse::NotAcceptable().body("Send Accept: application/json for hrm/Divisions");
    }
    let type_name = "Exact.Web.Api.Models.HRM.Division";
    // The licence's customer: the first division's company, as system/Divisions says.
    let customer_name = st.divisions.first().map(|d| d.description.clone());
    let created = "/Date(1420416000000)/"; // 2015-01-05, when the demo company started
    let rows: Vec<(i32, serde_json::Map<String, serde_json::Value>)> = st
        .divisions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let row = serde_json::json!({
                "Code": d.code, "ArchiveDate": null, "BlockingStatus": 0,
                "Class_01": null, "Class_02": null, "Class_03": null, "Class_04": null, "Class_05": null,
                "Country": "NL", "CountryDescription": "Nederland", "Created": created,
                "Creator": super::value::guid_string(super::store::deterministic_id(7, 8)),
                "CreatorFullName": "Exact Online", "Currency": "EUR", "CurrencyDescription": "Euro",
                "Customer": super::value::guid_string(super::store::deterministic_id(7, 7)),
                "CustomerCode": format!("{:>18}", 1), "CustomerName": customer_name,
                "Description": d.description, "HID": (i as i64 + 1).to_string(), "Main": i == 0,
                "Modified": created, "Modifier": super::value::guid_string(super::store::deterministic_id(7, 8)),
                "ModifierFullName": "Exact Online", "OBNumber": null, "SiretNumber": null, "StartDate": created,
                "Status": 1, "TaxOfficeNumber": null, "TaxReferenceNumber": null, "TemplateCode": null,
                "VATNumber": format!("NL00{}B01", d.code), "Website": null,
            });
            let mut out = serde_json::Map::new();
            out.insert(
                "__metadata".into(),
                serde_json::json!({"uri": format!("{}/api/v1/{asked}/hrm/Divisions({})", st.base_url, d.code), "type": type_name}),
            );
            if let serde_json::Value::Object(fields) = row {
                out.extend(fields);
            }
            (d.code, out)
        })
        .collect();
    let mut select: Option<Vec<&str>> = None;
    let mut code_eq: Option<i32> = None;
    let mut top: Option<usize> = None;
    let mut after: Option<i32> = None;
    let pairs = super::odata::decode_pairs(raw_query);
    for (k, v) in &pairs {
        match k.as_str() {
            "$select" if v.trim() != "*" && !v.trim().is_empty() => {
                let mut names = Vec::new();
                for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    let Some(field) = e.field(name) else {
                        return error(400, &format!("No property '{name}' exists in type '{type_name}'."));
                    };
                    names.push(field.name);
                }
                select = Some(names);
            }
            "$select" | "$format" | "$inlinecount" => {}
            "$filter" => {
                let parsed = v.trim().strip_prefix("Code eq ").and_then(|n| n.trim().parse::<i32>().ok());
                match parsed {
                    Some(code) => code_eq = Some(code),
                    None => return error(400, "The simulator filters hrm/Divisions only on Code eq N."),
                }
            }
            "$top" => match v.trim().parse() {
                Ok(n) => top = Some(n),
                Err(_) => return error(400, super::odata::parse::SYNTAX_ERROR),
            },
            "$skiptoken" => match v.trim().parse() {
                Ok(n) => after = Some(n),
                Err(_) => return error(400, super::odata::parse::SYNTAX_ERROR),
            },
            "$skip" => return error(400, "The query parameter '$skip' is not supported on this endpoint. Use __next."),
            k if k.starts_with('$') => return error(400, super::odata::parse::SYNTAX_ERROR),
            _ => {}
        }
    }
    let project = |row: &serde_json::Map<String, serde_json::Value>| -> serde_json::Value {
        match &select {
            None => serde_json::Value::Object(row.clone()),
            Some(names) => serde_json::Value::Object(
                row.iter()
                    .filter(|(k, _)| *k == "__metadata" || names.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
        }
    };
    let ok = |body: serde_json::Value| {
        HttpResponse::Ok().content_type("application/json; charset=utf-8").body(body.to_string())
    };
    if let Some(key) = key {
        let code = key.trim().parse::<i32>().ok();
        return match rows.iter().find(|(c, _)| Some(*c) == code) {
            Some((_, row)) => ok(serde_json::json!({"d": project(row)})),
            None => error(404, "Not found"),
        };
    }
    let mut matching: Vec<&(i32, serde_json::Map<String, serde_json::Value>)> =
        rows.iter().filter(|(c, _)| code_eq.is_none_or(|want| *c == want) && after.is_none_or(|a| *c > a)).collect();
    matching.sort_by_key(|(c, _)| *c);
    let limit = top.unwrap_or(usize::MAX).min(e.page_size());
    let more = matching.len() > limit && top.is_none_or(|t| t > limit);
    matching.truncate(limit);
    let results: Vec<serde_json::Value> = matching.iter().map(|(_, row)| project(row)).collect();
    let mut d = serde_json::json!({ "results": results });
    if more && let Some((last, _)) = matching.last() {
        let mut next = format!("{}/api/v1/{asked}/hrm/Divisions?", st.base_url);
        for (k, v) in pairs.iter().filter(|(k, _)| k != "$skiptoken") {
            let v = if k == "$top" { top.map(|t| (t - limit).to_string()).unwrap_or_default() } else { v.clone() };
            next.push_str(&format!("{}={}&", urlencoding::encode(k), urlencoding::encode(&v)));
        }
        next.push_str(&format!("$skiptoken={last}"));
        d["__next"] = serde_json::Value::String(next);
    }
    ok(serde_json::json!({ "d": d }))
}
