"""A server's words are cut where a secret it echoes cannot be left half shown.

Secrets are masked in a message only where they are whole (`config.redact`); a 401 body that echoed the
refused token past the 200-character cut showed its first characters ("given: Bearer sk-live-012345…").
"""

from __future__ import annotations

from explorer.connection.http_limits import cut_words
from tests.helpers.loopback_http import tree_against
from tests.test_http_connect_words import _failing

TOKEN = "sk-live-0123456789abcdefghijklmnopqrstuvwxyzABCDEF"


def test_a_token_echoed_across_the_cut_shows_none_of_it() -> None:
    body = f"bad credentials {'y' * 155} given: Bearer {TOKEN}".encode()
    _, result = tree_against(_failing(401, body, "text/plain"), "-H", f"Authorization: Bearer {TOKEN}")
    assert result.code == 1, result
    assert "bad credentials" in result.stderr and "given: Bearer… [+" in result.stderr, result
    assert TOKEN[:8] not in result.stderr, result


def test_a_token_echoed_whole_is_masked() -> None:
    body = f"bad credentials given: Bearer {TOKEN}".encode()
    _, result = tree_against(_failing(401, body, "text/plain"), "-H", f"Authorization: Bearer {TOKEN}")
    assert result.code == 1, result
    assert "given: ***" in result.stderr and TOKEN[:8] not in result.stderr, result


def test_words_under_the_bound_are_kept_whole() -> None:
    assert cut_words("missing X-API-Key header") == "missing X-API-Key header"


def test_a_cut_between_runs_keeps_the_run_before_it() -> None:
    words = f"{'a' * 199} {'b' * 50}"
    assert cut_words(words) == f"{'a' * 199}… [+51 chars]"


def test_one_run_longer_than_the_bound_is_left_out() -> None:
    assert cut_words("x" * 300) == "… [+300 chars]"


def test_json_punctuation_ends_a_run() -> None:
    words = '{"error": "denied", "token": "' + "t" * 300 + '"}'
    assert cut_words(words) == '{"error": "denied", "token": "… [+302 chars]'
