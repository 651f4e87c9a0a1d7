"""A generator of planted secrets by family (issue 35): each family's value drawn afresh from a seed.

`family_plants(seed)` gives kind -> (the line as a session shows it, with {v} for the secret; the
secret), like robustness_secrets.PLANTS, for every family that redact_families.py masks: vendor
prefixes, key files (.pgpass, WireGuard), prose, a token wrapped across a line break, base64 of an
env export. A new seed gives new bodies, so a fresh pass plants values no test has seen.
"""

from __future__ import annotations

import base64
import random
import string

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"


def _vendor(rnd: random.Random) -> dict[str, str]:
    """One value per vendor family, bodies random."""
    def body(n: int, alphabet: str = _ALNUM) -> str:
        return "".join(rnd.choice(alphabet) for _ in range(n))

    return {
        "age": "AGE-SECRET-KEY-1" + body(58, string.ascii_uppercase + string.digits),
        "mailgun": "key-" + body(32, _HEX),
        "atlassian": "ATATT3xFfGF0" + body(180, _ALNUM + "_-"),
        "doppler": "dp.pt." + body(43),
        "postman": "PMAK-" + body(24, _HEX) + "-" + body(34, _HEX),
        "shopify": "shpat_" + body(32, _HEX),
        "terraform": body(14) + ".atlasv1." + body(67),
        "linear": "lin_api_" + body(40),
        "grafana": "glsa_" + body(32) + "_" + body(8, _HEX),
        "tailscale": "tskey-auth-k" + body(10) + "CNTRL-" + body(30),
        "sentry": "sntrys_" + body(60),
        "newrelic": "NRAK-" + body(27, string.ascii_uppercase + string.digits),
        "pulumi": "pul-" + body(40, _HEX),
        "notion": "ntn_" + body(46),
        "rubygems": "rubygems_" + body(48, _HEX),
        "supabase": "sbp_" + body(40, _HEX),
        "xai": "xai-" + body(80),
        "azure-client-secret": body(3) + "8Q~" + body(34, _ALNUM + "_~.-"),
    }


def family_plants(seed: int = 35) -> dict[str, tuple[str, str]]:
    """kind -> (template, value) for every family, bodies drawn from `seed`."""
    rnd = random.Random(seed)
    plants = {f"vendor-{k}": ("using {v} for the deploy", v) for k, v in _vendor(rnd).items()}
    pw = "Pg" + "".join(rnd.choice(_ALNUM) for _ in range(14)) + "7"
    plants["pgpass"] = ("db.internal.example:5432:prod:app:{v}", pw)
    wg = base64.b64encode(rnd.randbytes(32)).decode()
    plants["wireguard"] = ("PrivateKey = {v}", wg)
    said = "Hu" + "".join(rnd.choice(_ALNUM) for _ in range(10)) + "3"
    plants["prose-password"] = ("ok so my password is {v} if that helps", said)
    token = "ghp_" + "".join(rnd.choice(_ALNUM) for _ in range(36))
    plants["wrapped-token"] = ("{v}", token)  # written with a line break inside (WRAPPED)
    inner = "hf_" + "".join(rnd.choice(_ALNUM) for _ in range(34))
    blob = base64.b64encode(f"export HF_TOKEN={inner}\n".encode()).decode()
    plants["base64-env"] = ("echo {v} | base64 -d >> .env", blob)
    return plants


# kinds whose line holds a line break or must stay alone on its line
WRAPPED = ("wrapped-token",)
LINE_ONLY_FAMILIES = ("pgpass", "wrapped-token")


def planted_line(kind: str, template: str, value: str) -> str:
    """The line as a session shows it; a wrapped token broken after its first 12 characters."""
    if kind in WRAPPED:
        value = value[:12] + "\n" + value[12:]
    return template.format(v=value)
