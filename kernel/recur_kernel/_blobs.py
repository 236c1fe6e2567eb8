"""The host's content-addressed blob store, written from inside the kernel.

Same layout as ``activities/blob-store.ts``: ``<root>/sha256/<first two hex digits>/<hex>``.
Snapshots write here directly, so large pickles never travel through Jupyter's websocket.
"""

import hashlib
import os
import re
import uuid

_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


class BlobError(Exception):
    """A blob is missing, or its bytes no longer hash to its address."""


def path_of(root, sha256):
    if not _SHA256_HEX.match(sha256):
        raise BlobError(f"not a blob address: {sha256!r}")
    return os.path.join(root, "sha256", sha256[:2], sha256)


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def _holds(path, data):
    try:
        if os.path.getsize(path) != len(data):
            return False
        with open(path, "rb") as f:
            return f.read() == data
    except FileNotFoundError:
        return False


def put(root, data, sha256=None):
    """Store ``data``; return ``(sha256, size, written)``.

    An existing blob is kept only if it still holds ``data``: a corrupted one is replaced, so
    putting the right bytes heals it.
    """
    sha256 = sha256 or sha256_hex(data)
    path = path_of(root, sha256)
    if _holds(path, data):
        return sha256, len(data), False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Beside the target, then rename: a reader never sees a partial blob.
    tmp = f"{path}.{uuid.uuid4()}.tmp"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return sha256, len(data), True


def get(root, sha256):
    """The blob's bytes, after checking they still hash to ``sha256``: pickles run code when loaded."""
    try:
        with open(path_of(root, sha256), "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise BlobError(f"blob {sha256} is missing") from None
    if sha256_hex(data) != sha256:
        raise BlobError(f"blob {sha256} does not match its hash; refusing to unpickle it")
    return data
