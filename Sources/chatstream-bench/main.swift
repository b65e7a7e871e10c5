// chatstream-bench: the benchmark suite (issue 6).
print("chatstream-bench: not yet written")
