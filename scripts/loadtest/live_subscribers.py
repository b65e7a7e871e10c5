#!/usr/bin/env python3
"""Many live event subscribers held open against `chatstream serve` on loopback, while a normal
client lists conversations: issue 31's "10,000 live subscriptions" and "256 streams from 8
addresses" figures.

  live_subscribers.py PORT --pid PID [--count 10000] [--per-address 100] [--per-network 500]
                      [--seconds 20]

Subscribers connect from 127.1.N.M (the server caps streams per address and per /24, so they are
spread: --per-address on each address, --per-network on each /24), each as its own device, and are
read all along (heartbeats). Once all have `event: subscribed` (or were refused), the normal client
on 127.0.0.1 sends list requests for --seconds: success rate, p50/p99, and the server's RSS
(VmRSS of --pid) before and while held, and the cost per subscriber. RLIMIT_NOFILE is raised to
its hard limit (the server needs as many descriptors: start it from a shell with `ulimit -n`
raised too).

  live_subscribers.py PORT --pid PID --count 256 --per-address 32 --per-network 256
                      the issue's 8-address scenario: 256 streams from 8 addresses.
"""
import argparse, resource, selectors, socket, sys, threading, time

LIST = (b"GET /api/sdk/agents/demo-agent/conversations HTTP/1.1\r\nHost: x\r\n"
        b"X-Device-Id: normal\r\nConnection: close\r\n\r\n")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def one_request(port, timeout=5.0):
    start = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=("127.0.0.1", 0))
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


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def source(index, per_address, per_network):
    address = index // per_address
    per_net = max(1, per_network // per_address)
    return f"127.1.{address // per_net}.{address % per_net + 1}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--per-address", type=int, default=100)
    parser.add_argument("--per-network", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.count + 100:
        sys.exit(f"RLIMIT_NOFILE hard limit {hard} is below {args.count + 100}")

    selector = selectors.DefaultSelector()
    state = {}  # socket -> [bytes seen, subscribed?]
    subscribed = refused = failed = 0
    stop = threading.Event()
    closed = [0]
    unanswered = [0]
    stream_caps = [0]
    lock = threading.Lock()

    def drain():
        nonlocal subscribed, refused
        while not stop.is_set():
            with lock:
                ready = selector.select(timeout=0) if state else []
            if not ready:
                time.sleep(0.01)
            for key, _ in ready:
                s = key.fileobj
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                entry = state[s]
                if not data:
                    selector.unregister(s)
                    s.close()
                    closed[0] += 1
                    if not entry[1]:
                        if entry[0].startswith(b"HTTP/1.1 503"):
                            refused += 1
                        else:
                            unanswered[0] += 1
                    continue
                if not entry[1]:
                    entry[0] += data
                    if b"event: subscribed" in entry[0]:
                        entry[1] = True
                        entry[0] = b""
                        subscribed += 1
                    elif entry[0].startswith(b"HTTP/1.1 503") and b"\r\n\r\n" in entry[0]:
                        entry[1] = True
                        refused += 1
                        if b"STREAMS_BUSY" in entry[0]:
                            stream_caps[0] += 1

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    before = rss_kib(args.pid)
    opened = time.monotonic()
    for index in range(args.count):
        # At most 24 subscriptions in their opening at once (under the 32 connections one address
        # may hold): each holds a connection thread until
        # it is handed to the stream writer (a burst beyond the connection cap is answered 503).
        while index - (subscribed + refused + failed + unanswered[0]) >= 24:
            time.sleep(0.002)
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((source(index, args.per_address, args.per_network), 0))
            s.connect(("127.0.0.1", args.port))
            s.sendall(b"GET /api/sdk/agents/demo-agent/events HTTP/1.1\r\nHost: x\r\n"
                      b"X-Device-Id: sub-%d\r\n\r\n" % index)
            s.setblocking(False)
            with lock:
                state[s] = [b"", False]
                selector.register(s, selectors.EVENT_READ)
        except OSError as error:
            failed += 1
            if failed <= 3:
                print(f"subscriber {index}: {error}", file=sys.stderr)
    deadline = time.monotonic() + 300
    while subscribed + refused + failed + unanswered[0] < args.count and time.monotonic() < deadline:
        time.sleep(0.2)
    setup = time.monotonic() - opened
    held_rss = rss_kib(args.pid)
    print(f"subscribers: {subscribed} subscribed, {refused} refused (503; {stream_caps[0]} by a stream cap, the others by the connection cap while opening), {failed} failed to connect, "
          f"{unanswered[0]} closed unanswered, in {setup:.1f} s")
    closed[0] = 0

    latencies, ok_count, total = [], 0, 0
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        ok, elapsed = one_request(args.port)
        total += 1
        if ok:
            ok_count += 1
            latencies.append(elapsed)
        time.sleep(0.05)
    during = rss_kib(args.pid)
    under_1s = sum(1 for value in latencies if value < 1.0)
    print(f"normal client: {ok_count}/{total} answered 200, {under_1s}/{total} under 1 s, "
          f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, p99 {percentile(latencies, 0.99) * 1000:.1f} ms")
    print(f"server RSS: {before / 1024:.1f} MiB before, {held_rss / 1024:.1f} MiB with the subscribers, "
          f"{during / 1024:.1f} MiB after the list run; "
          f"{(held_rss - before) / max(1, subscribed):.1f} KiB per subscriber")
    print(f"streams closed by the server during the run: {closed[0]}")
    stop.set()
    reader.join()
    for s in list(state):
        s.close()


if __name__ == "__main__":
    main()
