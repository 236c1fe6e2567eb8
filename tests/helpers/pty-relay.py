"""Runs a command in a pseudo-terminal: its terminal output goes to our stdout, our stdin to its terminal.

Lets a test drive an interactive CLI as a user's terminal would (raw keys such as Ctrl-C
reach readline as keys, not as signals from outside). Exits with the command's exit status.
"""
import os
import pty
import select
import sys

pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

stdin_open = True
while True:
    watched = [fd] + ([0] if stdin_open else [])
    ready, _, _ = select.select(watched, [], [])
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the command closed its terminal
            data = b""
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False

_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)
