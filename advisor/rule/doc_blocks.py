"""A rule's docstring in blocks, for the pages made from it (docs/rules/<CODE>.md, a report's rules/<CODE>.html)."""

from __future__ import annotations


def doc_blocks(doc: str) -> list[tuple[str, list[str]]]:
    """A docstring as ("text", lines) paragraphs, ("list", items) and ("code", lines): its indented lines
    (examples) are code; paragraphs of "- " lines are lists."""
    blocks: list[tuple[str, list[str]]] = []
    for line in doc.strip("\n").split("\n"):
        kind = "code" if line.startswith("    ") else "blank" if not line.strip() else "text"
        last = blocks[-1][0] if blocks else None
        if kind == "code" or (kind == "blank" and last == "code"):
            if last != "code":
                blocks.append(("code", []))
            blocks[-1][1].append(line[4:])
        elif kind == "blank":
            blocks.append(("blank", []))
        elif line.startswith("- "):
            if last != "list":
                blocks.append(("list", []))
            blocks[-1][1].append(line[2:])
        elif last == "list":  # an item's next line
            blocks[-1][1][-1] += " " + line.strip()
        elif last == "text":
            blocks[-1][1].append(line)
        else:
            blocks.append(("text", [line]))
    out = []
    for kind, lines in blocks:
        while kind == "code" and lines and not lines[-1].strip():
            lines.pop()
        if kind != "blank":
            out.append((kind, lines))
    return out
