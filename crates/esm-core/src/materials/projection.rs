//! Per item, its lines of supply and demand in date order with a running projected balance, and
//! the items ordered shortest first (Katana's material availability; the UI's `projectItem` and
//! `projectAll` in `lib/shortage.ts` follow the same rules for the item page).

use super::flow::{FlowLine, ItemInfo, Kind, tidy};
use esm_base::order::natural_cmp;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

/// Lines in the order the balance runs: free stock first, then by day, within a day supply
/// before demand, then by order number.
pub fn compare_lines(a: &FlowLine, b: &FlowLine) -> Ordering {
    let by_day = match (&a.day, &b.day) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => x.cmp(y),
    };
    by_day.then_with(|| a.kind.rank().cmp(&b.kind.rank())).then_with(|| natural_cmp(&a.ref_number, &b.ref_number))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Availability {
    /// Not covered, even with the supply expected.
    Short,
    /// Covered thanks to purchase orders or shop orders still to come.
    Expected,
    /// Free stock alone covers the demand.
    InStock,
}

/// One line of a projection: the line (by its place in the inputs), its quantity (an MS line's
/// less what the outbox still issues) and the balance after it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BalanceLine {
    pub line: usize,
    pub quantity: f64,
    pub balance: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub item: Arc<str>,
    pub lines: Vec<BalanceLine>,
    pub free: f64,
    pub demand: f64,
    pub supply: f64,
    /// The day of the first line after which the balance is below zero.
    pub first_short_day: Option<Arc<str>>,
    /// The balance right after that line (negative).
    pub first_short_balance: f64,
    pub lowest: f64,
    pub end_balance: f64,
    pub availability: Availability,
}

/// The running balance of one item's lines (`lines`: indexes into `all`, with their quantities).
pub fn project_item(item: Arc<str>, all: &[FlowLine], mut lines: Vec<(usize, f64)>) -> Projection {
    lines.sort_by(|a, b| compare_lines(&all[a.0], &all[b.0]));
    let (mut balance, mut stock_only, mut free, mut demand, mut supply) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut lowest, mut lowest_stock_only) = (f64::INFINITY, f64::INFINITY);
    let (mut first_short_day, mut first_short_balance, mut first_short) = (None, 0.0, false);
    let mut out = Vec::with_capacity(lines.len());
    for (i, quantity) in lines {
        let l = &all[i];
        balance = tidy(balance + quantity);
        if l.kind == Kind::FI {
            free = tidy(free + quantity);
        } else if quantity < 0.0 {
            demand = tidy(demand - quantity);
        } else {
            supply = tidy(supply + quantity);
        }
        // the same sequence without expected supply tells "covered by stock" from "covered later"
        if l.kind == Kind::FI || quantity < 0.0 {
            stock_only = tidy(stock_only + quantity);
        }
        lowest_stock_only = f64::min(lowest_stock_only, stock_only);
        lowest = f64::min(lowest, balance);
        if balance < 0.0 && !first_short && l.kind != Kind::FI {
            first_short = true;
            first_short_day = l.day.clone();
            first_short_balance = balance;
        }
        out.push(BalanceLine { line: i, quantity, balance });
    }
    if lowest == f64::INFINITY {
        lowest = 0.0;
    }
    let availability = if lowest < 0.0 {
        Availability::Short
    } else if lowest_stock_only < 0.0 {
        Availability::Expected
    } else {
        Availability::InStock
    };
    Projection {
        item,
        lines: out,
        free,
        demand,
        supply,
        first_short_day,
        first_short_balance,
        lowest,
        end_balance: balance,
        availability,
    }
}

/// What the projection is made over.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Filters {
    /// Warehouse id ('' = all): only its lines (and lines whose warehouse is unknown).
    pub warehouse: String,
    /// Project id ('' = all): only items with demand for it; the balance still counts all lines.
    pub project: String,
    /// Item group id ('' = all).
    pub item_group: String,
}

/// The projections of every item with demand, shortest first: the items that run short by their
/// first short day, then those covered by expected supply, then those in stock. `queued` is what
/// the outbox still issues to each material plan line.
pub fn project_all(
    lines: &[FlowLine],
    items: &HashMap<Arc<str>, ItemInfo>,
    filters: &Filters,
    queued: &HashMap<String, f64>,
) -> Vec<Projection> {
    let mut by_item: HashMap<&Arc<str>, Vec<(usize, f64)>> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if !filters.warehouse.is_empty() && !l.warehouse.is_empty() && *l.warehouse != *filters.warehouse {
            continue;
        }
        if !filters.item_group.is_empty() && items.get(&l.item).is_none_or(|info| info.item_group != filters.item_group)
        {
            continue;
        }
        let mut quantity = l.quantity;
        if let Some(plan) = &l.plan
            && let Some(q) = queued.get(&**plan)
        {
            // booked here, on its way to Exact: no longer needed
            quantity = tidy(quantity + q);
            if quantity >= 0.0 {
                continue;
            }
        }
        by_item.entry(&l.item).or_default().push((i, quantity));
    }
    let mut out: Vec<Projection> = by_item
        .into_iter()
        .filter(|(_, list)| {
            let mut demand = list.iter().filter(|(_, q)| *q < 0.0).peekable();
            demand.peek().is_some()
                && (filters.project.is_empty() || demand.any(|(i, _)| *lines[*i].project == *filters.project))
        })
        .map(|(item, list)| project_item(item.clone(), lines, list))
        .collect();
    out.sort_by(|a, b| {
        a.availability
            .cmp(&b.availability)
            .then_with(|| {
                a.first_short_day.as_deref().unwrap_or("9999").cmp(b.first_short_day.as_deref().unwrap_or("9999"))
            })
            .then_with(|| a.lowest.total_cmp(&b.lowest))
            .then_with(|| a.item.cmp(&b.item))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(kind: Kind, item: &str, day: Option<&str>, quantity: f64, number: &str) -> FlowLine {
        FlowLine {
            kind,
            item: item.into(),
            day: day.map(Arc::from),
            quantity,
            warehouse: "w1".into(),
            project: "".into(),
            ref_id: format!("ref-{number}").into(),
            ref_number: number.into(),
            line_id: None,
            plan: None,
        }
    }

    #[test]
    fn stock_first_then_by_day_supply_before_demand() {
        let all = vec![
            line(Kind::SO, "bolt", Some("2026-12-05"), -4.0, "7"),
            line(Kind::PO, "bolt", Some("2026-12-05"), 3.0, "40080"),
            line(Kind::MS, "bolt", Some("2026-12-02"), -2.0, "10"),
            line(Kind::FI, "bolt", None, 2.0, "1"),
        ];
        let p = project_item("bolt".into(), &all, (0..4).map(|i| (i, all[i].quantity)).collect());
        assert_eq!(p.lines.iter().map(|l| l.line).collect::<Vec<_>>(), vec![3, 2, 1, 0]);
        assert_eq!(p.lines.iter().map(|l| l.balance).collect::<Vec<_>>(), vec![2.0, 0.0, 3.0, -1.0]);
        assert_eq!((p.free, p.demand, p.supply, p.lowest, p.end_balance), (2.0, 6.0, 3.0, -1.0, -1.0));
        assert_eq!(p.first_short_day.as_deref(), Some("2026-12-05"));
        assert_eq!(p.availability, Availability::Short);
    }

    #[test]
    fn covered_by_stock_by_supply_to_come_or_not_at_all() {
        let all = vec![
            line(Kind::FI, "a", None, 5.0, "1"),
            line(Kind::MS, "a", Some("2026-12-02"), -5.0, "1"),
            line(Kind::MS, "b", Some("2026-12-02"), -2.0, "1"),
            line(Kind::MA, "b", Some("2026-12-01"), 2.0, "2"),
            line(Kind::SO, "c", Some("2026-12-09"), -1.0, "3"),
            // supply without demand is not listed
            line(Kind::PO, "d", Some("2026-12-01"), 9.0, "4"),
            line(Kind::SO, "e", Some("2026-12-03"), -1.0, "5"),
        ];
        let items = HashMap::new();
        let out = project_all(&all, &items, &Filters::default(), &HashMap::new());
        let summary: Vec<(&str, Availability)> = out.iter().map(|p| (&*p.item, p.availability)).collect();
        // short ones by their first short day
        assert_eq!(
            summary,
            vec![
                ("e", Availability::Short),
                ("c", Availability::Short),
                ("b", Availability::Expected),
                ("a", Availability::InStock)
            ]
        );
    }

    #[test]
    fn what_the_outbox_still_issues_is_needed_no_more() {
        let mut ms = line(Kind::MS, "a", Some("2026-12-02"), -5.0, "1");
        ms.plan = Some("plan-1".into());
        let all = vec![line(Kind::FI, "a", None, 2.0, "1"), ms];
        let items = HashMap::new();
        let queued = HashMap::from([("plan-1".to_string(), 3.0)]);
        let out = project_all(&all, &items, &Filters::default(), &queued);
        assert_eq!(out[0].demand, 2.0);
        assert_eq!(out[0].availability, Availability::InStock);
        // all of it on its way: no demand left, the item is not listed
        let queued = HashMap::from([("plan-1".to_string(), 5.0)]);
        assert!(project_all(&all, &items, &Filters::default(), &queued).is_empty());
    }

    #[test]
    fn filters_narrow_the_lines_the_items_and_the_demand() {
        let mut other = line(Kind::FI, "a", None, 9.0, "2");
        other.warehouse = "w2".into();
        let mut unknown = line(Kind::FI, "a", None, 1.0, "0");
        unknown.warehouse = "".into();
        let mut for_project = line(Kind::SO, "b", Some("2026-12-02"), -1.0, "3");
        for_project.project = "p1".into();
        let all = vec![line(Kind::MS, "a", Some("2026-12-02"), -5.0, "1"), other, unknown, for_project];
        let items = HashMap::from([
            (
                Arc::from("a"),
                ItemInfo { code: "A".into(), description: String::new(), item_group: "g1".into(), unit: String::new() },
            ),
            (
                Arc::from("b"),
                ItemInfo { code: "B".into(), description: String::new(), item_group: "g2".into(), unit: String::new() },
            ),
        ]);
        let none = HashMap::new();
        let all_warehouses = project_all(&all, &items, &Filters::default(), &none);
        let a = all_warehouses.iter().find(|p| &*p.item == "a").expect("a");
        assert_eq!(a.free, 10.0);
        let w1 = Filters { warehouse: "w1".into(), ..Default::default() };
        let a = project_all(&all, &items, &w1, &none).into_iter().find(|p| &*p.item == "a").expect("a");
        assert_eq!(a.free, 1.0, "the other warehouse's stock is left out, an unknown one's counts");
        let g2 = Filters { item_group: "g2".into(), ..Default::default() };
        assert_eq!(project_all(&all, &items, &g2, &none).iter().map(|p| &*p.item).collect::<Vec<_>>(), vec!["b"]);
        let p1 = Filters { project: "p1".into(), ..Default::default() };
        assert_eq!(project_all(&all, &items, &p1, &none).iter().map(|p| &*p.item).collect::<Vec<_>>(), vec!["b"]);
    }
}
