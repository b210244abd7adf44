"""The literals that shape speed and memory, never an answer or a refusal, in one place.

Limits that refuse something (time, rows, memory budgets) are settings (zeckdb.settings);
these are how work is cut and scheduled: change one, and only the measurements of bench/
change. The engine's own block sizes (engine/summary.py) stay beside its kernels.
"""

# -- full builds (zeckdb.builder, zeckdb.store) -----------------------------------------------
# A solved layer is handed to the writer while fewer than two wait for it, or while they hold
# fewer positions and moves than this; else the solver waits (memory stays bounded by the
# largest layers).
HANDOVER_ROWS = 2_000_000
# The length distributions' and random-play analyses run on at least this many threads (they
# wait on the writer's rows as much as they compute).
MIN_ANALYSTS = 2
# The rows of this many layers are made (Arrow tables from the solutions) while the writer
# inserts the ones before them: enough to keep it busy, few enough to hold little memory.
TABLES_AHEAD = 2
# A writer checkpoints once its commits since the last checkpoint hold this many rows.
CHECKPOINT_ROWS = 5_000_000
# Consecutive layers of fewer rows (positions and edges) than this go into each table in one INSERT.
STAGED_ROWS = 1_000_000
# Rows read back at a time to recompute a layer's checksum (store.layer_checksum).
CHECKSUM_READ_ROWS = 1 << 20

# Every writer (a full build's, summary mode's, the cluster's driver) keeps the file open
# between commits that come within this many seconds of each other (letting it go and opening
# it again cost more than a small layer's write), and lets it go whenever it would wait longer,
# or a reader asks for it (zeckdb.locking).
IDLE_SECONDS = 0.5

# -- summary mode (zeckdb.summaries) and the cluster (zeckdb.distributed) ---------------------
# A layer this large is solved on more than one thread when threads are free (smaller ones
# gain nothing: their blocks are few, and a thread of their own each serves them better).
THREADED_LAYER = 1 << 22

# A distributed build's shards are written once and read once (unless --shards-only keeps them):
# their pages are compressed by a codec that is fast both ways, not by export's smaller zstd.
SHARD_COMPRESSION = "snappy"

# -- reading: verify, export, the executor -----------------------------------------------------
# verify checks the layers of a game in batches of about this many positions.
VERIFY_BATCH_POSITIONS = 1_000_000
# export reads layers of up to SMALL_LAYER_ROWS rows together with the other small layers of
# their variant (or graph), up to GROUP_ROWS rows at once, and cuts them into their files: a
# query per small layer cost more than its rows did.
SMALL_LAYER_ROWS = 20_000
GROUP_ROWS = 200_000
# DuckDB's threads for a reader's connection.
READER_THREADS = 2
# Rows handed on at a time when a statement's rows are streamed, and the largest block fetched
# at a time when the rows' size is bounded.
STREAM_ROWS = 10_000
FETCH_ROWS = 1024
