"""The demo retail warehouse: ``sqlgenie demo load`` creates schema ``demo`` in the
target database. Deterministic in ``(scale, seed)``; ``scale`` = number of order items.

Tables and columns (abbreviated names are kept on purpose: onboarding expands them):

- ``regions``     region_id (PK), region_name ('West', 'East', 'North', 'South',
  'Central', 'International'), region_code
- ``stores``      store_id (PK), store_name, store_type ('street', 'mall', 'outlet',
  'flagship', 'fulfillment center'), city, state (US only), country,
  region_id (FK regions), opened_date, ``sq_ft`` (square feet)
- ``products``    product_id (PK), sku (unique), product_name, brand (raw spellings:
  'Rockpot', 'Rockpot LLC', 'Rockpot ロックポット', ...; NULL = unbranded),
  category (near-duplicate labels: 'Headphones', 'Headphone', ...), size (NULL when
  not applicable), list_price, unit_cost
- ``customers``   ``cust_id`` (PK), first_name, last_name, email (some NULL), city and
  country as typed by customers ('München' / 'Munich', 'USA' / 'United States'),
  state, segment ('Consumer', 'Small Business', 'Corporate'), signup_date
- ``orders``      order_id (PK, chronological), ``cust_id`` (FK customers), store_id
  (FK stores; online orders are fulfilled by their region's fulfillment center),
  order_date (timestamp), status ('delivered', 'shipped', 'cancelled', 'returned'),
  channel ('online', 'store'), ``total_amt`` (amount: sum of the order's lines)
- ``order_items`` order_item_id (PK), order_id (FK orders), line_no (unique per
  order), product_id (FK products), ``qty`` (quantity), unit_price, discount
  (fraction: 0.10 = 10 %)

Orders span 2023-01-01 .. 2025-12-31 with growth, weekly and yearly seasonality
(November/December peaks, Black Friday); product popularity is Zipf-like.
Row counts: order_items = scale, orders = scale / 2.5, customers = scale / 50
(200 .. 200,000), products 200 .. 3,000, stores 60 .. 200, regions 6.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from sqlgenie.demo.constants import DEFAULT_SCALE, DEFAULT_SEED, MAX_SCALE, MIN_SCALE

# Exports are resolved lazily so that importing the package (e.g. by the CLI at
# start-up) does not pull in numpy; the first use of a generator or loader does.
_LAZY = {
    "END_DATE": "generate", "START_DATE": "generate", "make_plan": "generate",
    "SCHEMA": "load", "DemoLoadReport": "load", "ProgressCallback": "load", "demo_checksum": "load",
    "demo_summary": "load", "load_demo": "load", "validate": "load",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sqlgenie.demo' has no attribute {name!r}")
    return getattr(import_module(f"sqlgenie.demo.{module}"), name)


__all__ = [
    "DEFAULT_SCALE",
    "DEFAULT_SEED",
    "END_DATE",
    "MAX_SCALE",
    "MIN_SCALE",
    "SCHEMA",
    "START_DATE",
    "DemoLoadReport",
    "ProgressCallback",
    "demo_checksum",
    "demo_summary",
    "load_demo",
    "make_plan",
    "validate",
]
