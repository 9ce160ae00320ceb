"""Ask a server's `completion/complete` for suggestions, never failing the caller.

Why: the template and prompt forms suggest values as the user types. A server without the
`completions` capability, one that answers an error, or one that sends a malformed answer must only
cost the suggestions, never the form. So every call returns a `Suggestions` record: the values (possibly
empty) and, when they are empty for a reason other than "nothing matches", that reason in one sentence.

    completer = Completer(connection)
    found = await completer.template("metrics://{region}/{service}/latest", "service", "ch",
                                     {"region": "eu-west"})
    found.values   # ["checkout"]
    found.reason   # None, or e.g. "the server does not offer completions"

The other fields already filled go along as `context.arguments` (empty values are left out), so a
server can narrow one argument by another (pick a region, then a service of that region).
Cancellation is not swallowed: a form cancels a stale request by cancelling the task awaiting it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from explorer.connection.errors import ServerFault, describe_exception
from explorer.model.suggestions import Suggestions, parse_completion

__all__ = ["Completer", "CompletionSource"]


class CompletionSource(Protocol):
    """What a Completer needs of a connection (a `ServerConnection` is one)."""

    @property
    def identity(self) -> Any: ...

    async def complete(
        self,
        ref: Mapping[str, Any],
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
    ) -> dict[str, Any]: ...


def _context(context: Mapping[str, str] | None, argument: str) -> dict[str, str]:
    """The other filled fields: strings only, non-empty, never the argument being completed."""
    if not context:
        return {}
    return {k: v for k, v in context.items() if k != argument and isinstance(v, str) and v}


class Completer:
    """Completion for one server; `source` None means the server is not connected."""

    def __init__(self, source: CompletionSource | None) -> None:
        self.source = source

    @property
    def unavailable(self) -> str | None:
        """Why this server cannot suggest anything (None when it can)."""
        if self.source is None:
            return "the server is not connected"
        identity = self.source.identity
        if identity is None:
            return "the server is not connected"
        if not identity.has("completions"):
            return "the server does not offer completions"
        return None

    async def template(
        self, uri_template: str, variable: str, value: str, context: Mapping[str, str] | None = None
    ) -> Suggestions:
        """Suggestions for one variable of a resource template (`ref/resource`)."""
        return await self._ask({"type": "ref/resource", "uri": uri_template}, variable, value, context)

    async def prompt(
        self, name: str, argument: str, value: str, context: Mapping[str, str] | None = None
    ) -> Suggestions:
        """Suggestions for one argument of a prompt (`ref/prompt`)."""
        return await self._ask({"type": "ref/prompt", "name": name}, argument, value, context)

    async def _ask(
        self, ref: dict[str, Any], argument: str, value: str, context: Mapping[str, str] | None
    ) -> Suggestions:
        why = self.unavailable
        if why is not None or self.source is None:
            return Suggestions(reason=why)
        try:
            completion: object = await self.source.complete(
                ref, argument, value, _context(context, argument) or None
            )
        except ServerFault as fault:
            return Suggestions(reason=fault.message)
        except Exception as exc:  # a bug or an odd transport error still only costs the suggestions
            # Said as every fault is: a library's exception with no text once showed its class name.
            return Suggestions(reason=describe_exception(exc, action="completion failed").message)
        if not isinstance(completion, Mapping):
            return Suggestions(reason="the server's completion is not a JSON object")
        return parse_completion(completion)
