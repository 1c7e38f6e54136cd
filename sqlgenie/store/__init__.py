"""The store: catalog, example bank, query log and jobs in schema ``sqlgenie``."""

from sqlgenie.store.connection import (
    connect_store,
    connect_target,
    open_connection,
    store_pool,
    store_url,
    target_url,
)

__all__ = ["connect_store", "connect_target", "open_connection", "store_pool", "store_url", "target_url"]
