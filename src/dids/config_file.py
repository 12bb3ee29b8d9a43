"""The gate's configuration: `.dids.toml` or `[tool.dids]` in `pyproject.toml` of the scanned repo.

Both are read from the files of the commit being scored (the git object store, never uncommitted
files), so a gate run is reproducible from the commit alone. `.dids.toml` wins when both exist.
Parsed with tomllib, validated with pydantic; any problem is one InputError line naming the key.

    min_score = 4.0                      # total out of 10.0
    min_criteria = { C4 = 0.30 }         # per-criterion score minimums (0..1)
    min_levels = { "C4.S" = 2 }          # per-dimension level minimums on the counted configuration
    exclude = ["legacy/**", "*_pb2.py"]  # paths the gate leaves out of the scan
    hints = { AGENT_SANDBOX = "nsjail" } # scored-configuration hints: values your deployment sets

    [[waivers]]                          # [[tool.dids.waivers]] in pyproject.toml
    criterion = "C4"
    dimension = "B"
    reason = "accepted-risk"             # accepted-risk | compensating-control | not-applicable | false-positive
    justification = "The runner VM holds no credentials."
    owner = "@alice"
    expires = 2026-12-31
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from .errors import InputError

CONFIG_FILES = (".dids.toml", "pyproject.toml")
REASONS = ("accepted-risk", "compensating-control", "not-applicable", "false-positive")

CriterionId = Literal["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10"]
DimensionId = Literal["S", "C", "D", "B"]
Reason = Literal["accepted-risk", "compensating-control", "not-applicable", "false-positive"]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
DimKey = Annotated[str, StringConstraints(pattern=r"^C(10|[1-9])\.[SCDB]$")]
SettingKey = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Glob = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class ConfigError(InputError):
    """An invalid gate configuration or suppression comment (exit 2)."""


class WaiverSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    criterion: CriterionId
    dimension: DimensionId
    reason: Reason
    justification: Text
    owner: Text
    expires: Annotated[date, Field(strict=False)]


class DidsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    min_score: Annotated[float, Field(ge=0, le=10)] | None = None
    min_criteria: dict[CriterionId, Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=dict)
    min_levels: dict[DimKey, Annotated[int, Field(ge=0, le=4)]] = Field(default_factory=dict)
    exclude: list[Glob] = Field(default_factory=list)
    hints: dict[SettingKey, str] = Field(default_factory=dict)
    waivers: list[WaiverSpec] = Field(default_factory=list)

    @field_validator("exclude")
    @classmethod
    def _relative(cls, value: list[str]) -> list[str]:
        for p in value:
            if p.startswith("/") or ".." in p.split("/"):
                raise ValueError(f"paths are relative to the repository root, without '..': {p!r}")
        return value


@dataclass
class LoadedConfig:
    """A validated configuration and where it came from (path None: no configuration file)."""

    config: DidsConfig = field(default_factory=DidsConfig)
    path: str | None = None
    prefix: str = ""  # "tool.dids." for pyproject.toml
    text: str = ""

    def waiver_line(self, i: int) -> int | None:
        """Line of the i-th `[[waivers]]` table header (best effort: TOML drops positions)."""
        pat = re.compile(r"^\s*\[\[\s*" + re.escape(self.prefix + "waivers").replace(r"\.", r"\s*\.\s*")
                         + r"\s*\]\]")
        heads = [n for n, line in enumerate(self.text.splitlines(), 1) if pat.match(line)]
        if i < len(heads):
            return heads[i]
        return self.key_line("waivers")

    def key_line(self, key: str) -> int | None:
        pat = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
        for n, line in enumerate(self.text.splitlines(), 1):
            if pat.match(line):
                return n
        return None


def parse_config(path: str, data: bytes) -> LoadedConfig:
    """Validate one configuration file's bytes. pyproject.toml without [tool.dids] gives None path."""
    try:
        text = data.decode("utf-8")
        doc = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    prefix = ""
    if path.rsplit("/", 1)[-1] == "pyproject.toml":
        tool = doc.get("tool")
        if not isinstance(tool, dict) or "dids" not in tool:
            return LoadedConfig()
        doc, prefix = tool["dids"], "tool.dids."
        if not isinstance(doc, dict):
            raise ConfigError(f"{path}: tool.dids: must be a table")
    try:
        cfg = DidsConfig.model_validate(doc)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_describe(exc, prefix)}") from None
    return LoadedConfig(cfg, path, prefix, text)


def _describe(exc: ValidationError, prefix: str) -> str:
    e = exc.errors(include_url=False)[0]
    key = prefix.rstrip(".")
    is_key = False
    for part in e["loc"]:
        if isinstance(part, int):
            key += f"[{part}]"
        elif part == "[key]":
            is_key = True
        else:
            key += ("." if key else "") + str(part)
    kind = e["type"]
    got = e.get("input")
    if is_key:
        return f"{key}: not a valid key here ({e['msg'][0].lower() + e['msg'][1:]})"
    if kind == "value_error":
        return f"{key}: {str(e['msg']).removeprefix('Value error, ')}"
    if kind == "extra_forbidden":
        model = WaiverSpec if "waivers[" in key else DidsConfig
        return f"{key}: unknown key (allowed: {', '.join(model.model_fields)})"
    if kind == "missing":
        return f"{key}: required key is missing"
    if kind == "literal_error" and key.endswith(".reason"):
        return f"{key}: {got!r} is not one of {', '.join(REASONS)}"
    msg = e["msg"]
    shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
    return f"{key}: {msg[0].lower() + msg[1:]} (got {shown})"


def read_config(snapshot) -> LoadedConfig:
    """The configuration at the snapshot's commit: `.dids.toml`, else pyproject's [tool.dids]."""
    entries = {e.path: e for e in snapshot.list_tree() if e.path in CONFIG_FILES}
    for name in CONFIG_FILES:
        entry = entries.get(name)
        if entry is None or entry.is_symlink or entry.is_submodule or entry.size < 0:
            continue
        if entry.size > 1 << 20:
            raise ConfigError(f"{name}: larger than 1 MiB")
        data = snapshot.read_blobs([entry.sha]).get(entry.sha, b"")
        loaded = parse_config(name, data)
        if loaded.path:
            return loaded
    return LoadedConfig()


def glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-like: `**` any depth, `*`/`?` within one segment, a trailing `/` a directory,
    and a pattern without `/` matches a file or directory name at any depth."""
    pat = pattern.strip()
    anchored = "/" in pat.rstrip("/")
    body = pat.strip("/")
    out, i = "", 0
    while i < len(body):
        if body.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif body.startswith("**", i):
            out += ".*"
            i += 2
        elif body[i] == "*":
            out += "[^/]*"
            i += 1
        elif body[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(body[i])
            i += 1
    lead = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{lead}{out}(?:/.*)?$")


def excluded(path: str, patterns: list[re.Pattern[str]]) -> bool:
    return any(p.match(path) for p in patterns)
