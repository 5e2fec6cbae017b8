//! `GET /api/v1/openapi.json`: an OpenAPI 3 document of every `/api/v1` route, made from the same
//! route table that mounts them, so no route can be missing from it. Each operation states its
//! tier (tag), whether it needs the session cookie, its path parameters and the error shape every
//! failure answers with.

use super::router::{RouteInfo, Router};
use actix_web::HttpResponse;
use serde_json::{Map, Value, json};

pub fn routes(r: &mut Router) {
    r.public("/openapi.json", |res| res.get(document));
}

async fn document() -> HttpResponse {
    HttpResponse::Ok().json(build(&super::route_table()))
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

pub fn build(table: &[RouteInfo]) -> Value {
    let mut paths = Map::new();
    for route in table {
        let mut item = Map::new();
        for method in &route.methods {
            let name = route.path.trim_start_matches('/').replace(['/', '{', '}', '.'], "_");
            let mut op = json!({
                "operationId": format!("{}_{name}", method.to_lowercase()),
                "tags": [tier_name(route)],
                "parameters": path_params(route.path).iter().map(|p| json!({
                    "name": p, "in": "path", "required": true, "schema": {"type": "string"}
                })).collect::<Vec<_>>(),
                "responses": {
                    "2XX": {"description": "Success"},
                    "3XX": {"description": "Redirect (sign-in)"},
                    "4XX": {"$ref": "#/components/responses/Error"},
                    "5XX": {"$ref": "#/components/responses/Error"}
                }
            });
            if route.tier != crate::auth::tier::Tier::Public {
                op["security"] = json!([{"session": []}]);
            }
            if route.keyed && *method != "GET" {
                op["parameters"].as_array_mut().into_iter().for_each(|p| p.push(idempotency_key()));
                op["responses"]["409"] = json!({
                    "description": "The Idempotency-Key was used before for another request (idempotency_key_reused)",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                });
            }
            if matches!(*method, "POST" | "PUT") {
                op["requestBody"] = json!({"required": false, "content": {"application/json": {"schema": {}}}});
            }
            item.insert(method.to_lowercase(), op);
        }
        paths.insert(format!("/api/v1{}", route.path), Value::Object(item));
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Stock Manager API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Tiers: public, signedIn (a session), full (an activated organization), importData (full plus a fresh re-authentication). Below its tier a route answers 401 without a session and 403 with one."
        },
        "paths": paths,
        "components": {
            "responses": {"Error": {
                "description": "An error of the catalogue (spec §8)",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
            }},
            "securitySchemes": {"session": {"type": "apiKey", "in": "cookie", "name": crate::auth::session::SESSION_COOKIE}},
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {"error": {
                        "type": "object",
                        "required": ["code", "message"],
                        "properties": {"code": {"type": "string"}, "message": {"type": "string"}}
                    }}
                }
            }
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
        for route in &table {
            assert!(!route.methods.is_empty(), "{} answers no method", route.path);
            let item = &doc["paths"][format!("/api/v1{}", route.path)];
            for m in &route.methods {
                let op = &item[m.to_lowercase()];
                assert!(op.is_object(), "{m} {} is missing", route.path);
                assert_eq!(op["security"].is_null(), route.tier == crate::auth::tier::Tier::Public, "{}", route.path);
            }
        }
        assert!(doc["paths"]["/api/v1/db/{table}"]["get"]["parameters"][0]["name"] == "table");
        assert!(doc["paths"].as_object().unwrap().len() == table.len());
        let receipt = &doc["paths"]["/api/v1/exact/createGoodsReceipt"]["post"];
        assert_eq!(receipt["parameters"][0]["name"], "Idempotency-Key");
        assert!(receipt["responses"]["409"].is_object());
        assert_eq!(doc["paths"]["/api/v1/exact/{kind}"]["put"]["parameters"][1]["name"], "Idempotency-Key");
        assert_eq!(doc["paths"]["/api/v1/exact/urlDirect"]["get"]["parameters"], json!([]), "reads take no key");
    }
}
