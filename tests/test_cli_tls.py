"""TLS as curl does it (issue 28 item 12): ``--cacert FILE``, ``--insecure`` (said on
stderr, noted in the recording), ``--cert FILE --key FILE`` for mutual TLS, over HTTP and
gRPC. The servers are real (tests/tls_peers.py): the a2a-sdk Echo Agent under uvicorn
with a certificate of a throwaway CA (trustme), and the same agent's gRPC service on a
grpc.aio server with ssl_server_credentials, all on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from tls_peers import Pki, grpcs_agent, grpcs_mtls_agent, https_agent, mtls_agent, pki  # noqa: F401 - fixtures


def _one_line_error(result: Any) -> str:
    assert "Traceback" not in result.err, result
    lines = [line for line in result.err_lines if line.strip()]
    assert lines, result
    return "\n".join(lines)


# ------------------------------------------------------------------ HTTP


def test_an_untrusted_certificate_is_one_line_naming_cacert(cli: Cli, https_agent: str, pki: Pki) -> None:
    result = cli("card", https_agent)
    assert result.code == 3, result
    err = _one_line_error(result)
    assert "not trusted" in err and "--cacert" in err, result
    # A CA that did not sign the agent's certificate does not help.
    other = cli("send", https_agent, "hi", "--cacert", str(pki.other_ca))
    assert other.code == 3 and "--cacert" in _one_line_error(other), other


def test_a_certificate_for_another_name_is_said_so_not_blamed_on_the_ca(cli: Cli, https_agent: str, pki: Pki) -> None:
    other_name = https_agent.replace("127.0.0.1", "localhost")  # the same loopback server
    result = cli("card", other_name, "--cacert", str(pki.ca))
    assert result.code == 3, result
    err = _one_line_error(result)
    assert "is not for this host" in err and "--cacert" not in err, result


def test_cacert_trusts_the_agent_for_card_send_and_get(cli: Cli, https_agent: str, pki: Pki) -> None:
    assert cli("card", https_agent, "--cacert", str(pki.ca)).code == 0
    sent = cli("send", https_agent, "hello over tls", "--cacert", str(pki.ca), "-o", "json")
    assert sent.code == 0, sent
    task_id = sent.json()["task"]["id"]
    got = cli("get", https_agent, task_id, "--cacert", str(pki.ca), "-o", "json")
    assert got.code == 0 and got.json()["task"]["state"] == "completed", got
    assert "WARNING" not in sent.err + got.err


def test_insecure_works_warns_on_stderr_and_notes_the_recording(cli: Cli, https_agent: str, tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    result = cli("send", https_agent, "hi", "--insecure", "--record", str(record))
    assert result.code == 0, result
    assert "WARNING: --insecure" in result.err, result
    notes = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    texts = [e.get("text", "") for e in notes if e.get("kind") == "note"]
    assert any("NOT verified" in t and "--insecure" in t for t in texts), texts


def test_mutual_tls_fails_without_a_client_certificate_and_works_with_one(cli: Cli, mtls_agent: str, pki: Pki) -> None:
    without = cli("send", mtls_agent, "hi", "--cacert", str(pki.ca))
    assert without.code == 3, without
    assert "--cert FILE --key FILE" in _one_line_error(without), without
    with_cert = cli(
        "send",
        mtls_agent,
        "hi",
        "--cacert",
        str(pki.ca),
        "--cert",
        str(pki.client_cert),
        "--key",
        str(pki.client_key),
        "-o",
        "json",
    )
    assert with_cert.code == 0 and with_cert.json()["task"]["state"] == "completed", with_cert


def test_replay_against_takes_the_tls_options(cli: Cli, https_agent: str, pki: Pki, tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    assert cli("send", https_agent, "hi", "--cacert", str(pki.ca), "--record", str(record)).code == 0
    again = cli("replay", str(record), "--against", https_agent, "--cacert", str(pki.ca))
    assert again.code == 0, again
    assert cli("replay", str(record), "--against", https_agent).code == 3


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--cacert", "/nonexistent/ca.pem"), "--cacert: cannot read /nonexistent/ca.pem"),
        (("--key", "KEY"), "--key: give the client certificate with --cert too"),
        (("--cert", "CA"), "do not load"),  # a certificate without its key
    ],
)
def test_an_unusable_tls_option_is_a_usage_error(
    cli: Cli, https_agent: str, pki: Pki, args: tuple[str, ...], says: str
) -> None:
    args = tuple(str(pki.ca) if a == "CA" else a for a in args)
    result = cli("card", https_agent, *args)
    assert result.code == 2 and says in _one_line_error(result), result


# ------------------------------------------------------------------ gRPC


def test_grpcs_untrusted_then_cacert(cli: Cli, grpcs_agent: str, pki: Pki) -> None:
    untrusted = cli("send", grpcs_agent, "hi", "--dialect", "1.0")
    assert untrusted.code == 3, untrusted
    assert "--cacert" in _one_line_error(untrusted), untrusted
    trusted = cli("send", grpcs_agent, "hi over grpcs", "--dialect", "1.0", "--cacert", str(pki.ca), "-o", "json")
    assert trusted.code == 0 and trusted.json()["task"]["state"] == "completed", trusted


def test_grpcs_insecure_is_refused_in_words(cli: Cli, grpcs_agent: str) -> None:
    result = cli("send", grpcs_agent, "hi", "--dialect", "1.0", "--insecure")
    assert result.code == 3, result
    assert "not available for gRPC" in _one_line_error(result) and "--cacert" in result.err, result


def test_grpcs_mutual_tls_without_then_with_a_client_certificate(cli: Cli, grpcs_mtls_agent: str, pki: Pki) -> None:
    without = cli("send", grpcs_mtls_agent, "hi", "--dialect", "1.0", "--cacert", str(pki.ca))
    assert without.code == 3, without
    assert "--cert FILE --key FILE" in _one_line_error(without), without
    with_cert = cli(
        "send",
        grpcs_mtls_agent,
        "hi",
        "--dialect",
        "1.0",
        "--cacert",
        str(pki.ca),
        "--cert",
        str(pki.client_cert),
        "--key",
        str(pki.client_key),
        "-o",
        "json",
    )
    assert with_cert.code == 0 and with_cert.json()["task"]["state"] == "completed", with_cert


# ------------------------------------------------------------------ the proxy's upstream


def test_the_proxy_relays_to_a_mutual_tls_upstream(cli: Cli, mtls_agent: str, pki: Pki) -> None:
    from test_proxy_cli import ProxyProcess

    proxy = ProxyProcess(
        cli, mtls_agent, "--cacert", str(pki.ca), "--cert", str(pki.client_cert), "--key", str(pki.client_key)
    )
    try:
        sent = cli("send", proxy.url, "through the proxy", "-o", "json")
        assert sent.code == 0 and sent.json()["task"]["state"] == "completed", sent
    finally:
        proxy.stop()
