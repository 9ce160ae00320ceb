"""The server spec and config types, and the masking that keeps their secrets out of sight.

Split out of the loaders and the command-line parsing so that every module that only needs a
`ServerSpec`, `ListingBounds` or `redact()` (the connection layer, the CLI, the UI) depends on the types
alone. Header and env values usually hold tokens: `ServerSpec`'s repr and `describe()` mask them, and
`redact()` (or a `Redactor` for many servers at once) scrubs them, in every encoding a server may echo
them back in, from error messages and logs.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

from explorer.config.field_names import FIELD_NAMES
from explorer.sanitize import sanitize, sanitize_line

Transport = Literal["stdio", "http", "sse"]
Grant = Literal["authorization_code", "client_credentials", "identity_assertion"]
MASK = "***"

# Values shorter than this are not scrubbed by `redact`: `DEBUG=1` is no secret, and masking every "1" in a
# message would make it unreadable.
_MIN_SECRET_LENGTH = 4
# Query parameter names whose values are masked when a URL is shown (`?api_key=...`, `?token=...`).
_SECRET_PARAM = re.compile(r"token|key|secret|passw|pwd|auth|sig|credential|session|code", re.IGNORECASE)


class ConfigError(Exception):
    """A config or command-line problem the user can fix: one sentence saying where and what is wrong."""


def name_looks_secret(name: str) -> bool:
    """Whether a variable or parameter name says its value is a credential (`API_KEY`, `token`)."""
    return _SECRET_PARAM.search(name) is not None


@dataclass(frozen=True)
class SpecOrigin:
    """Where a server spec was read from: the config file (absolute) and the server's name in it.

    Removing a server at runtime edits only the explorer's own config.toml, and only the entry the server
    came from; a spec from another file (a client's, a `-c` file) says which file brings it back.
    """

    file: Path
    entry: str


@dataclass(frozen=True)
class InputPrompt:
    """A VS Code `inputs` entry: a value asked of the user before a server that uses `${input:ID}` starts.

    `options` holds the choices of a `pickString` input (empty for `promptString`). The value is a secret
    whatever `password` says: it usually ends up in a header or env value.
    """

    id: str
    description: str = ""
    password: bool = False
    default: str | None = None
    options: tuple[str, ...] = ()

    def problem(self, value: str) -> str | None:
        """Why `value` cannot be this input's value (a pickString value outside its options), else None."""
        if self.options and value not in self.options:
            return f"input {quoted(self.id)} must be one of: {', '.join(self.options)}"
        return None


def quoted(name: str) -> str:
    return '"' + sanitize_line(name, limit=80) + '"'


# ------------------------------------------------------------------------------------------------ OAuth


@dataclass(frozen=True, repr=False)
class OAuthSettings:
    """A server's `[servers.NAME.oauth]` table: how the explorer logs in to it (OAuth 2.1).

    Without one an HTTP server still gets OAuth when it asks for it (discovery and dynamic registration);
    this says what discovery cannot: a pre-registered client, client credentials for a machine-to-machine
    server, a private key for `private_key_jwt`, scopes, a client ID metadata document URL. The secret
    values (`client_secret`, `private_key`) are masked like header values.
    """

    grant: Grant = "authorization_code"
    client_id: str | None = None
    client_secret: str | None = None
    private_key: str | None = None  # PEM text (from `private_key` or read from `private_key_file`)
    signing_algorithm: str | None = None  # for private_key_jwt; None: from the key's type
    scopes: tuple[str, ...] = ()
    token_endpoint_auth_method: str | None = None  # client_secret_basic or client_secret_post
    issuer: str | None = None  # the authorization server the client credentials belong to
    client_metadata_url: str | None = None  # an HTTPS client ID metadata document (CIMD)
    redirect_port: int | None = None  # the loopback port a pre-registered client's redirect URI uses
    # The redirect URI's host: 127.0.0.1 (RFC 8252), or localhost where the client was registered as
    # another client registers it (Claude Code's `callbackPort`: http://localhost:PORT/callback).
    redirect_host: str = "127.0.0.1"
    flow: str | None = None  # how this server's login is approved (browser, print, fetch); None: the run's
    # Enterprise-managed authorization (SEP-990, grant = "identity_assertion"): the user's ID token from
    # their identity provider is exchanged there for an ID-JAG, which the authorization server takes.
    id_token: str | None = None  # as read at load (from `id_token` or the file)
    id_token_file: str | None = None  # absolute; read again at each exchange (ID tokens expire)
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None

    def secret_values(self) -> list[str]:
        secrets = (self.client_secret, self.private_key, self.id_token, self.idp_client_secret)
        return [value for value in secrets if value]

    def __repr__(self) -> str:
        secret = MASK if self.client_secret else None
        key = MASK if self.private_key else None
        return (
            f"OAuthSettings(grant={self.grant!r}, client_id={self.client_id!r}, client_secret={secret!r}, "
            f"private_key={key!r}, scopes={self.scopes!r})"
        )


# --------------------------------------------------------------------------------------------- ServerSpec


@dataclass(frozen=True, repr=False)
class ServerSpec:
    """How to reach one server: a stdio command, or a Streamable HTTP / legacy SSE endpoint."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, hash=False)
    # VS Code inputs still to be asked for: their `${input:ID}` placeholders are still in the values above,
    # so a spec with pending inputs must not be started (`explorer.config.inputs.fill_inputs` fills them).
    inputs: tuple[InputPrompt, ...] = ()
    # Values filled in from inputs: masked like header and env values wherever they appear (args, url...).
    secrets: tuple[str, ...] = ()
    oauth: OAuthSettings | None = field(default=None, hash=False)
    # The config file entry this spec was read from; None for `-s` values, the connect dialog, the demo.
    origin: SpecOrigin | None = field(default=None, compare=False)
    # Env names whose values are settings, not secrets (the demo's `EXPLORER_DEMO_*` knobs): shown as they
    # are and never masked. Every other env value is a secret, whatever its name.
    plain_env: frozenset[str] = field(default=frozenset(), compare=False)

    def __post_init__(self) -> None:
        # Own copies: a caller mutating its dict later must not change a spec that is already in use.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "env", dict(self.env))
        object.__setattr__(self, "headers", dict(self.headers))
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "secrets", tuple(self.secrets))
        object.__setattr__(self, "plain_env", frozenset(self.plain_env))
        if self.transport not in ("stdio", "http", "sse"):
            raise ValueError(f"unknown transport {self.transport!r}")
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio server spec needs a command")
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"an {self.transport} server spec needs a url")

    def describe(self) -> str:
        """One short, safe line for people: `stdio: python -m x`, `http: https://h/mcp (headers: A: ***)`."""
        if self.transport == "stdio":
            text = f"stdio: {self.shown_command()}"
        else:
            text = f"{self.transport}: {mask_url(self.url or '')}"
        extras = []
        if self.cwd:
            extras.append(f"cwd: {self.cwd}")
        if self.env:
            extras.append("env: " + ", ".join(f"{key}={self.shown_env(key)}" for key in self.env))
        if self.headers:
            extras.append("headers: " + ", ".join(f"{key}: {MASK}" for key in self.headers))
        if self.inputs:
            extras.append("needs input: " + ", ".join(prompt.id for prompt in self.inputs))
        if self.oauth is not None:
            extras.append(f"oauth: {self.oauth.grant}")
        if extras:
            text += " (" + "; ".join(extras) + ")"
        return sanitize_line(self.mask_secrets(text), limit=None)

    def shown_command(self) -> str:
        """The command and its args as one shell line, the filled-in inputs masked in each word before it
        is quoted: quoting first would hide a secret holding `'` (`'"'"'`) from the masking after it."""
        return " ".join(self._shown_word(word) for word in [self.command or "", *self.args])

    def _shown_word(self, word: str) -> str:
        """`word` masked, then quoted like `shlex.quote`; a masked word that needs quotes only for its `***`
        stays bare (`--key=***`), as this line is for reading (a `-s` value is split without globbing)."""
        masked = self.mask_secrets(word)
        if masked != word and _BARE_MASKED.fullmatch(masked):
            return masked
        return shlex.quote(masked)

    def __repr__(self) -> str:
        env = {key: self.shown_env(key) for key in self.env}
        headers = {key: MASK for key in self.headers}
        url = None if self.url is None else self.mask_secrets(mask_url(self.url))
        inputs = [prompt.id for prompt in self.inputs]
        # Each value masked before `repr` quotes it: a secret holding `\` or a newline is written escaped
        # by `repr`, and a mask applied after that no longer found it.
        command = None if self.command is None else self.mask_secrets(self.command)
        args = tuple(self.mask_secrets(arg) for arg in self.args)
        cwd = None if self.cwd is None else self.mask_secrets(self.cwd)
        name = self.mask_secrets(self.name)
        return (
            f"ServerSpec(name={name!r}, transport={self.transport!r}, command={command!r}, "
            f"args={args!r}, env={env!r}, cwd={cwd!r}, url={url!r}, headers={headers!r}, "
            f"inputs={inputs!r})"
        )

    def shown_env(self, name: str) -> str:
        """The env value of `name` as people may see it: `***`, unless it is a plain setting."""
        return self.env[name] if name in self.plain_env else MASK

    def secret_env_values(self) -> list[str]:
        """The env values that are secrets: all but those of `plain_env`."""
        return [value for name, value in self.env.items() if name not in self.plain_env]

    def mask_secrets(self, text: str) -> str:
        """`text` with the filled-in input values masked: they may sit in args, the command or the URL,
        which are otherwise shown as they are."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            if len(secret) >= _MIN_SECRET_LENGTH:
                text = text.replace(secret, MASK)
        return text


# The characters `shlex.quote` leaves bare, and the `*` of `***`.
_BARE_MASKED = re.compile(r"[\w@%+=:,./*-]+", re.ASCII)


def mask_url(url: str) -> str:
    """`url` with its credentials replaced by `***`: a userinfo password (or a lone user name, which is
    how tokens ride in URLs such as `https://TOKEN@host`) and secret-looking query and fragment values
    (`?token=...`, `#access_token=...`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    userinfo, at, hostport = netloc.rpartition("@")
    if at and userinfo:
        user, colon, password = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{hostport}" if colon and password else f"{MASK}{colon}@{hostport}"
    query = _mask_params(parts.query)
    fragment = _mask_params(parts.fragment)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return parts._replace(netloc=netloc, query=query, fragment=fragment).geturl()


def _mask_params(text: str) -> str:
    return "&".join(_mask_param(param) for param in text.split("&")) if text else text


def _mask_param(param: str) -> str:
    name, sep, value = param.partition("=")
    if sep and value and _SECRET_PARAM.search(unquote(name)):
        return f"{name}={MASK}"
    return param


def _url_secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at and userinfo:
        user, colon, password = userinfo.partition(":")
        if colon and password:
            # The password, and the Basic credential an HTTP client makes of user:password.
            basic = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode("ascii")
            found += [password, unquote(password), basic]
        else:
            found += [user, unquote(user)]
    for text in (parts.query, parts.fragment):
        for param in text.split("&") if text else ():
            name, sep, value = param.partition("=")
            if sep and value and _SECRET_PARAM.search(unquote(name)):
                found.extend((value, unquote(value), unquote_plus(value)))
    return found


def _credentials(value: str) -> list[str]:
    """A header value, the credential after its auth scheme, and the password of a Basic credential."""
    found = [value.strip()]
    scheme, _, credential = value.strip().partition(" ")
    credential = credential.strip()
    if scheme and credential:
        found.append(credential)
        if scheme.lower() == "basic":
            try:
                decoded = base64.b64decode(credential, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                decoded = ""
            if decoded:
                found.append(decoded.partition(":")[2])  # the password of user:password
    return found


def secrets_of(spec: ServerSpec) -> list[str]:
    """Every header value, env value, filled-in input and URL secret of `spec`, longest first; what `redact`
    masks.

    The credential after an auth scheme (`Bearer abc`) counts on its own too, and the password inside
    a Basic credential; a URL's password counts as the Basic credential made of it too. Values shorter
    than 4 characters are left out (`DEBUG=1` is no secret), and so are the env values the spec marks
    as plain settings (`plain_env`: the demo's knobs, such as a count of 1000000).
    """
    candidates: list[str] = []
    for value in [*spec.headers.values(), *spec.secret_env_values(), *spec.secrets]:
        candidates.extend(_credentials(value))
    if spec.url:
        candidates.extend(_url_secrets(spec.url))
    if spec.oauth is not None:
        candidates.extend(spec.oauth.secret_values())
    candidates.extend(_RUNTIME_SECRETS)
    secrets = {value for value in candidates if len(value) >= _MIN_SECRET_LENGTH}
    return sorted(secrets, key=len, reverse=True)  # longest first: a value containing another


# Secrets learned while running rather than configured: OAuth access and refresh tokens and dynamically
# registered client secrets. Every `secrets_of` includes them, so each masking path (`redact`, the CLI's
# output, the SDK log) hides them too without knowing where they came from.
_RUNTIME_SECRETS: set[str] = set()
_runtime_version = 0


def add_runtime_secrets(values: Iterable[str | None]) -> None:
    """Mask these values (tokens, registered client secrets) from now on, everywhere `redact` masks."""
    global _runtime_version
    fresh = {value for value in values if value and len(value) >= _MIN_SECRET_LENGTH} - _RUNTIME_SECRETS
    if fresh:
        _RUNTIME_SECRETS.update(fresh)
        _runtime_version += 1


def runtime_secrets() -> tuple[int, frozenset[str]]:
    """The runtime secrets and a version number that changes whenever one is added."""
    return _runtime_version, frozenset(_RUNTIME_SECRETS)


def _repr_forms(secret: str) -> tuple[str, str]:
    """`secret` inside Python's `repr` of a longer text (how the explorer quotes a server's words): its
    backslashes doubled and control characters escaped, and its `'` escaped or not, as the quotes `repr`
    chose for the whole text. The suffix added forces each choice; it is cut off again."""
    single = repr(secret + "'\"")[1:-4]  # in '...': a `'` as `\'`
    double = repr(secret + "'")  # in "..." when the text has no `"` (else the same as `single`)
    return single, double[1:-2] if double.startswith('"') else single


def secret_forms(secret: str) -> set[str]:
    """`secret` as a server may echo it back: raw, JSON-escaped (once and twice, ASCII-only or not),
    percent-encoded (`quote` and `quote_plus`, upper- and lower-case hex), base64 (standard and
    URL-safe, with and without padding), shown by the sanitizer, and inside `shlex.quote`'s quotes (each
    `'` as `'"'"'`, for a line quoted before it was masked) and inside a `repr` (`_repr_forms`).

    Base64 of a secret inside a longer base64 text depends on where the secret starts (its offset
    modulo 3): for each of the three alignments the characters that encode the secret alone are a
    form too. The one or two characters at each end that mix the secret's bits with its neighbours'
    stay visible (at most 4 bits of the secret each). Forms shorter than 4 characters are left out.
    """
    forms = {secret}
    for ascii_only in (True, False):
        once = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        forms.update((once, json.dumps(once, ensure_ascii=ascii_only)[1:-1]))
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret, safe=""), quote_plus(secret)):
        forms.update((encoded, re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), encoded)))
    data = secret.encode("utf-8", errors="surrogatepass")
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        first = -(-8 * offset // 6)  # the first character made of the secret's bits only
        last = 8 * (offset + len(data)) // 6  # one past the last such character
        fragments = [encoded[first:last]]
        if offset == 0:
            fragments += [encoded, encoded.rstrip("=")]
        for fragment in fragments:
            forms.update((fragment, fragment.translate(_URLSAFE)))
    forms.update((sanitize(secret, limit=None), sanitize_line(secret, limit=None)))
    shell = secret.replace("'", "'\"'\"'")  # inside `shlex.quote`'s quotes: each `'` as `'"'"'`
    forms.update((shell, sanitize_line(shell, limit=None)))
    for form in list(forms):  # each form, the JSON-escaped ones too, inside a `repr`
        forms.update(_repr_forms(form))
    return {form for form in forms if len(form) >= _MIN_SECRET_LENGTH}


_URLSAFE = str.maketrans("+/", "-_")


class Redactor:
    """Masks a fixed set of secrets, in every form `secret_forms` knows, in text and JSON-like values."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(sorted({s for s in secrets if len(s) >= _MIN_SECRET_LENGTH}))
        self.forms = _forms_of(self.secrets)
        self._whole = frozenset(self.forms)  # a key that is one of them exactly is masked (`key`)

    def __bool__(self) -> bool:
        return bool(self.forms)

    def text(self, text: str) -> str:
        """`text` with every form of every secret replaced by `***` (longest forms first)."""
        for form in self.forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def key(self, key: Any) -> Any:
        """An object key masked (see `_FIELD_NAME`): a key shaped like a field name only when it is a
        secret exactly and no field name the explorer knows (`FIELD_NAMES`); any other key wherever it
        holds a secret, as text is."""
        if isinstance(key, str) and _FIELD_NAME.match(key):
            return MASK if key in self._whole and key not in FIELD_NAMES else key
        return self.text(str(key))

    def value(self, value: Any) -> Any:
        """`text` applied to every string inside a JSON-like value, and `key` to every key; keys masked
        to the same text are told apart (`_unique_keys`). A loop, not recursion: a server's answer may
        nest a thousand deep."""
        if not self.forms:
            return value
        if not isinstance(value, dict | list | tuple):
            return self.text(value) if isinstance(value, str) else value
        root: list[Any] = [None]
        stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]  # (source, target container, slot)
        while stack:
            source, target, slot = stack.pop()
            if isinstance(source, dict):
                copy: dict[Any, Any] = {}
                target[slot] = copy
                keys = list(source)
                names = [self.key(key) for key in keys]
                if names != keys:
                    names = _unique_keys(keys, names)
                for name, item in zip(names, source.values(), strict=True):
                    copy[name] = None
                    stack.append((item, copy, name))
            elif isinstance(source, list | tuple):
                items: list[Any] = [None] * len(source)
                target[slot] = items
                stack.extend((item, items, index) for index, item in enumerate(source))
            else:
                target[slot] = self.text(source) if isinstance(source, str) else source
        return root[0]


# A key made of letters (and single underscores) is shaped like a field name: every JSON-RPC and MCP
# field name, and every key the explorer writes, is one. Masking the secrets inside them broke the
# output's shape for any short env value (`text` in `context`, `json`), so such a key is masked only when
# it IS a secret (a server's map keyed by the `hunter` it was given leaked it) and not a field name the
# explorer knows (`FIELD_NAMES`: `MODE=text` keeps the key `text`). A secret is always masked as a value.
_FIELD_NAME = re.compile(r"_?[A-Za-z]+(?:_[A-Za-z]+)*\Z")


def _unique_keys(keys: list[Any], names: list[Any]) -> list[Any]:
    """`names` (the masked `keys`) made unique: two keys masked to the same text (`***`, or one key
    masked onto another that was not) would keep one value and silently lose the other. A masked key that
    meets a name already taken is numbered, `*** (2)`, `*** (3)`, in the order of the keys; a key left as
    it was keeps its name."""
    if len(set(names)) == len(names):
        return names
    taken = {name for key, name in zip(keys, names, strict=True) if name == key}
    unique: list[Any] = []
    for key, name in zip(keys, names, strict=True):
        if name != key:
            base, number = name, 2
            while name in taken:
                name, number = f"{base} ({number})", number + 1
            taken.add(name)
        unique.append(name)
    return unique


@lru_cache(maxsize=64)
def _forms_of(secrets: tuple[str, ...]) -> tuple[str, ...]:
    forms = {form for secret in secrets for form in secret_forms(secret)}
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))  # a form containing another first


def masked_forms(spec: ServerSpec) -> list[str]:
    """Every form of every secret of `spec` (see `secret_forms`), longest first: for log maskers."""
    return list(_forms_of(tuple(sorted(secrets_of(spec)))))


def redact(text: str, spec: ServerSpec) -> str:
    """`text` with every header value, env value and URL secret of `spec` replaced by `***`.

    For error messages, stderr tails and logs, which may echo a token back, also JSON-escaped,
    percent-encoded or base64-encoded (`secret_forms`).
    """
    return Redactor(secrets_of(spec)).text(text)


def redact_value(value: Any, spec: ServerSpec) -> Any:
    """`redact` applied to every string inside a JSON-like value (error `data` a server sent back)."""
    return Redactor(secrets_of(spec)).value(value)


# ------------------------------------------------------------------------------------------------ Config


@dataclass(frozen=True)
class ListingBounds:
    """Limits of one server's listing; reaching one leaves the listing visibly incomplete."""

    max_items: int = 100_000
    max_pages: int = 1_000
    max_seconds: float = 60.0
    max_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        for name in ("max_items", "max_pages", "max_seconds", "max_bytes"):
            value = getattr(self, name)
            if not value > 0 or not math.isfinite(value):
                raise ValueError(f"{name} must be a positive number, got {value!r}")


@dataclass
class Config:
    """Everything a config file says; `warnings` lists what was ignored or could not be expanded.

    `source` is what `-c` takes to load this config again: the file, or the client name (`vscode`) when it
    was merged from a client's files, which `files` lists (user file first; a later file wins on a name).
    `broken` maps each server entry that cannot be used to why (a sentence naming the file): it is left
    out of `servers` with a warning, so one broken entry never hides the others, and `-s NAME` says why.
    `setting_warnings` are the warnings about the explorer's own settings (a theme, keymap or listing
    value that cannot be used, its default used instead), which `-c` passes on when it applies them.
    """

    servers: dict[str, ServerSpec] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    listing: ListingBounds = field(default_factory=ListingBounds)
    source: Path | None = None
    warnings: list[str] = field(default_factory=list)
    files: tuple[Path, ...] = ()
    client: str | None = None
    broken: dict[str, str] = field(default_factory=dict)
    setting_warnings: list[str] = field(default_factory=list)
