"""A secret a server sends back as an object key is masked there too, when the key IS the secret: the
env value `hunter` keyed a map in `--json` output in clear, masked only in the values. Keys shaped like
field names are still never rewritten for holding a short secret's letters (`hunters`, `context` for
`text`), nor when they are a field name the explorer knows (`MODE=text` keeps `contents[0].text`), and two
keys masked to the same `***` keep both values (`*** (2)`)."""

from __future__ import annotations

import ast
import base64
import inspect
import json
import re
from pathlib import Path

import mcp.types
import pydantic

from explorer.config.field_names import FIELD_NAMES
from explorer.config.spec import ServerSpec, redact_value
from tests.helpers.cli import run_cli
from tests.helpers.paths import ROOT
from tests.helpers.tiny_server import tiny_server

_SPEC = ServerSpec(name="s", transport="stdio", command="srv", env={"TOKEN": "hunter", "MODE": "text"})
_FIELD_SHAPED = re.compile(r"_?[A-Za-z]+(?:_[A-Za-z]+)*\Z")


def test_a_key_that_is_the_secret_is_masked_and_keys_holding_its_letters_are_not() -> None:
    value = {
        "hunter": "a map keyed by the token",
        "hunters": 1,
        "hunterName": 2,
        "text": "the hunter",  # `text` is a secret too (MODE=text) but a field name: kept
        "context": 3,
        "x-hunter-1": 4,  # not shaped like a field name: masked where it holds the secret, as before
    }
    assert redact_value(value, _SPEC) == {
        "***": "a map keyed by the token",
        "hunters": 1,
        "hunterName": 2,
        "text": "the ***",
        "context": 3,
        "x-***-1": 4,
    }


def test_a_key_that_is_an_encoded_form_of_the_secret_is_masked() -> None:
    encoded = base64.b64encode(b"hunter").decode()  # `aHVudGVy`: letters only
    assert redact_value({"nested": [{encoded: True}]}, _SPEC) == {"nested": [{"***": True}]}


def test_keys_masked_to_the_same_text_keep_every_value() -> None:
    encoded = base64.b64encode(b"hunter").decode()
    value = {"hunter": 1, "***": 2, encoded: 3, "sk-hunter": 4}
    masked = redact_value(value, _SPEC)
    assert masked == {"*** (2)": 1, "***": 2, "*** (3)": 3, "sk-***": 4}
    assert sorted(masked.values()) == [1, 2, 3, 4]


_BODY = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://n", "name": "n"}]}
    if method == "resources/read":
        return {"contents": [{"uri": "x://n", "text": "the token is hunter"}],
                "_meta": {"hunter": "granted", "hunters": "plural", "text": "kept"}}
    return None
"""


def test_json_output_masks_a_secret_a_server_echoes_as_a_key(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, _BODY)
    result = run_cli("read", "x://n", "--json", "-e", "TOKEN=hunter", "-e", "MODE=text", "-s", server)
    assert result.code == 0, result
    assert '"hunter"' not in result.stdout
    data = json.loads(result.stdout)["result"]
    assert data["_meta"] == {"***": "granted", "hunters": "plural", "text": "kept"}
    assert data["contents"] == [{"uri": "x://n", "text": "the token is ***"}]


def test_every_field_of_the_protocol_is_a_known_field_name() -> None:
    """A new SDK release that adds a field: add it to `explorer.config.field_names`, or a secret equal to
    it (an env value such as `text`) would mask that key in every answer."""
    fields = {
        field.alias or name
        for model in vars(mcp.types).values()
        if inspect.isclass(model) and issubclass(model, pydantic.BaseModel)
        for name, field in model.model_fields.items()
    }
    missing = sorted(name for name in fields if _FIELD_SHAPED.match(name) and name not in FIELD_NAMES)
    assert not missing, f"add to explorer/config/field_names.py: {missing}"


def test_every_key_the_cli_writes_is_a_known_field_name() -> None:
    sources = [*sorted((ROOT / "explorer" / "cli").rglob("*.py"))]
    sources += [ROOT / "explorer" / "model" / name for name in ("overview.py", "tool_info.py", "listing.py")]
    keys: set[str] = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys.update(
                    k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
                )
            elif isinstance(node, ast.Assign):
                slices = [t.slice for t in node.targets if isinstance(t, ast.Subscript)]
                keys.update(
                    s.value for s in slices if isinstance(s, ast.Constant) and isinstance(s.value, str)
                )
    internal = {"as_json", "help_option_names"}  # click's settings, never written
    missing = sorted(k for k in keys - internal if _FIELD_SHAPED.match(k) and k not in FIELD_NAMES)
    assert not missing, f"add to explorer/config/field_names.py: {missing}"
