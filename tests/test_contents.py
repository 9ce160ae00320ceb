"""Classification of read results: kinds, fallbacks, caps, partial base64 decoding, image headers, dumps."""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import tracemalloc
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped,unused-ignore]

from explorer.model import contents as contents_module
from explorer.model.contents import (
    Content,
    ImageInfo,
    classify,
    classify_item,
    decode_png,
    hex_dump,
    human_size,
    image_info,
    language_for,
)
from explorer.model.contents.binary import HEX_WIDTHS, hex_bytes_per_line, hex_line_width
from tests.helpers.work import count_steps


def one(item: dict[str, object], **kwargs: object) -> Content:
    [content] = classify({"contents": [item]}, **kwargs)  # type: ignore[arg-type]
    return content


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# --- tiny image files, built here byte by byte ------------------------------------------------------------


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def make_png(
    width: int,
    height: int,
    rows: list[bytes],
    *,
    colour: int = 2,
    depth: int = 8,
    filters: list[int] | None = None,
    extra: bytes = b"",
    interlace: int = 0,
) -> bytes:
    """A PNG whose scanlines use the given filter types (an independent encoder for the decoder's tests)."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    bpp = max(1, channels * depth // 8)
    raw = bytearray()
    prior = bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = filters[y % len(filters)] if filters else 0
        out = bytearray()
        for i, value in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prior[i]
            c = prior[i - bpp] if i >= bpp else 0
            if kind == 0:
                predictor = 0
            elif kind == 1:
                predictor = a
            elif kind == 2:
                predictor = b
            elif kind == 3:
                predictor = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else b if pb <= pc else c
            out.append((value - predictor) % 256)
        raw += bytes([kind]) + out
        prior = row
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + extra
        + png_chunk(b"IDAT", zlib.compress(bytes(raw)))
        + png_chunk(b"IEND", b"")
    )


def make_gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00" + b";"


def make_jpeg(width: int, height: int, *, sof: int = 0xC0) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    comment = b"\xff\xfe" + struct.pack(">H", 7) + b"hello"
    frame = bytes([0xFF, sof]) + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + b"\xff" + comment + frame + b"\xff\xda\x00\x08" + b"\x00" * 6 + b"\xff\xd9"


def riff(chunk: bytes, body: bytes) -> bytes:
    payload = b"WEBP" + chunk + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", len(payload)) + payload


def make_bmp(width: int, height: int, *, core: bool = False) -> bytes:
    if core:
        dib = struct.pack("<IHHHH", 12, width, height, 1, 24)
    else:
        dib = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(dib), 0, 0, 14 + len(dib)) + dib


# --- kinds ------------------------------------------------------------------------------------------------


def test_plain_text() -> None:
    c = one({"uri": "note://a", "mimeType": "text/plain", "text": "hello\nworld"})
    assert (c.kind, c.text, c.size, c.truncated, c.problem) == ("text", "hello\nworld", 11, False, None)
    assert c.uri == "note://a" and c.mime_type == "text/plain" and c.data is None


def test_other_text_types_are_text() -> None:
    assert one({"uri": "x://t", "mimeType": "text/csv", "text": "a,b\n1,2"}).kind == "text"
    assert one({"uri": "x://t", "text": "just words"}).kind == "text"


@pytest.mark.parametrize(
    ("mime", "uri"),
    [
        ("text/markdown", "docs://a"),
        ("text/x-markdown", "docs://a"),
        ("Text/Markdown; charset=UTF-8", "docs://a"),
        (None, "docs://guide/intro.md"),
        ("text/plain", "file:///README.markdown"),
    ],
)
def test_markdown_by_mime_or_extension(mime: str | None, uri: str) -> None:
    item: dict[str, object] = {"uri": uri, "text": "# Title\n\nbody"}
    if mime:
        item["mimeType"] = mime
    c = one(item)
    assert c.kind == "markdown" and c.text == "# Title\n\nbody"


@pytest.mark.parametrize("mime", ["application/json", "application/vnd.api+json", "application/ld+json"])
def test_json_by_mime_is_pretty_printed(mime: str) -> None:
    c = one({"uri": "x://a", "mimeType": mime, "text": '{"b":[1,2],"a":"é"}'})
    assert c.kind == "json"
    assert c.pretty_json == '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "é"\n}'
    assert c.display_text == c.pretty_json
    assert c.text == '{"b":[1,2],"a":"é"}'


def test_json_by_extension_and_by_sniffing() -> None:
    assert one({"uri": "config://app.json", "text": "[1, 2]"}).kind == "json"
    assert one({"uri": "x://no-extension", "text": '  {"a": 1}\n'}).kind == "json"
    assert one({"uri": "x://y", "mimeType": "text/plain", "text": "[true]"}).kind == "json"
    # Sniffing only when nothing says otherwise, and only for objects and arrays.
    assert one({"uri": "x://y", "mimeType": "text/csv", "text": "[1]"}).kind == "text"
    assert one({"uri": "x://y", "text": "42"}).kind == "text"
    sniffed_bad = one({"uri": "x://y", "text": "{not json}"})
    assert sniffed_bad.kind == "text" and sniffed_bad.problem is None


def test_json_that_does_not_parse_is_text_with_a_problem() -> None:
    c = one({"uri": "x://a", "mimeType": "application/json", "text": '{"a": 1,'})
    assert c.kind == "text" and c.text == '{"a": 1,'
    assert c.problem is not None and c.problem.startswith("not valid JSON") and "line 1" in c.problem


def test_json_too_deep_is_text_with_a_problem_not_an_exception() -> None:
    deep = "[" * 200_000 + "]" * 200_000
    c = one({"uri": "x://deep.json", "text": deep})
    assert c.kind == "text" and c.problem is not None and "JSON" in c.problem


@pytest.mark.parametrize(
    ("mime", "uri", "language"),
    [
        ("text/x-python", "x://a", "python"),
        ("application/x-python-code", "x://a", "python"),
        ("application/toml", "x://a", "toml"),
        ("text/x-toml", "x://a", "toml"),
        ("application/yaml", "x://a", "yaml"),
        ("text/yaml", "x://a", "yaml"),
        ("application/javascript", "x://a", "javascript"),
        ("text/html", "x://a", "html"),
        ("image/svg+xml", "x://a", "xml"),
        ("application/x-sh", "x://a", "shell"),
        ("text/x-diff", "x://a", "diff"),
        (None, "file:///src/app.py", "python"),
        (None, "file:///src/lib.rs", "rust"),
        (None, "file:///src/main.go", "go"),
        (None, "file:///web/app.ts?v=2", "typescript"),
        (None, "file:///web/site.css#top", "css"),
        (None, "file:///db/schema.sql", "sql"),
        (None, "file:///c/x.h", "c"),
        (None, "file:///c/x.cpp", "cpp"),
        (None, "file:///j/X.java", "java"),
        (None, "file:///etc/app.ini", "ini"),
        (None, "file:///p/fix.patch", "diff"),
        (None, "file:///ci/config.yml", "yaml"),
        (None, "file:///project/Makefile", "make"),
        ("text/plain", "file:///pyproject.toml", "toml"),
        ("application/octet-stream", "file:///run.sh", "shell"),
    ],
)
def test_code_by_mime_or_extension(mime: str | None, uri: str, language: str) -> None:
    item: dict[str, object] = {"uri": uri, "text": "x = 1\n"}
    if mime:
        item["mimeType"] = mime
    c = one(item)
    assert (c.kind, c.language) == ("code", language)
    assert language_for(mime, uri) == language


def test_a_specific_mime_beats_the_extension() -> None:
    assert one({"uri": "file:///a.py", "mimeType": "text/markdown", "text": "# x"}).kind == "markdown"
    assert one({"uri": "file:///notes.txt", "mimeType": "text/x-python", "text": "x"}).language == "python"


@pytest.mark.slow
def test_every_language_name_is_a_pygments_lexer() -> None:
    names = {lang for lang in contents_module.CODE_MIMES.values()}
    names |= {lang for kind, lang in contents_module.EXTENSIONS.values() if lang}
    names |= {lang for kind, lang in contents_module.FILENAMES.values() if lang}
    for name in sorted(names):
        get_lexer_by_name(name)  # raises ClassNotFound for a typo


def test_language_for_non_code_is_none() -> None:
    assert language_for("text/markdown", "a.md") is None
    assert language_for(None, "x://plain") is None


def test_binary_blob() -> None:
    data = bytes(range(256))
    c = one({"uri": "data://x.bin", "mimeType": "application/octet-stream", "blob": b64(data)})
    assert (c.kind, c.data, c.size, c.truncated, c.text) == ("binary", data, 256, False, None)


def test_specific_non_text_mime_blob_is_binary_even_if_utf8() -> None:
    c = one({"uri": "x://doc", "mimeType": "application/pdf", "blob": b64(b"%PDF-1.7 hello")})
    assert c.kind == "binary" and c.data == b"%PDF-1.7 hello"


def test_text_like_blob_that_is_utf8_is_shown_as_text() -> None:
    c = one({"uri": "x://a", "mimeType": "text/plain", "blob": b64("héllo".encode())})
    assert (c.kind, c.text, c.size, c.data) == ("text", "héllo", 6, None)
    j = one({"uri": "x://a", "mimeType": "application/json", "blob": b64(b'{"a":1}')})
    assert j.kind == "json" and j.pretty_json == '{\n  "a": 1\n}'
    code = one({"uri": "file:///x.py", "blob": b64(b"print(1)\n")})
    assert (code.kind, code.language, code.text) == ("code", "python", "print(1)\n")


def test_text_like_blob_that_is_not_utf8_is_binary_with_a_problem() -> None:
    c = one({"uri": "x://a", "mimeType": "text/plain", "blob": b64(b"\xff\xfe\x00a")})
    assert c.kind == "binary" and c.data == b"\xff\xfe\x00a"
    assert c.problem is not None and "not UTF-8" in c.problem


def test_capped_utf8_blob_does_not_fail_on_a_cut_character() -> None:
    data = "é".encode() * 10  # two bytes each: a cap of 5 cuts the third character in half
    c = one({"uri": "x://a", "mimeType": "text/plain", "blob": b64(data)}, cap=5)
    assert c.kind == "text" and c.text == "éé" and c.truncated and c.size == 20


def test_image_blob() -> None:
    png = make_png(3, 2, [bytes(9), bytes(9)])
    c = one({"uri": "assets/logo.png", "mimeType": "image/png", "blob": b64(png)})
    assert c.kind == "image" and c.data == png and c.size == len(png)
    assert c.image == ImageInfo("PNG", 3, 2, "8-bit RGB")


def test_image_sniffed_without_mime_and_unknown_image_header() -> None:
    gif = make_gif(10, 20)
    assert one({"uri": "x://pic", "blob": b64(gif)}).image == ImageInfo("GIF", 10, 20, "89a")
    assert one({"uri": "x://pic", "mimeType": "application/octet-stream", "blob": b64(gif)}).kind == "image"
    odd = one({"uri": "x://pic", "mimeType": "image/x-icon", "blob": b64(b"\x00\x00\x01\x00")})
    assert odd.kind == "image" and odd.image is None and odd.problem is not None


def test_empty_text_and_empty_blob() -> None:
    assert one({"uri": "x://a", "mimeType": "text/plain", "text": ""}).kind == "empty"
    e = one({"uri": "x://a", "mimeType": "image/png", "blob": ""})
    assert e.kind == "empty" and e.size == 0


@pytest.mark.parametrize(
    ("item", "needle"),
    [
        (42, "not an object"),
        ({"uri": "x://a"}, "neither text nor blob"),
        ({"uri": "x://a", "text": 12}, "text is not a string"),
        ({"uri": "x://a", "blob": None}, "blob is not a string"),
        ({"uri": "x://a", "blob": "!!!!"}, "unexpected character '!' at offset 0"),
        ({"uri": "x://a", "blob": "QUJD-RA=="}, "unexpected character '-' at offset 4"),
        ({"uri": "x://a", "blob": "QU=JD"}, "padding '=' in the middle"),
        ({"uri": "x://a", "blob": "QUJDR"}, "not a possible length"),
        ({"uri": "x://a", "blob": "QUJ=="}, "padding"),
        ({"uri": "x://a", "blob": "QUJDéRA=="}, "non-ASCII"),
    ],
)
def test_invalid_items_never_raise(item: object, needle: str) -> None:
    [c] = classify({"contents": [item]})
    assert c.kind == "invalid"
    assert c.problem is not None and needle in c.problem
    if isinstance(item, dict) and "blob" in item and isinstance(item["blob"], str):
        assert c.problem.startswith("blob is not valid base64: ")


def test_result_shapes() -> None:
    assert classify({"contents": []}) == []
    [bad] = classify({"nothing": 1})
    assert bad.kind == "invalid" and bad.problem == "the result has no contents list"
    several = classify({"contents": [{"uri": "a", "text": "x"}, {"uri": "b", "blob": b64(b"\x00")}]})
    assert [c.kind for c in several] == ["text", "binary"]


def test_non_string_uri_and_mime_are_ignored() -> None:
    c = classify_item({"uri": 5, "mimeType": ["x"], "text": "hi"})
    assert (c.uri, c.mime_type, c.kind) == ("", None, "text")


# --- caps -------------------------------------------------------------------------------------------------


def test_text_over_the_cap_is_cut() -> None:
    text = "0123456789" * 300_000  # 3 MB
    c = one({"uri": "x://big", "mimeType": "text/plain", "text": text}, cap=1_000_000)
    assert c.truncated and c.size == 3_000_000 and c.text == text[:1_000_000]
    assert c.shown_size == 1_000_000
    full = one({"uri": "x://big", "mimeType": "text/plain", "text": text}, cap=None)
    assert not full.truncated and full.text == text and full.size == 3_000_000


def test_sizes_of_text_are_utf8_bytes_not_characters() -> None:
    text = "ñ 日本語 emoji 🎉\n"  # 14 characters, 24 bytes: what a file of it holds, what a listing says
    c = one({"uri": "file:///日本語.txt", "mimeType": "text/plain", "text": text})
    assert (c.size, c.shown_size, c.truncated, c.text) == (24, 24, False, text)
    assert human_size(c.size) == "24 B"
    lone = one({"uri": "x://a", "mimeType": "text/plain", "text": "a\ud800"})  # JSON may carry one
    assert lone.size == 4 and lone.text == "a\ud800"


def test_non_ascii_text_is_cut_at_the_cap_in_bytes_between_characters() -> None:
    text = "日本語" * 1000  # 3,000 characters, 9,000 bytes
    c = one({"uri": "x://a", "mimeType": "text/plain", "text": text}, cap=1000)
    assert c.truncated and c.size == 9_000
    assert c.text == text[:333] and c.shown_size == 999  # 1,000 bytes would cut the 334th in two
    short = one({"uri": "x://a", "mimeType": "text/plain", "text": "é" * 600}, cap=1000)
    assert (
        short.truncated and short.size == 1_200 and short.text == "é" * 500
    )  # fewer characters than the cap
    mixed = one({"uri": "x://a", "mimeType": "text/plain", "text": "a" * 1000 + "é"}, cap=1000)
    assert mixed.truncated and mixed.text == "a" * 1000 and (mixed.shown_size, mixed.size) == (1000, 1002)
    whole = one({"uri": "x://a", "mimeType": "text/plain", "text": text}, cap=None)
    assert not whole.truncated and whole.text == text and whole.size == whole.shown_size == 9_000


def test_a_big_non_ascii_text_is_counted_without_a_python_loop_over_it() -> None:
    text = "é" * 5_000_000 + "日本"  # 10 MB: encoded in bounded chunks in C, the head once
    with count_steps() as steps:
        c = one({"uri": "x://big", "mimeType": "text/plain", "text": text}, cap=1_000_000)
    assert c.size == 10_000_006 and c.shown_size == 1_000_000 and c.text == "é" * 500_000
    assert steps.lines < 1_000, steps.lines


def test_default_cap_is_one_megabyte() -> None:
    c = one({"uri": "x://big", "text": "a" * 1_000_001})
    assert c.truncated and len(c.text or "") == 1_000_000


def test_truncated_json_is_json_without_pretty_print() -> None:
    text = json.dumps(list(range(100_000)))
    c = one({"uri": "x://a.json", "text": text}, cap=1000)
    assert (c.kind, c.truncated, c.pretty_json, c.text) == ("json", True, None, text[:1000])


def test_blob_over_the_cap_is_cut() -> None:
    data = bytes(range(256)) * 100
    c = one({"uri": "x://b", "mimeType": "application/octet-stream", "blob": b64(data)}, cap=1000)
    assert c.truncated and c.size == len(data) and c.data == data[:1000]


@pytest.mark.slow
def test_fifty_megabyte_blob_is_decoded_only_up_to_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan in C and a decode of the capped prefix (timed by benchmarks/bench_blob.py)."""
    size = 50_000_000
    blob = "QUJD" * (size // 3) + "QUI="  # "ABC" 16,666,666 times, then "AB": 50,000,000 bytes
    assert len(blob) == 4 * (size // 3) + 4
    decoded_digits: list[int] = []
    real_decode = base64.b64decode

    def counting_decode(text: str | bytes, *args: Any, **kwargs: Any) -> bytes:
        decoded_digits.append(len(text))
        return real_decode(text, *args, **kwargs)

    monkeypatch.setattr(base64, "b64decode", counting_decode)
    tracemalloc.start()
    try:
        with count_steps() as steps:
            c = one({"uri": "x://huge", "mimeType": "application/octet-stream", "blob": blob}, cap=1_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert c.kind == "binary" and c.truncated
    assert c.size == size
    assert c.data is not None and len(c.data) == 1_000_000 and c.data[:6] == b"ABCABC"
    assert peak < 12_000_000, f"decoding used {peak:,} bytes"
    assert sum(decoded_digits) <= 4 * (1_000_000 // 3 + 1), decoded_digits  # the cap's digits, no more
    assert steps.lines < 1_000, steps.lines  # no Python loop over the 66 million digits (about 80 lines)


def test_blob_with_line_breaks_is_decoded_and_sized_right() -> None:
    data = bytes(range(256)) * 40
    wrapped = base64.encodebytes(data).decode("ascii")  # 76-character lines
    assert "\n" in wrapped
    c = one({"uri": "x://b", "mimeType": "application/octet-stream", "blob": wrapped}, cap=3000)
    assert c.size == len(data) and c.data == data[:3000] and c.truncated
    whole = one({"uri": "x://b", "mimeType": "application/octet-stream", "blob": wrapped}, cap=None)
    assert whole.data == data and not whole.truncated


def test_unpadded_base64_is_accepted() -> None:
    c = one({"uri": "x://b", "mimeType": "application/octet-stream", "blob": "QUJDRA"})
    assert c.data == b"ABCD" and c.size == 4


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=300),
    cap=st.one_of(st.none(), st.integers(min_value=0, max_value=400)),
    line=st.one_of(st.none(), st.integers(min_value=1, max_value=20)),
    unpadded=st.booleans(),
)
def test_partial_decode_matches_a_full_decode(
    data: bytes, cap: int | None, line: int | None, unpadded: bool
) -> None:
    blob = b64(data)
    if unpadded:
        blob = blob.rstrip("=")
    if line:
        blob = "\r\n".join(blob[i : i + line] for i in range(0, len(blob), line))
    c = one({"uri": "x://b", "mimeType": "application/x-thing", "blob": blob}, cap=cap)
    if not data:
        assert c.kind == "empty"
        return
    assert c.size == len(data)
    expected = data if cap is None else data[:cap]
    assert c.data == expected
    assert c.truncated == (len(expected) < len(data))


def test_negative_cap_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        classify({"contents": [{"uri": "a", "text": "x"}]}, cap=-1)


# --- image headers ----------------------------------------------------------------------------------------


def test_png_header() -> None:
    png = make_png(640, 480, [bytes(640 * 3)] * 480)
    assert image_info(png) == ImageInfo("PNG", 640, 480, "8-bit RGB")
    assert image_info(png[:20]) == ImageInfo("PNG", None, None)


def test_gif_header() -> None:
    assert image_info(make_gif(320, 200)) == ImageInfo("GIF", 320, 200, "89a")
    assert image_info(b"GIF87a\x01\x00\x02\x00") == ImageInfo("GIF", 1, 2, "87a")


def test_jpeg_header_walks_segments_to_the_frame() -> None:
    assert image_info(make_jpeg(1024, 768)) == ImageInfo("JPEG", 1024, 768, None)
    assert image_info(make_jpeg(8, 9, sof=0xC2)) == ImageInfo("JPEG", 8, 9, "progressive")
    cut = make_jpeg(1024, 768)[:30]
    assert image_info(cut) == ImageInfo("JPEG", None, None)
    no_frame = b"\xff\xd8\xff\xda\x00\x02\xff\xd9"
    assert image_info(no_frame) == ImageInfo("JPEG", None, None)


def test_webp_headers() -> None:
    lossy = riff(b"VP8 ", b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", 300, 200) + bytes(10))
    assert image_info(lossy) == ImageInfo("WebP", 300, 200, "lossy")
    bits = (299) | (199 << 14)
    lossless = riff(b"VP8L", b"\x2f" + struct.pack("<I", bits) + bytes(10))
    assert image_info(lossless) == ImageInfo("WebP", 300, 200, "lossless")
    extended = riff(
        b"VP8X", b"\x10\x00\x00\x00" + (4095).to_bytes(3, "little") + (2047).to_bytes(3, "little")
    )
    assert image_info(extended) == ImageInfo("WebP", 4096, 2048, "extended")
    assert image_info(riff(b"ALPH", bytes(10))) == ImageInfo("WebP", None, None)


def test_bmp_headers() -> None:
    assert image_info(make_bmp(40, 30)) == ImageInfo("BMP", 40, 30)
    assert image_info(make_bmp(40, -30)) == ImageInfo("BMP", 40, 30)  # top-down
    assert image_info(make_bmp(7, 5, core=True)) == ImageInfo("BMP", 7, 5)


def test_unknown_headers() -> None:
    assert image_info(b"") is None
    assert image_info(b"%PDF-1.7") is None
    assert image_info(b"BM") is None


# --- PNG pixels -------------------------------------------------------------------------------------------


def test_decode_png_rgb_with_every_filter_type() -> None:
    width, height = 7, 10
    rows = [
        bytes((x * 30 + y * 7 + c * 50) % 256 for x in range(width) for c in range(3)) for y in range(height)
    ]
    png = make_png(width, height, rows, filters=[0, 1, 2, 3, 4])
    raster = decode_png(png)
    assert raster is not None and (raster.width, raster.height) == (width, height)
    for y in range(height):
        for x in range(width):
            assert raster.pixel(x, y) == (*rows[y][3 * x : 3 * x + 3], 255)


def test_decode_png_rgba_grey_alpha_and_sixteen_bit() -> None:
    rgba_rows = [bytes([10, 20, 30, 40, 50, 60, 70, 80]), bytes([1, 2, 3, 4, 5, 6, 7, 8])]
    raster = decode_png(make_png(2, 2, rgba_rows, colour=6, filters=[4, 3]))
    assert (
        raster is not None and raster.pixel(1, 0) == (50, 60, 70, 80) and raster.pixel(0, 1) == (1, 2, 3, 4)
    )
    grey_alpha = decode_png(make_png(1, 1, [bytes([200, 100])], colour=4))
    assert grey_alpha is not None and grey_alpha.pixel(0, 0) == (200, 200, 200, 100)
    sixteen = decode_png(make_png(1, 1, [bytes([0x12, 0x34, 0xAB, 0xCD, 0xFF, 0x00])], depth=16))
    assert sixteen is not None and sixteen.pixel(0, 0) == (0x12, 0xAB, 0xFF, 255)


def test_decode_png_palette_and_low_bit_grey() -> None:
    palette = png_chunk(b"PLTE", bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]))
    alpha = png_chunk(b"tRNS", bytes([255, 128]))
    # 2-bit indices 0,1,2,3 packed in one byte: 00 01 10 11
    raster = decode_png(make_png(4, 1, [bytes([0b00011011])], colour=3, depth=2, extra=palette + alpha))
    assert raster is not None
    assert [raster.pixel(x, 0) for x in range(4)] == [
        (255, 0, 0, 255),
        (0, 255, 0, 128),
        (0, 0, 255, 255),
        (9, 9, 9, 255),
    ]
    grey = decode_png(make_png(8, 1, [bytes([0b10100000])], colour=0, depth=1))
    assert grey is not None and [grey.pixel(x, 0)[0] for x in range(4)] == [255, 0, 255, 0]


def test_decode_png_refuses_what_it_cannot_draw() -> None:
    rows = [bytes(6)] * 2
    assert decode_png(b"GIF89a") is None
    assert decode_png(make_png(2, 2, rows, interlace=1)) is None
    assert decode_png(make_png(2, 2, rows), max_pixels=3) is None
    good = make_png(2, 2, rows)
    assert decode_png(good[:-30]) is None  # IDAT cut short
    # A decompression bomb: IDAT inflates far past what the header promises; only that much is inflated.
    bomb = make_png(2, 2, rows)
    idat_start = bomb.index(b"IDAT") - 4
    huge = png_chunk(b"IDAT", zlib.compress(bytes(50_000_000)))
    bomb = bomb[:idat_start] + huge + png_chunk(b"IEND", b"")
    raster = decode_png(bomb)
    assert raster is not None and raster.rgba == bytes([0, 0, 0, 255]) * 4


def test_decode_png_of_the_demo_logo() -> None:
    from explorer.demo.png import logo_png

    raster = decode_png(logo_png())
    assert raster is not None and (raster.width, raster.height) == (64, 64)


# --- dumps and sizes --------------------------------------------------------------------------------------


def test_hex_dump_format() -> None:
    dump = hex_dump(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRhello~\x7f")
    assert dump.splitlines() == [
        "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|",
        "00000010  68 65 6c 6c 6f 7e 7f" + " " * 30 + "|hello~.|",
    ]
    # The ASCII column starts at the same place on a short last line.
    assert dump.splitlines()[1].index("|") == dump.splitlines()[0].index("|") == 60


def test_hex_dump_limit_and_empty() -> None:
    dump = hex_dump(bytes(100), limit=32)
    lines = dump.splitlines()
    assert len(lines) == 3 and lines[1].startswith("00000010  ") and lines[2] == "… 68 more bytes"
    assert hex_dump(b"") == ""
    assert all(len(line) == 78 for line in hex_dump(bytes(range(256))).splitlines())


def test_hex_dump_narrower_lines_keep_the_ascii_column() -> None:
    data = bytes(range(0x41, 0x41 + 20))  # A..T
    eight = hex_dump(data, per_line=8).splitlines()
    assert eight == [
        "00000000  41 42 43 44 45 46 47 48  |ABCDEFGH|",
        "00000008  49 4a 4b 4c 4d 4e 4f 50  |IJKLMNOP|",
        "00000010  51 52 53 54              |QRST|",
    ]
    four = hex_dump(data, per_line=4).splitlines()
    assert four[0] == "00000000  41 42 43 44  |ABCD|" and len(four) == 5
    for per_line in HEX_WIDTHS:
        lines = hex_dump(bytes(range(256)), per_line=per_line).splitlines()
        assert {len(line) for line in lines} == {hex_line_width(per_line)}
    assert [hex_bytes_per_line(w) for w in (200, 78, 77, 66, 45, 44, 10)] == [16, 16, 8, 8, 8, 4, 4]


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 B"),
        (1, "1 B"),
        (999, "999 B"),
        (1000, "1.0 kB"),
        (1536, "1.5 kB"),
        (999_949, "999.9 kB"),
        (999_999, "1.0 MB"),
        (1_000_000, "1.0 MB"),
        (50_000_000, "50.0 MB"),
        (3 * 10**9, "3.0 GB"),
    ],
)
def test_human_size(n: int, text: str) -> None:
    assert human_size(n) == text


def test_core_module_imports_no_ui() -> None:
    code = (
        "import sys, explorer.model.contents\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'pygments')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_valid_json_python_cannot_read_is_said_for_what_it_is() -> None:
    """Not "not valid JSON" with Python's advice to call sys.set_int_max_str_digits(): what it is."""
    number = one({"uri": "x://a", "mimeType": "application/json", "text": '{"n": ' + "9" * 5000 + "}"})
    limit = sys.get_int_max_str_digits()
    assert number.kind == "text" and number.problem == (
        f"JSON with a number of 5,000 digits, over Python's limit of {limit:,}: shown as text"
    )
    deep = one(
        {
            "uri": "x://a",
            "mimeType": "application/json",
            "text": '["[[["' + ", " + "[" * 100_000 + "]" * 100_001,
        }
    )
    assert deep.problem is not None and deep.problem.startswith(
        "JSON nested 100,001 levels deep, deeper than"
    )
    assert "not valid" not in deep.problem and "recursion" not in deep.problem
