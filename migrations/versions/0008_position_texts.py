"""A position's text, as its game writes it, in SQL: the macro game_text and the view
position_texts.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24

`(0,1,0,1)` for count vectors (trailing zeros dropped, but never below the game's
variants.text_width: Fibonacci nim writes `(r,k)` always, `(5,0)`), `[1,2,1,3]` for
ordered lists (positions.entries). The lookups write it in Python (Variant.format); the
named queries, `zeckdb draw` and `zeckdb verify` read it here; the tests check the two agree.
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

COUNTS = ", ".join(f"p.c{i}" for i in range(1, 17))


def upgrade() -> None:
    op.execute("ALTER TABLE variants ADD COLUMN text_width SMALLINT NOT NULL DEFAULT 0")
    op.execute("UPDATE variants SET text_width = 2 WHERE variant = 'fibonacci-nim'")  # the one game then registered
    op.execute("""
        CREATE MACRO game_text(entries, counts, width) AS coalesce(
            '[' || array_to_string(entries, ',') || ']',
            '(' || array_to_string(list_slice(list_transform(counts, lambda x: coalesce(x, 0)), 1, greatest(width,
                len(counts) - coalesce(list_position(list_reverse(list_transform(counts, lambda x: coalesce(x, 0) <> 0)),
                                                     true) - 1, len(counts)))), ',') || ')')""")
    op.execute(f"""
        CREATE VIEW position_texts AS
        SELECT p.variant, p.n, p.id, game_text(p.entries, [{COUNTS}], v.text_width) AS position
        FROM positions p JOIN variants v USING (variant)""")


def downgrade() -> None:
    op.execute("DROP VIEW position_texts")
    op.execute("DROP MACRO game_text")
    op.execute("ALTER TABLE variants DROP COLUMN text_width")
