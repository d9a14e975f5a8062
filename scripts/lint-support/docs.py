"""Checks the reference pages: every markdown page under docs/ and protocol/ is at most 25 KB, and
every relative link in them resolves (the file exists and, for a link into a markdown page, so
does the heading its #anchor names, as GitHub makes anchors from headings).

    python3 scripts/lint-support/docs.py [ROOT]     ROOT defaults to the repository

Prints one line per finding and exits with 1 if there is any. scripts/lint runs it.
"""

import re
import sys
from pathlib import Path

LIMIT = 25 * 1024
FOLDERS = ("docs", "protocol")
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def prose(text: str, spans: bool = False) -> list[str]:
    """The lines outside fenced code blocks; without code spans (where a link is no link) unless
    `spans`."""
    kept = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line if spans else re.sub(r"`+[^`]*`+", "", line))
    return kept


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the page's headings: lowercased, punctuation dropped, spaces to
    hyphens, and -1, -2, … after a repeated one."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose(text, spans=True):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def problems(root: Path) -> list[str]:
    found = []
    pages = sorted(page for folder in FOLDERS for page in (root / folder).rglob("*.md"))
    for page in pages:
        name = page.relative_to(root)
        size = page.stat().st_size
        if size > LIMIT:
            found.append(f"{name}: {size} bytes, over the {LIMIT} a page may have: split it by topic")
        text = page.read_text(encoding="utf-8")
        for target in LINK.findall("\n".join(prose(text))):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # https:, mailto: …
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                found.append(f"{name}: link to {target}: no such file")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
                found.append(f"{name}: link to {target}: no heading has that anchor")
    return found


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
    found = problems(root)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
