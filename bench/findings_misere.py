"""docs/findings.md's misère section, from a database: build it, then write it.

    python bench/findings_misere.py build --db misere.duckdb    # full builds, then summary mode
    python bench/findings_misere.py write --db misere.duckdb    # rewrite the section in docs/findings.md

`build` builds each game of GAMES and its misère twin in full to the n given there (the
default build's reach for the core games), then summary mode for the core games and their
twins from there to --summary-top (default 250), or with --minutes M n after n until M
minutes are spent on each game and its twin, each as `zeckdb build` does, and prints the
seconds of each step. A database that holds some of it already is completed, not rebuilt.

    python bench/findings_misere.py build --db misere.duckdb --minutes 60   # an hour a game

`write` reads who wins each n under both conventions (`zeckdb query conventions`) and rewrites
the part of docs/findings.md between `<!-- findings:misere -->` and `<!-- /findings:misere -->`:
per game, the n Player 1 wins under misère play, the n where the conventions disagree and the
running fractions at the last n. Nothing is typed by hand.
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path
import subprocess
import sys
import time

from zeckdb.ranges import format_ns

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "findings.md"
CLI = [sys.executable, "-m", "zeckdb.cli.main"]
# game -> the last n built in full (with its twin); the core games go on in summary mode
GAMES = {"zeckendorf": 150, "reversed": 150, "build-up": 100, "fibonacci-nim": 400, "black-hole-3": 200,
         "black-hole-4": 200, "ordered": 20, "nacci-2-2": 150, "reversed-nacci-2-2": 150}
SUMMARY = ["zeckendorf", "reversed"]
BEGIN, END = "<!-- findings:misere -->", "<!-- /findings:misere -->"


def zeckdb(*args: str) -> str:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"zeckdb {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def build(db: str, summary_top: int, minutes: float | None) -> None:
    for game, top in GAMES.items():
        t0 = time.perf_counter()
        zeckdb("build", "--variant", game, "--variant", game + "-misere", "--n", f"1..{top}", "--db", db)
        print(f"{game} and {game}-misere, n = 1..{top}: {time.perf_counter() - t0:.1f} s", flush=True)
    for game in SUMMARY:
        first = GAMES[game] + 1
        pair = ["--variant", game, "--variant", game + "-misere"]
        t0 = time.perf_counter()
        if minutes is None:
            if summary_top < first:
                continue
            zeckdb("build", "--summary-only", "--lean", *pair, "--n", f"{first}..{summary_top}", "--db", db)
            last = summary_top
        else:  # one n at a time while the game's budget lasts (what is stored already is skipped)
            last = first - 1
            while time.perf_counter() - t0 < 60 * minutes:
                last += 1
                zeckdb("build", "--summary-only", "--lean", *pair, "--n", str(last), "--db", db)
        print(f"{game} and {game}-misere in summary mode, n = {first}..{last}: "
              f"{time.perf_counter() - t0:.1f} s", flush=True)


def runs(ns: list[int]) -> str:
    """1, 3..7, 10: consecutive n as ranges (zeckdb's own range syntax, spaced)."""
    return format_ns(ns).replace(",", ", ") or "none"


def section(db: str) -> str:
    rows = list(csv.DictReader(io.StringIO(zeckdb("query", "conventions", "-f", "csv", "--max-rows", "0", "--db", db))))
    lines = [BEGIN, "", "| game | n | Player 1 wins under misère play | the conventions disagree at | "
             "Player 1's share of n, normal / misère | agree |", "|---|---|---|---|---|---|"]
    for game in GAMES:
        mine = [r for r in rows if r["variant"] == game]
        if not mine:
            continue
        ns = [int(r["n"]) for r in mine]
        if ns != list(range(1, ns[-1] + 1)):
            raise SystemExit(f"{game}: the n built under both conventions have holes: build 1..{ns[-1]} of both")
        p1 = [int(r["n"]) for r in mine if r["misere_winner"] == "1"]
        differ = [int(r["n"]) for r in mine if r["agree"].lower() != "true"]
        last = mine[-1]
        lines.append(f"| `{game}-misere` | 1..{ns[-1]} | {runs(p1)} | {runs(differ)} | "
                     f"{float(last['normal_p1_fraction']):.4f} / {float(last['misere_p1_fraction']):.4f} | "
                     f"{float(last['agree_fraction']):.4f} |")
    lines += ["", END]
    return "\n".join(lines)


def write(db: str) -> None:
    text = DOC.read_text()
    if BEGIN not in text:
        raise SystemExit(f"{DOC} has no {BEGIN} ... {END} section to rewrite")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    DOC.write_text(head + section(db) + tail)
    print(f"wrote the misère section of {DOC}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["build", "write"])
    parser.add_argument("--db", default="misere.duckdb")
    parser.add_argument("--summary-top", type=int, default=250, help="summary mode's last n for the core games")
    parser.add_argument("--minutes", type=float, help="instead: summary mode n after n for each core game (with its "
                        "twin) until this many minutes are spent on it")
    opts = parser.parse_args()
    if opts.step == "build":
        build(opts.db, opts.summary_top, opts.minutes)
    else:
        write(opts.db)


if __name__ == "__main__":
    main()
