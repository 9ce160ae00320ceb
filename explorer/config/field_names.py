"""The field names JSON output keeps as keys even when a secret is the same word (`explorer.config.spec`).

A server may send a secret back as an object key (a map keyed by the token it was given), and a key that
is the secret leaks it as much as a value does, so such a key is masked. But a short env value is often
an ordinary word (`MODE=text`, `FORMAT=json`), and masking a key such as `text` would break the shape of
every document (`contents[0].text`): a key named here is never masked, while every value equal to or
holding the secret still is. The names are the protocol's (every field of the SDK's `mcp.types`, checked
by tests/test_masking_keys.py against the installed SDK), JSON Schema's (tool and elicitation schemas) and
those the explorer writes in its own output (checked against the CLI's sources by the same test).
"""

from __future__ import annotations

__all__ = ["FIELD_NAMES"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PROTOCOL = _words(
    """
    _meta action annotations argument arguments audience blob cacheScope call cancel capabilities
    clientInfo code completion completions content contents context costPriority create createMessage
    createdAt cursor data description destructiveHint elicitation elicitationId elicitations error
    execution experimental extensions form hasMore hints icons id idempotentHint includeContext input
    inputRequests inputResponses inputSchema instructions intelligencePriority isError jsonrpc
    lastModified lastUpdatedAt level list listChanged logger logging maxTokens message messages metadata
    method mimeType mode model modelPreferences name nextCursor notifications openWorldHint outputSchema
    params pollInterval priority progress progressToken prompts promptsListChanged protocolVersion
    readOnlyHint reason ref requestId requestState requested requestedSchema requests required
    requiredCapabilities resource resourceSubscriptions resourceTemplates resources resourcesListChanged
    result resultType role roots sampling serverInfo size sizes speedPriority src status statusMessage
    stopReason stopSequences structuredContent subscribe supported supportedVersions systemPrompt task
    taskId taskSupport tasks temperature text theme title toolChoice toolUseId tools toolsListChanged
    total ttl ttlMs type uri uriTemplate url value values version websiteUrl
    """
)

_JSON_SCHEMA = _words(
    """
    additionalItems additionalProperties allOf anyOf const contains contentEncoding contentMediaType
    default definitions dependencies deprecated discriminator enum enumNames example examples
    exclusiveMaximum exclusiveMinimum format maxItems maxLength maximum minItems minLength minimum
    multipleOf not nullable oneOf pattern patternProperties prefixItems properties propertyNames readOnly
    uniqueItems writeOnly
    """
)

_EXPLORER = _words(
    """
    alternatives asked bytes children complete config count duplicates era interrupted items listedBy
    lists logs matches nearMisses nearestPrefix notes offered ok origin pages prefix problems prompt protocol
    segment server servers skipReasons skipped stoppedBy template templates templatesSupported themes time
    timeout tool transport undefined versions warning watch
    """
)

FIELD_NAMES: frozenset[str] = _PROTOCOL | _JSON_SCHEMA | _EXPLORER
"""Keys never masked: the protocol's, JSON Schema's and the explorer's own field names."""
