"""Writing files so that a crash never leaves half a file under its final name.

Every writer of the package (model files, checkpoints, evaluation results, a run's
``eval.csv``, game records, datasets) goes through these helpers:

* :func:`atomic_write` writes to a temporary file in the same folder, flushes it to
  disk (``fsync``) and renames it into place (``os.replace``, atomic on POSIX and
  Windows): a reader sees the old file or the new one, never a part of it. A kill
  mid-write leaves at most a ``.<name>.*.tmp`` file beside it. Without ``overwrite``
  an existing file is never replaced (:class:`FileExistsError`).
* :func:`append_csv_rows` adds rows to a CSV history without rewriting what is there,
  so a kill never costs more than the row being written (and a row cut short by a
  crash is dropped before the next append).

Only the standard library: any floor may use them.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["append_csv_rows", "atomic_write", "read_csv_rows", "write_bytes", "write_text"]

PathLike = str | os.PathLike


def atomic_write(
    path: PathLike, write: Callable[[Any], Any], overwrite: bool = False, binary: bool = False
) -> Path:
    """Call ``write(f)`` on a temporary file beside ``path`` (text, or bytes with
    ``binary``), then move it to ``path`` (gzip-compressed if a text file's name ends in
    ``.gz``). Without ``overwrite`` an existing ``path`` raises :class:`FileExistsError`
    and is left untouched; with it, the old file stays whole until the new one replaces
    it. Returns ``path``."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists; choose another name (files are never replaced)")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a file")
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        os.chmod(tmp, _mode(path))  # mkstemp makes 0600; give the mode open() would
        with os.fdopen(fd, "wb") as raw:
            if binary:
                write(raw)
            else:
                gz = os.fspath(path).lower().endswith(".gz")
                stream: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if gz else raw
                text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
                write(text)
                text.flush()
                text.detach()
                if stream is not raw:
                    stream.close()  # the gzip trailer; raw stays open
            raw.flush()
            os.fsync(raw.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            _move_new(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _sync_folder(folder)
    return path


def _mode(path: Path) -> int:
    """The permissions of the file replacing ``path``: its own if it exists, else what
    ``open()`` gives a new file (0666 less the umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
        os.umask(mask)
        return 0o666 & ~mask


def write_bytes(path: PathLike, data: bytes, overwrite: bool = True) -> Path:
    """``data`` as the file ``path``, atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda f: f.write(data), overwrite, binary=True)


def write_text(path: PathLike, text: str, overwrite: bool = True) -> Path:
    """``text`` (UTF-8) as the file ``path``, atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda f: f.write(text), overwrite)


def _move_new(tmp: str, path: Path) -> None:
    """Rename ``tmp`` to ``path`` unless ``path`` exists (a hard link fails if it does,
    so two writers never replace each other's file)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(
            f"{path} exists; choose another name (files are never replaced)"
        ) from None
    except OSError:  # a file system without hard links: check, then rename
        if path.exists():
            raise FileExistsError(
                f"{path} exists; choose another name (files are never replaced)"
            ) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entry of a renamed file to disk (POSIX; nothing elsewhere)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ------------------------------------------------------------------ CSV histories


def read_csv_rows(path: PathLike) -> list[dict[str, str]]:
    """The rows of a CSV file written by :func:`append_csv_rows`, as dicts. A last line
    cut short by a crash (no line end) is left out."""
    with open(path, newline="", encoding="utf-8") as fh:
        text = fh.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text, newline="")))


def append_csv_rows(path: PathLike, rows: Sequence[Mapping[str, Any]]) -> Path:
    """Add ``rows`` to the CSV file ``path`` (created, with a header of every key, if it
    does not exist), without rewriting the rows already there.

    The rows go to the end of the file in one write, flushed to disk. A last line cut
    short by an earlier crash is dropped first. A row with a column the header lacks
    widens the header: the file is then rewritten with every old row, atomically
    (:func:`atomic_write`), so no history is lost either way.
    """
    path = Path(path)
    rows = list(rows)
    if not rows:
        return path
    fields = list(dict.fromkeys(k for r in rows for k in r))
    header = _header(path)
    if header is None:
        return atomic_write(path, lambda f: _write_csv(f, fields, rows), overwrite=True)
    if not set(fields) <= set(header):
        old = read_csv_rows(path)
        wide = list(dict.fromkeys([*header, *fields]))
        return atomic_write(path, lambda f: _write_csv(f, wide, [*old, *rows]), overwrite=True)
    _drop_torn_line(path)
    buf = io.StringIO(newline="")
    csv.DictWriter(buf, fieldnames=header, lineterminator="\r\n").writerows(rows)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, buf.getvalue().encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def _write_csv(f: IO[str], fields: list[str], rows: Sequence[Mapping[str, Any]]) -> None:
    writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)


def _header(path: Path) -> list[str] | None:
    """The columns of the CSV file ``path``; ``None`` if it is missing, empty or has no
    whole header line."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            first = fh.readline()
    except FileNotFoundError:
        return None
    if not first.endswith("\n"):
        return None
    return next(csv.reader([first]), None) or None


def _drop_torn_line(path: Path) -> None:
    """Cut a last line without a line end (a write cut short) off the file."""
    with open(path, "rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        fh.truncate(data.rfind(b"\n") + 1)
        fh.flush()
        os.fsync(fh.fileno())
