"""Validates requests and results read on standard input ({"requests": [...], "results": [...]})
with the pydantic models of PyPI `mcp`: each request as the params of `elicitation/create`, each
result as an `ElicitResult`. Exits 1, naming the first that fails."""
import json
import sys

from pydantic import TypeAdapter

import mcp.types as types

given = json.load(sys.stdin)
params = TypeAdapter(types.ElicitRequestParams)
for request in given["requests"]:
    params.validate_python(request)
for result in given["results"]:
    types.ElicitResult.model_validate(result)
print(f"checked {len(given['requests'])} requests and {len(given['results'])} results")
