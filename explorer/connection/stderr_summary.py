"""The line of a server's stderr that says why it failed, quoted in a fault (`its stderr says: ...`).

A crashed server's last line is seldom the cause: every Node crash ends with `Node.js v20.x`, a Python
traceback ends its frames with the exception line, Rust adds a hint about RUST_BACKTRACE. So the line
quoted is the last one that reads like an error (the last line of a Python traceback always does), with
stack frames, carets and the runtimes' trailers skipped; else the last line that is not such noise.
Both the connection (`session._fault`) and the supervisor (`_failed`) quote it, the same way.
"""

from __future__ import annotations

import re

_SCAN_CHARS = 8192  # callers pass 2-4 KB tails; anything longer is cut to its end first
_SCAN_LINES = 200
_MOST = 300  # characters of the line quoted
_ENDS_WITH = "its stderr ends with: "
_SAYS = "its stderr says: "

_GUTTER = re.compile(r"[ \t]*\| ?")  # the left border of an exception group's traceback (Python 3.11+)
_HEADER = re.compile(r"[ \t]*(?:\+ )?(?:Exception Group )?Traceback \(most recent call last\):")
_NOISE = re.compile(
    r"""[ \t]*(?:
        Node\.js[ ]v\d\S*                              # the trailer of every Node crash
      | [\^~ ]+                                        # carets under the failing code
      | \+[-+\d ]*                                     # an exception group's separator
      | File[ ]".*",[ ]line[ ]\d+.*                    # a Python stack frame
      | \(Use[ ]`node[ ].*                             # Node's hint after a thrown non-Error
      | note:[ ]run[ ]with[ ]`RUST_BACKTRACE.*         # Rust's hint after a panic
      | During[ ]handling[ ]of[ ]the[ ]above[ ]exception.*
      | The[ ]above[ ]exception[ ]was[ ]the[ ]direct[ ]cause.*
    )""",
    re.VERBOSE,
)
_FRAME = re.compile(r"[ \t]+at[ ]\S.*")  # a JavaScript or Java stack frame (indented)
_TELLING = re.compile(r"Error\b|Exception\b|ERR!|(?i:\b(?:error|panic|panicked|fatal)\b)")


def telling_line(tail: str) -> str:
    """The stderr line that best says why the server failed, stripped and cut; "" for an empty tail."""
    lines = [line.rstrip() for line in tail[-_SCAN_CHARS:].splitlines() if line.strip()][-_SCAN_LINES:]
    kinds = _kinds(lines)
    plain = [i for i, kind in enumerate(kinds) if kind != "noise"]
    telling = [i for i in plain if kinds[i] == "telling"]
    if telling:
        return _with_detail(lines, plain, telling[-1])[:_MOST]
    if plain:
        return lines[plain[-1]].strip()[:_MOST]
    return lines[-1].strip()[:_MOST] if lines else ""


def stderr_clause(tail: str) -> str:
    """`its stderr ends with: X` when X is the last line, `its stderr says: X` when noise came after it;
    "" when the server wrote nothing."""
    line = telling_line(tail)
    if not line:
        return ""
    last = next((text.strip() for text in reversed(tail.splitlines()) if text.strip()), "")
    return f"{_ENDS_WITH if last[:_MOST] == line else _SAYS}{line}"


def quotes_stderr(message: str) -> bool:
    """Whether a fault's message already quotes the server's stderr (it is quoted once)."""
    return _ENDS_WITH in message or _SAYS in message


def _kinds(lines: list[str]) -> list[str]:
    """Each line as "noise" (frames, carets, trailers), "telling" (reads like an error) or "plain".

    Inside a Python traceback every indented line is noise and the first line back at the margin is
    the exception: telling even when its class name says nothing (`KeyboardInterrupt`, `app.Boom: x`).
    """
    kinds: list[str] = []
    in_traceback = False
    for raw in lines:
        line = _unguttered(raw)
        if _HEADER.fullmatch(raw) or _HEADER.fullmatch(line):
            in_traceback = True
            kinds.append("noise")
        elif _NOISE.fullmatch(line) or _FRAME.fullmatch(line):
            kinds.append("noise")
        elif in_traceback and line[:1].isspace():
            kinds.append("noise")  # the source line of a frame
        elif in_traceback:
            in_traceback = False
            kinds.append("telling")
        else:
            kinds.append("telling" if _TELLING.search(line[:1000]) else "plain")
    return kinds


def _unguttered(line: str) -> str:
    """A line of an exception group's traceback without its `  | ` border, so frames look like frames."""
    gutter = _GUTTER.match(line)
    return line[gutter.end() :] if gutter is not None else line


def _with_detail(lines: list[str], plain: list[int], at: int) -> str:
    """The telling line, and the next line when it ends in a colon and the detail follows on its own
    (`thread 'main' panicked at src/main.rs:2:5:` then `boom`)."""
    line = _unguttered(lines[at]).strip()
    after = [i for i in plain if i > at]
    if line.endswith(":") and after:
        line = f"{line} {_unguttered(lines[after[0]]).strip()}"
    return line
