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
import json
import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_PORT = 8000
#: Seconds to wait for the default local port (connection refused is immediate).
PROBE_TIMEOUT_S = 0.5
LOCAL_TOKEN_FILE = ("server", "cli-token")


class LocalConfig:
    """What the forwarding decision needs from the settings, read cheaply.
    (Plain classes here, not dataclasses: their import costs a one-shot ask ~20 ms.)"""

    __slots__ = ("server_url", "port", "data_dir", "store_identity", "token")

    def __init__(self, server_url: str | None, port: int, data_dir: Path, store_identity: str,
                 token: str | None) -> None:
        self.server_url, self.port, self.data_dir = server_url, port, data_dir
        self.store_identity, self.token = store_identity, token


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


class HTTPError(OSError):
    """The server's answer could not be read as HTTP."""


def _request(scheme: str, host: str, port: int, method: str, path: str, *, body: bytes | None = None,
             headers: dict[str, str] | None = None, timeout: float = 300.0) -> tuple[int, bytes]:
    """One HTTP/1.1 request, ``Connection: close``: (status, body). Plain sockets for
    http (``http.client`` and its ``email`` imports cost a one-shot ask ~60 ms);
    ``http.client`` for https."""
    headers = dict(headers or {})
    if body is not None:
        headers["Content-Type"] = headers.get("Content-Type", "application/json")
    if scheme == "https":
        import http.client

        conn = http.client.HTTPSConnection(host, port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        except http.client.HTTPException as exc:
            raise HTTPError(str(exc)) from exc
        finally:
            conn.close()
    head = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close", "Accept: application/json",
            f"Content-Length: {len(body or b'')}"] + [f"{k}: {v}" for k, v in headers.items()]
    # An ASCII host as bytes: a str one makes getaddrinfo import the idna codec (~20 ms).
    address = host.encode("ascii") if host.isascii() else host
    with socket.create_connection((address, port), timeout=timeout) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (body or b""))
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    header_end = raw.find(b"\r\n\r\n")
    if header_end < 0:
        raise HTTPError("incomplete HTTP response")
    lines = raw[:header_end].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise HTTPError(f"not an HTTP response: {lines[0][:80]!r}")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    content = raw[header_end + 4:]
    if "chunked" in fields.get("transfer-encoding", "").lower():
        content = _dechunk(content)
    elif fields.get("content-length", "").isdigit():
        length = int(fields["content-length"])
        if len(content) < length:
            raise HTTPError("HTTP response shorter than its Content-Length")
        content = content[:length]
    return int(parts[1]), content


def _dechunk(data: bytes) -> bytes:
    out, i = [], 0
    while True:
        line_end = data.find(b"\r\n", i)
        if line_end < 0:
            raise HTTPError("bad chunked HTTP body")
        size = int(data[i:line_end].split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return b"".join(out)
        out.append(data[line_end + 2:line_end + 2 + size])
        i = line_end + 2 + size + 2


class Server:
    __slots__ = ("host", "port", "token", "scheme")

    def __init__(self, host: str, port: int, token: str, scheme: str = "http") -> None:
        self.host, self.port, self.token, self.scheme = host, port, token, scheme

    def post(self, path: str, payload: dict, timeout: float = 300.0) -> tuple[int, bytes]:
        return _request(self.scheme, self.host, self.port, "POST", path, body=json.dumps(payload).encode("utf-8"),
                        headers={"Authorization": f"Bearer {self.token}"}, timeout=timeout)


def _health(scheme: str, host: str, port: int, timeout: float) -> dict | None:
    try:
        status, body = _request(scheme, host, port, "GET", "/api/health", timeout=timeout)
        if status != 200:
            return None
        data = json.loads(body)
        return data if isinstance(data, dict) and data.get("service") == "sqlgenie" else None
    except (OSError, ValueError):
        return None


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


def terminal_style(environ: dict[str, str] | None = None) -> dict:
    """How rich would print to this process's stdout (its rules, without importing it):
    ``width``, ``terminal``, ``color_system`` (None, "standard", "256", "truecolor") and
    ``no_color``. The server renders the answer with them, so a forwarded ``ask``
    prints what a local one would, without loading rich, typer or pygments here."""
    import sys

    env = os.environ if environ is None else environ
    tty_compatible = env.get("TTY_COMPATIBLE", "")
    if tty_compatible in ("0", "1"):
        terminal = tty_compatible == "1"
    elif env.get("FORCE_COLOR") is not None:
        terminal = env.get("FORCE_COLOR") != ""
    else:
        try:
            terminal = sys.stdout.isatty()
        except (AttributeError, ValueError):
            terminal = False
    dumb = terminal and env.get("TERM", "").strip().lower() in ("dumb", "unknown")
    width = 0
    if not dumb:
        for fd in (0, 1, 2):
            try:
                width = os.get_terminal_size(fd).columns
                break
            except (AttributeError, ValueError, OSError):
                continue
        columns = env.get("COLUMNS")
        if columns is not None and columns.isdigit():
            width = int(columns)
    color_system = None
    if terminal and not dumb:
        if env.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
            color_system = "truecolor"
        else:
            colors = env.get("TERM", "").strip().lower().rpartition("-")[2]
            color_system = {"kitty": "256", "256color": "256"}.get(colors, "standard")
    return {"width": width or 80, "terminal": terminal, "color_system": color_system,
            "no_color": env.get("NO_COLOR", "") != ""}


class AskArgs:
    __slots__ = ("question", "as_json", "explain", "execute", "route", "limit")

    def __init__(self, question: str, as_json: bool = False, explain: bool = False, execute: bool = True,
                 route: str = "auto", limit: int | None = None) -> None:
        self.question, self.as_json, self.explain = question, as_json, explain
        self.execute, self.route, self.limit = execute, route, limit

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AskArgs) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "AskArgs(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


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
