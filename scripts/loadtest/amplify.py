#!/usr/bin/env python3
"""Issue 31's memory-amplification scenarios against `chatstream serve` on loopback, full size.

  amplify.py PORT --pid PID [--data FILE] [SCENARIO ...]

Scenarios (all by default), each printing the answers it got, the server's RSS (VmRSS of PID)
before and after, and the database's size when --data names the server's file:

  title     a 4 MiB title (must be refused), then a 1 KiB title and 200 updates of 25 tags of 64
            characters each (every update is a live event)
  marks     25 tags of one letter with 100,000 combining marks each (must be refused)
  reply     100 chats of a 2 MiB message, then 100 of 1 MiB (the largest the message limit
            accepts), each from a fresh device (a `message.created` apiece)
  lists     20 conversations with the longest title, then 8 concurrent lists, 5 times
  devices   1 MiB chats from fresh devices until the store budget answers 507 (at most 2,000);
            run the server with a small `--store-budget-mib` (e.g. 64) to see it

Run: `chatstream serve --port 8787 --data /tmp/amp.sqlite --store-budget-mib 512 &`, then
`scripts/loadtest/amplify.py 8787 --pid $! --data /tmp/amp.sqlite`.
"""
import argparse, json, os, socket, threading, uuid

AGENT = "demo-agent"


def request(port, method, path, device, body=None, timeout=120):
    """One request on its own connection; returns (status, body bytes)."""
    payload = b"" if body is None else json.dumps(body).encode()
    head = (f"{method} /api/sdk/agents/{AGENT}/{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"X-Device-Id: {device}\r\nConnection: close\r\n")
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    data = b""
    try:
        try:
            s.sendall(head.encode() + b"\r\n" + payload)
        except OSError:
            pass  # the server may answer (400, 413) before reading the whole body: read that answer
        while True:
            piece = s.recv(1 << 20)
            if not piece:
                break
            data += piece
    except OSError:
        pass
    finally:
        s.close()
    try:
        return int(data.split(b" ", 2)[1]), data
    except (IndexError, ValueError):
        return 0, data


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def data_mib(path):
    if not path:
        return None
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += os.path.getsize(path + suffix)
        except OSError:
            pass
    return total / (1 << 20)


def counts(statuses):
    summary = {}
    for status in statuses:
        summary[status] = summary.get(status, 0) + 1
    return " ".join(f"{status}x{count}" for status, count in sorted(summary.items()))


def title(port):
    device = "amp-title-" + uuid.uuid4().hex[:8]
    big, _ = request(port, "POST", "conversations", device, {"id": str(uuid.uuid4()), "title": "t" * (4 << 20)})
    print(f"  4 MiB title: {big}")
    conversation = str(uuid.uuid4())
    created, _ = request(port, "POST", "conversations", device, {"id": conversation, "title": "t" * 1024})
    statuses = [created]
    for round in range(200):
        tags = [(f"{round}-{index}-" + "g" * 64)[:64] for index in range(25)]
        statuses.append(request(port, "PUT", f"conversations/{conversation}/tags", device, {"tags": tags})[0])
    print(f"  1 KiB title + 200 tag updates: {counts(statuses)}")


def marks(port):
    device = "amp-marks-" + uuid.uuid4().hex[:8]
    conversation = str(uuid.uuid4())
    request(port, "POST", "conversations", device, {"id": conversation})
    tag = "e" + "\u0301" * 100_000
    status, _ = request(port, "PUT", f"conversations/{conversation}/tags", device, {"tags": [tag] * 25})
    print(f"  25 tags of 100,000 combining marks: {status}")


def reply(port):
    for size, label in ((2 << 20, "2 MiB (over the message limit)"), ((1 << 20) - 16, "1 MiB (the largest accepted)")):
        message = "r" * size
        statuses = []
        for _ in range(100):
            device = "amp-reply-" + uuid.uuid4().hex[:8]
            statuses.append(request(port, "POST", "chat", device, {"message": message, "stream": False})[0])
        print(f"  100 chats of {label}: {counts(statuses)}")


def lists(port):
    device = "amp-lists-" + uuid.uuid4().hex[:8]
    for _ in range(20):
        request(port, "POST", "conversations", device, {"id": str(uuid.uuid4()), "title": "L" * 1024})
    sizes, statuses = [], []

    def one():
        status, data = request(port, "GET", "conversations?limit=20", device)
        statuses.append(status)
        sizes.append(len(data))

    for _ in range(5):
        threads = [threading.Thread(target=one) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print(f"  40 lists of 20 long-titled conversations: {counts(statuses)}, largest page {max(sizes)} bytes")


def devices(port):
    message = "d" * (1 << 20)
    statuses = []
    for index in range(2000):
        status = request(port, "POST", "chat", f"amp-device-{uuid.uuid4().hex[:8]}", {"message": message, "stream": False})[0]
        statuses.append(status)
        if status == 507:
            break
    print(f"  1 MiB chats from fresh devices: {counts(statuses)} (stopped after {len(statuses)})")


SCENARIOS = {"title": title, "marks": marks, "reply": reply, "lists": lists, "devices": devices}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("port", type=int)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--data")
    parser.add_argument("scenarios", nargs="*", default=list(SCENARIOS))
    arguments = parser.parse_intermixed_args()
    peak = rss_mib(arguments.pid)
    print(f"start: RSS {peak:.0f} MiB, data {data_mib(arguments.data)} MiB")
    for name in arguments.scenarios:
        before = rss_mib(arguments.pid)
        print(f"{name}:")
        SCENARIOS[name](arguments.port)
        after = rss_mib(arguments.pid)
        peak = max(peak, after)
        data = data_mib(arguments.data)
        shown = "" if data is None else f", data {data:.1f} MiB"
        print(f"  RSS {before:.0f} -> {after:.0f} MiB{shown}")
    print(f"largest RSS seen: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
