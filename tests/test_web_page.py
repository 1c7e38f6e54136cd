"""The web page in a real browser: Playwright for Python driving Debian's Chromium
against a real server (uvicorn) on the demo store. A failing test keeps a
screenshot in ``test-artifacts/`` (or ``SQLGENIE_TEST_ARTIFACTS``).

The README's screenshot: ``SQLGENIE_WEB_SCREENSHOT=docs/img/web.png .venv/bin/python -m pytest -q
tests/test_web_page.py -k chart``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from playwright import sync_api as playwright_api

from serve_fixtures import demo_store, live_server
from sqlgenie.server.users import add_user
from sqlgenie.store.connection import open_connection

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
                 if p and os.path.exists(p)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed and could not be"
                                " (scripts/setup.sh runs apt-get install chromium when it is root with apt)")
#: Read at import (the test fixtures clear SQLGENIE_* variables).
SCREENSHOT = os.environ.get("SQLGENIE_WEB_SCREENSHOT")
ARTIFACTS = Path(os.environ.get("SQLGENIE_TEST_ARTIFACTS", Path(__file__).resolve().parent.parent / "test-artifacts"))


@pytest.fixture(scope="module")
def site(module_db_url):
    settings = demo_store(module_db_url)
    with open_connection(module_db_url, autocommit=True) as store:
        tokens = {role: add_user(store, f"web-{role}", role)[1] for role in ("asker", "reviewer")}
    with live_server(settings) as url:
        yield url, tokens


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


@contextmanager
def page_for(browser, url: str, token: str, name: str):
    """A page signed in with ``token``; its screenshot is kept if the block fails."""
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(url)
        page.fill("#token", token)
        page.click("#token-form button")
        page.wait_for_function("document.getElementById('whoami').textContent.includes('(')")
        yield page
        assert not errors, errors
    except BaseException:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        raise
    finally:
        page.close()


def ask(page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask-button")
    page.wait_for_function("q => document.querySelector('#answer') && !document.querySelector('#answer').hidden"
                           " && document.querySelector('#meta').textContent.includes('answer #')"
                           " && !document.getElementById('ask-button').disabled", arg=question)


def test_ask_shows_sql_rows_and_a_chart(site, browser):
    url, tokens = site
    with page_for(browser, url, tokens["asker"], "ask-chart") as page:
        ask(page, "Revenue by month in 2024")
        assert page.inner_text("#meta").startswith("ok")
        assert page.locator("#sql .kw").first.inner_text() == "SELECT"  # highlighted
        assert page.locator("#rows tbody tr").count() == 12
        page.wait_for_selector("#chart[data-chart='line'] svg .mark-line", timeout=20000)
        assert "Adapted verified example" in page.inner_text("#explanation")

        ask(page, "Revenue by region in 2025")
        page.wait_for_selector("#chart[data-chart='bar'] svg .mark-rect", timeout=20000)
        assert page.locator("#rows tbody tr").count() >= 3

        ask(page, "How many orders were placed in 2023?")  # one number: a table, no chart
        assert page.locator("#rows tbody tr").count() == 1
        assert page.locator("#chart").is_hidden()

        ask(page, "Which employees earn the highest salaries?")
        assert page.inner_text("#meta").startswith("refused")
        assert "No verified example" in page.inner_text("#message")
        assert page.locator("#examples li").count() >= 1
        page.click("#thumbs-up")  # a refusal has nothing to confirm: the page says why
        page.click("#send-feedback")
        page.wait_for_function("document.getElementById('feedback-status').textContent.length > 0")
        assert "Feedback not recorded" in page.inner_text("#feedback-status")
        assert "nothing to confirm" in page.inner_text("#feedback-status")

        ask(page, "Revenue by region in 2025")
        page.click("#thumbs-up")
        assert page.locator("#corrected-sql").is_hidden()  # a correction goes with a thumbs-down only
        page.fill("#comment", "matches the finance report")
        page.click("#send-feedback")
        page.wait_for_function("document.getElementById('feedback-status').textContent.length > 0")
        assert "Added to the verified examples (#" in page.inner_text("#feedback-status")
        if SCREENSHOT:  # docs/img/web.png is made this way (see the module doc)
            ask(page, "Revenue by month in 2024")
            page.wait_for_selector("#chart[data-chart='line'] svg .mark-line")
            page.screenshot(path=SCREENSHOT, full_page=True)


def test_wrong_token_is_shown(site, browser):
    url, _ = site
    page = browser.new_page()
    try:
        page.goto(url)
        page.fill("#token", "sg_nope")
        page.click("#token-form button")
        # the page shows "no token" before the server's answer to the token: wait for that answer
        page.wait_for_function("(t => t.length > 0 && t !== 'no token')(document.getElementById('whoami').textContent)")
        assert "Unknown or revoked token" in page.inner_text("#whoami")
        ask_button = page.locator("#ask-button")
        page.fill("#question", "Total revenue in 2025")
        ask_button.click()
        page.wait_for_selector("#error:not([hidden])")
        assert "token" in page.inner_text("#error").lower()
    finally:
        page.close()


def test_review_page_refuses_an_askers_token(site, browser):
    url, tokens = site
    with page_for(browser, url + "/review", tokens["asker"], "review-asker") as page:
        page.wait_for_selector("#error:not([hidden])")
        assert "reviewer" in page.inner_text("#error").lower()  # the API's 403, shown as it says
        assert page.locator(".item button.accept").count() == 0


def run_worker_once(db_url: str) -> dict:
    """``sqlgenie worker --once`` in its own process, on the test's store."""
    env = dict(os.environ, SQLGENIE_DATABASE_URL=db_url, SQLGENIE_LLM_PROVIDER="none", SQLGENIE_SERVER_URL="off")
    done = subprocess.run([sys.executable, "-m", "sqlgenie", "worker", "--once", "--json"], capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_thumbs_down_then_a_reviewer_accepts_the_regenerated_answer(site, browser, module_db_url):
    url, tokens = site
    question = "Total revenue in 2025"
    corrected = ("SELECT ROUND(SUM(oi.qty * oi.unit_price), 2) AS revenue FROM demo.order_items AS oi"
                 " JOIN demo.orders AS o ON o.order_id = oi.order_id"
                 " WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01'")
    with page_for(browser, url, tokens["asker"], "thumbs-down") as page:
        ask(page, question)
        assert page.inner_text("#meta").startswith("ok")
        assert "discount" in page.inner_text("#sql").lower()  # the seed example's definition of revenue
        ask_id = int(page.inner_text("#meta").split("answer #")[1].split()[0])
        page.click("#thumbs-down")
        page.fill("#comment", "revenue should not subtract discounts here")
        page.fill("#corrected-sql", corrected)
        page.click("#send-feedback")
        page.wait_for_function("document.getElementById('feedback-status').textContent.length > 0")
        status = page.inner_text("#feedback-status")
        assert status.startswith("Thanks: feedback #"), status
        assert "job #" in status and "reviewer" in status

        # the regeneration job runs in a worker; until review the question gets its answer, marked
        assert run_worker_once(module_db_url)["done"] == 1
        ask(page, question)
        badge = page.locator("#meta .badge.unreviewed")
        assert badge.count() == 1 and "awaiting review" in badge.inner_text()
        assert "discount" not in page.inner_text("#sql").lower()

    with page_for(browser, url + "/review", tokens["reviewer"], "review") as page:
        page.wait_for_selector(".item")
        regenerated = page.locator(".item", has_text=f"regeneration · {question}")
        assert regenerated.count() == 1
        assert "discount" not in regenerated.locator("pre.sql").first.inner_text().lower()
        assert "discount" in regenerated.locator("details", has_text="thumbs-down").text_content().lower()
        item_id = regenerated.get_attribute("data-item")
        regenerated.locator("button.accept").click()
        page.wait_for_selector(f".item[data-item='{item_id}']", state="detached")
        # the user's correction of the same answer is superseded by the accepted item
        assert page.locator(".item", has_text=question).count() == 0
        page.select_option("#state", "accepted")
        page.wait_for_selector(f".item[data-item='{item_id}']")
        assert "accepted by web-reviewer" in page.locator(f".item[data-item='{item_id}']").inner_text()

    # the accepted pair is in the bank and answers the question from now on
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {tokens['asker']}"}) as client:
        answer = client.post("/api/ask", json={"question": question}).json()
        items = client.get(f"/api/review/{item_id}", headers={"Authorization": f"Bearer {tokens['reviewer']}"}).json()
    assert answer["status"] == "ok" and answer["id"] != ask_id and answer["unreviewed"] is False
    assert answer["example_id"] == items["bank_example_id"]
    assert "discount" not in answer["sql"].lower()
