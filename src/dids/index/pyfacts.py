"""One tree-sitter parse per Python file, reduced to plain, picklable facts shared by all probes.

Walking millions of nodes in Python is slow, so facts are pulled with tree-sitter queries (matched
in C) and nesting is resolved by a sweep over byte ranges; nothing recurses on the tree.
"""

from __future__ import annotations

import re

import bisect
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import tree_sitter as ts
import tree_sitter_python as tsp

from ..acquire import budget

_LANG = ts.Language(tsp.language())
_TEXT_MAX = 400
# a module-level dict literal is kept longer: backend and tool registries list a dozen entries
# (`"swerex_modal": "pkg.environments.extra.swerex_modal.SwerexModalEnvironment"`), and an
# entry cut off is a backend the call graph never sees
_REGISTRY_MAX = 4000
_intern = sys.intern

_QUERY_SRC = """
(call) @call
(function_definition name: (identifier) @def.name parameters: (parameters) @def.params) @def
(class_definition name: (identifier) @class.name) @class
(import_statement) @import
(import_from_statement) @import
(comment) @comment
(expression_statement (string) @docstring)
(assignment) @assign
(augmented_assignment) @aug
(for_statement right: (_) @blk.head) @blk.for
(while_statement condition: (_) @blk.head) @blk.while
(if_statement condition: (_) @blk.head consequence: (block) @blk.body) @blk.if
(elif_clause condition: (_) @blk.head consequence: (block) @blk.body) @blk.elif
(else_clause) @blk.else
(try_statement) @blk.try
(except_clause) @blk.except
(with_statement) @blk.with
(break_statement) @exit.b
(continue_statement) @exit.c
(return_statement) @exit.r
(raise_statement) @exit.x
(identifier) @id
"""
_QUERY = ts.Query(_LANG, _QUERY_SRC)


# a string literal within one line, prefixes included (and a JavaScript template literal)
_LINE_LITERAL = re.compile(r"""[rbfuRBFU]{0,2}("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|`(?:\\.|[^`\\])*`""")


def code_of(line: str, slash: bool = False) -> str:
    """LINE without its trailing comment (`#`, or `//` when SLASH): a mark inside a string
    literal starts no comment."""
    masked = _LINE_LITERAL.sub(lambda m: "_" * len(m.group(0)), line)
    mark = masked.find("//" if slash else "#")
    return line if mark < 0 else line[:mark]


def short_name(callee: str) -> str:
    """The last dotted part of a callee (what Call.short holds)."""
    return callee.rsplit(".", 1)[-1]


class _LastPart:
    """Call.short: the callee's last dotted part, computed on first use and stored on the
    instance. Probes read it for every call many times over; as a non-data descriptor the stored
    value wins every later lookup (and, unlike functools.cached_property on 3.11, no lock)."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = short_name(obj.callee)
        obj.__dict__["short"] = value
        return value


@dataclass(frozen=True)
class Call:
    callee: str  # dotted source text of the called expression, imports resolved
    raw: str  # as written
    line: int
    end_line: int
    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...]
    func: str | None  # qualname of the enclosing function
    cls: str | None

    def kw(self, name: str) -> str | None:
        for k, v in self.kwargs:
            if k == name:
                return v
        return None

    short = _LastPart()  # callee.rsplit(".", 1)[-1], kept on first use


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str | None
    default: str | None


@dataclass(frozen=True)
class FuncDef:
    name: str
    qualname: str
    line: int
    end_line: int
    decorators: tuple[str, ...]
    params: tuple[Param, ...]
    cls: str | None
    is_async: bool
    returns: str | None = None  # the return annotation, as written


@dataclass(frozen=True)
class ClassDef:
    name: str
    qualname: str
    line: int
    end_line: int
    bases: tuple[str, ...]
    decorators: tuple[str, ...]
    implements: tuple[str, ...] = ()  # TypeScript `implements` clauses, resolved like bases


@dataclass(frozen=True)
class Assign:
    target: str
    annotation: str | None
    value: str | None
    line: int
    end_line: int
    scope: str  # "module", a class qualname, or a function qualname
    scope_kind: str  # module | class | function
    op: str = "="  # "=" or an augmented operator ("+=", "-=", ...)


@dataclass(frozen=True)
class Block:
    """A compound statement: loops, branches, try/except and with blocks.

    An if/elif block spans its condition and consequence only (its else/elif clauses are blocks
    of their own), so a statement inside a branch has that branch as its innermost block."""

    kind: str  # for | while | if | elif | else | try | except | with
    line: int
    end_line: int
    head: str  # loop iterable or condition, branch condition, except clause ("" when none)
    func: str | None  # qualname of the enclosing function
    exits: str = ""  # exits whose innermost block this is: b(reak) c(ontinue) r(eturn) (rai)x(e)
    target: str = ""  # the loop variable(s) of a for loop


@dataclass(frozen=True)
class ImportSite:
    origin: str  # dotted origin as imported ("a.b", ".rel.mod")
    line: int
    func: str | None  # the function the import statement runs in (None: module scope)


@dataclass(frozen=True)
class ConfigDefault:
    """A configuration key that code gives a default (TypeScript/JavaScript: process.env
    fallbacks, zod `.default()`, DEFAULT_* object literals), taken while the tree is at hand."""

    key: str
    value: str | None  # source text of the default; None: read with no default
    line: int  # the line that gives the default
    form: str  # env | zod | object
    var: str | None = None  # for object defaults: the dotted path from the const (DEFAULTS.a.b)


@dataclass
class PyFacts:
    path: str
    calls: list[Call] = field(default_factory=list)
    defs: list[FuncDef] = field(default_factory=list)
    classes: list[ClassDef] = field(default_factory=list)
    assigns: list[Assign] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)  # in source order
    imports: dict[str, str] = field(default_factory=dict)  # local alias -> dotted origin
    import_sites: list[ImportSite] = field(default_factory=list)
    idents: Counter = field(default_factory=Counter)
    prose_lines: frozenset[int] = frozenset()  # lines wholly inside comments or docstrings
    has_error: bool = False
    lines: int = 0
    skipped: str = ""  # why no facts could be taken (the file is then not credited)
    partial: str = ""  # what part of the file was left out of the facts, if any
    lang: str = "python"  # python | typescript | javascript (tsfacts makes the last two)
    defaults: tuple[ConfigDefault, ...] = ()  # code defaults (TypeScript/JavaScript only)
    # function qualname -> the text of each value it returns, in source order (Python only)
    return_values: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def is_code_line(self, line: int) -> bool:
        return line not in self.prose_lines

    def function(self, qualname: str | None) -> FuncDef | None:
        """The function defined here as QUALNAME (the first, if it is defined twice)."""
        return next((d for d in self.defs if d.qualname == qualname), None) if qualname else None

    def last_assign(self, name: str, scope: str | None, line: int, *,
                    valued: bool = False) -> Assign | None:
        """The last assignment to NAME in SCOPE (a function's qualname, or "module") at or
        before LINE; with VALUED, the last one that has a value (not a bare `let x;`)."""
        got = None
        for a in self.assigns:
            if a.target == name and a.scope == scope and a.line <= line and \
                    (a.value or not valued):
                got = a
        return got

    def func_at(self, line: int) -> FuncDef | None:
        best = None
        for d in self.defs:
            if d.line <= line <= d.end_line and (best is None or d.line >= best.line):
                best = d
        return best


_new = object.__new__


def _built(kind, /, **fields):
    """A frozen dataclass instance with every field given, made without the generated __init__
    (which calls object.__setattr__ once per field): extraction makes hundreds of thousands."""
    obj = _new(kind)
    obj.__dict__.update(fields)
    return obj


def _start_byte(node: ts.Node) -> int:
    return node.start_byte


def _text(src: bytes, node: ts.Node, limit: int = _TEXT_MAX) -> str:
    # Interned: the same names and snippets recur across calls and files, and equal strings
    # that are one object pickle once per chunk, cross from the parse workers as one object and
    # take memory once (about a fifth less for the facts of a large repository).
    start, end = node.start_byte, node.end_byte
    if end - start > limit:
        end = start + limit
    return _intern(src[start:end].decode("utf-8", "replace"))


def _dotted(src: bytes, node: ts.Node) -> str:
    # Calls on call results ("a().b") keep only the tail after the last ")" to stay a dotted name.
    text = _text(src, node).replace("\n", "").replace(" ", "")
    return text


def _parse_imports(src: bytes, node: ts.Node, out: dict[str, str]) -> None:
    if node.type == "import_statement":
        for child in node.named_children:
            if child.type == "dotted_name":
                name = _text(src, child)
                out[name.split(".")[0]] = name.split(".")[0]
                if "." in name:  # keep the full module for reachability; "<" never starts a name
                    out["<module>" + name] = name
            elif child.type == "aliased_import":
                orig = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                if orig is not None and alias is not None:
                    out[_text(src, alias)] = _text(src, orig)
        return
    mod_node = node.child_by_field_name("module_name")
    if mod_node is None:
        return
    module = _text(src, mod_node)
    sep = "" if module.endswith(".") else "."  # "from . import x" is ".x", not "..x"
    for child in node.children_by_field_name("name"):
        if child.type == "dotted_name":
            name = _text(src, child)
            out[name] = f"{module}{sep}{name}"
        elif child.type == "aliased_import":
            orig = child.child_by_field_name("name")
            alias = child.child_by_field_name("alias")
            if orig is not None and alias is not None:
                out[_text(src, alias)] = f"{module}{sep}{_text(src, orig)}"
    if any(c.type == "wildcard_import" for c in node.named_children):
        out["<star>" + module] = module  # names come from MODULE; "<" never starts a name


_by_func_memo: list = [None, None]  # (facts, its calls grouped by function), the latest only


def calls_by_func(facts: PyFacts) -> dict[str | None, list[Call]]:
    """FACTS.calls grouped by enclosing function qualname (None: module scope), in order.

    Probes walk one file's functions at a time, so the grouping of the latest file is kept;
    asking per function then costs a lookup instead of a scan of every call in the file."""
    if _by_func_memo[0] is not facts:
        by: dict[str | None, list[Call]] = {}
        for c in facts.calls:
            by.setdefault(c.func, []).append(c)
        _by_func_memo[0], _by_func_memo[1] = facts, by
    return _by_func_memo[1]


def resolve(name: str, imports: dict[str, str]) -> str:
    head, _, rest = name.partition(".")
    origin = imports.get(head)
    if origin is None:
        return name
    return f"{origin}.{rest}" if rest else origin


def _decorators(src: bytes, node: ts.Node) -> tuple[str, ...]:
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return ()
    return tuple(
        _text(src, d)[1:].strip() for d in parent.named_children if d.type == "decorator"
    )


def _params(src: bytes, node: ts.Node) -> tuple[Param, ...]:
    out = []
    for p in node.named_children:
        name = ann = default = None
        if p.type == "identifier":
            name = _text(src, p)
        elif p.type in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            n = p.child_by_field_name("name")
            if n is None:
                n = next((c for c in p.named_children if c.type == "identifier"), None)
            name = _text(src, n) if n is not None else None
            t = p.child_by_field_name("type")
            ann = _text(src, t) if t is not None else None
            v = p.child_by_field_name("value")
            default = _text(src, v) if v is not None else None
        if name:
            out.append(_built(Param, name=name, annotation=ann, default=default))
    return tuple(out)


# Bounds for hostile input. Parsing garbage can take tree-sitter seconds per file, and its query
# cursor turns quadratic inside huge syntax-error regions and past ~30k levels of nesting.
PARSE_SECONDS = 5.0  # per file (a 1 MB real module parses in well under a second)
_ERROR_SPAN_MAX = 4096  # larger syntax-error regions are blanked out (they cannot run anyway)
_MAX_DEPTH = 2000  # deeper nodes are ignored (CPython itself rejects such nesting)
_CHUNK = 1 << 20
_BLANK = bytes(b if b in (0x0A, 0x0D) else 0x20 for b in range(256))


def _parse(src: bytes, seconds: float, lang: ts.Language = _LANG) -> ts.Tree | None:
    """Parse SRC, or None when it takes longer than SECONDS."""
    end = time.monotonic() + seconds

    def read(offset: int, _point) -> bytes:
        return src[offset : offset + _CHUNK]  # bytes, not a memoryview (py-tree-sitter #435)

    def progress(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > end

    try:
        return ts.Parser(lang).parse(read, encoding="utf8", progress_callback=progress)
    except ValueError:  # "Parsing failed": cancelled by progress()
        return None


def _large_errors(root: ts.Node) -> list[tuple[int, int]]:
    """Byte ranges of syntax-error nodes larger than _ERROR_SPAN_MAX (iterative; only nodes
    that hold an error and are large enough to hold such a region are visited)."""
    out: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error or node.end_byte - node.start_byte <= _ERROR_SPAN_MAX:
            continue
        if node.is_error:
            out.append((node.start_byte, node.end_byte))
            continue
        stack.extend(node.children)
    return sorted(out)


def _bounded_parse(src: bytes, lang: ts.Language = _LANG, label: str = "Python"
                   ) -> tuple[ts.Tree | None, bytes, str]:
    """(tree, the source it was parsed from, what was left out). Large syntax-error regions are
    blanked (newlines kept, so lines and offsets stay) and the file parsed again."""
    seconds = PARSE_SECONDS
    left = budget.remaining()
    if left is not None:
        seconds = max(0.05, min(seconds, left))
    tree = _parse(src, seconds, lang)
    if tree is None:
        return None, src, f"{label} parse took longer than {PARSE_SECONDS:g}s"
    if not tree.root_node.has_error:
        return tree, src, ""
    regions = _large_errors(tree.root_node)
    if not regions:
        return tree, src, ""
    blanked = bytearray(src)
    for start, end in regions:
        blanked[start:end] = src[start:end].translate(_BLANK)
    src2 = bytes(blanked)
    tree2 = _parse(src2, seconds, lang)
    if tree2 is None or _large_errors(tree2.root_node):
        return None, src, "syntax errors too large to analyse"
    return tree2, src2, f"syntax-error regions over {_ERROR_SPAN_MAX} bytes not analysed"


_BLOCK_KINDS = ("for", "while", "if", "elif", "else", "try", "except", "with")
_EXIT_KINDS = ("b", "c", "r", "x")


def _blocks(src: bytes, caps: dict, enclosing) -> list[Block]:
    """Compound statements in source order, each with the exits whose innermost block it is.

    Heads and bodies are captured beside their statements; they are matched back to it by
    position (the head/body of a statement lies inside it and starts after it does)."""
    heads = sorted(caps.get("blk.head", ()), key=_start_byte)
    bodies = sorted(caps.get("blk.body", ()), key=_start_byte)
    head_starts = [h.start_byte for h in heads]
    body_starts = [b.start_byte for b in bodies]

    def inside(nodes, starts, stmt, field_name):
        want = stmt.child_by_field_name(field_name)
        if want is None:
            return None
        i = bisect.bisect_left(starts, want.start_byte)
        if i < len(nodes) and nodes[i].start_byte == want.start_byte:
            return nodes[i]
        return want

    raw = []  # (start_byte, end_byte, kind, line, end_line, head, func, target)
    for kind in _BLOCK_KINDS:
        for node in caps.get("blk." + kind, ()):
            start, end = node.start_byte, node.end_byte
            end_line = node.end_point[0] + 1
            head = target = ""
            if kind == "for":
                left = node.child_by_field_name("left")
                target = _text(src, left) if left is not None else ""
            if kind in ("for", "while", "if", "elif"):
                field_name = "right" if kind == "for" else "condition"
                h = inside(heads, head_starts, node, field_name)
                head = _text(src, h) if h is not None else ""
            if kind in ("if", "elif"):
                body = inside(bodies, body_starts, node, "consequence")
                if body is not None:
                    end, end_line = body.end_byte, body.end_point[0] + 1
            elif kind == "except":
                parts = [c for c in node.named_children if c.type != "block"]
                head = " ".join(_text(src, c) for c in parts)[:_TEXT_MAX]
            elif kind == "with":
                items = node.child_by_field_name("body")
                head = _text(src, node)[: max(0, (items.start_byte if items else end) - start)]
            func, _cls = enclosing(start)
            raw.append((start, end, kind, node.start_point[0] + 1, end_line, head.strip(), func,
                        target))
    raw.sort(key=lambda r: (r[0], -r[1]))
    exits: list[set[str]] = [set() for _ in raw]
    starts = [r[0] for r in raw]
    parents: list[int] = []  # innermost enclosing block of each block, or -1
    stack: list[int] = []
    for i, r in enumerate(raw):
        while stack and raw[stack[-1]][1] <= r[0]:
            stack.pop()
        parents.append(stack[-1] if stack else -1)
        stack.append(i)
    for letter in _EXIT_KINDS:
        for node in caps.get("exit." + letter, ()):
            b = node.start_byte
            # the innermost block holding b: the last one starting at or before it, or an
            # ancestor of that one (blocks nest, so only the ancestor chain is walked)
            i = bisect.bisect_right(starts, b) - 1
            while i >= 0 and b >= raw[i][1]:
                i = parents[i]
            if i >= 0:
                exits[i].add(letter)
    return [_built(Block, kind=k, line=ln, end_line=el, head=h, func=fn,
                   exits="".join(sorted(exits[i])), target=tg)
            for i, (_s, _e, k, ln, el, h, fn, tg) in enumerate(raw)]


def extract(path: str, src: bytes) -> PyFacts:
    """Parse once and return every fact the probes use."""
    facts = PyFacts(path=path, lines=src.count(b"\n") + 1)
    tree, src, left_out = _bounded_parse(src)
    if tree is None:
        facts.has_error, facts.skipped = True, left_out
        return facts
    root = tree.root_node
    facts.has_error = root.has_error or bool(left_out)
    facts.partial = left_out
    cursor = ts.QueryCursor(_QUERY)
    cursor.set_max_start_depth(_MAX_DEPTH)
    caps = cursor.captures(root)

    # in source order, so a name imported twice resolves to its last import
    for node in sorted(caps.get("import", ()), key=_start_byte):
        _parse_imports(src, node, facts.imports)

    prose: set[int] = set()
    for node in list(caps.get("comment", [])) + list(caps.get("docstring", [])):
        s, e = node.start_point[0] + 1, node.end_point[0] + 1
        if node.type == "comment":
            # a trailing comment shares its line with code; only whole-line comments are prose
            line_start = src.rfind(b"\n", 0, node.start_byte) + 1
            if src[line_start : node.start_byte].strip():
                continue
        prose.update(range(s, e + 1))
    facts.prose_lines = frozenset(prose)

    # scopes: (start_byte, end_byte, qualname, kind, node)
    scopes: list[tuple[int, int, str, str]] = []
    raw_scopes = [(n, "function") for n in caps.get("def", [])] + [
        (n, "class") for n in caps.get("class", ())
    ]
    raw_scopes.sort(key=lambda x: (x[0].start_byte, -x[0].end_byte))
    stack: list[tuple[int, int, str, str]] = []
    parents: list[int] = []  # index in scopes of each scope's innermost enclosing scope, or -1
    stack_idx: list[int] = []
    for node, kind in raw_scopes:
        while stack and stack[-1][1] <= node.start_byte:
            stack.pop()
            stack_idx.pop()
        name_node = node.child_by_field_name("name")
        name = _text(src, name_node) if name_node is not None else "?"
        qual = f"{stack[-1][2]}.{name}" if stack else name
        enclosing_class = stack[-1][2] if stack and stack[-1][3] == "class" else None
        entry = (node.start_byte, node.end_byte, qual, kind)
        parents.append(stack_idx[-1] if stack_idx else -1)
        scopes.append(entry)
        stack.append(entry)
        stack_idx.append(len(scopes) - 1)
        line, end = node.start_point[0] + 1, node.end_point[0] + 1
        if kind == "function":
            params = node.child_by_field_name("parameters")
            ret = node.child_by_field_name("return_type")
            facts.defs.append(
                FuncDef(
                    name=name, qualname=qual, line=line, end_line=end,
                    decorators=_decorators(src, node),
                    params=_params(src, params) if params is not None else (),
                    cls=enclosing_class,
                    is_async=_text(src, node).startswith("async"),
                    returns=_text(src, ret) if ret is not None else None,
                )
            )
        else:
            supers = node.child_by_field_name("superclasses")
            bases = tuple(
                resolve(_dotted(src, b), facts.imports)
                for b in (supers.named_children if supers is not None else ())
                if b.type in ("identifier", "attribute", "subscript")
            )
            facts.classes.append(
                ClassDef(name, qual, line, end, bases, _decorators(src, node))
            )
    starts = [s[0] for s in scopes]

    def enclosing(byte: int, want: str | None = None) -> tuple[str | None, str | None]:
        """(function qualname, class qualname) of the innermost scopes holding byte.

        Scopes nest, so the innermost one holding byte is the last scope starting at or before
        it or one of that scope's ancestors; from there only the ancestor chain is walked."""
        i = bisect.bisect_right(starts, byte) - 1
        while i >= 0 and byte >= scopes[i][1]:
            i = parents[i]
        func = None
        while i >= 0:
            _s, _e, q, k = scopes[i]
            if k == "class":
                return func, q  # the innermost class; a function outside it is not recorded
            if func is None:
                func = q
            i = parents[i]
        return func, None

    # captures() does not promise document order (it varies run to run): sort, so the facts
    # of a file are the same every time
    for call in sorted(caps.get("call", ()), key=_start_byte):
        fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if fn is None or args is None:
            continue
        raw = _intern(_dotted(src, fn))
        positional, keywords = [], []
        for a in args.named_children:
            if a.type == "keyword_argument":
                k, v = a.child_by_field_name("name"), a.child_by_field_name("value")
                if k is not None and v is not None:
                    keywords.append((_text(src, k), _text(src, v)))
            elif a.type == "dictionary_splat":
                keywords.append(("**", _text(src, a)[2:]))
            elif a.type != "comment":
                positional.append(_text(src, a))
        func, cls = enclosing(call.start_byte)
        facts.calls.append(
            _built(Call,
                   callee=_intern(resolve(raw, facts.imports)), raw=raw,
                   line=call.start_point[0] + 1, end_line=call.end_point[0] + 1,
                   args=tuple(positional), kwargs=tuple(keywords), func=func, cls=cls)
        )

    assign_nodes = [(n, "=") for n in caps.get("assign", ())] + \
        [(n, "aug") for n in caps.get("aug", ())]
    for node, op in sorted(assign_nodes, key=lambda x: x[0].start_byte):
        lhs, rhs = node.child_by_field_name("left"), node.child_by_field_name("right")
        if lhs is None:
            continue
        if op == "aug":
            op_node = node.child_by_field_name("operator")
            op = _text(src, op_node) if op_node is not None else "+="
        ann = node.child_by_field_name("type")
        func, cls = enclosing(node.start_byte)
        scope, kind = (func, "function") if func else ((cls, "class") if cls else ("module", "module"))
        facts.assigns.append(
            _built(Assign,
                   target=_text(src, lhs), annotation=_text(src, ann) if ann is not None else None,
                   value=None if rhs is None else
                   _text(src, rhs, _REGISTRY_MAX if kind == "module" and rhs.type == "dictionary"
                         else _TEXT_MAX),
                   line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
                   scope=scope or "module", scope_kind=kind, op=op)
        )

    facts.blocks = _blocks(src, caps, enclosing)
    returned: dict[str, list[str]] = {}
    for node in sorted(caps.get("exit.r", ()), key=_start_byte):
        value = node.named_children[0] if node.named_child_count else None
        func, _cls = enclosing(node.start_byte)
        if value is not None and value.type != "comment" and func:
            returned.setdefault(func, []).append(_text(src, value))
    facts.return_values = {f: tuple(v) for f, v in returned.items()}
    for node in sorted(caps.get("import", ()), key=_start_byte):
        origins: dict[str, str] = {}
        _parse_imports(src, node, origins)
        func, _cls = enclosing(node.start_byte)
        line = node.start_point[0] + 1
        for origin in dict.fromkeys(origins.values()):
            facts.import_sites.append(_built(ImportSite, origin=origin, line=line, func=func))

    # count raw bytes first and decode each distinct name once
    idents = facts.idents
    raw_ids = Counter([src[node.start_byte : node.end_byte] for node in caps.get("id", ())])
    for name, n in raw_ids.items():
        idents[_intern(name.decode("utf-8", "replace"))] += n
    return facts
