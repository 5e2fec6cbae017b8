//! `GET /api/v1/openapi.json`: an OpenAPI 3 document of every `/api/v1` route, made from the same
//! route table that mounts them, so no route can be missing from it. Each operation states its
//! tier (tag), whether it needs the session cookie, its path parameters and the error shape every
//! failure answers with.

use super::contract::{Content, Op};
use super::router::{RouteInfo, Router};
use crate::error::Code;
use actix_web::HttpResponse;
use serde_json::{Map, Value, json};

pub fn routes(r: &mut Router) {
    /// An OpenAPI 3.1 document (this one).
    #[derive(serde::Serialize, utoipa::ToSchema)]
    #[serde(transparent)]
    #[schema(value_type = Object)]
    struct OpenApiDocument(Value);

    async fn document() -> HttpResponse {
        HttpResponse::Ok().json(OpenApiDocument(build(&super::route_table())))
    }

    r.public("/openapi.json", |res| res.get(document).json::<OpenApiDocument>(200, "The API's OpenAPI document"));
}

fn tier_name(route: &RouteInfo) -> String {
    serde_json::to_value(route.tier).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The `{name}` segments of a path.
fn path_params(path: &str) -> Vec<&str> {
    path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).collect()
}

/// The header a booking carries so that sending it twice books it once.
fn idempotency_key() -> Value {
    use super::idempotency::{HEADER, MAX_KEY_LEN, REPLAYED_HEADER};
    json!({
        "name": HEADER,
        "in": "header",
        "required": false,
        "description": format!(
            "A key the client makes once per booking (a UUID) and sends with every try of it. The same key with \
             the same request answers the first answer again, with `{REPLAYED_HEADER}: true`, and books nothing; \
             while the first is still being answered, the repeat waits for its answer. The same key with another \
             request answers 409. Keys belong to the signed-in user and are kept for 7 days."
        ),
        "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LEN, "pattern": "^[\\x20-\\x7E]+$"}
    })
}

/// The document's form of a schema made by utoipa.
fn value_of(schema: &impl serde::Serialize) -> Value {
    serde_json::to_value(schema).unwrap_or_else(|e| json!({"description": format!("unserializable schema: {e}")}))
}

/// A request's or answer's `content`, registering the named schemas it refers to.
fn content(c: &Content, schemas: &mut Map<String, Value>) -> Option<Value> {
    match c {
        Content::Json(shape) => {
            for (name, schema) in &shape.named {
                schemas.entry(name.clone()).or_insert_with(|| value_of(schema));
            }
            Some(json!({"application/json": {"schema": value_of(&shape.schema)}}))
        }
        Content::Bytes(media) => Some(json!({*media: {"schema": {"type": "string", "format": "binary"}}})),
        Content::Empty => None,
    }
}

/// The answers of the catalogue's `codes`, one per status, each code an example.
fn failures(codes: &[Code]) -> Map<String, Value> {
    let mut by_status: std::collections::BTreeMap<u16, Vec<Code>> = Default::default();
    for code in codes {
        by_status.entry(code.status().as_u16()).or_default().push(*code);
    }
    by_status
        .into_iter()
        .map(|(status, codes)| {
            let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
            let examples: Map<String, Value> = codes
                .iter()
                .map(|c| (c.as_str().to_string(), json!({"value": {"error": {"code": c.as_str(), "message": c.message()}}})))
                .collect();
            let answer = json!({
                "description": format!("An error of the catalogue: {}", names.join(", ")),
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}, "examples": examples}}
            });
            (status.to_string(), answer)
        })
        .collect()
}

/// The catalogue (spec §8) as the `Error` schema: every code, its status and its message.
fn error_schema() -> Value {
    let rows: Vec<String> =
        Code::ALL.iter().map(|c| format!("| `{}` | {} | {} |", c.as_str(), c.status().as_u16(), c.message())).collect();
    json!({
        "type": "object",
        "required": ["error"],
        "description": format!("Every failure answers this. The catalogue:\n\n| code | status | message |\n|---|---|---|\n{}", rows.join("\n")),
        "properties": {"error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": Code::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>()},
                "message": {"type": "string", "description": "The catalogue's message, or a more precise one"}
            }
        }},
        "example": {"error": {"code": Code::BadRequest.as_str(), "message": "'shopOrderNumber' must be the shop order's number (up to 10 digits)"}}
    })
}

fn operation(route: &RouteInfo, op: &Op, schemas: &mut Map<String, Value>) -> Value {
    let name = route.path.trim_start_matches('/').replace(['/', '{', '}', '.'], "_");
    let mut parameters: Vec<Value> = path_params(route.path)
        .iter()
        .map(|p| {
            let schema = if route.integer_params.contains(p) {
                json!({"type": "integer", "format": "int64", "minimum": 1})
            } else {
                json!({"type": "string"})
            };
            json!({"name": p, "in": "path", "required": true, "schema": schema})
        })
        .collect();
    parameters.extend(op.query.iter().map(value_of));
    let mut responses = Map::new();
    for answer in &op.answers {
        let mut r = json!({"description": answer.description});
        if let Some(c) = content(&answer.content, schemas) {
            r["content"] = c;
        }
        if (200..300).contains(&answer.status) && !op.headers.is_empty() {
            let headers: Map<String, Value> = op
                .headers
                .iter()
                .map(|(name, about)| (name.to_string(), json!({"description": about, "schema": {"type": "string"}})))
                .collect();
            r["headers"] = Value::Object(headers);
        }
        responses.insert(answer.status.to_string(), r);
    }
    let mut fails = op.fails.clone();
    if route.keyed && op.method != "GET" {
        parameters.push(idempotency_key());
        fails.push(Code::IdempotencyKeyReused);
    }
    for (status, answer) in failures(&fails) {
        responses.entry(status).or_insert(answer);
    }
    responses.insert("4XX".into(), json!({"$ref": "#/components/responses/Error"}));
    responses.insert("5XX".into(), json!({"$ref": "#/components/responses/Error"}));
    let mut doc = json!({
        "operationId": format!("{}_{name}", op.method.to_lowercase()),
        "tags": [tier_name(route)],
        "parameters": parameters,
        "responses": responses,
    });
    if route.tier != crate::auth::tier::Tier::Public {
        doc["security"] = json!([{"session": []}]);
    }
    if op.admin {
        doc["x-administrator"] = json!(true);
        doc["description"] = json!(
            "Administrators only (an admin password confirmed within 15 minutes, or a user listed in `admin.users` when no password is set)."
        );
    }
    if let Some(body) = op.body.as_ref().and_then(|b| content(b, schemas)) {
        doc["requestBody"] = json!({"required": !op.body_optional, "content": body});
    }
    doc
}

pub fn build(table: &[RouteInfo]) -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for route in table {
        let item: Map<String, Value> =
            route.ops.iter().map(|op| (op.method.to_lowercase(), operation(route, op, &mut schemas))).collect();
        paths.insert(format!("/api/v1{}", route.path), Value::Object(item));
    }
    schemas.insert("Error".into(), error_schema());
    schemas.sort_keys();
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Stock Manager API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Tiers: public, signedIn (a session), full (an activated organization), importData (full plus a fresh re-authentication). Below its tier a route answers 401 without a session and 403 with one. Every failure answers the `Error` shape with a code of the catalogue."
        },
        "paths": paths,
        "components": {
            "responses": {"Error": {
                "description": "An error of the catalogue (spec §8): bad input, no session, below the route's tier, no such record, the service unavailable",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
            }},
            "securitySchemes": {"session": {"type": "apiKey", "in": "cookie", "name": crate::auth::session::SESSION_COOKIE}},
            "schemas": schemas
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_and_method_of_the_table_is_documented() {
        let table = crate::api::route_table();
        let doc = build(&table);
        let mut undeclared = Vec::new();
        for route in &table {
            assert!(!route.methods.is_empty(), "{} answers no method", route.path);
            let item = &doc["paths"][format!("/api/v1{}", route.path)];
            for op in &route.ops {
                let m = op.method;
                let documented = &item[m.to_lowercase()];
                assert!(documented.is_object(), "{m} {} is missing", route.path);
                assert_eq!(
                    documented["security"].is_null(),
                    route.tier == crate::auth::tier::Tier::Public,
                    "{}",
                    route.path
                );
                if !op.answers.iter().any(|a| (200..400).contains(&a.status)) {
                    undeclared.push(format!("{m} {}", route.path));
                }
            }
        }
        assert!(
            undeclared.is_empty(),
            "these declare no answer: add `.json::<T>(200, …)` (or `.empty`, `.bytes`) in their `routes`: {undeclared:#?}"
        );
        assert!(doc["paths"]["/api/v1/db/{table}"]["get"]["parameters"][0]["name"] == "table");
        assert!(doc["paths"].as_object().unwrap().len() == table.len());
        let receipt = &doc["paths"]["/api/v1/exact/createGoodsReceipt"]["post"];
        let named =
            |op: &Value, name: &str| op["parameters"].as_array().is_some_and(|p| p.iter().any(|p| p["name"] == name));
        assert!(named(receipt, "Idempotency-Key"));
        assert_eq!(
            receipt["responses"]["409"]["content"]["application/json"]["examples"]["idempotency_key_reused"]["value"]["error"]
                ["code"],
            "idempotency_key_reused"
        );
        assert!(named(&doc["paths"]["/api/v1/exact/{kind}"]["put"], "Idempotency-Key"));
        assert_eq!(
            doc["paths"]["/api/v1/exact/urlDirect"]["get"]["parameters"]
                .as_array()
                .map(|p| p.iter().any(|p| p["in"] == "header")),
            Some(false),
            "reads take no key"
        );
    }

    #[test]
    fn schemas_are_the_types_and_every_reference_resolves() {
        let doc = build(&crate::api::route_table());
        let schemas = doc["components"]["schemas"].as_object().expect("schemas");
        let timer = &schemas["Timer"];
        assert_eq!(timer["properties"]["startedMs"]["type"], "integer");
        assert!(timer["required"].as_array().is_some_and(|r| r.contains(&json!("shopOrderNumber"))));
        assert_eq!(schemas["Activity"]["enum"], json!(["setup", "run"]));
        let list =
            &doc["paths"]["/api/v1/hours/timers"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        assert_eq!(list["$ref"], "#/components/schemas/TimerList");
        // the catalogue: every code with its status and message
        let codes = &schemas["Error"]["properties"]["error"]["properties"]["code"]["enum"];
        assert_eq!(codes.as_array().map(Vec::len), Some(Code::ALL.len()));
        assert!(schemas["Error"]["description"].as_str().is_some_and(|d| d.contains("| `timer_gone` | 409 |")));
        // no dangling $ref
        let text = doc.to_string();
        for part in text.split("\"#/components/schemas/").skip(1) {
            let name = &part[..part.find('"').unwrap_or(0)];
            assert!(schemas.contains_key(name), "#/components/schemas/{name} is referred to but not defined");
        }
    }

    /// The UI's types are generated from this copy (`npm run lint` checks them against the
    /// screens), so a changed answer must reach it.
    #[test]
    fn the_uis_copy_of_the_document_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/ui/src/api/openapi.json");
        let doc = serde_json::to_string_pretty(&build(&crate::api::route_table())).expect("serializes") + "\n";
        if std::env::var_os("ESM_WRITE_OPENAPI").is_some() {
            std::fs::write(path, &doc).expect("writes ui/src/api/openapi.json");
            return;
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == doc,
            "ui/src/api/openapi.json is not the server's document: run `ESM_WRITE_OPENAPI=1 cargo test --lib openapi`, \
             then `npm run lint` in ui/ shows the screens the change touches"
        );
    }
}
