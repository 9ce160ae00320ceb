"""Secrets in every encoding a server may echo them back in, masked in every output path (issue 9)."""

from __future__ import annotations

import base64
import json
import re
import urllib.parse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.cli import output
from explorer.config import ServerSpec, mask_url, redact, redact_value, secrets_of
from explorer.config.spec import MASK, Redactor, secret_forms

NASTY = 'pa"ss\\wörd/+=ü-9'  # a quote, a backslash, non-ASCII, and characters base64 and URLs encode


def encodings(secret: str) -> list[str]:
    """The secret as servers were seen to echo it, each inside a longer text."""
    data = secret.encode()
    return [
        json.dumps({"token": secret}),
        json.dumps({"token": secret}, ensure_ascii=False),
        json.dumps(json.dumps({"token": secret})),  # JSON inside a JSON string
        "?token=" + urllib.parse.quote(secret, safe=""),
        "?token=" + urllib.parse.quote(secret),
        "token=" + urllib.parse.quote_plus(secret),
        "token=" + re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), urllib.parse.quote(secret, safe="")),
        base64.b64encode(data).decode(),
        base64.b64encode(data).decode().rstrip("="),
        base64.urlsafe_b64encode(data).decode(),
        *(base64.b64encode(b"x" * offset + data + b"tail").decode() for offset in range(6)),
        *(base64.urlsafe_b64encode(b"y" * offset + data).decode() for offset in range(3)),
    ]


def test_every_encoding_of_a_secret_is_masked() -> None:
    redactor = Redactor([NASTY])
    for text in encodings(NASTY):
        masked = redactor.text(f"error: {text} (end)")
        assert MASK in masked, text
        assert NASTY not in masked and json.dumps(NASTY)[1:-1] not in masked


def test_embedded_base64_keeps_at_most_the_edge_characters() -> None:
    data = NASTY.encode()
    for offset in range(3):
        blob = base64.b64encode(b"Q" * (offset + 3) + data + b"!!!").decode()
        masked = Redactor([NASTY]).text(blob)
        assert MASK in masked
        kept = len(masked) - len(MASK)
        assert kept <= len(blob) - (len(data) * 4 // 3 - 2), (offset, masked)


@given(st.text(min_size=4, max_size=24).filter(lambda s: s.strip() == s and len(s.encode()) >= 4))
def test_any_secret_is_masked_raw_json_percent_and_base64(secret: str) -> None:
    redactor = Redactor([secret])
    for text in (secret, *encodings(secret)[:8]):
        assert MASK in redactor.text("<" + text + ">"), (secret, text)


def test_short_values_are_no_secret_and_forms_are_never_shorter_than_four() -> None:
    assert Redactor(["1", "abc"]).forms == ()
    assert all(len(form) >= 4 for form in secret_forms("abcd"))


def test_redact_and_redact_value_cover_the_encodings_for_the_tui() -> None:
    spec = ServerSpec(name="s", transport="stdio", command="x", env={"TOKEN": NASTY})
    message = "rejected " + json.dumps({"t": NASTY}) + " and " + base64.b64encode(NASTY.encode()).decode()
    assert redact(message, spec) == 'rejected {"t": "***"} and ***'
    data = {"echo": urllib.parse.quote(NASTY), json.dumps(NASTY): [NASTY]}
    assert redact_value(data, spec) == {"echo": MASK, '"***"': [MASK]}


def test_url_credentials_are_secrets_and_masked_in_urls() -> None:
    spec = ServerSpec(
        name="r",
        transport="http",
        url="https://alice:hunter2pass@x.test/mcp?api_key=k3y-123456&page=2#access_token=frag-7890",
    )
    secrets = secrets_of(spec)
    assert {"hunter2pass", "k3y-123456", "frag-7890"} <= set(secrets)
    assert base64.b64encode(b"alice:hunter2pass").decode() in secrets  # what HTTP Basic auth sends
    assert "alice" not in secrets
    assert mask_url(spec.url or "") == "https://alice:***@x.test/mcp?api_key=***&page=2#access_token=***"
    assert mask_url("https://ghp_tokenvalue1@x.test/mcp") == "https://***@x.test/mcp"
    assert "ghp_tokenvalue1" in secrets_of(
        ServerSpec(name="g", transport="http", url="https://ghp_tokenvalue1@x.test/")
    )
    echoed = (
        "401 for Basic " + base64.b64encode(b"alice:hunter2pass").decode() + " at /mcp?api_key=k3y-123456"
    )
    assert redact(echoed, spec) == "401 for Basic *** at /mcp?api_key=***"


def test_a_basic_header_masks_its_password_decoded_too() -> None:
    credential = base64.b64encode(b"bob:s3cret-pw").decode()
    spec = ServerSpec(
        name="b", transport="http", url="https://x.test/", headers={"Authorization": f"Basic {credential}"}
    )
    assert redact("bad password s3cret-pw for bob", spec) == "bad password *** for bob"


# ---------------------------------------------------------------------------------------------- sink


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "_redactor", Redactor(()))
    spec = ServerSpec(name="s", transport="stdio", command="x", env={"TOKEN": NASTY})
    output.register_secrets([spec])


def test_every_cli_output_function_masks_registered_secrets(
    registered: None, capsys: pytest.CaptureFixture[str]
) -> None:
    b64 = base64.b64encode(NASTY.encode()).decode()
    output.out(output.safe_line(f"name {NASTY}") + " " + output.safe(b64))
    output.error(f"server s: rejected {json.dumps(NASTY)}")
    output.note(f"warning: {urllib.parse.quote_plus(NASTY)}")
    output.emit_json({"serverInfo": {"name": f"leaky-{NASTY}"}, NASTY: [b64, {"k": json.dumps(NASTY)}]})
    captured = capsys.readouterr()
    everything = captured.out + captured.err
    for form in (NASTY, b64, json.dumps(NASTY)[1:-1], urllib.parse.quote_plus(NASTY)):
        assert form not in everything
    data = json.loads(captured.out.split("\n", 1)[1])
    assert data == {"serverInfo": {"name": "leaky-***"}, MASK: [MASK, {"k": '"***"'}]}
    assert captured.err == 'error: server s: rejected "***"\nwarning: ***\n'


def test_a_secret_is_masked_before_the_cap_can_cut_it(registered: None) -> None:
    shown = output.safe("x" * 195 + NASTY, limit=200)
    assert 'pa"ss' not in shown and shown.endswith(MASK)


@given(st.text(alphabet=st.sampled_from("ab'\"\\\x01é-"), min_size=4, max_size=16))
def test_a_secret_in_a_repr_quoted_text_is_masked_whichever_quotes_it_got(secret: str) -> None:
    """The explorer quotes a server's words with `repr` before they are masked (a 401's body): its
    backslashes doubled, a `'` escaped when the text holds both quotes, control characters escaped."""
    redactor = Redactor([secret])
    as_json = json.dumps({"error": f"bad token {secret}"})  # a body quoted as it came: JSON, then repr
    for words in (f"denied {secret}", f"it's {secret}", f'it\'s "{secret}"', f'say "{secret}"', as_json):
        masked = redactor.text(f"401 to the event stream's GET: {words!r}")
        assert MASK in masked, (secret, masked)
