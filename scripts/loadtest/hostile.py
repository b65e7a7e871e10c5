#!/usr/bin/env python3
"""Hostile-load figures for `chatstream serve` on loopback (bounded in count and time).

  hostile.py held  PORT [--pid PID]  300 slow connections (a byte every 10 s) and 256 abandoned
                                     requests (sent, never read) from 127.0.0.2, while a normal
                                     client on 127.0.0.1 sends list requests for 20 s: success
                                     rate and p50/p99 latency.
  hostile.py body  PORT --pid PID    server CPU time for an 8 MiB request body sent in one write
                                     against 256-byte writes, and their ratio.
"""
import argparse, os, socket, sys, threading, time

LIST = (b"GET /api/sdk/agents/demo-agent/conversations HTTP/1.1\r\nHost: x\r\n"
        b"X-Device-Id: normal\r\nConnection: close\r\n\r\n")


def one_request(port, timeout=5.0):
    start = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                     source_address=("127.0.0.1", 0))
        s.sendall(LIST)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        ok = data.startswith(b"HTTP/1.1 200")
    except OSError:
        ok = False
    return ok, time.monotonic() - start


def slow_connection(port, stop, held):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
    except OSError:
        return
    held.append(s)
    payload = b"GET /api/sdk/agents/demo-agent/conversations HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 10000
    for index, byte in enumerate(payload):
        if index > 0 and stop.wait(10):
            break
        try:
            s.send(bytes([byte]))
        except OSError:
            break


def abandoned_request(port, held):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        body = b'{"message":"hello","stream":true}'
        s.sendall(b"POST /api/sdk/agents/demo-agent/chat HTTP/1.1\r\nHost: x\r\nX-Device-Id: gone\r\n"
                  b"Content-Type: application/json\r\nX-ChatStream-Fault: delay-ms=600000\r\n"
                  b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        held.append(s)  # never read
    except OSError:
        pass


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def held(args):
    stop = threading.Event()
    sockets = []
    for _ in range(256):
        abandoned_request(args.port, sockets)
    threads = [threading.Thread(target=slow_connection, args=(args.port, stop, sockets), daemon=True)
               for _ in range(300)]
    for t in threads:
        t.start()
    time.sleep(2)
    deadline = time.monotonic() + args.seconds
    results = []
    while time.monotonic() < deadline:
        results.append(one_request(args.port))
        time.sleep(0.05)
    stop.set()
    for s in sockets:
        try:
            s.close()
        except OSError:
            pass
    ok = [latency for good, latency in results if good]
    print(f"normal client: {len(ok)}/{len(results)} succeeded ({100.0 * len(ok) / max(1, len(results)):.1f}%), "
          f"p50 {percentile(ok, 0.5) * 1000:.1f} ms, p99 {percentile(ok, 0.99) * 1000:.1f} ms, "
          f"held sockets {len(sockets)}")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def send_body(port, piece):
    size = 8 * 1024 * 1024
    body = b"x" * size
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(b"POST /api/sdk/agents/demo-agent/chat HTTP/1.1\r\nHost: x\r\nX-Device-Id: body\r\n"
              b"Connection: close\r\nContent-Length: " + str(size).encode() + b"\r\n\r\n")
    if piece >= size:
        s.sendall(body)
    else:
        # Paced (~0.1 ms apart), so the server's reads see the small writes rather than coalesced ones.
        for offset in range(0, size, piece):
            s.sendall(body[offset:offset + piece])
            time.sleep(0.0001)
    reply = s.recv(4096)
    s.close()
    return reply.split(b"\r\n", 1)[0].decode()


def body(args):
    figures = {}
    for label, piece in (("one write", 8 * 1024 * 1024), ("256-byte writes", 256)):
        before = cpu_seconds(args.pid)
        status = send_body(args.port, piece)
        time.sleep(0.2)
        figures[label] = cpu_seconds(args.pid) - before
        print(f"{label}: server CPU {figures[label]:.2f} s ({status})")
    print(f"ratio: {figures['256-byte writes'] / max(0.01, figures['one write']):.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["held", "body"])
    parser.add_argument("port", type=int)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    {"held": held, "body": body}[args.mode](args)


if __name__ == "__main__":
    main()
