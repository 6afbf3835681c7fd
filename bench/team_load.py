#!/usr/bin/env python3
"""team_load.py - the load of bench/team.sh: M agents on each of N daemons
(their sockets given), each agent taking and releasing a lock on a path of
its own at a steady rate, with one event stream per daemon collecting the
lock.granted events other daemons relayed to it.

Prints one JSON object: requests made, lock latency (p50/p99, ms), relayed
events seen and their propagation (origin emit -> relayed emit, p50/p99,
ms), and the per-daemon share of relays received.

    team_load.py --agents M --seconds S --rate R [--edits] SOCK...
"""
import argparse
import http.client
import json
import random
import socket
import threading
import time


class UnixHTTP(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("airspace", timeout=timeout)
        self.path_ = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.path_)
        self.sock = s


def request(conn, method, path, body=None):
    data = json.dumps(body) if body is not None else None
    hdrs = {"Content-Type": "application/json"} if data else {}
    conn.request(method, path, body=data, headers=hdrs)
    r = conn.getresponse()
    out = r.read()
    return r.status, out


def pct(v, p):
    if not v:
        return None
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agents", type=int, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--rate", type=float, required=True,
                    help="lock+release cycles per agent per second")
    ap.add_argument("--workers", type=int, default=24)
    ap.add_argument("--edits", action="store_true",
                    help="each agent first reports an edit to a file of its "
                    "own, so every daemon scores every agent")
    ap.add_argument("socks", nargs="+")
    a = ap.parse_args()

    # register the agents: each daemon's at once (agents of different
    # machines do not wait for each other), each daemon's in turn
    t_start = time.time()
    agents = []
    failed = []

    def register(d, sock):
        c = UnixHTTP(sock, timeout=120)
        for k in range(a.agents):
            name = "d%02d-a%03d" % (d, k)
            st, _ = request(c, "POST", "/v1/agents", {"id": name})
            if st not in (200, 201):
                failed.append("register %s: %d" % (name, st))
                return
            if a.edits:
                st, _ = request(c, "POST", "/v1/agents/%s/edits" % name,
                                {"path": "bench/%s.c" % name,
                                 "lines": [[1, 3]]})
                if st != 200:
                    failed.append("edit %s: %d" % (name, st))
                    return
        c.close()

    regs = [threading.Thread(target=register, args=(d, s))
            for d, s in enumerate(a.socks)]
    for t in regs:
        t.start()
    for t in regs:
        t.join()
    if failed:
        raise SystemExit(failed[0])
    for d, sock in enumerate(a.socks):
        for k in range(a.agents):
            agents.append((sock, "d%02d-a%03d" % (d, k)))

    import sys
    t_reg = time.time()
    print("registered %d agents" % len(agents), file=sys.stderr, flush=True)

    # one event stream per daemon: the relayed grants
    relays = []
    per_daemon = [0] * len(a.socks)
    stop = threading.Event()
    lock = threading.Lock()

    def stream(i, sock):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock)
        s.settimeout(0.5)
        s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: a\r\n\r\n")
        buf = b""
        while not stop.is_set():
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                break
            buf += chunk
            while b"\n\n" in buf:
                ev, buf = buf.split(b"\n\n", 1)
                for line in ev.split(b"\n"):
                    if not line.startswith(b"data: "):
                        continue
                    try:
                        o = json.loads(line[6:])
                    except ValueError:
                        continue
                    org = (o.get("data") or {}).get("origin")
                    if o.get("type") == "lock.granted" and org and "ts" in org:
                        with lock:
                            relays.append(o["ts"] - org["ts"])
                            per_daemon[i] += 1
        s.close()

    streams = [threading.Thread(target=stream, args=(i, s), daemon=True)
               for i, s in enumerate(a.socks)]
    for t in streams:
        t.start()
    time.sleep(0.5)

    # the load: each agent a cycle every 1/rate s, spread over workers
    lat = []
    codes = {}
    total = len(agents)
    interval = 1.0 / a.rate
    start = time.time()
    deadline = start + a.seconds

    def worker(w):
        conns = {}
        mine = agents[w::a.workers]
        nxt = [start + random.random() * interval for _ in mine]
        while True:
            k = min(range(len(mine)), key=lambda j: nxt[j]) if mine else None
            if k is None:
                return
            now = time.time()
            if nxt[k] > deadline:
                return
            if nxt[k] > now:
                time.sleep(nxt[k] - now)
            sock, name = mine[k]
            c = conns.get(sock)
            if c is None:
                c = conns[sock] = UnixHTTP(sock)
            path = "bench/%s.c" % name
            t0 = time.time()
            try:
                st, out = request(c, "POST", "/v1/locks",
                                  {"agent": name, "pattern": path,
                                   "ttlMs": 60000})
                t1 = time.time()
                if st == 200:
                    request(c, "POST", "/v1/locks/release",
                            {"agent": name, "pattern": path,
                             "token": json.loads(out)["token"]})
            except (OSError, http.client.HTTPException):
                conns.pop(sock, None)
                st, t1 = -1, time.time()
            with lock:
                codes[st] = codes.get(st, 0) + 1
                if st == 200:
                    lat.append((t1 - t0) * 1000)
            nxt[k] += interval

    ws = [threading.Thread(target=worker, args=(w,)) for w in range(a.workers)]
    for t in ws:
        t.start()
    for t in ws:
        t.join()
    elapsed = time.time() - start
    print("load done: %d cycles in %.1f s" % (sum(codes.values()), elapsed),
          file=sys.stderr, flush=True)
    time.sleep(1.0)  # the last relays
    stop.set()
    for t in streams:
        t.join(timeout=2)
    out = {
        "daemons": len(a.socks), "agents_per_daemon": a.agents,
        "agents": total, "seconds": round(elapsed, 1),
        "register_s": round(t_reg - t_start, 1),
        "lock_cycles": sum(codes.values()), "codes": codes,
        "cycles_per_s": round(sum(codes.values()) / elapsed, 1),
        "lock_ms_p50": round(pct(lat, 50) or 0, 2),
        "lock_ms_p99": round(pct(lat, 99) or 0, 2),
        "relays_seen": len(relays),
        "relays_expected": codes.get(200, 0) * (len(a.socks) - 1),
        "propagation_ms_p50": pct(relays, 50),
        "propagation_ms_p99": pct(relays, 99),
        "propagation_ms_max": max(relays) if relays else None,
    }
    # how many agents the first daemon scores (its own and mirrored)
    c = UnixHTTP(a.socks[0])
    st, body = request(c, "GET", "/v1/agents")
    if st == 200:
        ags = json.loads(body)["agents"]
        out["daemon1_agents_active"] = sum(
            1 for x in ags if x.get("status") == "active")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
