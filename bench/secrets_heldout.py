"""The held-out part of issue 35's fresh secret generator: 37 of its 92 shapes, never planted by
the tests (tests/secret_families.py holds the other 55). Written, with the rest, before the rules
for them; the split was by family at random (seed 3535). Score it once, at the end of a change,
with `python bench/secrets_walk.py --heldout`, and do not fit rules to what it finds.
"""

from __future__ import annotations

import string
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from secret_families import _B64, _HEX, _LOWER_DIGITS, _URL, VENDOR_LINES, Bodies, b64, baked

_UD = string.ascii_uppercase + string.digits


def _vendors(b: Bodies) -> dict[str, str]:
    return {
        "cerebras": "csk-" + b(48, _LOWER_DIGITS),
        "shippo": "shippo_live_" + b(40, _HEX),
        "scalingo": "tk-us-" + b(48, _URL),
        "sourcegraph": "sgp_" + b(16, _HEX) + "_" + b(40, _HEX),
        "frameio": "fio-u-" + b(64, _URL),
        "onepassword-secret-key": "A3-" + "-".join(b(n, _UD) for n in (6, 6, 5, 5, 5, 5)),
        "circleci": "CCIPAT_" + b(22) + "_" + b(40, _HEX),
        "dropbox-sl": "sl." + b(135, _URL),
        "flutterwave": "FLWSECK_TEST-" + b(32, _HEX) + "-X",
        "contentful": "CFPAT-" + b(43, _URL),
        "yandex": "y0_" + b(55, _URL),
        "bitbucket-app": "ATBB" + b(32),
        "infracost": "ico-" + b(32),
        "harness": "pat." + b(22) + "." + b(24, _HEX) + "." + b(20),
        "readme": "rdme_" + b(70, _LOWER_DIGITS),
        "clojars": "CLOJARS_" + b(60, _HEX),
    }


def heldout_plants(seed: int = 3536) -> dict[str, tuple[str, str]]:
    """kind -> (template, value) for the 37 held-out shapes, bodies drawn from `seed`."""
    b = Bodies(seed)
    out = {f"held-{k}": (VENDOR_LINES[i % 3], v) for i, (k, v) in enumerate(_vendors(b).items())}
    pw = b.pw
    spaced = (b64('{ "alg": "HS256", "typ": "JWT" }', urlsafe=True).rstrip("=") + "."
              + b64('{ "sub": "' + b(20) + '", "admin": true }', urlsafe=True).rstrip("=") + "." + b(43, _URL))
    ppk = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: bob@box\nPublic-Lines: 2\n"
           "AAAAC3NzaC1lZDI1NTE5AAAAI" + b(43, _B64) + "\nPrivate-Lines: 1\n{v}\nPrivate-MAC: " + b(64, _HEX))
    out.update({
        "held-sentry-dsn": ('sentry_sdk.init("https://{v}@o450123.ingest.sentry.io/4505123")', b(32, _HEX)),
        "held-camel-api-key": ('const stripeApiKey = "{v}";', b(32)),
        "held-xml-appsettings": ('<add key="ApiKey" value="{v}" />', b(32)),
        "held-dd-app-key": ("curl -H 'DD-APPLICATION-KEY: {v}' https://api.datadoghq.com/api/v1/validate", b(40, _HEX)),
        "held-php-db-pass": ("$db_pass = '{v}';", pw()),
        "held-ocp-apim-header": ("curl -H 'Ocp-Apim-Subscription-Key: {v}' https://api.example.net/v1", b(32, _HEX)),
        "held-aws-credentials-csv": ("Access key ID,Secret access key\nAKIA" + b(16, _UD) + ",{v}", b(40, _B64)),
        "held-smbclient-U": ("smbclient //fs/share -U bob%{v}", pw()),
        "held-db-password-flag": ("./migrate --db-password {v} --host db", pw()),
        "held-htpasswd-b": ("htpasswd -b .htpasswd bob {v}", pw()),
        "held-putty-ppk": (ppk, b(64, _B64)),
        "held-ssh2-key": ('---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "bob"\n{v}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----',
                          b(64, _B64) + "\n" + b(48, _B64)),
        "held-jwt-spaced-header": ("got {v} from the IdP", spaced),
        "held-redis-empty-user": ("REDIS_URL=redis://:{v}@cache:6379/0", pw()),
        "held-prose-german": ("das Passwort ist {v}", pw()),
        "held-prose-pw": ("ok the pw is {v} for staging", pw()),
        "held-prose-value-first": ("use `{v}` as the password for the vpn", pw()),
        "held-split-dop": baked("dop_v1_" + b(64, _HEX), 12),
        "held-split-stripe": baked("sk_live_" + b(40), 12),
    })
    out["held-b64-stripe"] = ("echo {v} | base64 -d >> .env", b64(f"STRIPE_KEY=sk_live_{b(40)}\n"))
    out["held-b64-urlsafe"] = ("SETTINGS={v}", b64(f"export DB_PASSWORD={pw()}  # ~~~???>>>\n", urlsafe=True))
    return out
