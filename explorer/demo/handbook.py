"""The `docs://` handbook: a short, readable guide to MCP resources and to the explorer, in Markdown.

Each chapter is `(slug, title, description, markdown)`. Chapters are split into sections by their `## `
headings, which `docs://handbook/{chapter}{#section}` addresses by slug.
"""

from __future__ import annotations

import re
from functools import cache

Chapter = tuple[str, str, str, str]

CHAPTERS: tuple[Chapter, ...] = (
    (
        "welcome",
        "Welcome to the demo server",
        "What this server is, what it serves, and a suggested tour.",
        """\
# Welcome to the demo server

This is **mcp-url-explorer-demo**, the server that ships with mcp-url-explorer
(see [Using the explorer](docs://handbook/using-the-explorer)). It exists so that you can try every
feature of the explorer without installing anything else, and so that screenshots and tests have
something stable to look at. Nothing here is random: every run serves the same bytes, except for the
two resources that are *meant* to change.

## What is served

The server exposes three URI schemes, each with a different shape:

- `docs://` is this handbook, a glossary, an FAQ and an *inbox* that grows while you watch.
- `file:///` is a fake but plausible source tree: a small Python library called **Tidewater** that
  predicts tides. It has Python, Markdown, TOML, YAML and JSON files, a PNG logo and a binary table.
- `metrics://` is a synthetic monitoring dataset: five regions running thirty-two service deployments,
  five metrics each, fourteen days of hourly samples. It is the bulk of the catalogue.

All together that is more than two thousand resources, listed 100 per page.

## A suggested tour

1. Open `docs://handbook/mcp-in-five-minutes` if MCP is new to you.
2. Expand `file:///workspace/tidewater/` and read `pyproject.toml`, then `assets/logo.png`.
3. Drill into `metrics://eu-west/checkout/latency-p99/` and compare two days.
4. Fill in the template `metrics://{region}/{service}/latest`: pick a region first and watch the
   completions for `service` narrow down to the services that run there.
5. Subscribe to `metrics://live/clock` and watch it tick.
6. Leave the explorer open for a minute: new notes appear under `docs://inbox/`.

## Conventions

Resource titles are written for people; names are short and machine-friendly. Where a size is known
it is given in bytes of the raw content (before base64). Annotations say who a resource is for
(`user`, `assistant`) and how important it is, from `0.0` to `1.0`.

> Tip: every chapter of this handbook is split into sections. Append `#section-slug` to a chapter URI
> to read a single section, for example `docs://handbook/pagination#cursors`.
""",
    ),
    (
        "mcp-in-five-minutes",
        "MCP in five minutes",
        "Hosts, clients and servers; resources, prompts and tools; how a session starts.",
        """\
# MCP in five minutes

The [Model Context Protocol](https://modelcontextprotocol.io) is a JSON-RPC protocol that lets an
application (the *host*) plug in *servers* that provide context: documents, data, actions. The host
runs one *client* per server connection.

## The three kinds of things a server offers

- **Resources** are data identified by URIs. A client lists them (`resources/list`), reads them
  (`resources/read`) and can ask to be told when they change.
- **Prompts** are reusable message templates with arguments. A client lists them and *gets* one with
  arguments filled in; the result is a list of messages ready to send to a model.
- **Tools** are functions the model may call. This demo has none: the explorer is about resources.

On top of those, servers may offer **completions**: suggestions for template and prompt arguments.

## Transports

The same messages travel over different pipes:

| Transport        | How it works                                                   |
|------------------|----------------------------------------------------------------|
| stdio            | the client starts the server as a child process                 |
| Streamable HTTP  | POST requests, responses as JSON or as a server-sent event stream |
| HTTP + SSE       | the older two-endpoint HTTP transport, still seen in the wild   |

This demo speaks stdio when started with `mcp-url-explorer demo-server`.

## A first exchange

In the handshake era a session starts with `initialize`:

```json
{"jsonrpc": "2.0", "id": 1, "method": "initialize",
 "params": {"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcp-url-explorer", "version": "0.1.0"}}}
```

The server answers with its name, version, capabilities and optional `instructions`. In the modern era
(2026-07-28) there is no handshake: see [Protocol eras](docs://handbook/protocol-eras).

## Further reading

- The specification: <https://modelcontextprotocol.io/specification>
- The [glossary](docs://glossary) in this server.
""",
    ),
    (
        "uris-and-schemes",
        "URIs, schemes and the prefix tree",
        "How resource URIs are built and how the explorer turns a flat list into a tree.",
        """\
# URIs, schemes and the prefix tree

Every resource has a URI. MCP does not care which scheme a server uses: `file:///`, `https://`,
`postgres://` and made-up ones like `metrics://` are all fine, as long as the server can read what it
lists.

## Anatomy of a URI

```text
metrics://eu-west/checkout/latency-p99/2026-07-14?unit=ms#summary
└──┬──┘   └──┬──┘ └──────────────┬──────────────┘ └──┬──┘ └──┬──┘
 scheme  authority             path               query  fragment
```

The explorer never guesses what a URI *means*. It only splits it at the separators it can see.

## From a list to a tree

`resources/list` returns a flat, paginated list. The explorer builds a tree from it by cutting each
URI after `://` and after every `/`:

- `file:///workspace/tidewater/README.md` becomes `file://` → `/` → `workspace/` → `tidewater/` →
  `README.md`.
- A URI can be both a leaf and a branch: `docs://handbook` is a resource (the table of contents)
  *and* the prefix of every chapter.
- Folders that no resource names directly are still shown, because some URI passes through them.

## Templates in the tree

A resource template such as `metrics://{region}/{service}/latest` is placed at its *literal prefix*,
the text before the first `{`: here `metrics://`. That is where you would go looking for it.

## Why schemes matter

Schemes are the first level of the tree, so a server that mixes them stays easy to navigate. This
demo uses three on purpose. The `file:///` tree goes seven levels deep; the folder
`file:///workspace/tidewater/data/stations/` has a few hundred children, which is a good test of
scrolling and filtering.
""",
    ),
    (
        "resource-templates",
        "Resource templates",
        "RFC 6570 templates from level 1 to level 4, with the examples this server offers.",
        """\
# Resource templates

A resource template describes a *family* of URIs. It is written in the syntax of
[RFC 6570](https://www.rfc-editor.org/rfc/rfc6570), the same one used by many web APIs.

## The four levels

- **Level 1**, simple expansion: `docs://handbook/{chapter}`. Reserved characters in the value are
  percent-encoded, so a value can never add a `/`.
- **Level 2** adds reserved expansion and fragments: `file:///{+path}` keeps the slashes in `path`,
  and `docs://handbook/{chapter}{#section}` appends `#section`.
- **Level 3** adds more operators and several variables per expression: `docs://search{?q,limit}`
  builds a query string; `{.format}` adds a dotted label such as `.json`.
- **Level 4** adds prefixes (`{var:3}`) and explode modifiers: `metrics://rollup{/segments*}` turns
  a list into path segments.

## The templates on this server

| Template                                      | Try it with                                    |
|-----------------------------------------------|------------------------------------------------|
| `docs://handbook/{chapter}`                   | `chapter = pagination`                         |
| `docs://handbook/{chapter}{#section}`         | `chapter = pagination`, `section = cursors`    |
| `docs://search{?q,limit}`                     | `q = cursor`, `limit = 5`                      |
| `file:///{+path}`                             | `path = workspace/tidewater/src/tidewater/`    |
| `metrics://{region}/{service}/latest`         | `region = eu-west`, `service = checkout`       |
| `metrics://{region}/{service}/report{.format}`| `format = csv`                                 |
| `metrics://rollup{/segments*}`                | `segments = [us-east, ledger]`                 |
| `file:///workspace/tidewater/data/stations/{station}.json` | `station = port-alder`            |

## Expanding by hand

```python
from uritemplate import URITemplate

URITemplate("metrics://rollup{/segments*}").expand(segments=["us-east", "ledger"])
# 'metrics://rollup/us-east/ledger'
```

Matching goes the other way: given a URI, find the template and the values. The explorer does this to
show which template a resource belongs to.
""",
    ),
    (
        "pagination",
        "Pagination and cursors",
        "Why lists come in pages, what a cursor is, and what clients must not assume.",
        """\
# Pagination and cursors

A server with thousands of resources does not send them in one response. It sends a *page* and a
`nextCursor`; the client asks again with `cursor` set to that value, until no cursor comes back.

## Cursors

A cursor is an **opaque string**. Clients must not parse it, build it, or assume that two servers use
the same format. This server's cursors look like random base64, and they carry a checksum: change one
character and the server answers with JSON-RPC error `-32602` and the message `invalid cursor`.

```python
cursor = None
while True:
    page = await client.list_resources(cursor=cursor)
    handle(page.resources)
    cursor = page.next_cursor
    if cursor is None:
        break
```

## Page sizes

The page size is the server's choice and may vary between pages. Here it is always 100, which makes
the demo a good test for progressive loading: the tree fills in while later pages arrive.

## Things that go wrong

- A list can change between two pages. This server appends new inbox notes at the *end* of the list so
  that cursors already handed out stay valid.
- In the 2026-07-28 protocol an empty string is a valid cursor. Only a missing `nextCursor` means the
  end.
- Some servers return the same cursor forever. A careful client stops after a page repeats.
""",
    ),
    (
        "completions",
        "Completions",
        "How completion/complete suggests argument values, and how context narrows them down.",
        """\
# Completions

`completion/complete` asks a server for suggestions while the user types an argument, either of a
resource template or of a prompt.

## A request

```json
{"method": "completion/complete",
 "params": {"ref": {"type": "ref/resource", "uri": "metrics://{region}/{service}/latest"},
            "argument": {"name": "service", "value": "ch"},
            "context": {"arguments": {"region": "eu-west"}}}}
```

The answer holds up to 100 `values`, and optionally a `total` and `hasMore`.

## Context makes completions smart

The `context.arguments` member carries the values the user has already chosen. This server uses it:

- `service` candidates depend on the chosen `region`; `inventory` runs in `eu-north` only.
- `section` candidates depend on the chosen `chapter`.
- `file:///{+path}` completes one path segment at a time, like a shell.

## Prompt arguments

Prompts complete too. The prompt `incident-review` completes `region`, then `service` within that
region, then `window` from a short list.

## Good manners

- Filter by the typed prefix; the client should not have to.
- Keep responses small: the user is typing.
- Return an empty list rather than an error for values you do not know.
""",
    ),
    (
        "prompts",
        "Prompts",
        "Prompt arguments, required and optional, and the content a prompt can return.",
        """\
# Prompts

A prompt is a named, parameterised list of messages. The client shows the arguments, the user fills
them in, and `prompts/get` returns the messages.

## Arguments

Each argument has a name, an optional description and a `required` flag. Missing a required argument is
an error (`-32602` on this server). Optional arguments have sensible defaults.

## What a message can contain

- **Text**, the common case.
- **Images**, base64 data with a MIME type: `describe-logo` returns the Tidewater logo as a PNG.
- **Embedded resources**: the full contents of a resource, inline. `summarize-chapter` embeds the
  chapter you pick, and `review-file` embeds a file from the source tree.
- **Resource links**: a URI the client may read later.

## The prompts on this server

| Name                | Arguments                                   | Returns                       |
|---------------------|---------------------------------------------|-------------------------------|
| `summarize-chapter` | `chapter`*, `audience`, `length`            | text + embedded Markdown      |
| `review-file`       | `path`*, `focus`                            | text + embedded source file   |
| `incident-review`   | `region`*, `service`*, `window`             | text with a metrics table     |
| `describe-logo`     | `style`                                     | text + PNG image              |

(* required)
""",
    ),
    (
        "subscriptions",
        "Subscriptions and change notifications",
        "Watching one resource, learning that the list changed, and how this differs between eras.",
        """\
# Subscriptions and change notifications

Resources change. MCP has two notifications for that:

- `notifications/resources/updated` says *this URI* changed; read it again if you care.
- `notifications/resources/list_changed` says the *list* changed; list again.

Both are level triggers: they carry no new content, only the fact that something changed.

## On this server

- `metrics://live/clock` changes every two seconds. Subscribe to it to get `updated` notifications.
- Every 30 seconds a note appears under `docs://inbox/`, followed by `list_changed`. The period comes
  from the environment variable `EXPLORER_DEMO_CHANGE_SECONDS` (`0` turns it off).

## Handshake era

After `initialize`, the client sends `resources/subscribe` with a URI. The server then pushes
`notifications/resources/updated` for that URI until `resources/unsubscribe`. `list_changed` is
pushed to every client when the server declared `resources.listChanged`.

## Modern era (2026-07-28)

There is no session to push into. The client opens a stream with `subscriptions/listen`, naming what
it wants:

```json
{"method": "subscriptions/listen",
 "params": {"notifications": {"resourcesListChanged": true,
                              "resourceSubscriptions": ["metrics://live/clock"]}}}
```

The server acknowledges, then sends the matching notifications on that stream, each tagged with the
subscription id. Closing the stream ends the subscription.
""",
    ),
    (
        "protocol-eras",
        "Protocol eras",
        "The handshake era (2024-11-05 to 2025-11-25) and the stateless modern era (2026-07-28).",
        """\
# Protocol eras

MCP changed shape in its 2026-07-28 revision. Clients in the wild meet both kinds of server, so the
explorer speaks both and lets you choose.

## Handshake era

Versions 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25. The client sends `initialize`, the server
answers with its capabilities, and the client confirms with `notifications/initialized`. The session
has state: subscriptions, the log level, the negotiated version.

## Modern era

Version 2026-07-28 is stateless:

- there is no `initialize`; a client may call `server/discover` to learn about the server;
- every request carries the protocol version and client info in `_meta`;
- results carry `resultType` and caching hints (`ttlMs`, `cacheScope`);
- `resources/subscribe` is replaced by `subscriptions/listen`;
- "resource not found" is `-32602` (it was `-32002`);
- `logging/setLevel` is gone.

## What the explorer does

With `--protocol auto` it tries `server/discover` first and falls back to `initialize` on an error.
`--protocol legacy` goes straight to the handshake; `--protocol 2026-07-28` never sends one.

## This server in each era

| Feature                | Handshake era                  | Modern era                         |
|------------------------|--------------------------------|------------------------------------|
| list, read, templates  | yes                            | yes                                |
| completions, prompts   | yes                            | yes                                |
| watching the clock     | `resources/subscribe`          | `subscriptions/listen`             |
| inbox `list_changed`   | pushed after your first request | on a listen stream                 |
| unknown URI            | error `-32002`                 | error `-32602`                     |
""",
    ),
    (
        "using-the-explorer",
        "Using the explorer",
        "The panes, the tree, filtering and reading, in a terminal.",
        """\
# Using the explorer

mcp-url-explorer is a terminal application. It connects to one or more MCP servers and shows what they
expose as a single tree of URI prefixes.

## Starting

Point the explorer at a server: a command to run over stdio, or the URL of an HTTP server. See
`mcp-url-explorer --help` for the exact forms. This demo server can also run on its own, for any other
MCP client:

```console
$ mcp-url-explorer demo-server
```

## The panes

- **The tree** on the left: schemes, then path segments, resources as leaves, templates at their
  literal prefix.
- **The detail pane** on the right: the selected resource's metadata (name, title, MIME type, size,
  annotations) and, once read, its contents: Markdown rendered, JSON and source code highlighted,
  images shown where the terminal can, binary data as a hex dump.
- **The footer** lists the keys that work in the current pane.

## Filtering

Type to filter the tree by URI prefix. Filtering happens in the client: MCP has no server-side prefix
filter yet, so the explorer loads every page and filters what it has.

## Templates

Selecting a template opens a form with one field per variable. Completions appear as you type and use
the values you have already filled in. The expanded URI is shown live and can be read directly.
""",
    ),
    (
        "troubleshooting",
        "Troubleshooting",
        "Error codes you will meet, stdio pitfalls, and what they usually mean.",
        """\
# Troubleshooting

## Error codes

| Code     | Meaning                                   | Typical cause                                  |
|----------|-------------------------------------------|------------------------------------------------|
| `-32601` | method not found                          | the server does not implement templates/list   |
| `-32602` | invalid params                            | bad cursor, unknown URI (modern), missing arg  |
| `-32002` | resource not found (handshake era)        | unknown URI on older servers                   |
| `-32603` | internal error                            | the server's handler crashed                   |
| `-32000` | connection closed (client side)           | the server process exited                      |
| `-32001` | request timeout (client side)             | the server took longer than the read timeout   |

## stdio servers

- A stdio server must never print to standard output: every byte there is part of the protocol. Log
  to standard error instead.
- If the server exits at once, run its command by hand and read what it writes to standard error.
- The child process sees only a few environment variables by default. Pass what it needs explicitly.

## Slow listings

Large servers list in pages. If the tree keeps growing, more pages are arriving; the status bar shows
how many resources have been loaded so far.

## Still stuck?

Check the [FAQ](docs://faq), then open an issue with the protocol log attached.
""",
    ),
)

GLOSSARY = """\
GLOSSARY
========

annotations     Hints on a resource or content block: audience (user, assistant), priority (0.0
                to 1.0) and lastModified (an ISO 8601 timestamp).
blob            Binary resource contents, sent base64-encoded, with a MIME type.
capability      A feature a client or server declares it supports, e.g. resources.subscribe.
completion      A suggested value for a template or prompt argument, from completion/complete.
cursor          An opaque string that asks for the next page of a paginated list.
embedded        Describes a resource whose full contents travel inside a prompt message.
era             One of the two protocol shapes: handshake (up to 2025-11-25) or modern (2026-07-28).
host            The application that runs MCP clients and talks to a model.
list_changed    A notification that a list (resources, prompts, tools) changed.
listen          The 2026-07-28 request that opens a stream of change notifications.
MIME type       The media type of some content, e.g. text/markdown or image/png.
prefix tree     A tree whose nodes are URI prefixes; the explorer's main view.
prompt          A named list of messages with arguments, fetched with prompts/get.
resource        Data identified by a URI, listed with resources/list and read with resources/read.
scheme          The part of a URI before "://", e.g. docs, file, metrics.
stdio           A transport where the client runs the server as a child process.
subscription    A request to be told when one resource changes.
template        An RFC 6570 URI template describing a family of resources.
tool            A function a model may call; not used by this demo.
transport       The pipe MCP messages travel through: stdio, Streamable HTTP or HTTP+SSE.
"""

FAQ = """\
# Frequently asked questions

## Is any of this data real?

No. The Tidewater project, its tide stations and the monitoring metrics are made up. They are
generated from fixed seeds, so they are the same on every run.

## Why are there so many metrics resources?

To make pagination visible: about two and a half thousand resources in pages of 100. A real server
can easily have more.

## Why does `docs://handbook` exist when `docs://handbook/` has children?

On purpose: a URI can be a resource and a prefix at the same time, and an explorer has to show both.

## Can I change how often the inbox grows?

Yes: set `EXPLORER_DEMO_CHANGE_SECONDS` before starting the server. `0` disables it. The clock
period is `EXPLORER_DEMO_TICK_SECONDS` (default 2).

## Where does the logo come from?

It is drawn pixel by pixel in Python and written as a PNG with `zlib` and `struct`: see
[the handbook on prompts](docs://handbook/prompts) and `file:///workspace/tidewater/assets/logo.png`.
"""

INBOX_README = """\
# Inbox

New notes land here while the server runs: one every `EXPLORER_DEMO_CHANGE_SECONDS` seconds (30 by
default). Each arrival is announced with `notifications/resources/list_changed`, so a client that
listens for it sees this folder grow without reloading.
"""

INBOX_SUBJECTS: tuple[tuple[str, str], ...] = (
    ("deploy-window", "Deploy window moved to Thursday"),
    ("p99-regression", "p99 regression in eu-west checkout"),
    ("station-audit", "Station audit: twelve gauges recalibrated"),
    ("release-0-9", "Tidewater 0.9 is out"),
    ("on-call-swap", "On-call swap for next week"),
    ("datum-question", "Question about chart datum conversions"),
    ("cache-hints", "Caching hints now on every list result"),
    ("retro-notes", "Notes from the incident retrospective"),
)

_HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)


def slugify(text: str) -> str:
    """`"Things that go wrong"` -> `"things-that-go-wrong"`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@cache
def chapter_map() -> dict[str, Chapter]:
    return {chapter[0]: chapter for chapter in CHAPTERS}


@cache
def sections(slug: str) -> dict[str, str]:
    """A chapter's sections by slug, each with its own heading, in document order."""
    chapter = chapter_map().get(slug)
    if chapter is None:
        return {}
    text = chapter[3]
    found = list(_HEADING.finditer(text))
    out: dict[str, str] = {}
    for index, m in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        out[slugify(m.group(1))] = text[m.start() : end].rstrip() + "\n"
    return out


def table_of_contents() -> str:
    lines = ["# The handbook", "", "A short guide to MCP resources and to the explorer.", ""]
    for number, (slug, title, description, _) in enumerate(CHAPTERS, start=1):
        lines.append(f"{number}. [{title}](docs://handbook/{slug}): {description}")
        for section, text in sections(slug).items():
            heading = text.splitlines()[0].removeprefix("## ")
            lines.append(f"   - [{heading}](docs://handbook/{slug}#{section})")
    lines.append("")
    return "\n".join(lines)


def inbox_note(index: int, arrived: str) -> tuple[str, str, str]:
    """The `index`-th inbox note (1-based): (slug, title, markdown)."""
    slug, title = INBOX_SUBJECTS[(index - 1) % len(INBOX_SUBJECTS)]
    name = f"{index:04d}-{slug}"
    body = (
        f"# {title}\n\n"
        f"*Note {index}, arrived {arrived}.*\n\n"
        "This note was added while the server was running, to show `notifications/resources/list_changed`.\n"
        "Nothing else changed: the rest of the catalogue is exactly as it was.\n\n"
        "- Listed at the end of `resources/list`, so cursors already handed out stay valid.\n"
        f"- Its URI is `docs://inbox/{name}`.\n"
    )
    return name, title, body
