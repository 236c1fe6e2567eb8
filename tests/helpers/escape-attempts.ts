/**
 * The containment issue's escape attempts, as cells of an ordinary session: each prints
 * `BLOCKED <what stopped it>` per attempt, or `ESCAPED <what it got>`. Run in process by
 * sandbox-escapes.test.ts and, by an unprivileged user of the installed package, by
 * tests/system/installed-package.test.ts.
 */
import { py } from './session-harness';

/** What an attempt is told of the host it tries to escape to. */
export interface EscapeTargets {
  home: string;
  /** Where Recur is installed: a checkout or the package. */
  repo: string;
  venv: string;
  /** A process whose environment holds provider keys (the worker). */
  worker_pid: number;
  secrets: string[];
  ports: Record<string, number>;
  victim_dir: string;
  victim_workspace: string;
  victim_id: string;
}

/** [test name, cell body (Python; `P` holds the host's paths, `blocked(e)` reports), lines the output must hold]. */
export const ESCAPES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['reads the bridge secret to derive another session token', `
try:
    print("ESCAPED", open(P["home"] + "/run/bridge.secret").read())
except OSError as e:
    blocked(e)`, ['BLOCKED FileNotFoundError']],
  ["reads the log's signing key and the Kafka credentials to write signed events", `
for f in ("/keys/signing.pem", "/run/kafka-credentials.json", "/kafka/server.properties"):
    try:
        print("ESCAPED", f, open(P["home"] + f).read()[:40])
    except OSError as e:
        blocked(e)`, ['BLOCKED FileNotFoundError']],
  ['reads the daemon token and calls the daemon API', `
try:
    print("ESCAPED", open(P["home"] + "/run/daemon.token").read())
except OSError as e:
    blocked(e)
import urllib.request
try:
    print("ESCAPED", urllib.request.urlopen(f"http://127.0.0.1:{P['ports']['daemon']}/v1/sessions", timeout=3).status)
except OSError as e:
    blocked(e)`, ['BLOCKED FileNotFoundError', 'BLOCKED URLError']],
  ["reads the worker's environment for provider keys", `
try:
    print("ESCAPED", open(f"/proc/{P['worker_pid']}/environ").read()[:80])
except OSError as e:
    blocked(e)
import os
found = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        if any(s in open(f"/proc/{pid}/environ", errors="replace").read() for s in P["secrets"]):
            found.append(pid)
    except OSError:
        pass
print("ESCAPED environ of", found) if found else print("BLOCKED no process here holds the key")
print("ESCAPED own env") if any(s in str(os.environ) for s in P["secrets"]) else print("BLOCKED not in own env")`,
  ['BLOCKED FileNotFoundError', 'BLOCKED no process here holds the key', 'BLOCKED not in own env']],
  ['sees processes other than its own', `
import os
others = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        cmd = open(f"/proc/{pid}/cmdline").read().replace("\\0", " ")
    except OSError:
        continue
    if "ipykernel" not in cmd and "bwrap" not in cmd and cmd.strip():
        others.append(cmd[:60])
print("ESCAPED sees", others) if others else print("BLOCKED only its own process tree is visible")`,
  ['BLOCKED only its own process tree is visible']],
  ["reads the Jupyter token and other kernels' connection files", `
import glob
try:
    print("ESCAPED", open(P["home"] + "/run/jupyter.token").read())
except OSError as e:
    blocked(e)
files = glob.glob(P["home"] + "/run/jupyter-runtime/*.json")
print("ESCAPED", files) if files else print("BLOCKED no connection files visible")`,
  ['BLOCKED FileNotFoundError', 'BLOCKED no connection files visible']],
  ["calls the Jupyter API to run code in another kernel or pre-create a child's session", `
import json, urllib.request
req = urllib.request.Request(f"http://127.0.0.1:{P['ports']['jupyter']}/api/sessions", method="POST",
    data=json.dumps({"path": "recur/" + P["victim_id"] + "/future-child", "type": "recur", "name": "x", "kernel": {"name": "python3"}}).encode(),
    headers={"Content-Type": "application/json"})
try:
    print("ESCAPED", urllib.request.urlopen(req, timeout=3).status)
except OSError as e:
    blocked(e)`, ['BLOCKED URLError']],
  ["reaches another session's kernel sockets and workspace", `
import os
print("ESCAPED", os.listdir(P["victim_dir"])) if os.path.exists(P["victim_dir"]) else print("BLOCKED no sandbox dir of another session")
try:
    print("ESCAPED", open(P["victim_workspace"] + "/notes.txt").read())
except OSError as e:
    blocked(e)`, ['BLOCKED no sandbox dir of another session', 'BLOCKED FileNotFoundError']],
  ['connects to Kafka and Temporal to forge events or signal workflows', `
import socket
for name in ("kafka", "kafkaController", "temporal", "temporalHttp", "daemon", "jupyter"):
    try:
        socket.create_connection(("127.0.0.1", P["ports"][name]), timeout=3).close()
        print("ESCAPED", name)
    except OSError as e:
        blocked(e)
try:
    socket.create_connection(("1.1.1.1", 443), timeout=3).close()
    print("ESCAPED internet")
except OSError as e:
    blocked(e)`, ['BLOCKED ConnectionRefusedError', 'BLOCKED OSError']],
  ["acts on the bridge as another session with its own token", `
import recur_kernel
from recur_kernel import _session
from recur_kernel._host import HostClient
own = _session._client
forged = HostClient(own.url, P["victim_id"], own._headers["Authorization"].split()[1])
try:
    print("ESCAPED", forged.call("final", {"value": "forged"}))
except PermissionError as e:
    print("BLOCKED", type(e).__name__, e.status)`, ['BLOCKED ScopeError 403']],
  ['writes into the shared venv and the kernel package, reads the repository', `
import os, glob
import recur_kernel
site = glob.glob(P["venv"] + "/lib/python*/site-packages")[0]
for target in (site + "/recur-escape-test.pth", os.path.join(os.path.dirname(recur_kernel.__file__), "recur_escape_test.py")):
    try:
        open(target, "x").write("")
        os.remove(target)
        print("ESCAPED wrote", target)
    except OSError as e:
        blocked(e)
for target in ("/package.json", "/dist/services/worker/main.js"):
    try:
        print("ESCAPED", open(P["repo"] + target).read()[:40])
    except OSError as e:
        blocked(e)`, ['BLOCKED OSError 30', 'BLOCKED FileNotFoundError 2']],
  ["deletes the home's Kafka data and blobs", `
import shutil
for d in ("/kafka", "/blobs", "/temporal"):
    try:
        shutil.rmtree(P["home"] + d)
        print("ESCAPED removed", d)
    except OSError as e:
        blocked(e)`, ['BLOCKED FileNotFoundError']],
  ["allocates all the machine's memory", `
try:
    hog = bytearray(8 * 2**30)
    print("ESCAPED allocated", len(hog))
except MemoryError as e:
    blocked(e)
ok = bytearray(64 * 2**20)
print("still works", len(ok) // 2**20)`, ['BLOCKED MemoryError', 'still works 64']],
  ['forks without limit', `
import os, time, signal
kids = []
try:
    for _ in range(10_000):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
    print("ESCAPED forked", len(kids))
except BlockingIOError as e:
    blocked(e)
for pid in kids:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print("forked", "under" if len(kids) < 64 else "over", "the limit")`, ['BLOCKED BlockingIOError', 'forked under the limit']],
  ['opens files without limit', `
import os
held = []
try:
    for _ in range(100_000):
        held.append(open(os.devnull))
    print("ESCAPED opened", len(held))
except OSError as e:
    blocked(e)
for f in held:
    f.close()`, ['BLOCKED OSError 24']],
  ['writes a file past the size limit', `
try:
    with open("big.bin", "wb") as f:
        f.write(b"x" * (2 * 2**20))
    print("ESCAPED wrote 2 MiB")
except OSError as e:
    blocked(e)`, ['BLOCKED OSError 27']],
];

/** The attempt cells, numbered so each output can be matched to its attempt. */
export function escapeCells(targets: EscapeTargets): string[] {
  return ESCAPES.map(([, body], i) => py(`P = __import__("json").loads(${JSON.stringify(JSON.stringify(targets))})
def blocked(e): print("BLOCKED", type(e).__name__, getattr(e, "errno", ""))
print("ATTEMPT #${i}")
${body}`));
}

/** Each attempt's output, by attempt number, from the session's CellExecuted outputs. */
export function attemptOutputs(outputs: string[]): Map<number, string> {
  return new Map(outputs.map((o) => [Number(/ATTEMPT #(\d+)/.exec(o)?.[1] ?? -1), o]));
}
