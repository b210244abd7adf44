"""docs/findings.md's section on the reversed game with a stagnant one, from a database.

    python bench/findings_stagnant.py build --db stagnant.duckdb [--full-top 150] [--summary-top 250]
                                             [--reversed-top 200]
    python bench/findings_stagnant.py write --db stagnant.duckdb
    python bench/findings_stagnant.py plot --db stagnant.duckdb     # docs/stagnant-lengths.png
    python bench/findings_stagnant.py layer --n 190                 # one layer in memory, both games

`build` builds `reversed-stagnant`, its misère twin and the reversed game with its twin in full
for n = 1..--full-top, then summary mode (`--summary-only --lean`) for the four from there to
--summary-top (the reversed pair to --reversed-top; or, with --minutes M, n after n until M
minutes are spent on each pair), each as `zeckdb build` does, and prints the seconds of each
step and the resident memory's peak (the bench figures of docs/benchmarks.md). A database
holding some of it already is completed.

`write` reads the named queries `winners`, `conventions`, `lengths` and `winning-line-unique`
and rewrites the part of docs/findings.md between `<!-- findings:stagnant -->` and
`<!-- /findings:stagnant -->`; `write --print` prints it instead. `plot` draws the longest and
shortest game over n for both games, with Theorem 1.4's bound, from the `lengths` query. Nothing
is typed by hand. `layer` solves one layer of each game in summary mode in memory, alternated,
twice each (after a warm-up layer that compiles), and prints the seconds: the two games' cost
compared on the same machine at the same moment.
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path
import resource
import subprocess
import sys
import time

from zeckdb.fib import zeckendorf_counts
from zeckdb.ranges import format_ns

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "findings.md"
CLI = [sys.executable, "-m", "zeckdb.cli.main"]
STAGNANT, REVERSED = "reversed-stagnant", "reversed"
GAMES = [STAGNANT, STAGNANT + "-misere", REVERSED, REVERSED + "-misere"]
BEGIN, END = "<!-- findings:stagnant -->", "<!-- /findings:stagnant -->"
SAMPLES = (10, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300)
FIBONACCI = (8, 13, 21, 34, 55, 89, 144, 233, 377)  # starts of one chip: the longest game against n there


def zeckdb(*args: str) -> str:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"zeckdb {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def peak_gib() -> float:
    """The largest resident memory of a child process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20


def timed_build(label: str, games: list[str], *args: str) -> None:
    t0 = time.perf_counter()
    zeckdb("build", *[a for game in games for a in ("--variant", game)], *args)
    print(f"{label}: {time.perf_counter() - t0:.1f} s (peak resident memory so far {peak_gib():.2f} GiB)", flush=True)


def build(db: str, full_top: int, tops: dict[str, int], minutes: float | None) -> None:
    for game in (STAGNANT, REVERSED):  # each with its twin, so each time is one game's graph
        timed_build(f"{game} and its twin in full, n = 1..{full_top}", [game, game + "-misere"],
                    "--n", f"1..{full_top}", "--db", db)
    first = full_top + 1
    for game in (STAGNANT, REVERSED):
        pair, summary_top = [game, game + "-misere"], tops[game]
        if minutes is None:
            if summary_top >= first:
                timed_build(f"{game} and its twin in summary mode, n = {first}..{summary_top}", pair,
                            "--summary-only", "--lean", "--n", f"{first}..{summary_top}", "--db", db)
            continue
        t0, last = time.perf_counter(), first - 1
        while time.perf_counter() - t0 < 60 * minutes:  # one n at a time while the budget lasts
            last += 1
            zeckdb("build", "--summary-only", "--lean", *[a for g in pair for a in ("--variant", g)],
                   "--n", str(last), "--db", db)
        print(f"{game} and its twin in summary mode, n = {first}..{last}: {time.perf_counter() - t0:.1f} s "
              f"(peak resident memory so far {peak_gib():.2f} GiB)", flush=True)


def table(db: str, name: str, variant: str | None = None) -> list[dict[str, str]]:
    args = ["query", name, "-f", "csv", "--max-rows", "0", "--db", db]
    return list(csv.DictReader(io.StringIO(zeckdb(*args, *(["--variant", variant] if variant else [])))))


def runs(ns: list[int]) -> str:
    """1, 3..7, 10: consecutive n as ranges (zeckdb's own range syntax, spaced)."""
    return format_ns(ns).replace(",", ", ") or "none"


def true(text: str) -> bool:
    return text.lower() == "true"


def winners_part(db: str) -> tuple[list[str], int]:
    """Who wins each n, the stagnant game against the reversed game, under both conventions."""
    won = {(r["variant"], int(r["n"])): int(r["winner"]) for r in table(db, "winners") if r["winner"]}
    top = 0  # the last n up to which all four games are built at every n
    while all((game, top + 1) in won for game in GAMES):
        top += 1
    if top == 0:
        raise SystemExit(f"{', '.join(GAMES)} are not all built from n = 1: build them (the `build` step)")
    ns = list(range(1, top + 1))
    lines = ["| game | n | Player 1 wins at | the winner differs from the reversed game's at | differs | "
             "Player 1's share |", "|---|---|---|---|---|---|"]
    for game, other in ((STAGNANT, REVERSED), (STAGNANT + "-misere", REVERSED + "-misere")):
        p1 = [n for n in ns if won[game, n] == 1]
        differ = [n for n in ns if won[game, n] != won[other, n]]
        lines.append(f"| `{game}` | 1..{top} | {runs(p1)} | {runs(differ)} | {len(differ)} of {top} | "
                     f"{len(p1) / top:.4f} (`{other}`: {sum(won[other, n] == 1 for n in ns) / top:.4f}) |")
    own = 0  # the last n up to which the stagnant game and its twin are built at every n
    while all((game, own + 1) in won for game in GAMES[:2]):
        own += 1
    if own > top:
        beyond = range(top + 1, own + 1)
        shares = " / ".join(f"{sum(won[g, n] == 1 for n in range(1, own + 1)) / own:.4f}" for g in GAMES[:2])
        lines += ["", f"Past the reversed game's n, n = {top + 1}..{own}: Player 1 wins `{STAGNANT}` at "
                  f"{runs([n for n in beyond if won[STAGNANT, n] == 1])} and its twin at "
                  f"{runs([n for n in beyond if won[GAMES[1], n] == 1])}; Player 1's share of n = 1..{own}, "
                  f"normal / misère: {shares}."]
    # a start holding a 1 plays the game of n - 1 with a chip that never moves: checked, not assumed
    ones = [n for n in range(2, own + 1) if zeckendorf_counts(n)[0] == 1]
    same = [n for n in ones if all(won[game, n] == won[game, n - 1] for game in GAMES[:2])]
    lines += ["", f"n <= {own} whose Zeckendorf decomposition holds a 1: {len(ones)}; at {len(same)} of them both "
              "conventions' winners are those of n - 1."]
    conv = [r for r in table(db, "conventions", STAGNANT) if r["variant"] == STAGNANT and int(r["n"]) <= own]
    disagree = [int(r["n"]) for r in conv if not true(r["agree"])]
    lines += ["", f"`{STAGNANT}` under normal and misère play disagree at n = {runs(disagree)} "
              f"({len(disagree)} of {len(conv)})."]
    return lines, own


def lengths_part(db: str, top: int) -> list[str]:
    rows = {(r["variant"], int(r["n"])): r for r in table(db, "lengths") if r["variant"] in (STAGNANT, REVERSED)}
    ns = [n for n in range(1, top + 1) if (STAGNANT, n) in rows]
    mine = [rows[STAGNANT, n] for n in ns]
    both = [n for n in ns if (REVERSED, n) in rows]
    short = sum(true(r["min_is_n_minus_z"]) for r in mine)
    within = sum(true(r["max_within_bound"]) for r in mine)
    attains = [int(r["n"]) for r in mine if true(r["max_attains_bound"])]
    shorter = [n for n in both if int(rows[STAGNANT, n]["max_length"]) < int(rows[REVERSED, n]["max_length"])]
    ratio, at = max((int(r["max_length"]) / int(r["n"]), int(r["n"])) for r in mine if int(r["n"]) >= 10)
    ones = [n for n in ns[1:] if zeckendorf_counts(n)[0] == 1]
    same = sum(rows[STAGNANT, n]["max_length"] == rows[STAGNANT, n - 1]["max_length"] for n in ones)
    lines = [f"Over n = 1..{top}: the shortest game is n - Z(n) at {short} of {len(ns)} n; the longest is within "
             f"Theorem 1.4's bound at {within} of {len(ns)} and attains it at n = {runs(attains)}; it is shorter than "
             f"the reversed game's longest at {len(shorter)} of the {len(both)} n both are built at (n = {runs(shorter)}); "
             f"the largest longest/n from n = 10 on is {ratio:.4f} (n = {at}); at {same} of the {len(ones)} n whose "
             "decomposition holds a 1 the longest game is that of n - 1.", "",
             "| n | n - Z(n) | shortest | longest | reversed game's longest | Theorem 1.4's bound | longest / n |",
             "|---|---|---|---|---|---|---|"]
    for n in [n for n in sorted(set(SAMPLES) | set(FIBONACCI)) if n in ns]:
        r, rev = rows[STAGNANT, n], rows.get((REVERSED, n))
        lines.append(f"| {n} | {r['n_minus_z']} | {r['min_length']} | {r['max_length']} | "
                     f"{rev['max_length'] if rev else ''} | {r['max_bound']} | {int(r['max_length']) / n:.4f} |")
    return lines


def unique_part(db: str) -> list[str]:
    rows = [r for r in table(db, "winning-line-unique", STAGNANT) if r["variant"] == STAGNANT]
    unique = [int(r["n"]) for r in rows if true(r["unique_winning_line"])]
    last = int(rows[-1]["n"])
    lines = [f"Lee and Bitler's reduced graph (`winning-line-unique`, the n built in full, 1..{last}): the winning "
             f"line is unique at n = {runs(unique)}; the last n with a unique line is {max(unique, default=0)}.", "",
             "| n | winner | reduced nodes | Omega_B | decisions with several winning replies | unique |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        n = int(r["n"])
        if n <= 20 or n in SAMPLES:
            lines.append(f"| {n} | {r['winner']} | {r['reduced_nodes']} | {r['omega_size']} | "
                         f"{r['multi_reply_decisions']} | {r['unique_winning_line']} |")
    return lines


def section(db: str) -> str:
    winners, top = winners_part(db)
    return "\n".join([BEGIN, "", *winners, "", *lengths_part(db, top), "", *unique_part(db), "", END])


def write(db: str, show: bool) -> None:
    text = section(db)
    if show:
        print(text)
        return
    doc = DOC.read_text()
    if BEGIN not in doc:
        raise SystemExit(f"{DOC} has no {BEGIN} ... {END} section to rewrite")
    head, rest = doc.split(BEGIN, 1)
    DOC.write_text(head + text + rest.split(END, 1)[1])
    print(f"wrote the stagnant section of {DOC}")


def plot(db: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table(db, "lengths")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for game, style in ((REVERSED, "tab:blue"), (STAGNANT, "tab:red")):
        mine = [r for r in rows if r["variant"] == game]
        ns = [int(r["n"]) for r in mine]
        ax.plot(ns, [int(r["max_length"]) / int(r["n"]) for r in mine], color=style, label=f"{game}: longest / n")
        if game == STAGNANT:
            ax.plot(ns, [int(r["min_length"]) / int(r["n"]) for r in mine], color="gray",
                    label="both: shortest / n = (n - Z(n)) / n")
            ax.plot(ns, [int(r["max_bound"]) / int(r["n"]) for r in mine], color="black", linestyle="--",
                    label="Theorem 1.4's bound / n")
    ax.set_xlabel("n")
    ax.set_ylabel("moves / n")
    ax.set_title("The reversed game and the reversed game with a stagnant one")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = ROOT / "docs" / "stagnant-lengths.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def layer(n: int) -> None:
    from zeckdb.engine.summary import solve_summary
    from zeckdb.variants import get_variant

    games = [get_variant(STAGNANT), get_variant(REVERSED)]
    for game in games:
        solve_summary(game, 40, floats=False)  # compiles the walk
    for game in games * 2:
        t0 = time.perf_counter()
        s = solve_summary(game, n, floats=False)
        print(f"{game.name} n = {n}: {time.perf_counter() - t0:.2f} s, {s.positions:,} positions, {s.edges:,} moves, "
              f"winner {s.winner}, longest game {s.max_length}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("step", choices=["build", "write", "plot", "layer"])
    parser.add_argument("--n", type=int, default=190, help="layer: the n solved")
    parser.add_argument("--db", default="stagnant.duckdb")
    parser.add_argument("--full-top", type=int, default=150, help="the last n built in full")
    parser.add_argument("--summary-top", type=int, default=250, help="summary mode's last n")
    parser.add_argument("--reversed-top", type=int, help="summary mode's last n for the reversed game and its twin "
                        "(default: --summary-top)")
    parser.add_argument("--minutes", type=float, help="instead: summary mode n after n for each game (with its "
                        "twin) until this many minutes are spent on it")
    parser.add_argument("--print", action="store_true", help="write: print the section, leave the file")
    opts = parser.parse_args()
    if opts.step == "build":
        tops = {STAGNANT: opts.summary_top, REVERSED: opts.reversed_top or opts.summary_top}
        build(opts.db, opts.full_top, tops, opts.minutes)
    elif opts.step == "layer":
        layer(opts.n)
    elif opts.step == "plot":
        plot(opts.db)
    else:
        write(opts.db, opts.print)


if __name__ == "__main__":
    main()
