//! Word lists for plausible Dutch machine-builder data.

pub const FIRST: &[&str] = &[
    "Jan", "Pieter", "Sanne", "Lotte", "Bram", "Daan", "Femke", "Ruud", "Anouk", "Kees", "Marieke", "Thijs", "Joost",
    "Esther", "Wouter", "Ilse", "Henk", "Noor", "Gerrit", "Linda",
];
pub const LAST: &[&str] = &[
    "de Vries", "Jansen", "van den Berg", "Bakker", "Visser", "Smit", "Meijer", "de Boer", "Mulder", "de Groot", "Bos",
    "Vos", "Peters", "Hendriks", "van Leeuwen", "Dekker", "Brouwer", "de Wit", "Dijkstra", "Kok",
];
pub const CITIES: &[&str] = &[
    "Apeldoorn", "Deventer", "Zwolle", "Enschede", "Hengelo", "Almelo", "Eindhoven", "Helmond", "Veenendaal", "Ede",
    "Amersfoort", "Tilburg", "Breda", "Venlo", "Nijmegen", "Arnhem",
];
pub const COMPANY_HEAD: &[&str] = &[
    "Van der Meer", "Hollandse", "Twentse", "Brabantse", "De Jong", "Veluwse", "Oostland", "Noordkaap", "Kuipers",
    "Rijnmond", "IJssel", "Maasland", "Zeeuwse", "Gelderse", "Dutch", "Euro",
];
pub const COMPANY_TAIL: &[&str] = &[
    "Techniek B.V.", "Metaal B.V.", "Staal", "Hydrauliek B.V.", "Aandrijvingen", "Plaatbewerking", "Industrie B.V.",
    "Agri Systems", "Food Machinery", "Elektro B.V.", "Verpakkingen", "Transport B.V.", "Lastechniek",
];
pub const PART: &[&str] = &[
    "Plaat", "Strip", "Buis", "Koker", "As", "Flens", "Beugel", "Console", "Lager", "Bus", "Tandwiel", "Ketting",
    "Motor", "Reductor", "Cilinder", "Ventiel", "Sensor", "Kabel", "Relais", "Schakelaar", "Bout", "Moer", "Ring",
    "Veer", "Afdekkap", "Frame", "Scharnier", "Handgreep", "Transportband", "Rol",
];
pub const MATERIAL: &[&str] = &["RVS 304", "RVS 316", "S235", "S355", "Alu 6082", "PE-HD", "POM", "Messing", "Verzinkt", "Gegalvaniseerd"];
pub const PRODUCT: &[&str] = &[
    "Stapelmachine", "Sorteerunit", "Transportsysteem", "Palletiseerder", "Doseerunit", "Weegstation", "Menginstallatie",
    "Snijmodule", "Verpakkingslijn", "Kantbank", "Lastafel", "Spoelstation",
];
pub const GROUPS: &[(&str, &str)] = &[
    ("PLW", "Plaatwerk"),
    ("DRW", "Draaiwerk"),
    ("FRW", "Freeswerk"),
    ("ELK", "Elektra"),
    ("HYD", "Hydrauliek"),
    ("PNE", "Pneumatiek"),
    ("BEV", "Bevestigingsmateriaal"),
    ("EP", "Eindproducten"),
];
pub const OPERATIONS: &[(&str, &str)] = &[
    ("ZAG", "Zagen"),
    ("LAS", "Lasersnijden"),
    ("KAN", "Kanten"),
    ("LSN", "Lassen"),
    ("DRA", "Draaien"),
    ("FRE", "Frezen"),
    ("SPU", "Spuiten"),
    ("MON", "Monteren"),
    ("TST", "Testen"),
    ("INP", "Inpakken"),
];
pub const WORKCENTERS: &[(&str, &str)] = &[
    ("WP-PLAAT", "Plaatbewerking"),
    ("WP-VERSP", "Verspaning"),
    ("WP-LAS", "Lasafdeling"),
    ("WP-SPUIT", "Spuiterij"),
    ("WP-MONT", "Montagehal"),
    ("WP-EXP", "Expeditie"),
];
pub const BEWERKINGEN: &[&str] = &[
    "Lasersnijden, kanten",
    "Draaien",
    "Frezen, ontbramen",
    "Poedercoaten RAL 7035",
    "Thermisch verzinken",
    "Lassen, stralen, spuiten",
];
pub const SELECTION_CODES: &[(&str, &str)] = &[
    ("SPOED", "Spoedorder"),
    ("PROTO", "Prototype"),
    ("SERVICE", "Service en onderhoud"),
    ("EXPORT", "Export"),
    ("VOORRAAD", "Voorraadorder"),
    ("KLANT", "Klantspecifiek"),
];
