"""One obviously fake, format-valid secret of each kind, assembled at run time.

No literal in this repository looks like a real secret: every sample is concatenated from
pieces here, so neither a push-protection scanner nor `mem audit --secrets` over the
repository finds one.
"""

from __future__ import annotations

import base64
import json


def _b64url(value: dict[str, object]) -> str:
    raw = json.dumps(value, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _fake(length: int, alphabet: str = "FAKE") -> str:
    return (alphabet * (length // len(alphabet) + 1))[:length]


def _pem() -> str:
    body = "\n".join(["MIIE" + _fake(60, "Fake0"), _fake(64, "Fake1"), _fake(20, "Fake2")])
    armour = "PRIVATE" + " KEY-----"
    return f"-----BEGIN RSA {armour}\n{body}\n-----END RSA {armour}"


# kind -> (text before, the secret, text after): ordinary words around one fake secret
PARTS: dict[str, tuple[str, str, str]] = {
    "private-key": ("key file:\n", _pem(), "\n"),
    "aws-access-key-id": ("used ", "AK" + "IA" + _fake(16), " for the upload"),
    "aws-secret-access-key": ("aws_secret_" + "access_key = ", _fake(40, "Fake"), ""),
    "gcp-api-key": ("maps key ", "AI" + "za" + _fake(35, "Fk"), ""),
    "gcp-oauth-secret": ("client secret ", "GOC" + "SPX-" + _fake(28, "Fk"), ""),
    "google-oauth-token": ("token ", "ya" + "29." + _fake(40, "Fk"), ""),
    "azure-storage-key": (
        "DefaultEndpointsProtocol=https;Account" + "Key=",
        _fake(86, "Fk") + "==",
        ";EndpointSuffix=core.windows.net",
    ),
    "azure-sas-token": (
        "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&s" + "ig=",
        _fake(44, "Fk") + "%3D",
        "",
    ),
    "azure-client-secret": ("secret ", "abc8" + "Q~" + _fake(34, "Fk"), ""),
    "github-token": ("deployed with token ", "gh" + "p_" + _fake(36, "A"), ""),
    "gitlab-token": ("CI uses ", "gl" + "pat-" + _fake(20, "Fk"), ""),
    "slack-token": ("bot ", "xo" + "xb-" + "1" * 12 + "-" + "2" * 12 + "-" + _fake(24, "Fk"), ""),
    "slack-webhook": (
        "alerts go to ",
        "https://hooks."
        + "slack.com/services/T"
        + _fake(8)
        + "/B"
        + _fake(8)
        + "/"
        + _fake(24, "Fk"),
        "",
    ),
    "jwt": (
        "cookie ",
        ".".join(
            [_b64url({"alg": "HS256", "typ": "JWT"}), _b64url({"sub": "fake"}), _fake(43, "Fk")]
        ),
        "",
    ),
    "connection-string": (
        "DATABASE_URL is postgres://app:",
        "Fake" + "Pw42",
        "@db.example.com/prod",
    ),
    "authorization-header": ('curl -H "Author' + "ization: Bearer ", _fake(32, "Fk"), '"'),
    "secret-assignment": ("export DB_" + "PASSWORD=", "FakePw" + "4242", ""),
    "openai-api-key": ("OPENAI key ", "sk-" + "proj-" + _fake(48, "Fk"), ""),
    "anthropic-api-key": ("key ", "sk-" + "ant-" + "api03-" + _fake(93, "Fk") + "AA", ""),
    "stripe-key": ("billing uses ", "sk" + "_live_" + _fake(24, "Fk"), ""),
    "stripe-webhook-secret": ("webhook ", "wh" + "sec_" + _fake(32, "Fk"), ""),
    "npm-token": ("publish with ", "np" + "m_" + _fake(36, "Fk"), ""),
    "pypi-token": ("upload ", "py" + "pi-AgE" + "IcHlwaS5vcmc" + _fake(70, "Fk"), ""),
    "huggingface-token": ("model pull ", "h" + "f_" + _fake(34, "Fk"), ""),
    # kinds only detect-secrets knows
    "aws-key": ('aws_key = "', _fake(40, "Fk"), '"'),
    "discord-bot-token": (
        "bot ",
        "M" + _fake(23, "Fk") + "." + _fake(6, "Fk") + "." + _fake(27, "Fk"),
        "",
    ),
    "mailchimp-api-key": ("list key ", _fake(32, "f") + "-us" + "12", ""),
    "sendgrid-api-key": ("mail ", "S" + "G." + _fake(22, "Fk") + "." + _fake(43, "Fk"), ""),
    "square-oauth-secret": ("square ", "sq0" + "csp-" + _fake(43, "Fk"), ""),
    "telegram-bot-token": ("bot ", "123456789" + ":" + _fake(35, "Fk"), ""),
    "twilio-api-key": ("twilio ", "A" + "C" + _fake(32, "f"), ""),
}
SAMPLES: dict[str, str] = {kind: "".join(parts) for kind, parts in PARTS.items()}
SECRETS: dict[str, str] = {kind: parts[1] for kind, parts in PARTS.items()}


def leaks(output: str, kind: str) -> bool:
    """Whether output shows the secret of `kind`, or any 8 characters running in it."""
    secret = SECRETS[kind]
    return any(secret[start : start + 8] in output for start in range(len(secret) - 7))
