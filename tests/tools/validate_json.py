#!/usr/bin/env python3
"""Validate JSON documents against a JSON Schema (draft 2020-12).

Usage: validate_json.py SCHEMA FILE...

Prints every error with the JSON path of the offending value, one per line,
e.g. "out.json: $.probes[3].status: 'bogus' is not one of [...]".
Exit status: 0 all valid, 1 some file invalid, 2 usage error or a file (or the
schema) that cannot be read, parsed or used.

Uses only the jsonschema 4.x API that Debian's python3-jsonschema (4.10) has.
"""
import json
import sys

USAGE_OR_UNREADABLE = 2
INVALID = 1


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def branch_errors(error):
    """The errors to show for one failure.

    A failed oneOf/anyOf carries the errors of every branch in `context`,
    most of which only say "this is not the other kind of value". Show the
    branch that came closest: the one that agrees on the value's type, then on
    its own shape (required keys, no extra keys), then with the fewest and
    deepest errors. When two branches come equally close, neither tells more
    than the error itself ("... is not valid under any of the given schemas").
    """
    if not error.context:
        return [error]
    branches = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)

    def closeness(errors):
        own = [e for e in errors if not e.relative_path]
        wrong_type = sum(1 for e in own if e.validator == "type")
        return (wrong_type, len(own) - wrong_type, len(errors), -max(len(e.relative_path) for e in errors))

    ranked = sorted(branches.values(), key=closeness)
    if len(ranked) > 1 and closeness(ranked[0]) == closeness(ranked[1]):
        return [error]
    shown = []
    for sub in ranked[0]:
        shown.extend(branch_errors(sub))
    return shown


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return USAGE_OR_UNREADABLE

    try:
        from jsonschema import Draft202012Validator
    except ImportError as e:
        print(f"validate_json: the jsonschema module is missing: {e}", file=sys.stderr)
        return USAGE_OR_UNREADABLE

    schema_path = argv[1]
    try:
        schema = load(schema_path)
        Draft202012Validator.check_schema(schema)
    except Exception as e:  # unreadable, not JSON, or not a valid schema
        print(f"{schema_path}: unusable schema: {e}", file=sys.stderr)
        return USAGE_OR_UNREADABLE
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    status = 0
    for path in argv[2:]:
        try:
            document = load(path)
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read: {e}", file=sys.stderr)
            status = max(status, USAGE_OR_UNREADABLE)
            continue
        errors = []
        for error in validator.iter_errors(document):
            errors.extend(branch_errors(error))
        if not errors:
            print(f"{path}: valid")
            continue
        status = max(status, INVALID)
        errors.sort(key=lambda e: (list(map(str, e.absolute_path)), e.message))
        for e in errors:
            print(f"{path}: {e.json_path}: {e.message}")
        print(f"{path}: {len(errors)} error(s)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
