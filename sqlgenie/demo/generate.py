"""Deterministic row generators for the demo warehouse.

Everything derives from ``(scale, seed)`` through :class:`DemoPlan`. Each table
(and each chunk of the large tables) draws from its own ``numpy`` generator seeded
by ``SeedSequence([seed, stream, chunk])``, so the output does not depend on how
the rows are consumed. Chunk sizes are constants: changing them changes the data.

Small tables (regions, stores, products, customers) are built as Python tuples;
orders and order items are built as numpy arrays and encoded to COPY text in
chunks by :mod:`sqlgenie.demo.encode`.
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from sqlgenie.demo import encode, vocab

START_DATE = dt.date(2023, 1, 1)
END_DATE = dt.date(2025, 12, 31)
N_DAYS = (END_DATE - START_DATE).days + 1  # 1096
YEARS = (2023, 2024, 2025)
YEAR_PRICE_FACTOR = (1.0, 1.03, 1.065)

from sqlgenie.demo.constants import DEFAULT_SCALE, DEFAULT_SEED, MAX_SCALE, MIN_SCALE  # noqa: E402,F401

ORDERS_PER_CHUNK = 100_000  # fixed: part of the data definition (see module docstring)

# Seed streams (one per table / purpose).
_S_STORES, _S_PRODUCTS, _S_CUSTOMERS, _S_ORDERS, _S_ITEMS = 1, 2, 3, 4, 5


def _rng(seed: int, stream: int, *extra: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, stream, *extra]))


def _weights(pairs: Sequence[tuple[object, float]]) -> tuple[list, np.ndarray]:
    values = [v for v, _ in pairs]
    w = np.array([float(x) for _, x in pairs])
    return values, w / w.sum()


def _pick(rng: np.random.Generator, pairs: Sequence[tuple[object, float]]):
    values, p = _weights(pairs)
    return values[int(rng.choice(len(values), p=p))]


# --- plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DemoPlan:
    """Row counts for one ``(scale, seed)``; ``scale`` is the number of order items."""

    scale: int
    seed: int
    n_regions: int
    n_stores: int
    n_products: int
    n_customers: int
    n_orders: int
    n_order_items: int

    def counts(self) -> dict[str, int]:
        return {
            "regions": self.n_regions,
            "stores": self.n_stores,
            "products": self.n_products,
            "customers": self.n_customers,
            "orders": self.n_orders,
            "order_items": self.n_order_items,
        }


def make_plan(scale: int, seed: int) -> DemoPlan:
    """Sizes of every table (validated by the caller, see ``load.validate``)."""
    decades = math.log10(scale / 10_000)  # 0 at 10k, 3 at 10M
    n_stores = int(round(min(200, max(60, 60 + 140 * decades / 3))))
    n_products = int(round(min(3000, max(200, 300 * 2**decades))))
    n_customers = int(min(200_000, max(200, scale // 50)))
    n_orders = int(round(scale / 2.5))
    return DemoPlan(scale, seed, len(vocab.REGIONS), n_stores, n_products, n_customers, n_orders, scale)


# --- calendar ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Calendar:
    dates: list[dt.date]
    year_idx: np.ndarray  # 0..2
    order_weight: np.ndarray  # relative number of orders per day (sums to 1)
    p_online: np.ndarray  # share of online orders per day
    p_discount: np.ndarray  # chance that an order line is discounted


def _thanksgiving(year: int) -> dt.date:
    nov1 = dt.date(year, 11, 1)
    first_thu = nov1 + dt.timedelta(days=(3 - nov1.weekday()) % 7)
    return first_thu + dt.timedelta(weeks=3)


_MONTH_FACTOR = {1: 0.80, 2: 0.82, 3: 0.92, 4: 0.95, 5: 1.0, 6: 0.98, 7: 1.0, 8: 1.05, 9: 0.95,
                 10: 1.0, 11: 1.35, 12: 1.65}
_DOW_FACTOR = (0.95, 0.92, 0.95, 1.0, 1.08, 1.2, 1.05)  # Monday first


def calendar() -> Calendar:
    dates = [START_DATE + dt.timedelta(days=i) for i in range(N_DAYS)]
    weight = np.empty(N_DAYS)
    p_online = np.empty(N_DAYS)
    p_disc = np.empty(N_DAYS)
    special: dict[dt.date, tuple[float, float | None, float]] = {}
    for year in YEARS:
        tg = _thanksgiving(year)
        special[tg] = (0.6, 0.95, 0.35)  # stores closed
        special[tg + dt.timedelta(days=1)] = (2.8, None, 0.7)  # Black Friday
        special[tg + dt.timedelta(days=4)] = (2.2, 0.85, 0.7)  # Cyber Monday
        special[dt.date(year, 12, 25)] = (0.3, 0.95, 0.2)
        special[dt.date(year, 12, 26)] = (1.4, None, 0.35)
        special[dt.date(year, 1, 1)] = (0.5, 0.95, 0.2)
        special[dt.date(year, 7, 11)] = (1.5, 0.8, 0.4)  # mid-summer online sale
        special[dt.date(year, 7, 12)] = (1.4, 0.8, 0.4)
    for i, d in enumerate(dates):
        w = 1.12 ** (i / 365.0) * _MONTH_FACTOR[d.month] * _DOW_FACTOR[d.weekday()]
        po = 0.48 + 0.14 * i / N_DAYS
        pd = 0.12
        if d.month == 11 and d.day >= 20:
            pd = 0.45
        elif d.month == 12:
            pd = 0.25 if d.day <= 24 else 0.35
        elif d.month == 1:
            pd = 0.2
        if d in special:
            factor, online, disc = special[d]
            w *= factor
            po = online if online is not None else po
            pd = disc
        weight[i], p_online[i], p_disc[i] = w, po, pd
    year_idx = np.array([d.year - YEARS[0] for d in dates], dtype=np.int64)
    return Calendar(dates, year_idx, weight / weight.sum(), p_online, p_disc)


# --- regions and stores ---------------------------------------------------------------------


def region_rows() -> list[tuple]:
    return [tuple(r) for r in vocab.REGIONS]


@dataclass
class Stores:
    rows: list[tuple]  # (store_id, store_name, store_type, city, state, country, region_id, opened_date, sq_ft)
    fc_by_region: np.ndarray  # region_id -> store_id of its fulfillment center (index 0 unused)
    city_table: np.ndarray  # city index -> padded store ids (physical stores of the city)
    city_counts: np.ndarray
    region_table: np.ndarray  # region_id -> padded store ids (physical)
    region_counts: np.ndarray
    physical_ids: np.ndarray


def stores(plan: DemoPlan) -> Stores:
    rng = _rng(plan.seed, _S_STORES)
    n_fc = len(vocab.FULFILLMENT_CENTERS)
    n_physical = plan.n_stores - n_fc
    n_cities = len(vocab.CITIES)
    city_w = np.array([c[4] for c in vocab.CITIES], dtype=float)
    # every city gets one store; the rest follow population
    extra = rng.choice(n_cities, size=n_physical - n_cities, p=city_w / city_w.sum())
    per_city = np.bincount(extra, minlength=n_cities) + 1
    type_values, type_p = _weights(vocab.STORE_TYPES_PHYSICAL)
    sq_ft_range = {"street": (2500, 8000), "mall": (4000, 12000), "outlet": (6000, 15000),
                   "flagship": (20000, 40000), "fulfillment center": (250000, 800000)}
    rows: list[tuple] = []
    by_city: list[list[int]] = [[] for _ in range(n_cities)]
    by_region: dict[int, list[int]] = {r[0]: [] for r in vocab.REGIONS}
    for ci, (city, state, country, region_id, _w) in enumerate(vocab.CITIES):
        descriptors = list(rng.permutation(vocab.STORE_DESCRIPTORS))
        for k in range(int(per_city[ci])):
            store_id = len(rows) + 1
            desc = descriptors[k % len(descriptors)] + ("" if k < len(descriptors) else f" {k // len(descriptors) + 1}")
            stype = type_values[int(rng.choice(len(type_values), p=type_p))]
            opened = dt.date(1998, 1, 1) + dt.timedelta(days=int(rng.integers(0, 365 * 25)))
            lo, hi = sq_ft_range[stype]
            sq_ft = int(rng.integers(lo, hi) // 100 * 100)
            rows.append((store_id, f"{city} {desc}", stype, city, state, country, region_id, opened, sq_ft))
            by_city[ci].append(store_id)
            by_region[region_id].append(store_id)
    fc_by_region = np.zeros(len(vocab.REGIONS) + 1, dtype=np.int64)
    for region_id, city, state, country in vocab.FULFILLMENT_CENTERS:
        store_id = len(rows) + 1
        name = f"Online Fulfillment Center {city}"
        opened = dt.date(2010, 1, 1) + dt.timedelta(days=int(rng.integers(0, 365 * 12)))
        lo, hi = sq_ft_range["fulfillment center"]
        rows.append((store_id, name, "fulfillment center", city, state, country, region_id, opened,
                     int(rng.integers(lo, hi) // 1000 * 1000)))
        fc_by_region[region_id] = store_id

    def padded(groups: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        width = max(len(g) for g in groups)
        table = np.zeros((len(groups), width), dtype=np.int64)
        for i, g in enumerate(groups):
            table[i, : len(g)] = g
        return table, np.array([len(g) for g in groups], dtype=np.int64)

    city_table, city_counts = padded(by_city)
    # row index = region_id (row 0 is an unused placeholder)
    region_groups = [[1]] + [by_region[r[0]] for r in vocab.REGIONS]
    region_table, region_counts = padded(region_groups)
    physical = np.arange(1, n_physical + 1, dtype=np.int64)
    return Stores(rows, fc_by_region, city_table, city_counts, region_table, region_counts, physical)


# --- products -----------------------------------------------------------------------------


@dataclass
class Products:
    rows: list[tuple]  # (product_id, sku, product_name, brand, category, size, list_price, unit_cost)
    list_cents: np.ndarray
    qty_p: np.ndarray
    popularity: np.ndarray  # probability of being chosen for an order line

    def price_table(self) -> np.ndarray:
        """Unit price in cents per (product index, year index): yearly increases keep the cents."""
        out = np.empty((len(self.list_cents), len(YEARS)), dtype=np.int64)
        for y, f in enumerate(YEAR_PRICE_FACTOR):
            raised = np.floor(self.list_cents * f).astype(np.int64)
            out[:, y] = np.maximum(raised - raised % 100 + self.list_cents % 100, self.list_cents)
        return out


@dataclass
class _Line:
    family: dict
    brand: str | None
    category: str
    name_template: str  # already filled except {size}
    sizes: list[str | None] = field(default_factory=list)


def _fill(rng: np.random.Generator, template: str) -> str:
    return template.format_map(_Lazy(rng, vocab.COLORS))


class _Lazy(dict):
    """format_map source drawing placeholder values on demand ({size} is kept)."""

    def __init__(self, rng: np.random.Generator, colors) -> None:
        super().__init__()
        self.rng, self.colors = rng, colors

    def __missing__(self, key: str) -> str:
        r = self.rng
        if key == "n3":
            return str(int(r.integers(2, 31)) * 50)
        if key == "n2":
            return str(int(r.integers(10, 100)))
        if key == "d":
            return str(int(r.integers(1, 10)))
        if key == "letter":
            return chr(65 + int(r.integers(0, 26)))
        if key == "color":
            return _pick(r, self.colors)
        if key == "size":
            return "{size}"
        raise KeyError(key)


def _family(key: str) -> dict:
    return next(f for f in vocab.FAMILIES if f["key"] == key)


def _line_sizes(rng: np.random.Generator, family: dict, template: str, anchor: bool) -> list[str | None]:
    options = family.get("template_sizes", {}).get(template, family.get("sizes"))
    if not options:
        return [None]
    values, p = _weights(options)
    if family["key"] == "apparel" and len(values) > 1:
        k = int(rng.integers(2, len(values) + 1))
    else:
        k = int(rng.integers(1, min(3, len(values)) + 1))
    if anchor:
        k = 1
    chosen = set(int(i) for i in rng.choice(len(values), size=k, replace=False, p=p))
    return [values[i] for i in sorted(chosen)]


def _random_line(rng: np.random.Generator, family: dict, brand_key: str | None = None,
                 brand: str | None = "", category: str | None = None, anchor: bool = False) -> _Line:
    if brand_key is None:
        brand_key = _pick(rng, family["brands"])
    if brand == "":
        brand = _pick(rng, vocab.BRANDS[brand_key])
    if category is None:
        category = _pick(rng, family["labels"])
    templates = family["templates"]
    template = templates[int(rng.integers(0, len(templates)))]
    sizes = _line_sizes(rng, family, template, anchor)
    return _Line(family, brand, category, _fill(rng, template), sizes)


def products(plan: DemoPlan) -> Products:
    rng = _rng(plan.seed, _S_PRODUCTS)
    anchors: list[_Line] = []
    # Featured products: fixed names (docs and demos may rely on them).
    for fam_key, brand, category, name, size in vocab.FEATURED_PRODUCTS:
        anchors.append(_Line(_family(fam_key), brand, category, name, [size]))
    # Every brand spelling and every category label appears at least once.
    seen_brands = {a.brand for a in anchors}
    seen_labels = {(a.family["key"], a.category) for a in anchors}
    for brand_key, spellings in vocab.BRANDS.items():
        fams = [f for f in vocab.FAMILIES if brand_key in dict(f["brands"])]
        for i, (spelling, _w) in enumerate(spellings):
            if spelling in seen_brands:
                continue
            fam = fams[i % len(fams)]
            anchors.append(_random_line(rng, fam, brand_key, spelling, anchor=True))
            seen_brands.add(spelling)
            seen_labels.add((fam["key"], anchors[-1].category))
    for fam in vocab.FAMILIES:
        for label, _w in fam["labels"]:
            if (fam["key"], label) not in seen_labels:
                anchors.append(_random_line(rng, fam, category=label, anchor=True))
    total = sum(len(a.sizes) for a in anchors)
    if total > plan.n_products:  # cannot happen for n_products >= 200; keep it exact anyway
        raise ValueError("too few products for the anchor catalog")
    fam_values, fam_p = _weights([(f, f["weight"]) for f in vocab.FAMILIES])
    extra: list[_Line] = []
    while total < plan.n_products:
        fam = fam_values[int(rng.choice(len(fam_values), p=fam_p))]
        line = _random_line(rng, fam)
        line.sizes = line.sizes[: plan.n_products - total]
        extra.append(line)
        total += len(line.sizes)
    lines = anchors + extra
    order = rng.permutation(len(lines))
    rows: list[tuple] = []
    list_cents: list[int] = []
    qty_p: list[float] = []
    for line_no, idx in enumerate(order, start=1):
        line = lines[int(idx)]
        fam = line.family
        lo, hi = fam["price"]
        base = math.exp(rng.uniform(math.log(lo), math.log(hi)))
        ending = _pick(rng, [(99, 7), (49, 1.5), (0, 1.5)])
        margin = rng.uniform(0.35, 0.7)
        for size in line.sizes:
            price = base * fam.get("size_price", {}).get(size, 1.0)
            cents = max(int(price) * 100 + ending, 99)
            cost = int(round(cents * margin))
            product_id = len(rows) + 1
            name = line.name_template.replace("{size}", size or "").strip()
            size_code = "" if size is None else "-" + "".join(ch for ch in size.upper() if ch.isalnum())
            sku = f"{fam['code']}{line_no:04d}{size_code}"
            rows.append((product_id, sku, name, line.brand, line.category, size,
                         f"{cents // 100}.{cents % 100:02d}", f"{cost // 100}.{cost % 100:02d}"))
            list_cents.append(cents)
            qty_p.append(fam["qty_p"])
    n = len(rows)
    ranks = rng.permutation(n) + 1
    pop = 1.0 / (ranks + 8.0) ** 1.05  # Zipf-like: a few best sellers (~2 % of lines each), a long tail
    return Products(rows, np.array(list_cents, dtype=np.int64), np.array(qty_p), pop / pop.sum())


# --- customers ----------------------------------------------------------------------------


@dataclass
class Customers:
    rows: list[tuple]  # (cust_id, first_name, last_name, email, city, state, country, segment, signup_date)
    city_idx: np.ndarray
    region_id: np.ndarray
    segment: np.ndarray  # index into vocab.SEGMENTS
    signup_day: np.ndarray  # days since START_DATE (negative: before the range)
    cum_weight: np.ndarray  # cumulative ordering activity (for weighted sampling by prefix)


_FOLD = str.maketrans({"ß": "ss", "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE",
                       "đ": "d", "ı": "i", "'": "", " ": "", "-": "", ".": ""})


def _ascii(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(ch for ch in folded if ch.isascii() and ch.isalnum()).lower()


def customers(plan: DemoPlan) -> Customers:
    rng = _rng(plan.seed, _S_CUSTOMERS)
    n = plan.n_customers
    city_w = np.array([c[4] for c in vocab.CITIES], dtype=float)
    city_idx = rng.choice(len(vocab.CITIES), size=n, p=city_w / city_w.sum())
    seg_values, seg_p = _weights(vocab.SEGMENTS)
    segment = rng.choice(len(seg_values), size=n, p=seg_p)
    # 55% were customers before 2023; the rest sign up during the range, more each year.
    early = rng.random(n) < 0.55
    before = rng.integers(-4 * 365, 0, size=n)
    during = np.floor(N_DAYS * np.sqrt(rng.random(n))).astype(np.int64)
    signup_day = np.where(early, before, during)
    signup_day[: min(n, 50)] = np.minimum(signup_day[: min(n, 50)], -1)  # someone can order on day 0
    order = np.argsort(signup_day, kind="stable")  # cust_id follows signup order
    city_idx, segment, signup_day = city_idx[order], segment[order], signup_day[order]
    activity = rng.lognormal(0.0, 0.9, size=n) * np.array([1.0, 1.5, 2.0])[segment]
    signup = [START_DATE + dt.timedelta(days=d) for d in signup_day.tolist()]

    def cumulative(pairs):
        values, p = _weights(pairs)
        return values, list(np.cumsum(p)[:-1])  # bisect into this: index of the drawn value

    cultures = {country: cumulative(w) for country, w in vocab.CULTURES_BY_COUNTRY.items()}
    domains = {k: cumulative(v) for k, v in vocab.EMAIL_DOMAINS.items()}
    city_spellings = {k: cumulative(v) for k, v in vocab.CITY_SPELLINGS.items()}
    country_spellings = {k: cumulative(v) for k, v in vocab.COUNTRY_SPELLINGS.items()}
    folded: dict[str, str] = {}
    rows: list[tuple] = []
    u = rng.random((n, 10)).tolist()
    cities = [vocab.CITIES[i] for i in city_idx.tolist()]
    for i in range(n):
        r = u[i]
        city, state, country, _region, _w = cities[i]
        names, cum = cultures[country]
        firsts, lasts = vocab.NAMES[names[bisect.bisect_right(cum, r[0])]]
        first = firsts[int(r[1] * len(firsts))]
        last = lasts[int(r[2] * len(lasts))]
        if r[3] < 0.02:
            last = last.upper()  # data entry in caps lock
        elif r[3] < 0.03:
            first = first.lower()
        cust_id = i + 1
        seg = seg_values[int(segment[i])]
        # e-mail
        f = folded.get(first) or folded.setdefault(first, _ascii(first))
        l = folded.get(last) or folded.setdefault(last, _ascii(last))
        if not f or not l:
            local = f"customer{cust_id}"
        else:
            style = int(r[4] * 5)
            local = (f"{f}.{l}", f"{f[0]}{l}", f"{f}_{l}", f"{f}{l}{cust_id % 100}", f"{l}.{f}{cust_id % 1000}")[style]
        if seg != "Consumer" and r[5] < 0.7:
            domain = vocab.COMPANY_DOMAINS[int(r[6] * len(vocab.COMPANY_DOMAINS))]
        else:
            values, cum = domains.get(country, domains["default"])
            domain = values[bisect.bisect_right(cum, r[6])]
        email: str | None = f"{local}@{domain}"
        if r[7] < 0.03:
            email = None
        elif r[7] < 0.04:
            email = email.title()  # "John.Smith@Gmail.Com"
        if city in city_spellings:
            values, cum = city_spellings[city]
            city = values[bisect.bisect_right(cum, r[8])]
        if country in country_spellings:
            values, cum = country_spellings[country]
            country = values[bisect.bisect_right(cum, r[9])]
        rows.append((cust_id, first, last, email, city, state, country, seg, signup[i]))
    region_of_city = np.array([c[3] for c in vocab.CITIES], dtype=np.int64)
    return Customers(rows, city_idx, region_of_city[city_idx], segment, signup_day, np.cumsum(activity))


# --- orders -------------------------------------------------------------------------------

STATUSES = ["delivered", "shipped", "cancelled", "returned"]
CHANNELS = ["online", "store"]
_HOURS_ONLINE = np.array([1, .6, .4, .3, .3, .4, .8, 1.5, 2.5, 3, 3.2, 3.4, 3.8, 3.6, 3.3, 3.2, 3.4, 3.8,
                          4.5, 5.2, 5.6, 5, 3.6, 2])
_HOURS_STORE = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3.5, 4.5, 5.5, 5.5, 4.5, 4.5, 5, 6, 6.5, 5.5,
                         3.5, 1.5, 0, 0])
_CORPORATE = [s for s, _ in vocab.SEGMENTS].index("Corporate")


@dataclass
class Orders:
    day: np.ndarray
    second: np.ndarray
    cust_idx: np.ndarray  # 0-based
    store_id: np.ndarray
    channel: np.ndarray  # index into CHANNELS
    status: np.ndarray  # index into STATUSES
    n_items: np.ndarray
    item_offset: np.ndarray  # index of the order's first item
    total_cents: np.ndarray  # filled while the items are generated


def orders(plan: DemoPlan, cal: Calendar, cust: Customers, st: Stores) -> Orders:
    rng = _rng(plan.seed, _S_ORDERS)
    n = plan.n_orders
    day = rng.choice(N_DAYS, size=n, p=cal.order_weight)
    online = rng.random(n) < cal.p_online[day]
    hour = np.where(
        online,
        rng.choice(24, size=n, p=_HOURS_ONLINE / _HOURS_ONLINE.sum()),
        rng.choice(24, size=n, p=_HOURS_STORE / _HOURS_STORE.sum()),
    )
    second = hour * 3600 + rng.integers(0, 3600, size=n)
    order = np.lexsort((second, day))  # order_id follows time
    day, second, online = day[order], second[order], online[order]

    # customer: weighted by activity among those signed up by the order day
    eligible = np.searchsorted(cust.signup_day, day, side="right")
    target = rng.random(n) * cust.cum_weight[eligible - 1]
    cust_idx = np.minimum(np.searchsorted(cust.cum_weight, target, side="right"), eligible - 1)

    # store: online -> the fulfillment center of the customer's region;
    # in store -> mostly the customer's city, sometimes the region, rarely anywhere
    region = cust.region_id[cust_idx]
    city = cust.city_idx[cust_idx]
    u = rng.random(n)
    pick = rng.random(n)
    in_city = st.city_table[city, (pick * st.city_counts[city]).astype(np.int64)]
    in_region = st.region_table[region, (pick * st.region_counts[region]).astype(np.int64)]
    anywhere = st.physical_ids[(pick * len(st.physical_ids)).astype(np.int64)]
    physical = np.where(u < 0.75, in_city, np.where(u < 0.93, in_region, anywhere))
    store_id = np.where(online, st.fc_by_region[region], physical)

    # status
    recent = day >= N_DAYS - 10
    s = rng.random(n)
    status = np.full(n, 0, dtype=np.int64)  # delivered
    old_online = online & ~recent
    status[old_online & (s < 0.08)] = 3  # returned
    status[old_online & (s >= 0.08) & (s < 0.14)] = 2  # cancelled
    status[old_online & (s >= 0.14) & (s < 0.145)] = 1  # stuck in shipping
    new_online = online & recent
    status[new_online & (s < 0.72)] = 1
    status[new_online & (s >= 0.72) & (s < 0.80)] = 2
    status[~online & (s < 0.06)] = 3

    # items per order: heavy-tailed basket sizes, larger for corporate customers
    basket = rng.gamma(0.7, size=n) * np.where(cust.segment[cust_idx] == _CORPORATE, 1.8, 1.0)
    extra = rng.choice(n, size=plan.n_order_items - n, p=basket / basket.sum())
    n_items = np.bincount(extra, minlength=n) + 1
    item_offset = np.concatenate(([0], np.cumsum(n_items)[:-1]))
    return Orders(day, second, cust_idx, store_id, np.where(online, 0, 1), status, n_items, item_offset,
                  np.zeros(n, dtype=np.int64))


def _timestamps(days: np.ndarray, seconds: np.ndarray, date_vocab: list[str]) -> encode.Field:
    h, rem = np.divmod(seconds, 3600)
    m, s = np.divmod(rem, 60)
    n = len(days)
    return encode.concat(
        encode.vocabulary(days, date_vocab), encode.literal(n, b" "),
        encode.zero_padded(h, 2), encode.literal(n, b":"),
        encode.zero_padded(m, 2), encode.literal(n, b":"),
        encode.zero_padded(s, 2),
    )


_DISCOUNTS = np.array([5, 10, 15, 20, 25, 30, 40, 50])
_DISCOUNT_P = np.array([20, 30, 15, 15, 8, 6, 3, 3], dtype=float) / 100.0


def order_item_chunks(plan: DemoPlan, cal: Calendar, o: Orders, prod: Products,
                      cust: Customers) -> Iterator[tuple[bytes, int]]:
    """COPY text of demo.order_items in chunks; fills ``o.total_cents`` as a side effect.

    Columns: order_item_id, order_id, line_no, product_id, qty, unit_price, discount.
    """
    prices = prod.price_table()
    pop_cum = np.cumsum(prod.popularity)
    pop_cum /= pop_cum[-1]
    for chunk, start in enumerate(range(0, plan.n_orders, ORDERS_PER_CHUNK)):
        stop = min(start + ORDERS_PER_CHUNK, plan.n_orders)
        rng = _rng(plan.seed, _S_ITEMS, chunk)
        counts = o.n_items[start:stop]
        local = np.repeat(np.arange(stop - start), counts)
        order_idx = local + start
        m = len(order_idx)
        first = o.item_offset[start]
        line_no = np.arange(m) - (o.item_offset[order_idx] - first) + 1
        product = np.minimum(np.searchsorted(pop_cum, rng.random(m), side="right"), len(pop_cum) - 1)
        qty = np.minimum(rng.geometric(prod.qty_p[product]), 24)
        bulk = (cust.segment[o.cust_idx[order_idx]] == _CORPORATE) & (rng.random(m) < 0.25)
        qty = np.where(bulk, qty * rng.integers(2, 11, size=m), qty)
        day = o.day[order_idx]
        unit_price = prices[product, cal.year_idx[day]]
        discounted = rng.random(m) < cal.p_discount[day]
        discount = np.where(discounted, rng.choice(_DISCOUNTS, size=m, p=_DISCOUNT_P), 0)
        amount = (qty * unit_price * (100 - discount) + 50) // 100
        o.total_cents[start:stop] = np.bincount(local, weights=amount, minlength=stop - start).astype(np.int64)
        data = encode.rows([
            encode.ints(np.arange(first + 1, first + m + 1)),
            encode.ints(order_idx + 1),
            encode.ints(line_no),
            encode.ints(product + 1),
            encode.ints(qty),
            encode.decimals(unit_price, 2),
            encode.decimals(discount, 2),
        ])
        yield data, m


def order_chunks(plan: DemoPlan, cal: Calendar, o: Orders) -> Iterator[tuple[bytes, int]]:
    """COPY text of demo.orders in chunks (after :func:`order_item_chunks` filled the totals).

    Columns: order_id, cust_id, store_id, order_date, status, channel, total_amt.
    """
    date_vocab = [d.isoformat() for d in cal.dates]
    for start in range(0, plan.n_orders, ORDERS_PER_CHUNK):
        stop = min(start + ORDERS_PER_CHUNK, plan.n_orders)
        sl = slice(start, stop)
        data = encode.rows([
            encode.ints(np.arange(start + 1, stop + 1)),
            encode.ints(o.cust_idx[sl] + 1),
            encode.ints(o.store_id[sl]),
            _timestamps(o.day[sl], o.second[sl], date_vocab),
            encode.vocabulary(o.status[sl], STATUSES),
            encode.vocabulary(o.channel[sl], CHANNELS),
            encode.decimals(o.total_cents[sl], 2),
        ])
        yield data, stop - start
