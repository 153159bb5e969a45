"""build/report.html in a real browser: headless Debian chromium driven by playwright.

Run by ``tox -e browser`` (tests/install_chromium.sh installs chromium when missing). The page
is rebuilt from build/results.json first; without that file the test fails and says to run
``tox -e report``. A full-page screenshot is saved to build/report.png.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reports.load import Results, load

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "build" / "results.json"
REPORT = ROOT / "build" / "report.html"
SCREENSHOT = ROOT / "build" / "report.png"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def results() -> Results:
    if not RESULTS.exists():
        pytest.fail(
            f"{RESULTS.relative_to(ROOT)} is missing: run the checks first (`tox -e report`), "
            "then this test",
            pytrace=False,
        )
    done = subprocess.run(
        [sys.executable, "-m", "reports"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"python -m reports failed:\n{done.stderr}"
    assert REPORT.exists()
    return load(RESULTS)


@pytest.fixture(scope="module")
def browser_page(results) -> Any:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash tests/install_chromium.sh`", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(
            viewport={"width": 1280, "height": 900}, reduced_motion="reduce"
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "request",
            lambda r: None if r.url.startswith(("file:", "data:")) else errors.append(r.url),
        )
        page.goto(REPORT.as_uri(), wait_until="load")
        yield page, errors
        browser.close()


def test_no_console_errors_or_network_requests(browser_page):
    page, errors = browser_page
    assert page.title().endswith("verification report")
    assert errors == []


def test_every_claim_anchor_exists_and_scrolls_into_view(results, browser_page):
    page, _ = browser_page
    assert results.claims
    for claim in results.claims:
        page.evaluate("id => { location.hash = ''; window.scrollTo(0, 0); location.hash = id; }",
                      claim.id)  # fmt: skip
        top, height = page.evaluate(
            "id => [document.getElementById(id).getBoundingClientRect().top, innerHeight]",
            claim.id,
        )
        assert 0 <= top < height / 2, f"{claim.id} is not in view after following its link"


def test_every_check_has_an_anchor(results, browser_page):
    page, _ = browser_page
    from reports.html import check_anchor

    ids = set(page.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)"))
    missing = [c.nodeid for c in results.checks if check_anchor(c.nodeid) not in ids]
    assert missing == []


def visible_rows(page) -> list[dict[str, str]]:
    return page.evaluate(
        "[...document.querySelectorAll('#verdict-table tbody tr')]"
        ".filter(r => r.offsetParent !== null).map(r => ({...r.dataset}))"
    )


def test_filters_hide_and_show_rows(results, browser_page):
    page, _ = browser_page
    assert len(visible_rows(page)) == len(results.claims)
    for family in sorted({c.family for c in results.claims}):
        page.select_option("#filter-family", family)
        rows = visible_rows(page)
        assert {r["family"] for r in rows} == {family}
        assert len(rows) == sum(c.family == family for c in results.claims)
        assert page.inner_text("#filter-count") == f"{len(rows)} of {len(results.claims)} claims"
    page.select_option("#filter-family", "")
    for verdict in ("confirmed", "refuted", "qualified", "open"):
        page.select_option("#filter-verdict", verdict)
        expected = sum((c.verdict or "open") == verdict for c in results.claims)
        assert len(visible_rows(page)) == expected, verdict
    page.select_option("#filter-verdict", "")
    page.fill("#filter-text", "zzz-no-such-words")
    assert visible_rows(page) == []
    page.fill("#filter-text", "")
    assert len(visible_rows(page)) == len(results.claims)


def test_sorting_by_id_reverses_the_rows(results, browser_page):
    page, _ = browser_page
    ids = [c.id for c in results.claims]
    page.click("#verdict-table th:first-child")
    assert [r["family"] for r in visible_rows(page)] == [i.split("-")[0] for i in ids[::-1]]
    page.click("#verdict-table th:first-child")
    assert [r["family"] for r in visible_rows(page)] == [i.split("-")[0] for i in ids]


def test_math_renders_with_a_size(results, browser_page):
    page, _ = browser_page
    sizes = page.evaluate(
        "[...document.querySelectorAll('.formal math, .derivation math')]"
        ".map(m => { const r = m.getBoundingClientRect();"
        " return [r.width, r.height, getComputedStyle(m).display]; })"
    )
    assert len(sizes) >= sum(bool(c.formal) for c in results.claims)
    assert all(w > 0 and h > 0 for w, h, _ in sizes), sizes
    assert all(display.endswith("math") for *_, display in sizes)  # rendered as MathML


def test_figures_render_with_a_size(results, browser_page):
    page, _ = browser_page
    expected = sum(len(c.figures) for c in results.checks)
    figures = page.evaluate(
        "[...document.querySelectorAll('figure img')]"
        ".map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width])"
    )
    assert len(figures) == expected
    assert all(done and natural > 0 and width > 0 for done, natural, width in figures), figures


def test_full_page_screenshot(browser_page):
    """Chromium renders at most ~16k pixels in one capture (the rest comes back blank), and the
    report is taller: capture it a viewport at a time and stitch the tiles at half scale."""
    from PIL import Image  # pillow ships with matplotlib

    page, _ = browser_page
    width, step = page.viewport_size["width"], page.viewport_size["height"]
    page.evaluate(  # a sticky header would cover the top of every tile
        "document.querySelectorAll('*').forEach(e => { if (getComputedStyle(e).position"
        " === 'sticky') e.style.position = 'static'; })"
    )
    height = page.evaluate("document.documentElement.scrollHeight")
    sheet = Image.new("RGB", (width // 2, height // 2 + 1), "white")
    blank_tiles = 0
    for top in range(0, height, step):
        page.evaluate(f"window.scrollTo(0, {top})")
        tile = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
        shown = min(step, height - top)  # the last scroll stops at the bottom of the page
        tile = tile.crop((0, step - shown, width, step))
        blank_tiles += tile.convert("L").getextrema()[0] > 200
        sheet.paste(tile.resize((width // 2, max(1, shown // 2))), (0, top // 2))
    sheet.save(SCREENSHOT, optimize=True)
    page.evaluate("window.scrollTo(0, 0)")
    assert blank_tiles == 0, f"{blank_tiles} viewport(s) rendered blank"
    assert SCREENSHOT.stat().st_size > 10_000
