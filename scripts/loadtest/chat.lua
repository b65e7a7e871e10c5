-- wrk script: a streamed chat that starts a new conversation each time, from a device of its own
-- each time (so the list benchmark's page stays the same size, and no identity reaches the
-- server's conversation quota however long the run).
wrk.method = "POST"
wrk.path = "/api/sdk/agents/demo-agent/chat"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"message":"hello there, how are you?","stream":true}'
local counter = 0
request = function()
    counter = counter + 1
    wrk.headers["X-Device-Id"] = "bench-chat-" .. tostring(math.random(1, 1e9)) .. "-" .. counter
    return wrk.format()
end
