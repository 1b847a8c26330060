"""End-to-end test of the dashboard in a real browser (Playwright driving Debian's chromium).

Starts ``streamlit run app.py`` on a free local port and, as an analyst would:
loads the Wine sample, waits for the trade-off frontier beside the budgets
and clicks one of its points (Bc follows), sets budgets by typing them, watches a QGA run live,
reloads the tab (the settings come back from the URL), stops a long run
(the best selection so far is kept), reads the rules and the misclassified
rows, downloads the text export (it equals the library's rendering),
compares algorithms, and tries a bad upload.  No request leaves the machine: every one
the browser makes goes to the dashboard's own host (the favicon is a data URL, the icons come
from the font Streamlit serves itself).  Every selector is scoped to the
app's own elements (``.st-key-<key>`` containers, the main block, the
sidebar), never to a bare label that Streamlit's own toolbar could share.
Saves a screenshot of every page (to ``docs/screenshots/<page>.png`` with
``EXPLAINER_SCREENSHOTS=1``, else to a temporary folder).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import tempfile
import time
import urllib.parse
import urllib.request
from urllib.parse import urlsplit

import pytest
from dashboard_server import start_dashboard, stop_dashboard
from waits import HANG_S

from explainer.data import load_dataset, sample_datasets
from explainer.data.defaults import default_load_settings
from explainer.pipeline import explain_pool
from explainer.report import evaluate_rules
from explainer.rules import parse_rule_text, rules_for_data
from explainer.rules.defaults import default_pool_settings
from explainer.rules.pool import build_pool
from explainer.selection.solvers import LABELS, available

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHOTS = ROOT / "docs" / "screenshots" if os.environ.get("EXPLAINER_SCREENSHOTS") == "1" else None
CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else (shutil.which("chromium") or "/usr/bin/chromium")
)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
#: Records (in window.__firstPoint, ms) when a fitness point is first drawn after this call:
#: in the live chart, or in the result chart when the run ends before the first redraw.
WATCH_FIRST_POINT = """() => {
  window.__firstPoint = null;
  const t0 = performance.now();
  const charts = '.st-key-live_fitness, .st-key-final_fitness';
  const obs = new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && (n.matches('.point') || n.querySelector('.point')) && n.closest(charts)) {
          window.__firstPoint = performance.now() - t0;
          obs.disconnect();
          return;
        }
      }
    }
  });
  obs.observe(document.body, {subtree: true, childList: true});
}"""
BC, BE = 6, 4


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser test cannot run on CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def playwright_api():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[dev]')")
    if not os.path.exists(CHROMIUM):
        _unavailable(f"chromium not found at {CHROMIUM} (apt-get install chromium)")
    return sync_playwright


@pytest.fixture(scope="module")
def server():
    try:
        proc, url = start_dashboard()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield url
    stop_dashboard(proc)


def _idle(page, timeout=60_000):
    """Wait until Streamlit has finished the current script run."""
    page.wait_for_timeout(150)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"] [data-testid=\"stStatusWidgetRunningIcon\"]')"
        " && !document.querySelector('[data-testid=\"stSkeleton\"]')",
        timeout=timeout,
    )


def _goto(page, title):
    """Open the page ``title`` from the sidebar, and wait for its title.  A click that lands while the
    page reruns a fragment (the frontier growing, a step's poll) can be lost: it is made again."""
    heading = page.get_by_test_id("stMain").get_by_role("heading", name=title, exact=True)
    for _ in range(3):
        page.get_by_test_id("stSidebar").get_by_role("link", name=title, exact=True).click()
        try:
            heading.first.wait_for(timeout=20_000)
            return
        except Exception:
            continue
    heading.first.wait_for(timeout=20_000)


#: A live element, not the stale copy Streamlit may still show from the run before.
LIVE = ':not([data-stale="true"]):not([data-stale="true"] *)'


def _keyed(page, key: str):
    """The app's own element with this widget / container key (never Streamlit's toolbar)."""
    return page.locator(f".st-key-{key}{LIVE}").first


def _field(page, key: str):
    """The one live number field in the container keyed ``key`` (a budget's field is re-created when its
    value changes, and the old one may linger, marked stale, until the next run completes).  Taken in the
    page at the moment it is the only one: a locator found again afterwards could meet a new field beside
    the old one (a rerun just started) and refuse to choose."""
    css = f".st-key-{key} input{LIVE}"
    found = page.wait_for_function(
        f"() => {{ const f = document.querySelectorAll('{css}'); return f.length === 1 ? f[0] : null; }}",
        timeout=30_000)
    return found.as_element()


#: the run has started: its Stop button, its first point or its final chart is on the page
RUN_STARTED = ("() => window.__firstPoint !== null || document.querySelector('.st-key-stop_run') !== null"
               " || document.querySelector('.st-key-final_fitness') !== null")


def _click_run(page):
    """Press Run.  A click that lands while a fragment of the page reruns (the frontier growing, a step's poll)
    can be lost, as in :func:`_goto`: it is made again while nothing shows that the run started (a second
    press of the same settings and seed gives the same run)."""
    for _ in range(3):
        _keyed(page, "run").locator("button").click()
        try:
            page.wait_for_function(RUN_STARTED, timeout=20_000)
            return
        except Exception:
            _idle(page)
    page.wait_for_function(RUN_STARTED, timeout=20_000)


def _type_number(page, key: str, value: int, param: str | None = None):
    """Type into a number field; with ``param``, wait until the URL carries the new value."""
    field = _field(page, key)
    field.fill(str(value))
    field.press("Enter")
    if param is not None:
        page.wait_for_function(
            f"() => new URLSearchParams(window.location.search).get('{param}') === '{value}'", timeout=30_000)
    _idle(page)
    assert _field(page, key).input_value() == str(value)


def _choose(page, key: str, option: str):
    """Pick ``option`` in the selectbox keyed ``key`` (typed into its field, then clicked in the list)."""
    field = _keyed(page, key).locator("input")
    field.scroll_into_view_if_needed()
    field.click()
    field.fill(option)
    choice = page.get_by_role("option", name=option, exact=True)
    if not choice.is_visible():
        field.press("ArrowDown")
    choice.click()
    _idle(page)


def _query(page) -> dict:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(page.url).query))


def _shot(page, name, idle=True):
    """Screenshot of the whole page (the viewport is made tall enough for the content)."""
    if idle:
        _idle(page)
        page.wait_for_timeout(400)  # charts finish their transitions
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stAppViewContainer\"], section.main')].map(e => e.scrollHeight), 900)"
    )
    page.set_viewport_size({"width": 1440, "height": min(int(height) + 40, 4000)})
    page.wait_for_timeout(300)
    folder = SHOTS if SHOTS is not None else pathlib.Path(tempfile.gettempdir()) / "explainer-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})


def test_dashboard_end_to_end(playwright_api, server):
    algorithms = available()
    if "qga" not in algorithms:
        pytest.skip("qga is not installed")

    with playwright_api() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
        outside = []  # every request for a host other than the dashboard's (data: URLs make none)
        local = {"localhost", "127.0.0.1", "::1", urlsplit(server).hostname}

        def note_outside(request):
            url = urlsplit(request.url)
            if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in local:
                outside.append(request.url)

        context.on("request", note_outside)
        page = context.new_page()
        page.set_default_timeout(60_000)
        main = page.get_by_test_id("stMain")
        sidebar = page.get_by_test_id("stSidebar")

        # ---- Data: the Wine sample; its preview shows before Load is pressed
        page.goto(server)
        _keyed(page, "w_sample").wait_for()
        _idle(page)
        _choose(page, "w_sample", "wine")
        main.get_by_role("heading", name="Preview").first.wait_for()
        _idle(page)
        _keyed(page, "load_data").locator("button").click()
        main.get_by_text("Class distribution of").first.wait_for()
        sidebar.get_by_text("wine (bundled sample)").first.wait_for()
        _shot(page, "data")
        # the tab's icon is the packaged one, inline; the buttons' icons are drawn from Streamlit's own font
        favicon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\").href")
        assert favicon.startswith("data:image/svg+xml"), favicon[:80]
        page.wait_for_function("""() => [...document.fonts].some(f => f.family.includes('Material Symbols Rounded')
                                                                 && f.status === 'loaded')""", timeout=10_000)

        # ---- Explain: budgets typed in, QGA watched live
        _goto(page, "Explain")
        main.get_by_text("Rules in the pool (M)").first.wait_for()
        _idle(page)
        # ---- the frontier beside the budgets: drawn once computed, and a click on a point sets Bc (clicked once
        # complete: while it grows it is drawn again every second)
        page.locator(".st-key-frontier_done").first.wait_for(timeout=HANG_S * 1000)
        _idle(page)
        dots_css = f".st-key-frontier_chart{LIVE} .scatterlayer .trace:first-child .points path"
        page.wait_for_function(f"() => document.querySelectorAll('{dots_css}').length >= 3", timeout=120_000)
        bc_is_3 = "() => new URLSearchParams(window.location.search).get('bc') === '3'"
        for _ in range(5):  # a chart drawn again under the click loses it: click again if so
            point = page.locator(dots_css).nth(2)  # the point at Bc = 3 (the range starts at 1)
            point.scroll_into_view_if_needed()  # a mouse click lands only inside the window
            box = point.bounding_box()
            if box is not None:
                page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                try:
                    page.wait_for_function(bc_is_3, timeout=10_000)
                    break
                except Exception:
                    continue
        page.wait_for_function(bc_is_3, timeout=10_000)
        _idle(page)
        # the URL is written when the click's run starts, the field when that run draws it: wait for both
        bc_css = f".st-key-bc_number input{LIVE}"
        page.wait_for_function(
            f"() => {{ const f = document.querySelectorAll('{bc_css}'); return f.length === 1 && f[0].value === '3'; }}",
            timeout=30_000,
        )
        _type_number(page, "bc_number", BC, "bc")
        _type_number(page, "be_number", BE, "be")
        thumb = f".st-key-bc_slider [data-testid=stSliderThumbValue]{LIVE}"
        page.wait_for_function(f"() => document.querySelectorAll('{thumb}').length === 1", timeout=30_000)
        assert page.locator(thumb).inner_text() == str(BC)
        page.evaluate(WATCH_FIRST_POINT)
        t0 = time.perf_counter()
        _click_run(page)
        page.wait_for_function("() => window.__firstPoint !== null", timeout=120_000)
        first_point = page.evaluate("window.__firstPoint") / 1000.0
        _keyed(page, "final_fitness").wait_for(timeout=300_000)
        run_total = time.perf_counter() - t0
        main.get_by_text("status: ok").first.wait_for()
        _shot(page, "explain")
        sidebar.get_by_text("Last explanation").first.wait_for()

        # ---- Rules: the table and every misclassified row
        _goto(page, "Rules")
        main.get_by_role("heading", name="Misclassified rows").first.wait_for()
        _keyed(page, "rules_table").wait_for()
        _shot(page, "rules")

        # ---- Export: the downloaded text is the library's rendering
        _goto(page, "Export")
        _keyed(page, "download_text").wait_for()
        with page.expect_download() as info:
            _keyed(page, "download_text").locator("button").click()
        downloaded = pathlib.Path(info.value.path()).read_text(encoding="utf-8")
        with page.expect_download() as info:
            _keyed(page, "download_json").locator("button").click()
        exported = json.loads(pathlib.Path(info.value.path()).read_text(encoding="utf-8"))
        _shot(page, "export")

        # ---- a reload restores the settings from the URL
        _goto(page, "Explain")
        main.get_by_text("Rules in the pool (M)").first.wait_for()
        _idle(page)
        query = _query(page)
        assert query["data"] == "sample:wine" and query["bc"] == str(BC) and query["be"] == str(BE)
        page.reload()
        main.get_by_text("Rules in the pool (M)").first.wait_for()
        _idle(page)
        assert _field(page, "bc_number").input_value() == str(BC)
        assert _field(page, "be_number").input_value() == str(BE)
        sidebar.get_by_text("wine (bundled sample)").first.wait_for()
        assert _keyed(page, "w_algorithm").locator("input").input_value() == LABELS["qga"]

        # ---- Compare: quick algorithms on the same pool and budgets
        _goto(page, "Compare")
        _keyed(page, "run_all").wait_for()
        _idle(page)
        quick = [a for a in ("qga", "rfhc", "greedy") if a in algorithms]
        pills = _keyed(page, "w_cmp_algorithms")
        for name in list(algorithms):
            pill = pills.get_by_role("button", name=LABELS.get(name, name), exact=True)
            if pill.count() and (pill.get_attribute("aria-pressed") == "true") != (name in quick):
                pill.click()
                _idle(page)
        _keyed(page, "run_all").locator("button").click()
        main.get_by_role("heading", name="Results").first.wait_for(timeout=300_000)
        _keyed(page, "cmp_dots").wait_for()
        _shot(page, "compare")

        # ---- a long run: the live chart grows from generation 0, Stop keeps the best so far
        stopped_cleanly = None
        if "ga" in algorithms:
            _goto(page, "Explain")
            main.get_by_text("Rules in the pool (M)").first.wait_for()
            _idle(page)
            _choose(page, "w_algorithm", LABELS["ga"])
            main.get_by_text(f"{LABELS['ga']} parameters").click()
            _type_number(page, "w_param_ga_n_generations", 100000)
            _keyed(page, "run").locator("button").click()
            _keyed(page, "live_fitness").locator(".scatterlayer .trace").first.wait_for(state="attached")
            page.wait_for_timeout(2500)  # the chart grows
            _shot(page, "explain_running", idle=False)
            _keyed(page, "stop_run").locator("button").click()
            _keyed(page, "final_fitness").wait_for(timeout=60_000)
            _idle(page)
            main.get_by_text("status: stopped").first.wait_for(timeout=30_000)  # the best selection so far
            stopped_cleanly = True

        # ---- a bad upload shows a readable error and the data stays loaded
        _goto(page, "Data")
        _keyed(page, "w_source_kind").get_by_text("Upload a CSV").click()
        main.locator("input[type='file']").set_input_files(str(ROOT / "tests" / "bad_inputs" / "binary_nul.csv"))
        main.get_by_test_id("stAlertContentError").first.wait_for()
        assert "Traceback" not in main.get_by_test_id("stAlertContentError").first.inner_text()
        sidebar.get_by_text("wine (bundled sample)").first.wait_for()  # the data loaded before stays
        _shot(page, "data_bad_upload")
        browser.close()
    assert not outside, "requests that left the machine:\n" + "\n".join(sorted(set(outside)))

    # the download is exactly the library's rendering of the selected rules, and the run is reproducible
    wine = load_dataset(sample_datasets()["wine"], **default_load_settings())  # as the dashboard reads it
    assert exported["data_fingerprint"] == wine.fingerprint
    # the text export opens with its header's comment lines (totals, how complexity counts), then the rules
    header = [line for line in downloaded.splitlines() if line.startswith("#")]
    assert header and header[1].startswith("# complexity = the number of conditions")
    assert "".join(line + "\n" for line in downloaded.splitlines() if not line.startswith("#")) == exported["rules_text"]
    parsed, fallback = parse_rule_text(downloaded)
    rules = rules_for_data(parsed, wine.feature_specs, wine.classes)
    assert rules.to_text(fallback=fallback) == exported["rules_text"]  # the rules as read back, header aside
    assert evaluate_rules(rules, wine.X, wine.y).covered == exported["covered"]
    pool = build_pool(wine.X, wine.y, random_state=0, classes=wine.classes, feature_specs=wine.feature_specs,
                      **default_pool_settings())
    ex = explain_pool(pool, wine.X, wine.y, complexity_budget=BC, error_budget=BE, algorithm="qga", random_state=0)
    assert ex.report.rules_text() == exported["rules_text"]

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nmachine: {os.cpu_count()} CPUs, load average {load}")
    print(f"run -> first fitness point: {first_point:.2f} s with qga (whole run {run_total:.1f} s)")
    if stopped_cleanly is not None:
        print("Stop during a ga run: ended cleanly with the best selection so far")
