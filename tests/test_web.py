"""The web page in headless Chromium (Debian's chromium and chromium-driver, driven by selenium):
the knowledge map with its headline and gaps, a review action clicked through, the memory's
history, a recall search; and the guard that keeps other sites out."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tenure import Tenure
from tests.mcp_support import TENURE, free_port, wait_for_port

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]
FILES = {
    "pay/__init__.py": "",
    "pay/gateway.py": "class Gateway:\n    def send(self, payment):\n        return payment\n",
    "pay/ledger.py": "class Ledger:\n    def book(self, entry):\n        return entry\n",
    "pay/report.py": "def monthly():\n    return []\n",
}


@pytest.fixture
def project(make_repo) -> Path:
    """Three memories on the gateway whose code then changes: two enter the review queue as drifted."""
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        t.memories.remember("The gateway rejects more than 4 sends per minute: see [[Batch sends]].", "pitfall",
                            ["pay.gateway.Gateway.send"], title="Gateway throttles")
        t.memories.remember("Send payments in batches of at most 4.", "convention", ["pay.gateway.Gateway"],
                            title="Batch sends")
        t.memories.remember("The ledger books in UTC.", "note", ["pay.ledger.Ledger"])
        (root / "pay" / "gateway.py").write_text(
            "class Gateway:\n    def send(self, payment, retries=0):\n        return payment, retries\n")
        t.index()
        assert t.memories.review()["count"] == 2
    return root


@pytest.fixture
def page(project: Path, tmp_path: Path) -> Iterator[str]:
    import subprocess

    port = free_port("127.0.0.1")
    proc = subprocess.Popen([*TENURE, "ui", "--port", str(port), "--repo", str(project)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port("127.0.0.1", port, proc)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run installs them: "
                    "apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def test_map_review_detail_and_search_in_chromium(page: str, browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 30)
    browser.get(page)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "body[data-ready]")))

    headline = browser.find_element(By.ID, "headline").text
    assert headline.endswith("2 of 4 elements documented"), headline  # pay, pay.gateway, pay.ledger, pay.report
    gaps = browser.find_elements(By.CSS_SELECTOR, ".cell.gap")
    assert {g.text.splitlines()[0] for g in gaps} == {"pay", "pay.report"}
    gateway = browser.find_element(By.CSS_SELECTOR, ".cell.verify").text
    assert "pay.gateway" in gateway and "1 pitfall" in gateway and "2 to verify" in gateway
    name = browser.find_element(By.CSS_SELECTOR, ".cell.verify .name").get_attribute("innerHTML")
    assert name == "pay.<wbr>gateway"  # a narrow cell wraps the name after its dot, never inside a word

    items = browser.find_elements(By.CSS_SELECTOR, "#review li[data-memory]")
    assert len(items) == 2 and "drifted" in items[0].text
    throttles = next(i for i in items if "Gateway throttles" in i.text)
    throttles.find_element(By.CSS_SELECTOR, "button.confirm").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "review-count"), "(1)"))
    detail = wait.until(ec.visibility_of_element_located((By.ID, "detail"))).text
    assert "confirmed" in detail and "drift stamp" in detail and "links to" in detail and "Batch sends" in detail
    screenshot(browser, tmp_path / "tenure-ui-review.png")

    batch = browser.find_element(By.CSS_SELECTOR, "#review li[data-memory]")
    batch.find_element(By.CSS_SELECTOR, "button.supersede").click()
    editor = batch.find_element(By.TAG_NAME, "textarea")
    editor.clear()
    editor.send_keys("Send payments in batches of at most 4; pass retries=0.")
    batch.find_element(By.XPATH, ".//button[text()='Save new version']").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "review-count"), "(0)"))
    wait.until(ec.text_to_be_present_in_element((By.ID, "detail"), "History: 2 versions"))
    assert "superseded by" in browser.find_element(By.ID, "detail").text

    browser.find_element(By.ID, "search").send_keys("throttling")
    browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "results"), "Gateway throttles"))

    screenshot(browser, tmp_path / "tenure-ui-search.png")


def screenshot(browser, shot: Path) -> None:
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    keep = Path(__file__).parent.parent / ".ci" / "artifacts"
    if keep.is_dir():  # .ci/run keeps the screenshots of its run for people to look at
        shutil.copy(shot, keep / shot.name)


def test_other_sites_are_kept_out(page: str) -> None:
    assert httpx2.get(page + "api/review").status_code == 200
    rebound = httpx2.get(page + "api/review", headers={"Host": "evil.example:80"})
    assert rebound.status_code == 403 and "loopback" in rebound.json()["error"]
    form = httpx2.post(page + "api/memory/1/confirm", content="x", headers={"Content-Type": "text/plain"})
    assert form.status_code == 403 and "application/json" in form.json()["error"]
