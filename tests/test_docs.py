"""The README stays a front door, and every relative link of the documentation leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    # links written inside code (a hostile label such as `[a](http://…)`) are not links
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    # GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _relative_links(page: Path) -> list[str]:
    links = LINK.findall(_prose(page.read_text(encoding="utf-8")))
    return [link for link in links if not re.match(r"[a-z][a-z0-9+.-]*:", link, re.I)]


def test_slug_follows_github_on_known_headings():
    assert _slug("The paper's Table 3") == "the-papers-table-3"
    assert _slug("What each addition earns (ablation)") == "what-each-addition-earns-ablation"
    assert _slug("Weights and balanced accuracy") == "weights-and-balanced-accuracy"
    assert _slug("What it withstands, and how fast") == "what-it-withstands-and-how-fast"


def test_link_extraction_skips_code_and_absolute_addresses(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "[a](x.md) ![b](img/y.png) [c](https://e.org) `[d](no.md)`\n```\n[e](no2.md)\n```\n"
        "[f](z.md#part)\n",
        encoding="utf-8",
    )
    assert _relative_links(page) == ["x.md", "img/y.png", "z.md#part"]


def test_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_keeps_the_two_commands_ci_runs_one():
    readme = README.read_text(encoding="utf-8")
    assert "bash scripts/dev dashboard" in readme
    assert "bash scripts/dev test" in readme
    assert "bash scripts/dev test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_links_every_docs_page():
    linked = {(README.parent / link.split("#")[0]).resolve() for link in _relative_links(README)}
    for name in ["dashboard.md", "cli.md", "library.md", "method.md", "benchmarks/README.md"]:
        assert (ROOT / "docs" / name).resolve() in linked, name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = []
    for link in _relative_links(page):
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(link)
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(link)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"
