"""Secret families the redaction rules of redact.py add to the kinds they list one by one (issue 35).

Each family is rule fields (`redact._Rule(**fields)`): vendor prefixes, key files (`.pgpass`,
WireGuard), natural-language disclosures ("my password is …"), tokens wrapped across a line break,
and base64 that decodes to any of these. A `check` names the test the match must also pass
(redact.Redactor._checked): the rule's regex only finds where to look.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from typing import Any

_L = r"(?<![A-Za-z0-9_\]])"
_R = r"(?![A-Za-z0-9_\-\[])"
_NOT_DONE = r"(?!\[REDACTED|\[user\])"


def _token(kind: str, body: str, gate: str) -> dict[str, Any]:
    return {"kind": kind, "pattern": rf"{_L}{body}{_R}", "gate": (gate,)}


# Vendor prefixes, each a literal-led shape (gitleaks' and the vendors' documented formats).
VENDOR_TOKENS: list[dict[str, Any]] = [
    _token("age_key", r"AGE-SECRET-KEY-1[0-9A-Z]{50,}", "AGE-SECRET-KEY-"),
    _token("mailgun_key", r"key-[0-9a-f]{32}", "key-"),
    _token("atlassian_token", r"AT[AC]TT3[A-Za-z0-9_\-=]{40,}", "TT3"),
    _token("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}", "dp."),
    _token("postman_key", r"PMAK-[A-Za-z0-9]{20,}-[A-Za-z0-9]{20,}", "PMAK-"),
    _token("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "shp"),
    _token("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{40,}", "atlasv1"),
    _token("linear_key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}", "lin_"),
    _token("grafana_token", r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})", "gl"),
    _token("tailscale_key", r"tskey-[A-Za-z0-9\-]{20,}", "tskey-"),
    _token("sentry_token", r"sntry[su]_[A-Za-z0-9+/=_\-]{30,}", "sntry"),
    _token("newrelic_key", r"NR(?:AK|AA|II|JS)-[A-Za-z0-9]{20,}", "NR"),
    _token("pulumi_token", r"pul-[a-f0-9]{40}", "pul-"),
    _token("figma_token", r"figd_[A-Za-z0-9_\-]{30,}", "figd_"),
    _token("notion_token", r"ntn_[A-Za-z0-9]{40,}", "ntn_"),
    _token("rubygems_key", r"rubygems_[a-f0-9]{48}", "rubygems_"),
    _token("nuget_key", r"oy2[a-z0-9]{43}", "oy2"),
    _token("buildkite_token", r"bkua_[a-f0-9]{40}", "bkua_"),
    _token("square_token", r"(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_\-]{22,}", "sq0"),
    _token("square_token", r"EAAA[A-Za-z0-9_\-]{60}", "EAAA"),
    _token("brevo_key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "xkeysib-"),
    _token("twilio_key", r"SK[0-9a-f]{32}", "SK"),
    _token("onepassword_token", r"ops_eyJ[A-Za-z0-9_\-]{20,}", "ops_"),
    _token("fly_token", r"fo1_[A-Za-z0-9_\-]{30,}", "fo1_"),
    _token("planetscale_token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-=.]{30,}", "pscale_"),
    _token("render_key", r"rnd_[A-Za-z0-9]{20,}", "rnd_"),
    _token("heroku_key", r"HRKU-[A-Za-z0-9_\-]{30,}", "HRKU-"),
    _token("dynatrace_token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}", "dt0c01."),
    _token("artifactory_key", r"AKCp[A-Za-z0-9]{60,}", "AKCp"),
    _token("supabase_token", r"sbp_[a-f0-9]{40}", "sbp_"),
    _token("xai_key", r"xai-[A-Za-z0-9]{60,}", "xai-"),
    _token("perplexity_key", r"pplx-[A-Za-z0-9]{40,}", "pplx-"),
    _token("runpod_key", r"rpa_[A-Za-z0-9]{30,}", "rpa_"),
    _token("easypost_key", r"EZ[AT]K[a-zA-Z0-9]{54}", "EZ"),
    # issue 35's fresh generator (fitted part): more vendors' documented shapes
    _token("duffel_token", r"duffel_(?:live|test)_[A-Za-z0-9_\-]{40,}", "duffel_"),
    _token("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_\-]{24,}", "GOCSPX-"),
    _token("neon_key", r"napi_[a-z0-9]{40,}", "napi_"),  # 64, or fewer where a field was clipped
    _token("resend_key", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", "re_"),
    _token("together_key", r"tgp_v1_[A-Za-z0-9_\-]{40,}", "tgp_v1_"),
    _token("gitlab_token", r"gl(?:cbt|ft|soat|agent|imt|oas)-[A-Za-z0-9_\-]{20,}", "gl"),
    _token("gitlab_token", r"GR1348941[A-Za-z0-9_\-]{20,}", "GR1348941"),
    _token("octopus_key", r"API-[A-Z0-9]{26,}", "API-"),
    # a Discord bot token: the user id in base64, a time stamp, an HMAC (three dotted parts)
    _token("discord_token", r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}", "."),
    _token("airtable_token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", "pat"),
    _token("braintree_token", r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}", "access_token$"),
    _token("google_oauth_token", r"1//0[A-Za-z0-9_\-]{40,}", "1//0"),
    _token("supabase_token", r"sb_secret_[A-Za-z0-9_\-]{24,}", "sb_secret_"),
    _token("mailchimp_key", r"[a-f0-9]{32}-us\d{1,2}", "-us"),
    _token("fly_token", r"fm[12][ar]?_[A-Za-z0-9+/]{40,}={0,2}", "fm"),
    _token("cloudflare_key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{140,}", "v1.0-"),
    _token("huggingface_token", r"api_org_[A-Za-z]{30,}", "api_org_"),
    _token("slack_token", r"xoxe(?:\.xox[abprs])?-\d-[A-Za-z0-9\-]{40,}", "xoxe"),
    _token("hubspot_token", r"pat-(?:na|eu|ap)\d-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", "pat-"),
    _token("netlify_token", r"nfp_[A-Za-z0-9]{36,}", "nfp_"),
    _token("elevenlabs_key", r"sk_[a-f0-9]{48}", "sk_"),
    _token("firebase_key", r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}", ":APA91b"),
    _token("typeform_token", r"tfp_[A-Za-z0-9_\-]{40,}", "tfp_"),
    _token("prefect_key", r"pnu_[A-Za-z0-9]{36}", "pnu_"),
    # an Entra ID (Azure AD) client secret: three characters, a digit, `Q~`, then 31 to 34
    {"kind": "azure_client_secret", "pattern": r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}"
     r"(?![A-Za-z0-9_~.\-])", "gate": ("Q~",)},
]

# every literal a vendor token starts with (what a token cut by a line break still shows)
SPLIT_PREFIXES = (
    r"sk-ant-|sk-|gh[pousr]_|github_pat_|hf_|xox[abprse]-|glpat-|npm_|pypi-AgE|AKIA|ASIA|AIza|nvapi-|gsk_|hv[sbr]\."
    r"|dckr_pat_|lsv2_|pcsk_|lin_api_|AGE-SECRET-KEY-|dp\.pt\.|PMAK-|shpat_|figd_|ntn_|glsa_|tskey-|sntrys_|pul-"
)

# Context families: key files, natural language, wrapped and encoded tokens.
CONTEXT: list[dict[str, Any]] = [
    # ~/.pgpass: `host:port:database:user:password`, one entry a line
    {"kind": "password", "pattern": rf"^[ \t]*+[^:\s]++:(?:\d++|\*):[^:\s]++:[^:\s]++:(?P<s>{_NOT_DONE}[^\s:]++)[ \t]*+$",
     "gate": (":",), "generic": True, "flags": "MULTILINE"},
    # WireGuard: `PrivateKey = <44 base64>` and `PresharedKey = …`
    {"kind": "wireguard_key", "pattern": rf"(?:private|preshared)key\s*+=\s*+(?P<s>{_NOT_DONE}[A-Za-z0-9+/]{{42,43}}=)",
     "gate": ("key",), "gate_lower": True, "flags": "IGNORECASE"},
    # prose: "my password is X", "the token for prod was X", "api key: X", "the root password's X",
    # "my password, for the record, is X", "creds are admin:X"
    {"kind": "password",
     "pattern": r"\b(?:password|passphrase|passcode|passwd|pwd|token|api[ _\-]?key|secret(?:[ _]key)?|creds|credentials)"
                r"(?:[ \t]++for[ \t]++[\w.@\-]++|(?:[ \t]++(?!is\b|was\b|are\b|were\b)[A-Za-z'’]{1,12}+){1,6}?)?(?:,[^,\n]{1,40}+,)?"
                r"(?:['’]s|[ \t]++(?:is|was|are|were|=|:))[ \t]++(?:now[ \t]++|still[ \t]++|set[ \t]++to[ \t]++)?"
                rf"[\"'`“]?(?P<s>{_NOT_DONE}[^\s\"'`”]++)",
     "gate": (" is ", " was ", " are ", " were ", ": ", "=", "'s ", "’s "), "gate_lower": True, "flags": "IGNORECASE",
     "check": "prose", "generic": True},
    # "log in with admin / X", "login as bob/X": a user and a password told together
    {"kind": "password",
     "pattern": r"\blog[ \t]?(?:in|on)[ \t]++(?:with|as|using)[ \t]++[^\s/]{1,64}+[ \t]*+/[ \t]*+"
                rf"[\"'`]?(?P<s>{_NOT_DONE}[^\s\"'`]++)",
     "gate": ("log",), "gate_lower": True, "flags": "IGNORECASE", "check": "prose", "generic": True},
    # XML elements named for a secret: Maven's `<password>X</password>`, `<apiKey>X</apiKey>`
    {"kind": "secret",
     "pattern": r"<(?:[A-Za-z0-9]++[:_\-]?)?(?:password|passwd|passphrase|secret|token|api[_\-]?key|private[_\-]?key"
                rf"|access[_\-]?key|client[_\-]?secret)>(?P<s>{_NOT_DONE}[^<\s]++)</",
     "gate": ("</",), "flags": "IGNORECASE", "generic": True},
    # an HTTP header named for a key, a token or a secret: `X-Auth-Key: X`, `X-Api-Token: X`
    {"kind": "secret",
     "pattern": rf"(?<=[A-Za-z0-9])-(?:key|token|secret|auth)[\"']?:[ \t]*+[\"']?(?P<s>{_NOT_DONE}[A-Za-z0-9_\-+/=.]{{16,}}+)",
     "gate": ("-key", "-token", "-secret", "-auth"), "gate_lower": True, "flags": "IGNORECASE", "generic": True,
     "strong": True},
    # a JSON Web Key's private members (`"d"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`, a symmetric `"k"`)
    {"kind": "private_key",
     "pattern": rf"\\?\"(?:d|p|q|dp|dq|qi|k)\\?\"\s*+:\s*+\\?\"(?P<s>{_NOT_DONE}[A-Za-z0-9_\-]{{16,}}+)",
     "gate": ('"kty', 'kty\\"'), "generic": True},
    # a client's positional credentials: MinIO's `mc alias set NAME URL ACCESS_KEY SECRET_KEY`
    {"kind": "secret",
     "pattern": rf"\bmc[ \t]++(?:alias[ \t]++set|config[ \t]++host[ \t]++add)[ \t]++\S++[ \t]++\S++[ \t]++\S++[ \t]++"
                rf"[\"']?(?P<s>{_NOT_DONE}[^\s'\"]++)",
     "gate": ("mc ",), "generic": True},
    # PHP constants named for a secret: WordPress's `define( 'AUTH_KEY', '…' )` salts and keys
    {"kind": "secret",
     "pattern": r"\bdefine\([ \t]*+['\"][A-Z0-9_]*?(?:KEY|SALT|SECRET|PASSWORD|PASS|TOKEN)['\"][ \t]*+,[ \t]*+'"
                rf"(?P<s>{_NOT_DONE}[^'\n]{{32,}}+)'",  # WordPress's are 64 of any printable (not code: no generic test)
     "gate": ("define",)},
    # key files that are not PEM private keys: OpenVPN's static key, minisign's and signify's secret keys
    {"kind": "private_key",
     "pattern": r"-----BEGIN [A-Za-z0-9 ]{0,40}?(?:Static|Secret|SECRET) [Kk]ey[A-Za-z0-9 ]{0,20}-----"
                rf"(?P<s>{_NOT_DONE}(?:[ \t]*+(?:\r?\n|\\n)[ \t]*+[A-Za-z0-9+/=]{{8,}}+)++)",
     "gate": ("-----BEGIN",), "generic": True},
    {"kind": "private_key",
     "pattern": rf"untrusted comment: [^\n]{{0,120}}?secret key[ \t]*+(?:\r?\n|\\n)(?P<s>{_NOT_DONE}[A-Za-z0-9+/=]{{40,}}+)",
     "gate": ("untrusted comment:",), "generic": True},
    # prose in other languages: "mot de passe : X", "la contraseña … es X", "a senha do banco é X",
    # "das Passwort ist X", "本番のパスワードは X です", "密码是 X"
    {"kind": "password",
     "pattern": r"(?:mot de passe|contrase[ñn]a|senha|passwort|kennwort|wachtwoord|has[łl]o|пароль|parola|"
                r"パスワード|密码|密碼|비밀번호)(?:[ \t]++[^\s:：]{1,20}+){0,4}?"
                r"(?:[ \t]++(?:es|é|est|ist|is|jest|è|era|était|war|это)|[ \t]*+[:：=]|は|是|는|은)[ \t]*+"
                rf"[\"'`“]?(?P<s>{_NOT_DONE}[^\s\"'`”]++)",
     "gate": ("mot de passe", "contrase", "senha", "passwort", "kennwort", "wachtwoord", "has", "пароль", "parola",
              "パスワード", "密码", "密碼", "비밀번호"),
     "gate_lower": True, "flags": "IGNORECASE", "check": "prose", "generic": True},
    # a value that is random by its letters (mixed case and digits, no words): a key whatever name it has,
    # a vendor's format not listed, a token pasted on a line of its own (random_looking)
    {"kind": "secret",
     "pattern": rf"(?<![A-Za-z0-9_\-~+/=.]){_NOT_DONE}(?P<s>[A-Za-z0-9_\-~]{{32,200}}+)(?![A-Za-z0-9_\-~+/=]|\.[A-Za-z0-9_\-])",
     "check": "entropy", "generic": True},
    # hex that decodes to a secret (`echo 7265…| xxd -r -p`); checked like base64 (HEX_NEEDLES)
    {"kind": "encoded_secret", "pattern": r"(?<![A-Fa-f0-9])(?:[A-Fa-f0-9]{2}){16,}+(?![A-Fa-f0-9])", "check": "hex"},
    # base64 that decodes to a secret (an env file or a config passed as one blob); searched only when
    # the text holds the base64 form of a secret-ish word (ENCODED_NEEDLES)
    # wrapped at a fixed width (`base64` writes 76 columns, PEM-like dumps 64): before the
    # one-line rule, which would take its first line alone
    {"kind": "encoded_secret",
     "pattern": r"(?<![A-Za-z0-9+/])(?:[A-Za-z0-9+/]{40,}+[ \t]?\r?\n){1,200}+[A-Za-z0-9+/]{4,}+={0,2}+(?![A-Za-z0-9+/=])",
     "check": "base64"},
    # on one line (`KEY=<blob>`: an `=` before a blob is no padding of another)
    {"kind": "encoded_secret", "pattern": r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,}+={0,2}+(?![A-Za-z0-9+/=])",
     "check": "base64"},
]


def split_rule(prefixes: str) -> dict[str, Any]:
    """A token that a terminal, an editor or a renderer broke across lines (possibly escaped `\\n`):
    one of `prefixes` (every literal a token shape starts with), then up to three more lines (the
    most that still join into one token: redact.Redactor._candidate)."""
    return {"kind": "split_token",
            "pattern": rf"(?<![A-Za-z0-9_\]\-.])(?:{prefixes})[A-Za-z0-9_\-.]{{2,}}+"
                       # a line that starts a token of its own is no continuation
                       rf"(?:[ \t]*+\\?\r?\n[ \t>#]*+(?!{prefixes})[A-Za-z0-9_\-.]{{4,}}+){{1,3}}+{_R}",
            "gate": ("\n",), "check": "split"}

_ENCODED_WORDS = (
    "TOKEN", "PASSWORD", "SECRET", "PASSWD", "API_KEY", "ACCESS_KEY", "PRIVATE KEY", "token", "password",
    "secret", "passwd", "api_key", "apikey", "export ", "ghp_", "github_pat_", "sk-ant-", "sk-proj-", "AKIA",
    "xoxb-", "glpat-", "hf_", "AGE-SECRET", "PMAK-", "lin_api_", "://",
    "PASS", "auth", "machine ", "_KEY=", "BEGIN ",
)


def _stable_forms(word: bytes) -> list[str]:
    """The base64 text `word` becomes at each of the three alignments, without the characters
    that depend on the bytes around it."""
    forms = []
    for pad in range(3):
        enc = base64.b64encode(b"\0" * pad + word + b"\0\0").decode()
        lead = -(-pad * 4 // 3)  # characters touched by the padding before the word
        tail = -(-(pad + len(word)) * 4 // 3) if (pad + len(word)) % 3 else (pad + len(word)) * 4 // 3
        stable = enc[lead : tail - (1 if (pad + len(word)) % 3 else 0)]
        if len(stable) >= 4:
            forms.append(stable)
    return forms


ENCODED_NEEDLES: tuple[str, ...] = tuple(sorted({f for w in _ENCODED_WORDS for f in _stable_forms(w.encode())}))
HEX_NEEDLES = tuple(sorted({w.encode().hex() for w in _ENCODED_WORDS} | {w.encode().hex().upper() for w in _ENCODED_WORDS}))


def _text(raw: bytes) -> str | None:
    """`raw` as text when it is UTF-8 and mostly printable, else None."""
    try:
        text = raw.decode("utf-8")
    except ValueError:
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if text and printable >= 0.9 * len(text) else None


def decoded_text(blob: str) -> str | None:
    """`blob` decoded from base64 when it is text (UTF-8, mostly printable), else None; line
    breaks in it are a wrapped blob's."""
    body = "".join(blob.split()).rstrip("=")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _text(raw)


def decoded_hex(blob: str) -> str | None:
    """`blob` decoded from hex when it is text (UTF-8, mostly printable), else None."""
    try:
        return _text(bytes.fromhex(blob))
    except ValueError:
        return None


# an encoded blob's check: the needles its text must hold (also its rule's gate) and its decoder
ENCODINGS = {"base64": (ENCODED_NEEDLES, decoded_text), "hex": (HEX_NEEDLES, decoded_hex)}
for _rule in CONTEXT:
    if _rule.get("check") in ENCODINGS:
        _rule["gate"] = ENCODINGS[_rule["check"]][0]


def random_looking(value: str) -> bool:
    """A value no person or program would name: 32+ characters after any `name~` head, mixed case
    and digits, a long run with no separator (`test_tp2_pp4_…` is a name), not hex (a digest, a commit),
    and close to the entropy of random text (Shannon >= 4 bits a character; base62 is 5.95)."""
    body = value.rsplit("~", 1)[-1]
    if len(body) < 32 or all(c in _HEXDIGITS for c in body):
        return False
    if sum(c.isupper() for c in body) < 2 or sum(c.islower() for c in body) < 2 or sum(c.isdigit() for c in body) < 3:
        return False
    if max(len(run) for run in body.replace("-", "_").split("_")) < 16 or body.startswith("_Z"):
        return False
    # words: a kernel's or a C++ symbol's name is mostly lower-case runs (`BatchedGemmKernel_Bfloat16_…`,
    # `…SourceLocation…basic_string…`: 70 %); in random base62 such runs hold ~10 % of the characters
    if sum(len(w) for w in _LOWER_RUN.findall(body)) >= 0.35 * len(body):
        return False
    counts = Counter(body)
    return -sum(n / len(body) * math.log2(n / len(body)) for n in counts.values()) >= 4.0


_HEXDIGITS = frozenset("0123456789abcdefABCDEF-")
_LOWER_RUN = re.compile(r"[a-z]{3,}")


def prose_value(value: str) -> bool:
    """A value told in prose that is a credential, not a word: it has a digit, a symbol or mixed
    case (`hunter2`, `Summer2024!`), not `wrong`, `expired`, `incorrect`."""
    value = value.rstrip(".,;:!?)")
    if len(value) < 4 or (value.isalpha() and (value.islower() or value.istitle())):
        return False
    return any(c.isdigit() for c in value) or not value.isalnum() or not value.islower()


def token_pieces(span: str) -> list[str]:
    """A wrapped token's pieces, one a line, without the indentation and quoting marks around them."""
    return [ln.strip(" \t\r").removesuffix("\\").rstrip(" \t").lstrip(">#").lstrip(" \t>#") for ln in span.split("\n")]


def evenly_wrapped(span: str) -> bool:
    """Broken once, or at one width (a terminal's): every line but the last as long as the first,
    the last no longer. A next line of other text is not the token's tail."""
    lines = [ln.rstrip(" \t\r\\") for ln in span.split("\n")]
    if len(lines) <= 2:
        return True
    width = len(lines[0])
    return all(len(ln.lstrip(" \t>#")) == width for ln in lines[1:-1]) and len(lines[-1].lstrip(" \t>#")) <= width


def joined_token(span: str) -> tuple[str, str]:
    """A wrapped token's head (its first line) and the whole, line breaks removed."""
    pieces = token_pieces(span)
    return pieces[0], "".join(pieces)
