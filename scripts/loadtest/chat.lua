-- wrk script: a streamed chat that starts a new conversation each time (its own device, so the
-- list benchmark's page stays the same size).
wrk.method = "POST"
wrk.path = "/api/sdk/agents/demo-agent/chat"
wrk.headers["X-Device-Id"] = "bench-chat"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"message":"hello there, how are you?","stream":true}'
