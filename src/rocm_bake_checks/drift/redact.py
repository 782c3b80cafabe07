"""User-info in a URL (``https://user:PASSWORD@host/``) never reaches drift output: the
table, ``--explain``, ``--json``, ``--markdown``, the docs page and ``--record`` snapshots."""

from __future__ import annotations

import re

# scheme://user[:password]@ -- the user-info ends at the last '@' before the host part
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<info>[^/?#\s'\"]+)@")


def mask_url_userinfo(text: str) -> str:
    """Every URL's user-info in ``text`` replaced by ``***``."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}***@", text)
