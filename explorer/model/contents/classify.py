"""Classify content items and `resources/read` results into `Content` records.

Why a module of its own: this is the decision itself (MIME type, then extension, then sniffing; text
versus blob; caps; the rules are in the package docstring), built from the tables, decoders and header
readers of the sibling modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from explorer.model.contents.binary import Base64Error, decode_prefix
from explorer.model.contents.charsets import decode_text
from explorer.model.contents.images import image_info
from explorer.model.contents.json_text import pretty_json
from explorer.model.contents.mimes import extension_family, mime_family, normalize_mime
from explorer.model.contents.record import DEFAULT_CAP, TEXT_KINDS, Content, ContentKind

UTF8_CHUNK = 1 << 20
"""Characters encoded at a time to count a text's UTF-8 bytes: memory stays bounded for a 50 MB text."""


def utf8_size(text: str, start: int = 0) -> int:
    """The UTF-8 bytes of `text[start:]` (a lone surrogate counts 3, as `surrogatepass` writes it).

    Free for ASCII (CPython knows); otherwise encoded a chunk at a time, never the whole text at once.
    """
    if text.isascii():
        return max(0, len(text) - start)
    return sum(
        len(text[at : at + UTF8_CHUNK].encode("utf-8", "surrogatepass"))
        for at in range(start, len(text), UTF8_CHUNK)
    )


def cap_text(text: str, cap: int | None) -> tuple[str, int, int]:
    """(the text to hold, its full UTF-8 size, the UTF-8 size of what is held), cut at `cap` bytes.

    The cut falls between characters, so what is held may be a few bytes under the cap. One pass over
    the text: the first `cap` characters are encoded once (they hold at least the first `cap` bytes),
    the rest only counted, so a 50 MB text costs one bounded encode, never two.
    """
    if text.isascii():
        length = len(text)
        if cap is None or length <= cap:
            return text, length, length
        return text[:cap], length, cap
    if cap is None:
        size = utf8_size(text)
        return text, size, size
    head = text[:cap] if len(text) > cap else text
    encoded = head.encode("utf-8", "surrogatepass")
    size = len(encoded) + utf8_size(text, len(head))
    if size <= cap:
        return text, size, size
    if len(encoded) <= cap:  # the head is `cap` characters of ASCII: the cut is right after it
        return head, size, len(encoded)
    cut = cap
    while cut > 0 and encoded[cut] & 0xC0 == 0x80:  # back to the first byte of the character cut in two
        cut -= 1
    return encoded[:cut].decode("utf-8", "surrogatepass"), size, cut


def _looks_like_json(text: str) -> bool:
    head = text.lstrip()[:1]
    tail = text.rstrip()[-1:]
    return (head, tail) in (("{", "}"), ("[", "]"))


def _text_content(
    uri: str,
    mime: str | None,
    text: str,
    *,
    size: int,
    shown_bytes: int,
    truncated: bool,
    family: tuple[ContentKind, str | None] | None,
) -> Content:
    """A text-like content from a (possibly capped) text, given what the MIME type or extension said."""
    if size == 0:
        return Content("empty", uri, mime, size=0)
    kind, language = family if family is not None else ("text", None)
    if kind in ("image", "binary"):
        kind, language = "text", None
    sniff = family is None and not truncated and _looks_like_json(text)
    if kind == "json" or sniff:
        if truncated:
            return Content("json", uri, mime, text=text, size=size, truncated=True, shown_bytes=shown_bytes)
        pretty, problem, informational = pretty_json(text)
        if pretty is not None:
            return Content(
                "json", uri, mime, text=text, size=size, pretty_json=pretty, shown_bytes=shown_bytes
            )
        if not sniff:
            return Content(
                "text",
                uri,
                mime,
                text=text,
                size=size,
                problem=problem,
                informational=informational,
                shown_bytes=shown_bytes,
            )
        kind = "text"
    return Content(
        kind, uri, mime, language=language, text=text, size=size, truncated=truncated, shown_bytes=shown_bytes
    )


def blob_family(uri: str, mime: str | None) -> tuple[ContentKind, str | None] | None:
    """What a blob's MIME type, else its URI, says it holds (`text/plain`, generic for a text, is text
    for a blob); None when nothing says. A text kind means its bytes are read as text (`charsets`)."""
    normalized = normalize_mime(mime)
    family = mime_family(normalized) or extension_family(uri)
    if family is None and normalized == "text/plain":
        return "text", None
    return family


def _blob_content(uri: str, mime: str | None, blob: str, cap: int | None) -> Content:
    try:
        data, size = decode_prefix(blob, cap)
    except Base64Error as error:
        return Content("invalid", uri, mime, size=len(blob), problem=f"blob is not valid base64: {error}")
    if size == 0:
        return Content("empty", uri, mime, size=0)
    truncated = size > len(data)
    family = blob_family(uri, mime)
    problem: str | None = None
    if family is not None and family[0] in TEXT_KINDS:
        decoded = decode_text(data, mime, final=not truncated)
        if decoded.text is None:
            problem = decoded.note
        else:
            content = _text_content(
                uri, mime, decoded.text, size=size, shown_bytes=len(data), truncated=truncated, family=family
            )
            if decoded.note is None:
                return content
            # Said first: a JSON problem of the text is about the decoded text.
            notes = decoded.note if content.problem is None else f"{decoded.note}; {content.problem}"
            # Muted only when every note is: a JSON problem after the charset's note is still one.
            informational = decoded.informational and (content.problem is None or content.informational)
            return replace(content, problem=notes, informational=informational)
    info = image_info(data)
    if (family is not None and family[0] == "image") or (family is None and info is not None):
        if info is None:
            problem = "the image header is not one of PNG, GIF, JPEG, WebP, BMP"
        return Content(
            "image", uri, mime, data=data, size=size, truncated=truncated, problem=problem, image=info
        )
    return Content(
        "binary", uri, mime, data=data, size=size, truncated=truncated, problem=problem, image=info
    )


def classify_item(item: object, *, cap: int | None = DEFAULT_CAP, index: int = 0) -> Content:
    """Classify one content item (uri, mimeType, text or blob), e.g. a prompt's embedded resource."""
    if cap is not None and cap < 0:
        raise ValueError("cap must be >= 0 or None")
    if not isinstance(item, Mapping):
        return Content(
            "invalid", "", problem=f"content #{index + 1} is not an object ({type(item).__name__})"
        )
    raw_uri = item.get("uri")
    uri = raw_uri if isinstance(raw_uri, str) else ""
    raw_mime = item.get("mimeType")
    mime = raw_mime if isinstance(raw_mime, str) else None
    problem = shape_problem(item)
    if problem is not None:
        return Content("invalid", uri, mime, problem=problem)
    if "text" in item:
        text = item["text"]
        shown, size, shown_bytes = cap_text(text, cap)
        family = mime_family(normalize_mime(mime)) or extension_family(uri)
        truncated = shown_bytes < size
        return _text_content(
            uri, mime, shown, size=size, shown_bytes=shown_bytes, truncated=truncated, family=family
        )
    return _blob_content(uri, mime, item["blob"], cap)


def shape_problem(item: Mapping[str, Any]) -> str | None:
    """Why a content item has no usable text or blob (None when it has one): one sentence for every view.

    `text` wins when both are present, as in `classify_item`.
    """
    if "text" in item:
        text = item["text"]
        return None if isinstance(text, str) else f"text is not a string ({type(text).__name__})"
    if "blob" in item:
        blob = item["blob"]
        return None if isinstance(blob, str) else f"blob is not a string ({type(blob).__name__})"
    return "the content has neither text nor blob"


def classify(result: Mapping[str, Any], *, cap: int | None = DEFAULT_CAP) -> list[Content]:
    """Classify every item of a `resources/read` result (raw JSON); [] when the server sent none.

    A result without a `contents` list gives one ``invalid`` record saying so.
    """
    contents = result.get("contents") if isinstance(result, Mapping) else None
    if not isinstance(contents, list):
        return [Content("invalid", "", problem="the result has no contents list")]
    return [classify_item(item, cap=cap, index=index) for index, item in enumerate(contents)]
