"""One request to tierd's control socket (docs/api.md), for the bench scripts."""
import json
import socket


def call(sock_path, method, params=None):
    """The whole reply of one request, as a dict ("ok", "result" or "error")."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    s.sendall((json.dumps({"version": 1, "method": method, "params": params or {}}) + "\n").encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]
