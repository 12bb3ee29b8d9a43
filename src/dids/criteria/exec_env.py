"""Where the environment a model-driven executor gets is put together.

Identity and secrets levels rest on what the model's commands can read, and a reviewer cites the
line that builds it: `my_env = os.environ.copy()` a few lines above `Popen(..., env=my_env)`,
`environment = dict(**self.initial_env_vars)` before a container starts. The exec paths already
say whether the environment is inherited, full, filtered or constructed; this module finds the
assignment of the variable handed as `env=`/`environment=` in the same function, so the card
cites the construction and not only the spawn. Context only: no level rests on it.
"""

from __future__ import annotations

import re

from ..probes.base import finding

_ENV_KW = ("env", "environment", "environ", "env_vars")
_NAME = re.compile(r"^(self\.)?[A-Za-z_]\w*$")
_WINDOW = 80  # lines above the call (in the same function) that may build what it is handed


def env_builds(ctx, paths) -> list:
    """Findings at the assignments that build the environment each of PATHS (ExecPath) is given."""
    out, seen = [], set()
    for p in paths:
        loc = p.finding.location
        facts = ctx.index.py.get(loc.path) if loc else None
        if facts is None:
            continue
        call = next((c for c in facts.calls if c.line <= loc.start_line <= c.end_line
                     and any(c.kw(k) for k in _ENV_KW)), None)
        if call is None:
            continue
        value = next(c for c in (call.kw(k) for k in _ENV_KW) if c).strip()
        if not _NAME.match(value):
            continue
        built = [a for a in facts.assigns if a.target == value and a.scope == (call.func or a.scope)
                 and call.line - _WINDOW <= a.line < call.line]
        if not built:
            continue
        first = min(built, key=lambda a: a.line)
        key = (loc.path, first.line)
        if key in seen:
            continue
        seen.add(key)
        shown = " ".join((first.value or "").split())[:60]
        out.append(finding("exec.env_build", f"The environment {call.raw}(...) is given is built "
                           f"here: {value} = {shown}" + (" (then changed before the call)."
                                                          if len(built) > 1 else "."),
                           loc.path, first.line, max(a.end_line for a in built)))
    return out
