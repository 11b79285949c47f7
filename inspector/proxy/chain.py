"""The call chain: which exchange through the proxy an agent made while working on a
task that reached it through the proxy too (an orchestrator at one route calling a
sub-agent at another).

The proxy cannot see inside an agent, so this is an inference, and it says so. When a
send or stream arrives on one route while exchanges are open on other routes:

* one of them is about a task whose contextId the new message carries: "likely, same
  contextId" (an agent passing its context on is the usual way to tie the calls);
* else exactly one is open: "likely, by time only" (nothing else was going on);
* else several are: no guess; the NOTE lists them.

Each inference is a NOTE (code ``proxy-call-chain``) on the new exchange, with
``parent_exchange``, ``parent_task`` and ``confidence``; the tracker links the tasks
(TaskView.parent, TaskTracker.children, ``chain_why``), which the task view shows.
"""

from __future__ import annotations

from typing import Any

_CALLS = ("send", "stream", "resubscribe")


class CallChain:
    def __init__(self, proxy: Any) -> None:
        self.proxy = proxy
        #: Open exchanges: number -> the route's label.
        self.open: dict[int, str] = {}

    def opened(self, number: int, route: str, params: Any, method: str | None) -> None:
        if method in ("send", "stream"):
            self._judge(number, route, params)
        if method in _CALLS:
            self.open[number] = route

    def closed(self, number: int) -> None:
        self.open.pop(number, None)

    def _judge(self, number: int, route: str, params: Any) -> None:
        others = [(n, r) for n, r in self.open.items() if r != route]
        if not others:
            return
        tracker = self.proxy.tracker
        context = getattr(getattr(params, "message", None), "context_id", None)
        facts = []
        for n, r in others:
            ex = tracker.exchanges.get(n)
            task_id = ex.task_id if ex is not None else None
            task = tracker.tasks.get(task_id) if task_id else None
            ctx = task.context_id if task is not None else None
            if ctx is None and ex is not None and ex.request_message is not None:
                ctx = ex.request_message.context_id
            facts.append((n, r, task_id, ctx))
        same = [f for f in facts if context and f[3] == context]
        if same:
            n, r, task_id, _ctx = same[-1]
            self._note(
                number, route, n, r, task_id, "same-context", f"same contextId {context}, made while #{n} was open"
            )
        elif len(facts) == 1:
            n, r, task_id, _ctx = facts[0]
            self._note(
                number, route, n, r, task_id, "time", f"by time only: #{n} was the only exchange open on another route"
            )
        else:
            listed = ", ".join(f"#{n} on {r}" for n, r, _t, _c in facts)
            self.proxy.note(
                f"call chain of #{number} on {route} unknown: {len(facts)} exchanges were open on "
                f"other routes ({listed}) and none shares its contextId; not guessed",
                exchange=number,
                code="proxy-call-chain",
                confidence="none",
                candidates=[n for n, _r, _t, _c in facts],
            )

    def _note(
        self, number: int, route: str, parent: int, parent_route: str, task_id: str | None, confidence: str, why: str
    ) -> None:
        whose = f"task {task_id} (#{parent})" if task_id else f"exchange #{parent}"
        self.proxy.note(
            f"call chain: #{number} on {route} was likely made by the agent at {parent_route} "
            f"working on {whose}; {why}",
            exchange=number,
            code="proxy-call-chain",
            confidence=confidence,
            parent_exchange=parent,
            parent_task=task_id,
            why=why,
        )
