"""``sqlgenie ask`` through a running server: the forwarding client (standard
library only, so a one-shot ``ask`` does not pay for the model, psycopg or pydantic).

A server is used when ``SQLGENIE_SERVER_URL`` names one, or when the default local
port (``SQLGENIE_SERVER_PORT``, 8000) answers ``/api/health`` as SQLGenie *on the
same store* as this shell's settings. The token is ``SQLGENIE_TOKEN``, else the
local CLI token the server keeps in the data directory (readable only by its
owner, who can read the store anyway). ``SQLGENIE_SERVER_URL=off`` never forwards.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_PORT = 8000
#: Seconds to wait for the default local port (connection refused is immediate).
PROBE_TIMEOUT_S = 0.5
LOCAL_TOKEN_FILE = ("server", "cli-token")


@dataclass(frozen=True)
class LocalConfig:
    """What the forwarding decision needs from the settings, read cheaply."""

    server_url: str | None
    port: int
    data_dir: Path
    store_identity: str
    token: str | None


def _config_file_present() -> bool:
    return "SQLGENIE_CONFIG" in os.environ or Path("sqlgenie.toml").is_file()


def local_config() -> LocalConfig:
    """From the environment alone; with a config file (``sqlgenie.toml``), from the
    full settings (slower, but the file may move the store or the server)."""
    if _config_file_present():
        from sqlgenie.config import get_settings
        from sqlgenie.server.state import store_identity

        s = get_settings()
        return LocalConfig(s.server_url, s.server_port, s.data_dir, store_identity(s), os.environ.get("SQLGENIE_TOKEN"))
    env = os.environ
    raw_dir = env.get("SQLGENIE_DATA_DIR")
    if raw_dir:
        data_dir = Path(raw_dir).expanduser()
    else:
        import platformdirs

        data_dir = Path(platformdirs.user_data_dir("sqlgenie", appauthor=False))
    url = env.get("SQLGENIE_DATABASE_URL")
    identity = ("url:" + hashlib.sha256(url.encode()).hexdigest()[:16]) if url else \
        ("embedded:" + str(data_dir.resolve()))
    try:
        port = int(env.get("SQLGENIE_SERVER_PORT", DEFAULT_PORT))
    except ValueError:
        port = DEFAULT_PORT
    return LocalConfig(env.get("SQLGENIE_SERVER_URL"), port, data_dir, identity, env.get("SQLGENIE_TOKEN"))


def local_token_path(data_dir: Path) -> Path:
    return data_dir.joinpath(*LOCAL_TOKEN_FILE)


@dataclass(frozen=True)
class Server:
    host: str
    port: int
    token: str
    scheme: str = "http"

    def post(self, path: str, payload: dict, timeout: float = 300.0) -> tuple[int, bytes]:
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        conn = cls(self.host, self.port, timeout=timeout)
        try:
            conn.request("POST", path, body=json.dumps(payload),
                         headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()


def _health(scheme: str, host: str, port: int, timeout: float) -> dict | None:
    cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    conn = cls(host, port, timeout=timeout)
    try:
        conn.request("GET", "/api/health")
        resp = conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            return None
        data = json.loads(body)
        return data if isinstance(data, dict) and data.get("service") == "sqlgenie" else None
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        conn.close()


def find_server(config: LocalConfig | None = None) -> Server | None:
    """The server to forward to, or None (answer locally)."""
    config = config or local_config()
    explicit = (config.server_url or "").strip()
    if explicit.lower() in ("off", "none", "0", "false", "no"):
        return None
    token = config.token
    if token is None:
        try:
            token = local_token_path(config.data_dir).read_text(encoding="utf-8").strip() or None
        except OSError:
            token = None
    if explicit:
        parts = urlsplit(explicit if "://" in explicit else f"http://{explicit}")
        scheme = parts.scheme or "http"
        host, port = parts.hostname or "127.0.0.1", parts.port or (443 if scheme == "https" else 80)
        health = _health(scheme, host, port, timeout=3.0)
        if health is None or token is None:
            return None
        return Server(host, port, token, scheme)
    if token is None:
        return None  # no local server has run on this data directory
    health = _health("http", "127.0.0.1", config.port, timeout=PROBE_TIMEOUT_S)
    if health is None or health.get("store") != config.store_identity:
        return None  # nothing there, or a server on another store
    return Server("127.0.0.1", config.port, token)


@dataclass
class AskArgs:
    question: str
    as_json: bool = False
    explain: bool = False
    execute: bool = True
    route: str = "auto"
    limit: int | None = None


def parse_ask_args(argv: list[str]) -> AskArgs | None:
    """``ask`` arguments when they are plain and valid; None otherwise (the full
    CLI then parses them, with its help and error messages)."""
    question: str | None = None
    out = AskArgs(question="")
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if arg == "--json":
            out.as_json = True
        elif arg == "--explain":
            out.explain = True
        elif arg == "--no-execute":
            out.execute = False
        elif name in ("--route", "--limit"):
            if not eq:
                i += 1
                if i >= len(argv):
                    return None
                value = argv[i]
            if name == "--route":
                if value not in ("auto", "match", "think"):
                    return None
                out.route = value
            else:
                if not value.isdigit() or int(value) < 1:
                    return None
                out.limit = int(value)
        elif arg == "--":
            rest = argv[i + 1:]
            if question is not None or len(rest) != 1:
                return None
            question = rest[0]
            break
        elif arg.startswith("-") and arg != "-":
            return None  # --help and anything unknown: the full CLI
        else:
            if question is not None:
                return None
            question = arg
        i += 1
    if question is None or not question.strip():
        return None
    out.question = question
    return out
