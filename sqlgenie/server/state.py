"""What one server process holds for its lifetime: the settings, a store connection
pool, a few warm askers (the ``Asker`` is not thread-safe: each is used by one
request at a time), the embedding model, the token cache and the rate limiter."""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import psycopg

from sqlgenie.config import Settings
from sqlgenie.server.users import User, hash_token, user_for_token

#: Seconds a token's user is cached (a removed user is refused at most this late).
TOKEN_CACHE_SECONDS = 30.0


def store_identity(settings: Settings) -> str:
    """What tells two processes apart that use different stores: the embedded data
    directory, or a hash of the external store URL (never the URL: it may hold a password)."""
    if settings.database_url is None:
        return "embedded:" + str(settings.data_dir.expanduser().resolve())
    return "url:" + hashlib.sha256(settings.database_url.get_secret_value().encode()).hexdigest()[:16]


class AskerPool:
    """``size`` long-lived askers, each with its own store connection; a request
    checks one out for the duration of one ask. :meth:`invalidate` (after bank or
    catalog changes) makes each asker refresh before its next ask."""

    def __init__(self, settings: Settings, store_url: str, size: int, **asker_kwargs: Any) -> None:
        from sqlgenie.inference.pipeline import Asker
        from sqlgenie.store.connection import open_connection

        # Last in, first out: the asker used last (its PostgreSQL backends and caches still
        # warm) takes the next ask; under light load one or two askers do all the work.
        self._free: queue.LifoQueue = queue.LifoQueue()
        self._all: list[Any] = []
        self._generation = 0
        self._seen: dict[int, int] = {}  # asker -> the generation it last refreshed at
        for _ in range(size):
            conn = open_connection(store_url, autocommit=True)
            # The askers' store connections write only the ask log: its commits need not
            # wait for the WAL flush (~5 ms of an ask). A PostgreSQL crash may lose the last
            # fraction of a second of log entries, never corrupt them; feedback, review and
            # bank writes use the pool (``ServerState.store``), fully durable.
            conn.execute("SET synchronous_commit = off")
            asker = Asker(settings, store=conn, **asker_kwargs)
            self._all.append(asker)
            self._seen[id(asker)] = 0
            self._free.put(asker)

    @property
    def size(self) -> int:
        return len(self._all)

    def invalidate(self) -> None:
        self._generation += 1

    @contextmanager
    def checkout(self, timeout: float = 60.0) -> Iterator[Any]:
        try:
            asker = self._free.get(timeout=timeout)
        except queue.Empty:
            from sqlgenie.errors import SqlGenieError

            raise SqlGenieError("The server is busy: no asker became free in time.", hint="Retry in a moment.") from None
        try:
            if self._seen[id(asker)] != self._generation:
                generation = self._generation
                asker.refresh()
                self._seen[id(asker)] = generation
            yield asker
        finally:
            self._free.put(asker)

    def close(self) -> None:
        for asker in self._all:
            store = asker.store
            asker.close()
            if not store.closed:
                store.close()
        self._all.clear()


class RateLimiter:
    """At most ``per_minute`` requests per token in any 60-second window (a token
    bucket refilled continuously; 0 disables it)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> tuple[bool, float]:
        """(allowed, seconds until the next request would be allowed)."""
        if self.per_minute <= 0:
            return True, 0.0
        rate = self.per_minute / 60.0
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return False, (1.0 - tokens) / rate
            self._buckets[key] = (tokens - 1.0, now)
            return True, 0.0


class ServerState:
    """Opened once by the app's lifespan; closed on shutdown."""

    def __init__(self, settings: Settings, *, askers: int | None = None, warm_model: bool = True) -> None:
        from sqlgenie.store.connection import store_pool, store_url, target_url

        self.settings = settings
        self.store_url = store_url(settings)
        self.target_url = target_url(settings)
        self.identity = store_identity(settings)
        size = askers or settings.server_askers
        self.pool = store_pool(settings, min_size=1, max_size=size + 6)
        self.askers = AskerPool(settings, self.store_url, size)
        self.limiter = RateLimiter(settings.server_rate_limit_per_minute)
        self._tokens: dict[str, tuple[User | None, float]] = {}
        self._tokens_lock = threading.Lock()
        self.started = time.time()
        self.local_token_file = self._write_local_token()
        if warm_model:
            self.encode(["warm up"])  # load the embedding model now, not on the first novel question

    # --- library plumbing ---------------------------------------------------------------

    def encode(self, texts: list[str]):
        from example_bank.embedder import get_embedder

        return get_embedder(self.settings.embedding_model).encode(texts)

    @contextmanager
    def store(self) -> Iterator[psycopg.Connection]:
        """A pooled store connection; committed when the block succeeds."""
        with self.pool.connection() as conn:
            yield conn

    @contextmanager
    def store_and_target(self) -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
        with self.store() as store:
            if self.target_url == self.store_url:
                yield store, store
                return
            from sqlgenie.store.connection import open_connection

            with open_connection(self.target_url, autocommit=True) as target:
                yield store, target

    def _write_local_token(self):
        """A token for `sqlgenie ask` on this machine (user ``local-cli``, asker), in a
        file of the data directory only its owner can read (:mod:`.client` reads it)."""
        import os

        from sqlgenie.server.client import local_token_path
        from sqlgenie.server.users import add_user, user_for_token

        path = local_token_path(self.settings.data_dir)
        try:
            known = path.read_text(encoding="utf-8").strip()
        except OSError:
            known = ""
        with self.store() as store:
            if known and user_for_token(store, known) is not None:
                return path
            store.execute("UPDATE sqlgenie.user_tokens SET revoked_at = now() WHERE revoked_at IS NULL AND user_id IN"
                          " (SELECT id FROM sqlgenie.users WHERE name = 'local-cli')")
            _, token = add_user(store, "local-cli", "asker")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(token)
        return path

    # --- auth -----------------------------------------------------------------------------

    def user_for(self, token: str) -> User | None:
        key = hash_token(token)
        now = time.monotonic()
        with self._tokens_lock:
            hit = self._tokens.get(key)
            if hit is not None and hit[1] > now:
                return hit[0]
        with self.store() as store:
            user = user_for_token(store, token)
            if user is not None:
                store.execute("UPDATE sqlgenie.user_tokens SET last_used_at = now() WHERE token_sha256 = %s", (key,))
        with self._tokens_lock:
            self._tokens[key] = (user, now + TOKEN_CACHE_SECONDS)
        return user

    def forget_tokens(self) -> None:
        with self._tokens_lock:
            self._tokens.clear()

    def close(self) -> None:
        self.askers.close()
        self.pool.close()
