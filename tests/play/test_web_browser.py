"""The web page end to end in a real headless browser: Debian's chromium driven by Selenium.

The test starts the server on a free port and the system browser (``/usr/bin/chromium`` with
``/usr/bin/chromedriver``, which ``.ci/run`` installs); it loads the page, plays a whole hand by clicking
the choices the page offers, and checks that the hand's end shown is the engine's. In CI a missing browser
fails the test; elsewhere it skips. ``EUCHRE_SCREENSHOT=docs/images/play_web.png`` saves the screenshot
the README shows (otherwise it goes to the test's temporary folder).
"""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

pytest.importorskip("flask")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from euchre_env.game.rules import Rules  # noqa: E402
from euchre_env.game.scoring import describe_hand  # noqa: E402
from euchre_env.play.web import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture
def browser():
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        message = f"no system browser ({CHROMIUM}, {DRIVER}): apt-get install chromium chromium-driver"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,860"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def server():
    app = create_app(Rules.preset("knock"), seed=7)
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{httpd.server_port}/"
    httpd.shutdown()
    thread.join(5)


def _wait(condition, what: str, timeout: float = 30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_hand_played_by_clicking_ends_as_the_engine_scored_it(browser, server, tmp_path) -> None:
    app, url = server
    browser.get(url)

    def idle():  # the page has drawn a state and is not showing moves
        return browser.execute_script("return document.body.dataset.busy === '' && !!document.getElementById"
                                      "('status').textContent")

    shot = os.environ.get("EUCHRE_SCREENSHOT") or str(tmp_path / "play_web.png")
    clicks, shot_taken = 0, False
    while True:
        _wait(idle, "the page to settle")
        if browser.find_element(By.ID, "hand-end").is_displayed():
            break
        choices = [b for b in browser.find_elements(By.CSS_SELECTOR, "button.choice") if b.is_enabled()]
        assert choices, "the page offers the person nothing to click, and the hand is not over"
        cards = browser.find_elements(By.CSS_SELECTOR, "#hand button.card")
        if not shot_taken and len(cards) >= 3 and browser.find_elements(By.CSS_SELECTOR, "#seat-top .played .card"):
            shot_taken = browser.save_screenshot(shot)  # mid-hand: cards to click, a trick on the table
        choices[-1 if clicks % 2 else 0].click()  # vary the choices: pass and order, low and high cards
        clicks += 1
        assert clicks < 40
    shown = browser.find_element(By.ID, "hand-summary").text
    (game,) = app.config["euchre_games"].values()
    state = game.table.state
    assert state.hand_over and shown == describe_hand(state.rules, state.hand_result)
    assert browser.find_element(By.ID, "error").text == ""
    person_moves = [m for m in game.table.moves if m.seat == 0 and len(m.text)]
    assert len(person_moves) > 0 and clicks <= len(person_moves)  # single choices are played for the person
    assert shot_taken or browser.save_screenshot(shot)
