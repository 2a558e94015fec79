"""The six languages of the official A2A SDKs, as `sdk_code` needs to know them.

Each `Grammar` names a tree-sitter grammar from PyPI and the node types that play a
part in the facts: the declarations that open a scope (a class, a function, a constant),
the branches (`if`), the multi-way branches (`switch`, `match`, a map literal) and
their arms, and how an enum's members and their wire names are written. Node types are
the grammars' own; a grammar release that renames one makes the planted-file tests fail.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache

import tree_sitter

# path suffix → language key
SUFFIXES = {".java": "java", ".go": "go", ".cs": "csharp", ".rs": "rust", ".ts": "typescript",
            ".py": "python", ".pyi": "python"}


@dataclass(frozen=True)
class Grammar:
    """How one language writes what the SDK facts are read from."""

    key: str
    module: str  # the PyPI grammar's import name
    function: str  # its function that returns the language
    containers: frozenset[str]  # class-like declarations: their name prefixes members
    functions: frozenset[str]  # function and method declarations
    variables: frozenset[str]  # declarators whose name field names a constant or field
    enums: frozenset[str]  # enum declarations
    members: frozenset[str]  # an enum's member declarations
    branches: frozenset[str]  # if statements/expressions: "condition" and "consequence"
    multiway: frozenset[str]  # switch/match statements and expressions, map literals
    arms: frozenset[str]  # one arm of a multi-way branch (or one pair of a map literal)
    strings: frozenset[str]  # string literal nodes
    comments: frozenset[str] = frozenset({"comment", "line_comment", "block_comment"})
    errors: frozenset[str] = field(default=frozenset())  # nodes that raise: throw, panic …


GRAMMARS = {g.key: g for g in (
    Grammar(
        "java", "tree_sitter_java", "language",
        containers=frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                              "record_declaration"}),
        functions=frozenset({"method_declaration", "constructor_declaration"}),
        variables=frozenset({"variable_declarator"}),
        enums=frozenset({"enum_declaration"}), members=frozenset({"enum_constant"}),
        branches=frozenset({"if_statement"}),
        multiway=frozenset({"switch_expression", "switch_statement"}),
        arms=frozenset({"switch_rule", "switch_block_statement_group"}),
        strings=frozenset({"string_literal"}), errors=frozenset({"throw_statement"})),
    Grammar(
        "go", "tree_sitter_go", "language",
        containers=frozenset(),
        functions=frozenset({"function_declaration", "method_declaration"}),
        variables=frozenset({"const_spec", "var_spec"}),
        enums=frozenset(), members=frozenset({"const_spec"}),
        branches=frozenset({"if_statement"}),
        multiway=frozenset({"expression_switch_statement", "type_switch_statement",
                            "composite_literal"}),
        arms=frozenset({"expression_case", "default_case", "keyed_element"}),
        strings=frozenset({"interpreted_string_literal", "raw_string_literal"})),
    Grammar(
        "csharp", "tree_sitter_c_sharp", "language",
        containers=frozenset({"class_declaration", "struct_declaration", "record_declaration",
                              "interface_declaration", "enum_declaration"}),
        functions=frozenset({"method_declaration", "constructor_declaration",
                             "local_function_statement", "property_declaration"}),
        variables=frozenset({"variable_declarator"}),
        enums=frozenset({"enum_declaration"}), members=frozenset({"enum_member_declaration"}),
        branches=frozenset({"if_statement"}),
        multiway=frozenset({"switch_expression", "switch_statement"}),
        arms=frozenset({"switch_expression_arm", "switch_section"}),
        strings=frozenset({"string_literal", "verbatim_string_literal"}),
        errors=frozenset({"throw_statement", "throw_expression"})),
    Grammar(
        "rust", "tree_sitter_rust", "language",
        containers=frozenset({"impl_item", "trait_item", "enum_item", "struct_item"}),
        functions=frozenset({"function_item"}),
        variables=frozenset({"const_item", "static_item"}),
        enums=frozenset({"enum_item"}), members=frozenset({"enum_variant"}),
        branches=frozenset({"if_expression"}),
        multiway=frozenset({"match_expression"}),
        arms=frozenset({"match_arm"}),
        strings=frozenset({"string_literal", "raw_string_literal"})),
    Grammar(
        "typescript", "tree_sitter_typescript", "language_typescript",
        containers=frozenset({"class_declaration", "abstract_class_declaration",
                              "interface_declaration", "enum_declaration"}),
        functions=frozenset({"function_declaration", "method_definition"}),
        variables=frozenset({"variable_declarator", "public_field_definition",
                             "type_alias_declaration"}),
        enums=frozenset({"enum_declaration"}), members=frozenset({"enum_assignment",
                                                                  "property_identifier"}),
        branches=frozenset({"if_statement"}),
        multiway=frozenset({"switch_statement", "object"}),
        arms=frozenset({"switch_case", "switch_default", "pair"}),
        strings=frozenset({"string", "template_string"}),
        errors=frozenset({"throw_statement"})),
    Grammar(
        "python", "tree_sitter_python", "language",
        containers=frozenset({"class_definition"}),
        functions=frozenset({"function_definition"}),
        variables=frozenset({"assignment"}),
        enums=frozenset({"class_definition"}), members=frozenset({"assignment"}),
        branches=frozenset({"if_statement", "elif_clause"}),
        multiway=frozenset({"match_statement", "dictionary"}),
        arms=frozenset({"case_clause", "pair"}),
        strings=frozenset({"string"}),
        errors=frozenset({"raise_statement"})),
)}


def grammar_for(path: str) -> Grammar | None:
    """The grammar of a file, by its suffix (`.pyi` is Python), or None."""
    for suffix, key in SUFFIXES.items():
        if path.endswith(suffix):
            return GRAMMARS[key]
    return None


@cache
def parser(key: str) -> tree_sitter.Parser:
    grammar = GRAMMARS[key]
    language = getattr(importlib.import_module(grammar.module), grammar.function)()
    return tree_sitter.Parser(tree_sitter.Language(language))
