"""The file system each folder of indexed files was on, kept in ``meta``.

A drive mounted inside a folder kb syncs (``~/notes/usb``) leaves, once unmounted, an empty
folder of the outer file system where its files were. ``kb.ingest.empty_folders`` tells that
from a user's deletion by the folder's file system: each ingest records, per folder holding a
file it read, the folder's device number (``os.stat().st_dev``) under the meta key
``device:<folder path>``. Records change no search result: writing them does not bump the
index generation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kb.store import Store
from kb.store.meta import MetaKey, keys_under

DEVICE_PREFIX = MetaKey.DEVICE.value


def record_devices(store: Store, devices: Mapping[str, int]) -> None:
    """Record folder path -> device number, writing only those that are new or changed."""
    known = devices_of(store, devices)
    rows = [(DEVICE_PREFIX + folder, str(device)) for folder, device in devices.items()
            if known.get(folder) != device]
    if rows:
        with store.write(bump=False) as c:
            c.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", rows)


def devices_under(store: Store, folder: str) -> dict[str, int]:
    """The recorded device number of ``folder`` and of each folder under it, in one read.

    Args:
        store: the open store.
        folder: an absolute folder path, without a trailing separator.
    """
    low, high = keys_under(folder, DEVICE_PREFIX)
    rows = store.conn.execute("SELECT key, value FROM meta WHERE key = ? OR (key >= ? AND "
                              "key < ?)", (DEVICE_PREFIX + folder, low, high))
    return {str(k)[len(DEVICE_PREFIX):]: int(v) for k, v in rows
            if str(v).lstrip("-").isdigit()}


def devices_of(store: Store, folders: Iterable[str]) -> dict[str, int]:
    """The recorded device number of each of ``folders`` that has one."""
    out = {}
    for folder in folders:
        row = store.conn.execute("SELECT value FROM meta WHERE key = ?",
                                 (DEVICE_PREFIX + folder,)).fetchone()
        if row is not None and str(row[0]).lstrip("-").isdigit():
            out[folder] = int(row[0])
    return out
