"""Where a full build's time goes, per phase, summed over n: one thread, no overlap.

    python bench/profile_build.py                      # zeckendorf + reversed, n = 1..150
    python bench/profile_build.py --n 1..100 --variant zeckendorf

Runs the builder's own steps one after the other (the builder overlaps them on
threads, so its wall time is less than this sum) and prints seconds per phase:
enumerate (the layer's keys and the moves' child keys), link (child keys to ids,
grouping, topological order), solve (every solved column, exact game counts
included), distributions (the length distributions), tables (Arrow tables of the
rows) and write (one transaction per n), itself split into DuckDB's inserts of
positions and of edges and the rest (checksums, the small rows, commits). DuckDB
runs on one thread too, so every figure is CPU time as well as wall time.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
import sys
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", default="1..150")
    parser.add_argument("--variant", action="append", help="variant (repeatable; default zeckendorf and reversed)")
    args = parser.parse_args()

    t_start = time.perf_counter()
    import numpy as np

    from zeckdb import builder
    from zeckdb.engine import solve
    from zeckdb.ranges import parse_ns
    from zeckdb.store import StoreWriter
    from zeckdb.variants import get_variant

    t_imports = time.perf_counter() - t_start
    variants = [get_variant(name) for name in (args.variant or ["zeckendorf", "reversed"])]
    if any(v.lower_layers(n) for v in variants for n in (10, 20)):
        sys.exit("profile_build.py profiles variants whose moves stay in the layer")
    ns = parse_ns(args.n)
    phases: Counter[str] = Counter()

    def timed(phase: str, fn, *a, **k):
        t0 = time.perf_counter()
        out = fn(*a, **k)
        phases[phase] += time.perf_counter() - t0
        return out

    insert_rows = StoreWriter._insert_rows

    def timed_insert(con, table, rows, constants):  # the store's bulk inserts, by table
        t0 = time.perf_counter()
        insert_rows(con, table, rows, constants)
        kind = "edges" if table.startswith("edge_rows") else "positions" if table.startswith("position_rows") else table
        phases[f"  insert {kind}"] += time.perf_counter() - t0

    StoreWriter._insert_rows = staticmethod(timed_insert)
    with tempfile.TemporaryDirectory(prefix="zeckdb-profile-") as tmp:
        t0 = time.perf_counter()
        store = StoreWriter.open_write(Path(tmp) / "p.duckdb")
        store.file.connection().execute("SET threads = 1")
        for v in variants:
            store.register_variant(builder.game_record(v))
        phases["schema"] = time.perf_counter() - t0
        for n in ns:
            graphs: dict[str, tuple] = {}
            records: list[builder.LayerRecord] = []
            for v in variants:
                if v.graph_name not in graphs:
                    owner = get_variant(v.graph_name)
                    keys = timed("enumerate", owner.layer_keys, n)
                    by_key = timed("link", lambda: np.argsort(keys).astype(np.int32))  # noqa: B023 (called at once)
                    src, child_keys, code = timed("enumerate", owner.graph_edges, n, keys[by_key])
                    dst = timed("link", solve._link, owner, n, keys[by_key], by_key, child_keys, code,
                                len(owner.move_names))
                    g = timed("link", solve._grouped, owner, n, keys, by_key[src], dst, code, len(keys))
                    g.by_key = by_key
                    graphs[v.graph_name] = (g, timed("enumerate", owner.decode, keys), True)
                g, counts, new = graphs[v.graph_name]
                sol = timed("solve", solve.solve_graph, v, g, [r.solution for r in records if r.keys is g.keys])
                sol.release_node_values()
                records.append(builder.LayerRecord(v, n, g.keys, counts, sol, len(g.src),
                                                   g.stored_edges() if new else None, 0.0, replace=False))
                graphs[v.graph_name] = (g, counts, False)
            for job in builder.analyse(records):
                timed("distributions", job)
            tables = [timed("tables", builder.layer_tables, r) for r in records]
            timed("write", store.write_layers, tables)
        store.close()
    phases["  the rest"] = phases["write"] - sum(phases[f"  insert {t}"] for t in ("positions", "edges"))
    total = sum(phases[p] for p in ["schema", "enumerate", "link", "solve", "distributions", "tables", "write"])
    names = ", ".join(v.name for v in variants)
    print(f"profile of a build of {names}, n = {args.n}, one thread")
    print(f"  {'imports':<20} {t_imports:8.2f} s")
    for phase in ["schema", "enumerate", "link", "solve", "distributions", "tables", "write", "  insert positions",
                  "  insert edges", "  the rest"]:
        print(f"  {phase:<20} {phases[phase]:8.2f} s  {100 * phases[phase] / total:5.1f} %")
    print(f"  {'total':<20} {total:8.2f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
