"""Branch conditions of TypeScript/JavaScript code evaluated under the shipped defaults.

A branch whose condition is false under the defaults holds opt-in code, as for Python
(defaults.py); here in TypeScript syntax (`&&`, `||`, `!`, `===`, optional chaining). Values come
from, in order:

- `process.env.X` / `process.env["X"]`: the fallback code gives it (`?? d`), else unset;
- approval switches: names that say whether actions run without asking (`autoApprove`,
  `yolo`, `skipPermissions`, `requireApproval`, ...) take the literal default the scored
  product gives a binding of the same switch (`const defaultToolAutoApprove = true`,
  `DEFAULT_SETTINGS.autoApprove: false`, a manifest default); unknown when those disagree;
- command-line options declared with commander/yargs (`.option("--yolo")`): their default, false
  for a flag with none (true for `--no-x`);
- settings (`options.x`, `this.config.x`, `settings.x` and setting-like names): the manifest,
  zod, DEFAULT_* and UPPER_CASE constant defaults of the index's settings, when unique;
- a module constant of the same file with a literal value.

A branch is also opt-in when an earlier `if` of the same function returns or throws under the
defaults (`if (autoApprove) return {approved: true};` before the prompt): what follows it runs
only once the setting is changed. Anything else is unknown, and an unknown branch is taken.
"""

from __future__ import annotations

import re

from ..index.pyfacts import Block, PyFacts
from .defaults import _SETTING_NAME, _UNKNOWN, Guard, balanced, split_top_level

_SWITCHES = (  # (stem, pattern on the lower-cased name without separators)
    ("autoapprove", re.compile(r"autoapprov|autoaccept|autorun|autoexecut|alwaysapprove|"
                               r"alwaysallow|approveall")),
    ("yolo", re.compile(r"yolo")),
    ("skippermissions", re.compile(r"skippermission|bypasspermission|dangerously|noconfirm|"
                                   r"skipconfirm|skipapproval")),
    ("requireapproval", re.compile(r"requir\w*approv|needsapprov|requireconfirm|askbefore|"
                                   r"confirmbefore|approvalrequired")),
)
_CONFIG_HEAD = re.compile(r"^(this\.)?(_?config|_?settings|cfg|conf|options|opts|args|argv|"
                          r"flags|params|state|props|prefs|preferences|env)$|"
                          r"(config|settings|options|opts|args|flags)$", re.I)
_CMP = re.compile(r"^(?P<lhs>.+?)\s*(?P<op>===|!==|==|!=)\s*(?P<rhs>.+)$")
_ENV = re.compile(r"""^process\.env(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])$""")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\s*[\"'][\w*-]+[\"']\s*\])*$")
_LIT = re.compile(r"""^(?:true|false|null|undefined|-?\d[\d_]*(?:\.\d+)?|"[^"]*"|'[^']*'|`[^`$]*`)$""")
_OPTION = re.compile(r"""^["'`]\s*(?:-\w\s*,\s*|-\w\s+)?--(no-)?([\w-]+)""")


_NON_ALNUM = re.compile(r"[^a-z0-9]")
_PARTS = re.compile(r"\.|\[")
_NUM = re.compile(r"^-?\d[\d_]*(\.\d+)?$")
_norm_memo: dict[str, str] = {}


def _norm(name: str) -> str:
    got = _norm_memo.get(name)
    if got is None:
        if len(_norm_memo) > 100_000:
            _norm_memo.clear()
        got = _norm_memo[name] = _NON_ALNUM.sub("", name.lower())
    return got


def js_literal(text: str | None):
    if text is None:
        return _UNKNOWN
    t = text.strip()
    if t == "true":
        return True
    if t == "false":
        return False
    if t in ("null", "undefined"):
        return None
    if _NUM.match(t):
        t = t.replace("_", "")
        return float(t) if "." in t else int(t)
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'`" and t.count(t[0]) == 2:
        return t[1:-1]
    return _UNKNOWN


def switch_of(name: str) -> str | None:
    """The approval switch a name is about (its stem), if any."""
    n = _norm(name)
    for stem, rx in _SWITCHES:
        if rx.search(n):
            return stem
    return None


class TsDefaults:
    """Values and guards for TypeScript/JavaScript files (see the module docstring)."""

    def __init__(self, index, product_dirs=frozenset(), roots=frozenset()):
        self.index = index
        self.ts = {p: f for p, f in index.ts.items()}
        self.product = product_dirs
        self.roots = roots
        self._chains: dict[tuple[str, str | None], list[Block]] = {}
        self._truths: dict[tuple[str, str], object] = {}
        self._settings: dict[str, set[str]] = {}
        for s in index.settings:
            if s.value is None:
                continue
            for k in {s.key, s.var or s.key, s.key.rsplit(".", 1)[-1]}:
                self._settings.setdefault(k.lower(), set()).add(s.value)
        self._env: dict[str, str | None] = {}
        for s in index.settings:
            if s.source == "code" and s.path in self.ts and re.match(r"^[A-Z][A-Z0-9_]*$", s.key):
                self._env.setdefault(s.key, s.value)
        self.switches: dict[str, list[tuple[object, str, int, str]]] = {}
        self._options: dict[str, object] = {}
        self._scan()

    def in_product(self, path: str) -> bool:
        if not self.product:
            return True
        return any(not d or path.startswith(d + "/") for d in self.product)

    def _scan(self) -> None:
        """Approval-switch bindings with literal defaults and command-line options."""
        pair = re.compile(r"""(?<![\w$])["']?([A-Za-z_$][\w$]*)["']?\s*:\s*(true|false)\b""")
        for path, facts in self.ts.items():
            if not self.in_product(path):
                continue
            for a in facts.assigns:
                name = a.target.rsplit(".", 1)[-1]
                v = (a.value or "").strip()
                stem = switch_of(name)
                lit = js_literal(v) if v else _UNKNOWN
                if stem and isinstance(lit, bool):
                    self.switches.setdefault(stem, []).append((lit, path, a.line, name))
                elif v.startswith("{") and len(v) < 400:
                    for m in pair.finditer(v):
                        st = switch_of(m.group(1))
                        if st:
                            self.switches.setdefault(st, []).append(
                                (m.group(2) == "true", path, a.line, m.group(1)))
            for c in facts.calls:
                if c.short == "option" and c.args:
                    m = _OPTION.match(c.args[0].strip())
                    if not m:
                        continue
                    name = re.sub(r"-(\w)", lambda x: x.group(1).upper(), m.group(2))
                    if m.group(1):
                        self._options.setdefault(name, True)
                        continue
                    default = js_literal(c.args[2]) if len(c.args) >= 3 else _UNKNOWN
                    takes_value = "<" in c.args[0] or "[" in c.args[0]
                    self._options.setdefault(
                        name, default if default is not _UNKNOWN else (None if takes_value else False))
                    stem = switch_of(name)
                    if stem and isinstance(self._options[name], bool):
                        self.switches.setdefault(stem, []).append(
                            (self._options[name], path, c.line, name))
        for s in self.index.settings:  # manifest and DEFAULT_* defaults of the product
            stem = switch_of(s.var or s.key.rsplit(".", 1)[-1])
            lit = js_literal(s.value) if s.value is not None else _UNKNOWN
            if stem and isinstance(lit, bool) and self.in_product(s.path):
                self.switches.setdefault(stem, []).append((lit, s.path, s.line, s.key))

    def switch_default(self, stem: str):
        """The default of an approval switch: the value every product binding agrees on; when
        they disagree, the one a `default*`/DEFAULT_* binding gives."""
        got = self.switches.get(stem, [])
        if not got:
            return _UNKNOWN
        values = {v for v, *_ in got}
        if len(values) == 1:
            return next(iter(values))
        named = {v for v, _p, _l, n in got if _norm(n).startswith("default")}
        if len(named) == 1:
            return next(iter(named))
        return _UNKNOWN

    def switch_binding(self, stem: str):
        """(value, path, line, name) of the binding that decides a switch's default."""
        value = self.switch_default(stem)
        if value is _UNKNOWN:
            return None
        got = [b for b in self.switches.get(stem, []) if b[0] == value]
        got.sort(key=lambda b: (not _norm(b[3]).startswith("default"), b[1], b[2]))
        return got[0] if got else None

    # -- values ---------------------------------------------------------------------------------
    def value(self, facts: PyFacts, func: str | None, name: str):
        name = name.strip().replace("?.", ".").replace("!.", ".")
        m = _ENV.match(name)
        if m:
            key = m.group(1) or m.group(2)
            return js_literal(self._env.get(key)) if self._env.get(key) is not None else None
        lit = js_literal(name)
        if lit is not _UNKNOWN:
            return lit
        if not _NAME.match(name):
            return _UNKNOWN
        parts = _PARTS.split(name)
        last = parts[-1].strip("]\"' ")
        stem = switch_of(last) or (switch_of(name) if len(parts) <= 3 else None)
        if stem:
            return self.switch_default(stem)
        head = ".".join(parts[:-1])
        if len(parts) >= 2 and (_CONFIG_HEAD.search(head) or _SETTING_NAME.search(last)):
            if last in self._options and _CONFIG_HEAD.search(head):
                return self._options[last]
            vals = self._settings.get(last.lower())
            if vals and len(vals) == 1:
                return js_literal(next(iter(vals)))
            return _UNKNOWN
        if len(parts) == 1:
            for a in facts.assigns:
                if a.scope_kind == "module" and a.target == name and a.value:
                    return js_literal(a.value)
        return _UNKNOWN

    # -- conditions -----------------------------------------------------------------------------
    def truth(self, facts: PyFacts, func: str | None, cond: str):
        key = (facts.path, cond)
        got = self._truths.get(key, _UNKNOWN)
        if got is _UNKNOWN:
            got = self._truths[key] = self._truth(facts, func, cond)
        return got

    def _truth(self, facts: PyFacts, func: str | None, cond: str):
        cond = " ".join(cond.split())
        while cond.startswith("(") and cond.endswith(")") and balanced(cond[1:-1]):
            cond = cond[1:-1].strip()
        for op in ("||", "&&"):
            parts = split_top_level(cond, op, quotes="\"'`")
            if len(parts) > 1:
                vals = [self.truth(facts, func, p) for p in parts]
                if op == "&&":
                    return False if False in vals else (True if all(v is True for v in vals) else None)
                return True if True in vals else (False if all(v is False for v in vals) else None)
        if cond.startswith("!") and not cond.startswith("!="):
            v = self.truth(facts, func, cond[1:])
            return None if v is None else not v
        m = _CMP.match(cond)
        if m:
            lhs = self.value(facts, func, m.group("lhs"))
            rhs = self.value(facts, func, m.group("rhs"))
            if lhs is _UNKNOWN or rhs is _UNKNOWN:
                return None
            op = m.group("op")
            if op in ("==", "!=") and (lhs is None or rhs is None):
                same = lhs is None and rhs is None
            else:
                same = lhs == rhs
            return same if op in ("===", "==") else not same
        v = self.value(facts, func, cond)
        if v is _UNKNOWN:
            return None
        return bool(v)

    def guard_at(self, path: str, func: str | None, line: int) -> Guard | None:
        """The first enclosing branch of PATH:LINE the defaults skip, or an earlier `if` of the
        same function that returns under the defaults before LINE is reached."""
        facts = self.ts.get(path)
        if facts is None:
            return None
        chain = self._blocks_of(path, facts, func)
        for i, b in enumerate(chain):
            if b.kind not in ("if", "elif", "else"):
                continue
            if b.line <= line <= b.end_line and b.line != line:
                taken = self._taken(facts, func, chain, i)
                if taken is False:
                    cond = b.head or "else"
                    return Guard(path, b.line, cond, _setting_of(cond))
            elif b.end_line < line and b.kind == "if" and set(b.exits) & set("rx") and \
                    self._on_path(chain, b, line) and not _is_elif_chain(chain, i):
                if self.truth(facts, func, b.head) is True:
                    return Guard(path, b.line, f"!({b.head})", _setting_of(b.head))
        return None

    def _on_path(self, chain: list[Block], b: Block, line: int) -> bool:
        """Whether every block enclosing B also encloses LINE (B runs before LINE does)."""
        for o in chain:
            if o is b:
                continue
            if o.line <= b.line and b.end_line <= o.end_line and not (o.line <= line <= o.end_line):
                return False
        return True

    def _blocks_of(self, path: str, facts: PyFacts, func: str | None) -> list[Block]:
        key = (path, func)
        got = self._chains.get(key)
        if got is None:
            got = self._chains[key] = [b for b in facts.blocks if b.func == func]
        return got

    def _taken(self, facts, func, chain, i):
        b = chain[i]
        own = None if b.kind == "else" else self.truth(facts, func, b.head)
        if b.kind == "if":
            return own
        earlier = []
        j = i - 1
        while j >= 0:  # the if/elif blocks of the same chain, right before this one
            p = chain[j]
            if p.kind in ("if", "elif") and p.end_line <= b.line and b.line - p.end_line <= 2:
                earlier.append(self.truth(facts, func, p.head))
                if p.kind == "if":
                    break
                b = p
            elif p.line <= chain[i].line <= p.end_line:
                j -= 1
                continue
            else:
                break
            j -= 1
        if True in earlier:
            return False
        if chain[i].kind == "else":
            return True if earlier and all(e is False for e in earlier) else None
        return own


def _is_elif_chain(chain: list[Block], i: int) -> bool:
    """Whether the if at I continues in else/elif blocks (then it does not end the function)."""
    b = chain[i]
    for o in chain[i + 1:i + 4]:
        if o.kind in ("elif", "else") and 0 <= o.line - b.end_line <= 1:
            return True
    return False


def _setting_of(cond: str) -> str:
    m = re.search(r"""process\.env(?:\.(\w+)|\[\s*["'](\w+)["']\s*\])""", cond)
    if m:
        return m.group(1) or m.group(2)
    names = [n for n in re.findall(r"[A-Za-z_$][\w$.]*", cond)
             if n not in ("true", "false", "null", "undefined", "typeof")]
    for n in names:
        if switch_of(n.rsplit(".", 1)[-1]):
            return n.rsplit(".", 1)[-1]
    return names[0].rsplit(".", 1)[-1] if names else cond[:40]


class MixedDefaults:
    """Python's Defaults for Python files, TsDefaults for TypeScript/JavaScript ones; every other
    attribute (the tables the registry choice reads) is the Python one's."""

    def __init__(self, py_defaults, index, roots=frozenset(), product=frozenset()):
        self._py = py_defaults
        self.ts = TsDefaults(index, product, roots)

    def __getattr__(self, name):
        return getattr(self._py, name)

    def guard_at(self, path: str, func: str | None, line: int):
        if path in self.ts.ts:
            return self.ts.guard_at(path, func, line)
        return self._py.guard_at(path, func, line)

    def value(self, facts, func, name):
        if getattr(facts, "lang", "python") != "python":
            return self.ts.value(facts, func, name)
        return self._py.value(facts, func, name)

    def truth(self, facts, func, cond):
        if getattr(facts, "lang", "python") != "python":
            return self.ts.truth(facts, func, cond)
        return self._py.truth(facts, func, cond)
