"""The one list of refused requests whose model error may not mean what buildx's does.

Every other case that buildx refuses must give the same ``oracle.error_gist`` (file, line,
column, first clause) in the model. Each entry is a case name as the oracle tests name it
(``vector/ID``, ``FAMILY/NAME``, ``more-cases/NAME``, ``layout/NAME``, ``rocm-bake/VAR=VALUE``)
and the reason its wording differs; docs/reference/bake-model.md lists them.
"""

from __future__ import annotations

ERROR_WORDING: dict[str, str] = {
    "set-csv-values/secret-bad-key":
        "buildx 0.29.1 words a bad `--set T.secrets=` (and `T.ssh=`) value as `invalid value "
        "for outputs`: its secrets and ssh branches reuse the output branch's message. The "
        "model names the field the value was for: `invalid value for secret`.",
    "fuzz-found/unbalanced-directive-after-escape":
        "`%%%{` (an escape right after a literal `%`) is a construct the model's parser "
        "(python-hcl2) cannot read: the model refuses the line as *not supported*, and so "
        "cannot see the unbalanced directive buildx reports further along the same string.",
}
