#!/usr/bin/env python3
"""A hostile chat server on loopback, for the client's memory figures (bounded in time).

  hostile_server.py comments PORT SECONDS   answers every request with an SSE stream of comments
                                            (": keep-alive ...") at full speed for SECONDS
  hostile_server.py bomb PORT SECONDS       answers with a gzip body (about 1 MiB on the wire) that
                                            inflates to 1 GiB of SSE comments (cached in /tmp)
  hostile_server.py retry0 PORT SECONDS     answers every request with an event stream that says
                                            `retry: 0`, one `subscribed` event, and closes; prints
                                            the requests received and their rate at the end (run
                                            `chatstream events --base-url http://127.0.0.1:PORT`
                                            against it: issue 31's "retry: 0" figure)

Run a client against http://127.0.0.1:PORT and watch its peak RSS (`/usr/bin/time -v`).
"""
import socket, sys, threading, time, zlib


def gzip_bomb(path="/tmp/chatstream-bomb-1g.gz"):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        pass
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    piece = (b": " + b"x" * 1021 + b"\n") * 1024  # 1 MiB of comment lines
    parts = [compressor.compress(piece) for _ in range(1024)]  # 1 GiB inflated
    parts.append(compressor.flush())
    bomb = b"".join(parts)
    with open(path, "wb") as f:
        f.write(bomb)
    return bomb


def read_request(conn):
    """Reads the whole request (head and Content-Length body): closing with unread bytes would
    reset the connection and drop what the client has not read yet."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(65536)
        if not piece:
            return
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(body) < length:
        piece = conn.recv(65536)
        if not piece:
            return
        body += piece


REQUESTS = []


def serve(conn, mode, deadline, bomb):
    try:
        read_request(conn)
        REQUESTS.append(time.monotonic())
        head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                b"x-vercel-ai-ui-message-stream: v1\r\n")
        if mode == "bomb":
            conn.sendall(head + b"Content-Encoding: gzip\r\nContent-Length: " + str(len(bomb)).encode()
                         + b"\r\nConnection: close\r\n\r\n")
            view = memoryview(bomb)
            for offset in range(0, len(bomb), 65536):
                if time.monotonic() > deadline:
                    break
                conn.sendall(view[offset:offset + 65536])
        elif mode == "retry0":
            body = b"retry: 0\n\nid: 1\nevent: subscribed\ndata: {}\n\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
        else:
            conn.sendall(head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            line = b": keep-alive " + b"x" * 1000 + b"\n"
            chunk = line * 64
            frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
            while time.monotonic() < deadline:
                conn.sendall(frame)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    mode, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    bomb = gzip_bomb() if mode == "bomb" else b""
    deadline = time.monotonic() + seconds
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(0.5)
    print(f"ready ({len(bomb)} bytes of gzip)" if bomb else "ready", flush=True)
    while time.monotonic() < deadline:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(conn, mode, deadline, bomb), daemon=True).start()
    listener.close()
    if mode == "retry0":
        span = (REQUESTS[-1] - REQUESTS[0]) if len(REQUESTS) > 1 else 0
        print(f"{len(REQUESTS)} requests in {seconds:.0f} s ({len(REQUESTS) / seconds:.1f}/s; "
              f"first to last {span:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
