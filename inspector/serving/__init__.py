"""Loopback uvicorn servers run in a thread or in the running loop, with a deadline on
each request: what the mock, the push receiver, replay serving and the tests share; and
the guard that keeps web pages out of the proxy, the hub and the mock (browser_guard).

Cross-cutting (the bottom layer): it imports uvicorn and nothing of ours, so the client
(push receiver) and the mock, which stand beside each other, both use it."""
