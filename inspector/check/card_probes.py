"""The card group: the lint's errors, and what only a live agent can show (every
interface the card lists answers through the binding it names)."""

from __future__ import annotations

import uuid
from urllib.parse import urljoin, urlsplit

from ..client import JsonRpcError, ProtocolError, TransportError, UnsupportedMethod
from ..protocol import bindings as b
from ..protocol.lint import lint_card
from .context import ProbeContext, error_text
from .probe import Skipped, probe


def same_host(given: str, url: str) -> bool:
    """Whether ``url`` is on the host the user gave (any port, any scheme): the host a
    check may send to. gRPC interfaces are written host:port, without a scheme."""

    def host(u: str) -> str:
        parts = urlsplit(u if "://" in u else f"grpc://{u}")
        return (parts.hostname or "").lower()

    try:
        return host(given) == host(url) != ""
    except ValueError:
        return False


@probe(
    "card.lint",
    "card",
    "the card has no lint errors",
    section="AgentCard (the schema of each version)",
    rule="The card's required fields are present with the types the version's schema gives them.",
    per_agent=True,
    skips="never: an agent without a card fails it",
)
async def card_lint(ctx: ProbeContext) -> None:
    client = ctx.client
    if client.card_raw is None:
        raise ctx.fail(f"no agent card: {error_text(client.card_error) if client.card_error else 'none found'}")
    findings = [f for f in lint_card(client.card_raw, ctx.dialect, card_url=client.card_url) if f.severity == "error"]
    if findings:
        shown = "; ".join(f"{f.code} at {f.path}" for f in findings[:5])
        more = f" (and {len(findings) - 5} more)" if len(findings) > 5 else ""
        raise ctx.fail(
            f"{len(findings)} lint error{'s' if len(findings) != 1 else ''}: {shown}{more} "
            "(a2a-inspect card URL says each)"
        )


@probe(
    "card.interfaces",
    "card",
    "every interface the card lists answers through its binding",
    section="1.0 AgentCard.supported_interfaces, AgentInterface; 0.3 url, preferredTransport, additionalInterfaces",
    rule="Each interface the card lists is a URL where the agent answers in the protocol binding and version it names.",
    per_agent=True,
    skips="no card, or a card listing no interface a2a-inspect speaks; an interface on another host "
    "than the one given is not probed (reported as such)",
)
async def card_interfaces(ctx: ProbeContext) -> None:
    card = ctx.card
    if card is None:
        raise Skipped("no agent card")
    listed = [i for i in b.card_interfaces(card) if i.binding in b.SPOKEN and i.dialect in b.DIALECTS[i.binding]]
    if not listed and ctx.dialect == "0.1" and card.url:
        # The 0.1 draft's card names one endpoint, JSON-RPC, in its url.
        listed = [b.Interface(b.JSONRPC, "url", "0.1", card.url)]
    if not listed:
        raise Skipped("the card lists no interface a2a-inspect speaks")
    base = ctx.client.card_url or ctx.options.url
    problems: list[str] = []
    probed = 0
    for iface in listed:
        binding = iface.binding
        if binding is None:  # not one a2a-inspect speaks: listed has none of those
            continue
        url = iface.url if binding == b.GRPC else urljoin(base, iface.url)
        if not same_host(ctx.options.url, url):
            problems.append(f"{iface.describe()}: on another host than {ctx.options.url}, not probed")
            continue
        probed += 1
        try:
            async with ctx.options.client_at(ctx.session, iface.dialect, binding, url) as other:
                try:
                    await other.get_task(f"a2a-inspect-check-{uuid.uuid4()}")
                except JsonRpcError:
                    pass  # an A2A answer: the interface is there
        except UnsupportedMethod as exc:
            problems.append(f"{iface.describe()}: {exc}")
        except (ProtocolError, TransportError) as exc:
            raise ctx.fail(
                f"{iface.describe()} does not answer as {iface.spelled} {iface.dialect}: {error_text(exc)}"
            ) from None
    if not probed:
        raise Skipped("; ".join(problems))


def _declares_extended(card: object) -> bool:
    caps = getattr(card, "capabilities", None)
    flag = getattr(caps, "extended_agent_card", None) if caps is not None else None
    return bool(flag if flag is not None else getattr(card, "supports_authenticated_extended_card", None))


@probe(
    "card.extended",
    "card",
    "the extended card a card declares is served",
    section="1.0 GetExtendedAgentCard, AgentCapabilities.extended_agent_card; 0.3 "
    "agent/getAuthenticatedExtendedCard, supportsAuthenticatedExtendedCard",
    rule='1.0: "Indicates if the agent supports providing an extended agent card when authenticated." '
    '"Gets the extended agent card for the authenticated agent." Declared, it is served (-32007: '
    '"the agent does not have an Authenticated Extended Card configured" contradicts the card).',
    dialects=("0.3", "1.0"),
    skips="a card that does not declare an extended card; an agent that wants credentials for it "
    "(HTTP 401/403: give --bearer, --api-key... to check it)",
)
async def extended(ctx: ProbeContext) -> None:
    if ctx.card is None or not _declares_extended(ctx.card):
        raise Skipped("the card does not declare an extended card")
    try:
        got = await ctx.client.extended_card()
    except JsonRpcError as exc:
        if getattr(exc, "http_status", None) in (401, 403):
            raise Skipped(f"the agent wants credentials for its extended card (HTTP {exc.http_status})") from None
        raise ctx.fail(f"the extended card the card declares was answered with {error_text(exc)}") from None
    except (ProtocolError, TransportError) as exc:
        status = getattr(exc, "status", None)
        if status in (401, 403):
            raise Skipped(f"the agent wants credentials for its extended card (HTTP {status})") from None
        raise ctx.fail(f"the extended card the card declares was answered with {error_text(exc)}") from None
    if not got.name:
        raise ctx.fail("the extended card has no name")
