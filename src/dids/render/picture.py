"""'How the agent runs': a Mermaid flowchart of the scored path (GitHub renders it).

entry → agent loop → tools → executors, with human gates and sandboxes marked. Drawn from the
report's `agent` object only, so the picture and the JSON never disagree.
"""

from __future__ import annotations

import re

from .text import clean

_MAX_TOOLS = 6


def _label(text: str) -> str:
    """Text safe inside a Mermaid node label (quotes and brackets removed, bounded)."""
    t = re.sub(r'["\[\]{}()<>|#`;&%\\]', " ", clean(str(text)))
    t = " ".join(t.split())
    return t[:60]


def mermaid(agent: dict) -> str:
    if not agent:
        return ""
    sc = agent.get("scored_configuration", {})
    lines = ["flowchart LR"]
    entries = sc.get("entry_points", [])[:2]
    if entries:
        for i, e in enumerate(entries):
            lines.append(f'  E{i}["{_label(e["kind"].replace("-", " ") + ": " + e["name"])}"]')
    else:
        lines.append('  E0["library API (no entry point found)"]')
        entries = [{}]
    loops = agent.get("loops", [])[:2]
    if loops:
        for i, lp in enumerate(loops):
            lines.append(f'  L{i}(["{_label(lp["kind"] + " " + lp["function"].rsplit(".", 1)[-1])}'
                         f' {_label(lp["at"])}"])')
    else:
        lines.append('  L0(["no agent loop found"])')
        loops = [{}]
    for i in range(len(entries)):
        lines.append(f"  E{i} --> L0")
    gates = [g for g in agent.get("gates", []) if not str(g.get("reach", "")).startswith("opt-in")]
    opt_gates = [g for g in agent.get("gates", []) if str(g.get("reach", "")).startswith("opt-in")]
    src = "L0"
    if gates:
        lines.append(f'  G{{{{"human gate {_label(gates[0]["at"])}"}}}}')
        lines.append("  L0 --> G")
        src = "G"
    elif opt_gates:
        lines.append(f'  G{{{{"gate, opt-in {_label(opt_gates[0]["at"])}"}}}}')
        lines.append("  L0 -. opt-in .-> G")
    tools = agent.get("tools", [])
    powerful = [t for t in tools if set(t.get("capabilities", [])) & {"exec", "shell", "network",
                                                                         "fs_write", "external_comm"}]
    shown = (powerful + [t for t in tools if t not in powerful])[:_MAX_TOOLS]
    for i, t in enumerate(shown):
        capsx = ",".join(c for c in t.get("capabilities", []) if c != "read_only") or "read only"
        lines.append(f'  T{i}["{_label(t["name"])}: {_label(capsx)}"]')
        lines.append(f"  {src} --> T{i}")
    if len(tools) > len(shown):
        lines.append(f'  TM["+{len(tools) - len(shown)} more tools"]')
        lines.append(f"  {src} --> TM")
    seen = set()
    for i, x in enumerate(agent.get("executors", [])):
        key = (x["class"], x["reach"].split(":")[0])
        if key in seen or len(seen) >= 4:
            continue
        seen.add(key)
        opt = x["reach"].startswith("opt-in")
        shape = f'X{i}[("{_label(x["class"] + " " + x["at"])}")]'
        lines.append("  " + shape)
        target = "T0" if shown else src
        lines.append(f"  {target} {'-. opt-in .->' if opt else '-->'} X{i}")
        if x["class"] in ("container", "jail", "remote", "restricted"):
            lines.append(f"  style X{i} stroke-dasharray: 4 2")
    if not shown and not seen:
        lines.append('  N["no tool or executor found on the path"]')
        lines.append(f"  {src} --> N")
    return "\n".join(lines)


def prose(agent: dict) -> str:
    """Two or three sentences under the picture: how the path was chosen, the agent loop, and
    what the session holds."""
    if not agent:
        return ""
    sc = agent.get("scored_configuration", {})
    loops = agent.get("loops", [])
    tools = agent.get("tools", [])
    ex = [x for x in agent.get("executors", []) if not x["reach"].startswith("opt-in")]
    how = sc.get("how", "")
    parts = ["The console scripts reach none of the package's model calls; the package's code is "
             "scored as a library." if how.startswith("library (the console") else
             "The README installs the package and runs nothing; its code is scored as a library."
             if how.startswith("library") else
             f"Path chosen from the {how}." if how and not how.startswith("no ")
             else "No entry point was found; the package's code is scored as a library."]
    if loops:
        n = loops[0]["calls_to_model"]
        parts.append(f"The agent loop is {loops[0]['function']} ({loops[0]['at']}); it asks the "
                     f"model {'directly' if not n else f'through {n} call' + ('s' if n > 1 else '')}.")
    else:
        parts.append("No agent loop was found in the parsed sources, so model-driven reach is "
                     "approximated by everything the entry points reach.")
    held = f"{len(tools)} tool{'s' if len(tools) != 1 else ''}"
    if ex:
        parts.append(f"The default session holds {held}; the model's actions run in "
                     + ", ".join(sorted({x['class'] for x in ex})) + ".")
    else:
        parts.append(f"The default session holds {held}; dids recognised no executor that the "
                     "model's actions reach on it.")
    return " ".join(parts)
