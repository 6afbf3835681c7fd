#!/usr/bin/env python3
"""soak_driver.py - simulated agents against a running daemon.

    soak_driver.py SOCKET DAEMON_PID SECONDS AGENTS [PROCS]

AGENTS agents (spread over PROCS worker processes, default 4, so that no
process holds more connections than the daemon's per-process cap), each on
its own kept-alive connection, do a random mix of operations with a short
think time (SOAK_STATELESS=1: without the two that grow the daemon's state):
lock (some patterns shared between agents, so some are
refused), renew and release with the token they hold, reported edits,
messages, inbox reads, intents declared and dropped, status reads, and
sessions ending (SOAK_SESSIONS=1: the agent exits, which drops its
reports, locks and intents, and registers again, as an agent does when
its task is done and the next begins; without it no agent ever finishes
and its reports pile up). One more
process follows /v1/events and checks the ids arrive in sequence with no
gap; the main process samples the daemon's RSS and open descriptors every
5 s. Prints a JSON summary (per-minute p50/p99 latency, samples, errors,
event check) on stdout.
"""
import http.client
import json
import multiprocessing as mp
import os
import random
import socket
import sys
import time


class Unix(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("airspace", timeout=30)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(30)
        self.sock.connect(self.path)


def call(conn, method, path, body=None):
    data = json.dumps(body) if body is not None else None
    hdr = {"Content-Type": "application/json"} if data else {}
    for attempt in (0, 1):
        try:
            conn.request(method, path, data, hdr)
            r = conn.getresponse()
            raw = r.read()
            break
        except (OSError, http.client.HTTPException):
            # a kept-alive connection the daemon closed (idle): once more on
            # a new one, as libcurl does
            conn.close()
            if attempt:
                return 0, {}
    try:
        return r.status, json.loads(raw) if raw else {}
    except ValueError:
        return r.status, {}


# SOAK_STATELESS=1: no reported edits and no intents, the operations whose
# state grows with the run (every agent's reports stay until it commits):
# what is left should hold the daemon's memory flat
WEIGHTS = ([20, 10, 15, 0, 10, 8, 0, 0, 7, 0] if os.environ.get("SOAK_STATELESS")
           else [20, 10, 15, 20, 10, 8, 6, 4, 7,
                 3 if os.environ.get("SOAK_SESSIONS") else 0])


def agent_loop(sock, agent_ids, until, seed, out_q):
    rnd = random.Random(seed)
    agents = []
    for aid in agent_ids:
        c = Unix(sock)
        call(c, "POST", "/v1/agents", {"id": aid, "client": "soak"})
        agents.append({"id": aid, "conn": c, "held": {}, "intents": []})
    lat = []  # (t, ms, op, status)
    while time.time() < until:
        a = rnd.choice(agents)
        op = rnd.choices(
            ["lock", "renew", "release", "edits", "message", "inbox",
             "intent", "intent_drop", "status", "session"], WEIGHTS)[0]
        me, c = a["id"], a["conn"]
        t0 = time.time()
        if op == "lock":
            # half in the agent's own area, half in a shared one
            pat = (f"area/{me}/f{rnd.randrange(20)}.c" if rnd.random() < 0.5
                   else f"shared/s{rnd.randrange(60)}.c")
            st, r = call(c, "POST", "/v1/locks",
                         {"agent": me, "pattern": pat, "ttlMs": rnd.choice([3000, 30000, 120000])})
            if st == 200:
                a["held"][pat] = r.get("token")
        elif op in ("renew", "release") and a["held"]:
            pat = rnd.choice(list(a["held"]))
            tok = a["held"][pat]
            body = {"agent": me, "pattern": pat, "token": tok}
            if op == "renew":
                body["ttlMs"] = 60000
            st, r = call(c, "POST", f"/v1/locks/{op}", body)
            if op == "release" or st != 200:
                a["held"].pop(pat, None)
        elif op in ("renew", "release"):
            st, _ = call(c, "GET", f"/v1/locks?agent={me}")
        elif op == "edits":
            st, _ = call(c, "POST", f"/v1/agents/{me}/edits",
                         {"path": f"src/m{rnd.randrange(200)}.c",
                          "lines": [[1 + rnd.randrange(50), 60 + rnd.randrange(40)]]})
        elif op == "message":
            to = rnd.choice(agent_ids)
            st, _ = call(c, "POST", "/v1/messages",
                         {"from": me, "to": to, "type": "info", "body": f"soak {t0:.3f}"})
        elif op == "inbox":
            st, _ = call(c, "GET", f"/v1/agents/{me}/inbox")
        elif op == "intent":
            st, r = call(c, "POST", "/v1/intents",
                         {"agent": me, "files": [f"src/m{rnd.randrange(200)}.c"],
                          "summary": "soak", "ttlMs": 60000})
            if st == 200 and "id" in r:
                a["intents"].append(r["id"])
        elif op == "intent_drop" and a["intents"]:
            iid = a["intents"].pop(0)
            st, _ = call(c, "POST", f"/v1/intents/{iid}/drop", {"agent": me})
        elif op == "session":
            st, _ = call(c, "POST", f"/v1/agents/{me}/exit")
            if st == 200:
                st, _ = call(c, "POST", "/v1/agents", {"id": me, "client": "soak"})
            a["held"].clear()
            a["intents"].clear()
        else:
            st, _ = call(c, "GET", "/v1/status")
        lat.append((t0, (time.time() - t0) * 1000.0, op, st))
        time.sleep(rnd.uniform(0.02, 0.12) * len(agents) / 25)
    for a in agents:
        call(a["conn"], "POST", f"/v1/agents/{a['id']}/exit")
        a["conn"].close()
    out_q.put(lat)


def follow_events(sock, until, out_q):
    """Read /v1/events; check that ids arrive in order with no gap."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.settimeout(2)
    s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: a\r\n\r\n")
    buf = b""
    first = last = None
    gaps = []
    n = 0
    dropped = False
    while time.time() < until + 3:
        try:
            chunk = s.recv(1 << 16)
        except socket.timeout:
            continue
        if not chunk:
            break
        buf += chunk
        while b"\nid: " in buf or buf.startswith(b"id: "):
            i = buf.find(b"id: ")
            j = buf.find(b"\n", i)
            if j < 0:
                break
            eid = int(buf[i + 4:j])
            buf = buf[j:]
            n += 1
            if first is None:
                first = eid
            elif eid != last + 1:
                gaps.append((last, eid))
            last = eid
        if b"stream.dropped" in buf:
            dropped = True
        buf = buf[-256:]
    out_q.put({"events": n, "first": first, "last": last, "gaps": gaps[:20],
               "ngaps": len(gaps), "dropped": dropped})


def sample(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = int([l for l in f if l.startswith("VmRSS:")][0].split()[1]) // 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, fds, cpu


def pct(v, p):
    if not v:
        return None
    v = sorted(v)
    return round(v[min(len(v) - 1, int(len(v) * p))], 2)


def main():
    sock, pid, secs, nagents = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    procs = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    start = time.time()
    until = start + secs
    q = mp.Queue()
    ev = mp.Process(target=follow_events, args=(sock, until, q))
    ev.start()
    time.sleep(0.5)
    ids = [f"soak{i:03d}" for i in range(nagents)]
    workers = []
    for k in range(procs):
        p = mp.Process(target=agent_loop, args=(sock, ids[k::procs], until, 1000 + k, q))
        p.start()
        workers.append(p)
    samples = []
    while time.time() < until:
        rss, fds, cpu = sample(pid)
        samples.append({"t": round(time.time() - start, 1), "rssMB": rss, "fds": fds,
                        "cpuS": round(cpu, 1)})
        time.sleep(5)
    results = [q.get() for _ in range(procs + 1)]
    for p in workers + [ev]:
        p.join()
    rss, fds, cpu = sample(pid)
    samples.append({"t": round(time.time() - start, 1), "rssMB": rss, "fds": fds, "cpuS": round(cpu, 1)})
    events = [r for r in results if isinstance(r, dict)][0]
    lat = [x for r in results if isinstance(r, list) for x in r]
    per_min = {}
    for t, ms, op, st in lat:
        per_min.setdefault(int((t - start) // 60), []).append(ms)
    status = {}
    for t, ms, op, st in lat:
        key = f"{op} {st}"
        status[key] = status.get(key, 0) + 1
    print(json.dumps({
        "seconds": secs, "agents": nagents, "procs": procs, "ops": len(lat),
        "opsPerSec": round(len(lat) / secs, 1),
        "minutes": [{"minute": m, "ops": len(v), "p50ms": pct(v, 0.5), "p99ms": pct(v, 0.99),
                     "maxms": round(max(v), 1)} for m, v in sorted(per_min.items())],
        "samples": samples, "status": dict(sorted(status.items())),
        "transportErrors": sum(1 for x in lat if x[3] == 0),
        "serverErrors": sum(1 for x in lat if x[3] >= 500),
        "eventCheck": events,
    }, indent=1))


if __name__ == "__main__":
    main()
