"""Results that are not the answer yet: the 2026-07-28 "input required" result, and other result types.

In the 2026-07-28 protocol a server may answer `resources/read` or `prompts/get` with `{"resultType":
"input_required", "inputRequests": {KEY: {"method": ..., "params": ...}}, "requestState": ...}`: it
wants the client to answer those requests (ask the user, run an LLM completion, list its roots) and then
send the original request again. The explorer does not answer them, so the user must be told what the
server asked for instead of "the result has no 'contents' list". Strings here stay raw (callers
sanitize them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["describe_unfinished", "unfinished_data"]

_SHOWN = 200  # characters of a server's own prompt text quoted in the sentence


def describe_unfinished(result: Mapping[str, Any]) -> str | None:
    """None for a final result (no `resultType`, or "complete"); else one sentence on what the server did."""
    kind = result.get("resultType")
    if kind is None or kind == "complete":
        return None
    if kind != "input_required":
        return (
            f"the server answered with a result of type {str(kind)[:_SHOWN]!r} instead of the result itself, "
            "which the explorer does not handle"
        )
    text = 'the server needs more input before it answers (a 2026-07-28 "input required" result)'
    requests = result.get("inputRequests")
    asked = [_describe(request) for request in requests.values()] if isinstance(requests, Mapping) else []
    if asked:
        text += ": it asked for " + "; ".join(asked)
    return text + "; the explorer does not answer such requests"


def unfinished_data(result: Mapping[str, Any]) -> dict[str, Any]:
    """What to keep of an unfinished result as an error's data (the opaque `requestState` is left out)."""
    return {key: result[key] for key in ("resultType", "inputRequests") if key in result}


def _describe(request: object) -> str:
    if not isinstance(request, Mapping):
        return "a request that is not an object"
    method = request.get("method")
    params = request.get("params")
    params = params if isinstance(params, Mapping) else {}
    if method == "elicitation/create":
        message = params.get("message")
        quoted = f" {_quote(message)}" if isinstance(message, str) and message else ""
        url = params.get("url")
        if params.get("mode") == "url" and isinstance(url, str):
            return f"a visit to {_quote(url)} (elicitation/create){quoted}"
        return f"input from you (elicitation/create){quoted}"
    if method == "sampling/createMessage":
        return "an LLM completion (sampling/createMessage)"
    if method == "roots/list":
        return "the client's roots (roots/list)"
    if isinstance(method, str):
        return f"{_quote(method)}, a request the explorer does not know"
    return "a request without a method"


def _quote(text: str) -> str:
    return '"' + (text if len(text) <= _SHOWN else text[:_SHOWN] + "…") + '"'
