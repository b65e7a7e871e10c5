#!/usr/bin/env python3
"""Builds a seed corpus for one fuzz target from Fixtures/ and ../shared/ (read in place).

Usage: Fuzz/make-seeds.py TARGET OUTDIR

Every seed is two control bytes (chunk seed, options; see Fuzz/Support/FuzzInput.swift) followed
by a payload. Third-party captures are only read here; the corpus lands in a gitignored folder.
"""
import base64, glob, hashlib, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
if not os.path.isdir(SHARED):
    SHARED = "/work/shared"
FIXTURES = os.path.join(ROOT, "Fixtures")


def files(*patterns):
    for pattern in patterns:
        for base in (FIXTURES, SHARED):
            for path in sorted(glob.glob(os.path.join(base, pattern), recursive=True)):
                if os.path.isfile(path):
                    yield path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sse_payloads():
    for path in files("**/*.sse"):
        yield read(path)
    cases = os.path.join(SHARED, "conformance/sse/cases.json")
    if os.path.exists(cases):
        for case in json.load(open(cases))["cases"]:
            yield b"".join(base64.b64decode(c) for c in case.get("chunks_b64", []))


def sse_data_lines():
    """The JSON payloads of `data:` lines in captured streams."""
    for payload in sse_payloads():
        for line in payload.splitlines():
            if line.startswith(b"data:"):
                data = line[5:].strip()
                if data and data != b"[DONE]":
                    yield data


def json_suite():
    for path in files("conformance/JSONTestSuite/test_parsing/*.json"):
        yield os.path.basename(path), read(path)


def ndjson_payloads():
    for path in files("**/*.jsonl", "**/*.ndjson"):
        yield read(path)


def sse_dialect(payload):
    """Which FuzzDialects index an SSE capture belongs to (by its content)."""
    if b"message_start" in payload or b"content_block" in payload:
        return 3  # Anthropic
    if b'"response.' in payload:
        return 2  # OpenAI Responses
    if b'"choices"' in payload:
        return 1  # OpenAI Chat Completions
    return 0  # UI message stream


TEST_DIALECTS = {
    "UIMessageStreamDialectTests": 0, "OpenAIChatDialectTests": 1, "OpenAIResponsesDialectTests": 2,
    "AnthropicDialectTests": 3, "DataStreamV4DialectTests": 4, "OllamaDialectTests": 5, "GeminiDialectTests": 6,
}


def test_streams():
    """The multi-line stream literals in the project's own dialect tests."""
    import re
    for name, index in TEST_DIALECTS.items():
        path = os.path.join(ROOT, "Tests/ChatStreamTests", name + ".swift")
        if not os.path.exists(path):
            continue
        for match in re.finditer(r'"""\n(.*?)\n([ \t]*)"""', open(path).read(), re.S):
            indent = match.group(2)
            lines = [line[len(indent):] if line.startswith(indent) else line for line in match.group(1).split("\n")]
            text = "\n".join(lines) + "\n"
            if "\\(" in text:
                continue  # interpolated
            yield index, text.replace("\\n", "\n").encode()


def history_pages():
    parts = [
        {"type": "text", "text": "Hello"},
        {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}},
        {"type": "tool-result", "toolCallId": "c1", "toolName": "weather", "output": {"temp": 21.5}},
        {"type": "reasoning", "text": "thinking"},
        {"type": "source-url", "sourceId": "s1", "url": "https://example.com", "title": "Ex"},
        {"type": "file", "url": "data:,", "mediaType": "text/plain"},
        {"type": "data-weather", "id": "d1", "data": [1, 2, None]},
        {"type": "mystery", "payload": True},
        {"type": "text"},
    ]
    messages = [
        {"id": "m%d" % i, "role": role, "parts": parts[i % len(parts):] or parts[:1], "createdAt": 1700000000 + i,
         "feedback": None, "metadata": {"score": 0.5}}
        for i, role in enumerate(["user", "assistant", "agent", "user", "assistant"])
    ]
    messages.append({"id": "empty", "role": "user", "parts": []})
    yield json.dumps({"data": messages, "pagination": {"cursor": "abc", "hasMore": True, "total": 12}}).encode()
    yield json.dumps({"data": [], "pagination": {"cursor": None, "hasMore": False, "total": 0}}).encode()
    for part in parts:
        yield json.dumps({"data": [{"id": "x", "role": "assistant", "parts": [part]}]}).encode()


def seeds(target):
    if target == "FuzzSSE":
        for payload in sse_payloads():
            yield bytes([0, 0]) + payload
            yield bytes([1, 0]) + payload
            yield bytes([2, 0x23]) + payload  # small limits
    elif target == "FuzzFraming":
        for payload in ndjson_payloads():
            yield bytes([2, 0]) + payload
        lines = [data for data in sse_data_lines()]
        yield bytes([1, 0]) + b"\n".join(lines[:200]) + b"\n"
        yield bytes([1, 1]) + b'0:"Hello"\n0:" world"\n9:{"toolCallId":"c","toolName":"t","args":{}}\nd:{"finishReason":"stop"}\n'
        yield bytes([3, 2]) + b"[" + b",".join(lines[:100]) + b"]"
        yield bytes([3, 3]) + b" ".join(lines[:100])
        for name, text in json_suite():
            yield bytes([len(name) & 0xFF, 2]) + b"[" + text + b"," + text + b"]"
            yield bytes([len(name) & 0xFF, 3]) + text + b"\n" + text
    elif target == "FuzzJSON":
        for name, text in json_suite():
            yield bytes([len(name) & 0xFF, 0]) + text
        for data in sse_data_lines():
            yield bytes([1, 0]) + data
    elif target == "FuzzDialects":
        # Dialect indices as listed in Fuzz/Targets/FuzzDialects (the options byte's low 3 bits).
        for payload in sse_payloads():
            index = sse_dialect(payload)
            # plain, lenient, small limits, through AnyMessageDecoder (its format, and detected),
            # and through the sink form (lenient)
            for extra in (0, 8, 16, 32 | 64, 128 | 8):
                yield bytes([extra + 1, index | extra]) + payload
            # Under another dialect: it must fail cleanly.
            yield bytes([3, (index + 1 + len(payload) % 6) % 7]) + payload
        # The vendor corpus's non-SSE streams, by folder (the SSE ones come in above).
        for folder, index in (("ai-sdk-v4", 4), ("ndjson", 5), ("json-array", 6)):
            for path in sorted(glob.glob(os.path.join(FIXTURES, "vendor-streams", folder, "*"))):
                if not path.endswith(".expected.json"):
                    payload = read(path)
                    yield bytes([0, index]) + payload
                    yield bytes([1, index | 32 | 64 | 128]) + payload
        for index, payload in test_streams():
            yield bytes([0, index]) + payload
            yield bytes([2, index | 8]) + payload
            yield bytes([1, index | 32 | 64]) + payload
            yield bytes([3, index | 128]) + payload
    elif target == "FuzzHistory":
        for page in history_pages():
            yield bytes([0, 0]) + page
    elif target == "FuzzLiveEvents":
        # Options bit 0: the format (0 home, 1 Salesforce); bit 1 small limits; bit 2 strict too.
        for path in sorted(glob.glob(os.path.join(FIXTURES, "live-events", "*.sse"))):
            payload = read(path)
            index = 1 if os.path.basename(path).startswith("salesforce") else 0
            yield bytes([0, index]) + payload
            yield bytes([1, index | 4]) + payload
            yield bytes([2, index | 2]) + payload
            # One event at a time, so mutations stay inside a single event's shape.
            for block in payload.replace(b"\r\n", b"\n").split(b"\n\n"):
                if b"event:" in block:
                    yield bytes([3, index | 4]) + block + b"\n\n"
    else:
        sys.exit("unknown target " + target)


def main():
    target, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    count = 0
    for seed in seeds(target):
        name = hashlib.sha1(seed).hexdigest()
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(seed)
        count += 1
    print("%s: %d seeds in %s" % (target, count, outdir))


main()
