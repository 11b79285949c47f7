"""The card's fields as rows in sections: one model that the headless card
(headless/render.py) and the TUI's card view (ui/widgets/card_view.py) both render, so
the two cannot drift apart on what a row says. Each row carries the JSON paths whose
lint findings are shown beside it (card_sections.FindingPlacer hands them out).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..textsafe import shorten, visible
from . import models as m
from .card import child

#: Labels are cut to one short of this, so one space always parts label from value.
LABEL_WIDTH = 20


class CardRow(NamedTuple):
    label: str
    value: Any
    paths: tuple[str, ...] = ()


def value_text(value: Any, *, width: int, item_width: int, multiline: bool) -> str:
    """One field's value, literal, control characters made visible; a list as ``a, b``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(shorten(str(v), item_width) for v in value) or "-"
    if isinstance(value, str):
        if not value:
            return '"" (empty)'
        if multiline and len(value) <= width:
            return visible(value)
    return shorten(str(value), width)


def _scheme_text(scheme: m.SecurityScheme) -> str:
    detail = scheme.scheme or scheme.location or scheme.open_id_connect_url or ""
    if scheme.name:
        detail = f"{detail} {scheme.name}".strip()
    text = f"{scheme.type}" + (f" ({detail})" if detail else "")
    if scheme.description:
        text += f" — {scheme.description}"
    return text


def _security_rows(card: m.AgentCard) -> list[CardRow]:
    rows = [
        CardRow(shorten(name, LABEL_WIDTH - 1), _scheme_text(scheme), (child("$.securitySchemes", name),))
        for name, scheme in (card.security_schemes or {}).items()
    ]
    if card.security:
        rows.append(
            CardRow(
                "required",
                [" + ".join(req) or "(none)" for req in card.security],
                ("$.security", "$.securityRequirements"),
            )
        )
    if card.authentication:
        schemes = card.authentication.schemes
        rows.append(
            CardRow("schemes (0.1)", schemes if isinstance(schemes, list) else [schemes], ("$.authentication",))
        )
    return rows or [CardRow("schemes", "none declared")]


def _interface_rows(card: m.AgentCard) -> list[CardRow]:
    # A label names the interface's binding as the card spells it: cut, and made visible.
    rows = [
        CardRow(
            shorten(f"{itf.protocol_binding or '?'} {itf.protocol_version or ''}".strip(), LABEL_WIDTH - 1),
            itf.url,
            (f"$.supportedInterfaces[{i}]",),
        )
        for i, itf in enumerate(card.supported_interfaces or [])
    ]
    if card.preferred_transport:
        rows.append(CardRow("preferred (0.3)", card.preferred_transport, ("$.preferredTransport",)))
    rows.extend(
        CardRow(
            shorten(f"{itf.protocol_binding or '?'} (0.3)", LABEL_WIDTH - 1), itf.url, (f"$.additionalInterfaces[{i}]",)
        )
        for i, itf in enumerate(card.additional_interfaces or [])
    )
    return rows or [CardRow("interfaces", None)]


def card_rows(
    card: m.AgentCard, *, card_url: str | None, dialect: str | None, endpoint: str | None, binding: str | None = None
) -> list[tuple[str, list[CardRow]]]:
    """The card's fields in sections (skills aside), each row with the JSON paths it stands
    for. ``binding`` (why this binding was chosen) adds a row only when given."""
    c = card.capabilities or m.AgentCapabilities()
    p = card.provider
    identity = [
        CardRow("name", card.name, ("$.name",)),
        CardRow("description", card.description, ("$.description",)),
        CardRow("version", card.version, ("$.version",)),
        CardRow("url", card.url, ("$.url",)),
        CardRow("protocol version", card.protocol_version, ("$.protocolVersion",)),
        CardRow("documentation", card.documentation_url, ("$.documentationUrl",)),
        CardRow("icon", card.icon_url, ("$.iconUrl",)),
        CardRow("card url", card_url),
        CardRow("dialect", dialect),
        *([CardRow("binding", binding)] if binding is not None else []),
        CardRow("endpoint", endpoint),
    ]
    return [
        ("identity", identity),
        (
            "provider",
            [
                CardRow("organization", p.organization if p else None, ("$.provider.organization",)),
                CardRow("url", p.url if p else None, ("$.provider.url",)),
            ],
        ),
        (
            "capabilities",
            [
                CardRow("streaming", c.streaming, ("$.capabilities.streaming",)),
                CardRow("push notifications", c.push_notifications, ("$.capabilities.pushNotifications",)),
                CardRow("state history", c.state_transition_history, ("$.capabilities.stateTransitionHistory",)),
                CardRow(
                    "extended card",
                    c.extended_agent_card or card.supports_authenticated_extended_card,
                    ("$.capabilities.extendedAgentCard", "$.supportsAuthenticatedExtendedCard"),
                ),
                CardRow("extensions", [e.uri for e in c.extensions or []] or None, ("$.capabilities.extensions",)),
            ],
        ),
        ("security", _security_rows(card)),
        (
            "modes",
            [
                CardRow("input", card.default_input_modes, ("$.defaultInputModes",)),
                CardRow("output", card.default_output_modes, ("$.defaultOutputModes",)),
            ],
        ),
        ("interfaces", _interface_rows(card)),
    ]
