//! Deterministic demo data: a Dutch machine builder with two companies (divisions).

mod issues;
mod names;
mod tracked;
mod unlocated;

use super::DivisionInfo;
use super::oauth::DemoUser;
use super::stock;
use super::store::{Division, deterministic_id};
use super::value::Val;
use names::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How much data to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Scale {
    /// About 1,000 items.
    #[default]
    Small,
    /// About 20,000 items.
    Medium,
    /// About 200,000 items, over a million rows.
    Large,
}

impl Scale {
    pub fn items(self) -> usize {
        match self {
            Scale::Small => 1_000,
            Scale::Medium => 20_000,
            Scale::Large => 200_000,
        }
    }
}

impl std::str::FromStr for Scale {
    type Err = String;
    fn from_str(s: &str) -> Result<Scale, String> {
        match s {
            "small" => Ok(Scale::Small),
            "medium" => Ok(Scale::Medium),
            "large" => Ok(Scale::Large),
            _ => Err(format!("unknown scale '{s}' (small, medium, large)")),
        }
    }
}

/// The generated world.
pub struct World {
    pub divisions: Vec<DivisionInfo>,
    pub data: Vec<Division>,
    pub users: Vec<DemoUser>,
}

/// The placeholder the provider puts in PictureUrl for items without a picture.
pub const PLACEHOLDER_ITEM: &str = "https://start.exactonline.nl//docs/images/placeholder_item.png";

/// Build every division's data. `now_cet_ms` anchors all dates ("around today"); `base_url` is the
/// simulator's own host, used in picture URLs.
pub fn generate(scale: Scale, seed: u64, now_cet_ms: i64, base_url: &str) -> World {
    let users = vec![
        DemoUser {
            id: deterministic_id(seed as u128, 1),
            user_name: "demo@vandijk-machinebouw.nl".into(),
            first_name: "Eva".into(),
            last_name: "van Dijk".into(),
            email: "demo@vandijk-machinebouw.nl".into(),
        },
        DemoUser {
            id: deterministic_id(seed as u128, 2),
            user_name: "werkvoorbereiding@vandijk-machinebouw.nl".into(),
            first_name: "Martijn".into(),
            last_name: "Hoekstra".into(),
            email: "werkvoorbereiding@vandijk-machinebouw.nl".into(),
        },
        DemoUser {
            id: deterministic_id(seed as u128, 3),
            user_name: "magazijn@vandijk-machinebouw.nl".into(),
            first_name: "Sem".into(),
            last_name: "Bosman".into(),
            email: "magazijn@vandijk-machinebouw.nl".into(),
        },
    ];
    let divisions = vec![
        DivisionInfo { code: 3_154_102, description: "Van Dijk Machinebouw B.V.".into(), city: "Apeldoorn".into() },
        DivisionInfo {
            code: 3_154_117,
            description: "Van Dijk Service & Onderdelen B.V.".into(),
            city: "Deventer".into(),
        },
    ];
    let today = now_cet_ms - now_cet_ms.rem_euclid(86_400_000);
    let data = divisions
        .iter()
        .enumerate()
        .map(|(i, info)| {
            // The second company is a small service outfit whatever the scale.
            let items = if i == 0 { scale.items() } else { Scale::Small.items() / 2 };
            let mut g = Gen::new(info.code, seed.wrapping_add(i as u64 * 7919), today, base_url, users[0].id);
            g.build(items);
            unlocated::add(&mut g.d, seed.wrapping_add(i as u64 * 7919), today, users[0].id);
            g.d
        })
        .collect();
    World { divisions, data, users }
}

const DAY: i64 = 86_400_000;

struct Gen<'a> {
    rng: StdRng,
    d: Division,
    today: i64,
    base_url: &'a str,
    creator: u128,
}

#[derive(Clone)]
struct ItemRef {
    id: u128,
    code: Val,
    description: Val,
    unit: Val,
    picture: Val,
    make: bool,
    /// Tracked by serial number (`IsSerialItem`): its receipts carry one number per unit.
    serial: bool,
}

/// Purchased parts tracked by serial number: motors and sensors, by the first word of their
/// description, so the choice draws nothing from the generator and the other data stays as it was.
const SERIAL_PARTS: [&str; 2] = ["Motor", "Sensor"];

/// The stock drawn for a place, as a serial item holds it: a few units (2 to 13), as a factory
/// keeps control cabinets or motors, not the hundreds of a bolt. Every unit carries a serial
/// number in four of the simulator's tables, so hundreds per item made the large demo 14 million
/// rows (13 GB); the draw itself stays, so the rest of the demo data is as before.
fn few_if_serial(item: &ItemRef, drawn: i32) -> f64 {
    f64::from(if item.serial { 2 + drawn % 12 } else { drawn })
}

/// A goods receipt line of a serial item, to be given its serial numbers once everything else exists.
struct SerialReceipt {
    line: u128,
    item: u128,
    code: Val,
    description: Val,
    quantity: f64,
    warehouse: u128,
    date: Val,
}

struct Named {
    id: u128,
    code: Val,
    description: Val,
}

impl<'a> Gen<'a> {
    fn new(code: i32, seed: u64, today: i64, base_url: &'a str, creator: u128) -> Gen<'a> {
        let mut d = Division::new(code);
        d.api_user = creator;
        d.now_ms = today;
        Gen { rng: StdRng::seed_from_u64(seed), d, today, base_url, creator }
    }

    fn id(&mut self) -> u128 {
        uuid::Builder::from_random_bytes(self.rng.random()).into_uuid().as_u128()
    }

    fn pick<T: Copy>(&mut self, list: &[T]) -> T {
        list[self.rng.random_range(0..list.len())]
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random::<f64>() < p
    }

    fn day(&mut self, from: i64, to: i64) -> Val {
        Val::Date(self.today + self.rng.random_range(from..=to) * DAY)
    }

    fn audit(&mut self) -> [(&'static str, Val); 5] {
        let created = self.day(-400, -61);
        let modified = self.day(-60, 0);
        [
            ("Created", created),
            ("Modified", modified),
            ("Creator", Val::guid(self.creator)),
            ("Modifier", Val::guid(self.creator)),
            ("Division", Val::Int(self.d.code as i64)),
        ]
    }

    fn put(&mut self, table: &str, key: u128, mut fields: Vec<(&'static str, Val)>) {
        fields.extend(self.audit());
        fields.push(("CreatorFullName", Val::str("Eva van Dijk")));
        fields.push(("ModifierFullName", Val::str("Eva van Dijk")));
        self.d.upsert(table, key, &fields);
    }

    fn build(&mut self, n_items: usize) {
        let groups: Vec<Named> = GROUPS
            .iter()
            .map(|(c, desc)| {
                let id = self.id();
                self.put(
                    "logistics/ItemGroups",
                    id,
                    vec![("Code", Val::str(c)), ("Description", Val::str(desc)), ("IsDefault", Val::Int(0))],
                );
                Named { id, code: Val::str(c), description: Val::str(desc) }
            })
            .collect();
        let selection: Vec<Named> = SELECTION_CODES
            .iter()
            .map(|(c, desc)| {
                let id = self.id();
                self.put(
                    "logistics/SelectionCodes",
                    id,
                    vec![("Code", Val::str(c)), ("Description", Val::str(desc)), ("Active", Val::Int(1))],
                );
                Named { id, code: Val::str(c), description: Val::str(desc) }
            })
            .collect();
        let (warehouses, locations) = self.warehouses(n_items);
        let customers = self.accounts((n_items / 25).max(40), false);
        let suppliers = self.accounts((n_items / 50).max(20), true);
        let items = self.items(n_items, &groups);
        self.item_warehouses_and_stock(&items, &warehouses, &locations);
        self.supplier_items(&items, &suppliers);
        let operations = self.simple("manufacturing/Operations", OPERATIONS);
        let workcenters = self.simple("manufacturing/Workcenters", WORKCENTERS);
        let projects = self.projects((n_items / 50).max(10), &customers);
        let employees = self.employees((n_items / 40).max(15));
        let shop_orders = self.shop_orders(&items, &warehouses[0], &projects, &selection, &operations, &workcenters);
        self.sales_orders(&items, &customers, &shop_orders, &warehouses[0]);
        let serial_receipts = self.purchase_orders(&items, &suppliers, &warehouses[0]);
        self.time_transactions(&shop_orders, &employees, &workcenters);
        self.bank_accounts(&customers);
        self.bank_accounts(&suppliers);
        self.serial_numbers(&serial_receipts);
        self.tracked_items();
        self.material_issues();
    }

    /// The serial numbers of the demo receipts of serial items, as Exact keeps them
    /// (StockSerialNumbers of the receipt line's stock transaction, type 130 goods receipt): one
    /// per unit received, `{item code}-{n:04}` counted per item. Derived from the receipts alone
    /// and written last, so no other row's values or Timestamp change.
    fn serial_numbers(&mut self, receipts: &[SerialReceipt]) {
        let mut next: std::collections::HashMap<u128, u64> = std::collections::HashMap::new();
        for r in receipts {
            let code = r.code.as_str().unwrap_or_default().to_string();
            for unit in 0..r.quantity.max(0.0) as u64 {
                let n = next.entry(r.item).or_insert(0);
                *n += 1;
                let id = deterministic_id(r.line, 0x5e71_a100 + u128::from(unit));
                let fields = [
                    ("Item", Val::guid(r.item)),
                    ("ItemCode", r.code.clone()),
                    ("ItemDescription", r.description.clone()),
                    ("SerialNumber", Val::str(&format!("{code}-{n:04}"))),
                    ("SerialNumberID", Val::guid(deterministic_id(r.item, u128::from(*n)))),
                    ("StockTransactionID", Val::guid(r.line)),
                    ("StockTransactionType", Val::Int(stock::GOODS_RECEIPT_TRANSACTION)),
                    ("Warehouse", Val::guid(r.warehouse)),
                    ("IsBlocked", Val::Int(0)),
                    ("IsDraft", Val::Int(0)),
                    ("StartDate", r.date.clone()),
                    ("Created", r.date.clone()),
                    ("Creator", Val::guid(self.creator)),
                    ("CreatorFullName", Val::str("Eva van Dijk")),
                    ("Modified", r.date.clone()),
                    ("Modifier", Val::guid(self.creator)),
                    ("ModifierFullName", Val::str("Eva van Dijk")),
                    ("Division", Val::Int(self.d.code as i64)),
                ];
                self.d.upsert(stock::SERIAL_NUMBERS, id, &fields);
            }
        }
    }

    /// One main bank account per account, a second on every third: derived from the account
    /// alone (no draw from the generator), so the rest of the demo data stays as it was.
    fn bank_accounts(&mut self, accounts: &[Named]) {
        const BANKS: [(&str, &str, &str); 3] =
            [("INGB", "INGBNL2A", "ING Bank"), ("RABO", "RABONL2U", "Rabobank"), ("ABNA", "ABNANL2A", "ABN AMRO")];
        for (i, account) in accounts.iter().enumerate() {
            for n in 0..if i % 3 == 0 { 2 } else { 1 } {
                let (bank, bic, bank_name) = BANKS[(i + n) % BANKS.len()];
                let number = format!("{:010}", (account.id % 9_000_000_000) as u64 + 1_000_000_000 + n as u64);
                let iban = dutch_iban(bank, &number);
                let id = crate::store::deterministic_id(account.id, 0xba4c + n as u128);
                let fields = [
                    ("Account", Val::guid(account.id)),
                    ("AccountName", account.description.clone()),
                    ("BankAccount", Val::str(&iban)),
                    ("BankAccountHolderName", account.description.clone()),
                    ("BankDescription", Val::str(bank_name)),
                    ("BankName", Val::str(bank_name)),
                    ("BICCode", Val::str(bic)),
                    ("Blocked", Val::Bool(false)),
                    ("Created", Val::Date(self.today - 400 * DAY)),
                    ("Creator", Val::guid(self.creator)),
                    ("CreatorFullName", Val::str("Eva van Dijk")),
                    ("Description", Val::str(if n == 0 { "Hoofdrekening" } else { "Spaarrekening" })),
                    ("Division", Val::Int(self.d.code as i64)),
                    ("Format", Val::str("IBAN")),
                    ("IBAN", Val::str(&iban)),
                    ("Main", Val::Bool(n == 0)),
                    ("Modified", Val::Date(self.today - 60 * DAY)),
                    ("Modifier", Val::guid(self.creator)),
                    ("ModifierFullName", Val::str("Eva van Dijk")),
                    ("Type", Val::str("B")),
                    ("TypeDescription", Val::str("Bank")),
                ];
                self.d.upsert("crm/BankAccounts", id, &fields);
            }
        }
    }

    fn warehouses(&mut self, n_items: usize) -> (Vec<Named>, Vec<Vec<Named>>) {
        let list = [("1", "Hoofdmagazijn"), ("2", "Productiemagazijn"), ("3", "Expeditie"), ("13", "Buitenopslag")];
        let per = 4 + n_items / 250;
        let mut whs = Vec::new();
        let mut locs = Vec::new();
        for (i, (code, desc)) in list.iter().enumerate() {
            let wid = self.id();
            let mut wl = Vec::new();
            for n in 0..per {
                let lid = self.id();
                let lcode = format!("{}{:02}-{:02}", ["A", "B", "C", "D"][i], n / 10 + 1, n % 10 + 1);
                let ldesc = format!("Stelling {} vak {}", n / 10 + 1, n % 10 + 1);
                self.put(
                    "inventory/StorageLocations",
                    lid,
                    vec![
                        ("Code", Val::str(&lcode)),
                        ("Description", Val::str(&ldesc)),
                        ("Main", Val::Int((n == 0) as i64)),
                        ("PickSequence", Val::Int(n as i64 + 1)),
                        ("Warehouse", Val::guid(wid)),
                        ("WarehouseCode", Val::str(code)),
                        ("WarehouseDescription", Val::str(desc)),
                    ],
                );
                wl.push(Named { id: lid, code: Val::str(&lcode), description: Val::str(&ldesc) });
            }
            self.put(
                "inventory/Warehouses",
                wid,
                vec![
                    ("Code", Val::str(code)),
                    ("Description", Val::str(desc)),
                    ("Main", Val::Int((i == 0) as i64)),
                    ("UseStorageLocations", Val::Int(1)),
                    ("DefaultStorageLocation", Val::guid(wl[0].id)),
                    ("DefaultStorageLocationCode", wl[0].code.clone()),
                    ("DefaultStorageLocationDescription", wl[0].description.clone()),
                    ("EMail", Val::str("magazijn@vandijk-machinebouw.nl")),
                ],
            );
            whs.push(Named { id: wid, code: Val::str(code), description: Val::str(desc) });
            locs.push(wl);
        }
        (whs, locs)
    }

    fn accounts(&mut self, n: usize, suppliers: bool) -> Vec<Named> {
        let start = if suppliers { 70_000 } else { 10_000 };
        (0..n)
            .map(|i| {
                let id = self.id();
                let name = format!("{} {}", self.pick(COMPANY_HEAD), self.pick(COMPANY_TAIL));
                let city = self.pick(CITIES);
                // Account codes are 18 characters, right-aligned with leading spaces.
                let code = format!("{:>18}", start + i);
                self.put(
                    "crm/Accounts",
                    id,
                    vec![
                        ("Code", Val::str(&code)),
                        ("Name", Val::str(&name)),
                        ("City", Val::str(city)),
                        ("Country", Val::str("NL ")),
                        ("Currency", Val::str("EUR")),
                        ("Email", Val::str(&format!("info{}@example.nl", start + i))),
                        ("IsSupplier", Val::Bool(suppliers)),
                        ("IsSales", Val::Bool(!suppliers)),
                        ("Status", Val::str(if suppliers { "A" } else { "C" })),
                        ("Type", Val::str("A")),
                        ("Blocked", Val::Bool(false)),
                        ("PaymentConditionSales", Val::str("30")),
                        ("PaymentConditionPurchase", Val::str("30")),
                        (
                            "LogoUrl",
                            Val::str("https://start.exactonline.nl//docs/images/placeholder_account_myeol.png"),
                        ),
                    ],
                );
                Named { id, code: Val::str(&code), description: Val::str(&name) }
            })
            .collect()
    }

    fn ean13(&mut self) -> String {
        let mut digits: Vec<u32> = vec![8, 7, 1];
        for _ in 0..9 {
            digits.push(self.rng.random_range(0..10));
        }
        let sum: u32 = digits.iter().enumerate().map(|(i, d)| if i % 2 == 0 { *d } else { d * 3 }).sum();
        digits.push((10 - sum % 10) % 10);
        digits.iter().map(|d| char::from_digit(*d, 10).unwrap_or('0')).collect()
    }

    fn items(&mut self, n: usize, groups: &[Named]) -> Vec<ItemRef> {
        let units = [("stuk    ", "Stuk"), ("m       ", "Meter"), ("kg      ", "Kilogram"), ("set     ", "Set")];
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let id = self.id();
            let make = i % 8 == 0;
            let zv = !make && i % 20 == 3;
            let code = if make {
                format!("EP-{:06}", 100_000 + i)
            } else if zv {
                format!("ZV-{:06}", 100_000 + i)
            } else {
                format!("{:02}-{:06}", 10 + i % 80, 100_000 + i)
            };
            let description = if make {
                format!(
                    "{} {} type {}",
                    self.pick(PRODUCT),
                    self.pick(&["compact", "standaard", "XL", "duo"]),
                    100 + i % 900
                )
            } else {
                format!(
                    "{} {} {}x{}",
                    self.pick(PART),
                    self.pick(MATERIAL),
                    10 * self.rng.random_range(1..40),
                    self.rng.random_range(2..60)
                )
            };
            let group = if make { &groups[groups.len() - 1] } else { &groups[i % (groups.len() - 1)] };
            let (unit, unit_desc) = if make { units[0] } else { self.pick(&units) };
            let picture = if self.chance(0.35) {
                format!(
                    "{}/docs/SysImage.aspx?Table=Items&ID={}&ThumbSize=500&NoCache=1&OptimizeForWeb=1&_Division_={}",
                    self.base_url,
                    super::value::guid_string(id),
                    self.d.code
                )
            } else {
                PLACEHOLDER_ITEM.to_string()
            };
            let thumb = picture.replace("ThumbSize=500", "ThumbSize=100");
            let serial = if make {
                i % 3 == 0
            } else {
                description.split(' ').next().is_some_and(|word| SERIAL_PARTS.contains(&word))
            };
            let cost = (self.rng.random_range(50..200_000) as f64) / 100.0;
            let mut f = vec![
                ("Code", Val::str(&code)),
                ("Description", Val::str(&description)),
                ("SearchCode", Val::str(&code[..code.len().min(10)])),
                ("ItemGroup", Val::guid(group.id)),
                ("ItemGroupCode", group.code.clone()),
                ("ItemGroupDescription", group.description.clone()),
                ("Unit", Val::str(unit)),
                ("UnitDescription", Val::str(unit_desc)),
                (
                    "UnitType",
                    Val::str(if unit.starts_with('m') {
                        "L"
                    } else if unit.starts_with("kg") {
                        "W"
                    } else {
                        "O"
                    }),
                ),
                ("IsStockItem", Val::Bool(true)),
                ("IsPurchaseItem", Val::Bool(!make)),
                ("IsSalesItem", Val::Bool(make || i % 5 == 0)),
                ("IsMakeItem", Val::Int(make as i64)),
                ("IsSerialItem", Val::Bool(serial)),
                ("IsSerialNumberItem", Val::Bool(serial)),
                ("IsBatchItem", Val::Int(0)),
                ("IsBatchNumberItem", Val::Int(0)),
                ("IsFractionAllowedItem", Val::Bool(unit.starts_with('m') || unit.starts_with("kg"))),
                ("CostPriceStandard", Val::Dbl(cost)),
                ("AverageCost", Val::Dbl(cost)),
                ("StandardSalesPrice", Val::Dbl((cost * 1.6 * 100.0).round() / 100.0)),
                ("NetWeight", Val::Dbl(self.rng.random_range(1..5000) as f64 / 100.0)),
                ("NetWeightUnit", Val::str("kg")),
                ("SalesVatCode", Val::str("2  ")),
                ("SecurityLevel", Val::Int(10)),
                ("Stock", Val::Dbl(0.0)),
                ("PictureUrl", Val::str(&picture)),
                ("PictureThumbnailUrl", Val::str(&thumb)),
                ("StartDate", Val::Date(self.today - 800 * DAY)),
            ];
            if picture != PLACEHOLDER_ITEM {
                f.push(("PictureName", Val::str(&format!("{code}.png"))));
            }
            if self.chance(0.4) {
                f.push(("Barcode", Val::str(&self.ean13())));
            }
            if self.chance(0.3) {
                f.push(("FreeTextField_06", Val::str(&format!("TK-{:05}", i))));
                f.push(("FreeTextField_07", Val::str(self.pick(&["Rev A", "Rev B", "Rev C"]))));
            }
            if self.chance(0.2) {
                f.push(("FreeTextField_08", Val::str(self.pick(MATERIAL))));
                f.push((
                    "FreeTextField_09",
                    Val::str(self.pick(&["Klant levert", "Kritisch onderdeel", "Niet stapelen"])),
                ));
            }
            self.put(stock::ITEMS, id, f);
            let code_v = Val::str(&code);
            let desc_v = Val::str(&description);
            if self.chance(0.5) {
                let ef = self.id();
                let bew = self.pick(BEWERKINGEN);
                let modified = self.day(-60, 0);
                self.d.upsert(
                    "read/logistics/ItemExtraField",
                    ef,
                    &[
                        ("ItemID", Val::guid(id)),
                        ("Number", Val::Int(1)),
                        ("Description", Val::str("Bewerkingen")),
                        ("Value", Val::str(bew)),
                        ("Modified", modified),
                    ],
                );
                let ef2 = self.id();
                let modified = self.day(-60, 0);
                self.d.upsert(
                    "read/logistics/ItemExtraField",
                    ef2,
                    &[
                        ("ItemID", Val::guid(id)),
                        ("Number", Val::Int(2)),
                        ("Description", Val::str("Tekeningnummer")),
                        ("Value", Val::str(&format!("TK-{:05}", i))),
                        ("Modified", modified),
                    ],
                );
            }
            out.push(ItemRef {
                id,
                code: code_v,
                description: desc_v,
                unit: Val::str(unit),
                picture: Val::str(&picture),
                make,
                serial,
            });
        }
        out
    }

    fn item_warehouses_and_stock(&mut self, items: &[ItemRef], whs: &[Named], locs: &[Vec<Named>]) {
        for (n, it) in items.iter().enumerate() {
            let mut placed = vec![0usize];
            if self.chance(0.3) {
                placed.push(self.rng.random_range(1..whs.len()));
            }
            for w in placed {
                let wh = &whs[w];
                let loc_i = self.rng.random_range(0..locs[w].len());
                let loc = &locs[w][loc_i];
                let id = self.id();
                let reorder = self.rng.random_range(0..20) as f64;
                self.put(
                    stock::ITEM_WAREHOUSES,
                    id,
                    vec![
                        ("Item", Val::guid(it.id)),
                        ("ItemCode", it.code.clone()),
                        ("ItemDescription", it.description.clone()),
                        ("ItemUnit", it.unit.clone()),
                        ("ItemIsStockItem", Val::Bool(true)),
                        ("Warehouse", Val::guid(wh.id)),
                        ("WarehouseCode", wh.code.clone()),
                        ("WarehouseDescription", wh.description.clone()),
                        ("DefaultStorageLocation", Val::guid(loc.id)),
                        ("DefaultStorageLocationCode", loc.code.clone()),
                        ("DefaultStorageLocationDescription", loc.description.clone()),
                        ("ReorderPoint", Val::Dbl(reorder)),
                        ("ReorderQuantity", Val::Dbl(reorder * 2.0 + 5.0)),
                        ("SafetyStock", Val::Dbl((reorder / 2.0).floor())),
                        ("MaximumStock", Val::Dbl(reorder * 5.0 + 20.0)),
                        ("OrderPolicy", Val::Int(if it.make { 1 } else { 3 })),
                        ("ReplenishmentType", Val::Int(if it.make { 3 } else { 1 })),
                        ("CurrentStock", Val::Dbl(0.0)),
                        ("PlannedStockIn", Val::Dbl(0.0)),
                        ("PlannedStockOut", Val::Dbl(0.0)),
                        ("ProjectedStock", Val::Dbl(0.0)),
                        ("ReservedStock", Val::Dbl(0.0)),
                    ],
                );
                self.d.item_warehouses.insert((it.id, wh.id), id);
                // About one in seven items is out of stock: the Materials screen's shortages.
                if n % 7 != 5 {
                    let qty = few_if_serial(it, self.rng.random_range(1..250));
                    stock::adjust(&mut self.d, it.id, wh.id, loc.id, qty);
                    if self.chance(0.3) {
                        let other = &locs[w][self.rng.random_range(0..locs[w].len())];
                        let more = few_if_serial(it, self.rng.random_range(1..60));
                        stock::adjust(&mut self.d, it.id, wh.id, other.id, more);
                    }
                }
            }
        }
    }

    fn supplier_items(&mut self, items: &[ItemRef], suppliers: &[Named]) {
        for it in items.iter().filter(|i| !i.make) {
            let count = if self.chance(0.2) { 2 } else { 1 };
            for k in 0..count {
                let s = &suppliers[self.rng.random_range(0..suppliers.len())];
                let id = self.id();
                let price = self.rng.random_range(50..100_000) as f64 / 100.0;
                let lead = self.rng.random_range(2..30);
                let min = self.pick(&[1.0, 5.0, 10.0, 25.0, 100.0]);
                self.put(
                    "logistics/SupplierItem",
                    id,
                    vec![
                        ("Item", Val::guid(it.id)),
                        ("ItemCode", it.code.clone()),
                        ("ItemDescription", it.description.clone()),
                        ("Supplier", Val::guid(s.id)),
                        ("SupplierCode", s.code.clone()),
                        ("SupplierDescription", s.description.clone()),
                        ("SupplierItemCode", Val::str(&format!("S{}-{}", 100 + k, it.code.as_str().unwrap_or("")))),
                        ("MainSupplier", Val::Bool(k == 0)),
                        ("PurchasePrice", Val::Dbl(price)),
                        ("PurchaseLeadTime", Val::Int(lead)),
                        ("MinimumQuantity", Val::Dbl(min)),
                        ("PurchaseUnit", it.unit.clone()),
                        ("PurchaseUnitFactor", Val::Dbl(1.0)),
                        ("Currency", Val::str("EUR")),
                        ("StartDate", Val::Date(self.today - 500 * DAY)),
                    ],
                );
            }
        }
    }

    fn simple(&mut self, table: &str, list: &[(&str, &str)]) -> Vec<Named> {
        list.iter()
            .map(|(c, desc)| {
                let id = self.id();
                self.put(
                    table,
                    id,
                    vec![
                        ("Code", Val::str(c)),
                        ("Description", Val::str(desc)),
                        ("Status", Val::Int(10)),
                        ("Type", Val::Int(10)),
                        ("Searchcode", Val::str(c)),
                        ("SearchCode", Val::str(c)),
                        ("HasSuppliers", Val::Int(0)),
                        ("Capacity", Val::Int(8)),
                    ],
                );
                Named { id, code: Val::str(c), description: Val::str(desc) }
            })
            .collect()
    }

    fn projects(&mut self, n: usize, customers: &[Named]) -> Vec<Named> {
        (0..n)
            .map(|i| {
                let id = self.id();
                let c = &customers[self.rng.random_range(0..customers.len())];
                let code = format!("P{}", 24_100 + i);
                let desc = format!("{} {}", self.pick(PRODUCT), c.description.as_str().unwrap_or(""));
                let start = self.day(-200, -10);
                let end = self.day(20, 200);
                let kind = self.pick(&[2, 3]);
                let budget = self.rng.random_range(10_000..500_000) as f64;
                self.put(
                    "project/Projects",
                    id,
                    vec![
                        ("Code", Val::str(&code)),
                        ("Description", Val::str(&desc)),
                        ("Account", Val::guid(c.id)),
                        ("AccountCode", c.code.clone()),
                        ("AccountName", c.description.clone()),
                        ("Type", Val::Int(kind)),
                        ("TypeDescription", Val::str("Vaste prijs")),
                        ("StartDate", start),
                        ("EndDate", end),
                        ("BudgetedAmount", Val::Dbl(budget)),
                        ("BlockEntry", Val::Bool(false)),
                        ("BlockInvoicing", Val::Bool(false)),
                        ("BlockPlanning", Val::Bool(false)),
                        ("BlockPurchasing", Val::Bool(false)),
                        ("BlockRebilling", Val::Bool(false)),
                        ("BudgetOverrunHours", Val::Int(10)),
                    ],
                );
                Named { id, code: Val::str(&code), description: Val::str(&desc) }
            })
            .collect()
    }

    fn employees(&mut self, n: usize) -> Vec<u128> {
        (0..n)
            .map(|i| {
                let id = self.id();
                let (first, last) = (self.pick(FIRST), self.pick(LAST));
                self.put(
                    "payroll/Employees",
                    id,
                    vec![
                        ("Code", Val::str(&format!("{}", 100 + i))),
                        ("FirstName", Val::str(first)),
                        ("LastName", Val::str(last)),
                        ("FullName", Val::str(&format!("{first} {last}"))),
                        ("Phone", Val::str(&format!("055-5{:06}", i))),
                        ("BusinessPhoneExtension", Val::str(&format!("{}", 200 + i))),
                        ("IsActive", Val::Bool(true)),
                        ("ActiveEmployment", Val::Int(1)),
                        ("StartDate", Val::Date(self.today - 2000 * DAY)),
                    ],
                );
                id
            })
            .collect()
    }

    fn shop_orders(
        &mut self,
        items: &[ItemRef],
        wh: &Named,
        projects: &[Named],
        selection: &[Named],
        ops: &[Named],
        wcs: &[Named],
    ) -> Vec<(u128, ItemRef, f64, i64, Vec<u128>)> {
        let make: Vec<&ItemRef> = items.iter().filter(|i| i.make).collect();
        let parts: Vec<&ItemRef> = items.iter().filter(|i| !i.make).collect();
        let n = (items.len() * 3 / 20).max(60);
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let id = self.id();
            let it = make[self.rng.random_range(0..make.len())].clone();
            let status = [10, 10, 10, 10, 20, 20, 20, 30, 30, 40][i % 10];
            let planned = self.rng.random_range(1..21) as f64;
            let produced = match status {
                10 => 0.0,
                20 => (planned / 2.0).floor(),
                _ => planned,
            };
            let start_off = match status {
                10 => self.rng.random_range(-5..40),
                20 => self.rng.random_range(-20..5),
                _ => self.rng.random_range(-60..-5),
            };
            let start = self.today + start_off * DAY;
            let end = start + self.rng.random_range(1..12) * DAY;
            let number = 24_001 + i as i64;
            let project = self.chance(0.5).then(|| &projects[self.rng.random_range(0..projects.len())]);
            let sel = self.chance(0.2).then(|| &selection[self.rng.random_range(0..selection.len())]);
            let mut f = vec![
                ("ShopOrderNumber", Val::Int(number)),
                ("ShopOrderNumberString", Val::str(&number.to_string())),
                ("Description", it.description.clone()),
                ("Item", Val::guid(it.id)),
                ("ItemCode", it.code.clone()),
                ("ItemDescription", it.description.clone()),
                ("ItemPictureUrl", it.picture.clone()),
                ("Unit", it.unit.clone()),
                ("UnitDescription", Val::str("Stuk")),
                ("PlannedQuantity", Val::Dbl(planned)),
                ("ProducedQuantity", Val::Dbl(produced)),
                ("ReadyToShipQuantity", Val::Dbl(0.0)),
                ("PlannedStartDate", Val::Date(start)),
                ("PlannedDate", Val::Date(end)),
                ("EntryDate", Val::Date(start - 14 * DAY)),
                ("ProductionLeadDays", Val::Int((end - start) / DAY)),
                ("Status", Val::Int(status)),
                ("Type", Val::Int(9040)),
                ("IsReleased", Val::Int((status >= 20 || i % 3 == 0) as i64)),
                ("IsOnHold", Val::Int((status == 10 && i % 17 == 0) as i64)),
                ("IsInPlanning", Val::Int((status == 10 && i % 4 == 1) as i64)),
                ("IsBatch", Val::Int(0)),
                ("IsSerial", Val::Int(0)),
                ("IsFractionAllowedItem", Val::Int(0)),
                ("Warehouse", Val::guid(wh.id)),
                ("WarehouseCode", wh.code.clone()),
                ("WarehouseDescription", wh.description.clone()),
                ("YourRef", Val::str(&format!("PO-{}", 4500 + i))),
            ];
            if let Some(p) = project {
                f.extend([("Project", Val::guid(p.id)), ("ProjectDescription", p.description.clone())]);
            }
            if let Some(s) = sel {
                f.extend([
                    ("SelectionCode", Val::guid(s.id)),
                    ("SelectionCodeCode", s.code.clone()),
                    ("SelectionCodeDescription", s.description.clone()),
                ]);
            }
            // Routing steps first so material plans can point at them.
            let steps = self.rng.random_range(2..5);
            let mut step_ids = Vec::new();
            for s in 0..steps {
                let sid = self.id();
                let op = &ops[self.rng.random_range(0..ops.len())];
                let wc = &wcs[self.rng.random_range(0..wcs.len())];
                let setup = self.rng.random_range(0..4) as f64 * 0.25;
                let run = self.rng.random_range(1..12) as f64 * 0.25;
                self.put(
                    "manufacturing/ShopOrderRoutingStepPlans",
                    sid,
                    vec![
                        ("ShopOrder", Val::guid(id)),
                        ("LineNumber", Val::Int((s + 1) * 10)),
                        ("Operation", Val::guid(op.id)),
                        ("OperationCode", op.code.clone()),
                        ("OperationDescription", op.description.clone()),
                        ("Description", op.description.clone()),
                        ("Workcenter", Val::guid(wc.id)),
                        ("WorkcenterCode", wc.code.clone()),
                        ("WorkcenterDescription", wc.description.clone()),
                        ("PlannedSetupHours", Val::Dbl(setup)),
                        ("PlannedRunHours", Val::Dbl(run * planned)),
                        ("PlannedTotalHours", Val::Dbl(setup + run * planned)),
                        ("Setup", Val::Dbl(setup)),
                        ("Run", Val::Dbl(run)),
                        ("PlannedStartDate", Val::Date(start + s * DAY)),
                        ("PlannedEndDate", Val::Date((start + (s + 1) * DAY).min(end))),
                        (
                            "Status",
                            Val::Int(if status >= 30 {
                                30
                            } else if status == 20 && s == 0 {
                                20
                            } else {
                                10
                            }),
                        ),
                        ("RoutingStepType", Val::Int(1)),
                        ("CostPerItem", Val::Dbl(run * 55.0)),
                        ("TotalCostDC", Val::Dbl((setup + run * planned) * 55.0)),
                        ("Backflush", Val::Int(0)),
                    ],
                );
                step_ids.push(sid);
            }
            let mats = self.rng.random_range(3..9);
            let mut by_products = 0;
            for m in 0..mats {
                let pid = self.id();
                let part = parts[self.rng.random_range(0..parts.len())].clone();
                let per = self.rng.random_range(1..6) as f64;
                let qty = per * planned;
                let issued = match status {
                    10 => 0.0,
                    20 => (qty / 2.0).floor(),
                    _ => qty,
                };
                let plan_status = if status >= 30 {
                    30
                } else if issued > 0.0 {
                    25
                } else {
                    10
                };
                let step = step_ids[(m as usize) % step_ids.len()];
                self.put(
                    "manufacturing/ShopOrderMaterialPlans",
                    pid,
                    vec![
                        ("ShopOrder", Val::guid(id)),
                        ("ShopOrderNumber", Val::Int(number)),
                        ("LineNumber", Val::Int(m + 1)),
                        ("Type", Val::Int(1)),
                        ("Item", Val::guid(part.id)),
                        ("ItemCode", part.code.clone()),
                        ("ItemDescription", part.description.clone()),
                        ("ItemPictureUrl", part.picture.clone()),
                        ("Description", part.description.clone()),
                        ("Unit", part.unit.clone()),
                        ("PlannedQuantity", Val::Dbl(qty)),
                        ("PlannedQuantityFactor", Val::Dbl(per)),
                        ("IssuedQuantity", Val::Dbl(issued)),
                        ("PlannedDate", Val::Date(start)),
                        ("Status", Val::Int(plan_status)),
                        ("Backflush", Val::Int((m % 5 == 4) as i64)),
                        ("RoutingStepID", Val::guid(step)),
                        ("Warehouse", Val::guid(wh.id)),
                    ],
                );
            }
            if i % 10 == 3 {
                by_products += 1;
                let pid = self.id();
                let part = parts[self.rng.random_range(0..parts.len())].clone();
                self.put(
                    "manufacturing/ShopOrderMaterialPlans",
                    pid,
                    vec![
                        ("ShopOrder", Val::guid(id)),
                        ("ShopOrderNumber", Val::Int(number)),
                        ("LineNumber", Val::Int(mats + 1)),
                        ("Type", Val::Int(2)),
                        ("Item", Val::guid(part.id)),
                        ("ItemCode", part.code.clone()),
                        ("ItemDescription", part.description.clone()),
                        ("Description", Val::str(&format!("Restant {}", part.description.as_str().unwrap_or("")))),
                        ("Unit", part.unit.clone()),
                        ("PlannedQuantity", Val::Dbl(1.0)),
                        ("IssuedQuantity", Val::Dbl(0.0)),
                        ("PlannedDate", Val::Date(end)),
                        ("Status", Val::Int(10)),
                        ("Backflush", Val::Int(0)),
                        ("Warehouse", Val::guid(wh.id)),
                    ],
                );
            }
            f.extend([
                ("ShopOrderMaterialPlanCount", Val::Int(mats)),
                ("ShopOrderByProductPlanCount", Val::Int(by_products)),
                ("ShopOrderRoutingStepPlanCount", Val::Int(steps)),
                ("ShopOrderMaterialPlanBackflushCount", Val::Int(0)),
                ("ShopOrderByProductPlanBackflushCount", Val::Int(0)),
                ("SubShopOrderCount", Val::Int(0)),
                ("SalesOrderLineCount", Val::Int(0)),
            ]);
            self.put("manufacturing/ShopOrders", id, f);
            out.push((id, it, planned, number, step_ids));
        }
        out
    }

    fn sales_orders(
        &mut self,
        items: &[ItemRef],
        customers: &[Named],
        sos: &[(u128, ItemRef, f64, i64, Vec<u128>)],
        wh: &Named,
    ) {
        let n = (items.len() / 12).max(40);
        let sellable: Vec<&ItemRef> = items.iter().filter(|i| i.make).collect();
        for i in 0..n {
            let id = self.id();
            let c = &customers[self.rng.random_range(0..customers.len())];
            let number = 30_001 + i as i64;
            let order_date = self.day(-45, 0);
            let delivery = self.day(-5, 45);
            let status = if i % 6 == 0 { 20 } else { 12 };
            let lines = self.rng.random_range(1..4);
            let mut total = 0.0;
            for l in 0..lines {
                let lid = self.id();
                // Half of the first lines are made to order: linked to a shop order of the same item.
                let linked = (l == 0 && i % 2 == 0).then(|| &sos[(i / 2) % sos.len()]);
                let (it, qty) = match linked {
                    Some(so) => (so.1.clone(), so.2),
                    None => {
                        (sellable[self.rng.random_range(0..sellable.len())].clone(), self.rng.random_range(1..6) as f64)
                    }
                };
                let price = self.rng.random_range(500..25_000) as f64;
                total += price * qty;
                let mut f = vec![
                    ("OrderID", Val::guid(id)),
                    ("OrderNumber", Val::Int(number)),
                    ("LineNumber", Val::Int(l + 1)),
                    ("Item", Val::guid(it.id)),
                    ("ItemCode", it.code.clone()),
                    ("ItemDescription", it.description.clone()),
                    ("Description", it.description.clone()),
                    ("Quantity", Val::Dbl(qty)),
                    ("QuantityDelivered", Val::Dbl(if status == 20 && l == 0 { qty } else { 0.0 })),
                    ("QuantityInvoiced", Val::Dbl(0.0)),
                    ("UnitPrice", Val::Dbl(price)),
                    ("NetPrice", Val::Dbl(price)),
                    ("AmountDC", Val::Dbl(price * qty)),
                    ("AmountFC", Val::Dbl(price * qty)),
                    ("UnitCode", it.unit.clone()),
                    ("VATCode", Val::str("2  ")),
                    ("VATPercentage", Val::Dbl(0.21)),
                    ("DeliveryDate", delivery.clone()),
                    ("DeliveryStatus", Val::Int(if status == 20 && l == 0 { 21 } else { 12 })),
                    ("InvoiceStatus", Val::Int(12)),
                    ("OrderStatus", Val::Int(status)),
                    ("Status", Val::Int(status)),
                ];
                if let Some(so) = linked {
                    f.extend([("ShopOrder", Val::guid(so.0)), ("ShopOrderNumber", Val::Int(so.3))]);
                    self.d.update("manufacturing/ShopOrders", so.0, &[("SalesOrderLineCount", Val::Int(1))]);
                }
                self.put("salesorder/SalesOrderLines", lid, f);
            }
            self.put(
                "salesorder/SalesOrders",
                id,
                vec![
                    ("ID", Val::guid(id)),
                    ("OrderNumber", Val::Int(number)),
                    ("OrderDate", order_date),
                    ("DeliveryDate", delivery),
                    ("OrderedBy", Val::guid(c.id)),
                    ("OrderedByName", c.description.clone()),
                    ("DeliverTo", Val::guid(c.id)),
                    ("DeliverToName", c.description.clone()),
                    ("InvoiceTo", Val::guid(c.id)),
                    ("InvoiceToName", c.description.clone()),
                    ("Description", Val::str(&format!("Order {}", c.description.as_str().unwrap_or("")))),
                    ("Status", Val::Int(status)),
                    ("DeliveryStatus", Val::Int(12)),
                    ("InvoiceStatus", Val::Int(12)),
                    ("ApprovalStatus", Val::Int(1)),
                    ("Currency", Val::str("EUR")),
                    ("AmountDC", Val::Dbl(total)),
                    ("AmountFC", Val::Dbl(total)),
                    ("WarehouseID", Val::guid(wh.id)),
                    ("WarehouseCode", wh.code.clone()),
                    ("WarehouseDescription", wh.description.clone()),
                    ("YourRef", Val::str(&format!("KL-{}", 7000 + i))),
                ],
            );
        }
    }

    /// Purchase orders, their lines and the receipts of the older ones; answers the receipt lines
    /// of serial items.
    fn purchase_orders(&mut self, items: &[ItemRef], suppliers: &[Named], wh: &Named) -> Vec<SerialReceipt> {
        let parts: Vec<&ItemRef> = items.iter().filter(|i| !i.make).collect();
        let mut serial_receipts = Vec::new();
        let n = (items.len() / 10).max(40);
        let mut receipt_no = 1;
        for i in 0..n {
            let id = self.id();
            let s = &suppliers[self.rng.random_range(0..suppliers.len())];
            let number = 40_001 + i as i64;
            let order_day = self.rng.random_range(-60..0);
            let order_date = Val::Date(self.today + order_day * DAY);
            let receipt_date = Val::Date(self.today + (order_day + self.rng.random_range(3..30)) * DAY);
            let n_lines = self.rng.random_range(1..6);
            let mut received_lines = Vec::new();
            let mut total = 0.0;
            for l in 0..n_lines {
                let lid = self.id();
                let it = parts[self.rng.random_range(0..parts.len())].clone();
                let qty = self.rng.random_range(1..100) as f64;
                // Older orders are (partly) received; recent ones are still open.
                let received = if order_day < -20 && l % 2 == 0 {
                    qty
                } else if order_day < -10 && l % 3 == 0 {
                    (qty / 2.0).floor()
                } else {
                    0.0
                };
                let price = self.rng.random_range(50..50_000) as f64 / 100.0;
                total += qty * price;
                // Exact copies the item's barcode onto the line: the box's EAN finds it
                let barcode = self.d.table(stock::ITEMS).map(|t| t.value(it.id, "Barcode")).unwrap_or(Val::Null);
                self.put(
                    "purchaseorder/PurchaseOrderLines",
                    lid,
                    vec![
                        ("PurchaseOrderID", Val::guid(id)),
                        ("ItemBarcode", barcode),
                        ("LineNumber", Val::Int(l + 1)),
                        ("Item", Val::guid(it.id)),
                        ("ItemCode", it.code.clone()),
                        ("ItemDescription", it.description.clone()),
                        ("Description", it.description.clone()),
                        ("Unit", it.unit.clone()),
                        ("Quantity", Val::Dbl(qty)),
                        ("QuantityInPurchaseUnits", Val::Dbl(qty)),
                        ("ReceivedQuantity", Val::Dbl(received)),
                        ("InvoicedQuantity", Val::Dbl(0.0)),
                        ("UnitPrice", Val::Dbl(price)),
                        ("NetPrice", Val::Dbl(price)),
                        ("AmountDC", Val::Dbl(qty * price)),
                        ("AmountFC", Val::Dbl(qty * price)),
                        ("ReceiptDate", receipt_date.clone()),
                        ("VATCode", Val::str("2  ")),
                        ("VATPercentage", Val::Dbl(0.21)),
                    ],
                );
                if received > 0.0 {
                    received_lines.push((lid, it, qty, received));
                }
            }
            let status = if received_lines.is_empty() {
                10
            } else if received_lines.len() as i64 == n_lines {
                30
            } else {
                20
            };
            self.put(
                "purchaseorder/PurchaseOrders",
                id,
                vec![
                    ("OrderNumber", Val::Int(number)),
                    ("OrderDate", order_date),
                    ("ReceiptDate", receipt_date.clone()),
                    ("Supplier", Val::guid(s.id)),
                    ("SupplierCode", s.code.clone()),
                    ("SupplierName", s.description.clone()),
                    ("Description", Val::str(&format!("Inkoop {}", s.description.as_str().unwrap_or("")))),
                    ("OrderStatus", Val::Int(status)),
                    ("ReceiptStatus", Val::Int(status)),
                    ("InvoiceStatus", Val::Int(10)),
                    ("ApprovalStatus", Val::Int(1)),
                    ("Source", Val::Int(1)),
                    ("Currency", Val::str("EUR")),
                    ("AmountDC", Val::Dbl(total)),
                    ("AmountFC", Val::Dbl(total)),
                    ("PurchaseOrderLineCount", Val::Int(n_lines)),
                    ("Warehouse", Val::guid(wh.id)),
                    ("WarehouseCode", wh.code.clone()),
                    ("WarehouseDescription", wh.description.clone()),
                ],
            );
            if !received_lines.is_empty() {
                let gid = self.id();
                self.put(
                    "purchaseorder/GoodsReceipts",
                    gid,
                    vec![
                        ("ReceiptDate", receipt_date.clone()),
                        ("ReceiptNumber", Val::Int(receipt_no)),
                        ("EntryNumber", Val::Int(receipt_no)),
                        ("Supplier", Val::guid(s.id)),
                        ("SupplierCode", s.code.clone()),
                        ("SupplierName", s.description.clone()),
                        ("Warehouse", Val::guid(wh.id)),
                        ("WarehouseCode", wh.code.clone()),
                        ("WarehouseDescription", wh.description.clone()),
                        ("GoodsReceiptLineCount", Val::Int(received_lines.len() as i64)),
                    ],
                );
                for (n, (lid, it, qty, rec)) in received_lines.into_iter().enumerate() {
                    let rid = self.id();
                    if it.serial {
                        serial_receipts.push(SerialReceipt {
                            line: rid,
                            item: it.id,
                            code: it.code.clone(),
                            description: it.description.clone(),
                            quantity: rec,
                            warehouse: wh.id,
                            date: receipt_date.clone(),
                        });
                    }
                    self.put(
                        "purchaseorder/GoodsReceiptLines",
                        rid,
                        vec![
                            ("GoodsReceiptID", Val::guid(gid)),
                            ("LineNumber", Val::Int(n as i64 + 1)),
                            ("PurchaseOrderID", Val::guid(id)),
                            ("PurchaseOrderLineID", Val::guid(lid)),
                            ("PurchaseOrderNumber", Val::Int(number)),
                            ("Item", Val::guid(it.id)),
                            ("ItemCode", it.code.clone()),
                            ("ItemDescription", it.description.clone()),
                            ("ItemUnitCode", it.unit.clone()),
                            ("QuantityOrdered", Val::Dbl(qty)),
                            ("QuantityReceived", Val::Dbl(rec)),
                        ],
                    );
                }
                receipt_no += 1;
            }
        }
        serial_receipts
    }

    fn time_transactions(&mut self, sos: &[(u128, ItemRef, f64, i64, Vec<u128>)], employees: &[u128], wcs: &[Named]) {
        for (k, so) in sos.iter().enumerate().filter(|(k, _)| k % 10 >= 4) {
            for step in &so.4 {
                let id = self.id();
                let emp = employees[(k + *step as usize) % employees.len()];
                let wc = &wcs[k % wcs.len()];
                let date = self.day(-30, 0);
                let hours = self.rng.random_range(1..17) as f64 * 0.25;
                self.put(
                    "manufacturing/TimeTransactions",
                    id,
                    vec![
                        ("ShopOrder", Val::guid(so.0)),
                        ("RoutingStepPlan", Val::guid(*step)),
                        ("Employee", Val::guid(emp)),
                        ("WorkCenter", Val::guid(wc.id)),
                        ("Date", date),
                        ("Hours", Val::Dbl(hours)),
                        ("LaborHours", Val::Dbl(hours)),
                        ("Activity", Val::Int(if k % 3 == 0 { 10 } else { 20 })),
                        ("Status", Val::Int(if k % 4 == 0 { 10 } else { 20 })),
                        ("Quantity", Val::Dbl(0.0)),
                        ("IsOperationFinished", Val::Int(0)),
                    ],
                );
            }
        }
    }
}

/// A Dutch IBAN with its real check digits (ISO 13616: mod 97 of the rearranged digits is 1).
fn dutch_iban(bank: &str, number: &str) -> String {
    let digits: String = format!("{bank}{number}NL00")
        .chars()
        .map(|c| if c.is_ascii_digit() { c.to_string() } else { (c as u32 - 'A' as u32 + 10).to_string() })
        .collect();
    let rem = digits.bytes().fold(0u32, |acc, b| (acc * 10 + u32::from(b - b'0')) % 97);
    format!("NL{:02}{bank}{number}", 98 - rem)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dutch_ibans_carry_their_check_digits() {
        // The example IBAN of the Dutch banks' own documentation.
        assert_eq!(super::dutch_iban("ABNA", "0417164300"), "NL91ABNA0417164300");
        assert_eq!(super::dutch_iban("INGB", "0001234567"), "NL20INGB0001234567");
    }

    #[test]
    fn receipts_of_serial_items_carry_one_serial_number_per_unit() {
        use crate::stock::{ITEMS, SERIAL_NUMBERS};
        use crate::value::Val;
        use std::collections::{HashMap, HashSet};
        let world = super::generate(crate::Scale::Small, 42, 1_773_136_805_000, "http://sim");
        for d in &world.data {
            let items = d.table(ITEMS).expect("items");
            let serial_item = |k: u128| items.value(k, "IsSerialItem") == Val::Bool(true);
            let parts = items.rows.keys().filter(|k| items.value(**k, "IsMakeItem") == Val::Int(0));
            assert!(parts.filter(|k| serial_item(**k)).count() > 0, "{}: purchased serial items", d.code);
            let serials = d.table(SERIAL_NUMBERS).expect("serial numbers");
            let mut by_line: HashMap<u128, Vec<String>> = HashMap::new();
            let received = |k: &&u128| serials.value(**k, "StockTransactionType") == Val::Int(130);
            for k in serials.rows.keys().filter(received) {
                let line = serials.value(*k, "StockTransactionID").as_guid().expect("a stock transaction");
                let serial = serials.value(*k, "SerialNumber").as_str().expect("a serial number").to_string();
                by_line.entry(line).or_default().push(serial);
            }
            let lines = d.table("purchaseorder/GoodsReceiptLines").expect("receipt lines");
            let mut serial_lines = 0;
            for k in lines.rows.keys() {
                let item = lines.value(*k, "Item").as_guid().expect("an item");
                let received = lines.value(*k, "QuantityReceived").as_f64().expect("a quantity");
                let numbers = by_line.remove(k).unwrap_or_default();
                if serial_item(item) {
                    serial_lines += 1;
                    assert_eq!(numbers.len() as f64, received, "one serial number per unit received");
                    let code = items.value(item, "Code");
                    assert!(numbers.iter().all(|n| n.starts_with(code.as_str().unwrap_or("?"))), "{numbers:?}");
                } else {
                    assert!(numbers.is_empty(), "a line of an item without serial numbers has none");
                }
            }
            assert!(serial_lines > 0, "{}: receipts of serial items", d.code);
            assert!(by_line.is_empty(), "every received serial number belongs to a receipt line");
            let unique: HashSet<(Option<u128>, Option<String>)> = serials
                .rows
                .keys()
                .filter(received)
                .map(|k| {
                    let serial = serials.value(*k, "SerialNumber").as_str().map(str::to_string);
                    (serials.value(*k, "Item").as_guid(), serial)
                })
                .collect();
            assert_eq!(
                unique.len(),
                serials.rows.keys().filter(received).count(),
                "serial numbers are unique per item"
            );
        }
    }
}
