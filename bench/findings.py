"""docs/findings.md's tables of the generalized games and the accelerated game, from a database: build it, then write them.

    python bench/findings.py build --db findings.duckdb     # summary mode, every family (about 25 minutes)
    python bench/findings.py write --db findings.duckdb     # regenerate the tables in docs/findings.md

`build` solves, with `zeckdb build --summary-only --lean`, each family to the n of FAMILIES
(the (c,k)-nacci games and their reversed games to n = 1000 for c >= 2 and 300 for c = 1,
their games of 3 to 6 players to 400 and 150, the Zeckendorf game of P players and the
accelerated game to 200), and builds the Zeckendorf game in full to n = 150 (FULL_FAMILIES:
the strategy profiles read its stored moves), one family at a time in a process of its own,
and prints each family's seconds and peak memory. A database that holds some of it already
is completed, not rebuilt.

`write` reads every game's winner (and, for P players, its teams) per n, the 16 deterministic
Zeckendorf games (`zeckdb query deterministic`) and the stored best responses to random play,
and rewrites the
parts of docs/findings.md between `<!-- findings:NAME -->` and `<!-- /findings:NAME -->`:
the tables, and the run-length data they are computed from (the `data` section). Nothing is
typed by hand: tests/test_findings.py rebuilds small n, checks the data section against them,
and recomputes every table from the data section.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
import re
import resource
import subprocess
import sys
import time

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "findings.md"
NACCI = [(c, k) for c in range(1, 5) for k in range(2, 5) if (c, k) != (1, 2)]
PLAYERS = range(3, 7)
ACCELERATED_TOP = 200  # the accelerated Zeckendorf game: its full build's largest n, in summary mode
PROFILE_TOP = 150  # the Zeckendorf game built in full: the strategy profiles' tables read its graph
PREFERENCES = ["combine-largest", "combine-smallest", "split-largest", "split-smallest"]
SHORT = {"combine-largest": "CL", "combine-smallest": "CS", "split-largest": "SL", "split-smallest": "SS"}


def two_player_top(c: int) -> int:
    return 1000 if c >= 2 else 300


def many_player_top(c: int) -> int:
    return 400 if c >= 2 else 150


# family -> its (variant, largest n) pairs; each is built with --summary-only in a process of its own
FAMILIES: dict[str, list[tuple[str, int]]] = {
    "nacci-C-K, c >= 2": [(f"nacci-{c}-{k}", two_player_top(c)) for c, k in NACCI if c >= 2],
    "reversed-nacci-C-K, c >= 2": [(f"reversed-nacci-{c}-{k}", two_player_top(c)) for c, k in NACCI if c >= 2],
    "nacci-1-K and reversed": [(f"{kind}nacci-1-{k}", 300) for kind in ("", "reversed-") for k in (3, 4)],
    "nacci-C-K-pP": [(f"nacci-{c}-{k}-p{p}", many_player_top(c)) for c, k in NACCI for p in PLAYERS],
    "zeckendorf-pP": [(f"zeckendorf-p{p}", 200) for p in PLAYERS],
    "accelerated": [("accelerated", ACCELERATED_TOP)],
}
# family -> its games built in full (not summary mode): the profiles read their stored moves
FULL_FAMILIES: dict[str, list[tuple[str, int]]] = {"zeckendorf, in full": [("zeckendorf", PROFILE_TOP)]}


# -- what a game is ------------------------------------------------------------------------
@dataclass(frozen=True)
class Game:
    name: str
    c: int
    k: int
    players: int
    reversed: bool

    @classmethod
    def of(cls, name: str) -> Game:
        m = re.fullmatch(r"(reversed-)?(?:nacci-(\d)-(\d)|zeckendorf)(?:-p(\d))?", name)
        if m is None:
            raise ValueError(f"not a game of the findings: {name}")
        c, k = (int(m[2]), int(m[3])) if m[2] else (1, 2)
        return cls(name, c, k, int(m[4] or 2), bool(m[1]))

    @property
    def bound(self) -> int | None:
        """Miller, Sosis and Ye: with P >= c + 2 players nobody forces a win from n >= 3c^2 + 6c + 3."""
        return 3 * self.c ** 2 + 6 * self.c + 3 if self.players >= self.c + 2 else None

    @property
    def parity_winner(self) -> int:
        """Miller, Sosis and Ye's law for large n: Player 1 wins for even c, Player 2 for odd c."""
        return 1 if self.c % 2 == 0 else 2


# -- the data: per game, runs of n with the same value -------------------------------------
Run = tuple[int, int, "int | None"]  # first n, last n, value (winner; or team mask)


@dataclass
class Data:
    winners: dict[str, list[Run]] = field(default_factory=dict)  # the generalized games
    teams: dict[str, list[Run]] = field(default_factory=dict)
    accelerated: list[Run] = field(default_factory=list)  # the accelerated game's winners
    # the Zeckendorf game, per n from 1: the 16 deterministic games' lengths by (player 1's
    # preference, player 2's), the shortest and longest game, and the side that loses under
    # perfect play with its chance to win when it best-responds to a random opponent
    deterministic: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    extremes: list[tuple[int, int]] = field(default_factory=list)
    best_response: list[tuple[int, float]] = field(default_factory=list)  # (loser, its chance to lose all the same)

    def restricted(self, top: int) -> Data:
        """The same data for n <= top."""
        def cut(runs: list[Run]) -> list[Run]:
            return [(lo, min(hi, top), v) for lo, hi, v in runs if lo <= top]

        return Data({g: cut(r) for g, r in self.winners.items()}, {g: cut(r) for g, r in self.teams.items()},
                    cut(self.accelerated), {k: v[:top] for k, v in self.deterministic.items()}, self.extremes[:top],
                    self.best_response[:top])


def runs_of(values: Iterable[tuple[int, int | None]]) -> list[Run]:
    """(n, value) pairs in ascending n, consecutive n, as runs of equal values."""
    out: list[list] = []
    for n, value in values:
        if out and out[-1][2] == value and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n, value])
    return [(lo, hi, v) for lo, hi, v in out]


def collect(db: str | Path, games: Iterable[str] | None = None) -> Data:
    """Every game of the findings built in `db`: its winners and (P players) teams per n."""
    from zeckdb import api

    data = Data()
    with api.open(db) as database:
        rows = database.sql("SELECT variant, n, winner, teams FROM builds WHERE n >= 1 ORDER BY variant, n",
                            max_rows=0).rows
    by_game: dict[str, list[tuple[int, int | None, int | None]]] = {}
    for variant, n, winner, teams in rows:
        by_game.setdefault(variant, []).append((n, winner, teams))
    for name, values in by_game.items():
        if name == "accelerated" and (games is None or name in games):
            data.accelerated = runs_of((n, w) for n, w, _ in values)
        try:
            game = Game.of(name)
        except ValueError:
            continue
        if (games is not None and name not in games) or (game.players == 2 and game.c == 1 and game.k == 2):
            continue
        data.winners[name] = runs_of((n, w) for n, w, _ in values)
        if game.players > 2:
            data.teams[name] = runs_of((n, t) for n, _, t in values)
    if games is None or "zeckendorf" in games:
        collect_profiles(db, data)
    return data


def collect_profiles(db: str | Path, data: Data) -> None:
    """The Zeckendorf game's strategy-profile data, from n = 1 to the first n not built in full."""
    from zeckdb import api

    with api.open(db) as database:
        built = set(database.built().get("zeckendorf", ([], []))[0])
        top = next(n for n in range(1, max(built, default=0) + 2) if n not in built) - 1
        if top < 1:
            return
        ns = list(range(1, top + 1))
        for _, p1, p2, length, _ in database.query("deterministic", n=ns, timeout=3600, max_rows=0).rows:
            data.deterministic.setdefault((p1, p2), []).append(length)
        rows = database.sql("SELECT b.n, b.winner, b.min_length, b.max_length, r.p1_wins_p1_perfect, "
                            "r.p1_wins_p2_perfect FROM builds b JOIN random_play r USING (variant, n) "
                            f"WHERE variant = 'zeckendorf' AND b.n BETWEEN 1 AND {top} ORDER BY b.n",
                            timeout=3600, max_rows=0).rows
    for _, winner, shortest, longest, first_best, second_best in rows:
        data.extremes.append((shortest, longest))
        loser = 3 - winner
        chance = first_best if loser == 1 else 1.0 - second_best
        data.best_response.append((loser, float(f"{1.0 - chance:.4e}")))


# -- the data section: runs as text, and back ------------------------------------------------
def runs_text(runs: list[Run], hexadecimal: bool = False) -> str:
    def value(v: int | None) -> str:
        return "-" if v is None else (f"{v:x}" if hexadecimal else str(v))

    return " ".join(f"{lo}{'' if lo == hi else f'..{hi}'}:{value(v)}" for lo, hi, v in runs)


def parse_runs(text: str, hexadecimal: bool = False) -> list[Run]:
    out = []
    for part in text.split():
        span, value = part.split(":")
        lo, _, hi = span.partition("..")
        out.append((int(lo), int(hi or lo), None if value == "-" else int(value, 16 if hexadecimal else 10)))
    return out


def data_section(data: Data) -> str:
    lines = ["Per game, the runs of n with the same winner (`-`: no player can force a win), and for",
             "the games of P players the runs of the same teams mask (hexadecimal, `builds.teams`: bit t",
             "set when the team of the players whose bits t holds can force a win).", "", "```"]
    for name in sorted(data.winners, key=_order):
        lines.append(f"{name} winners {runs_text(data.winners[name])}")
        if name in data.teams:
            lines.append(f"{name} teams {runs_text(data.teams[name], hexadecimal=True)}")
    if data.accelerated:
        lines.append(f"accelerated winners {runs_text(data.accelerated)}")
    for (p1, p2), lengths in sorted(data.deterministic.items()):
        lines.append(f"zeckendorf deterministic {p1}/{p2} {' '.join(map(str, lengths))}")
    if data.extremes:
        lines.append(f"zeckendorf extremes {' '.join(f'{a}:{b}' for a, b in data.extremes)}")
        lines.append(f"zeckendorf best-response {' '.join(f'{s}:{q:.4e}' for s, q in data.best_response)}")
    return "\n".join([*lines, "```"])


def parse_data(doc: str) -> Data:
    block = section(doc, "data")
    data = Data()
    for line in block[block.index("```") + 3: block.rindex("```")].strip().splitlines():
        name, kind, rest = line.split(" ", 2)
        if kind == "deterministic":
            pair, _, lengths = rest.partition(" ")
            p1, p2 = pair.split("/")
            data.deterministic[p1, p2] = [int(x) for x in lengths.split()]
            continue
        if kind == "extremes":
            data.extremes = [(int(a), int(b)) for a, b in (x.split(":") for x in rest.split())]
            continue
        if kind == "best-response":
            data.best_response = [(int(a), float(b)) for a, b in (x.split(":") for x in rest.split())]
            continue
        if name == "accelerated":
            data.accelerated = parse_runs(rest)
            continue
        (data.winners if kind == "winners" else data.teams)[name] = parse_runs(rest, hexadecimal=kind == "teams")
    return data


def _order(name: str) -> tuple:
    g = Game.of(name)
    return (g.players > 2, g.name.startswith("zeckendorf") is False, g.reversed, g.c, g.k, g.players)


# -- the tables, computed from the data ------------------------------------------------------
def two_player_table(data: Data) -> str:
    """The (c,k)-nacci games: where the winner settles, against Miller, Sosis and Ye's parity law."""
    rows = ["| game | n | winner at the largest n | the same from n = | changes | parity law (Player "
            "1 for even c, 2 for odd c) |", "|---|---|---|---|---|---|"]
    for name in sorted((g for g in data.winners if Game.of(g).players == 2 and not Game.of(g).reversed), key=_order):
        runs, game = data.winners[name], Game.of(name)
        lo, top, winner = runs[-1]
        law = f"holds from n = {lo}" if winner == game.parity_winner else "not at the largest n"
        rows.append(f"| `{name}` | 1..{top} | Player {winner} | {lo} | {len(runs) - 1} | {law} |")
    return "\n".join(rows)


def share(runs: list[Run], lo: int, hi: int) -> float:
    """The fraction of n in lo..hi that Player 1 wins."""
    won = sum(max(0, min(b, hi) - max(a, lo) + 1) for a, b, v in runs if v == 1)
    return won / (hi - lo + 1)


def reversed_table(data: Data) -> str:
    """The reversed games: how often the winner changes, and Player 1's share of the n."""
    rows = ["| game | n | winner changes | Player 1 wins, of every n | of the last 100 n | the longest run "
            "of one winner (n) |", "|---|---|---|---|---|---|"]
    for name in sorted((g for g in data.winners if Game.of(g).reversed), key=_order):
        runs = data.winners[name]
        top = runs[-1][1]
        a, b, v = max(runs, key=lambda r: (r[1] - r[0], -r[0]))
        rows.append(f"| `{name}` | 1..{top} | {len(runs) - 1} | {share(runs, 1, top):.3f} | "
                    f"{share(runs, top - 99, top):.2f} | {a}..{b} (Player {v}) |")
    return "\n".join(rows)


def threshold_cell(runs: list[Run]) -> str:
    lo, top, winner = runs[-1]
    if winner is None:
        return str(lo) if len(runs) > 1 else "1"
    return f"not by {top}"


def thresholds_table(data: Data) -> str:
    games = sorted({name.rsplit("-p", 1)[0] for name in data.winners if Game.of(name).players > 2},
                   key=lambda base: _order(base))
    rows = ["| game | n | " + " | ".join(f"P = {p}" for p in PLAYERS) + " | 3c^2 + 6c + 3 (P >= c + 2) |",
            "|---|---|" + "---|" * len(PLAYERS) + "---|"]
    for base in games:
        members = [f"{base}-p{p}" for p in PLAYERS]
        cells = [threshold_cell(data.winners[m]) if m in data.winners else "" for m in members]
        top = max(data.winners[m][-1][1] for m in members if m in data.winners)
        game = Game.of(members[0])
        rows.append(f"| `{base}` | 1..{top} | " + " | ".join(cells) +
                    f" | {3 * game.c ** 2 + 6 * game.c + 3} (P >= {game.c + 2}) |")
    return "\n".join(rows)


def bound_checks(data: Data) -> str:
    """Where the bound applies: does every n from it on have nobody forcing?"""
    held, broken = [], []
    for name, runs in sorted(data.winners.items(), key=lambda kv: _order(kv[0])):
        game = Game.of(name)
        if game.players == 2 or game.bound is None:
            continue
        forcing = [(lo, hi) for lo, hi, v in runs if v is not None and hi >= game.bound]
        (broken if forcing else held).append(name)
    text = f"Where the bound applies ({len(held) + len(broken)} games), no player forces a win at any n from it up " \
           f"to the largest n built in {len(held)} of them"
    return text + (f"; it fails in {', '.join(f'`{b}`' for b in broken)}." if broken else ".")


def windows_table(data: Data) -> str:
    """The games of P players in which some player still forces a win at the largest n: the n
    where some player does, as runs, and the gaps between their starts."""
    rows = ["| game | n where a player forces a win (player), the last 8 windows | starts differ by |",
            "|---|---|---|"]
    for name, runs in sorted(data.winners.items(), key=lambda kv: _order(kv[0])):
        if Game.of(name).players == 2 or runs[-1][2] is None:
            continue
        windows = [(lo, hi, v) for lo, hi, v in runs if v is not None]
        starts = [lo for lo, _, _ in windows]
        gaps = sorted({b - a for a, b in zip(starts[-8:], starts[-7:], strict=False)})
        shown = ", ".join(f"{lo}{'' if lo == hi else f'..{hi}'} ({v})" for lo, hi, v in windows[-8:])
        rows.append(f"| `{name}` | {shown} | {', '.join(map(str, gaps)) or '-'} |")
    return "\n".join(rows) if len(rows) > 2 else "Every game of P players has a threshold: none is left."


def minimal_teams(mask: int, players: int) -> list[list[int]]:
    """The winning teams none of whose proper subteams wins (non-empty, not every player)."""
    wins = [t for t in range(1, (1 << players) - 1) if mask >> t & 1]
    least = [t for t in wins if not any(s != t and s & t == s for s in wins)]
    return [[p + 1 for p in range(players) if t >> p & 1] for t in sorted(least, key=lambda t: (bin(t).count("1"), t))]


def teams_table(data: Data) -> str:
    rows = ["| game | teams at the largest n, the same from n = | the least winning teams (every team holding "
            "one wins) | every team of s players wins from s = |", "|---|---|---|---|"]
    for name, runs in sorted(data.teams.items(), key=lambda kv: _order(kv[0])):
        players = Game.of(name).players
        lo, top, mask = runs[-1]
        if mask is None:
            rows.append(f"| `{name}` | {lo}..{top}: not stored | | |")
            continue
        least = minimal_teams(mask, players)
        # winning teams are closed upward (a team's strategy wins for any team holding it)
        every = next((s for s in range(1, players)
                      if all(mask >> t & 1 for t in range(1, (1 << players) - 1) if bin(t).count("1") == s)), None)
        shown = " ".join("{" + ",".join(map(str, t)) + "}" for t in least)
        rows.append(f"| `{name}` | {lo} | {shown} | {'-' if every is None else every} |")
    return "\n".join(rows)


def accelerated_text(data: Data) -> str:
    """Who wins the accelerated game: the n Player 2 wins, and from where Player 1 wins every n."""
    runs = data.accelerated
    if not runs:
        return "Not built: `python bench/findings.py build --only accelerated`."
    top = runs[-1][1]
    second = [n for lo, hi, v in runs if v == 2 for n in range(lo, hi + 1)]
    lo, _, last = runs[-1]
    settled = f"Player {last} wins every n from {lo} to {top}"
    return (f"Built to n = {top} (summary mode). Player 2 wins n = {', '.join(map(str, second)) or 'none'}; "
            f"{settled}: as far as it is built, the winner settles at n = {lo}.")


def spans(ns: list[int]) -> str:
    """1, 2, 3, 5 as 1..3, 5."""
    runs = runs_of((n, 0) for n in ns)
    return ", ".join(f"{lo}" if lo == hi else f"{lo}..{hi}" for lo, hi, _ in runs) or "none"


def deterministic_text(data: Data) -> str:
    """The 16 deterministic games: the published claims checked, the growth, and every length."""
    games = data.deterministic
    if not games:
        return "Not built: `python bench/findings.py build --only 'zeckendorf, in full'`."
    top = len(data.extremes)
    shortest = [a for a, _ in data.extremes]
    longest = [b for _, b in data.extremes]
    ns = range(1, top + 1)

    def where(pair: tuple[str, str], target: list[int], equal: bool = True) -> list[int]:
        return [n for n in ns if (games[pair][n - 1] == target[n - 1]) == equal]

    cl, sl, ss = ("combine-largest",) * 2, ("split-largest",) * 2, ("split-smallest",) * 2

    def claim(text: str, pair: tuple[str, str], target: list[int]) -> str:
        missed = where(pair, target, False)
        if not missed:
            return f"- {text} at every n = 1..{top}."
        short = [target[n - 1] - games[pair][n - 1] for n in missed]
        return (f"- {text} at n = {spans(where(pair, target))}; not at n = {spans(missed)} (off by "
                f"{min(short)} to {max(short)} moves).")

    a, b = top // 3, 2 * top // 3
    slopes = {pair: ((lengths[b - 1] - lengths[a - 1]) / (b - a), (lengths[top - 1] - lengths[b - 1]) / (top - b))
              for pair, lengths in games.items()}
    rising = [pair for pair, (early, late) in slopes.items() if late - early > 0.05]
    lines = [
        f"Built in full to n = {top}. Checked against the shortest and longest games the build stores:",
        "",
        claim("combine-largest against itself plays the shortest game, n - Z(n),", cl, shortest),
        claim("split-largest against itself plays the shortest game", sl, shortest),
        claim("split-smallest against itself plays the longest game", ss, longest),
        "",
        f"Growth: each game's length at n = {top}, its ratio to n, and its slope (moves per unit of n) over "
        f"n = {a}..{b} and {b}..{top}. A game growing linearly keeps its slope; "
        + (f"{len(rising)} of the 16 games' slopes still rise by more than 0.05 between the two windows "
           f"({', '.join(f'{SHORT[p]}/{SHORT[q]}' for p, q in sorted(rising))}), so linear growth is not "
           f"settled for them by n = {top}." if rising else f"every slope holds to within 0.05 by n = {top}."),
        "",
        f"| Player 1 | Player 2 | length at n = {top} | length / n | slope {a}..{b} | slope {b}..{top} | "
        f"winner at n = {top} |",
        "|---|---|---|---|---|---|---|",
    ]
    for p1 in PREFERENCES:
        for p2 in PREFERENCES:
            lengths = games[p1, p2]
            early, late = slopes[p1, p2]
            lines.append(f"| {p1} | {p2} | {lengths[top - 1]} | {lengths[top - 1] / top:.3f} | {early:.3f} | "
                         f"{late:.3f} | Player {1 if lengths[top - 1] % 2 else 2} |")
    pairs = [(a, b) for a in PREFERENCES for b in PREFERENCES]
    lines += ["", "<details><summary>Every length, n = 1.." + str(top) + " (columns: Player 1's preference / "
              "Player 2's, CL = combine-largest, CS = combine-smallest, SL = split-largest, SS = "
              "split-smallest)</summary>", "",
              "| n | shortest | longest | " + " | ".join(f"{SHORT[a]}/{SHORT[b]}" for a, b in pairs) + " |",
              "|---" * (3 + len(pairs)) + "|"]
    for n in ns:
        lines.append(f"| {n} | {shortest[n - 1]} | {longest[n - 1]} | "
                     + " | ".join(str(games[p][n - 1]) for p in pairs) + " |")
    return "\n".join([*lines, "", "</details>"])


def best_response_text(data: Data) -> str:
    """The side that loses under perfect play, best-responding to a random opponent: its chance."""
    rows = data.best_response
    if not rows:
        return "Not built: `python bench/findings.py build --only 'zeckendorf, in full'`."
    top = len(rows)

    def cell(loser: int, q: float) -> str:  # q: the chance that it loses all the same
        if q >= 1e-4:
            return f"P{loser}: {1 - q:.4f}"
        return f"P{loser}: 1 - {q:.1e}" if q >= 1e-12 else f"P{loser}: > 1 - 1e-12"

    lines = ["| n | " + " | ".join(f"+{k}" for k in range(10)) + " |", "|---" * 11 + "|"]
    for base in range(0, top, 10):
        cells = [cell(s, q) for s, q in rows[base: base + 10]]
        lines.append(f"| {base + 1}.. | " + " | ".join(cells + [""] * (10 - len(cells))) + " |")
    certain = [n for n, (_, q) in enumerate(rows, 1) if q == 1]
    sure = next((n for n in range(1, top + 1) if all(q < 1e-3 for _, q in rows[n - 1:])), None)
    lines += ["", f"The losing side has no chance at n = {spans(certain)} (it has no move, or only losing "
              f"ones whatever the opponent does); from n = {sure} on it wins with probability above 0.999 "
              "against a random opponent. A chance to lose below 1e-12 is shown as `> 1 - 1e-12`: the stored "
              "odds are float64 values near 1, which hold no finer difference."]
    return "\n".join(lines)


SECTIONS = {"two-player": two_player_table, "reversed": reversed_table, "thresholds": thresholds_table, "bounds": bound_checks,
            "windows": windows_table, "teams": teams_table, "accelerated": accelerated_text,
            "deterministic": deterministic_text, "best-response": best_response_text, "data": data_section}


def sections(data: Data) -> dict[str, str]:
    return {name: make(data) for name, make in SECTIONS.items()}


def section(doc: str, name: str) -> str:
    begin, end = f"<!-- findings:{name} -->", f"<!-- /findings:{name} -->"
    return doc[doc.index(begin) + len(begin): doc.index(end)].strip("\n")


def rewrite(doc: str, new: dict[str, str]) -> str:
    for name, text in new.items():
        begin, end = f"<!-- findings:{name} -->", f"<!-- /findings:{name} -->"
        doc = doc[: doc.index(begin) + len(begin)] + "\n" + text + "\n" + doc[doc.index(end):]
    return doc


# -- the commands ----------------------------------------------------------------------------
def build_family(db: str, family: str) -> None:
    """One family's layers (summary mode, but for FULL_FAMILIES), then this process's peak memory
    (the family's) on the last line."""
    from zeckdb import api

    by_top: dict[int, list[str]] = {}
    for name, top in {**FAMILIES, **FULL_FAMILIES}[family]:
        by_top.setdefault(top, []).append(name)
    for top, names in sorted(by_top.items()):
        if family in FULL_FAMILIES:
            api.build(db, names, f"1..{top}")
        else:
            api.build(db, names, f"1..{top}", summary_only=True, lean=True)
    print(f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30:.3f}")


def build(db: str, only: list[str] | None) -> None:
    print("| family | games | largest n | seconds | peak memory |\n|---|---|---|---|---|", flush=True)
    total = 0.0
    for family, members in {**FAMILIES, **FULL_FAMILIES}.items():
        if only and family not in only:
            continue
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "build-family", family, "--db", db], check=True,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        total += seconds
        peak = float(done.stdout.split()[-1])
        tops = sorted({top for _, top in members})
        print(f"| {family} | {len(members)} | {', '.join(map(str, tops))} | {seconds:.1f} | {peak:.2f} GiB |",
              flush=True)
    print(f"\nall families: {total:.1f} s ({total / 60:.1f} min; target 30 min, ratio {total / 1800:.2f})")


def write(db: str) -> None:
    data = collect(db)
    doc = DOC.read_text()
    DOC.write_text(rewrite(doc, sections(data)))
    print(f"rewrote {len(SECTIONS)} sections of {DOC.relative_to(ROOT)} from {db} "
          f"({len(data.winners)} games, n up to {max(r[-1][1] for r in data.winners.values())})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "write", "build-family"])
    parser.add_argument("family", nargs="?", help="build-family: which one (internal)")
    parser.add_argument("--db", default="findings.duckdb")
    parser.add_argument("--only", action="append", help="build: only this family (repeatable)")
    args = parser.parse_args()
    if args.command == "build":
        build(args.db, args.only)
    elif args.command == "build-family":
        build_family(args.db, args.family)
    else:
        write(args.db)


if __name__ == "__main__":
    main()
