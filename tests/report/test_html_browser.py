"""report.html and audit.html as a manager sees them: rendered by a real headless Chromium.

The DOM Chromium builds (not our template text) is checked against findings.json and
audit.json: the summary numbers, every link (file and #anchor), and the console, which
must stay silent. A screenshot of each page is saved and its path printed. `.ci/run`
installs Chromium from the Debian packages; without it these tests skip.
"""

from __future__ import annotations

import html.parser
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

import pytest

from advisor.analysis.textfiles import is_text_file
from advisor.core.docs_url import rule_docs_url
from tests.conftest import FIXTURES

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium on PATH (.ci/run installs it with apt-get)")


class Page(html.parser.HTMLParser):
    """What the tests need from a rendered DOM: elements' classes and text, links, ids."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.stack: list[dict] = []
        self.elements: list[dict] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        el = {
            "tag": tag,
            "class": (a.get("class") or "").split(),
            "id": a.get("id"),
            "text": "",
            "children": [],
            "attrs": a,
        }
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href") is not None:
            self.links.append(a["href"])
        if self.stack:
            self.stack[-1]["children"].append(el)
        self.elements.append(el)
        if tag not in ("meta", "link", "br", "img", "input", "hr"):
            self.stack.append(el)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data

    def by_class(self, name):
        return [e for e in self.elements if name in e["class"]]

    def by_id(self, name):
        return next(e for e in self.elements if e["id"] == name)

    @staticmethod
    def descendants(el, tag):
        for child in el["children"]:
            if child["tag"] == tag:
                yield child
            yield from Page.descendants(child, tag)


def render(page: str, shots: str) -> tuple[Page, list[str]]:
    """(the DOM after load, the page's console messages); saves a screenshot into `shots`."""
    url = "file://" + urllib.parse.quote(os.path.abspath(page))
    common = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",  # the page's scripts have run when the DOM is dumped
    ]
    profile = os.path.join(shots, "chromium-profile")
    dom = subprocess.run(
        common + [f"--user-data-dir={profile}-dom", "--dump-dom", url], capture_output=True, text=True, timeout=120
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    # Chromium logs each console message as `...:CONSOLE:<line>] "<text>", source: <url> (<line>)`.
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    shot = os.path.join(shots, os.path.basename(page) + ".png")
    subprocess.run(
        common + [f"--user-data-dir={profile}-shot", "--window-size=1280,1800", f"--screenshot={shot}", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert os.path.getsize(shot) > 1000, "no screenshot"
    print(f"screenshot: {shot}")
    return Page(dom.stdout), console


def check_links(page: Page, page_path: str) -> int:
    base = os.path.dirname(os.path.abspath(page_path))
    for href in page.links:
        parts = urllib.parse.urlsplit(href)
        assert parts.scheme in ("", "file"), f"a link leaves the report: {href}"
        target = os.path.join(base, urllib.parse.unquote(parts.path)) if parts.path else os.path.abspath(page_path)
        assert os.path.isfile(target), f"broken link {href!r}: no {target}"
        if parts.fragment:
            with open(target, encoding="utf-8") as f:
                ids = Page(f.read()).ids
            assert parts.fragment in ids, f"broken anchor {href!r}"
    return len(page.links)


def test_the_browser_check_sees_console_errors(tmp_path):
    # The console check is only worth something if it can fail.
    page = tmp_path / "bad.html"
    page.write_text('<!doctype html><p id="x">a</p><script>console.error("deliberate")</script>')
    dom, console = render(str(page), str(tmp_path))
    assert any("deliberate" in line for line in console), console
    assert dom.by_id("x")["text"] == "a"


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    # ADVISOR_TEST_ARTIFACTS (set by CI to keep them) or the test's temporary directory.
    where = os.environ.get("ADVISOR_TEST_ARTIFACTS")
    if where:
        os.makedirs(where, exist_ok=True)
        return where
    return str(tmp_path_factory.mktemp("screenshots"))


def test_report_html_in_a_browser(tmp_path, shots):
    root = tmp_path / "project"
    shutil.copytree(os.path.join(FIXTURES, "project"), root)
    shutil.copytree(os.path.join(FIXTURES, "mixed"), root / "mixed")
    (root / "x'\"<img src=x onerror=alert(1)>.py").write_text(
        "import torch\nx = torch.cuda.is_current_stream_capturing()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "scan", ".", "--no-cache", "--target-version", "2.12", "--report", "rep"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    with open(root / "rep" / "findings.json", encoding="utf-8") as f:
        findings = [x for x in json.load(f)["findings"] if x["rule"] != "ADV900"]
    assert findings

    page, console = render(str(root / "rep" / "report.html"), shots)
    assert console == [], console
    cards = {}
    for card in page.by_class("card"):
        number = next(c for c in card["children"] if c["tag"] == "b")["text"].strip()
        cards[" ".join(k for k in card["class"] if k != "card")] = int(number)
    listed = [f for f in findings if not is_text_file(f["path"])]
    # One card per kind, each the count of its section (the section title says the same number).
    for key in ("breaking", "deprecated", "advice", "compat"):
        assert cards[key] == sum(1 for f in listed if f["kind"] == key), (key, cards)
        heading = page.by_id(key)["text"]
        assert heading.endswith(f"({cards[key]})"), heading
        shown = [e for e in page.by_class("finding") if key in e["class"]]
        assert len(shown) == cards[key], key
    assert sum(cards[k] for k in ("breaking", "deprecated", "advice", "compat")) == len(listed), cards
    # Safe and unsafe fixes apart.
    assert cards["fixes"] == sum(1 for f in findings if f.get("fix") == "safe"), cards
    assert int(page.by_id("unsafe-fixes")["text"]) == sum(1 for f in findings if f.get("fix") == "unsafe")
    # Each source location links to its file; a before/after block shows the fix.
    assert [e for e in page.elements if e["tag"] == "del"] and [e for e in page.elements if e["tag"] == "ins"]
    assert not [e for e in page.elements if e["tag"] == "img"], "a scanned file name became markup"
    links = check_links(page, str(root / "rep" / "report.html"))
    hrefs = set(page.links)
    assert {f"rules/{f['rule']}.html" for f in findings} <= hrefs  # each rule's page, rendered, offline
    rule = findings[0]["rule"]
    assert rule_docs_url(rule) in Page((root / "rep" / "rules" / f"{rule}.html").read_text()).links  # then online
    assert {f"validation/{f['validation']}.py" for f in findings if f.get("validation")} <= hrefs
    print(f"report.html: {len(cards)} cards, {links} links checked")


# Appended to a copy of a page: lays it out at 1280 px and writes what the tests measure into the DOM.
MEASURE = """<script>
addEventListener("load", () => {
  const out = [...document.querySelectorAll(".track")].map(track => {
    const parts = [...track.children].filter(p => p.getBoundingClientRect().width > 0);
    const tops = parts.map(p => Math.round(p.getBoundingClientRect().top));
    const cell = track.closest("td").getBoundingClientRect(), row = track.closest("tr").getBoundingClientRect();
    return {parts: parts.length, lines: new Set(tops).size, trackHeight: track.getBoundingClientRect().height,
            inside: track.getBoundingClientRect().right <= cell.right + 0.5, cellHeight: cell.height, rowHeight: row.height};
  });
  const pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify({tracks: out, pageWidth: document.documentElement.scrollWidth, fontSize: parseFloat(getComputedStyle(document.body).fontSize)});
  document.body.appendChild(pre);
});
</script>"""


def measure(page: str, shots: str) -> dict:
    """Lay `page` out in Chromium at 1280 px wide and return MEASURE's figures."""
    probe = page[: -len(".html")] + ".measure.html"
    with open(page, encoding="utf-8") as f, open(probe, "w", encoding="utf-8") as g:
        g.write(f.read().replace("</body>", MEASURE + "</body>"))
    profile = os.path.join(shots, "chromium-profile-measure")
    dom = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--window-size=1280,1800",
            f"--user-data-dir={profile}",
            "--dump-dom",
            "file://" + urllib.parse.quote(os.path.abspath(probe)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = next(e for e in Page(dom.stdout).elements if e["id"] == "measured")["text"]
    return json.loads(text)


def test_audit_html_in_a_browser(tmp_path, shots):
    from tests.audit.test_audit import make_repos

    manifest = make_repos(tmp_path, count=6)
    # A repository with no torch pin (lowest torch 2.0) makes ADV716's fix unsafe, where the others' (pinned
    # to >= 2.10) is safe: ADV716's bar then has a safe and an unsafe part, side by side.
    mixed = tmp_path / "svc-mixed"
    (mixed / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(mixed)], check=True)
    (mixed / "src" / "load.py").write_text("import torch\nstate = torch.load('ckpt.pt')\nother = torch.load('b.pt')\n")
    manifest.write_text(manifest.read_text() + "svc-mixed owner=team-m\n")
    out = tmp_path / "dash"
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "audit", str(manifest), "--out", str(out), "-j", "2", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stderr
    with open(out / "audit.json", encoding="utf-8") as f:
        audit = json.load(f)
    totals = audit["totals"]

    page, console = render(str(out / "audit.html"), shots)
    assert console == [], console
    for key in ("blocked", "failed", "findings", "blocking"):
        assert int(page.by_id(key)["text"]) == totals[key], key
    assert page.by_id("share")["text"].strip() == f"{100 * totals['auto_fixable_share']:.0f}%"
    rows = list(page.descendants(page.by_id("repositories"), "tr"))[1:]  # the browser adds a <tbody>
    assert len(rows) == len(audit["repositories"]) == totals["repositories"]
    shown = {}
    for row in rows:
        cells = [c for c in row["children"] if c["tag"] == "td"]
        count = next(c for c in cells if "findings" in c["class"])
        shown[cells[0]["text"].strip()] = int(count["text"])
    assert shown == {r["name"]: r["findings"] for r in audit["repositories"]}
    links = check_links(page, str(out / "audit.html"))
    assert links == sum(1 for r in audit["repositories"] if r.get("report"))
    # Safe and unsafe fixes are said apart, and the legend names what each colour is.
    assert int(page.by_id("safe-fixes")["text"]) == totals["fixable"]["safe"]
    assert int(page.by_id("unsafe-fixes")["text"]) == totals["fixable"]["unsafe"]
    legend = page.by_id("legend")["text"]
    assert (
        "green: safe automatic fix" in legend and "blue: no automatic fix" in legend and "Blue: findings" not in legend
    )
    # At 1280 px every bar stays on one line and inside its cell.
    figures = measure(str(out / "audit.html"), shots)
    tracks, font = figures["tracks"], figures["fontSize"]
    assert len(tracks) == len(totals["by_rule"]) and any(t["parts"] >= 2 for t in tracks), tracks
    for t in tracks:
        assert t["lines"] == 1 and t["inside"], t
        assert 0 < t["trackHeight"] < font, t  # one bar high (.9em), not two stacked
    assert figures["pageWidth"] <= 1280, figures["pageWidth"]  # nothing to scroll sideways
    print(f"audit.html: {len(rows)} repositories, {links} links checked")


def test_the_report_filters_by_kind_rule_and_file_and_lists_everything_without_javascript(tmp_path, shots):
    from tests.report.test_one_count_everywhere import MODEL, NOTEBOOK, PYPROJECT, TRAIN

    for name, text in (("pyproject.toml", PYPROJECT), ("train.py", TRAIN), ("model.py", MODEL)):
        (tmp_path / name).write_text(text)
    (tmp_path / "explore.ipynb").write_text(json.dumps(NOTEBOOK))
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "scan", ".", "--no-cache", "--report", "rep"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    report = tmp_path / "rep" / "report.html"
    findings = json.loads((tmp_path / "rep" / "findings.json").read_text())["findings"]

    def shown(page):
        return [e["attrs"] for e in page.by_class("finding") if "hidden" not in e["attrs"]]

    without_js = Page(report.read_text())  # what a browser with JavaScript off shows: the page as written
    assert "hidden" in without_js.by_id("filter")["attrs"]  # no filter to offer: every card is there
    cards = shown(without_js)
    assert {c["data-rule"] for c in cards} == {f["rule"] for f in findings}
    page, console = render(str(report), shots)
    assert console == [] and "hidden" not in page.by_id("filter")["attrs"] and shown(page) == cards
    # Chosen as a reader would: a rule, a kind and part of a path; the cards left are exactly those that match.
    for choice, keep in (
        ({"rule": "ADV701"}, lambda c: c["data-rule"] == "ADV701"),
        ({"kind": "breaking"}, lambda c: c["data-kind"] == "breaking"),
        ({"file": "TRAIN"}, lambda c: "train" in c["data-file"]),
        ({"rule": "ADV701", "file": "explore"}, lambda c: c["data-rule"] == "ADV701" and "explore" in c["data-file"]),
    ):
        sets = "".join(f"form.{k}.value = {json.dumps(v)};" for k, v in choice.items())
        script = f'<script>const form = document.getElementById("filter"); {sets} form.dispatchEvent(new Event("input"));</script>'
        chosen = tmp_path / "rep" / "chosen.html"
        chosen.write_text(report.read_text().replace("</body>", script + "</body>"))
        page, console = render(str(chosen), shots)
        expected = [c for c in cards if keep(c)]
        assert console == [] and expected and shown(page) == expected, choice
        assert f"{len(expected)} of {len(cards)}" in page.by_id("filter-count")["text"]
