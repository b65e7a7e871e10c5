// simdjson-peer: the state of the art for "bytes to typed events" on one core, as issue 32 defines
// it, and the baseline of `chatstream-bench --simdjson`. It is a benchmark baseline, not part of
// ChatStream: built by Benchmarks/simdjson-peer/build.sh from Debian's libsimdjson-dev.
//
//   simdjson-peer FORMAT FILE [text|tool]
//
// Reads FILE whole (one read into a buffer with simdjson's padding), frames it the cheapest way
// the format allows (memchr for lines; Gemini's array is one document), reads each unit with
// simdjson On-Demand and appends the field a chat client shows to one growing string: the text
// deltas, or with `tool` the streamed tool-call input. Prints "FORMAT: N text bytes", the same
// line scripts/peer-bench.sh expects of a peer, so both sides can be checked to read the same text.
//
// Example: `simdjson-peer openai-chat /tmp/openai.sse` prints `openai-chat: 1048437 text bytes`.

#include <simdjson.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

namespace {

struct Reader {
    od::parser parser;
    std::string out;
    bool tool = false;
    const char *end = nullptr;  // end of the padded buffer: every unit's padding comes from it

    od::document parse(const char *json, size_t length) {
        size_t capacity = size_t(end - json);
        return parser.iterate(simdjson::padded_string_view(json, length, capacity));
    }

    void append(simdjson::simdjson_result<od::value> value) {
        std::string_view text;
        if (value.get_string().get(text) == SUCCESS) out.append(text);
    }

    // One unit of each format: the fields the ChatStream dialect reads for the same text.
    void uiMessageStream(od::document &doc) {
        std::string_view type;
        if (doc["type"].get_string().get(type) != SUCCESS) return;
        if (!tool && type == "text-delta") append(doc["delta"]);
        if (tool && type == "tool-input-delta") append(doc["inputTextDelta"]);
    }

    void openAIChat(od::document &doc) {
        od::array choices;
        if (doc["choices"].get_array().get(choices) != SUCCESS) return;
        for (auto choice : choices) {
            od::object delta;
            if (choice["delta"].get_object().get(delta) != SUCCESS) return;
            if (!tool) {
                append(delta["content"]);
            } else {
                od::array calls;
                if (delta["tool_calls"].get_array().get(calls) != SUCCESS) return;
                for (auto call : calls) {
                    append(call["function"]["arguments"]);
                    break;
                }
            }
            break;
        }
    }

    void anthropic(od::document &doc) {
        std::string_view type;
        if (doc["type"].get_string().get(type) != SUCCESS || type != "content_block_delta") return;
        append(doc["delta"][tool ? "partial_json" : "text"]);
    }

    void responses(od::document &doc) {
        std::string_view type;
        if (doc["type"].get_string().get(type) != SUCCESS) return;
        if (type == (tool ? "response.function_call_arguments.delta" : "response.output_text.delta"))
            append(doc["delta"]);
    }

    void ollama(od::document &doc) { append(doc["message"]["content"]); }

    void gemini(od::value element) {
        od::array candidates;
        if (element["candidates"].get_array().get(candidates) != SUCCESS) return;
        for (auto candidate : candidates) {
            od::array parts;
            if (candidate["content"]["parts"].get_array().get(parts) != SUCCESS) return;
            for (auto part : parts) append(part["text"]);
            break;
        }
    }
};

// Calls `unit(json, length)` for each line of [start, stop) (without its CR LF), or for each SSE
// `data:` line's value when `sse`.
template <typename Unit> void lines(const char *start, const char *stop, bool sse, Unit unit) {
    const char *line = start;
    while (line < stop) {
        const char *newline = static_cast<const char *>(memchr(line, '\n', size_t(stop - line)));
        const char *lineEnd = newline ? newline : stop;
        const char *valueEnd = (lineEnd > line && lineEnd[-1] == '\r') ? lineEnd - 1 : lineEnd;
        if (!sse) {
            if (valueEnd > line) unit(line, size_t(valueEnd - line));
        } else if (valueEnd - line >= 5 && memcmp(line, "data:", 5) == 0) {
            const char *value = line + 5;
            if (value < valueEnd && *value == ' ') value++;
            if (!(valueEnd - value == 6 && memcmp(value, "[DONE]", 6) == 0)) unit(value, size_t(valueEnd - value));
        }
        line = lineEnd + 1;
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: simdjson-peer FORMAT FILE [text|tool]\n");
        return 2;
    }
    std::string_view format = argv[1];
    simdjson::padded_string bytes;
    if (simdjson::padded_string::load(argv[2]).get(bytes) != SUCCESS) {
        fprintf(stderr, "simdjson-peer: cannot read %s\n", argv[2]);
        return 1;
    }
    Reader reader;
    reader.tool = argc > 3 && std::string_view(argv[3]) == "tool";
    reader.end = bytes.data() + bytes.size() + simdjson::SIMDJSON_PADDING;
    const char *start = bytes.data();
    const char *stop = start + bytes.size();
    auto sse = [&](void (Reader::*read)(od::document &)) {
        lines(start, stop, true, [&](const char *json, size_t length) {
            auto doc = reader.parse(json, length);
            (reader.*read)(doc);
        });
    };
    if (format == "ui-message-stream") {
        sse(&Reader::uiMessageStream);
    } else if (format == "openai-chat") {
        sse(&Reader::openAIChat);
    } else if (format == "anthropic") {
        sse(&Reader::anthropic);
    } else if (format == "openai-responses") {
        sse(&Reader::responses);
    } else if (format == "ndjson") {
        lines(start, stop, false, [&](const char *json, size_t length) {
            auto doc = reader.parse(json, length);
            reader.ollama(doc);
        });
    } else if (format == "ai-sdk-v4") {
        // `0:"text"` lines: the text part's value is one JSON string after the code.
        lines(start, stop, false, [&](const char *line, size_t length) {
            if (length < 2 || line[0] != '0' || line[1] != ':') return;
            auto doc = reader.parse(line + 2, length - 2);
            std::string_view text;
            if (doc.get_string().get(text) == SUCCESS) reader.out.append(text);
        });
    } else if (format == "json-array") {
        od::document doc = reader.parser.iterate(bytes);
        od::array elements;
        if (doc.get_array().get(elements) != SUCCESS) {
            fprintf(stderr, "simdjson-peer: %s is not one JSON array\n", argv[2]);
            return 1;
        }
        for (auto element : elements) reader.gemini(element.value());
    } else {
        fprintf(stderr, "simdjson-peer: unknown format %s\n", argv[1]);
        return 2;
    }
    printf("%s: %zu text bytes\n", argv[1], reader.out.size());
    return 0;
}
