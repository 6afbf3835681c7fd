#!/usr/bin/env python3
"""stallproxy.py - a TCP proxy on loopback to a PostgreSQL Unix socket that
can go silent, as a network that drops packets does (no RST, no FIN): on
SIGUSR1 it stops forwarding in both directions and answers nothing (new
connections are accepted and left unanswered); on SIGUSR2 it forwards
again (connections opened meanwhile stay silent).

    stallproxy.py UNIX_SOCKET PORT_FILE     (prints the port into PORT_FILE)
"""
import os
import select
import selectors
import signal
import socket
import sys

target, port_file = sys.argv[1], sys.argv[2]
stalled = False
dead = set()  # connections opened while stalled: never forwarded


def stall(sig, frame):
    global stalled
    stalled = True


def resume(sig, frame):
    global stalled
    stalled = False


signal.signal(signal.SIGUSR1, stall)
signal.signal(signal.SIGUSR2, resume)

ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(64)
with open(port_file + ".tmp", "w") as f:
    f.write("%d\n" % ls.getsockname()[1])
os.rename(port_file + ".tmp", port_file)

sel = selectors.DefaultSelector()
sel.register(ls, selectors.EVENT_READ, None)
peer = {}


def close(s):
    for x in (s, peer.get(s)):
        if x is None:
            continue
        try:
            sel.unregister(x)
        except (KeyError, ValueError):
            pass
        x.close()
        peer.pop(x, None)


while True:
    if stalled:  # only the listener: the rest is left unread
        try:
            r, _, _ = select.select([ls], [], [], 0.05)
        except InterruptedError:
            continue
        if r:
            c, _ = ls.accept()
            dead.add(c)  # held open, never answered
        continue
    try:
        events = sel.select(timeout=0.05)
    except InterruptedError:
        continue
    for key, _ in events:
        s = key.fileobj
        if s is ls:
            c, _ = ls.accept()
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.connect(target)
            peer[c], peer[u] = u, c
            sel.register(c, selectors.EVENT_READ, None)
            sel.register(u, selectors.EVENT_READ, None)
            continue
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if not data:
            close(s)
            continue
        try:
            peer[s].sendall(data)
        except (OSError, KeyError):
            close(s)
