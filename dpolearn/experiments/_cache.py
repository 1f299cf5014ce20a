"""The on-disk cache of experiment data: entries that are checked before they are trusted.

An entry is one file::

    dpolearn-cache\\n
    {"schema": 2, "key": {...}, "size": N, "sha256": "..."}\\n     (one line of JSON)
    <N bytes: the pickled data dict>

The ``key`` names everything the data depend on: experiment id, scale, seed, a hash of the
package source, the cache schema, the numpy and scipy versions and the experiment's settings
changed by the call (``run(id, scale, **overrides)``), when there are some. Reading an entry
checks the leading tag, the schema, the key, the size and the SHA-256 of the payload before
unpickling, and that the payload is a dict; anything else (an empty, truncated or garbled file,
a pickle written by something else, an entry copied under another key) is reported with a
:class:`CacheWarning` naming the file and treated as missing, so the caller recomputes and
overwrites it.

Writes go to a temporary file in the same directory, are flushed to disk, and are moved into
place with ``os.replace``, which is atomic: a reader sees the old entry or the new one, never a
half-written file, whether two processes write the same key at once or a writer is killed.

The payload is a pickle, so the cache directory must be trusted like the code itself.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import tempfile
import warnings
from pathlib import Path
from typing import Any, BinaryIO, Iterator

import numpy as np
import scipy

__all__ = ["SCHEMA", "CacheWarning", "atomic_file", "encode", "entry_key", "entry_path", "load",
           "source_hash", "store"]

MAGIC = b"dpolearn-cache\n"
SCHEMA = 2


class CacheWarning(UserWarning):
    """An experiment cache entry could not be used (it is recomputed) or written."""


def entry_key(experiment: str, scale: str, seed: str, source: str,
              overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything an experiment's data depend on, as a JSON-serialisable dict.

    ``overrides`` (the experiment's settings changed by the call, already normalised) enter
    the key only when there are some, so a call without overrides keeps the key it always had.
    """
    key = {"schema": SCHEMA, "experiment": experiment, "scale": scale, "seed": seed,
           "source": source, "numpy": np.__version__, "scipy": scipy.__version__}
    if overrides:
        # as JSON reads it back (tuples become lists), so the stored key compares equal
        key["overrides"] = json.loads(json.dumps(overrides, sort_keys=True))
    return key


def entry_path(directory: Path, key: dict[str, Any]) -> Path:
    """``<directory>/<experiment>-<scale>-seed<seed>-<digest of the whole key>.pkl``."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return Path(directory) / f"{key['experiment']}-{key['scale']}-seed{key['seed']}-{digest}.pkl"


def _decode(blob: bytes, key: dict[str, Any]):
    """``(data, None)`` for a sound entry of ``key``, else ``(None, reason)``."""
    if not blob:
        return None, "the file is empty"
    if not blob.startswith(MAGIC):
        return None, "it is not a dpolearn cache entry"
    end = blob.find(b"\n", len(MAGIC))
    if end < 0:
        return None, "its header is truncated"
    try:
        header = json.loads(blob[len(MAGIC):end])
    except ValueError:
        return None, "its header is not valid JSON"
    if not isinstance(header, dict):
        return None, "its header is not a JSON object"
    if header.get("schema") != SCHEMA:
        return None, f"it has cache schema {header.get('schema')!r}, this version reads {SCHEMA}"
    if header.get("key") != key:
        return None, "it was written for another key (experiment, seed or library versions)"
    payload = blob[end + 1:]
    if len(payload) != header.get("size"):
        return None, f"it is truncated ({len(payload)} of {header.get('size')} payload bytes)"
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        return None, "its checksum does not match its content"
    try:
        data = pickle.loads(payload)
    except Exception as exc:                       # noqa: BLE001 - any unpickling failure
        return None, f"its payload does not unpickle ({type(exc).__name__})"
    if not isinstance(data, dict):
        return None, f"it holds a {type(data).__name__}, not a dict of experiment data"
    return data, None


def load(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The data stored at ``path`` for ``key``, or None when there is no usable entry.

    A missing file is silent; an unusable one raises a :class:`CacheWarning` naming it.
    """
    try:
        blob = Path(path).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        warnings.warn(f"cache entry {path} cannot be read ({exc}); recomputing it",
                      CacheWarning, stacklevel=3)
        return None
    data, reason = _decode(blob, key)
    if reason is not None:
        warnings.warn(f"cache entry {path} is unusable: {reason}; recomputing it",
                      CacheWarning, stacklevel=3)
    return data


def encode(key: dict[str, Any], data: dict[str, Any]) -> bytes:
    """The bytes of an entry holding ``data`` under ``key``."""
    payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    header = {"schema": SCHEMA, "key": key, "size": len(payload),
              "sha256": hashlib.sha256(payload).hexdigest()}
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file that replaces ``path`` only once it is completely written.

    Yields a file opened on a temporary file in the directory of ``path``; when the block ends
    without an exception the file is flushed to disk and moved onto ``path`` with
    ``os.replace`` (atomic), otherwise it is removed. A reader, or a run killed half-way, sees
    the old file or the new one, never a truncated one.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def store(path: Path, key: dict[str, Any], data: dict[str, Any]) -> None:
    """Write ``data`` as the entry of ``key`` at ``path``, atomically (OSError on failure)."""
    path = Path(path)
    blob = encode(key, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as fh:
        fh.write(blob)


def source_hash() -> str:
    """Hash of every .py file of the dpolearn package (so code changes invalidate caches)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
