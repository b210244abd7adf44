"""Games as plugins: docs/adding-a-game.md's example, installed as a package of its own (a
module and its dist-info with an entry point in the group `zeckdb.games`, on the path of a
fresh process), is listed, built, looked up and verified with no edit to zeckdb, and passes
the conformance checks that every registered game gets."""

from __future__ import annotations

import json
import os
from pathlib import Path
import re
import subprocess
import sys
import time

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "adding-a-game.md"


def doc_blocks(language: str) -> list[str]:
    text = DOC.read_text()
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    """The example installed as a plugin: its module and a dist-info naming its entry point."""
    site = tmp_path_factory.mktemp("site")
    (site / "zeckdb_subtraction.py").write_text(doc_blocks("python")[0])
    info = site / "zeckdb_subtraction-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zeckdb-subtraction\nVersion: 1.0\n")
    toml = doc_blocks("toml")[0]
    name, target = re.search(r'^(\w+) = "([\w.:]+)"', toml, re.MULTILINE).groups()
    (info / "entry_points.txt").write_text(f"[zeckdb.games]\n{name} = {target}\n")
    return site


def zeckdb(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "zeckdb.cli.main", *args], capture_output=True, text=True,
                          env=env, timeout=600)


def install(site: Path, module: str, text: str, entry: str) -> None:
    """A plugin package in `site`: its module and a dist-info naming its entry point."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(text)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[zeckdb.games]\n{entry}\n")


def test_a_plugin_game_is_built_looked_up_and_verified(plugin, tmp_path):
    db = str(tmp_path / "p.duckdb")
    listed = zeckdb(plugin, "variants", "-f", "json")
    assert listed.returncode == 0 and "subtraction" in [g["variant"] for g in json.loads(listed.stdout)]
    built = zeckdb(plugin, "build", "--variant", "subtraction", "--n", "0..40", "--db", db)  # from the empty pile
    assert built.returncode == 0, built.stderr
    for n in (0, 1, 4, 7, 40):  # the player to move loses exactly on multiples of 4 (a plain fact of S(1,2,3))
        shown = zeckdb(plugin, "position", "subtraction", "--start", str(n), "--json", "--db", db)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["outcome"] == ("loss" if n % 4 == 0 else "win"), n
    winners = zeckdb(plugin, "query", "winners", "--variant", "subtraction", "-f", "csv", "--db", db)
    rows = [line.split(",") for line in winners.stdout.splitlines()[1:]]
    assert [(int(r[1]), int(r[2])) for r in rows] == [(n, 2 if n % 4 == 0 else 1) for n in range(1, 41)]  # n = 0 is no game
    verified = zeckdb(plugin, "verify", "--db", db)
    assert verified.returncode == 0 and "every check passed" in verified.stdout, verified.stderr


def test_the_plugin_passes_the_conformance_checks(plugin):
    out = subprocess.run([sys.executable, "-c", "from zeckdb.testing import conformance; "
                          "from zeckdb_subtraction import Subtraction; conformance(Subtraction(), ns=(0, 1, 4, 9)); "
                          "print('conforms')"], capture_output=True, text=True, env={**os.environ,
                                                                                      "PYTHONPATH": str(plugin)},
                         timeout=300)
    assert out.stdout.strip() == "conforms", out.stderr


def test_a_plugin_cannot_take_a_name_of_zeckdbs_own(plugin, tmp_path):
    """Nor of a twin: a plugin's normal-play game named zeckendorf-misere, built past a file's
    twin layers, made every earlier layer read under normal play."""
    info = plugin / "zeckdb_subtraction-1.0.dist-info" / "entry_points.txt"
    original = info.read_text()
    taken = ["zeckendorf", "zeckendorf-misere", "black-hole-7-misere", "subtraction-misere"]
    info.write_text(original + "".join(f"{name} = zeckdb_subtraction:Subtraction\n" for name in taken))
    try:
        db = str(tmp_path / "twin.duckdb")
        shown = zeckdb(plugin, "variants", "zeckendorf", "-f", "json")
        assert shown.returncode == 0 and json.loads(shown.stdout)[0]["game"] == "The Zeckendorf game"
        built = zeckdb(plugin, "build", "--variant", "zeckendorf-misere", "--variant", "subtraction-misere",
                       "--n", "1..5", "--db", db)
        assert built.returncode == 0, built.stderr
        rows = zeckdb(plugin, "sql", "SELECT variant, convention, graph FROM variants ORDER BY ALL", "-f", "csv",
                      "--db", db)
        assert rows.stdout.splitlines()[1:] == ["subtraction-misere,misere,subtraction",
                                                "zeckendorf-misere,misere,zeckendorf"]
    finally:
        info.write_text(original)


def test_the_capability_check_names_what_a_game_lacks():
    """Solving, the lookups and summary mode each need their members (engine.contract's
    protocols): a game without them, or one claiming summary mode without a pass, is named."""
    import dataclasses

    from zeckdb.testing import check_capabilities
    from zeckdb.variants import get_variant

    zeckendorf = get_variant("zeckendorf")
    check_capabilities(zeckendorf)  # the real game has them all

    class Claims(type(zeckendorf)):  # type: ignore[misc]
        @property
        def summary_refusal(self):
            return None

        has_summary_walk = False

    with pytest.raises(AssertionError, match="no summary walk"):
        check_capabilities(Claims())

    @dataclasses.dataclass
    class Half:  # looks like a game to the lookups, but cannot be solved
        name: str = "half"
        players: int = 2
        summary_refusal: str = "none"

        def parse(self, text): ...
        def format(self, position): ...
        def layer_of(self, position): ...
        def play_moves(self, position): ...

    with pytest.raises(AssertionError, match="not solvable"):
        check_capabilities(Half())  # type: ignore[arg-type]


def test_a_game_is_held_to_the_count_it_gives_and_not_to_the_default_guess():
    """estimate_positions is optional: without it the default (n) is a guess the conformance
    checks do not hold a game to; a game that gives its own count must give the exact one."""
    from zeckdb.engine.contract import Variant
    from zeckdb.testing import check_ids_and_keys
    from zeckdb.variants import get_variant

    zeckendorf = get_variant("zeckendorf")
    assert zeckendorf.counts_positions
    check_ids_and_keys(zeckendorf, 12)

    class Guesses(type(zeckendorf)):  # type: ignore[misc]
        estimate_positions = Variant.estimate_positions

    guesses = Guesses()
    assert not guesses.counts_positions and guesses.estimate_positions(12) == 12
    check_ids_and_keys(guesses, 12)

    class Miscounts(type(zeckendorf)):  # type: ignore[misc]
        def estimate_positions(self, n):
            return n

    with pytest.raises(AssertionError, match=r"zeckendorf, 12, \d+ keys, but estimate_positions says 12$"):
        check_ids_and_keys(Miscounts(), 12)


def test_the_conformance_kit_checks_under_python_O(tmp_path):
    """A plugin author's suite run with `python -O` (which strips assert statements) still fails
    a game that breaks the contract: two moves sharing a name."""
    import subprocess
    import sys

    script = tmp_path / "check.py"
    script.write_text(
        "from zeckdb.testing import ConformanceError, check_move_names\n"
        "from zeckdb.variants import get_variant\n"
        "zeckendorf = get_variant('zeckendorf')\n"
        "class Twice(type(zeckendorf)):\n"
        "    move_names = ('split', 'split')\n"
        "check_move_names(zeckendorf)\n"
        "try:\n"
        "    check_move_names(Twice())\n"
        "except ConformanceError as e:\n"
        "    print('refused:', e)\n"
        "else:\n"
        "    print('passed')\n")
    done = subprocess.run([sys.executable, "-O", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused: zeckendorf, two moves share a name"


FAULTY = {  # a plugin module's text -> what loading its game says
    "raise ImportError('no such thing')": "failed to load: no such thing",
    "raise ValueError('not a zeckdb error')": "failed to load: not a zeckdb error",
    "import sys\nsys.exit(0)": "called sys.exit() while it loaded",
    "import os\nos._exit(0)": "ended its process while it loaded (exit status 0)",
    "def Broken():\n    return 42": "gives a int, not a Variant",
    "import time\ntime.sleep(3600)": "did not load within 3 s (plugin_load_seconds)",
    # writes on the pipe its probe reports on (its descriptor is on the probe's command line)
    "import os, sys\nos.write(int(sys.argv[2]), b'not json')": "garbled its probe's report while it loaded",
}
LOAD_SECONDS = "3"  # the faulty plugins' deadline (ZECKDB_PLUGIN_LOAD_SECONDS), short for the test
SERVED_LOAD_SECONDS = "15"  # the same, where a working plugin must load beside a hanging one


def test_faulty_plugins_never_take_other_commands_down(tmp_path, monkeypatch):
    """Plugins that fail to import, raise an error of their own, exit (sys.exit, os._exit), give
    the wrong type, never finish importing or garble their probe's report broke every command
    (the help was built from every plugin; summary mode and `zeckdb variants` loaded them all).
    All of them installed at once: only their own games are affected, and loading one, or
    listing the games, says what is wrong in one line naming it, within its deadline."""
    monkeypatch.setenv("ZECKDB_PLUGIN_LOAD_SECONDS", LOAD_SECONDS)
    site = tmp_path / "site"
    says = {}
    for i, (text, said) in enumerate(FAULTY.items(), 1):
        install(site, f"zeckdb_faulty_{i}", text + "\n", f"faulty-{i} = zeckdb_faulty_{i}:Broken")
        says[f"faulty-{i}"] = f"the game plugin faulty-{i} (zeckdb_faulty_{i}:Broken) {said}"
    db = str(tmp_path / "f.duckdb")
    for args, shows in ((["--help"], "Usage: zeckdb"), (["build", "--help"], "Summary mode solves:"),
                        (["build", "--variant", "zeckendorf", "--n", "1..5", "--db", db], "built zeckendorf"),
                        (["build", "--summary-only", "--variant", "reversed", "--n", "6..7", "--db", db], "reversed"),
                        (["status", "--db", db], "zeckendorf"),
                        (["position", "zeckendorf", "--start", "5", "--db", db], "outcome")):
        done = zeckdb(site, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
        assert shows in done.stdout, (args, done.stdout[-300:])
    listed = zeckdb(site, "variants", "-f", "json")  # the others are listed (exit 0), each plugin named
    assert listed.returncode == 0 and "zeckendorf" in [g["variant"] for g in json.loads(listed.stdout)]
    assert sorted(listed.stderr.splitlines()) == sorted(f"zeckdb: left out: {line}" for line in says.values())
    for name, line in says.items():  # its own game fails (exit 1), in one line
        built = zeckdb(site, "build", "--variant", name, "--n", "3", "--db", db)
        assert built.returncode == 1 and "Traceback" not in built.stderr
        assert line in built.stderr, (name, built.stderr)


def test_a_plugin_printing_as_it_loads_leaves_the_commands_output_alone(tmp_path):
    """A plugin that prints at import broke `zeckdb variants -f json`: its prints go to
    standard error, the listing and the build's output stay what they are."""
    site = tmp_path / "site"
    install(site, "zeckdb_noisy", "print('hello from the noisy plugin')\n"
            "from zeckdb.variants.zeckendorf import Zeckendorf\n\n\n"
            "class Noisy(Zeckendorf):\n"
            "    name = 'noisy'\n"
            "    title = 'The Zeckendorf game, printing as it loads'\n", "noisy = zeckdb_noisy:Noisy")
    listed = zeckdb(site, "variants", "-f", "json")
    assert listed.returncode == 0, listed.stderr
    games = {g["variant"]: g for g in json.loads(listed.stdout)}  # no print in the JSON
    assert games["noisy"]["game"] == "The Zeckendorf game, printing as it loads" and games["noisy"]["full_n"] == "1..200"
    assert "hello from the noisy plugin" in listed.stderr
    db = str(tmp_path / "n.duckdb")
    built = zeckdb(site, "build", "--variant", "noisy", "--n", "1..7", "--db", db)
    assert built.returncode == 0 and "hello" not in built.stdout, built.stdout + built.stderr
    shown = zeckdb(site, "position", "noisy", "--start", "7", "--json", "--db", db)
    assert json.loads(shown.stdout)["outcome"] == "loss", shown.stdout  # Player 2 wins n = 7 (docs/games.md)


def test_a_plugin_with_a_name_that_is_no_game_name_or_absurd_limits_is_refused(tmp_path):
    from zeckdb.engine.contract import ContractError, check_contract
    from zeckdb.variants import get_variant

    zeckendorf = get_variant("zeckendorf")

    class Far(type(zeckendorf)):  # type: ignore[misc]
        max_n = 10**9

    class Escaping(type(zeckendorf)):  # type: ignore[misc]
        name = "../../x"

    with pytest.raises(ContractError, match="declares n up to 1,000,000,000"):
        check_contract(Far())
    with pytest.raises(ContractError, match="its name '../../x' is not a game name"):
        check_contract(Escaping())

    class Negative(type(zeckendorf)):  # type: ignore[misc]
        column_weights = (1, -2, 3, 5, 8, 13, 21, 34, 55, 89, 144)

    class Unbounded(type(zeckendorf)):  # type: ignore[misc]
        column_weights = (1, 0, 3, 5, 8, 13, 21, 34, 55, 89, 144)  # layers_are_partitions, as the game says

    with pytest.raises(ContractError, match="its column weights are not whole numbers of 0 or more"):
        check_contract(Negative())
    with pytest.raises(ContractError, match="layers_are_partitions with a column of weight 0"):
        check_contract(Unbounded())


def test_a_plugin_failing_while_it_builds_is_one_line_naming_it(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "zeckdb_brittle.py").write_text(
        "from zeckdb.variants.zeckendorf import Zeckendorf\n\n\n"
        "class Brittle(Zeckendorf):\n"
        "    name = 'brittle'\n\n"
        "    def layer_keys(self, n):\n"
        "        if n >= 4:\n"
        "            raise RuntimeError(f'no keys for n = {n}')\n"
        "        return super().layer_keys(n)\n")
    info = site / "zeckdb_brittle-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zeckdb-brittle\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[zeckdb.games]\nbrittle = zeckdb_brittle:Brittle\n")
    db = str(tmp_path / "b.duckdb")
    done = zeckdb(site, "build", "--variant", "brittle", "--n", "1..6", "--db", db)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert ("zeckdb: error: the game plugin brittle failed while building n = 4: RuntimeError: no keys for n = 4"
            in done.stderr), done.stderr
    status = zeckdb(site, "status", "--db", db)  # what it finished is kept
    assert status.returncode == 0 and "brittle" in status.stdout
    # two plugins solved in one layer, the failing one first or last: the message names it, never the other
    (site / "zeckdb_sturdy.py").write_text("from zeckdb.variants.zeckendorf import Zeckendorf\n\n\n"
                                           "class Sturdy(Zeckendorf):\n    name = 'sturdy'\n")
    (info / "entry_points.txt").write_text("[zeckdb.games]\nbrittle = zeckdb_brittle:Brittle\n"
                                           "sturdy = zeckdb_sturdy:Sturdy\n")
    for order in (["sturdy", "brittle"], ["brittle", "sturdy"]):
        done = zeckdb(site, "build", *[a for name in order for a in ("--variant", name)], "--n", "1..6", "--force",
                      "--db", str(tmp_path / f"{order[0]}.duckdb"))
        errors = [line for line in done.stderr.splitlines() if line.startswith("zeckdb: error:")]  # (and progress lines)
        assert done.returncode == 1 and len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
        assert "the game plugin brittle failed while building n = 4" in errors[0] and "sturdy" not in errors[0]


CARRY_GAME = '''"""A binary carry game: chips on bins worth 1, 2, 4, ..., 128; a move carries two chips of
one bin into one chip of the next. Its columns are named after the bins' values."""

import itertools

import numpy as np

from zeckdb.engine.contract import Position, Variant

BINS = 8


def binary_partitions(n):
    """Every count vector of n into 1, 2, 4, ..., 128, sorted by key."""
    def rest(total, k):
        if k == 0:
            yield (total,)
            return
        for c in range(total // 2 ** k + 1):
            for tail in rest(total - c * 2 ** k, k - 1):
                yield tail + (c,)
    return sorted(rest(n, BINS - 1), key=key)


def key(counts):
    return sum(c << (8 * k) for k, c in enumerate(counts))


class Carry(Variant):
    name = "carry"
    title = "A binary carry game: two chips of a bin make one of the next"
    source = "the plugin test of zeckdb"
    max_n = 60
    columns = [f"c{2 ** k}" for k in range(BINS)]  # c1, c2, c4, ..., c128: not c1..c8
    column_weights = tuple(2 ** k for k in range(BINS))
    layers_are_partitions = True
    move_names = [f"carry {2 ** k}" for k in range(BINS - 1)]

    def start(self, n):
        return (n,)

    def layer_of(self, position):
        n = sum(c << k for k, c in enumerate(position))
        self.check_n(n)
        return n

    def id_of(self, position):
        counts = tuple(position) + (0,) * (BINS - len(position))
        return int(np.searchsorted(self.layer_keys(self.layer_of(position)), key(counts)))

    def key_of(self, position):
        return key(tuple(position) + (0,) * (BINS - len(position)))

    def estimate_positions(self, n):
        return len(binary_partitions(n))

    def layer_keys(self, n):
        return np.array([key(p) for p in binary_partitions(n)], dtype=np.int64)

    def decode(self, keys):
        keys = np.asarray(keys, dtype=np.int64)
        return np.stack([(keys >> (8 * k)) & 255 for k in range(BINS)], axis=1)

    def graph_edges(self, n, keys):
        src, dst, code = [], [], []
        for i, counts in enumerate(self.decode(keys)):
            for k in range(BINS - 1):
                if counts[k] >= 2:
                    child = counts.copy()
                    child[k] -= 2
                    child[k + 1] += 1
                    src.append(i)
                    dst.append(key(child))
                    code.append(k)
        return (np.array(src, dtype=np.int32), np.array(dst, dtype=np.int64), np.array(code, dtype=np.int16))
'''


@pytest.fixture(scope="module")
def carry(tmp_path_factory) -> Path:
    """The carry game installed as a plugin."""
    site = tmp_path_factory.mktemp("carry")
    (site / "zeckdb_carry.py").write_text(CARRY_GAME)
    info = site / "zeckdb_carry-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zeckdb-carry\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[zeckdb.games]\ncarry = zeckdb_carry:Carry\n")
    return site


def test_a_game_with_its_own_weights_and_column_names_builds_and_verifies(carry, tmp_path):
    """Layers that are partitions into 1, 2, 4, ... (not Fibonacci numbers), columns named
    c1, c2, c4, ...: built, verified and looked up; and the database's other games are still
    verified once the plugin is gone, the carry game named as not checked."""
    db = str(tmp_path / "c.duckdb")
    built = zeckdb(carry, "build", "--variant", "carry", "--variant", "zeckendorf", "--n", "1..20", "--db", db)
    assert built.returncode == 0, built.stderr
    verified = zeckdb(carry, "verify", "--db", db)
    assert verified.returncode == 0 and "every check passed" in verified.stdout, verified.stdout + verified.stderr
    for n in (1, 6, 7, 20):  # every game carries until n is written in binary: n - popcount(n) moves, whoever plays
        shown = zeckdb(carry, "position", "carry", "--start", str(n), "--json", "--db", db)
        info = json.loads(shown.stdout)
        moves = n - bin(n).count("1")
        assert (info["min_remaining"], info["max_remaining"]) == (moves, moves), n
        assert info["outcome"] == ("win" if moves % 2 else "loss"), n
    sizes = zeckdb(carry, "sql", "SELECT n, positions FROM builds WHERE variant = 'carry' ORDER BY n", "-f", "csv",
                   "--db", db)
    binary_partitions = [1, 2, 2, 4, 4, 6, 6, 10, 10, 14]  # OEIS A018819, n = 1..10
    assert [int(line.split(",")[1]) for line in sizes.stdout.splitlines()[1:11]] == binary_partitions

    gone = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "verify", "--db", db], capture_output=True,
                          text=True, timeout=600)  # the plugin is not on this process's path
    assert gone.returncode == 0 and "every check passed (but carry)" in gone.stdout, gone.stdout + gone.stderr
    assert "not checked: carry, whose game is not installed here" in gone.stderr
    assert "verified 20 layers" in gone.stdout  # zeckendorf's, checked


def test_the_carry_game_passes_the_conformance_checks_and_a_false_partition_claim_does_not(carry):
    script = ("from zeckdb.testing import conformance; from zeckdb_carry import Carry; "
              "conformance(Carry(), ns=(1, 2, 5, 12)); print('conforms'); "
              "Fewer = type('Fewer', (Carry,), {'name': 'fewer', 'layer_keys': lambda self, n: Carry.layer_keys(self, "
              "n)[:-1] if n == 5 else Carry.layer_keys(self, n), 'estimate_positions': lambda self, n: "
              "len(self.layer_keys(n))}); "  # one partition of 5 left out, and counted so
              "conformance(Fewer(), ns=(5,))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(carry)}, timeout=300)
    assert out.stdout.strip() == "conforms", out.stderr
    assert "layers_are_partitions, but layer 5 holds 3 positions and n has 4 partitions" in out.stderr


def test_a_hanging_plugin_never_holds_the_services_requests(tmp_path):
    """45 requests to /v1/variants with a plugin hanging at import used up the service's
    threads: lookups and /healthz timed out and SIGTERM did not stop it. Now no plugin runs in
    the service's process: every request is answered at once, a working plugin's game is served
    by a plugin worker, the hanging one's gets a 503 naming it, and SIGTERM stops the server."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.http import get, serving

    site = tmp_path / "site"
    install(site, "zeckdb_hangs", "import time\ntime.sleep(3600)\n", "hangs = zeckdb_hangs:Game")
    install(site, "zeckdb_works", "from zeckdb.variants.zeckendorf import Zeckendorf\n\n\nclass Works(Zeckendorf):\n"
            "    name = 'works'\n", "works = zeckdb_works:Works")
    db = tmp_path / "s.duckdb"
    # the working plugin's probe imports zeckdb in a child: on a busy machine that takes seconds
    env = {"PYTHONPATH": str(site), "ZECKDB_PLUGIN_LOAD_SECONDS": SERVED_LOAD_SECONDS}
    built = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "works", "--variant",
                            "zeckendorf", "--n", "1..8", "--db", str(db)], capture_output=True, text=True,
                           env={**os.environ, **env}, timeout=600)
    assert built.returncode == 0, built.stderr
    with serving(db, env=env) as base:
        paths = ["/v1/variants"] * 45 + ["/healthz", "/v1/zeckendorf/starts/7"] * 5  # under the cap of 64 an address
        with ThreadPoolExecutor(len(paths)) as pool:
            answers = list(pool.map(lambda path: get(base + path), paths))
        assert [status for status, _, _ in answers] == [200] * len(paths)
        assert all(body["outcome"] == "loss" for (_, body, _), path in zip(answers, paths, strict=True)
                   if "starts" in path)
        # the hanging plugin's game is asked of a plugin worker, stopped at the lookup's limit: 503 naming it
        status, body, _ = get(base + "/v1/hangs/starts/5")
        assert status == 503 and body["error"].startswith("the game plugin hangs did not answer"), body
        for _ in range(600):  # until the plugin the database holds is probed (not the one it does not hold)
            listed = {game["variant"]: game for game in get(base + "/v1/variants")[1]}
            if "works" in listed:
                break
            time.sleep(0.1)
        assert "hangs" not in listed and listed["works"]["built"] == "1..8"
        status, body, _ = get(base + "/v1/works/starts/7")
        assert status == 200 and body["outcome"] == "loss", body


def test_a_plugin_failing_as_a_layer_is_written_stops_the_build_in_one_line(tmp_path):
    """A plugin's format() raising for one n runs as the writer makes that layer's rows: the
    build stops with one line naming the plugin, that layer is not committed, and neither is any
    layer whose games pass through it: every committed layer has every layer below it that its
    games reach (a chip reaching the hole, worth 3, leaves the board: n, n - 3, n - 6, ...).
    A layer its games never reach may be committed before it (16, while 11 was being analysed)."""
    site = tmp_path / "site"
    install(site, "zeckdb_fragile", "from zeckdb.variants.black_hole import BlackHole\n\n\n"
            "class Fragile(BlackHole):\n"
            "    def __init__(self):\n"
            "        super().__init__(3)\n"
            "        self.name = 'fragile'\n\n"
            "    def format(self, position):\n"
            "        if self.layer_of(position) == 11:\n"
            "            raise RuntimeError('no text for n = 11')\n"
            "        return super().format(position)\n", "fragile = zeckdb_fragile:Fragile")
    db = str(tmp_path / "f.duckdb")
    done = zeckdb(site, "build", "--variant", "fragile", "--n", "1..40", "--db", db)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert ("zeckdb: error: the game plugin fragile failed while writing n = 11: RuntimeError: no text for n = 11"
            in done.stderr.splitlines()), done.stderr
    built = zeckdb(site, "sql", "SELECT n FROM builds WHERE variant = 'fragile' ORDER BY n", "-f", "csv", "--db", db)
    committed = {int(n) for n in built.stdout.splitlines()[1:]}  # none, when every layer went into the failed write
    assert built.returncode == 0 and 11 not in committed, built.stdout + built.stderr
    assert all(low in committed for n in committed for low in range(n - 3, -1, -3)), sorted(committed)


def test_the_docs_misere_plugin_and_zeckdbs_own_twin_of_a_plugin(plugin, tmp_path):
    """docs/adding-a-game.md's misère subtraction (one attribute, the subtraction game's graph)
    and the twin zeckdb makes of the installed subtraction game both solve misère S(1,2,3):
    the player to move loses exactly when the pile is 1 mod 4 (Winning Ways, chapter 13),
    and the conformance checks hold the game to its convention."""
    misere_block = next(block for block in doc_blocks("python") if 'convention = "misere"' in block)
    site = tmp_path / "site"
    site.mkdir()
    (site / "zeckdb_subtraction.py").write_text((plugin / "zeckdb_subtraction.py").read_text())
    (site / "zeckdb_misere_subtraction.py").write_text(misere_block)
    info = site / "zeckdb_subtraction-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zeckdb-subtraction\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[zeckdb.games]\nsubtraction = zeckdb_subtraction:Subtraction\n"
                                           "subtraction-misere-play = zeckdb_misere_subtraction:MisereSubtraction\n")
    db = str(tmp_path / "s.duckdb")
    built = zeckdb(site, "build", "--variant", "subtraction", "--variant", "subtraction-misere-play", "--variant",
                   "subtraction-misere", "--n", "1..30", "--db", db)
    assert built.returncode == 0, built.stderr
    for name, n in (("subtraction-misere-play", 29), ("subtraction-misere", 30)):  # a lookup of each
        shown = zeckdb(site, "position", name, "--start", str(n), "--json", "--db", db)
        assert json.loads(shown.stdout)["outcome"] == ("loss" if n % 4 == 1 else "win"), (name, n)
    starts = zeckdb(site, "sql", "SELECT variant, n, outcome FROM positions WHERE is_start AND variant LIKE "
                    "'subtraction-misere%' ORDER BY ALL", "-f", "csv", "--max-rows", "0", "--db", db)
    rows = [line.split(",") for line in starts.stdout.splitlines()[1:]]
    assert len(rows) == 2 * 31 and all(outcome == ("loss" if int(n) % 4 == 1 else "win") for _, n, outcome in rows)  # n = 0..30
    moves = zeckdb(site, "sql", "SELECT count(*) FROM edges", "-f", "csv", "--db", db)
    assert int(moves.stdout.splitlines()[1]) == 3 * 30 - 3  # one graph: take 1, 2, 3 from each pile r >= 1
    verified = zeckdb(site, "verify", "--db", db)
    assert verified.returncode == 0 and "every check passed" in verified.stdout, verified.stderr
    from tests.http import get, serving

    # served too: the plugin's misère game (misère by nature) and zeckdb's twin of the plugin's game
    with serving(Path(db), env={"PYTHONPATH": str(site), "ZECKDB_PLUGIN_LOAD_SECONDS": SERVED_LOAD_SECONDS}) as base:
        for name in ("subtraction-misere-play", "subtraction-misere"):
            for n in (9, 12):
                status, body, _ = get(base + f"/v1/{name}/starts/{n}")
                assert status == 200 and body["outcome"] == ("loss" if n % 4 == 1 else "win"), (name, n, body)
    script = ("from zeckdb.testing import conformance; from zeckdb_misere_subtraction import MisereSubtraction; "
              "conformance(MisereSubtraction(), ns=(0, 1, 4, 9)); print('conforms')")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(site)}, timeout=300)
    assert out.stdout.strip() == "conforms", out.stderr


MISBEHAVING_LAYER = '''import os, re, sys, time
from zeckdb.variants.zeckendorf import Zeckendorf


class Rogue(Zeckendorf):
    name = "rogue"

    def graph_edges(self, n, keys):
        if n == 11:
            how = os.environ["ROGUE"]
            if how in ("sleeps", "holds the GIL"):
                open(os.environ["ROGUE_STARTED"], "w").close()
            if how == "sleeps":
                time.sleep(3600)
            elif how == "holds the GIL":
                re.match("(a*)*b", "a" * 40)  # no Python runs in the process meanwhile: Ctrl-C's handler neither
            elif how == "exits":
                sys.exit(3)
            elif how == "raises KeyboardInterrupt":
                raise KeyboardInterrupt
        return super().graph_edges(n, keys)
'''


@pytest.mark.parametrize("how, message", [
    ("exits", "the game plugin rogue failed while building n = 11: called sys.exit(3)"),
    ("raises KeyboardInterrupt", "the game plugin rogue failed while building n = 11: raised KeyboardInterrupt "
                                 "(not a Ctrl-C of the user's)"),
])
def test_a_plugins_exit_or_keyboard_interrupt_in_a_build_is_named_in_one_line(tmp_path, how, message):
    """sys.exit(3) in a plugin's moves ended the build with status 3 and no word; a
    KeyboardInterrupt it raised read as the user's Ctrl-C."""
    site = tmp_path / "site"
    install(site, "zeckdb_rogue", MISBEHAVING_LAYER, "rogue = zeckdb_rogue:Rogue")
    env = {**os.environ, "PYTHONPATH": str(site), "ROGUE": how}
    done = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "build", "--variant", "rogue", "--n", "1..12",
                           "--db", str(tmp_path / "r.duckdb")], env=env, capture_output=True, text=True, timeout=600)
    errors = [line for line in done.stderr.splitlines() if line.startswith("zeckdb:")
              and not line.startswith("zeckdb: waiting for another zeckdb process")]  # a cold cache's turn to compile
    assert done.returncode == 1 and errors == [f"zeckdb: error: {message}"], done.stderr


@pytest.mark.parametrize("how", ["sleeps", "holds the GIL"])
def test_a_second_ctrl_c_ends_a_build_a_plugin_holds_at_once(tmp_path, how):
    """A plugin's layer that sleeps (the build waits for it after a Ctrl-C) or loops holding the
    GIL (Python's Ctrl-C handler never runs): Ctrl-C was ignored, twice, and only SIGKILL ended
    the build. The second Ctrl-C now ends the command at once; what was committed is kept."""
    import signal as signals

    site = tmp_path / "site"
    install(site, "zeckdb_rogue", MISBEHAVING_LAYER, "rogue = zeckdb_rogue:Rogue")
    started = tmp_path / "started"
    db = tmp_path / "r.duckdb"
    env = {**os.environ, "PYTHONPATH": str(site), "ROGUE": how, "ROGUE_STARTED": str(started)}
    build = subprocess.Popen([str(Path(sys.executable).with_name("zeckdb")), "build", "--variant", "rogue",
                              "--variant", "zeckendorf", "--n", "1..12", "--db", str(db)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             # SIGINT as a terminal gives it: a shell's background job (the suite's too) ignores it
                             preexec_fn=lambda: signals.signal(signals.SIGINT, signals.SIG_DFL))
    try:
        deadline = time.monotonic() + 300
        while not started.exists() and time.monotonic() < deadline:
            assert build.poll() is None, build.stderr.read() if build.stderr else ""
            time.sleep(0.1)
        build.send_signal(signals.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):  # the first waits for the layer: nothing more to see
            build.wait(timeout=2)
        build.send_signal(signals.SIGINT)
        build.wait(timeout=30)
    finally:
        build.kill()
    assert build.returncode == -signals.SIGKILL
    assert "zeckdb: stopped at once (a second Ctrl-C); what was committed is kept" in build.stderr.read()
    status = subprocess.run([sys.executable, "-m", "zeckdb.cli.main", "status", "--db", str(db)], env=env,
                            capture_output=True, text=True, timeout=600)
    assert status.returncode == 0, status.stderr  # the file is whole: what was committed reads


def test_a_probe_measures_a_games_reach_by_the_callers_budget_not_the_shells(tmp_path, monkeypatch):
    """The probe's child took the environment with only the caller's changed settings on top:
    a ZECKDB_BUILD_MEMORY of the shell (0.01 GiB: zeckendorf reaches n = 73) stood for a
    caller whose Settings left build_memory at its default. It is handed the caller's budget."""
    from zeckdb.settings import DEFAULTS, Settings
    from zeckdb.variants.plugins import _run_probe, configure

    site = tmp_path / "site"
    install(site, "zeckdb_works", "from zeckdb.variants.zeckendorf import Zeckendorf\n\n\nclass Works(Zeckendorf):\n"
            "    name = 'works'\n", "works = zeckdb_works:Works")
    monkeypatch.setenv("PYTHONPATH", str(site))  # the probe's child finds the plugin there
    monkeypatch.setenv("ZECKDB_BUILD_MEMORY", "0.01")
    reached = {}
    for budget in (0.01, None):  # None: the default, a share of this machine's memory, not the shell's
        configure(Settings(build_memory=budget))
        try:
            reached[budget] = _run_probe("works", None)
        finally:
            configure(DEFAULTS)
    assert reached[0.01].full_n == 73 and reached[None].full_n > 100, reached
