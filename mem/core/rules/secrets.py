"""Secrets in memory text: what counts as one, where it is, and how a refusal reads.

Memory files and stores are committed and shared, so a token pasted into a note stays in
history for good. Every text `mem` is about to write, and every file `mem audit --secrets`
reads, goes through two detectors:

- mem's own patterns (`PATTERNS`): the formats agents meet most, each a kind a person can
  name with `--allow-secret`. They are strict on purpose (a key block needs its armour and
  a body, a connection string a password that is not a placeholder) so that ordinary memory
  text (hashes, ids, UUIDs, base64 of file hashes, commit shas, prose about keys) passes.
- the regex plugins of detect-secrets (`DETECT_SECRETS_PLUGINS`): a maintained catalogue of
  provider formats. Left out, each for a reason measured on memory text: the high-entropy
  plugins (hashes and ids are the daily bread of the evidence and receipt stores), keyword
  (prose: `password: "rotated monthly"`), public IP (server addresses), private key (fires
  on the bare words "BEGIN RSA PRIVATE KEY"), basic auth (fires on placeholders such as
  `postgres://USER:PASSWORD@HOST`), Artifactory (fires on upper-case words such as
  APACHEKAFKA), IBM Cloud IAM (any "key" followed by 44 characters, a base64url hash
  included), and Cloudant, IBM COS and SoftLayer (85% of the scanning time, for credentials
  agents rarely meet). mem's own patterns cover private keys and URL credentials precisely.

A finding carries a position and a kind, never the matched text: nothing here returns or
formats a secret, so no message can echo one. Pure: values in, values out; detect-secrets
is imported on first use, so commands that never write never load it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import importlib
import json
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from mem.errors import MemError


class Finding(NamedTuple):
    """A possible secret: 1-based line and column of its first character, and its kind."""

    line: int
    column: int
    kind: str


class FieldFinding(NamedTuple):
    field: str  # what the user calls the text: an option (`--task`), a file, a JSON path
    finding: Finding


class _Hit(NamedTuple):
    start: int
    end: int
    kind: str
    example: bool = False


# ---- mem's own patterns

# Left and right edges of a token: the secret must not be the middle of a longer word.
_L = r"(?<![A-Za-z0-9_])"
_R = r"(?![A-Za-z0-9_])"
# A value that stands for a secret without being one: a mask, a word such as "password", or
# a reference wrapped whole in the brackets of a template or a format (`${VAR}`, `$(cmd)`,
# `%(x)s`, `%VAR%`, `%env(VAR)%`, `<password>`, `{{ x }}`, `[redacted]`), a command
# substitution cut at its first blank (`$(openssl`), a mask showing a few characters
# (`****abcd`). Only whole forms: `*ecretPw42`, `(ecretPw42`, `pa{ss}Pw42` and a %-encoded
# `%40ssw0rd` are literal values.
_PLACEHOLDER = re.compile(
    r"""(?ix)
    ^(?:
        (?:x+|\*+|\.{3,}|-+|_+|\?+|…|•+)                       # xxxx, ***, ..., ----, ????
      | (?:your|my|the|some|example|sample|dummy|fake|test)[-_]?
        (?:pass(?:word)?|secret|token|key|pwd)s?
      | (?:pass(?:word)?|passwd|pwd|pw|secret|token|tok|key|api[-_]?key|changeme|change[-_]?me
         |redacted|hidden|placeholder|none|null|empty)s?
      | [$#]?\{.*\} | \$?\(.*\) | <.*> | \[.*\] | %\(\w+\)s | %[^%\s]+%
      | \$\(.* | .*(?:\*{3}|•{3}).*
    )$
    """
)
# `$NAME` is a shell, Perl or PHP variable when the name reads as one (DB_PASSWORD, db_pass,
# dbPassword); `$ecretPw42`, mixed case with digits, is a password that starts with `$`.
_VARIABLE = re.compile(r"\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[A-Za-z_]+)")
_REFERENCE = re.compile(r"^[A-Za-z_][A-Za-z_.]*$")  # os.environ.TOKEN, settings.SECRET_KEY


def _real_value(value: str) -> bool:
    return not (_PLACEHOLDER.match(value) or _VARIABLE.fullmatch(value))


def _assigned_value(value: str) -> bool:
    """An env-style value that is literal, not a placeholder or a reference to another name."""
    return len(value) >= 8 and _real_value(value) and not _REFERENCE.match(value)


def _mixed_case(value: str) -> bool:
    """Random base64 has both cases; a 40-character hex digest or a word in one case has not."""
    return value.lower() != value != value.upper()


def _jwt_claims(value: str, part: int) -> Any:
    """A JWT's header (0) or claims (1) decoded, or None when that part is not JSON."""
    pieces = value.split(".")
    if len(pieces) <= part:
        return None
    piece = pieces[part]
    try:
        return json.loads(base64.urlsafe_b64decode(piece + "=" * (-len(piece) % 4)))
    except (binascii.Error, ValueError, RecursionError):  # RecursionError: `{"a":[[[[...`
        return None


def _jwt_header(value: str) -> bool:
    """A JWT's first part decodes to a JSON object naming an algorithm (as tokens always do)."""
    decoded = _jwt_claims(value, 0)
    return isinstance(decoded, dict) and "alg" in decoded


def _key_body(value: str) -> bool:
    """A PEM block's body is base64: it holds a digit, `+` or `/` (prose after the armour,
    long words and all, does not)."""
    if not value.startswith("-----"):
        return True  # a PuTTY key: its `Private-Lines` count is the digit
    body = value.split("-----", 2)[2]
    return any(character.isdigit() or character in "+/" for character in body)


def _url_password(match: re.Match[str]) -> bool:
    """The password of `scheme://user:password@host`, not a placeholder nor what `host:port`
    followed by a path with an `@` in it (`registry:8443/npm/@scope`) looks like."""
    password = match.group(2)
    port, slash, _ = password.partition("/")
    return _real_value(password) and not (slash and port.isdigit())


class Pattern(NamedTuple):
    kind: str
    label: str
    needles: tuple[str, ...]  # one of these is in every match (lowercase when case is ignored)
    regex: re.Pattern[str]
    group: int = 0  # the part of the match that is the secret
    accept: Callable[[re.Match[str]], bool] | None = None  # drops placeholders and look-alikes
    example: Callable[[re.Match[str]], bool] | None = None  # a documentation example


def _p(
    kind: str,
    label: str,
    needles: str,
    regex: str,
    group: int = 0,
    accept: Callable[[str], bool] | None = None,
    *,
    accept_match: Callable[[re.Match[str]], bool] | None = None,
    example: Callable[[re.Match[str]], bool] | None = None,
) -> Pattern:
    if accept is not None:
        checked = accept
        accept_match = lambda match: checked(match.group(group))  # noqa: E731
    return Pattern(
        kind, label, tuple(needles.split()), re.compile(regex), group, accept_match, example
    )


# ---- documentation examples and placeholders: not secrets
#
# Provider documentation, READMEs and tutorials are full of format-valid values that are
# nobody's secret; memory quotes them. They never refuse a write; `mem audit --secrets`
# lists them as `example-<kind>` without failing. What makes one, besides the checks of
# some patterns (the jwt.io sample's claims, a loopback URL whose password is its user):
# the markers documentation puts in its values ("EXAMPLE", as in AWS's
# AKIAIOSFODNN7EXAMPLE; `YOUR_KEY_HERE`; a run of x), none of which a random token holds
# by chance (eight x in a row: about once in 10^12 positions), and the few documented
# values that carry no marker, spelled in pieces so that no scanner of this repository
# takes them for live keys.
_EXAMPLE_MARKS = re.compile(r"(?i)example|your[-_]|[-_]here(?![a-z])|[x]{8}")
DOCUMENTED: frozenset[str] = frozenset(
    {
        "sk_" + "test_" + "4eC39HqLyjWDarjtT1zdp7dc",  # the key in Stripe's API reference
    }
)
_LOOPBACK = re.compile(r"(?i)localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0")


def _documented(value: str) -> bool:
    return value in DOCUMENTED or _EXAMPLE_MARKS.search(value) is not None


def _jwt_io_sample(match: re.Match[str]) -> bool:
    """The token jwt.io shows (and every JWT tutorial copies): John Doe, subject 1234567890."""
    claims = _jwt_claims(match.group(), 1)
    return isinstance(claims, dict) and (claims.get("sub"), claims.get("name")) == (
        "1234567890",
        "John Doe",
    )


def _default_login(match: re.Match[str]) -> bool:
    """`mysql://root:root@localhost`, `amqp://guest:guest@localhost`: a local server's
    documented default login, the user as password."""
    return match.group(1) == match.group(2) and _LOOPBACK.fullmatch(match.group(3)) is not None


# armour, optional `Name: value` header lines (each ends at its line break: no ambiguity, no
# backtracking storm on a line of spaces), then the base64 body: one run of 40 or more, or
# lines of 16 or more (a key wrapped at 32 columns). Between lines: breaks (`\\n` as escaped
# in JSON), blanks and what quotes a line in a note, an email or a comment (`> `, `# `,
# `// `, `; `, `* `, `| `); none of them is a base64 character, so a body is read once.
_BREAK = r"(?:\\r)?(?:\\n|\n)"
_GAP = r"(?:\\[rn]|[\s>#;*|!%]|/{2,}(?=[ \t]))"
_B64 = r"[A-Za-z0-9+/=]"
_PEM_BODY = (
    _GAP
    + r"+(?:[A-Za-z-]+:[^\n\\]*"
    + _BREAK
    + _GAP
    + rf"*)*(?:{_B64}{{40,}}|{_B64}{{16,}}(?:{_GAP}+{_B64}{{16,}})+)"
)
# after the name of an AWS secret key: `=`, `:` or blanks, then its 40 characters
_AWS_SECRET = r"[\"']?(?:\s*[:=]\s*|\s+)[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
_GITLAB = "glpat gldt glft glsoat glrt glptt glcbt glimt glagent gloas glffct"

# Specific formats first: where two patterns match the same text, the earlier one names it.
PATTERNS: tuple[Pattern, ...] = (
    _p(
        "private-key",
        "private key block",
        "PRIVATE PuTTY-User-Key-File-",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        + _PEM_BODY
        + r"|PuTTY-User-Key-File-\d: [^\n]*(?:\n[^\n]*){0,40}?"
        rf"Private-Lines: \d+{_GAP}+{_B64}{{40,}}",
        0,
        _key_body,
    ),
    _p(
        "aws-access-key-id",
        "AWS access key id",
        "AKIA ASIA ABIA ACCA",
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])",
    ),
    # `aws_secret_access_key = …`, `aws configure set aws_secret_access_key …`, then
    # `"SecretAccessKey": "…"` (what `aws iam create-access-key` prints): two patterns, so
    # that each starts with a word the regex engine finds fast
    _p(
        "aws-secret-access-key",
        "AWS secret access key",
        "aws",
        r"(?i)aws[\w .-]{0,30}?secret[\w .-]{0,20}?" + _AWS_SECRET,
        1,
        _mixed_case,
    ),
    _p(
        "aws-secret-access-key",
        "AWS secret access key",
        "access",
        r"(?i)secret[_ -]?access[_ -]?key" + _AWS_SECRET,
        1,
        _mixed_case,
    ),
    _p("gcp-api-key", "Google API key", "AIza", r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"),
    _p(
        "gcp-oauth-secret",
        "Google OAuth client secret",
        "GOCSPX-",
        r"(?<![\w-])GOCSPX-[A-Za-z0-9_-]{28}(?![\w-])",
    ),
    _p(
        "google-oauth-token", "Google OAuth access token", "ya29.", _L + r"ya29\.[0-9A-Za-z_-]{30,}"
    ),
    _p(
        "azure-storage-key",
        "Azure storage account key",
        "accountkey=",
        r"(?i)AccountKey=([A-Za-z0-9+/]{86}==)",
        1,
    ),
    _p(
        "azure-sas-token",
        "Azure shared access signature",
        "sig=",
        r"(?i)\bsv=\d{4}-\d\d-\d\d&[^\s\"'<>]{0,2000}?\bsig=([A-Za-z0-9%+/]{30,}=*)",
        1,
    ),
    _p(
        "azure-client-secret",
        "Azure AD client secret",
        "Q~",
        r"(?<![\w~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])",
    ),
    _p(
        "github-token",
        "GitHub token",
        "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_",
        _L + r"(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{80,})" + _R,
    ),
    _p(
        "gitlab-token",
        "GitLab token",
        " ".join(f"{prefix}-" for prefix in _GITLAB.split()) + " GR1348941",
        rf"(?<![\w-])(?:(?:{'|'.join(_GITLAB.split())})-[A-Za-z0-9_-]{{20,}}"
        r"|GR1348941[A-Za-z0-9_-]{20,})(?![\w-])",
    ),
    _p(
        "slack-token",
        "Slack token",
        "xox xapp-",
        r"(?<![\w-])(?:xox[abposre]-(?:[0-9A-Za-z]+-){1,4}[0-9A-Za-z]{6,}"
        r"|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{16,})",
    ),
    _p(
        "slack-webhook",
        "Slack webhook URL",
        "hooks.slack.com/",
        # with https://, http:// or no scheme at all: the path is the secret
        r"(?:https?://|(?<![\w.-]))hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"[A-Za-z0-9_/]{20,}",
    ),
    _p(
        "jwt",
        "JSON Web Token",
        "eyJ",
        r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
        0,
        _jwt_header,
        example=_jwt_io_sample,
    ),
    _p(
        "anthropic-api-key",
        "Anthropic API key",
        "sk-ant-",
        r"(?<![\w-])sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{40,}",
    ),
    _p(
        "openai-api-key",
        "OpenAI API key",
        "sk-",
        r"(?<![\w-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"
        r"|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48}(?![\w-]))",
    ),
    _p(
        "stripe-key",
        "Stripe secret or restricted key",
        "sk_live_ sk_test_ rk_live_ rk_test_",
        _L + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _R,
    ),
    _p(
        "stripe-webhook-secret",
        "Stripe webhook signing secret",
        "whsec_",
        _L + r"whsec_[A-Za-z0-9+/]{32,}",
    ),
    _p("npm-token", "npm token", "npm_", _L + r"npm_[A-Za-z0-9]{36}" + _R),
    _p("pypi-token", "PyPI token", "pypi-AgE", r"(?<![\w-])pypi-AgE[A-Za-z0-9_-]{50,}"),
    _p("huggingface-token", "Hugging Face token", "hf_", _L + r"hf_[A-Za-z0-9]{34,}" + _R),
    # generic shapes last: a specific format inside one keeps its own name
    _p(
        "connection-string",
        "connection string with a password",
        "://",
        # user, password (anything but blanks, quotes and `@`: %-encoded, `$…`, `{}`, `/`
        # included), host (a name, or an IPv6 address in brackets). Each at most 256
        # characters, taken possessively: a line of `://a:b` does not read to its end
        # again from every `://` in it.
        r"://([^\s:/@\"'<>]{0,256}+):([^\s@\"'<>]{1,256}+)@(\[[0-9A-Za-z:.%]+\]|[\w.-]+)",
        2,
        accept_match=_url_password,
        example=_default_login,
    ),
    _p(
        "connection-string",
        "connection string with a password",
        "password pwd",
        r"(?i)(?:\b(?:server|data source|host|address|addr|uid|user id|user)\s*=[^;\n]{0,200};"
        r"\s*){1,20}"
        r"(?:password|pwd)\s*=\s*([^;\s\"']{3,})",
        1,
        _real_value,
    ),
    _p(
        "authorization-header",
        "HTTP Authorization credentials",
        "authorization",
        r"(?i)\bauthorization\s*:\s*(?:bearer|basic|token)\s+([A-Za-z0-9._~+/-]{16,}=*)",
        1,
        _real_value,
    ),
    _p(
        "secret-assignment",
        "password or token assigned in an environment line",
        "PASSWORD= PASSWD= SECRET= SECRET_KEY= TOKEN= API_KEY= APIKEY= ACCESS_KEY= PRIVATE_KEY="
        " _PWD=",
        # DB_PASSWORD=, PGPASSWORD=, MYSQL_PWD= (but not PWD= nor OLDPWD=: the working folder)
        r"(?<![A-Za-z0-9_])(?:[A-Z][A-Z0-9_]*)?"
        r"(?:PASSWORD|PASSWD|SECRET|SECRET_KEY|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|_PWD)"
        r"=[\"']?([^\s\"'`]+)",
        1,
        _assigned_value,
    ),
)

# detect-secrets plugins used, by class, with the kind each finding gets. An explicit list,
# so an upgrade that adds a plugin cannot start refusing writes unannounced.
DETECT_SECRETS_PLUGINS: tuple[tuple[str, str, str, str], ...] = (
    ("aws", "AWSKeyDetector", "aws-key", "AWS key"),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure-storage-key", "Azure storage key"),
    ("discord", "DiscordBotTokenDetector", "discord-bot-token", "Discord bot token"),
    ("github_token", "GitHubTokenDetector", "github-token", "GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "gitlab-token", "GitLab token"),
    ("jwt", "JwtTokenDetector", "jwt", "JSON Web Token"),
    ("mailchimp", "MailchimpDetector", "mailchimp-api-key", "Mailchimp API key"),
    ("npm", "NpmDetector", "npm-token", "npm token"),
    ("openai", "OpenAIDetector", "openai-api-key", "OpenAI API key"),
    ("pypi_token", "PypiTokenDetector", "pypi-token", "PyPI token"),
    ("sendgrid", "SendGridDetector", "sendgrid-api-key", "SendGrid API key"),
    ("slack", "SlackDetector", "slack-token", "Slack token"),
    ("square_oauth", "SquareOAuthDetector", "square-oauth-secret", "Square OAuth secret"),
    ("stripe", "StripeDetector", "stripe-key", "Stripe key"),
    ("telegram_token", "TelegramBotTokenDetector", "telegram-bot-token", "Telegram bot token"),
    ("twilio", "TwilioKeyDetector", "twilio-api-key", "Twilio API key"),
)

# kind -> what a person reads in a message; mem's own label wins for a shared kind.
KINDS: dict[str, str] = {
    **{kind: label for _, _, kind, label in DETECT_SECRETS_PLUGINS},
    **{pattern.kind: pattern.label for pattern in reversed(PATTERNS)},
}


class _Disjoint:
    """Spans that overlap none of each other, sorted: a span overlapping one is not added."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.spans: list[_Hit] = []

    def free(self, hit: _Hit) -> bool:
        before = bisect.bisect_left(self.starts, hit.end)  # the spans starting before it ends
        return before == 0 or self.spans[before - 1].end <= hit.start

    def add(self, hit: _Hit) -> None:
        if self.free(hit):
            at = bisect.bisect_left(self.starts, hit.start)
            self.starts.insert(at, hit.start)
            self.spans.insert(at, hit)


def _builtin_hits(text: str) -> _Disjoint:
    """Matches of mem's patterns; where two overlap, the earlier (more specific) pattern wins."""
    kept = _Disjoint()
    lowered: str | None = None
    for pattern in PATTERNS:
        if pattern.regex.flags & re.IGNORECASE:
            lowered = text.lower() if lowered is None else lowered
            haystack = lowered
        else:
            haystack = text
        if not any(needle in haystack for needle in pattern.needles):
            continue
        for match in pattern.regex.finditer(text):
            if pattern.accept is not None and not pattern.accept(match):
                continue
            example = _documented(match.group(pattern.group)) or (
                pattern.example is not None and pattern.example(match)
            )
            start, end = match.span(pattern.group)
            kept.add(_Hit(start, end, pattern.kind, example))
    return kept


@functools.cache
def _plugins() -> tuple[tuple[Any, str], ...]:
    """The detect-secrets plugin instances, loaded once, on the first scan of a process."""
    loaded = []
    for module, class_name, kind, _ in DETECT_SECRETS_PLUGINS:
        plugin_class = getattr(
            importlib.import_module(f"detect_secrets.plugins.{module}"), class_name
        )
        loaded.append((plugin_class(), kind))
    return tuple(loaded)


# detect-secrets reads line by line, and some of its patterns backtrack in time quadratic in
# the line's length (`//.+/:_authToken=` over a minified file): a long line is read as
# overlapping windows, the overlap longer than any one-line secret they look for. A window
# also keeps its JWT check (json.loads, no RecursionError guard) away from a token nested
# deep enough to overflow the stack: that needs over 1,300 characters.
WINDOW = 512
OVERLAP = 256


def _plugin_hits(text: str, kept: _Disjoint) -> None:
    """Add detect-secrets' findings that overlap none already kept. Every plugin reads the whole
    text once (its lines joined); only one that finds something reads line by line, to place
    each finding where its regular expression matched (never by searching for the value,
    which could land on an earlier word holding the same letters)."""
    segments = _segments(text)
    joined = "\n".join(piece for _, piece in segments)
    for plugin, kind in _plugins():
        if next(iter(plugin.analyze_string(joined)), None) is None:
            continue
        hits = set()
        for offset, piece in segments:
            values = set(plugin.analyze_string(piece))
            for regex in plugin.denylist:
                for match in regex.finditer(piece):
                    start, end = _secret_span(match, values)
                    if end > start:
                        value = piece[start:end]
                        hits.add(_Hit(offset + start, offset + end, kind, _documented(value)))
        # two windows can see one secret, one of them cut short: the longest is kept
        for hit in sorted(hits, key=lambda hit: (hit.start, hit.start - hit.end)):
            kept.add(hit)


# A plugin's regular expression yields its groups when it has some: the secret itself (an
# AWS key after its `aws_secret = `), or only the prefix naming the token's type (`ghp`,
# `glpat`), too short to be a secret, whose secret is then the whole match.
_TYPE_PREFIX_LIMIT = 8


def _secret_span(match: re.Match[str], values: set[str]) -> tuple[int, int]:
    """Where the secret is in a plugin's match, or (0, 0) when the plugin yields none of it
    (a JWT that is not well formed)."""
    groups = [number for number in range(1, (match.re.groups or 0) + 1) if match.group(number)]
    for number in groups or [0]:
        value = match.group(number)
        if value in values:
            return match.span(0) if len(value) < _TYPE_PREFIX_LIMIT else match.span(number)
    return 0, 0


def _segments(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each line, a long line as overlapping windows."""
    segments = []
    offset = 0
    for line in text.split("\n"):
        if len(line) <= WINDOW:
            segments.append((offset, line))
        else:
            for start in range(0, len(line) - OVERLAP, WINDOW - OVERLAP):
                segments.append((offset + start, line[start : start + WINDOW]))
        offset += len(line) + 1
    return segments


def scan(text: str) -> list[Finding]:
    """Every possible secret in text, in reading order; mem's own kind wins where both see one.
    Documentation examples and placeholders are not among them (see `scan_all`)."""
    return [finding for finding in scan_all(text) if not is_example(finding.kind)]


EXAMPLE = "example-"  # the kind of a documentation example: `example-<kind of secret>`


def is_example(kind: str) -> bool:
    return kind.startswith(EXAMPLE)


def label(kind: str) -> str:
    """What a person reads for a kind, an example's included."""
    if is_example(kind):
        return (
            f"{KINDS[kind[len(EXAMPLE) :]]}: a documentation example or placeholder, not a secret"
        )
    return KINDS[kind]


def scan_all(text: str) -> list[Finding]:
    """`scan`, with the documentation examples and placeholders of a secret's format, each
    as the kind `example-<kind>`: never refused, listed by `mem audit --secrets`."""
    kept = _builtin_hits(text)
    _plugin_hits(text, kept)
    starts = _line_starts(text)
    return sorted({_finding(starts, hit) for hit in kept.spans})


_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def scan_stored(text: str) -> list[Finding]:
    """`scan_all` of a stored file, seeing through JSON string escapes too.

    In NDJSON stores and pretty JSON a pasted value is escaped (`\\"`, `\\n`), which can hide
    it from a pattern; each escaped string literal is also scanned decoded, and what only
    the decoded form shows is reported at the literal's line and column.
    """
    found = scan_all(text)
    decoded: list[str] = []
    places: list[tuple[int, int]] = []  # (line, column) of each decoded literal
    for number, text_line in enumerate(text.split("\n"), 1):
        if "\\" not in text_line:
            continue
        for literal in _JSON_STRING.finditer(text_line):
            if "\\" not in literal.group():
                continue
            try:
                value = json.loads(literal.group())
            except ValueError:
                continue
            decoded.append(value)
            places.append((number, literal.start() + 1))
    if not decoded:
        return found
    # one scan of every literal, each starting on its own line of the joined text
    joined_starts = []
    offset = 0
    for value in decoded:
        joined_starts.append(offset)
        offset += len(value) + 1
    seen = {(finding.line, finding.kind) for finding in found}
    extra = set()
    starts = _line_starts("\n".join(decoded))
    for finding in scan_all("\n".join(decoded)):
        position = starts[finding.line - 1] + finding.column - 1
        line, column = places[bisect.bisect_right(joined_starts, position) - 1]
        if (line, finding.kind) not in seen:
            extra.add(Finding(line, column, finding.kind))
    return sorted(set(found) | extra)


def _line_starts(text: str) -> list[int]:
    return [0] + [match.end() for match in re.finditer("\n", text)]


def _finding(starts: list[int], hit: _Hit) -> Finding:
    line = bisect.bisect_right(starts, hit.start)
    kind = EXAMPLE + hit.kind if hit.example else hit.kind
    return Finding(line, hit.start - starts[line - 1] + 1, kind)


# ---- checks before a write


def allowed_kinds(values: Iterable[str]) -> frozenset[str]:
    """`--allow-secret` values, each a known kind."""
    allowed = frozenset(values)
    unknown = sorted(allowed - set(KINDS))
    if unknown:
        shown = ", ".join(repr(shown_name(kind, "(withheld)")) for kind in unknown)
        raise MemError(
            f"--allow-secret: unknown kind {shown}; the kinds are {', '.join(sorted(KINDS))}."
        )
    return allowed


def scan_fields(fields: Iterable[tuple[str, str | None]]) -> list[FieldFinding]:
    return [FieldFinding(name, finding) for name, text in fields if text for finding in scan(text)]


def refuse(fields: Iterable[tuple[str, str | None]], allow: Iterable[str] = ()) -> None:
    """Raise MemError naming each field and kind of a possible secret (never the text itself).

    `fields` are (what the user calls it, the text about to be written); findings of an
    allowed kind pass. The allowance is only for this call: it is recorded nowhere.
    """
    allowed = allowed_kinds(allow)
    found = [item for item in scan_fields(fields) if item.finding.kind not in allowed]
    if found:
        raise MemError(refusal_message(found))


def refusal_message(found: list[FieldFinding]) -> str:
    where = "; ".join(
        f"{item.field} line {item.finding.line} column {item.finding.column}: "
        f"{KINDS[item.finding.kind]} ({item.finding.kind})"
        for item in found
    )
    kinds = sorted({item.finding.kind for item in found})
    allow = " ".join(f"--allow-secret {kind}" for kind in kinds)
    return (
        f"Possible secret, nothing was written: {where}. Remove it; if it is not a secret, "
        f"repeat with {allow}."
    )


def shown_name(name: str, instead: str = "(a name withheld: it looks like a secret)") -> str:
    """A name (a JSON key, a file name) as a message may show it: withheld if it holds a secret."""
    return instead if scan(name) else name


def json_fields(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string in a JSON value, keys included, with its path (iterative: any depth)."""
    found: list[tuple[str, str]] = []
    pending: list[tuple[str, Any]] = [(path, value)]
    while pending:
        where, item = pending.pop()
        if isinstance(item, str):
            found.append((where, item))
        elif isinstance(item, dict):
            for position, (key, child) in enumerate(item.items()):
                name = shown_name(str(key), f"#{position}")
                inner = f"{where}.{name}" if where else name
                found.append((f"{inner} (the key)", str(key)))
                pending.append((inner, child))
        elif isinstance(item, list):
            pending.extend((f"{where}[{position}]", child) for position, child in enumerate(item))
    return found
