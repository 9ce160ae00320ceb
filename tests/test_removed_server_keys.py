"""Keys acting on a resource of a server removed meanwhile say so, and the app goes on.

Before, `y` (copy as) on the preview of a server the palette had just disconnected and removed stopped
the app (a KeyError), and `s` said the server did not offer subscriptions.
"""

from __future__ import annotations

import pytest

from explorer.screens.removing_servers import disconnect_and_remove
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import demo_spec, main_screen, settled_app, wait_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def notices(app: object) -> list[str]:
    return [str(n.message) for n in app._notifications]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("key", "said"),
    [
        ("y", "b was removed: c copies the URI; connect it again for the other forms."),
        ("s", "b was removed: connect it again to follow its resources."),
    ],
)
async def test_a_key_on_the_preview_of_a_removed_server_says_it_was_removed(key: str, said: str) -> None:
    async with settled_app(demo_spec("a"), demo_spec("b"), size=(120, 36)) as (app, pilot):
        screen = main_screen(app)
        screen.read("b", "docs://glossary")
        preview = screen.query_one(ContentPreview)
        await wait_for(pilot, lambda: preview.uri == "docs://glossary" and preview.state == "contents")
        screen.tree_widget.focus()
        disconnect_and_remove(screen, "b")
        await wait_for(pilot, lambda: "b" not in screen.catalogue.servers)
        await pilot.press(key)
        await wait_for(pilot, lambda: said in notices(app))
        assert app.is_running and preview.uri == "docs://glossary"  # what was shown stays shown
