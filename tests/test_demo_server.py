"""The built-in demo server, in both protocol eras, in process and over a real stdio subprocess."""

from __future__ import annotations

import base64
import json
import struct
import sys
import tomllib
import warnings
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated
from uritemplate import URITemplate

from explorer.demo import catalogue as catalogue_module
from explorer.demo.catalogue import CLOCK_URI
from explorer.demo.metrics import REGION_SERVICES, all_services
from explorer.demo.paging import PAGE_SIZE, decode_cursor, encode_cursor
from explorer.demo.png import PNG_SIGNATURE, png_size
from explorer.demo.server import SERVER_NAME, build_server
from explorer.demo.templates import TEMPLATES
from explorer.demo.uritemplate_match import match
from tests.helpers.work import count_steps

REPO = Path(__file__).resolve().parents[1]
MODES = ["legacy", "auto"]
ROOT = "file:///workspace/tidewater"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def connect(mode: str, **kwargs: Any) -> AsyncIterator[Client]:
    server_kwargs = {k: kwargs.pop(k) for k in ("change_seconds", "tick_seconds") if k in kwargs}
    server_kwargs.setdefault("change_seconds", 0)
    async with Client(build_server(**server_kwargs), mode=mode, cache=None, **kwargs) as client:
        yield client


async def list_all(client: Client) -> tuple[list[types.Resource], list[str | None]]:
    resources: list[types.Resource] = []
    cursors: list[str | None] = []
    cursor: str | None = None
    while True:
        page = await client.list_resources(cursor=cursor)
        resources.extend(page.resources)
        cursors.append(page.next_cursor)
        if page.next_cursor is None:
            return resources, cursors
        assert len(page.resources) == PAGE_SIZE
        cursor = page.next_cursor


def text_of(result: types.ReadResourceResult) -> str:
    (item,) = result.contents
    assert isinstance(item, types.TextResourceContents)
    return item.text


def blob_of(result: types.ReadResourceResult) -> bytes:
    (item,) = result.contents
    assert isinstance(item, types.BlobResourceContents)
    return base64.b64decode(item.blob)


def check_png(data: bytes) -> tuple[int, int]:
    """Walk every chunk, checking lengths and CRCs; return the IHDR size."""
    assert data.startswith(PNG_SIGNATURE)
    pos, kinds = len(PNG_SIGNATURE), []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        kinds.append(kind)
        pos += 12 + length
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    return png_size(data)


# --- identity ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_server_identity_and_era(mode: str) -> None:
    async with connect(mode) as client:
        assert client.server_info is not None
        assert client.server_info.name == SERVER_NAME
        assert client.server_info.version
        assert client.instructions and "docs://handbook/welcome" in client.instructions
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        resources = client.server_capabilities.resources
        assert resources is not None and resources.subscribe and resources.list_changed
        assert client.server_capabilities.completions is not None
        assert client.server_capabilities.prompts is not None


# --- listing and pagination -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_listing_pages_and_schemes(mode: str) -> None:
    async with connect(mode) as client:
        resources, cursors = await list_all(client)
    uris = [r.uri for r in resources]
    assert len(uris) >= 2000
    assert len(set(uris)) == len(uris)
    schemes = {uri.split("://", 1)[0] for uri in uris}
    assert {"docs", "file", "metrics"} <= schemes
    # Opaque cursors: not the offset, all different, none empty.
    issued = [c for c in cursors if c is not None]
    assert len(issued) == len(cursors) - 1 == (len(uris) - 1) // PAGE_SIZE
    assert len(set(issued)) == len(issued)
    assert all(c and not c.isdigit() and str(PAGE_SIZE) not in c for c in issued)
    # Deep hierarchy and a big folder.
    assert max(uri.split("://", 1)[1].count("/") for uri in uris) >= 6
    stations = [u for u in uris if u.startswith(f"{ROOT}/data/stations/")]
    assert len(stations) >= 300
    # Metadata on many, annotations and sizes on some, one directory.
    assert sum(r.title is not None for r in resources) > len(resources) // 2
    assert sum(r.description is not None for r in resources) > len(resources) // 2
    assert any(r.size for r in resources)
    annotated = [r.annotations for r in resources if r.annotations is not None]
    assert any(a.audience for a in annotated) and any(a.priority is not None for a in annotated)
    assert any(a.last_modified for a in annotated)
    assert any(r.mime_type == "inode/directory" for r in resources)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "cursor",
    [
        "not a cursor",
        "MTAw",  # base64("100"): an offset without the checksum
        base64.urlsafe_b64encode(b"v1:100:00000000").decode(),
        encode_cursor(100)[:-2] + "AA",
        encode_cursor(10**6),  # well-formed, but past the end
    ],
)
async def test_bad_cursor_is_invalid_params(mode: str, cursor: str) -> None:
    async with connect(mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.list_resources(cursor=cursor)
    assert caught.value.code == types.INVALID_PARAMS
    assert caught.value.message == "invalid cursor"


def test_cursor_round_trip() -> None:
    for offset in (100, 200, 2500):
        assert decode_cursor(encode_cursor(offset)) == offset
    assert decode_cursor("") is None


def test_catalogue_is_cheap_and_deterministic() -> None:
    catalogue_module.catalogue.cache_clear()
    with count_steps() as steps:
        first = catalogue_module.catalogue()
    catalogue_module.catalogue.cache_clear()
    second = catalogue_module.catalogue()
    assert [e.uri for e in first.entries] == [e.uri for e in second.entries]
    # Entries only, no contents made up front: about 18 Python lines per entry today.
    assert steps.lines <= 40 * len(first.entries), (steps.lines, len(first.entries))


# --- templates --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_templates(mode: str) -> None:
    async with connect(mode) as client:
        result = await client.list_resource_templates()
    templates = [t.uri_template for t in result.resource_templates]
    assert result.next_cursor is None
    assert len(templates) >= 6
    assert any("{+" in t for t in templates)
    assert any("{/" in t and "*}" in t for t in templates)
    assert any("{?" in t for t in templates)
    assert any("{#" in t for t in templates)
    assert any("{." in t for t in templates)
    assert "metrics://{region}/{service}/latest" in templates
    assert all(t.name and t.description for t in result.resource_templates)


EXPANSIONS: list[tuple[str, dict[str, Any]]] = [
    ("docs://handbook/{chapter}", {"chapter": "pagination"}),
    ("docs://handbook/{chapter}{#section}", {"chapter": "pagination", "section": "cursors"}),
    ("docs://search{?q,limit}", {"q": "opaque string", "limit": "3"}),
    ("file:///{+path}", {"path": "workspace/tidewater/src/tidewater/harmonics/"}),
    (f"{ROOT}/data/stations/{{station}}.json", {"station": "port-alder"}),
    ("metrics://{region}/{service}/latest", {"region": "eu-north", "service": "inventory"}),
    (
        "metrics://{region}/{service}/report{.format}",
        {"region": "us-east", "service": "ledger", "format": "csv"},
    ),
    ("metrics://rollup{/segments*}", {"segments": ["us-east", "ledger"]}),
]


@pytest.mark.parametrize(("template", "values"), EXPANSIONS)
def test_matcher_round_trips_with_uritemplate(template: str, values: dict[str, Any]) -> None:
    uri = URITemplate(template).expand(values)
    assert match(template, uri) == values


def test_matcher_edge_cases() -> None:
    assert match("metrics://rollup{/segments*}", "metrics://rollup") == {"segments": []}
    assert match("metrics://{region}/{service}/report{.format}", "metrics://a/b/report") == {
        "region": "a",
        "service": "b",
    }
    assert match("docs://search{?q,limit}", "docs://search?limit=5&q=a%20b") == {"q": "a b", "limit": "5"}
    assert match("docs://search{?q,limit}", "docs://search?other=1") is None
    assert match("docs://handbook/{chapter}", "docs://handbook/a/b") is None
    assert match("file:///{+path}", "file:///a/b/c.py") == {"path": "a/b/c.py"}


@pytest.mark.parametrize("mode", MODES)
async def test_read_templated_uris(mode: str) -> None:
    async with connect(mode) as client:
        read = {t: await client.read_resource(URITemplate(t).expand(v)) for t, v in EXPANSIONS}
    assert text_of(read["docs://handbook/{chapter}"]).startswith("# Pagination and cursors")
    assert text_of(read["docs://handbook/{chapter}{#section}"]).startswith("## Cursors")
    assert "pagination" in text_of(read["docs://search{?q,limit}"])
    listing = text_of(read["file:///{+path}"]).splitlines()
    assert "  constituents/" in listing and any(line.strip().startswith("nodal.py ") for line in listing)
    assert read["file:///{+path}"].contents[0].mime_type == "inode/directory"
    assert json.loads(text_of(read[f"{ROOT}/data/stations/{{station}}.json"]))["name"] == "Port Alder"
    latest = json.loads(text_of(read["metrics://{region}/{service}/latest"]))
    assert (latest["region"], latest["service"]) == ("eu-north", "inventory")
    report = read["metrics://{region}/{service}/report{.format}"]
    assert report.contents[0].mime_type == "text/csv"
    assert text_of(report).startswith("day,cpu,")
    rollup = json.loads(text_of(read["metrics://rollup{/segments*}"]))
    assert rollup["level"] == "service" and rollup["service"] == "ledger"


# --- reading ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_read_every_content_type(mode: str) -> None:
    async with connect(mode) as client:

        async def get(uri: str, mime: str) -> types.ReadResourceResult:
            result = await client.read_resource(uri)
            assert [c.mime_type for c in result.contents] == [mime]
            assert result.contents[0].uri == uri
            return result

        glossary = text_of(await get("docs://glossary", "text/plain"))
        welcome = text_of(await get("docs://handbook/welcome", "text/markdown"))
        snapshot = text_of(await get("metrics://eu-west/checkout/latency-p99/2026-07-01", "application/json"))
        source = text_of(await get(f"{ROOT}/src/tidewater/predict.py", "text/x-python"))
        pyproject = text_of(await get(f"{ROOT}/pyproject.toml", "application/toml"))
        logo = blob_of(await get(f"{ROOT}/assets/logo.png", "image/png"))
        icon = blob_of(await get(f"{ROOT}/assets/icon-16.png", "image/png"))
        table = blob_of(await get(f"{ROOT}/data/harmonics.bin", "application/octet-stream"))
        folder = text_of(await get(f"{ROOT}/", "inode/directory"))
        ci = text_of(await get(f"{ROOT}/.github/workflows/ci.yml", "application/yaml"))
        clock = text_of(await get(CLOCK_URI, "text/plain"))

    assert "GLOSSARY" in glossary and "cursor" in glossary
    assert welcome.startswith("# Welcome") and "\n## " in welcome and "\n- " in welcome and "](" in welcome
    assert "```" in text_of(read_offline("docs://handbook/pagination"))
    data = json.loads(snapshot)
    assert len(data["hourly"]) == 24 and set(data["summary"]) == {"min", "max", "mean", "p95"}
    compile(source, "predict.py", "exec")
    assert tomllib.loads(pyproject)["project"]["name"] == "tidewater"
    assert check_png(logo) == (64, 64)
    assert check_png(icon) == (16, 16)
    magic, count = struct.unpack("<4sH", table[:6])
    assert magic == b"TWH1" and len(table) == 6 + count * 28
    assert "src/" in folder and "README.md" in folder
    assert ci.startswith("name: ci")
    assert clock.startswith(CLOCK_URI)


async def test_caching_hints_in_the_modern_era() -> None:
    async with connect("auto") as client:
        static = await client.read_resource("docs://handbook/welcome")
        clock = await client.read_resource(CLOCK_URI)
    assert static.ttl_ms and static.ttl_ms > 0 and static.cache_scope == "public"
    assert clock.ttl_ms == 0


def read_offline(uri: str) -> types.ReadResourceResult:
    """Read without a client (the content itself is what is checked)."""
    from explorer.demo.contents import read
    from explorer.demo.live import Live

    found = read(uri, Live(tick_seconds=1, change_seconds=0))
    assert found is not None
    return types.ReadResourceResult(contents=found)


@pytest.mark.parametrize("mode", MODES)
async def test_reads_are_deterministic(mode: str) -> None:
    uris = ["metrics://us-west/media/cpu/2026-07-09", f"{ROOT}/data/stations/kestrel-harbour.json"]
    async with connect(mode) as first_client:
        first = [await first_client.read_resource(u) for u in uris]
    async with connect(mode) as second_client:
        second = [await second_client.read_resource(u) for u in uris]
    assert [text_of(r) for r in first] == [text_of(r) for r in second]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "uri",
    [
        "docs://nowhere",
        "metrics://mars/checkout/latest",
        "metrics://eu-north/ledger/latest",  # ledger runs in us-east only
        "docs://handbook/pagination#no-such-section",
        f"{ROOT}/missing.py",
        "gopher://example",
    ],
)
async def test_unknown_uri(mode: str, uri: str) -> None:
    async with connect(mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    # The handshake era's "resource not found" is -32002; 2026-07-28 uses -32602.
    assert caught.value.code == (-32002 if mode == "legacy" else types.INVALID_PARAMS)
    assert caught.value.data == {"uri": uri}


# --- completions ------------------------------------------------------------------------------------------


async def complete(
    client: Client,
    ref: types.ResourceTemplateReference | types.PromptReference,
    name: str,
    value: str,
    **ctx: str,
) -> list[str]:
    result = await client.complete(ref, {"name": name, "value": value}, context_arguments=ctx or None)
    return result.completion.values


@pytest.mark.parametrize("mode", MODES)
async def test_service_completion_uses_the_chosen_region(mode: str) -> None:
    ref = types.ResourceTemplateReference(uri="metrics://{region}/{service}/latest")
    async with connect(mode) as client:
        assert await complete(client, ref, "region", "eu") == ["eu-north", "eu-west"]
        north = await complete(client, ref, "service", "", region="eu-north")
        west = await complete(client, ref, "service", "", region="eu-west")
        anywhere = await complete(client, ref, "service", "")
        prefixed = await complete(client, ref, "service", "C", region="us-east")
    assert north == list(REGION_SERVICES["eu-north"]) and "inventory" in north
    assert west == list(REGION_SERVICES["eu-west"]) and "inventory" not in west
    assert anywhere == all_services()
    assert prefixed == ["checkout"]


@pytest.mark.parametrize("mode", MODES)
async def test_other_template_completions(mode: str) -> None:
    async with connect(mode) as client:
        chapter = await complete(
            client, types.ResourceTemplateReference(uri="docs://handbook/{chapter}"), "chapter", "p"
        )
        sections = await complete(
            client,
            types.ResourceTemplateReference(uri="docs://handbook/{chapter}{#section}"),
            "section",
            "",
            chapter="pagination",
        )
        path = await complete(
            client, types.ResourceTemplateReference(uri="file:///{+path}"), "path", "workspace/tidewater/s"
        )
        result = await client.complete(
            types.ResourceTemplateReference(uri=f"{ROOT}/data/stations/{{station}}.json"),
            {"name": "station", "value": ""},
        )
        unknown = await complete(client, types.ResourceTemplateReference(uri="x://{y}"), "y", "")
    assert chapter == ["pagination", "prompts", "protocol-eras"]
    assert sections == ["cursors", "page-sizes", "things-that-go-wrong"]
    assert path == ["workspace/tidewater/src/"]
    assert len(result.completion.values) == 100 and result.completion.has_more
    assert result.completion.total is not None and result.completion.total >= 300
    assert unknown == []


@pytest.mark.parametrize("mode", MODES)
async def test_prompt_argument_completions(mode: str) -> None:
    ref = types.PromptReference(name="incident-review")
    async with connect(mode) as client:
        services = await complete(client, ref, "service", "", region="ap-south")
        windows = await complete(client, ref, "window", "")
        files = await complete(client, types.PromptReference(name="review-file"), "path", "src/tidewater/p")
    assert services == list(REGION_SERVICES["ap-south"])
    assert windows == ["1h", "6h", "24h", "7d"]
    assert files == ["src/tidewater/predict.py", "src/tidewater/py.typed"]


# --- prompts ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_prompt_list(mode: str) -> None:
    async with connect(mode) as client:
        result = await client.list_prompts()
    assert len(result.prompts) >= 3
    arguments = [a for p in result.prompts for a in p.arguments or []]
    assert any(a.required for a in arguments) and any(not a.required for a in arguments)


@pytest.mark.parametrize("mode", MODES)
async def test_prompt_with_embedded_resource(mode: str) -> None:
    async with connect(mode) as client:
        result = await client.get_prompt("summarize-chapter", {"chapter": "pagination", "audience": "expert"})
        review = await client.get_prompt("review-file", {"path": "assets/logo.png"})
    embedded = [m.content for m in result.messages if isinstance(m.content, types.EmbeddedResource)]
    assert len(embedded) == 1
    resource = embedded[0].resource
    assert isinstance(resource, types.TextResourceContents)
    assert resource.uri == "docs://handbook/pagination" and resource.mime_type == "text/markdown"
    assert resource.text.startswith("# Pagination and cursors")
    blob = review.messages[-1].content
    assert isinstance(blob, types.EmbeddedResource) and isinstance(blob.resource, types.BlobResourceContents)
    assert base64.b64decode(blob.resource.blob).startswith(PNG_SIGNATURE)


@pytest.mark.parametrize("mode", MODES)
async def test_prompt_with_image(mode: str) -> None:
    async with connect(mode) as client:
        result = await client.get_prompt("describe-logo", {})
    images = [m.content for m in result.messages if isinstance(m.content, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert check_png(base64.b64decode(images[0].data)) == (64, 64)


@pytest.mark.parametrize("mode", MODES)
async def test_prompt_with_required_args(mode: str) -> None:
    async with connect(mode) as client:
        result = await client.get_prompt("incident-review", {"region": "us-east", "service": "ledger"})
    text = result.messages[0].content
    assert isinstance(text, types.TextContent)
    assert "| time |" in text.text and "ledger" in text.text
    assert [m.role for m in result.messages] == ["user", "assistant"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("summarize-chapter", {}),
        ("incident-review", {"region": "eu-west"}),
        ("incident-review", {"region": "eu-west", "service": "ledger"}),  # not in that region
        ("summarize-chapter", {"chapter": "nope"}),
        ("describe-logo", {"style": "cubist"}),
        ("no-such-prompt", {}),
    ],
)
async def test_prompt_errors(mode: str, name: str, arguments: dict[str, str]) -> None:
    async with connect(mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt(name, arguments)
    assert caught.value.code == types.INVALID_PARAMS


# --- change notifications ---------------------------------------------------------------------------------


class Notifications:
    """A message_handler that records what arrives, and lets a test wait for a given message."""

    def __init__(self) -> None:
        self.messages: list[object] = []
        self._arrived = anyio.Event()

    async def handler(self, message: object) -> None:
        self.messages.append(message)
        self._arrived.set()
        self._arrived = anyio.Event()

    async def wait_for(self, predicate: Callable[[object], bool], within: float = 3.0) -> None:
        with anyio.fail_after(within):
            while not any(predicate(m) for m in self.messages):
                await self._arrived.wait()


async def test_subscribe_sends_updated_in_the_handshake_era() -> None:
    notes = Notifications()
    async with connect("legacy", tick_seconds=0.1, message_handler=notes.handler) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.subscribe_resource(CLOCK_URI)
        await notes.wait_for(
            lambda m: isinstance(m, types.ResourceUpdatedNotification) and m.params.uri == CLOCK_URI,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.unsubscribe_resource(CLOCK_URI)
            with pytest.raises(MCPError) as caught:
                await client.subscribe_resource("docs://nowhere")
    assert caught.value.code == -32002


async def test_list_changed_in_the_handshake_era(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_DEMO_CHANGE_SECONDS", "0.3")
    notes = Notifications()
    server = build_server()
    async with Client(server, mode="legacy", cache=None, message_handler=notes.handler) as client:
        before, _ = await list_all(client)
        # A change may land while `before` is still paging in (under load); then its notification
        # shows nothing new, so wait for changes until one adds to what `before` saw.
        with anyio.fail_after(10):
            while True:
                notes.messages.clear()
                await notes.wait_for(lambda m: isinstance(m, types.ResourceListChangedNotification))
                after, _ = await list_all(client)
                if len(after) > len(before):
                    break
        new = [r for r in after if r.uri.startswith("docs://inbox/0")]
        assert len(after) > len(before) and new
        assert [r.uri for r in after[: len(before)]] == [r.uri for r in before]  # appended at the end
        note = text_of(await client.read_resource(new[0].uri))
    assert note.startswith("# ") and "list_changed" in note


@pytest.mark.slow
async def test_listen_in_the_modern_era() -> None:
    async with connect("auto", tick_seconds=0.1, change_seconds=0.3) as client:
        assert client.protocol_version == "2026-07-28"
        seen: set[type] = set()
        with anyio.fail_after(3):
            async with client.listen(resources_list_changed=True, resource_subscriptions=[CLOCK_URI]) as sub:
                async for event in sub:
                    if isinstance(event, ResourceUpdated):
                        assert event.uri == CLOCK_URI
                    seen.add(type(event))
                    if seen >= {ResourceUpdated, ResourcesListChanged}:
                        break
        resources, _ = await list_all(client)
    assert any(r.uri.startswith("docs://inbox/0") for r in resources)


async def test_no_inbox_when_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_DEMO_CHANGE_SECONDS", "0")
    async with Client(build_server(), mode="auto", cache=None) as client:
        await anyio.sleep(0.2)
        resources, _ = await list_all(client)
    assert not any(r.uri.startswith("docs://inbox/0") for r in resources)


# --- stdio ------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
async def test_stdio_subprocess(mode: str, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from explorer.demo.server import main; main()"],
        env={"PYTHONPATH": str(REPO), "EXPLORER_DEMO_CHANGE_SECONDS": "0"},
        cwd=str(REPO),
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, cache=None) as client:
            assert client.server_info is not None and client.server_info.name == SERVER_NAME
            assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            page = await client.list_resources()
            assert len(page.resources) == PAGE_SIZE and page.next_cursor
            result = await client.read_resource("docs://handbook/welcome")
            second = await client.list_resources(cursor=page.next_cursor)
    assert text_of(result).startswith("# Welcome")
    assert {r.uri for r in page.resources}.isdisjoint(r.uri for r in second.resources)


def test_templates_module_is_consistent() -> None:
    names = [t.name for t in TEMPLATES]
    assert len(names) == len(set(names))
