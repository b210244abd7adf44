"""A file someone else made is trusted only for what zeckdb's migrations make: its whole catalog
(schemas, tables with every column's type, default, generated expression and constraint, views,
macros of every schema, indexes, sequences, types, triggers) is compared on every open, read-only
included. What differs is refused in one line naming it; `zeckdb db upgrade` removes what is code
and not zeckdb's, puts zeckdb's defaults back, and refuses a table that is not zeckdb's with the
statement that would mend it."""

from __future__ import annotations

import hashlib
from pathlib import Path
import shutil

import duckdb
import pytest

from zeckdb.builder import build
from zeckdb.store import StoreWriter

from .conftest import as_games, run
from . import reference as ref


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("catalog") / "made.duckdb"
    with StoreWriter.open_write(path) as store:
        build(store, as_games(["zeckendorf", "reversed"]), list(range(1, 13)))
    return path


def tampered(made: Path, tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "tampered.duckdb"
    shutil.copy(made, path)
    with duckdb.connect(str(path)) as con:
        for statement in statements:
            con.execute(statement)
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused_everywhere(capsys, path: Path, says: str) -> None:
    """Every reader (a lookup, SQL, a named query, verify) and a build refuse in one line, and
    nothing is written."""
    before = digest(path)
    for command in (["position", "zeckendorf", "--start", "9"], ["sql", "SELECT 1 AS one"], ["query", "winners"],
                    ["verify"], ["status"], ["build", "--variant", "zeckendorf", "--n", "13"]):
        code, out, err = run(capsys, *command, "--db", str(path))
        assert code == 1 and not out and len(err.splitlines()) == 1 and says in err, (command, err)
        assert "holds what zeckdb's schema does not" in err, err
    assert digest(path) == before


def forged_remoteness() -> list[str]:
    """Issue 69, item 1: position_rows rebuilt with the stored value in a column of its own and
    remoteness_over_min generated from it (a lookup reading it would show another number)."""
    from zeckdb.store.catalog import expected

    table = expected()[("table", "main", "position_rows")]
    forged = table.replace("CREATE TABLE position_rows(", "CREATE TABLE forged(", 1).replace(
        " remoteness_over_min INTEGER", " real_r INTEGER", 1).removesuffix(")")
    forged += ", remoteness_over_min INTEGER GENERATED ALWAYS AS (real_r + 5));"
    return [forged, "INSERT INTO forged BY NAME SELECT * RENAME (remoteness_over_min AS real_r) FROM position_rows",
            "DROP TABLE position_rows", "ALTER TABLE forged RENAME TO position_rows"]


def test_a_generated_column_is_refused_and_upgrade_names_what_mends_it(capsys, made, tmp_path):
    path = tampered(made, tmp_path, *forged_remoteness())
    refused_everywhere(capsys, path, "a changed table position_rows (its real_r INTEGER")
    code, out, err = run(capsys, "db", "upgrade", "--db", str(path))
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "zeckdb changes no table's data: `ALTER TABLE position_rows DROP COLUMN \"real_r\"` mends it" in err, err
    path = tampered(made, tmp_path, "ALTER TABLE position_rows ADD COLUMN extra INTEGER")
    refused_everywhere(capsys, path, "a changed table position_rows (its extra INTEGER is not zeckdb's)")


def test_a_macro_in_another_schema_cannot_mask_a_forged_one(capsys, made, tmp_path):
    """The check keyed macros by name over every schema, so zz.phi's genuine body hid main.phi's 2.0."""
    path = tampered(made, tmp_path, "CREATE OR REPLACE MACRO main.phi() AS 2.0", "CREATE SCHEMA zz",
                    "CREATE MACRO zz.phi() AS ((1 + sqrt(5)) / 2)")
    refused_everywhere(capsys, path, "an extra macro zz.phi")
    code, out, err = run(capsys, "db", "upgrade", "--db", str(path))
    assert code == 0 and "removing schema zz, which is not zeckdb's: DROP SCHEMA \"zz\" CASCADE" in err, err
    code, out, err = run(capsys, "sql", "SELECT phi() AS phi", "-f", "csv", "--db", str(path))
    assert code == 0 and abs(float(out.splitlines()[1]) - ref.PHI) < 1e-9, (out, err)


def test_a_column_default_of_the_file_is_refused_mended_by_upgrade_and_never_used(capsys, made, tmp_path):
    path = tampered(made, tmp_path, "ALTER TABLE builds ALTER COLUMN summary_only SET DEFAULT (true)")
    refused_everywhere(capsys, path, "a changed table builds (its summary_only BOOLEAN DEFAULT(true) NOT NULL")
    code, out, err = run(capsys, "db", "upgrade", "--db", str(path))
    assert code == 0 and ("putting zeckdb's column default back in table builds: ALTER TABLE builds ALTER COLUMN "
                          "\"summary_only\" SET DEFAULT false") in err, err
    code, out, err = run(capsys, "build", "--variant", "zeckendorf", "--n", "13", "--db", str(path))
    assert code == 0, err
    code, out, err = run(capsys, "sql", "SELECT bool_or(summary_only) AS any FROM builds", "-f", "csv",
                         "--db", str(path))
    assert out.splitlines() == ["any", "False"], out


def test_the_writer_writes_every_column_of_a_row_itself(made, tmp_path):
    """A default of the file is never what a build stores: the writer names every column (a
    default the catalog check did not see would still not be used)."""
    from zeckdb.store.catalog import head_columns
    from zeckdb.store.writer import StoreWriter as Writer

    path = tampered(made, tmp_path)
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE builds ALTER COLUMN summary_only SET DEFAULT (true)")
    con.execute("CREATE TEMP TABLE probe AS SELECT * FROM builds LIMIT 0")
    row = {name: value for (name, _), value in zip(head_columns("builds"), con.execute(
        "SELECT * FROM builds LIMIT 1").fetchone(), strict=True) if name not in ("summary_only", "built_at")}
    con.execute("DELETE FROM builds WHERE variant = ? AND n = ?", [row["variant"], row["n"]])
    Writer._insert_values(con, "builds", [row])
    assert con.execute("SELECT summary_only FROM builds WHERE variant = ? AND n = ?",
                       [row["variant"], row["n"]]).fetchone() == (False,)
    with pytest.raises(ValueError, match="builds has no column nonesuch"):
        Writer._insert_values(con, "builds", [{**row, "nonesuch": 1}])
    con.close()


def test_an_extra_schema_is_refused_and_upgrade_removes_it(capsys, made, tmp_path):
    """Every reader refused it and said `db upgrade` mends it; the upgrade said the file was at
    the newest revision, and the refusal stayed."""
    path = tampered(made, tmp_path, "CREATE SCHEMA zz", "CREATE VIEW zz.positions AS SELECT 1")
    refused_everywhere(capsys, path, "an extra schema zz")
    code, out, err = run(capsys, "db", "upgrade", "--db", str(path))
    assert code == 0 and "removing schema zz" in err and "is at the newest schema revision" in out, (out, err)
    code, out, err = run(capsys, "position", "zeckendorf", "--start", "9", "--db", str(path))
    assert code == 0 and "outcome" in out, err


@pytest.mark.parametrize("statement, says", [
    ("CREATE INDEX by_n ON builds (n)", "an extra index by_n"),
    ("CREATE SEQUENCE counter", "an extra sequence counter"),
    ("CREATE TYPE mood AS ENUM ('a', 'b')", "an extra type mood"),
    ("CREATE VIEW extra AS SELECT 1 AS one", "an extra view extra"),
    ("CREATE MACRO hash(x) AS 0", "an extra macro hash"),
    ("CREATE TABLE notes (t VARCHAR)", "an extra table notes"),
])
def test_anything_zeckdb_does_not_make_is_named(capsys, made, tmp_path, statement, says):
    path = tampered(made, tmp_path, statement)
    code, out, err = run(capsys, "sql", "SELECT 1 AS one", "--db", str(path))
    assert code == 1 and says in err and len(err.splitlines()) == 1, err
    code, out, err = run(capsys, "db", "upgrade", "--db", str(path))
    if "table" in says:  # data: refused, never dropped, the statement named
        assert code == 1 and '`DROP TABLE "main"."notes"` mends it' in err, err
    else:
        assert code == 0 and "which is not zeckdb's" in err, err
        assert run(capsys, "sql", "SELECT 1 AS one", "--db", str(path))[0] == 0
