"""Game records: every game saved, replayed, checked and learned from (``docs/records.md``).

A record is one game of any of the package's games, as plain JSON: the format and its
version, the game and its full rules, the seed (and any stacked deal), who sat where
(policy names, model files by SHA-256), every move with the seat that made it,
optionally each move's legal actions, the policy's probabilities and a checksum of
what the seat saw, and the outcome (places and returns). Nothing in it depends on the
machine. Many games go one per line in a JSON Lines file::

    from schnauz_env.records import read_records, replay

    for record in read_records("runs/eval/records.jsonl"):
        result = replay(record)          # RecordError names the first move that differs
        print(result.places, result.returns)

Floor 3 (``docs/architecture.md``): records replay through the games' AEC envs. The
writers sit above: the evaluation harness (``schnauz-eval --record DIR``), the terminal
game (``schnauz play --record FILE``) and the dataset builder (``training.datasets``).

One job per module, each importing only those listed after it:

- :mod:`~schnauz_env.records.recorder`: :class:`Recorder` (a loop over the engine) and
  :class:`RecordingEnv` (a recording AEC env);
- :mod:`~schnauz_env.records.replay`: :func:`replay` and :class:`Replay` (move by move);
- :mod:`~schnauz_env.records.files`: JSON and JSON Lines files, written atomically;
- :mod:`~schnauz_env.records.format`: :class:`Record` and its checks.
"""

from schnauz_env.records.files import (
    atomic_write,
    dumps,
    iter_folder,
    iter_records,
    read_record,
    read_records,
    record_files,
    write_record,
    write_records,
)
from schnauz_env.records.format import (
    FORMAT,
    VERSION,
    Outcome,
    Record,
    RecordError,
    Seat,
    deal_options,
)
from schnauz_env.records.recorder import (
    Recorder,
    RecordingEnv,
    file_sha256,
    fresh_seed,
    policy_probabilities,
)
from schnauz_env.records.replay import (
    Replay,
    ReplayResult,
    Step,
    make_env,
    replay,
    view_digest,
)

__all__ = [
    "FORMAT",
    "VERSION",
    "Outcome",
    "Record",
    "RecordError",
    "Recorder",
    "RecordingEnv",
    "Replay",
    "ReplayResult",
    "Seat",
    "Step",
    "atomic_write",
    "deal_options",
    "dumps",
    "file_sha256",
    "fresh_seed",
    "iter_folder",
    "iter_records",
    "make_env",
    "policy_probabilities",
    "read_record",
    "read_records",
    "record_files",
    "replay",
    "view_digest",
    "write_record",
    "write_records",
]
