"""Long values printed a piece at a time: the `-o json` document with a streamed
artifact's parts and text written lazily, and text mode's artifact lines, are the same
characters as when they were built whole (redaction included)."""

from __future__ import annotations

import io
import json
import random
from typing import Any

from inspector.headless.output import LazyList, LazyText, Out
from inspector.headless.render import text_lines
from inspector.protocol import models as m
from inspector.session.parts import PartList
from inspector.session.redact import Redaction
from inspector.session.spill import SpillFile

SECRET = "s3cr3t-token-value"


def _printed(doc: object, redaction: Redaction | None) -> str:
    stream = io.StringIO()
    Out(stream, redaction=redaction).json_doc(doc)
    return stream.getvalue()


def _pieces(text: str, sizes: list[int]) -> list[str]:
    out, at = [], 0
    for size in sizes:
        out.append(text[at : at + size])
        at += size
    out.append(text[at:])
    return out


def test_a_lazy_document_prints_the_characters_of_the_whole_one() -> None:
    rng = random.Random(3)
    alphabet = [
        "tok ",
        "naïve ",
        "“q” ",
        "\n",
        "\t",
        "\x1b[2J",
        "\u202e",
        "\u200d",
        "🙂",
        "\ud800",
        '"',
        "\\",
        "http://x.test/?token=abc ",
        SECRET[:7],
        SECRET[7:],
        "\x85",
    ]
    for trial in range(60):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        cut = _pieces(text, [rng.randint(0, 9) for _ in range(rng.randint(0, 30))])
        parts = [{"kind": "text", "text": piece} for piece in cut] + [{"kind": "data", "data": {"k": [1, text[:5]]}}]
        parts = parts[: rng.randint(0, len(parts))]
        redaction = [
            None,
            Redaction(),
            Redaction(values=(SECRET,)),
            Redaction(enabled=False),
            Redaction(values=(SECRET, "line one\nline two")),
        ][trial % 5]

        def doc(lazy: bool, parts: list[Any] = parts, cut: list[str] = cut, text: str = text) -> dict[str, object]:
            artifact = {
                "parts": LazyList(lambda: iter(parts)) if lazy else parts,
                "text": LazyText(lambda: iter(cut)) if lazy else text,
                "chunks": len(parts),
            }
            return {
                "formatVersion": 1,
                "task": {"artifacts": [artifact, dict(artifact)], "history": []},
                "message": None,
            }

        whole = _printed(doc(False), redaction)
        assert _printed(doc(True), redaction) == whole, (trial, text)
        json.loads(whole)


def test_a_secret_or_a_url_across_two_pieces_of_the_text_is_redacted_as_in_one_string() -> None:
    lines = "many lines\nof a secret"
    for redaction in (Redaction(values=(SECRET,)), Redaction(values=(SECRET, lines))):
        text = f"say {SECRET} and see\nhttps://u:pw@x.test/a?token=zzz.\ndone {lines}!"
        for at in range(len(text) + 1):
            cut = [text[:at], text[at:]]
            lazy = _printed({"text": LazyText(lambda cut=cut: iter(cut))}, redaction)
            assert lazy == _printed({"text": text}, redaction)
            assert SECRET not in lazy and "zzz" not in lazy and "pw@" not in lazy


def test_text_lines_are_the_lines_of_the_joined_pieces() -> None:
    rng = random.Random(5)
    for _ in range(300):
        text = "".join(rng.choice(["a", "bc", "\n", "\n\n", ""]) for _ in range(rng.randint(0, 20)))
        cut = _pieces(text, [rng.randint(0, 4) for _ in range(rng.randint(0, 8))])
        assert list(text_lines(cut)) == text.split("\n")


def test_an_artifact_with_a_spill_file_reads_back_every_part_and_piece() -> None:
    spill = SpillFile()
    parts = PartList(spill=spill)
    plain = PartList()
    texts = [f"token {i} naïve “q” 🙂\n" for i in range(20_000)]
    data = m.DataPart(data={"x": 1})
    for i, text in enumerate(texts):
        parts.add_text(text)
        plain.add_text(text)
        if i == 7000:
            parts.append(data)
            plain.append(data)
    whole = "".join(texts)
    # Closed blocks went to disk: memory holds where they are, not their text.
    assert spill.end > len(whole) // 2
    assert "".join(parts.pieces()) == whole == "".join(parts.pieces(size=1000))
    assert "".join(parts.pieces(5, 300_000, size=777)) == whole[5:300_000]
    assert list(parts.each(window=999)) == list(plain)
    assert list(parts.spans(0, len(parts))) == list(plain.spans(0, len(plain)))
    assert parts.slice(100_000, 200_000) == whole[100_000:200_000]
    assert parts.text() == whole
    spill.close()
