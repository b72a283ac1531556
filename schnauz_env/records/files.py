"""Record files: one game as JSON (``.json``), many as JSON Lines (``.jsonl``, one
record per line); either may be gzipped (``.json.gz``, ``.jsonl.gz``).

Writing is atomic (:func:`schnauz_env.common.files.atomic_write`): the text goes to a
temporary file in the same folder, which is then renamed into place, so a crash never
leaves half a file. An existing file is never
replaced unless ``overwrite=True``: :class:`FileExistsError` says so instead.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from schnauz_env.common.files import atomic_write
from schnauz_env.records.format import Record, RecordError

PathLike = str | os.PathLike


def dumps(record: Record | dict[str, Any], lines: bool = False) -> str:
    """``record`` as JSON text: one line (``lines=True``, for JSON Lines) or one field
    per line with every move on its own line (easy to read and to diff)."""
    data = record.to_dict() if isinstance(record, Record) else record
    if lines:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], (list, dict)):
            items = ",\n    ".join(_compact(v) for v in value)
            text = f"[\n    {items}\n  ]"
        else:
            text = _compact(value)
        parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False, allow_nan=False)


def is_lines(path: PathLike) -> bool:
    """Whether ``path`` names a JSON Lines file (``.jsonl`` or ``.jsonl.gz``)."""
    name = os.fspath(path).lower()
    return name.endswith((".jsonl", ".jsonl.gz"))


def write_record(path: PathLike, record: Record, overwrite: bool = False) -> Path:
    """Write one record to ``path`` (JSON, or one line if the name ends in ``.jsonl``)."""
    return (
        write_records(path, [record], overwrite)
        if is_lines(path)
        else _write_text(path, dumps(record) + "\n", overwrite)
    )


def write_records(
    path: PathLike, records: Iterable[Record | dict[str, Any] | str], overwrite: bool = False
) -> Path:
    """Write ``records`` to ``path`` as JSON Lines (a ``str`` is taken as a record already
    serialized by ``dumps(record, lines=True)``). A ``.json`` path holds exactly one."""
    if not is_lines(path):
        records = list(records)
        if len(records) != 1:
            raise ValueError(
                f"{os.fspath(path)!r} is a .json file, which holds one record; "
                f"write {len(records)} records to a .jsonl file"
            )
        only = records[0]
        data = json.loads(only) if isinstance(only, str) else only
        return _write_text(path, dumps(data) + "\n", overwrite)

    def lines(f: IO[str]) -> None:
        for r in records:
            f.write(r if isinstance(r, str) else dumps(r, lines=True))
            f.write("\n")

    return atomic_write(path, lines, overwrite)


def _write_text(path: PathLike, text: str, overwrite: bool) -> Path:
    return atomic_write(path, lambda f: f.write(text), overwrite)


def _gz(path: PathLike) -> bool:
    return os.fspath(path).lower().endswith(".gz")


def _open_text(path: PathLike) -> IO[str]:
    if _gz(path):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def iter_records(path: PathLike) -> Iterator[Record]:
    """The records in ``path``, in file order: one for ``.json``, one per non-blank line
    for ``.jsonl``. A malformed one raises :class:`RecordError` naming the file and line."""
    with _open_text(path) as f:
        if not is_lines(path):
            try:
                data = json.load(f)
            except json.JSONDecodeError as err:
                raise RecordError(f"{os.fspath(path)}: not JSON ({err})") from None
            yield _parse(data, f"{os.fspath(path)}")
            return
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as err:
                raise RecordError(f"{os.fspath(path)}, line {number}: not JSON ({err})") from None
            yield _parse(data, f"{os.fspath(path)}, line {number}")


def _parse(data: Any, where: str) -> Record:
    try:
        return Record.from_dict(data)
    except RecordError as err:
        raise RecordError(f"{where}: {err}", err.step) from None


def read_records(path: PathLike) -> list[Record]:
    """Every record in ``path`` (see :func:`iter_records`)."""
    return list(iter_records(path))


def read_record(path: PathLike, index: int = 0) -> Record:
    """Record number ``index`` (0 = the first) of ``path``; ``IndexError`` saying how many
    the file holds if there is no such record."""
    if index < 0:
        raise IndexError(f"record index must be >= 0, got {index}")
    count = 0
    for count, record in enumerate(iter_records(path), 1):
        if count == index + 1:
            return record
    raise IndexError(f"{os.fspath(path)} holds {count} record(s); there is no record {index}")


def record_files(folder: PathLike) -> list[Path]:
    """The record files in ``folder`` (and below), sorted by path."""
    root = Path(folder)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is neither a record file nor a folder")
    suffixes = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name.lower().endswith(suffixes))


def iter_folder(folder: PathLike) -> Iterator[Record]:
    """Every record of :func:`record_files` ``(folder)``, file by file. A ``.json`` file
    that does not claim to be a record (no ``format`` field: an evaluation's
    ``results.json``, say) is skipped; one that claims it but is malformed raises."""
    for path in record_files(folder):
        if not is_lines(path):
            with _open_text(path) as f:
                try:
                    data = json.load(f)
                except json.JSONDecodeError:
                    continue
            if not isinstance(data, dict) or "format" not in data:
                continue
            yield _parse(data, os.fspath(path))
            continue
        yield from iter_records(path)
