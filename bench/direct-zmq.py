"""Cell round-trip baseline: a direct ZeroMQ Jupyter client on a kernel it starts itself.

    python direct-zmq.py CELLS WARMUP

Starts an ipykernel (the venv's python3 kernel, as the Jupyter server would) with
jupyter_client, times CELLS executions of `1+1` after WARMUP untimed ones, and prints
{"cellMs": [...]} on stdout. A cell counts as done when both its execute_reply and the
kernel's idle status for it have arrived, as @jupyterlab/services' future.done does.
"""
import json
import sys
import time

from jupyter_client.manager import start_new_kernel


def run(kc, code):
    msg_id = kc.execute(code)
    idle = replied = False
    while not (idle and replied):
        if not idle:
            msg = kc.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status":
                idle = msg["content"]["execution_state"] == "idle"
        if idle and not replied:
            reply = kc.get_shell_msg(timeout=30)
            replied = reply["parent_header"].get("msg_id") == msg_id


def main():
    cells, warmup = int(sys.argv[1]), int(sys.argv[2])
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        for _ in range(warmup):
            run(kc, "1+1")
        times = []
        for _ in range(cells):
            t0 = time.perf_counter()
            run(kc, "1+1")
            times.append((time.perf_counter() - t0) * 1000)
        print(json.dumps({"cellMs": times}))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
