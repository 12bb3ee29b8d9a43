"""The value a name has under the shipped defaults, and branch conditions evaluated with it.

A branch whose condition is false under the defaults (`if self.executor_type == "e2b":` where
the constructor default is "local"; `if config.confirmation_mode:` where the field defaults to
False; `if os.getenv("USE_SANDBOX"):` with no default) holds opt-in code: it runs only when a
user changes that setting. Values come from, in order: the README snippet's constructor
arguments, the enclosing function's parameter defaults, `self.x = x` bound from an `__init__`
parameter, class fields (dataclass/pydantic `Field(default=...)`), module constants and the
index's settings (env defaults, compose, `.env` examples). Anything else is unknown, and an
unknown condition is taken (code is on the path unless the defaults say otherwise).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..index.pyfacts import Block, PyFacts
from ..index.settings import strip_quotes

_UNKNOWN = object()
_CMP = re.compile(r"^(?P<lhs>.+?)\s*(?P<op>==|!=|\bis not\b|\bis\b|\bnot in\b|\bin\b)\s*(?P<rhs>.+)$")
_NAME = re.compile(r"^(?:not\s+)?([A-Za-z_][\w.]*)(?:\.lower\(\)|\.upper\(\)|\.value)?$")
_GETENV = re.compile(r"""^(?:os\.)?(?:environ\.get|getenv)\(\s*["'](\w+)["']\s*(?:,\s*(.+?))?\s*\)$""")
_FIELD_DEFAULT = re.compile(r"^(?:\w+\.)?Field\((?:\s*default\s*=\s*)?([^,()]+|\"[^\"]*\"|'[^']*')")


@dataclass(frozen=True)
class Guard:
    """A branch the shipped defaults do not enter: where it is and what would enable it."""

    path: str
    line: int
    condition: str
    setting: str  # the name the condition reads ("executor_type", "RUNTIME")

    def label(self) -> str:
        return f"opt-in:{self.setting}"


# Names a user sets to choose behaviour (a mode, a backend, a switch), as opposed to data that
# only exists at run time (a message's role, a result's error): only these make a branch opt-in.
_SETTING_NAME = re.compile(
    r"mode|type$|kind$|backend|runtime|provider|enable|disable|^use_|_use_|allow|auto|confirm|"
    r"approv|sandbox|executor|telemetry|trac(e|ing)|debug|safe|strict|interactive|secure|"
    r"isolat|remote|local|docker|yolo|trust|unsafe|dangerous|permission|policy|guard|mask|"
    r"redact|offline|dry_?run|headless|skip_|no_", re.I)
_CONFIG_HEAD = re.compile(r"^(self\.)?(_?config|_?settings|cfg|conf|options|opts|args|flags|"
                          r"app_config|global_config|env)\b|(config|settings|options)$", re.I)
_CONFIG_CLASS = re.compile(r"(Config|Settings|Options|Preferences|Profile|Flags)$")


class Defaults:
    def __init__(self, py: dict[str, PyFacts], settings, overrides: dict[str, str] | None = None,
                 roots: set[tuple[str, str]] = frozenset()):
        self.py = py
        self.roots = roots  # (path, qualname) of entry functions: their parameter defaults count
        self.overrides = {k.lower(): v for k, v in (overrides or {}).items()}
        self._fields: dict[str, set[str]] = {}
        for facts in py.values():
            config_classes = {c.qualname for c in facts.classes if _CONFIG_CLASS.search(c.name)
                              or any(b.endswith(("BaseSettings", "Settings", "Config"))
                                     for b in c.bases)}
            for a in facts.assigns:
                if a.scope_kind != "class" or a.scope not in config_classes or a.op != "=" or \
                        not a.target.isidentifier() or not a.value:
                    continue
                v = a.value.strip()
                m = _FIELD_DEFAULT.match(v)
                if m:
                    v = m.group(1).strip()
                if _literal(v) is not _UNKNOWN:
                    self._fields.setdefault(a.target.lower(), set()).add(v)
        # every class's literal field defaults, for switches read off a state or options
        # object (`self.state.confirmation_mode`): used for setting-like names only
        self._all_fields: dict[str, set[str]] = {}
        for facts in py.values():
            for a in facts.assigns:
                if a.scope_kind == "class" and a.op == "=" and a.target.isidentifier() and \
                        a.value and _SETTING_NAME.search(a.target):
                    v = a.value.strip()
                    m = _FIELD_DEFAULT.match(v)
                    if m:
                        v = m.group(1).strip()
                    if _literal(v) is not _UNKNOWN:
                        self._all_fields.setdefault(a.target.lower(), set()).add(v)
        # command-line flags: `args.x` after argparse is the option's default (False for a
        # store_true flag, None when no default is given)
        self._cli: dict[str, object] = {}
        self._argparse = False
        for facts in py.values():
            if "argparse" not in {o.split(".")[0] for o in facts.imports.values()}:
                continue
            self._argparse = True
            for c in facts.calls:
                if c.short != "add_argument" or not c.args:
                    continue
                flag = next((a.strip("'\"") for a in c.args if a.strip("'\"").startswith("--")), None)
                if not flag:
                    continue
                name = (c.kw("dest") or flag[2:]).strip("'\"").replace("-", "_")
                action = (c.kw("action") or "").strip("'\"")
                default = c.kw("default")
                if default is not None:
                    self._cli[name] = _literal(default)
                elif action == "store_true":
                    self._cli[name] = False
                elif action == "store_false":
                    self._cli[name] = True
                else:
                    self._cli[name] = None
        self._settings: dict[str, set[str]] = {}
        for s in settings:
            for k in {s.key, s.var or s.key}:
                if s.value is not None:
                    self._settings.setdefault(k.lower(), set()).add(_quote(s.value))
        self._chains: dict[tuple[str, str | None], list[Block]] = {}
        # _taken() per (path, function, block index): guard_at() is asked for every call line
        # the reach walks follow, and the lines of one function share its branches.
        self._taken_memo: dict[tuple[str, str | None, int], object] = {}
        self._exiting: dict[tuple[str, str | None], list[int]] = {}  # branches that return/raise

    # -- values ------------------------------------------------------------------------------
    def value(self, facts: PyFacts, func: str | None, name: str):
        """The literal NAME holds by default in FUNC of FACTS (a Python value), or _UNKNOWN.

        Only settings have defaults here: env lookups, module constants and configuration
        fields, parameters of entry functions and constructor switches bound to `self`. Data
        (a message's role, a result's flag, an internal function's optional argument) is
        unknown, so the branch that tests it is taken."""
        m = _GETENV.match(name)
        if m:
            return _literal(m.group(2)) if m.group(2) else None
        parts = name.split(".")
        last = parts[-1]
        if last.lower() in self.overrides and _SETTING_NAME.search(last):
            return _literal(self.overrides[last.lower()])
        d = facts.function(func)
        if len(parts) == 2 and parts[0] in ("args", "cli_args", "parsed_args", "opts") and self._argparse:
            return self._cli.get(last, None)  # an option with no default is None
        if len(parts) == 1:
            if d is not None and (facts.path, d.qualname) in self.roots:
                p = next((p for p in d.params if p.name == name), None)
                if p is not None:
                    return _literal(p.default) if p.default is not None else _UNKNOWN
            if d is not None and any(p.name == name for p in d.params):
                return _UNKNOWN  # an argument its callers choose
            return self._table(self._settings, name)
        if parts[0] == "self" and len(parts) == 2 and d is not None and d.cls and \
                _SETTING_NAME.search(last):
            v = self._self_value(facts, d.cls, last)
            if v is not _UNKNOWN:
                return v
        if _CONFIG_HEAD.search(".".join(parts[:-1])) or (parts[0] == "self" and _SETTING_NAME.search(last)):
            v = self._table(self._fields, last)
            if v is _UNKNOWN:
                v = self._table(self._settings, last)
            if v is _UNKNOWN and _SETTING_NAME.search(last):
                v = self._table(self._all_fields, last)
            return v
        return _UNKNOWN

    @staticmethod
    def _table(table: dict[str, set[str]], key: str):
        vals = table.get(key.lower())
        if vals and len(vals) == 1:
            return _literal(next(iter(vals)))
        return _UNKNOWN

    def attr_default(self, facts: PyFacts, func: str | None, name: str):
        """The shipped value of `self.ATTR` in FUNC's class, whatever the attribute is named
        (value() reads only attributes named like switches): its literal or environment
        default in `__init__`, or the class attribute's; else _UNKNOWN."""
        d = facts.function(func)
        parts = name.split(".")
        if d is None or not d.cls or len(parts) != 2 or parts[0] != "self":
            return _UNKNOWN
        return self._self_value(facts, d.cls, parts[1])

    def _self_value(self, facts: PyFacts, cls: str, attr: str):
        for a in facts.assigns:
            if a.target != f"self.{attr}" or a.op != "=" or not a.value:
                continue
            d = facts.function(a.scope)
            if d is None or d.cls != cls or d.name != "__init__":
                continue
            v = a.value.strip()
            lit = _literal(v)
            if lit is not _UNKNOWN:
                return lit
            env = _env_default(v)
            if env is not _UNKNOWN:
                return env
            # `self.x = x or "local"`: the first alternative whose default is truthy, else the
            # last one (as Python's `or`); parameters by their default (or the override)
            alts = [t.strip() for t in re.split(r"\s+or\s+", v)]
            for i, alt in enumerate(alts):
                p = next((p for p in d.params if p.name == alt), None)
                if p is not None and p.default is not None:
                    key = p.name.lower()
                    got = _literal(self.overrides[key]) if key in self.overrides else _literal(p.default)
                elif i > 0:
                    got = _literal(alt)
                else:
                    break  # neither a parameter nor (the whole value being) a literal
                if got is _UNKNOWN or got or i == len(alts) - 1:
                    return got
        for a in facts.assigns:  # a class attribute default
            if a.scope == cls and a.scope_kind == "class" and a.target == attr and a.value:
                return _literal(a.value)
        return _UNKNOWN

    # -- conditions --------------------------------------------------------------------------
    def truth(self, facts: PyFacts, func: str | None, cond: str):
        """True/False when COND is decided by the defaults, else None."""
        cond = cond.strip()
        if cond.startswith("(") and cond.endswith(")") and cond.count("(") == 1:
            cond = cond[1:-1].strip()
        cond = " ".join(cond.split())
        for op in ("or", "and"):  # `or` binds looser: split on it first
            parts_text = _split_bool(cond, op)
            if len(parts_text) > 1:
                parts = [self.truth(facts, func, p) for p in parts_text]
                if op == "and":
                    return False if False in parts else (True if all(p is True for p in parts) else None)
                return True if True in parts else (False if all(p is False for p in parts) else None)
        if cond.startswith("(") and cond.endswith(")") and balanced(cond[1:-1]):
            return self.truth(facts, func, cond[1:-1])
        negate = cond.startswith("not ")
        body = cond[4:].strip() if negate else cond
        m = _CMP.match(body)
        if m and not negate and m.group("rhs").strip() == "sys.argv" and \
                m.group("op") in ("in", "not in") and _literal(m.group("lhs")) is not _UNKNOWN:
            return m.group("op") == "not in"  # a command-line flag is not given by default
        if m and not negate:
            lhs = self.value(facts, func, _bare(m.group("lhs")))
            if lhs is _UNKNOWN:
                return None
            rhs_text = m.group("rhs").strip()
            op = m.group("op")
            if op in ("in", "not in"):
                items = [_literal(x.strip()) for x in rhs_text.strip("()[]{}").split(",") if x.strip()]
                if any(i is _UNKNOWN for i in items):
                    return None
                hit = _norm(lhs) in [_norm(i) for i in items]
                return hit if op == "in" else not hit
            rhs = _literal(rhs_text)
            if rhs is _UNKNOWN:
                return None
            if op in ("is", "=="):
                return _norm(lhs) == _norm(rhs)
            return _norm(lhs) != _norm(rhs)
        nm = _NAME.match(body) or (_GETENV.match(body) and re.match(r"(.*)", body))
        if nm:
            v = self.value(facts, func, nm.group(1) if _NAME.match(body) else body)
            if v is _UNKNOWN:
                return None
            return (not bool(v)) if negate else bool(v)
        return None

    def guard_at(self, path: str, func: str | None, line: int) -> Guard | None:
        """The first enclosing branch of PATH:LINE (within FUNC) the defaults do not enter."""
        facts = self.py.get(path)
        if facts is None:
            return None
        chain = self._blocks_of(path, facts, func)
        for i, b in enumerate(chain):
            if not (b.line <= line <= b.end_line) or b.kind not in ("if", "elif", "else"):
                continue
            if b.line == line:
                # the condition runs, but `setting and call()` skips the call when the
                # setting is off by default (short-circuit)
                if b.kind in ("if", "elif") and b.head:
                    parts = _split_bool(" ".join(b.head.split()), "and")
                    if len(parts) > 1 and "(" not in parts[0] and \
                            self.truth(facts, func, parts[0]) is False:
                        return Guard(path, b.line, b.head, _setting_of(parts[0]))
                continue
            key = (path, func, i)
            try:
                taken = self._taken_memo[key]
            except KeyError:
                taken = self._taken_memo[key] = self._taken(facts, func, chain, i)
            if taken is False:
                cond = b.head or "else of " + self._chain_heads(chain, i)
                return Guard(path, b.line, cond, _setting_of(cond))
        return self._after_early_exit(path, facts, func, chain, line)

    def _after_early_exit(self, path, facts, func, chain, line) -> Guard | None:
        """A branch before LINE, entered under the defaults, that returns or raises (`if
        <true>: return ...`): LINE then runs only when the defaults are changed, as if it
        were the branch's `else`."""
        key = (path, func)
        exiting = self._exiting.get(key)
        if exiting is None:
            # A `return` only: a branch that raises under the defaults would make the shipped
            # configuration fail, so its condition is state the defaults misread. And not a
            # None check (`if self.runtime is None: return`): a guard clause on state set
            # later, not a setting.
            exiting = self._exiting[key] = [
                j for j, b in enumerate(chain)
                if b.kind in ("if", "elif") and "r" in b.exits and not _NONE_CHECK.search(b.head)]
        for j in exiting:
            b = chain[j]
            if b.line >= line:
                break  # blocks are in source order: the rest start at or after LINE
            if b.end_line >= line:
                continue  # B encloses LINE (guard_at's enclosing case)
            # B must be in a statement list LINE is in too: what encloses B encloses LINE
            if any(q.line <= b.line and q.end_line >= b.end_line and q is not b and
                   not (q.line <= line <= q.end_line) for q in chain):
                continue
            tkey = (path, func, j)
            try:
                taken = self._taken_memo[tkey]
            except KeyError:
                taken = self._taken_memo[tkey] = self._taken(facts, func, chain, j)
            if taken is True:
                cond = "else of " + b.head
                return Guard(path, b.line, cond, _setting_of(cond))
        return None

    def _blocks_of(self, path: str, facts: PyFacts, func: str | None) -> list[Block]:
        key = (path, func)
        got = self._chains.get(key)
        if got is None:
            got = self._chains[key] = [b for b in facts.blocks if b.func == func]
        return got

    def _previous(self, chain: list[Block], i: int) -> int | None:
        """The if/elif block right before chain[i] in the same if-chain, or None."""
        b = chain[i]
        for j in range(i - 1, -1, -1):
            p = chain[j]
            if p.kind in ("if", "elif") and p.end_line < b.line and b.line - p.end_line <= 3 and \
                    not any(q.line <= p.line and q.end_line >= b.line and q is not p
                            for q in chain[j + 1:i] if q.kind in ("if", "elif")):
                return j
            if p.line < b.line and p.end_line >= b.line:
                return None  # an enclosing block: no sibling before this one
        return None

    def _taken(self, facts, func, chain, i):
        b = chain[i]
        own = None if b.kind == "else" else self.truth(facts, func, b.head)
        if b.kind == "if":
            return own
        j = self._previous(chain, i)
        earlier = []
        while j is not None:
            earlier.append(self.truth(facts, func, chain[j].head))
            if chain[j].kind == "if":
                break
            j = self._previous(chain, j)
        if True in earlier:
            return False
        if b.kind == "else":
            return True if earlier and all(e is False for e in earlier) else None
        return own

    def _chain_heads(self, chain, i) -> str:
        j = self._previous(chain, i)
        return chain[j].head if j is not None else "a branch"


_NONE_CHECK = re.compile(r"\bis\s+(?:not\s+)?None\b")


def _split_bool(cond: str, op: str) -> list[str]:
    """COND split at top-level ` and `/` or ` (outside parentheses and strings)."""
    return split_top_level(cond, f" {op} ")


def split_top_level(cond: str, token: str, quotes: str = "\"'") -> list[str]:
    """COND split at each TOKEN outside parentheses, brackets and strings (QUOTES open one);
    shared by the Python and TypeScript condition readers."""
    if token not in cond:  # the common case: nothing to split (same result as the scan)
        cond = cond.strip()
        return [cond] if cond else []
    out, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(cond):
        ch = cond[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in quotes:
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and cond.startswith(token, i):
            out.append(cond[start:i].strip())
            i += len(token)
            start = i
            continue
        i += 1
    out.append(cond[start:].strip())
    return [p for p in out if p]


def balanced(text: str) -> bool:
    """Whether TEXT's parentheses close in order (shared with the TypeScript reader)."""
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _bare(text: str) -> str:
    t = text.strip()
    for suffix in (".lower()", ".upper()", ".value", ".strip()"):
        t = t.removesuffix(suffix)
    return t


def _setting_of(cond: str) -> str:
    m = _GETENV.search(cond) or re.search(r"""(?:environ\.get|getenv)\(\s*["'](\w+)["']""", cond)
    if m:
        return m.group(1)
    names = re.findall(r"[A-Za-z_][\w.]*", cond)
    names = [n for n in names if n not in ("not", "and", "or", "is", "in", "None", "True", "False",
                                           "else", "of", "a", "branch")]
    return names[0].split(".")[-1] if names else cond[:40]


def _quote(v: str) -> str:
    v = v.strip()
    if _literal(v) is not _UNKNOWN:
        return v
    return repr(v)


_CAST = re.compile(r"^(int|float)\((.+)\)$")


def _env_default(text: str):
    """The shipped value of an environment read, with its cast: `float(os.getenv("LIMIT",
    "0"))` is 0.0 unless the operator sets LIMIT; an unset read with no default is None."""
    cast = _CAST.match(text)
    m = _GETENV.match(cast.group(2).strip() if cast else text)
    if m is None:
        return _UNKNOWN
    if m.group(2) is None:
        return None
    lit = _literal(m.group(2))
    if cast and isinstance(lit, str):
        lit = _literal(lit)  # "0" read from the environment, then cast
    return lit


def _literal(text: str | None):
    if text is None:
        return _UNKNOWN
    t = text.strip()
    if t in ("True", "true"):
        return True
    if t in ("False", "false"):
        return False
    if t == "None":
        return None
    if re.match(r"^-?\d+(\.\d+)?$", t):
        return float(t) if "." in t else int(t)
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'" and t.count(t[0]) == 2:
        return t[1:-1]
    m = re.match(r"^[A-Za-z_][\w]*\.([A-Z_][A-Z0-9_]*)$", t)  # Enum.MEMBER
    if m:
        return m.group(1).lower()
    if t in ("[]", "{}", "()", "set()", "dict()", "list()"):
        return []
    return _UNKNOWN


def _norm(v):
    if isinstance(v, str):
        return v.lower()
    return v


__all__ = ["Defaults", "Guard", "strip_quotes"]
