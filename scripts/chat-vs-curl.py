#!/usr/bin/env python3
"""Times `chatstream chat` against `curl -N` reading the same streamed reply (issue 22, deliverable 2).

Starts `chatstream serve` on loopback without pacing, sends a message whose echoed reply streams as
about `--reply-kb` KB of server-sent events, and runs curl and `chatstream chat --base-url` in
turns (curl, chat, curl, chat, ...) so that both meet the same machine load. Each run's wall time
(process start to exit, which is after the last byte) and CPU (user + sys, from wait4) are taken;
the report gives the medians and the ratios chat/curl of the medians.

    swift build -c release --product chatstream
    python3 scripts/chat-vs-curl.py --runs 15
    python3 scripts/chat-vs-curl.py --runs 15 --urlsession --before /tmp/chatstream-old

With --urlsession the same binary also runs with CHATSTREAM_TRANSPORT=urlsession (FoundationNetworking's
URLSession path), and with --before another chatstream binary (an older build) runs too (--before may
be given more than once; the rows are then named after each binary's file), all in the same
alternating loop, so every ratio comes from the same machine load.

Options: --binary (default .build/release/chatstream), --runs, --reply-kb, --port, --urlsession,
--before. Standard library only; loopback only; the server and every run stop by themselves.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, deadline):
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def run(argv, env, stdout=subprocess.DEVNULL, timeout=120):
    """Wall seconds, CPU seconds (user + sys), exit status and bytes written by one run of argv."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.0005)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0, os.SEEK_END)
        return wall, usage.ru_utime + usage.ru_stime, process.returncode, out.tell()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/release/chatstream")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--reply-kb", type=int, default=600)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--urlsession", action="store_true")
    parser.add_argument("--before", action="append", default=[],
                        help="another chatstream binary to run in the same loop (repeatable)")
    options = parser.parse_args()
    if not os.path.exists(options.binary):
        sys.exit(f"no {options.binary}: swift build -c release --product chatstream")
    if shutil.which("curl") is None:
        sys.exit("curl is not installed")

    port = options.port or free_port()
    data = tempfile.mkdtemp(prefix="chat-vs-curl-")
    env = dict(os.environ, XDG_DATA_HOME=data, HOME=data)
    server = subprocess.Popen(
        [options.binary, "serve", "--port", str(port), "--delay-ms", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        if not wait_for_port(port, time.monotonic() + 30):
            sys.exit("the server did not start")
        base = f"http://127.0.0.1:{port}"
        # Each word of the message comes back as one text-delta event of about 60 bytes.
        words = max(1, options.reply_kb * 1000 // 60)
        message = " ".join(f"w{index % 10000:04d}" for index in range(words))
        body_file = os.path.join(data, "body.json")
        with open(body_file, "w") as handle:
            json.dump({"message": message, "stream": True}, handle)
        curl = ["curl", "-sSN", "-X", "POST", "-H", "Content-Type: application/json",
                "-H", "Accept: text/event-stream", "-H", "X-Device-Id: chat-vs-curl",
                "--data-binary", "@" + body_file, f"{base}/agents/demo-agent/chat"]
        chat = [options.binary, "chat", "--base-url", base, message]
        variants = [("curl", curl, env), ("chat", chat, env)]
        if options.urlsession:
            variants.append(("chat-urlsession", chat, dict(env, CHATSTREAM_TRANSPORT="urlsession")))
        for path in options.before:
            name = "chat-before" if len(options.before) == 1 else "chat-" + os.path.basename(path)
            variants.append((name, [path] + chat[1:], env))

        # One of each first, not counted: warms the server, the page cache and the store.
        reply_bytes = printed = 0
        for name, argv, variant_env in variants:
            _, _, status, written = run(argv, variant_env)
            if status != 0:
                sys.exit(f"{name} failed with status {status}")
            if name == "curl":
                reply_bytes = written
            elif name == "chat":
                printed = written

        results = {name: [] for name, _, _ in variants}
        for _ in range(options.runs):
            for name, argv, variant_env in variants:
                wall, cpu, status, _ = run(argv, variant_env)
                if status != 0:
                    sys.exit(f"{name} failed with status {status}")
                results[name].append((wall, cpu))

        def median(name, index):
            return statistics.median(sample[index] for sample in results[name])

        print(f"reply: {reply_bytes} bytes of SSE ({words} text deltas, {printed} bytes of text printed), "
              f"{options.runs} runs each, alternating")
        for name, _, _ in variants:
            walls = sorted(sample[0] for sample in results[name])
            print(f"{name:15} wall median {median(name, 0) * 1000:7.1f} ms "
                  f"(min {walls[0] * 1000:6.1f}, max {walls[-1] * 1000:7.1f}), "
                  f"cpu median {median(name, 1) * 1000:6.1f} ms")
        for name, _, _ in variants[1:]:
            time_ratio = median(name, 0) / median("curl", 0)
            cpu_ratio = median(name, 1) / median("curl", 1)
            print(f"{name}/curl: time {time_ratio:.2f}, cpu {cpu_ratio:.2f}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
