"""Add, save, edit or rename a saved agent: name, URL, dialect, binding, optional auth
kind + secret, custom headers (each may be marked secret: redacted like
--secret-header), and TLS as the CLI's --cacert, --cert, --key, --insecure (paths to the
files are stored, not their contents). A secret written ``$VAR`` is not stored: it is read from the
environment variable VAR each time the agent is opened."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from urllib.parse import urlsplit

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from ...store import SavedAgent, env_name, validated
from ..widgets.key_footer import KeyFooter

DIALECTS = ("auto", "0.1", "0.3", "1.0")
BINDINGS_CHOSEN = ("auto", "jsonrpc", "rest", "grpc")
#: ``$VAR``: a secret kept in the environment variable VAR, not in the file.
ENV_REF = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
AUTH_KINDS = (
    ("no auth", "none"),
    ("bearer token", "bearer"),
    ("API key header", "api-key"),
    ("basic (user:password)", "basic"),
)
SECRET_HINTS = {"bearer": "token", "api-key": "key", "basic": "user:password"}
#: Rows for custom headers (name, value, secret).
HEADER_ROWS = 4


def validate_agent(name: str, url: str, auth: str, secret: str, *, taken: Iterable[str] = ()) -> str | None:
    """What is wrong with the form, or None."""
    name, url = name.strip(), url.strip()
    if not name:
        return "give the agent a name"
    if name.casefold() in {t.casefold() for t in taken}:
        return f"an agent named {name!r} is saved already"
    if not url:
        return "give the agent's URL (its base URL or its card's URL)"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "the URL must start with http:// or https:// and name a host"
    if auth != "none" and not secret:
        return f"{auth} auth needs its {SECRET_HINTS.get(auth, 'secret')}"
    if auth == "basic" and ":" not in secret and not ENV_REF.fullmatch(secret):
        return "basic auth takes user:password (or $VAR: an environment variable holding it)"
    return None


def validate_tls(cacert: str, cert: str, key: str, insecure: bool) -> str | None:
    """What is wrong with the TLS fields, or None (the files are read when the agent opens)."""
    if key and not cert:
        return "a client key goes with its client certificate: give the cert file too"
    if insecure and cacert:
        return "insecure trusts any certificate: clear the CA file, or untick insecure"
    for label, path in (("CA file", cacert), ("client cert", cert), ("client key", key)):
        if path and not Path(path).expanduser().is_file():
            return f"{label}: no such file: {path}"
    return None


def shown_secret(value: object) -> str:
    """What the form's field holds for a stored secret: ``$VAR`` for a variable."""
    var = env_name(value)
    return f"${var}" if var is not None else value if isinstance(value, str) else ""


def stored_secret(text: str) -> str | dict[str, str]:
    """What the file keeps for a field's text: ``{"env": "VAR"}`` for ``$VAR``."""
    ref = ENV_REF.fullmatch(text.strip())
    return {"env": ref.group(1)} if ref else text


class AgentForm(ModalScreen[SavedAgent | None]):
    """Dismisses with the agent as entered, or None on escape.

    ``rename_only`` shows every field but lets only the name change.
    ``taken``: names already saved (the agent's own name excepted), refused as duplicates.
    ``card_asks``: what the agent's card declares (shown above the auth fields, which the
    caller prefills from it).

    BINDINGS: ctrl+s or enter saves, escape cancels, tab/shift+tab move between fields.
    """

    DEFAULT_CSS = """
    AgentForm { align: center middle; }
    AgentForm > VerticalScroll {
        width: 80; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    AgentForm .form-title { text-style: bold; }
    AgentForm .form-row { height: auto; }
    AgentForm .form-header-row Input { width: 1fr; }
    AgentForm .form-header-row Checkbox { width: auto; border: none; padding: 0; height: 1; }
    AgentForm .form-tls-row Checkbox { width: auto; border: none; padding: 0; height: 1; }
    AgentForm #agent-card-asks { color: $warning; height: auto; }
    AgentForm .form-label { width: 10; padding-top: 0; color: $foreground-muted; }
    AgentForm Input, AgentForm Select { width: 1fr; }
    AgentForm #agent-error { color: $error; height: auto; }
    AgentForm .form-hint { color: $foreground-muted; width: 100%; }
    AgentForm #agent-buttons { height: auto; align-horizontal: right; }
    AgentForm Button { margin-left: 1; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(
        self,
        title: str,
        agent: SavedAgent | None = None,
        *,
        taken: Iterable[str] = (),
        rename_only: bool = False,
        card_asks: str | None = None,
    ) -> None:
        super().__init__()
        self.card_asks = card_asks
        self.title_text = title
        self.agent = agent
        self.taken = [t for t in taken if agent is None or t.casefold() != agent.name.casefold()]
        self.rename_only = rename_only

    def compose(self) -> ComposeResult:
        a = self.agent
        auth = a.auth if a is not None and a.auth in SECRET_HINTS else "none"
        dialect = a.dialect if a is not None and a.dialect in DIALECTS else "auto"
        binding = a.binding if a is not None and a.binding in BINDINGS_CHOSEN else "auto"
        fixed = self.rename_only
        with VerticalScroll():
            yield Label(self.title_text, classes="form-title", markup=False)
            with Horizontal(classes="form-row"):
                yield Label("name", classes="form-label")
                yield Input(a.name if a else "", placeholder="e.g. staging travel agent", id="agent-name", compact=True)
            with Horizontal(classes="form-row"):
                yield Label("URL", classes="form-label")
                yield Input(
                    a.url if a else "",
                    placeholder="http://127.0.0.1:8003",
                    id="agent-url",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row"):
                yield Label("dialect", classes="form-label")
                yield Select(
                    [(d, d) for d in DIALECTS],
                    value=dialect,
                    allow_blank=False,
                    id="agent-dialect",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row"):
                yield Label("binding", classes="form-label")
                yield Select(
                    [(b, b) for b in BINDINGS_CHOSEN],
                    value=binding,
                    allow_blank=False,
                    id="agent-binding",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row"):
                yield Label("auth", classes="form-label")
                yield Select(AUTH_KINDS, value=auth, allow_blank=False, id="agent-auth", compact=True, disabled=fixed)
            with Horizontal(classes="form-row", id="agent-header-row"):
                yield Label("header", classes="form-label")
                yield Input(
                    (a.auth_header if a and a.auth_header else "X-API-Key"),
                    id="agent-header",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row", id="agent-secret-row"):
                yield Label("secret", classes="form-label")
                secret = shown_secret(a.secret) if a else ""
                yield Input(
                    secret,
                    password=not ENV_REF.fullmatch(secret),
                    id="agent-secret",
                    placeholder=SECRET_HINTS.get(auth, "secret") + " or $VAR",
                    compact=True,
                    disabled=fixed,
                )
            if self.card_asks:
                yield Label(f"the card asks for: {self.card_asks}", id="agent-card-asks", markup=False)
            rows = [(k, v, False) for k, v in (a.headers if a else {}).items()]
            rows += [(k, shown_secret(v), True) for k, v in (a.secret_headers if a else {}).items()]
            rows += [("", "", False)] * max(0, HEADER_ROWS - len(rows))
            for i, (name, value, is_secret) in enumerate(rows):
                with Horizontal(classes="form-row form-header-row"):
                    yield Label("headers" if i == 0 else "", classes="form-label")
                    yield Input(name, placeholder="Header-Name", id=f"agent-hname-{i}", compact=True, disabled=fixed)
                    yield Input(
                        value,
                        placeholder="value",
                        id=f"agent-hvalue-{i}",
                        compact=True,
                        password=is_secret and not ENV_REF.fullmatch(value),
                        disabled=fixed,
                    )
                    yield Checkbox("secret", is_secret, id=f"agent-hsecret-{i}", compact=True, disabled=fixed)
            with Horizontal(classes="form-row"):
                yield Label("CA file", classes="form-label")
                yield Input(
                    (a.cacert or "") if a else "",
                    placeholder="PEM file to trust (default: the system's CAs)",
                    id="agent-cacert",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row"):
                yield Label("cert", classes="form-label")
                yield Input(
                    (a.cert or "") if a else "",
                    placeholder="client certificate for mutual TLS (PEM file)",
                    id="agent-cert",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row"):
                yield Label("key", classes="form-label")
                yield Input(
                    (a.key or "") if a else "",
                    placeholder="its private key (PEM file)",
                    id="agent-key",
                    compact=True,
                    disabled=fixed,
                )
            with Horizontal(classes="form-row form-tls-row"):
                yield Label("TLS", classes="form-label")
                yield Checkbox(
                    "insecure: do not verify the agent's certificate",
                    bool(a and a.insecure),
                    id="agent-insecure",
                    compact=True,
                    disabled=fixed,
                )
            yield Label("", id="agent-error", markup=False)
            yield Label(
                "ctrl+s / enter: save · escape: cancel · secrets (and secret headers) are "
                "stored in the config dir, readable by you only, and redacted in recordings; "
                "$VAR stores none: the environment variable VAR is read at each connect",
                classes="form-hint",
                markup=False,
            )
            with Horizontal(id="agent-buttons"):
                yield Button("Cancel", id="agent-cancel", compact=True)
                yield Button("Save", id="agent-save", variant="primary", compact=True)
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._show_auth_rows()
        self.query_one("#agent-name", Input).focus()

    def _show_auth_rows(self) -> None:
        auth = self.query_one("#agent-auth", Select).value
        self.query_one("#agent-header-row").display = auth == "api-key"
        self.query_one("#agent-secret-row").display = auth != "none"
        self.query_one("#agent-secret", Input).placeholder = SECRET_HINTS.get(str(auth), "secret") + " or $VAR"

    @on(Select.Changed, "#agent-auth")
    def _auth_changed(self) -> None:
        self._show_auth_rows()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_save()

    @on(Checkbox.Changed)
    def _secret_changed(self, event: Checkbox.Changed) -> None:
        # A secret value is not shown on screen.
        index = (event.checkbox.id or "").rpartition("-")[2]
        for value in self.query(f"#agent-hvalue-{index}"):
            if isinstance(value, Input):
                value.password = event.value and not ENV_REF.fullmatch(value.value)

    @on(Input.Changed)
    def _value_changed(self, event: Input.Changed) -> None:
        # $VAR names a variable: shown as typed, as it is no secret; anything else masked.
        field_id = event.input.id or ""
        if field_id == "agent-secret":
            event.input.password = not ENV_REF.fullmatch(event.value)
        elif field_id.startswith("agent-hvalue-"):
            index = field_id.rpartition("-")[2]
            marked = self.query_one(f"#agent-hsecret-{index}", Checkbox).value
            event.input.password = marked and not ENV_REF.fullmatch(event.value)

    def headers(self) -> tuple[dict[str, str], dict[str, str | dict[str, str]], str | None]:
        """(plain headers, secret headers, a problem) from the header rows."""
        plain: dict[str, str] = {}
        secret: dict[str, str | dict[str, str]] = {}
        for i in range(len(self.query(".form-header-row"))):
            name = self.query_one(f"#agent-hname-{i}", Input).value.strip()
            value = self.query_one(f"#agent-hvalue-{i}", Input).value.strip()
            if not name and not value:
                continue
            if not name or any(c in name for c in ": \t") or not name.isascii():
                return plain, secret, f"header {i + 1}: give a header name (no spaces or colons)"
            if self.query_one(f"#agent-hsecret-{i}", Checkbox).value:
                secret[name] = stored_secret(value)
            else:
                plain[name] = value
        return plain, secret, None

    @on(Button.Pressed, "#agent-save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#agent-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_save(self) -> None:
        name = self.query_one("#agent-name", Input).value.strip()
        url = self.query_one("#agent-url", Input).value.strip()
        dialect = str(self.query_one("#agent-dialect", Select).value)
        binding = str(self.query_one("#agent-binding", Select).value)
        auth = str(self.query_one("#agent-auth", Select).value)
        secret = self.query_one("#agent-secret", Input).value
        header = self.query_one("#agent-header", Input).value.strip() or "X-API-Key"
        problem = validate_agent(name, url, auth, secret, taken=self.taken)
        plain, secret_headers, header_problem = self.headers()
        cacert, cert, key = (self.query_one(f"#agent-{n}", Input).value.strip() for n in ("cacert", "cert", "key"))
        insecure = self.query_one("#agent-insecure", Checkbox).value
        problem = problem or header_problem or validate_tls(cacert, cert, key, insecure)
        if problem:
            self.query_one("#agent-error", Label).update(problem)
            return
        base = asdict(self.agent) if self.agent is not None else {}
        base.update(
            name=name,
            url=url,
            dialect=dialect,
            binding=binding,
            auth=None if auth == "none" else auth,
            auth_header=header if auth == "api-key" else None,
            secret=stored_secret(secret) if auth != "none" else None,
            headers=plain,
            secret_headers=secret_headers,
            cacert=cacert or None,
            cert=cert or None,
            key=key or None,
            insecure=insecure,
        )
        if self.agent is not None and base.get("url") != self.agent.url:
            base["card_url"] = None  # a card URL belongs to the old address
        self.dismiss(validated(SavedAgent, base))

    def action_cancel(self) -> None:
        self.dismiss(None)
