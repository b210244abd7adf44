"""The web page in a real headless browser (Debian's chromium driven by Selenium through
chromedriver) against a real `zeckdb serve` process: play the n = 7 Zeckendorf game to its
end against the perfect player, who wins it as Player 2 (Baird-Smith et al.: Player 2 wins
every n > 2; the reference solver says so too), step back, and read the start's summary.

The screenshot lands in $ZECKDB_ARTIFACTS (default: the test's temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path
import shutil

import pytest

from . import reference as ref
from .http import serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    if os.environ.get("CI"):
        raise RuntimeError("the browser test needs Debian's chromium and chromium-driver (.ci/run installs them)")
    pytest.skip("no chromium/chromedriver: `apt-get install chromium chromium-driver` runs this test",
                allow_module_level=True)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def page(small_db):
    with serving(small_db) as base:
        yield base


def wait_for(browser, condition, timeout: float = 20):
    return WebDriverWait(browser, timeout).until(lambda b: condition(b))


def move_buttons(browser):
    return browser.find_elements(By.CSS_SELECTOR, "#moves button")


def test_play_n7_against_the_perfect_player(browser, page, tmp_path):
    assert ref.solve("zeckendorf", (7,))["win"] is False  # the player to move (Player 1) loses: Player 2 wins
    browser.get(page + "/")
    wait_for(browser, lambda b: len(Select(b.find_element(By.ID, "variant")).options) > 0)
    Select(browser.find_element(By.ID, "variant")).select_by_value("zeckendorf")
    box = browser.find_element(By.ID, "n")
    box.clear()
    box.send_keys("7")
    Select(browser.find_element(By.ID, "opponent")).select_by_value("2")  # the perfect player is Player 2
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda b: "n = 7: position (7)" in b.find_element(By.ID, "where").text)
    assert "Player 1 to move loses" in browser.find_element(By.ID, "value").text
    wait_for(browser, lambda b: "Player 2" in b.find_element(By.ID, "summary-facts").text)
    summary = browser.find_element(By.ID, "summary-facts").text
    assert f"shortest game\n{7 - ref.z_count(7)} moves" in summary
    assert f"complete games\n{ref.game_count('zeckendorf', (7,))}" in summary
    for figure in ("chart", "winners-plot"):  # the length distribution and the winners, as `zeckdb plot` draws them
        wait_for(browser, lambda b: b.execute_script(
            f"const i = document.getElementById('{figure}'); return i.complete && i.naturalWidth > 0"))

    plies = 0
    while not browser.find_element(By.ID, "result").is_displayed():
        # Player 1 (us) plays its first listed move whenever the buttons are live
        buttons = wait_for(browser, lambda b: [x for x in move_buttons(b) if x.is_enabled()]
                           or b.find_element(By.ID, "result").is_displayed())
        if buttons is True:
            break
        buttons[0].click()
        plies += 2
        wait_for(browser, lambda b: b.find_element(By.ID, "result").is_displayed()
                 or len(b.find_elements(By.CSS_SELECTOR, "#history li")) >= plies)
        assert plies < 40
    result = browser.find_element(By.ID, "result").text
    assert "Player 2 wins" in result and "Player 1 has no move" in result
    history = browser.find_elements(By.CSS_SELECTOR, "#history li")
    lengths = ref.remaining_lengths("zeckendorf", (7,))[0]
    assert min(lengths) <= len(history) <= max(lengths)
    assert history[-1].text.startswith("Player 2:")  # the perfect player made the last move
    artifacts = Path(os.environ.get("ZECKDB_ARTIFACTS", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(artifacts / "page-n7-played.png"))

    browser.find_element(By.ID, "back").click()  # back to our last move: Player 1 to move again
    wait_for(browser, lambda b: not b.find_element(By.ID, "result").is_displayed())
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history li")) == len(history) - 2
    assert any(x.is_enabled() for x in move_buttons(browser))


def test_moves_are_coloured_by_their_value(browser, page):
    browser.get(page + "/?variant=reversed&position=3,1,0,2")
    wait_for(browser, lambda b: "position (3,1,0,2)" in b.find_element(By.ID, "where").text)
    want = ref.solve("reversed", (3, 1, 0, 2))
    buttons = move_buttons(browser)
    assert len(buttons) == len(ref.MOVES["reversed"]((3, 1, 0, 2)))
    winning = [b for b in buttons if "win" in b.get_attribute("class").split()]
    assert bool(winning) == want["win"]  # a position is won exactly when one of its moves wins
    assert all("wins" in b.text for b in winning)


def test_bad_input_shows_one_line(browser, page):
    browser.get(page + "/?variant=zeckendorf&position=1,x")
    error = wait_for(browser, lambda b: b.find_element(By.ID, "error").is_displayed() and b.find_element(By.ID, "error"))
    assert "\n" not in error.text and "1,x" in error.text


def test_a_game_of_three_players_names_who_can_force_a_win(browser, page):
    """Cusenza et al.: in the three-player Zeckendorf game of n = 4 Player 2 can force a win."""
    browser.get(page + "/?variant=zeckendorf-p3&n=4")
    wait_for(browser, lambda b: "n = 4: position (4)" in b.find_element(By.ID, "where").text)
    assert browser.find_element(By.ID, "value").text == "Player 1 of 3 to move; Player 2 can force a win."
    assert [o.text for o in Select(browser.find_element(By.ID, "opponent")).options][1:] == \
        ["Player 1", "Player 2", "Player 3"]
    wait_for(browser, lambda b: "winner\nPlayer 2" in b.find_element(By.ID, "summary-facts").text)
    Select(browser.find_element(By.ID, "opponent")).select_by_value("0")  # explore: we play every seat
    (button,) = move_buttons(browser)
    assert "then Player 2 can force a win" in button.text
    button.click()
    wait_for(browser, lambda b: "Player 2 of 3 to move" in b.find_element(By.ID, "value").text)
    move_buttons(browser)[0].click()
    result = wait_for(browser, lambda b: b.find_element(By.ID, "result").is_displayed()
                      and b.find_element(By.ID, "result").text)
    assert "Player 2 wins" in result and "Player 3 has no move" in result


def test_the_api_docs_render_in_a_browser_with_no_outside_file(browser, page):
    """/docs is Swagger UI from the package's own files: it renders the API with nothing fetched
    from outside the server (the page's Content-Security-Policy would refuse it anyway), and
    the page's console shows no policy violation."""
    browser.get(page + "/docs")
    title = wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, ".swagger-ui .info .title"), timeout=60)
    assert "zeckdb" in title[0].text
    assert wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, ".opblock-summary-path"), timeout=60)
    sources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert sources and all(url.startswith(page) for url in sources), sources


def test_the_computer_best_responds_to_a_random_player(browser, page):
    """At (0,2,2) (n = 10), Player 1 played by the computer as the best response to random play
    makes the move of the best chance against a random Player 2, as the plain solver computes it;
    the perfect player (the slowest loss) and the first listed move would each make another."""
    from fractions import Fraction

    from .test_profiles import perfect_move

    def chance(p: tuple[int, ...], mine: bool) -> Fraction:  # the best responder's, against random
        moves = ref.MOVES["zeckendorf"](p)
        if not moves:
            return Fraction(0 if mine else 1)
        values = [chance(m, not mine) for m in moves]
        return max(values) if mine else sum(values) / len(values)

    here = (0, 2, 2)
    moves = ref.MOVES["zeckendorf"](here)
    best = [m for m in moves if chance(m, False) == chance(here, True)]
    assert len(best) == 1 and best[0] not in (perfect_move("zeckendorf", here), moves[0])

    browser.get(page + "/?variant=zeckendorf&position=0,2,2")
    wait_for(browser, lambda b: "position (0,2,2)" in b.find_element(By.ID, "where").text)
    Select(browser.find_element(By.ID, "opponent")).select_by_value("0")  # nothing moves while we choose
    Select(browser.find_element(By.ID, "strategy")).select_by_value("best-response")
    Select(browser.find_element(By.ID, "opponent")).select_by_value("1")
    item = wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#history li")
                    or (b.find_element(By.ID, "error").is_displayed() and pytest.fail(b.find_element(By.ID, "error").text)),
                    timeout=90)[0]  # behind the page's two figures, each a worker's
    assert item.text.startswith("Player 1: ")
    chosen = tuple(int(x) for x in item.text.split("→")[1].strip(" ()").split(","))
    assert ref.norm(list(chosen)) == best[0]
    assert any(b.is_enabled() for b in move_buttons(browser))  # then it is our move


def test_a_misere_twin_is_played_on_the_page(browser, page):
    """The misère twin on the page: the position's value and the move it colours as winning are
    the misère reference solver's. At (3,1,0,2) both conventions win, by different moves."""
    position = (3, 1, 0, 2)
    children = ref.MOVES["zeckendorf"](position)
    normal = {c for c in children if not ref.solve("zeckendorf", c)["win"]}
    misere = {c for c in children if not ref.solve_misere("zeckendorf", c)["win"]}
    assert misere and normal and misere != normal  # the test tells the two apart
    browser.get(page + "/?variant=zeckendorf-misere&position=3,1,0,2")
    wait_for(browser, lambda b: "position (3,1,0,2)" in b.find_element(By.ID, "where").text)
    assert "wins" in browser.find_element(By.ID, "value").text  # the player to move wins (misère, as normal)
    buttons = move_buttons(browser)
    assert len(buttons) == len(children)
    winning = [b.text for b in buttons if "win" in b.get_attribute("class").split()]
    shown = {"(" + ",".join(map(str, c)) + ")" for c in misere}
    assert len(winning) == len(misere) and all(any(s in text for s in shown) for text in winning), winning
