"""The TypeScript/JavaScript grammars and the one query that pulls every fact tsfacts needs."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter as ts
import tree_sitter_javascript as tsjs
import tree_sitter_typescript as tsts

from .tsblocks import BLOCKS_QUERY
from .tsdefaults import DEFAULTS_QUERY

# file suffix -> grammar; the .tsx grammar also reads JSX inside TypeScript
GRAMMAR_OF_SUFFIX = {
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
}
FACT_LANG = {"typescript": "typescript", "tsx": "typescript", "javascript": "javascript"}

_FUNC_VALUE = "[(arrow_function) (function_expression) (generator_function)]"
# Statements at module level and directly in function bodies are read by one-level walks over
# their parents' children (tsfacts._assigns): patterns rooted at the program or at every function
# stay open over the whole subtree and cost the cursor more than the walk does.
_COMMON_QUERY = f"""
(call_expression) @call
(new_expression) @call
(import_statement) @import
(export_statement source: (string) @reexport)
(comment) @comment
(function_declaration) @def
(generator_function_declaration) @def
(method_definition) @def
(function_expression name: (identifier)) @def.named
(arguments [(arrow_function) (function_expression)] @callback)
(variable_declarator value: {_FUNC_VALUE}) @bound
(pair value: {_FUNC_VALUE}) @bound
(assignment_expression right: {_FUNC_VALUE}) @bound
(export_statement value: {_FUNC_VALUE}) @bound
(class_declaration) @class
(variable_declarator value: (class)) @class.bound
(export_statement value: (class)) @class.bound
(variable_declarator value: (object)) @object
(pair value: (object)) @object
(assignment_expression right: (object)) @object
(export_statement value: (object)) @object
"""
_JS_QUERY = f"""
(field_definition value: {_FUNC_VALUE}) @bound
(field_definition) @assign.field
"""
_TS_QUERY = f"""
(public_field_definition value: {_FUNC_VALUE}) @bound
(public_field_definition) @assign.field
(abstract_class_declaration) @class
(variable_declarator value: [(as_expression (object)) (satisfies_expression (object))]) @object
(internal_module) @object
"""


@dataclass
class Grammar:
    language: ts.Language
    query: ts.Query
    label: str
    defaults_query: ts.Query  # tsdefaults.DEFAULTS_QUERY


_grammars: dict[str, Grammar] = {}


def grammar(name: str) -> Grammar:
    """The language and compiled query of one grammar, built on first use (parsing.py builds
    the ones a repository needs before its workers fork, so they inherit them)."""
    g = _grammars.get(name)
    if g is None:
        if name == "javascript":
            lang, extra, label = ts.Language(tsjs.language()), _JS_QUERY, "JavaScript"
        else:
            raw = tsts.language_tsx() if name == "tsx" else tsts.language_typescript()
            lang, extra, label = ts.Language(raw), _TS_QUERY, "TypeScript"
        g = _grammars[name] = Grammar(lang, ts.Query(lang, _COMMON_QUERY + BLOCKS_QUERY + extra),
                                      label,
                                      ts.Query(lang, DEFAULTS_QUERY))
    return g


def grammar_for(path: str) -> str | None:
    """The grammar that parses PATH, or None when it is not TypeScript/JavaScript."""
    dot = path.rfind(".")
    return GRAMMAR_OF_SUFFIX.get(path[dot:].lower()) if dot > path.rfind("/") else None


def is_ts_path(path: str) -> bool:
    return grammar_for(path) is not None
