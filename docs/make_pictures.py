"""Make the README's pictures from a small build (zeckendorf and reversed, n = 1..60):

- docs/length-distribution.png  `zeckdb plot length-distribution` (zeckendorf, n = 40)
- docs/winners.png              `zeckdb plot winners` (reversed)
- docs/zeckendorf-7.png         `zeckdb draw zeckendorf --n 7` (Graphviz)
- docs/page.png                 the web page at the start of n = 15 of the reversed game

    python docs/make_pictures.py      # needs Graphviz, Debian's chromium and chromium-driver, and selenium

Everything shown is read from the database built here, never drawn by hand.
"""

from __future__ import annotations

from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

DOCS = Path(__file__).resolve().parent
CLI = [sys.executable, "-m", "zeckdb.cli.main"]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "pictures.duckdb"
        subprocess.run([*CLI, "build", "--variant", "zeckendorf", "--variant", "reversed", "--n", "1..60",
                        "--db", str(db)], check=True)
        for command in (["plot", "length-distribution", "--variant", "zeckendorf", "--n", "40",
                         "--out", DOCS / "length-distribution.png"],
                        ["plot", "winners", "--variant", "reversed", "--out", DOCS / "winners.png"],
                        ["draw", "zeckendorf", "--n", "7", "--format", "png", "--out", DOCS / "zeckendorf-7.png"]):
            subprocess.run([*CLI, *map(str, command), "--force", "--db", str(db)], check=True)  # replaces the old
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([*CLI, "serve", "--db", str(db), "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            page_picture(base, DOCS / "page.png")
        finally:
            server.terminate()
            server.wait()


def page_picture(base: str, out: Path) -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--window-size=1200,860"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        browser.get(base + "/?variant=reversed&n=15")  # Player 1 to move (and win); the perfect player is Player 2
        wait = WebDriverWait(browser, 20)
        wait.until(lambda b: b.execute_script("const i = document.getElementById('chart'); "
                                              "return i.complete && i.naturalWidth > 0"))
        browser.save_screenshot(str(out))
        print(f"wrote {out}")
    finally:
        browser.quit()


if __name__ == "__main__":
    main()
