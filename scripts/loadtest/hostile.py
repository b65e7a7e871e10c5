#!/usr/bin/env python3
"""Hostile-load figures for `chatstream serve` on loopback (bounded in count and time).

  hostile.py held  PORT [--pid PID] [--addresses 18] [--fault]
                                     300 slow connections (a byte every 10 s) and 256 abandoned
                                     streamed chats (sent, never read) spread over --addresses
                                     addresses, each in a /24 of its own (127.2.N.1, none in the
                                     normal client's 127.0.0.0/24), while a normal client on
                                     127.0.0.1 sends list requests for 20 s: success rate, share
                                     under 1 s, p50/p99 latency, and the server's RSS (VmRSS of
                                     --pid) before and during. --fault sends the abandoned chats
                                     with `X-ChatStream-Fault: delay-ms=600000` (a server started
                                     with --allow-fault-header then paces them on their thread);
                                     --words N: each chat's message (default 2,000 words, a
                                     reply of about 30 s at the default pace, so they stay open).
  hostile.py body  PORT --pid PID    server CPU time for an 8 MiB request body sent in one write
                                     against 256-byte writes, and their ratio.
"""
import argparse, os, resource, socket, sys, threading, time

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


def attacker(index, addresses):
    """The attacker address of connection `index`: one of `addresses`, each in its own /24."""
    return f"127.2.{index % addresses}.1"


def rss_kib(pid):
    if not pid:
        return 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def slow_connection(port, stop, held, address):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
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


def abandoned_request(port, held, address, fault, words):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(5)
        s.bind((address, 0))
        s.connect(("127.0.0.1", port))
        # A long message: its echoed reply takes about words x 15 ms to generate at the default pace.
        message = " ".join(f"word{n}" for n in range(words))
        body = b'{"message":"' + message.encode() + b'","stream":true}'
        extra = b"X-ChatStream-Fault: delay-ms=600000\r\n" if fault else b""
        s.sendall(b"POST /api/sdk/agents/demo-agent/chat HTTP/1.1\r\nHost: x\r\nX-Device-Id: gone\r\n"
                  b"Content-Type: application/json\r\n" + extra +
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
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    stop = threading.Event()
    sockets = []
    before = rss_kib(args.pid)
    for index in range(256):
        abandoned_request(args.port, sockets, attacker(index, args.addresses), args.fault, args.words)
    threads = [threading.Thread(target=slow_connection,
                                args=(args.port, stop, sockets, attacker(index, args.addresses)), daemon=True)
               for index in range(300)]
    for t in threads:
        t.start()
    time.sleep(2)
    deadline = time.monotonic() + args.seconds
    results = []
    peak = rss_kib(args.pid)
    while time.monotonic() < deadline:
        results.append(one_request(args.port))
        peak = max(peak, rss_kib(args.pid))
        time.sleep(0.05)
    stop.set()
    for s in sockets:
        try:
            s.close()
        except OSError:
            pass
    ok = [latency for good, latency in results if good]
    fast = sum(1 for latency in ok if latency < 1.0)
    print(f"attackers: 300 slow and 256 abandoned connections from {args.addresses} addresses "
          f"({len(sockets)} connected)")
    print(f"normal client: {len(ok)}/{len(results)} succeeded ({100.0 * len(ok) / max(1, len(results)):.1f}%), "
          f"{fast}/{len(results)} under 1 s ({100.0 * fast / max(1, len(results)):.1f}%), "
          f"p50 {percentile(ok, 0.5) * 1000:.1f} ms, p99 {percentile(ok, 0.99) * 1000:.1f} ms")
    if args.pid:
        print(f"server RSS: {before / 1024:.1f} MiB before, at most {peak / 1024:.1f} MiB during")


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
    parser.add_argument("--addresses", type=int, default=18)
    parser.add_argument("--fault", action="store_true")
    parser.add_argument("--words", type=int, default=2000)
    args = parser.parse_args()
    {"held": held, "body": body}[args.mode](args)


if __name__ == "__main__":
    main()
