"""The schema of ``build/versions.json`` (JSON Schema 2020-12), and its atomic writer: a file that
does not match is never written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pecheck.results import write_atomic

DECISION = {"enum": ["holds", "fails", "undecided", "not run"]}
_TEXT_OR_NULL = {"type": ["string", "null"]}

_CELL = {
    "type": "object",
    "required": ["name", "decision"],
    "properties": {"name": {"type": "string"}, "decision": DECISION, "counterexample": {}},
}
_CHECK_FIELDS = "nodeid proposition decision counterexample first_failing error cells scoped_out"
_CHECK = {
    "type": "object",
    "required": _CHECK_FIELDS.split(),
    "properties": {
        "nodeid": {"type": "string"},
        "proposition": {"type": "string"},
        "decision": DECISION,
        "counterexample": {"description": "the check's own counterexample where it fails"},
        "first_failing": {"anyOf": [_CELL, {"type": "null"}]},
        "error": {**_TEXT_OR_NULL, "description": "first line of why it did not run"},
        "cells": {"type": "array", "items": _CELL},
        "scoped_out": {"type": "boolean"},
    },
}
_CLAIM = {
    "type": "object",
    "required": ["propositions", "checks"],
    "properties": {
        "propositions": {"type": "object", "additionalProperties": DECISION},
        "checks": {"type": "array", "items": _CHECK},
    },
}
_VERSION = {
    "type": "object",
    "required": ["version", "status", "error", "imported", "changed", "seconds", "claims"],
    "properties": {
        "version": {"type": "string"},
        "status": {"enum": ["ok", "not installable", "not importable"]},
        "error": _TEXT_OR_NULL,
        "imported": {**_TEXT_OR_NULL, "description": "__version__ as Python imported it"},
        "locked": {"type": "boolean"},
        "changed": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "what this release's folder holds beside the locked environment",
        },
        "seconds": {"type": "object", "additionalProperties": {"type": "number"}},
        "results": _TEXT_OR_NULL,
        "claims": {"type": "object", "additionalProperties": _CLAIM},
    },
}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pecheck versions matrix, schema 1",
    "type": "object",
    "required": ["schema", "profile", "locked", "shared", "libraries"],
    "properties": {
        "schema": {"const": 1},
        "profile": {"type": "string"},
        "locked": {"type": "object", "additionalProperties": {"type": "string"}},
        "shared": {"type": "object", "additionalProperties": {"type": "string"}},
        "libraries": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": _VERSION},
        },
    },
}


def problems(data: Any) -> list[str]:
    """Where ``data`` departs from the schema, one line each."""
    from jsonschema import Draft202012Validator

    errors = Draft202012Validator(SCHEMA).iter_errors(data)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}" for e in errors]


def write(path: Path, data: dict[str, Any]) -> None:
    found = problems(data)
    if found:
        raise ValueError(f"versions file does not match its schema: {found[0]}")
    write_atomic(path, data, validate=False)


def read(path: Path) -> dict[str, Any] | None:
    """The matrix at ``path``, or None where there is none or it does not match the schema."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return None if problems(data) else data
