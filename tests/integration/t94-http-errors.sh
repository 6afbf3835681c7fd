# t94-http-errors.sh - every error the daemon answers is the JSON envelope,
# those of the HTTP layer too (malformed request line, body too large,
# methods it does not serve, unknown routes), over raw requests.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
start_daemon

cat > "$TMP/raw.py" <<'PY'
import json, socket, sys

sock_path = sys.argv[1]
chunked = b"".join(b"%x\r\n" % (1 << 16) + b"y" * (1 << 16) + b"\r\n"
                   for _ in range(20)) + b"0\r\n\r\n"
cases = [
    ("HEAD", b"HEAD /v1/status HTTP/1.1\r\nHost: a\r\n\r\n", 501, None),
    ("PATCH", b"PATCH /v1/status HTTP/1.1\r\nHost: a\r\n\r\n", 501,
     "not_implemented"),
    ("unknown method", b"FROB /v1/status HTTP/1.1\r\nHost: a\r\n\r\n", 501,
     "not_implemented"),
    ("bad request line", b"garbage\r\n\r\n", 400, "bad_request"),
    ("bad version", b"GET /v1/status HTTP/9\r\n\r\n", 400, "bad_request"),
    ("declared body too large",
     b"POST /v1/agents HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n"
     b"Content-Type: application/json\r\n\r\n", 413, "too_large"),
    ("chunked body too large",
     b"POST /v1/agents HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
     b"Content-Type: application/json\r\n\r\n" + chunked, 413, "too_large"),
    ("unknown route", b"GET /nope HTTP/1.1\r\nHost: a\r\n\r\n", 404,
     "unknown_route"),
    ("wrong method", b"DELETE /v1/status HTTP/1.1\r\nHost: a\r\n\r\n", 405,
     "method_not_allowed"),
]
failed = 0
for name, req, want, code in cases:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.settimeout(10)
    try:
        s.sendall(req)
    except OSError:
        pass
    data = b""
    try:
        while b"\r\n\r\n" not in data or (
                code and not data.rstrip().endswith(b"}")):
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if len(lines[0].split()) > 1 else 0
    headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip()
               for l in lines[1:] if ":" in l}
    ok = status == want and headers.get("content-type") == "application/json"
    if ok and code:
        try:
            err = json.loads(body)["error"]
            ok = err["code"] == code and isinstance(err["message"], str)
        except (ValueError, KeyError, TypeError):
            ok = False
    if not ok:
        print(f"FAIL: {name}: {data[:300]!r}", file=sys.stderr)
        failed += 1
    s.close()
sys.exit(1 if failed else 0)
PY
check "the HTTP layer's errors are JSON" python3 "$TMP/raw.py" "$SOCK"
api GET /v1/status
check "the daemon still answers" [ "$CODE" = 200 ]
check "HEAD is refused with a JSON type" sh -c \
    "curl -sI --unix-socket '$SOCK' http://a/v1/status | grep -qi '^content-type: application/json'"
finish
