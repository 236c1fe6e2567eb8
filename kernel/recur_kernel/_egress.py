"""The kernel's way out of its sandbox: ``127.0.0.1:3128`` inside its network namespace,
forwarded to the host's egress proxy on the Unix socket beside the bridge socket.

The sandbox sets ``HTTP_PROXY``/``HTTPS_PROXY`` to this address, so urllib, requests, pip, git
and curl reach the proxy, which decides each connection by the session's network policy (or an
operator) and logs it. The forwarder only carries bytes; nothing it does is trusted.
"""

import os
import socket
import threading

PORT = 3128
_started = False
_lock = threading.Lock()


def start(socket_path, port=PORT):
    """Listen once per process; a repeated bind (a worker that reattaches) changes nothing."""
    global _started
    with _lock:
        if _started:
            return
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(64)
        _started = True
    threading.Thread(target=_accept, args=(server, socket_path), name="recur-egress", daemon=True).start()


def _accept(server, socket_path):
    while True:
        client, _ = server.accept()
        threading.Thread(target=_carry, args=(client, socket_path), daemon=True).start()


def _carry(client, socket_path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError:
        client.close()
        upstream.close()
        return
    threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()
    _pump(client, upstream)


def _pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        src.close()


def socket_beside(bridge_url):
    """``unix:<dir>/sock`` → ``<dir>/egress``; None for a bridge that is not a Unix socket."""
    if not bridge_url or not bridge_url.startswith("unix:"):
        return None
    return os.path.join(os.path.dirname(bridge_url[len("unix:"):]), "egress")


def run_behind(socket_path, argv):
    """Runs ``argv`` with the forwarder listening beside it (a gate or job in its own network namespace); its exit status."""
    import subprocess

    start(socket_path)
    try:
        code = subprocess.call(argv)
    except OSError as e:
        print(f"recur: cannot run {argv[0]}: {e}", file=__import__("sys").stderr)
        return 127
    # As a shell reports a command killed by a signal.
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    # Run as a file (python -I -S …/_egress.py SOCKET -- CMD…), so the package and site are not imported first.
    import sys

    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print("usage: _egress.py EGRESS_SOCKET -- COMMAND...", file=sys.stderr)
        sys.exit(2)
    sys.exit(run_behind(sys.argv[1], sys.argv[3:]))
