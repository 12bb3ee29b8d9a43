"""JSON read with the line of every key and item, within bounds (manifests are hostile input).

`json` drops positions, and citations need them (`package.json:42` for a setting's default). This
reader takes one regex-matched token at a time, keeps an explicit stack (no recursion), tolerates
what JSONC files add (comments, trailing commas) and gives up (None) past its size, depth or item
bounds or at the first syntax error.
"""

from __future__ import annotations

import json
import re

MAX_CHARS = 2 << 20
MAX_DEPTH = 64
MAX_ITEMS = 200_000


class JsonObject(dict):
    """A JSON object; `lines[key]` is the line its key is written on, `line` the line of "{"."""

    __slots__ = ("line", "lines")

    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.lines: dict[str, int] = {}

    def line_of(self, key: str) -> int:
        return self.lines.get(key, self.line)


class JsonArray(list):
    """A JSON array; `lines[i]` is the line item i starts on, `line` the line of "["."""

    __slots__ = ("line", "lines")

    def __init__(self, line: int):
        super().__init__()
        self.line = line
        self.lines: list[int] = []


# one token after optional whitespace; every alternative is linear (no nested quantifiers over
# the same characters)
_TOKEN = re.compile(
    r'[ \t\r\n\ufeff]*(?:("(?:[^"\\\n]|\\.)*")'
    r'|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)'
    r'|(true|false|null)|([{}\[\]:,])|(//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/))'
)
_TAIL = re.compile(r"[ \t\r\n]*")
_LITERALS = {"true": True, "false": False, "null": None}

# parser states
_VALUE, _VALUE_OR_CLOSE, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE, _DONE = range(6)


def loads(text: str, *, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS) -> object | None:
    """The JSON value of TEXT (objects as JsonObject, arrays as JsonArray), or None."""
    if len(text) > MAX_CHARS:
        return None
    stack: list[JsonObject | JsonArray] = []
    root: object = None
    key: str | None = None
    key_line = 0
    state = _VALUE
    pos, line, counted, items = 0, 1, 0, 0
    n = len(text)
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            if state == _DONE and _TAIL.match(text, pos).end() == n:
                return root
            return None
        pos = m.end()
        start = m.start(m.lastindex)
        line += text.count("\n", counted, start)
        counted = start
        kind = m.lastindex
        tok = m.group(kind)
        if kind == 5:  # comment
            continue
        if kind == 4 and tok in "]}":
            top = stack[-1] if stack else None
            closes_object = tok == "}" and isinstance(top, JsonObject)
            closes_array = tok == "]" and isinstance(top, JsonArray)
            ok = (closes_object and state in (_KEY_OR_CLOSE, _COMMA_OR_CLOSE)) or \
                (closes_array and state in (_VALUE_OR_CLOSE, _COMMA_OR_CLOSE))
            if not ok:
                return None
            stack.pop()
            state = _COMMA_OR_CLOSE if stack else _DONE
            continue
        if kind == 4 and tok == ",":
            if state != _COMMA_OR_CLOSE:
                return None
            state = _KEY_OR_CLOSE if isinstance(stack[-1], JsonObject) else _VALUE_OR_CLOSE
            continue
        if kind == 4 and tok == ":":
            if state != _COLON:
                return None
            state = _VALUE
            continue
        if state == _KEY_OR_CLOSE:
            if kind != 1:
                return None
            key, key_line = json.loads(tok), line
            state = _COLON
            continue
        if state not in (_VALUE, _VALUE_OR_CLOSE):
            return None
        items += 1
        if items > max_items:
            return None
        if kind == 1:
            value: object = json.loads(tok)
        elif kind == 2:
            value = json.loads(tok)
        elif kind == 3:
            value = _LITERALS[tok]
        elif tok == "{":
            value = JsonObject(line)
        else:  # "["
            value = JsonArray(line)
        top = stack[-1] if stack else None
        if top is None:
            root = value
        elif isinstance(top, JsonObject):
            top[key] = value
            top.lines[key] = key_line
        else:
            top.append(value)
            top.lines.append(line)
        if isinstance(value, JsonObject):
            if len(stack) >= max_depth:
                return None
            stack.append(value)
            state = _KEY_OR_CLOSE
        elif isinstance(value, JsonArray):
            if len(stack) >= max_depth:
                return None
            stack.append(value)
            state = _VALUE_OR_CLOSE
        else:
            state = _COMMA_OR_CLOSE if stack else _DONE


def scalar_text(value: object, limit: int = 400) -> str | None:
    """A manifest value as a setting's text: strings as they are, true/false/numbers as JSON
    writes them, null as None, objects and arrays as compact JSON (bounded)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)[:limit]
    except (TypeError, ValueError, RecursionError):
        return None
