"""What a terminal would act on (escape sequences, a carriage return, marks that reorder a line)
never reaches it raw from a file's text or a user's, whatever the command."""

from __future__ import annotations

import csv
import io

import duckdb

import zeckdb

from .conftest import run

HOSTILE = "evil\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://x.example\x07link\r\u202egnp.exe"


def test_stored_text_is_escaped_in_status_verify_tables_draw_and_errors(capsys, tmp_path, monkeypatch):
    path = tmp_path / "crafted.duckdb"
    zeckdb.build(path, "zeckendorf", "1..4")
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO builds SELECT * REPLACE (? AS variant) FROM builds WHERE variant = 'zeckendorf' AND n = 3",
                [HOSTILE])
    con.execute("INSERT INTO variants SELECT * REPLACE (? AS variant) FROM variants WHERE variant = 'zeckendorf'",
                [HOSTILE])
    con.execute("UPDATE move_names SET name = ? WHERE variant = 'zeckendorf' AND code = 0", [HOSTILE])
    con.close()
    outputs = []
    for args in (["status"], ["verify"], ["sql", "SELECT variant FROM builds"], ["query", "winners"],
                 ["sql", "SELECT variant FROM builds", "-f", "markdown"], ["draw", "zeckendorf", "--n", "3"],
                 ["position", HOSTILE, "1"], ["status", "--db", str(tmp_path / HOSTILE)]):
        with monkeypatch.context() as terminal:  # draw writes the graph raw to a file or a pipe, escaped to a terminal
            terminal.setattr("sys.stdout.isatty", lambda: True)
            code, out, err = run(capsys, *args, *(["--db", str(path)] if "--db" not in args else []))
        outputs.append((args[0], out + err))
    for command, text in outputs:
        assert not any(c in text for c in "\x1b\x07\r\u202e"), (command, text)
    assert any("evil\\x1b]52;c;ZXZpbA==\\x07" in text for _, text in outputs)


def test_a_copy_keeps_its_rows_as_they_are(capsys, tmp_path):
    """Escaping is for a person at a terminal: CSV, a drawing to a pipe and the library carry the
    stored text itself."""
    path = tmp_path / "plain.duckdb"
    zeckdb.build(path, "zeckendorf", "1..2")
    code, out, _ = run(capsys, "sql", "SELECT ? AS t", "--param", HOSTILE, "-f", "csv", "--db", str(path))
    assert code == 0 and list(csv.reader(io.StringIO(out, newline="")))[1] == [HOSTILE]
    with zeckdb.open(path) as db:
        assert db.sql("SELECT ? AS t", [HOSTILE]).rows == [(HOSTILE,)]
