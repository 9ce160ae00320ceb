"""What a MIME type or a file name says about content: a kind, and a Pygments lexer name for code.

Why a module of its own: the tables are long and grow one entry at a time; the rules that use them are
rules 1 and 2 of the package docstring.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from explorer.model.contents.record import ContentKind

_GENERIC_MIMES: Final = frozenset(
    {
        "",
        "text/plain",
        "application/octet-stream",
        "binary/octet-stream",
        "application/binary",
        "application/unknown",
        "application/x-unknown",
        "unknown/unknown",
    }
)
_MARKDOWN_MIMES: Final = frozenset({"text/markdown", "text/x-markdown", "text/md", "text/x-gfm"})
_JSON_MIMES: Final = frozenset({"application/json", "text/json", "application/x-json"})

CODE_MIMES: Final[Mapping[str, str]] = {
    "text/x-python": "python",
    "text/x-python3": "python",
    "text/x-script.python": "python",
    "application/x-python": "python",
    "application/x-python-code": "python",
    "application/toml": "toml",
    "text/toml": "toml",
    "text/x-toml": "toml",
    "application/yaml": "yaml",
    "application/x-yaml": "yaml",
    "text/yaml": "yaml",
    "text/x-yaml": "yaml",
    "application/javascript": "javascript",
    "application/x-javascript": "javascript",
    "application/ecmascript": "javascript",
    "text/javascript": "javascript",
    "text/ecmascript": "javascript",
    "application/typescript": "typescript",
    "application/x-typescript": "typescript",
    "text/typescript": "typescript",
    "text/x-typescript": "typescript",
    "text/x-rust": "rust",
    "text/rust": "rust",
    "text/x-go": "go",
    "text/x-golang": "go",
    "application/x-sh": "shell",
    "application/x-shellscript": "shell",
    "text/x-sh": "shell",
    "text/x-shellscript": "shell",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/css": "css",
    "application/sql": "sql",
    "text/x-sql": "sql",
    "text/x-c": "c",
    "text/x-csrc": "c",
    "text/x-chdr": "c",
    "text/x-c++": "cpp",
    "text/x-c++src": "cpp",
    "text/x-c++hdr": "cpp",
    "text/x-java": "java",
    "text/x-java-source": "java",
    "text/x-kotlin": "kotlin",
    "text/x-ruby": "ruby",
    "application/x-ruby": "ruby",
    "application/x-httpd-php": "php",
    "text/x-php": "php",
    "text/x-lua": "lua",
    "text/x-csharp": "csharp",
    "text/x-swift": "swift",
    "text/x-ini": "ini",
    "text/x-diff": "diff",
    "text/x-patch": "diff",
    "application/graphql": "graphql",
    "text/x-dockerfile": "docker",
    "text/x-makefile": "make",
    "text/x-tex": "latex",
    "application/x-tex": "latex",
    "text/x-rst": "rst",
}

EXTENSIONS: Final[Mapping[str, tuple[ContentKind, str | None]]] = {
    "md": ("markdown", None),
    "markdown": ("markdown", None),
    "mdx": ("markdown", None),
    "json": ("json", None),
    "geojson": ("json", None),
    "ipynb": ("json", None),
    "txt": ("text", None),
    "text": ("text", None),
    "log": ("text", None),
    "csv": ("text", None),
    "tsv": ("text", None),
    "py": ("code", "python"),
    "pyi": ("code", "python"),
    "toml": ("code", "toml"),
    "yaml": ("code", "yaml"),
    "yml": ("code", "yaml"),
    "js": ("code", "javascript"),
    "mjs": ("code", "javascript"),
    "cjs": ("code", "javascript"),
    "jsx": ("code", "jsx"),
    "ts": ("code", "typescript"),
    "mts": ("code", "typescript"),
    "tsx": ("code", "tsx"),
    "rs": ("code", "rust"),
    "go": ("code", "go"),
    "sh": ("code", "shell"),
    "bash": ("code", "shell"),
    "zsh": ("code", "shell"),
    "html": ("code", "html"),
    "htm": ("code", "html"),
    "xml": ("code", "xml"),
    "svg": ("code", "xml"),
    "xsd": ("code", "xml"),
    "css": ("code", "css"),
    "scss": ("code", "scss"),
    "sql": ("code", "sql"),
    "c": ("code", "c"),
    "h": ("code", "c"),
    "cc": ("code", "cpp"),
    "cpp": ("code", "cpp"),
    "cxx": ("code", "cpp"),
    "hpp": ("code", "cpp"),
    "hh": ("code", "cpp"),
    "java": ("code", "java"),
    "kt": ("code", "kotlin"),
    "rb": ("code", "ruby"),
    "php": ("code", "php"),
    "lua": ("code", "lua"),
    "cs": ("code", "csharp"),
    "swift": ("code", "swift"),
    "ini": ("code", "ini"),
    "cfg": ("code", "ini"),
    "conf": ("code", "ini"),
    "diff": ("code", "diff"),
    "patch": ("code", "diff"),
    "graphql": ("code", "graphql"),
    "tf": ("code", "terraform"),
    "proto": ("code", "protobuf"),
    "tex": ("code", "latex"),
    "rst": ("code", "rst"),
    "ps1": ("code", "powershell"),
    "pl": ("code", "perl"),
    "hs": ("code", "haskell"),
    "ex": ("code", "elixir"),
    "exs": ("code", "elixir"),
    "scala": ("code", "scala"),
    "dart": ("code", "dart"),
    "zig": ("code", "zig"),
    "nix": ("code", "nix"),
    "png": ("image", None),
    "gif": ("image", None),
    "jpg": ("image", None),
    "jpeg": ("image", None),
    "webp": ("image", None),
    "bmp": ("image", None),
}
FILENAMES: Final[Mapping[str, tuple[ContentKind, str | None]]] = {
    "makefile": ("code", "make"),
    "gnumakefile": ("code", "make"),
    "dockerfile": ("code", "docker"),
    "containerfile": ("code", "docker"),
}


def normalize_mime(mime: str | None) -> str:
    """`Text/Markdown; charset=UTF-8` -> `text/markdown`; None -> ``""``."""
    if not mime:
        return ""
    return mime.split(";", 1)[0].strip().lower()


def mime_family(mime: str) -> tuple[ContentKind, str | None] | None:
    """What a specific MIME type says; None when it is missing or generic."""
    if mime in _GENERIC_MIMES:
        return None
    if mime in _MARKDOWN_MIMES:
        return "markdown", None
    if mime in _JSON_MIMES or mime.endswith("+json"):
        return "json", None
    language = CODE_MIMES.get(mime)
    if language is not None:
        return "code", language
    if mime.endswith("+xml"):
        return "code", "xml"
    if mime.endswith("+yaml"):
        return "code", "yaml"
    if mime.startswith("text/"):
        return "text", None
    if mime.startswith("image/"):
        return "image", None
    return "binary", None


def extension_family(uri: str) -> tuple[ContentKind, str | None] | None:
    """What the last path segment of `uri` says (`docs/a.md` -> markdown); None when it says nothing."""
    path = uri.split("#", 1)[0].split("?", 1)[0]
    name = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if not name:
        return None
    if name in FILENAMES:
        return FILENAMES[name]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return EXTENSIONS.get(ext)


def language_for(mime_type: str | None, uri: str = "") -> str | None:
    """The Pygments lexer name for source code of this MIME type or URI, or None when it is not code."""
    family = mime_family(normalize_mime(mime_type)) or extension_family(uri)
    if family is not None and family[0] == "code":
        return family[1]
    return None
