"""Compound statements of a TypeScript/JavaScript file as pyfacts `Block`s (the loops, branches
and try/catch the session and the defaults read), taken from the captures of the one query.

Conventions, so the layers above read both languages alike:

- `for (init; cond; step)`: kind "for", head the text between the parentheses (the condition
  is where a cap is compared); `for (const x of xs)` / `for (k in o)`: kind "for", head the
  iterable, target the loop variable; `while (c)` and `do ... while (c)`: kind "while", head c.
- `if (c)`: kind "if", spanning its condition and consequence only; `else if (c)`: kind
  "elif" (the `if` inside the else clause); a plain `else`: kind "else".
- `try`: "try"; `catch (e)`: "except" with head the parameter; `switch (v)`: "switch" with head
  v; each `case x:` "case" with head x (`default:` has head "default").
- heads are stripped of their outer parentheses; exits as in pyfacts (b, c, r, x for break,
  continue, return, throw).
"""

from __future__ import annotations

import bisect

from .pyfacts import Block, _built, _text

# capture name -> block kind
BLOCK_CAPTURES = {"blk.for": "for", "blk.forin": "for", "blk.while": "while",
                  "blk.do": "while", "blk.if": "if", "blk.else": "else", "blk.try": "try",
                  "blk.catch": "except", "blk.switch": "switch", "blk.case": "case",
                  "blk.default": "case"}
EXIT_CAPTURES = {"exit.b": "b", "exit.c": "c", "exit.r": "r", "exit.x": "x"}

BLOCKS_QUERY = """
(for_statement) @blk.for
(for_in_statement) @blk.forin
(while_statement) @blk.while
(do_statement) @blk.do
(if_statement) @blk.if
(else_clause) @blk.else
(try_statement) @blk.try
(catch_clause) @blk.catch
(switch_statement) @blk.switch
(switch_case) @blk.case
(switch_default) @blk.default
(break_statement) @exit.b
(continue_statement) @exit.c
(return_statement) @exit.r
(throw_statement) @exit.x
"""


def _unparen(text: str) -> str:
    t = text.strip()
    if t.startswith("(") and t.endswith(")"):
        return t[1:-1].strip()
    return t


def _line(node) -> int:
    return node.start_point[0] + 1


def blocks(src: bytes, caps: dict, enclosing) -> list[Block]:
    """The blocks of one file, in source order (see the module docstring). ENCLOSING(byte)
    gives (function qualname, class qualname) of a position."""
    raw = []  # (start, end, kind, line, end_line, head, func, target)
    elifs: set[int] = set()  # start bytes of `if` statements that are the body of an else
    for node in caps.get("blk.else", ()):
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        if inner is not None and inner.type == "if_statement":
            elifs.add(inner.start_byte)
    for cap, kind in BLOCK_CAPTURES.items():
        for node in caps.get(cap, ()):
            start, end = node.start_byte, node.end_byte
            end_line = node.end_point[0] + 1
            head = target = ""
            t = node.type
            if t == "for_statement":
                body = node.child_by_field_name("body")
                stop = body.start_byte if body is not None else end
                head = src[start:min(stop, start + 400)].decode("utf-8", "replace")
                head = head[head.find("(") + 1:head.rfind(")")] if "(" in head else ""
            elif t == "for_in_statement":
                right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
                head = _text(src, right) if right is not None else ""
                target = _text(src, left) if left is not None else ""
            elif t in ("while_statement", "do_statement", "if_statement", "switch_statement"):
                c = node.child_by_field_name("condition" if t != "switch_statement" else "value")
                head = _unparen(_text(src, c)) if c is not None else ""
                if t == "if_statement":  # an `else if` is named "elif" where it is appended
                    # (never by rebinding KIND: that is the loop's, and every later `if` of the
                    # capture list would turn "elif" too, in whatever order captures come)
                    body = node.child_by_field_name("consequence")
                    if body is not None:
                        end, end_line = body.end_byte, body.end_point[0] + 1
            elif t == "else_clause":
                inner = next((c for c in node.named_children if c.type != "comment"), None)
                if inner is not None and inner.type == "if_statement":
                    continue  # `else if`: the inner if is the elif block
            elif t == "catch_clause":
                p = node.child_by_field_name("parameter")
                head = _text(src, p) if p is not None else ""
            elif t == "switch_case":
                v = node.child_by_field_name("value")
                head = _text(src, v) if v is not None else ""
            elif t == "switch_default":
                head = "default"
            func, _cls = enclosing(start)
            raw.append((start, end, kind if t != "if_statement" or start not in elifs else "elif",
                        _line(node), end_line, " ".join(head.split())[:400], func, target))
    raw.sort(key=lambda r: (r[0], -r[1]))
    exits: list[set[str]] = [set() for _ in raw]
    starts = [r[0] for r in raw]
    parents: list[int] = []
    stack: list[int] = []
    for i, r in enumerate(raw):
        while stack and raw[stack[-1]][1] <= r[0]:
            stack.pop()
        parents.append(stack[-1] if stack else -1)
        stack.append(i)
    for cap, letter in EXIT_CAPTURES.items():
        for node in caps.get(cap, ()):
            b = node.start_byte
            i = bisect.bisect_right(starts, b) - 1
            while i >= 0 and b >= raw[i][1]:
                i = parents[i]
            if i >= 0:
                exits[i].add(letter)
    return [_built(Block, kind=k, line=ln, end_line=el, head=h, func=fn,
                   exits="".join(sorted(exits[i])), target=tg)
            for i, (_s, _e, k, ln, el, h, fn, tg) in enumerate(raw)]
