"""Classify content items and `resources/read` results into `Content` records.

Why a module of its own: this is the decision itself (MIME type, then extension, then sniffing; text
versus blob; caps; the rules are in the package docstring), built from the tables, decoders and header
readers of the sibling modules.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Mapping
from typing import Any

from explorer.model.contents.binary import Base64Error, decode_prefix
from explorer.model.contents.images import image_info
from explorer.model.contents.mimes import extension_family, mime_family, normalize_mime
from explorer.model.contents.record import DEFAULT_CAP, TEXT_KINDS, Content, ContentKind


def _parse_json(text: str) -> tuple[str | None, str | None]:
    """(pretty text, None) when `text` is JSON, else (None, a sentence saying why not)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
    except (ValueError, RecursionError) as error:
        return None, f"not valid JSON: {error}"
    try:
        return json.dumps(value, indent=2, ensure_ascii=False), None
    except (ValueError, RecursionError) as error:
        return None, f"JSON too deep to pretty-print: {error}"


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
            return Content("json", uri, mime, text=text, size=size, truncated=True)
        pretty, problem = _parse_json(text)
        if pretty is not None:
            return Content("json", uri, mime, text=text, size=size, pretty_json=pretty)
        if not sniff:
            return Content("text", uri, mime, text=text, size=size, problem=problem)
        kind = "text"
    return Content(kind, uri, mime, language=language, text=text, size=size, truncated=truncated)


def _blob_content(uri: str, mime: str | None, blob: str, cap: int | None) -> Content:
    try:
        data, size = decode_prefix(blob, cap)
    except Base64Error as error:
        return Content("invalid", uri, mime, size=len(blob), problem=f"blob is not valid base64: {error}")
    if size == 0:
        return Content("empty", uri, mime, size=0)
    truncated = size > len(data)
    normalized = normalize_mime(mime)
    family = mime_family(normalized) or extension_family(uri)
    if family is None and normalized == "text/plain":
        family = ("text", None)
    problem: str | None = None
    if family is not None and family[0] in TEXT_KINDS:
        try:
            text = codecs.getincrementaldecoder("utf-8")().decode(data, final=not truncated)
        except UnicodeDecodeError as error:
            problem = (
                f"declared as text, but the bytes are not UTF-8 ({error.reason} at byte {error.start:,})"
            )
        else:
            return _text_content(uri, mime, text, size=size, truncated=truncated, family=family)
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
    if "text" in item:
        text = item["text"]
        if not isinstance(text, str):
            return Content("invalid", uri, mime, problem=f"text is not a string ({type(text).__name__})")
        size = len(text)
        truncated = cap is not None and size > cap
        shown = text[:cap] if truncated else text
        family = mime_family(normalize_mime(mime)) or extension_family(uri)
        return _text_content(uri, mime, shown, size=size, truncated=truncated, family=family)
    if "blob" in item:
        blob = item["blob"]
        if not isinstance(blob, str):
            return Content("invalid", uri, mime, problem=f"blob is not a string ({type(blob).__name__})")
        return _blob_content(uri, mime, blob, cap)
    return Content("invalid", uri, mime, problem="the content has neither text nor blob")


def classify(result: Mapping[str, Any], *, cap: int | None = DEFAULT_CAP) -> list[Content]:
    """Classify every item of a `resources/read` result (raw JSON); [] when the server sent none.

    A result without a `contents` list gives one ``invalid`` record saying so.
    """
    contents = result.get("contents") if isinstance(result, Mapping) else None
    if not isinstance(contents, list):
        return [Content("invalid", "", problem="the result has no contents list")]
    return [classify_item(item, cap=cap, index=index) for index, item in enumerate(contents)]
