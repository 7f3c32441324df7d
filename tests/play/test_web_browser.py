"""The web page end to end in a real headless browser: Debian's chromium driven by Selenium.

The test starts the server on a free port and the system browser (``/usr/bin/chromium`` with
``/usr/bin/chromedriver``, which ``.ci/run`` installs); it loads the page, plays a whole hand by clicking
the choices the page offers (asking for a hint first), and checks that the hint shown is the server's, the
table and the log are drawn as the state says and the hand's end shown is the engine's; then that New game
starts afresh when the server has dropped the page's game. In CI a missing browser
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

from euchre_env.agents.registry import make_agent  # noqa: E402
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
    # One game a browser: a second one of the page's client drops the page's game.
    app = create_app(Rules.preset("knock"), seed=7, max_games_per_client=1)
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
    def check_center() -> int:
        """The middle of the table as the state says: the up-card until the dealer takes it, the last trick
        (when no trick is on the table) with each card's seat. 1 when the last trick was checked."""
        drawn = browser.execute_script("return state")
        center = browser.find_element(By.ID, "center").text
        assert ("up-card" in center) == (not drawn["upcard_taken"])
        if not drawn["last_trick"] or drawn["trick"]:
            return 0
        shown = browser.find_element(By.ID, "last-trick").text
        assert shown.startswith(f"last trick, to {'you' if drawn['last_trick']['winner'] == 0 else 'seat'}")
        assert all(f"{'you' if p['seat'] == 0 else 'seat ' + str(p['seat'])} {p['card'][0]}" in shown.replace("10", "T")
                   for p in drawn["last_trick"]["plays"]), shown
        return 1

    clicks, shot_taken, hints, last_tricks = 0, False, 0, 0
    while True:
        _wait(idle, "the page to settle")
        last_tricks += check_center()
        if browser.find_element(By.ID, "hand-end").is_displayed():
            break
        if hints < 2:  # the hint of this decision: the terminal's text, from the same function
            (game_id,) = app.config["euchre_games"]
            game = app.config["euchre_games"].get(game_id)
            browser.find_element(By.ID, "hint").click()
            shown = _wait(lambda: browser.find_element(By.ID, "hint-text").text, "the hint")
            assert shown == game.table.hint(make_agent("rules")) and shown.startswith("hint (rules): ")
            hints += 1
        choices = [b for b in browser.find_elements(By.CSS_SELECTOR, "button.choice") if b.is_enabled()]
        assert choices, "the page offers the person nothing to click, and the hand is not over"
        cards = browser.find_elements(By.CSS_SELECTOR, "#hand button.card")
        if not shot_taken and len(cards) >= 3 and browser.find_elements(By.CSS_SELECTOR, "#seat-top .played .card"):
            shot_taken = browser.save_screenshot(shot)  # mid-hand: cards to click, a trick on the table
        choices[-1 if clicks % 2 else 0].click()  # vary the choices: pass and order, low and high cards
        clicks += 1
        assert clicks < 40
    shown = browser.find_element(By.ID, "hand-summary").text
    (game_id,) = app.config["euchre_games"]
    game = app.config["euchre_games"].get(game_id)
    state = game.table.state
    assert state.hand_over and shown == describe_hand(state.rules, state.hand_result)
    assert browser.find_element(By.ID, "error").text == ""
    took = [line for line in browser.find_element(By.ID, "log").text.splitlines() if line.startswith("trick to seat")]
    assert took == [f"trick to seat {w} ({game.table.label(w)})" for w, _, _ in state.tricks]
    person_moves = [m for m in game.table.moves if m.seat == 0 and len(m.text)]
    assert len(person_moves) > 0 and clicks <= len(person_moves)  # single choices are played for the person
    # The same state drawn as if the dealer had taken the up-card: it is no longer shown.
    assert "up-card" not in browser.execute_script(
        "const drawn = state; state = Object.assign({}, drawn, {upcard_taken: true}); render();"
        "const text = document.getElementById('center').textContent; state = drawn; render(); return text")
    # No hint button after the hand's end: nothing to advise on.
    assert last_tricks > 0 and hints == 2 and not browser.find_element(By.ID, "hint").is_displayed()
    assert shot_taken or browser.save_screenshot(shot)
    # The server drops the page's game (here: another game of the page's client, kept in localStorage, past
    # max_games_per_client=1); New game starts a fresh one, and it replaces that other game: same client.
    dropped = browser.execute_script("return state.id")
    client = browser.execute_script("return localStorage.getItem('euchre-client')")
    assert app.test_client().post("/api/games", json={"client": client}).get_json()["client"] == client
    assert dropped not in app.config["euchre_games"]
    browser.find_element(By.ID, "new-game").click()
    _wait(lambda: idle() and browser.execute_script("return state.id") != dropped, "a fresh game")
    assert browser.find_element(By.ID, "error").text == ""
    assert list(app.config["euchre_games"]) == [browser.execute_script("return state.id")]
