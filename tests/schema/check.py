"""Validates settings documents against hookshot's JSON Schema with the
reference `jsonschema` implementation.

usage: check.py SCHEMA.json DOCS.json
DOCS.json holds [{"name": ..., "doc": ..., "valid": true|false}, ...].
Prints one line per document whose verdict differs from "valid", then
exits 1 if there was any.
"""

import json
import sys

import jsonschema


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        docs = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    wrong = 0
    for d in docs:
        errors = sorted(validator.iter_errors(d["doc"]), key=lambda e: list(e.path))
        if bool(errors) == d["valid"]:
            wrong += 1
            if errors:
                where = "/".join(str(p) for p in errors[0].path)
                print(f"{d['name']}: the schema rejects what the parser accepts: /{where}: {errors[0].message}")
            else:
                print(f"{d['name']}: the schema accepts what the parser rejects")
    print(f"{len(docs)} documents, {wrong} disagreements")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
