-- wrk script: a conversation list page for one device.
wrk.method = "GET"
wrk.path = "/api/sdk/agents/demo-agent/conversations?limit=20"
wrk.headers["X-Device-Id"] = "bench-list"
