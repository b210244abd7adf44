"""Named queries (sql/<name>.sql) and read-only ad-hoc SQL, both run by zeckdb.executor.

A named query is one SQL file whose header comment describes it:

    -- name: winners
    -- description: one line saying what it answers
    -- checks: the paper or theorem it checks
    -- variants: black-hole-M            (optional: the variants it is written for; a capital letter
                                        stands for any number: black-hole-M, nacci-C-K-pP)
    -- game-columns: minus_inverse_phi   (optional: columns that mean something only for the games
                                        that declare them, Variant.query_columns; NULL in the
                                        rows of the others)
    -- param position (position, required): a count vector, e.g. 3,1,0,2
    -- param measure (P|mu): the measure (default: both)
    -- param mod (integer >= 1): a modulus
    -- param modulus (integer 2..6): only this Z
    -- param n (built n, required): the n
    -- computes: profile_games          (optional: a relation computed from the stored graph when the
                                        query runs, for one variant, zeckdb.profiles.RELATIONS)

A parameter's type is one of: choices `A|B`, `integer >= K`, `integer A..B`,
`built n`, `position` or `team` (players, e.g. 1,3); each value is checked against it before the query
runs, and bound (never spliced). Every query may also use $variant (from
--variant; NULL means every built variant it is written for) and $ns (from
--n, an INTEGER[]); a query that does not use $ns refuses --n.

A query that computes a relation reads one variant's layers built in full (--variant, unless
it is written for one) and computes the relation for the n asked (every n built in full when
--n is not given) within the query's time limit, before its SQL runs on a cursor of its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
import re
import time
from typing import TYPE_CHECKING, Any

from . import resources
from .errors import NotBuiltError, UnknownQueryError, UsageError, did_you_mean, opt, printable
from .executor import Limits, Params, Result
from .ranges import format_ns, parse_count
from .store import Store

if TYPE_CHECKING:
    from .variants import Variant



@dataclass(frozen=True)
class Param:
    """A declared parameter of a named query: its type and what it accepts."""

    name: str
    kind: str  # "choice", "integer", "n", "position" or "team"
    description: str
    required: bool = False
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def allowed(self) -> str:
        if self.kind == "choice":
            return " or ".join(self.choices)
        if self.kind == "integer":
            return (f"an integer from {self.minimum} to {self.maximum}" if self.maximum is not None
                    else f"an integer >= {self.minimum}")
        if self.kind == "n":
            return "a built n"
        if self.kind == "team":
            return "a team: its players, e.g. 1,3"
        return "a position, e.g. 3,1,0,2"

    @classmethod
    def parse(cls, name: str, spec: str, description: str) -> Param:
        kind, *flags = [s.strip() for s in spec.split(",")]
        required = flags == ["required"]
        if flags and not required:
            raise ValueError(f"param {name}: unknown flags {flags}")
        if m := re.fullmatch(r"integer >= (\d+)", kind):
            return cls(name, "integer", description, required, minimum=int(m[1]))
        if m := re.fullmatch(r"integer (\d+)\.\.(\d+)", kind):
            return cls(name, "integer", description, required, minimum=int(m[1]), maximum=int(m[2]))
        if kind == "built n":
            return cls(name, "n", description, required)
        if kind == "position":
            return cls(name, "position", description, required)
        if kind == "team":
            return cls(name, "team", description, required)
        if re.fullmatch(r"[\w-]+(\|[\w-]+)+", kind):
            return cls(name, "choice", description, required, choices=tuple(kind.split("|")))
        raise ValueError(f"param {name}: unknown type {kind!r}")


@dataclass
class NamedQuery:
    name: str
    description: str
    checks: str
    sql: str
    params: dict[str, Param] = field(default_factory=dict)
    variants: tuple[str, ...] = ()  # the variants it is written for (a family as `black-hole-M`); () for every variant
    twins: bool = False  # it compares a game with its misère twin: it answers where both are built (`-- reads: twins`)
    computes: str | None = None  # the relation (zeckdb.profiles.RELATIONS) it reads, computed when it runs
    game_columns: tuple[str, ...] = ()  # shown only in the rows of games that declare them (Variant.query_columns)

    @property
    def required(self) -> set[str]:
        return {p.name for p in self.params.values() if p.required}

    @property
    def used_params(self) -> set[str]:
        return set(re.findall(r"\$([A-Za-z_]\w*)", self.sql))

    @property
    def takes_ns(self) -> bool:
        return "ns" in self.used_params

    @property
    def reads_lengths(self) -> bool:
        """Whether it reads the length rows, which some full layers do not have (with_distribution)."""
        return re.search(r"\b(?:FROM|JOIN)\s+(?:length_distribution|length_moments)\b", self.sql, re.IGNORECASE) is not None

    @property
    def reads_layers(self) -> bool:
        """Whether it reads per-position tables, which layers built with --summary-only lack
        (then it answers only for layers built in full; otherwise for summary layers too)."""
        reads = r"\b(?:FROM|JOIN)\s+(?:positions|moves|edges|length_distribution|length_moments)\b"
        return self.computes is not None or re.search(reads, self.sql, re.IGNORECASE) is not None

    def applies_to(self, variant: str) -> bool:
        return not self.variants or any(re.fullmatch(re.sub("[A-Z]", "[0-9]+", re.escape(name)), variant)
                                        for name in self.variants)


def _parse(path: Path) -> NamedQuery:
    text = path.read_text()
    header: dict[str, str] = {}
    params: dict[str, Param] = {}
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        if m := re.fullmatch(r"-- param ([a-z_][a-z0-9_]*) \(([^)]*)\): (.*)", line):
            params[m[1]] = Param.parse(m[1], m[2], m[3])
            continue
        key, _, value = line[2:].strip().partition(":")
        if key.startswith("param"):
            raise ValueError(f"{path}: write a parameter as `-- param NAME (TYPE): description`: {line!r}")
        if key:
            header[key.strip()] = value.strip()
    variants = tuple(v.strip() for v in header.get("variants", "").split(",") if v.strip())
    if header.get("reads", "twins") != "twins":
        raise ValueError(f"{path}: `-- reads:` takes twins, not {header['reads']!r}")
    query = NamedQuery(header.get("name", path.stem), header.get("description", ""), header.get("checks", ""),
                       text, params, variants, "reads" in header, header.get("computes"),
                       tuple(c.strip() for c in header.get("game-columns", "").split(",") if c.strip()))
    # what it computes is looked up when it runs (zeckdb.profiles imports the compiled kernels, which a
    # listing of the queries must not wait for); a test holds every query's to profiles.RELATIONS
    if query.name != path.stem:
        raise ValueError(f"{path}: header names the query {query.name!r}")
    return query


def list_queries() -> list[NamedQuery]:
    return [_parse(p) for p in sorted(resources.sql_dir().glob("*.sql"))]


def get_query(name: str) -> NamedQuery:
    path = resources.sql_dir() / f"{name}.sql"
    if not re.fullmatch(r"[a-z0-9-]{1,64}", name) or not path.exists():
        names = ", ".join(q.name for q in list_queries())
        raise UnknownQueryError(f"unknown query {name[:64]!r}: {did_you_mean(name, [q.name for q in list_queries()])}"
                                f"choose one of {names} (`zeckdb query` lists them)")
    return _parse(path)


def run_query(store: Store, name: str, game: Variant | None = None, ns: list[int] | None = None,
              params: dict[str, str] | None = None, limits: Limits | None = None) -> Result:
    """Run a named query for one game (resolved at the door) or every game built it is written
    for (limits: default every row, in the sql_timeout setting's time); every argument is
    checked first, so a bad one is a one-line error naming what is allowed, never an empty
    answer or a DuckDB error."""
    variant = None if game is None else game.name
    limits = limits or Limits(max_rows=None)
    query = get_query(name)
    params = dict(params or {})
    _check_arguments(query, params, ns)
    built = _built_variants(store, query, variant)
    if query.twins:
        built = _built_twins(store, query, built, variant)
    if ns is not None:
        check_built_ns(built, ns, variant, store, _pair(variant) if query.twins and variant else None)
    lacking = _with_lengths(store, built, ns, variant) if query.reads_lengths else None
    values: dict[str, Any] = {p.name: _check_value(p, params.get(p.name), built, store)
                              for p in query.params.values()}
    relations, stopped = None, None
    if query.computes:
        seconds = limits.timeout if limits.budget is None else min(limits.budget, limits.timeout)
        deadline = time.monotonic() + seconds
        relations, stopped = _compute(store, query, game, built, ns, values, deadline)
        # the SQL has what is left; one stopped early has its own second to read what was computed
        limits = dataclasses.replace(limits, budget=max(deadline - time.monotonic(), 0.01 if stopped is None else 1.0))
    values.update(variant=variant, ns=ns)
    result = store.run(query.sql, {k: v for k, v in values.items() if k in query.used_params}, limits, relations)
    _blank_undeclared(result, query.game_columns)
    if lacking is not None:
        result.marked_notice = lacking
    if stopped is not None:
        result.marked_notice = (f"the query reached its time limit of {limits.timeout:g} s at n = {stopped}: the rows of the "
                         f"n before it are shown; ask for the rest ({opt('n')} {stopped}..) in another run, or raise "
                         f"the limit ({opt('timeout')})")
    return result


EVERY_QUERYS_OPTIONS = ("variant", "n", "timeout", "max_rows")  # the options every named query takes


def _check_arguments(query: NamedQuery, params: dict[str, str], ns: list[int] | None) -> None:
    """Refuse a parameter the query does not take (naming the nearest it does), one it needs
    and lacks, and --n where it takes none."""
    name = query.name
    unknown = set(params) - set(query.params)
    if unknown:
        import difflib

        wrong = sorted(unknown)[0]
        takes = ", ".join(sorted(query.params)) or f"no {opt('param')}"
        if wrong in EVERY_QUERYS_OPTIONS:  # given as a parameter of the query's own
            raise UsageError(f"query {name} takes {wrong} as {opt(wrong)}, not as a parameter of its own: give "
                             f"{opt(wrong)} {params[wrong][:40]}")
        near = difflib.get_close_matches(wrong, [*query.params, *EVERY_QUERYS_OPTIONS], n=1)
        hint = f" (did you mean {opt(near[0]) if near[0] in ('variant', 'n') else repr(near[0])}?)" if near else ""
        raise UsageError(f"query {name} has no parameter {wrong[:40]!r}{hint}: it takes {takes}")
    missing = query.required - set(params)
    if missing:
        p = query.params[sorted(missing)[0]]
        # a position's description gives its examples (per kind of game) already
        what = p.description if p.kind == "position" else f"{p.allowed} ({p.description})"
        raise UsageError(f"query {name} needs {opt('param:' + p.name)}=...: {what}")
    if ns is not None and not query.takes_ns:
        raise UsageError(f"query {name} does not take {opt('n')}"
                         + (f": it takes {', '.join(opt('param:' + p) for p in query.params)}" if query.params else ""))


def _blank_undeclared(result: Result, columns: tuple[str, ...]) -> None:
    """NULL in `columns` wherever the row's game does not declare them (Variant.query_columns):
    the golden ratio's distance means nothing for a game that has no golden ratio."""
    from .errors import UnknownVariantError
    from .variants import get_variant

    at = [i for i, name in enumerate(result.columns) if name in columns]
    if not at or "variant" not in result.columns:
        return
    where = result.columns.index("variant")
    declared: dict[str, frozenset[str]] = {}
    for name in {row[where] for row in result.rows}:
        try:
            declared[name] = get_variant(name).query_columns
        except UnknownVariantError:  # a game not installed here: it declares nothing
            declared[name] = frozenset()
    result.rows = [tuple(None if i in at and result.columns[i] not in declared[row[where]] else value
                         for i, value in enumerate(row)) for row in result.rows]


def _compute(store: Store, query: NamedQuery, game: Variant | None, built: dict[str, set[int]], ns: list[int] | None,
             values: dict[str, Any], deadline: float) -> tuple[dict[str, Any], int | None]:
    """The relation the query computes, for its one game and the n asked (or every n built in
    full), and the n where the deadline stopped it (None: it computed every n)."""
    from .profiles import RELATIONS
    from .variants import get_variant

    if game is None:
        if len(query.variants) != 1 or query.variants[0] not in built:
            raise UsageError(f"query {query.name} computes its rows from the stored graph, one game at a time: "
                             f"name the game with {opt('variant')}, e.g. {opt('variant')} zeckendorf")
        game = get_variant(query.variants[0])  # the one game the query is written for
    chosen = sorted(built[game.name]) if ns is None else sorted(set(ns))
    assert query.computes is not None
    rows, stopped = RELATIONS[query.computes](store, game, chosen, values, deadline)
    return {query.computes: rows}, stopped


def _built_variants(store: Store, query: NamedQuery, variant: str | None) -> dict[str, set[int]]:
    """The built n of each variant the query will read (only `variant`, if given: a game's
    name, resolved at the door)."""
    if variant is not None:
        if not query.applies_to(variant):
            raise UsageError(f"query {query.name} is written for {', '.join(query.variants)}, not {variant}")
        ns = store.built_ns(variant) | (set() if query.reads_layers else store.summary_ns(variant))
        if not ns:
            raise NotBuiltError(f"{variant} is not built in {printable(str(store.path))}: run "
                                f"{store.suggested(f'build --variant {variant}')}"
                                + (" (it has only summary layers, and this query reads positions)"
                                   if store.summary_ns(variant) else ""))
        return {variant: ns}
    built = {row["variant"]: set(row["ns"]) - (set(row["summary_ns"]) if query.reads_layers else set())
             for row in store.status() if query.applies_to(row["variant"])}
    built = {name: ns for name, ns in built.items() if ns}
    if not built:
        what = ", ".join(query.variants) if query.variants else "any variant"
        raise NotBuiltError(f"query {query.name} reads {what}, and none is built in {printable(str(store.path))}: run "
                            f"{store.suggested('build')}")
    return built


def check_built_ns(built: dict[str, set[int]], ns: list[int], variant: str | None, store: Store,
                   games: list[str] | None = None) -> None:
    """A NotBuiltError naming the n of `ns` that no variant of `built` (variant -> built n) has,
    and the build (of the store's database; of `games`, default `variant`) that makes them."""
    have = set().union(*built.values())
    missing = [n for n in ns if n not in have]
    if missing:
        where = variant or "any variant"
        games = games or ([variant] if variant else [])
        build = store.suggested(f"build{''.join(f' --variant {name}' for name in games)} --n {format_ns(missing)}")
        raise NotBuiltError(f"n = {format_ns(missing)} is not built for {where} (built: n = {format_ns(sorted(have))}): "
                            f"run {build}")


def _built_twins(store: Store, query: NamedQuery, built: dict[str, set[int]],
                 variant: str | None) -> dict[str, set[int]]:
    """The n at which a query comparing a game with its misère twin answers: where both are built
    (`variant`, either of the two: the pair's n, or a NotBuiltError naming the one not built)."""
    pair = _pair
    layers = {row["variant"]: set(row["ns"]) - (set(row["summary_ns"]) if query.reads_layers else set())
              for row in store.status()}
    both = {}
    for name in built:
        normal, twin = pair(name)
        if name == normal and twin in built:
            continue  # the twin's entry stands for the pair
        ns = layers.get(normal, set()) & layers.get(twin, set())
        if ns:
            both[twin] = ns
        elif variant is not None:
            missing = twin if name == normal else normal
            raise NotBuiltError(f"query {query.name} compares {normal} with its misère twin {twin}, and {missing} is "
                                f"not built{' in full' if missing in layers and query.reads_layers else ''} in "
                                f"{printable(str(store.path))}: run {store.suggested(f'build --variant {missing}')}")
    if not both:
        raise NotBuiltError(f"query {query.name} compares a game with its misère twin (NAME-misere), and no game is "
                            f"built with its twin in {printable(str(store.path))}: run "
                            f"{store.suggested('build --variant zeckendorf --variant zeckendorf-misere')}, or the "
                            "twin of a game built there")
    if variant is not None:
        return {variant: both[pair(variant)[1]]}
    return both


def _pair(name: str) -> list[str]:
    """A game and its misère twin, whichever of the two `name` is."""
    from .variants import misere

    normal = misere.base_name(name) or name
    return [normal, normal + misere.SUFFIX]


def _with_lengths(store: Store, built: dict[str, set[int]], ns: list[int] | None, variant: str | None) -> str | None:
    """For a query of the length rows: a NotBuiltError where the n asked (every n built, when none
    are) have none, saying why (a build's hole and the build that fills it, or the game's
    distribution beyond what a build assembles); where some have, a notice naming the others."""
    from .completeness import holes
    from .variants import get_variant

    without: dict[str, list[int]] = {}
    for name, layers in built.items():
        have = {n for (n,) in store.rows("SELECT DISTINCT n FROM length_distribution WHERE variant = ?", [name])}
        asked = layers if ns is None else layers & set(ns)
        if asked - have:
            without[name] = sorted(asked - have)
    if not without:
        return None
    name, lacking = next(iter(without.items()))
    game = get_variant(name)
    found = {hole.n for hole in holes(store, [game], lacking)[0]}
    filled = [n for n in lacking if n in found]
    why = (f"a build left them out: {store.suggested(f'build --variant {name} --n {format_ns(filled)}')} fills "
           "them" if filled else
           "a game from there runs through lower layers holding more moves together than a build assembles for a "
           "length distribution (docs/schema.md, length_distribution)")
    text = f"{name} has no length rows for n = {format_ns(lacking)}: {why}"
    if ns is not None or all(not (built[name] - set(missing)) for name, missing in without.items()):
        raise NotBuiltError(text)
    return text + ("; the rows of the other n are shown" if len(without) == 1 else
                   f"; {len(without) - 1} more games lack some; the rows of the other n are shown")


def _check_value(param: Param, text: str | None, built: dict[str, set[int]], store: Store) -> Any:
    if text is None:
        return None
    bad = f"bad {opt('param:' + param.name)}={text[:40]!r}: {param.name} is {param.allowed}"
    if param.kind == "choice":
        if text not in param.choices:
            raise UsageError(bad)
        return text
    if param.kind == "position":
        return _check_position(text, built, bad, store)
    if param.kind == "team":
        return _check_team(text, built, param.name)
    value = parse_count(text)
    if value is None:
        raise UsageError(bad)
    if param.kind == "n":
        check_built_ns(built, [value], next(iter(built)) if len(built) == 1 else None, store)
    elif value < (param.minimum or 0) or value > (param.maximum if param.maximum is not None else 2**31 - 1):
        raise UsageError(bad if param.maximum is not None or value < (param.minimum or 0)
                         else f"{bad} and at most {2**31 - 1}")
    return value


def _check_position(text: str, built: dict[str, set[int]], bad: str, store: Store) -> list[int]:
    """A position that some variant read by the query accepts, in a layer it has built, as that
    game parses it (the counts, or an ordered game's entries): the SQL gets the list, not the text."""
    from .variants import get_variant

    malformed, unbuilt = [], []
    for name, ns in built.items():
        variant = get_variant(name)
        try:
            position = variant.parse(text)
            n = variant.layer_of(position)
        except UsageError as exc:
            malformed.append(str(exc))
            continue
        if n in ns:
            return [int(x) for x in position]
        unbuilt.append(f"n = {n} is not built for {name}: run {store.suggested(f'build --variant {name} --n {n}')}")
    if unbuilt:
        raise NotBuiltError(unbuilt[0])
    if len(built) == 1:
        raise UsageError(malformed[0])
    raise UsageError(f"{bad}, and no variant built here accepts it ({opt('variant')} names one): {malformed[0]}")


def _check_team(text: str, built: dict[str, set[int]], name: str) -> list[int]:
    """A team: distinct players 1..P, at least one left out, P the most players of a game read."""
    from .variants import get_variant

    players = max(get_variant(variant).players for variant in built)
    members = [parse_count(part) for part in text.split(",")]
    bad = f"bad {opt('param:' + name)}={text[:40]!r}: write a team as its players, distinct numbers from 1 to {players}"
    if any(m is None for m in members):
        raise UsageError(f"{bad}, e.g. 1,3")
    team = sorted(m for m in members if m is not None)
    if len(set(team)) != len(team) or team[0] < 1 or team[-1] > players:
        raise UsageError(f"{bad}, e.g. 1,3")
    if len(team) == players:
        raise UsageError(f"{bad}, leaving someone out: a team of every player always wins")
    return team


def run_sql(store: Store, sql: str, limits: Limits | None = None, params: Params = None) -> Result:
    """Run one ad-hoc read-only statement (see zeckdb.executor for what is allowed; limits:
    default every row, in the sql_timeout setting's time), `params` bound to its ? or $name."""
    return store.run(sql, params, limits or Limits(max_rows=None))
