//! The provider's entity schemas: paths, methods, keys and typed fields.
//!
//! Pure data and lookups. The field lists are the reference's §9 `Name:Type[flags]` lists,
//! embedded verbatim (`schema.txt`), plus the sync/bulk variants derived from their regular
//! twin (`sync.txt`) and the few endpoints the reference lists elsewhere (`schema_extra.txt`). Parsed once on first use; every name is a `&'static str` slice of the
//! embedded text, so lookups allocate nothing.

use std::collections::HashMap;
use std::sync::OnceLock;

const ENTITIES: &str = include_str!("schema.txt");
const VARIANTS: &str = include_str!("sync.txt");
/// Endpoints outside the reference's §9 lists (`hrm/Divisions`), in the same format.
const EXTRA: &str = include_str!("schema_extra.txt");

/// Rows per page on regular endpoints.
pub const REGULAR_PAGE_SIZE: usize = 60;
/// Rows per page on sync and bulk endpoints.
pub const SYNC_PAGE_SIZE: usize = 1000;

/// OData (Edm) type of a field, as the provider declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdmType {
    Guid,
    String,
    Int16,
    Int32,
    /// Serialised as a JSON string.
    Int64,
    Double,
    /// `true`/`false`.
    Boolean,
    /// `0`/`1` (used for many flags).
    Byte,
    /// `/Date(ms)/`, CET wall-clock written as if UTC.
    DateTime,
    Binary,
    /// A navigation collection (`__deferred` in responses, never a `$select` target on sync).
    Collection,
    /// A complex type the reference does not detail.
    Complex,
}

impl EdmType {
    fn parse(s: &str) -> Option<EdmType> {
        Some(match s {
            "Guid" => EdmType::Guid,
            "Str" => EdmType::String,
            "Int16" => EdmType::Int16,
            "Int32" => EdmType::Int32,
            "Int64" => EdmType::Int64,
            "Dbl" => EdmType::Double,
            "Bool" => EdmType::Boolean,
            "Byte" => EdmType::Byte,
            "DT" => EdmType::DateTime,
            "Bin" => EdmType::Binary,
            "Coll" => EdmType::Collection,
            "?" => EdmType::Complex,
            _ => return None,
        })
    }

    /// The `Edm.*` name used in `$metadata` and Atom payloads.
    pub fn edm_name(self) -> &'static str {
        match self {
            EdmType::Guid => "Edm.Guid",
            EdmType::String => "Edm.String",
            EdmType::Int16 => "Edm.Int16",
            EdmType::Int32 => "Edm.Int32",
            EdmType::Int64 => "Edm.Int64",
            EdmType::Double => "Edm.Double",
            EdmType::Boolean => "Edm.Boolean",
            EdmType::Byte => "Edm.Byte",
            EdmType::DateTime => "Edm.DateTime",
            EdmType::Binary => "Edm.Binary",
            EdmType::Collection => "Collection",
            EdmType::Complex => "Complex",
        }
    }

    /// Whether the field is a plain value (selectable on sync/bulk endpoints).
    pub fn is_scalar(self) -> bool {
        !matches!(self, EdmType::Collection | EdmType::Complex)
    }
}

/// One field of an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub ty: EdmType,
    pub key: bool,
    /// Mandatory on create.
    pub required: bool,
    /// Accepted in a POST body.
    pub create: bool,
    /// Accepted in a PUT body.
    pub update: bool,
}

/// Which family of endpoint an entity belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// CRUD endpoint, 60 rows per page.
    Regular,
    /// `sync/…`: read-only, Timestamp-keyed, 1000 rows per page, `$select` mandatory.
    Sync,
    /// `bulk/…`: read-only, 1000 rows per page, `$select` mandatory.
    Bulk,
    /// `read/…` function endpoints.
    Function,
    /// `current/Me`: no division segment.
    Current,
}

/// HTTP methods an endpoint accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Methods {
    pub get: bool,
    pub post: bool,
    pub put: bool,
    pub delete: bool,
}

impl Methods {
    pub fn allows(&self, method: &str) -> bool {
        match method {
            "GET" => self.get,
            "POST" => self.post,
            "PUT" => self.put,
            "DELETE" => self.delete,
            _ => false,
        }
    }
}

/// One endpoint of the provider.
#[derive(Debug, Clone)]
pub struct Entity {
    /// Path after `/api/v1/{division}/` (or `current/Me`), in the provider's casing,
    /// e.g. `manufacturing/ShopOrders`, `sync/Manufacturing/ShopOrders`.
    pub path: &'static str,
    pub kind: Kind,
    pub methods: Methods,
    /// Name of the key field (`Timestamp` on sync endpoints).
    pub key: &'static str,
    pub fields: Vec<Field>,
    /// For sync and bulk variants: the regular twin's path.
    pub twin: Option<&'static str>,
}

impl Entity {
    /// The field with this exact name.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The entity set name (last path segment), e.g. `ShopOrders`.
    pub fn name(&self) -> &'static str {
        self.path.rsplit('/').next().unwrap_or(self.path)
    }

    /// Page size the provider uses for this endpoint.
    pub fn page_size(&self) -> usize {
        match self.kind {
            Kind::Sync | Kind::Bulk => SYNC_PAGE_SIZE,
            _ => REGULAR_PAGE_SIZE,
        }
    }

    /// Comma-separated list of every scalar field: a complete `$select`.
    pub fn select_all(&self) -> String {
        let names: Vec<&str> = self.fields.iter().filter(|f| f.ty.is_scalar()).map(|f| f.name).collect();
        names.join(",")
    }

    /// `sync/Deleted` EntityType code for deletions of this entity's rows, if the provider logs them.
    pub fn deleted_entity_type(&self) -> Option<i32> {
        deleted_entity_type(self.name())
    }
}

/// `sync/Deleted` EntityType code for an entity set name (reference §6.4).
pub fn deleted_entity_type(entity_name: &str) -> Option<i32> {
    Some(match entity_name {
        "TransactionLines" => 1,
        "Accounts" => 2,
        "Addresses" => 3,
        "Contacts" => 5,
        "Documents" => 6,
        "GLAccounts" => 7,
        "Items" => 9,
        "PaymentTerms" => 10,
        "SalesInvoices" => 13,
        "TimeCostTransactions" => 14,
        "StockPositions" => 15,
        "GoodsDeliveries" => 16,
        "GoodsDeliveryLines" => 17,
        "ItemWarehouses" => 19,
        "StorageLocationStockPositions" => 20,
        "Projects" => 21,
        "PurchaseOrders" => 22,
        "SalesOrders" | "SalesOrderHeaders" => 32,
        "SalesOrderLines" => 33,
        "ShopOrders" => 36,
        "ShopOrderMaterialPlans" => 37,
        "ShopOrderRoutingStepPlans" => 38,
        "ItemStorageLocations" => 41,
        "Employees" => 42,
        _ => return None,
    })
}

struct Catalogue {
    entities: Vec<Entity>,
    by_path: HashMap<String, usize>,
}

fn catalogue() -> &'static Catalogue {
    static CAT: OnceLock<Catalogue> = OnceLock::new();
    CAT.get_or_init(build)
}

/// Every endpoint, regular ones first, in reference order.
pub fn entities() -> &'static [Entity] {
    &catalogue().entities
}

/// Look an endpoint up by its path after the division (case-insensitive, as the provider is),
/// e.g. `entity("manufacturing/ShopOrders")` or `entity("sync/Manufacturing/ShopOrders")`.
pub fn entity(path: &str) -> Option<&'static Entity> {
    let cat = catalogue();
    cat.by_path.get(&path.trim_matches('/').to_ascii_lowercase()).map(|&i| &cat.entities[i])
}

/// The sync variant, with or without the `sync/` prefix: `sync_entity("Manufacturing/ShopOrders")`.
pub fn sync_entity(path: &str) -> Option<&'static Entity> {
    let p = path.trim_matches('/');
    let full = if p.len() >= 5 && p[..5].eq_ignore_ascii_case("sync/") { p.to_string() } else { format!("sync/{p}") };
    entity(&full).filter(|e| e.kind == Kind::Sync)
}

/// The bulk variant, with or without the `bulk/` prefix.
pub fn bulk_entity(path: &str) -> Option<&'static Entity> {
    let p = path.trim_matches('/');
    let full = if p.len() >= 5 && p[..5].eq_ignore_ascii_case("bulk/") { p.to_string() } else { format!("bulk/{p}") };
    entity(&full).filter(|e| e.kind == Kind::Bulk)
}

fn parse_field(token: &'static str) -> Option<Field> {
    let t = token.trim().trim_matches('`');
    let (name, rest) = t.split_once(':')?;
    let (ty, flags) = match rest.split_once('[') {
        Some((ty, flags)) => (ty, flags.trim_end_matches(']')),
        None => (rest, ""),
    };
    Some(Field {
        name,
        ty: EdmType::parse(ty)?,
        key: flags.contains('k'),
        required: flags.contains('r'),
        create: flags.contains('c'),
        update: flags.contains('u'),
    })
}

fn parse_methods(s: &str) -> Methods {
    Methods { get: s.contains("GET"), post: s.contains("POST"), put: s.contains("PUT"), delete: s.contains("DELETE") }
}

fn build() -> Catalogue {
    let mut entities: Vec<Entity> = Vec::new();
    let mut lines = ENTITIES.lines().chain(EXTRA.lines());
    while let Some(header) = lines.next() {
        let Some(rest) = header.strip_prefix("**`") else { continue };
        let Some((path, tail)) = rest.split_once("`**") else { continue };
        let path = path.strip_prefix("{division}/").unwrap_or(path);
        let methods = parse_methods(tail.split("methods:").nth(1).unwrap_or(""));
        let fields: Vec<Field> = lines.next().unwrap_or("").split(", ").filter_map(parse_field).collect();
        let key = fields.iter().find(|f| f.key).map(|f| f.name).unwrap_or("ID");
        let kind = if path.starts_with("sync/") {
            Kind::Sync
        } else if path.starts_with("read/") {
            Kind::Function
        } else if path.starts_with("current/") {
            Kind::Current
        } else {
            Kind::Regular
        };
        entities.push(Entity { path, kind, methods, key, fields, twin: None });
    }
    for line in VARIANTS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        if let Some(e) = parse_variant(line, &entities) {
            entities.push(e);
        }
    }
    let by_path = entities.iter().enumerate().map(|(i, e)| (e.path.to_ascii_lowercase(), i)).collect();
    Catalogue { entities, by_path }
}

fn parse_variant(line: &'static str, regular: &[Entity]) -> Option<Entity> {
    let mut words = line.split_whitespace();
    let kind = match words.next()? {
        "sync" => Kind::Sync,
        "bulk" => Kind::Bulk,
        _ => return None,
    };
    let own = words.next()?;
    let _eq = words.next()?;
    let twin_path = words.next()?;
    let twin = regular.iter().find(|e| e.path == twin_path)?;
    let prefix = if kind == Kind::Sync { "sync" } else { "bulk" };
    // "sync Foo/Bar" is not contiguous in the text, so the path is leaked once per variant:
    // a few dozen bytes for the process lifetime, built once behind the OnceLock.
    let path: &'static str = Box::leak(format!("{prefix}/{own}").into_boxed_str());
    let mut missing: Vec<&str> = Vec::new();
    let mut extra: Vec<Field> = Vec::new();
    for w in words {
        if let Some(m) = w.strip_prefix('-') {
            missing.push(m);
        } else if let Some(x) = w.strip_prefix('+') {
            extra.extend(parse_field(x));
        }
    }
    let mut fields: Vec<Field> = twin
        .fields
        .iter()
        .filter(|f| !missing.contains(&f.name))
        .map(|f| Field { key: kind == Kind::Bulk && f.key, required: false, create: false, update: false, ..*f })
        .collect();
    for x in extra {
        if !fields.iter().any(|f| f.name == x.name) {
            fields.push(Field { required: false, create: false, update: false, key: false, ..x });
        }
    }
    let key = if kind == Kind::Sync {
        fields.push(Field {
            name: "Timestamp",
            ty: EdmType::Int64,
            key: true,
            required: false,
            create: false,
            update: false,
        });
        "Timestamp"
    } else {
        twin.key
    };
    // Reference order: key first, then alphabetical (case-insensitive, as the reference lists them).
    fields
        .sort_by(|a, b| b.key.cmp(&a.key).then_with(|| a.name.to_ascii_lowercase().cmp(&b.name.to_ascii_lowercase())));
    Some(Entity {
        path,
        kind,
        methods: Methods { get: true, ..Methods::default() },
        key,
        fields,
        twin: Some(twin.path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_entities_match_the_reference_counts() {
        let items = entity("logistics/Items").expect("items");
        assert_eq!(items.fields.len(), 117);
        assert_eq!(items.key, "ID");
        assert!(items.methods.delete);
        let so = entity("Manufacturing/ShopOrders").expect("case-insensitive");
        assert_eq!(so.fields.len(), 66);
        assert_eq!(so.field("IsReleased").map(|f| f.ty), Some(EdmType::Byte));
        assert!(so.field("PlannedDate").is_some_and(|f| f.update));
        assert_eq!(entity("manufacturing/MaterialIssues").map(|e| e.key), Some("StockTransactionId"));
        assert_eq!(entity("current/Me").map(|e| e.kind), Some(Kind::Current));
    }

    #[test]
    fn sync_variants_follow_the_comparison_table() {
        let expect = [
            ("CRM/Accounts", 165),
            ("Logistics/Items", 115),
            ("Inventory/ItemWarehouses", 28),
            ("Manufacturing/ShopOrders", 59),
            // 34 in the comparison table, plus IsBatch and IsSerial (reference §16).
            ("Manufacturing/ShopOrderMaterialPlans", 36),
            ("Manufacturing/ShopOrderRoutingStepPlans", 48),
            ("Manufacturing/MaterialIssues", 31),
            ("Logistics/SupplierItem", 39),
            ("Project/Projects", 62),
            ("SalesOrder/SalesOrderHeaders", 78),
            ("SalesOrder/SalesOrderLines", 60),
            ("Payroll/Employees", 67),
            ("Inventory/StockPositions", 18),
            ("Inventory/StorageLocationStockPositions", 18),
            ("sync/Deleted", 7),
        ];
        for (path, n) in expect {
            let e = sync_entity(path).unwrap_or_else(|| panic!("{path}"));
            assert_eq!(e.fields.len(), n, "{path}");
            assert_eq!(e.key, "Timestamp");
            assert_eq!(e.fields[0].name, "Timestamp");
            assert_eq!(e.fields[0].ty, EdmType::Int64);
            assert!(!e.methods.post);
        }
        assert!(sync_entity("Manufacturing/ShopOrders").and_then(|e| e.field("WarehouseCode")).is_none());
    }

    #[test]
    fn deleted_codes_match_the_spec() {
        for (name, code) in [
            ("Accounts", 2),
            ("Items", 9),
            ("StockPositions", 15),
            ("ItemWarehouses", 19),
            ("StorageLocationStockPositions", 20),
            ("Projects", 21),
            ("SalesOrderHeaders", 32),
            ("SalesOrderLines", 33),
            ("ShopOrders", 36),
            ("ShopOrderMaterialPlans", 37),
            ("ShopOrderRoutingStepPlans", 38),
        ] {
            assert_eq!(deleted_entity_type(name), Some(code), "{name}");
        }
        assert_eq!(deleted_entity_type("SupplierItem"), None);
    }

    #[test]
    fn bulk_requires_a_twin() {
        let b = bulk_entity("Logistics/Items").expect("bulk items");
        assert_eq!(b.twin, Some("logistics/Items"));
        assert_eq!(b.page_size(), SYNC_PAGE_SIZE);
        assert_eq!(b.key, "ID");
    }
}
