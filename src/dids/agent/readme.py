"""The README's leading path: the first install command and what it runs next.

A reviewer scores what a new user gets from the README's leading usage: the first `pip`/`pipx`/
`uv`/`brew`/`npm`/`docker` install, then the first command or Python snippet after it. HTML
comments are ignored (a commented-out install block is not the path), and so are commands that
only set the tool up (`onboard`, `login`, `config`): the path is what runs the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+.-]*)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_PROMPT = re.compile(r"^\s*(?:\$|>|#|PS>|%)\s+")
_INSTALL = re.compile(
    r"^(?:sudo\s+)?(?:pip3?|python3?\s+-m\s+pip|uv\s+(?:pip|add)|uv\s+tool(?!\s+run\b)|"
    r"pipx(?!\s+run\b)|poetry\s+(?:add|install)|uv\s+sync|pdm\s+install|"
    r"conda|brew|npm|pnpm|yarn|bun|go\s+install|cargo\s+install|docker|docker-compose|podman|"
    r"curl|wget|git\s+clone)\b", re.I)  # `uvx x`, `pipx run x`, `uv tool run x` run it (is_run)
# making or entering a virtual environment: neither installs the product nor runs it
_ENV_SETUP = re.compile(r"^(?:python3?(?:\.\d+)?\s+-m\s+venv|uv\s+venv|virtualenv|conda\s+(?:create|"
                        r"activate)|(?:source|\.)\s+\S*activate|\S*activate(?:\.\w+)?$|pyenv)\b")
# installing the installer (`pip install uv && uvx pkg`): it neither installs the product nor runs it
_TOOLS = r"(?:uv|pipx|poetry|pip|setuptools|wheel|virtualenv|hatch|pdm|pip-tools)"
_TOOL_INSTALL = re.compile(rf"^(?:sudo\s+)?(?:pip3?|python3?\s+-m\s+pip)\s+install\s+(?:-[-\w]+\s+)*"
                           rf"{_TOOLS}(?:\s+{_TOOLS})*\s*$", re.I)
_PY_LANGS = {"py", "python", "python3", "pycon", "ipython"}
_SHELL_LANGS = {"", "bash", "sh", "shell", "console", "zsh", "powershell", "ps1", "cmd", "text",
                "terminal", "fish"}
CHORES = {"onboard", "onboarding", "setup", "init", "configure", "config", "login", "logout", "auth",
          "update", "upgrade", "install", "uninstall", "deploy", "doctor", "version", "--version",
          "help", "--help", "-h", "completion", "telemetry", "serve-docs", "migrate", "build",
          "clone", "cd", "export", "set", "source", "echo", "mkdir", "cp", "mv", "git", "create",
          "new", "add", "scaffold", "template",
          # looking at or stopping what runs (`x-agent status`, `x logs`) does not run the agent
          "status", "list", "ls", "logs", "ps", "stop", "whoami", "info"}


@dataclass
class Block:
    lang: str
    line: int  # first line of the block's content (1-based)
    lines: list[str]


@dataclass
class Command:
    text: str
    line: int
    words: list[str]


@dataclass
class LeadingPath:
    path: str  # the README file
    install: Command | None = None
    runs: list[Command] = field(default_factory=list)  # run commands after the install
    snippet: Block | None = None  # a Python snippet after the install

    @property
    def first_run(self) -> Command | None:
        return self.runs[0] if self.runs else None


def blocks(text: str) -> list[Block]:
    """Fenced code blocks in order, with their first content line, and the commands of a
    numbered or bulleted step list (`5. `pip install -r requirements.txt` (install ...)`) as
    one-line shell blocks where they stand. HTML comments are blanked first (newlines kept), so
    line numbers stay true and commented-out blocks vanish."""
    text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out: list[Block] = []
    cur: Block | None = None
    fence = ""
    for i, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if cur is None and not m and (step := _step_command(line)):
            out.append(Block("" if step[1] else _BULLET, i, [step[0]]))
        elif cur is None and m:
            fence, cur = m.group(1), Block(m.group(2).lower(), i + 1, [])
        elif cur is not None and line.strip().startswith(fence):
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.lines.append(line)
    return out


# a list item that opens with a code span: `1. `cmd` (what it does)`, `- `cmd``
_STEP = re.compile(r"^\s{0,3}(?:(\d{1,2})[.)]|[-*+])\s+`([^`]+)`(.?)")
_STEP_WORD = re.compile(r"^[a-z][\w.-]*$")
_SHELL_CHORES = {"cd", "cp", "mv", "mkdir", "export", "set", "source", "git"}
_BULLET = "bullet-step"  # the lang of a bulleted step's one-line block


def _step_command(line: str) -> tuple[str, bool] | None:
    """The command a step-list item opens with, and whether the list is numbered. A span
    followed by a colon is a term being defined, not a step (`- `--model`: ...`), and a bare
    name (`openai`, `config.json`) names a thing."""
    m = _STEP.match(line)
    if m is None or m.group(3) == ":":
        return None
    cmd = _PROMPT.sub("", m.group(2)).strip()
    words = cmd.split()
    if len(words) < 2 and not _ENV_SETUP.match(cmd):
        return None
    if not (_STEP_WORD.match(words[0]) or _INSTALL.match(cmd) or _ENV_SETUP.match(cmd)):
        return None
    return cmd, bool(m.group(1))


def _bullet_step(cmd: Command, programs: set[str]) -> bool:
    """Whether a bulleted command is a step of the path: bullets also list features and
    options, so only an install, a set-up step or a run of a launcher or of one of PROGRAMS
    counts (a numbered step may run any plausible command)."""
    w = cmd.words[0]
    return bool(_INSTALL.match(cmd.text) or _ENV_SETUP.match(cmd.text) or w in _SHELL_CHORES
                or w in _LAUNCHERS or w in programs)


def _commands(block: Block) -> list[Command]:
    out = []
    joined = ""
    start = 0
    for k, raw in enumerate(block.lines):
        line = _PROMPT.sub("", raw).rstrip()
        if not joined:
            start = block.line + k
        if line.endswith("\\"):
            joined += line[:-1] + " "
            continue
        joined += line
        text = joined.split(" #", 1)[0].strip()
        joined = ""
        if not text or text.startswith("#"):
            continue
        for part in re.split(r"\s*(?:&&|;)\s*", text):
            words = part.split()
            if words:
                out.append(Command(part, start, words))
    return out


def package_name(spec: str) -> str:
    """The package a launcher or installer word names, without its version: `@scope/pkg@1.2` →
    `@scope/pkg`, `pkg@latest` → `pkg`."""
    if spec.startswith("@"):
        return "@" + spec[1:].split("@", 1)[0]
    return spec.split("@", 1)[0]


def names_program(spec: str, programs: set[str]) -> bool:
    """Whether a launcher's word (`@scope/pkg@1`, `pkg`) names one of PROGRAMS, by the whole
    package name or its last segment (`@modelcontextprotocol/server-x` → `server-x`)."""
    name = package_name(spec)
    return bool(name) and (name in programs or name.rsplit("/", 1)[-1] in programs)


# launcher options whose value is a package, an interpreter or a path, not the command
_LAUNCHER_VALUE_OPTS = ("--from", "--spec", "--python", "--with", "--with-editable",
                        "--with-requirements", "--index", "--index-url", "-p")


def launched(words: list[str]) -> list[str]:
    """The command a `uvx`/`pipx run` line runs, its package name first: `uvx --from
    "langgraph-cli[inmem]" --with-editable . langgraph dev` → `langgraph dev`."""
    rest, skip = [], False
    for w in words[1:]:
        if skip:
            skip = False
        elif w in _LAUNCHER_VALUE_OPTS:
            skip = True
        elif not w.startswith("-") and (rest or w != "run"):
            rest.append(w)
    return [package_name(rest[0])] + rest[1:] if rest else []


_LAUNCHERS = {"python", "python3", "uv", "uvx", "pipx", "npx", "docker", "podman", "docker-compose",
              "poetry", "make"}


def leading_path(path: str, text: str, programs: set[str] = frozenset()) -> LeadingPath:
    """The README's first install command and the run commands or snippet that follow it.

    A run command starts with one of PROGRAMS (the repository's console scripts) or a launcher
    (`python -m`, `uvx`, `docker run`, ...); with no PROGRAMS, any plausible command name.
    Run commands are collected from the block that holds the first run and from the blocks
    after it until a command that is not a chore is found (a quick start often runs `x init`
    before `x run`)."""
    lp = LeadingPath(path)

    def is_run(cmd: Command) -> bool:
        w = cmd.words[0]
        if w in ("npx", "uvx", "pipx", "bunx") and programs:
            # a launcher runs the project only when it names one of its programs
            rest = launched(cmd.words)
            return bool(rest) and (names_program(rest[0], programs) or
                                   rest[:2] in (["langgraph", "dev"], ["langgraph", "up"]))
        if programs:
            return w in programs or w in _LAUNCHERS
        return _plausible_run(cmd)

    found_run = False
    for b in blocks(text):
        if b.lang in _PY_LANGS and not b.lang == "pycon":
            if lp.snippet is None and not found_run and _looks_like_python(b):
                lp.snippet = b
                if lp.install is not None:
                    break
            continue
        if b.lang not in _SHELL_LANGS and b.lang != _BULLET:
            continue
        for cmd in _commands(b):
            if b.lang == _BULLET and not _bullet_step(cmd, programs):
                continue
            if _ENV_SETUP.match(cmd.text) or _TOOL_INSTALL.match(cmd.text):
                continue
            if _INSTALL.match(cmd.text) and not _is_run_of_docker(cmd):
                # a clone only fetches the source: the install is what follows it
                # (`git clone ...`, `cd x`, `pip install -r requirements.txt`)
                if not found_run and (lp.install is None or
                                      (_is_clone(lp.install) and not _is_clone(cmd))):
                    lp.install = cmd
                continue
            if not is_run(cmd):
                continue
            lp.runs.append(cmd)
            # a chore (`uv init`, `x onboard`) neither ends the search for the install nor
            # stands in for the snippet that follows it
            found_run = found_run or not is_chore(cmd)
        if found_run and any(not is_chore(c) for c in lp.runs):
            break
        if lp.snippet is not None and lp.install is not None:
            break
    return lp


def _looks_like_python(b: Block) -> bool:
    body = "\n".join(b.lines)
    return bool(re.search(r"^\s*(from\s+\S+\s+import|import\s+\w)|\w+\(", body, re.M))


def _plausible_run(cmd: Command) -> bool:
    w = cmd.words[0]
    return bool(re.match(r"^[a-z][\w.-]*$", w)) and w not in CHORES


def _is_clone(cmd: Command) -> bool:
    return cmd.words[:2] == ["git", "clone"]


def _is_run_of_docker(cmd: Command) -> bool:
    """`docker run`/`docker compose up` start the product: a run command, not an install."""
    w = cmd.words
    return len(w) >= 2 and w[0] in ("docker", "podman", "docker-compose") and \
        (w[1] in ("run", "up") or (w[1] == "compose" and "up" in w[2:4]))


_CHORE_FLAG = re.compile(r"^--?(init|setup|config|configure|login|install|version|help|upgrade|"
                         r"update|completion)([-_]\w+)?$")


def is_chore(cmd: Command) -> bool:
    """A command that sets the tool up rather than running the agent (`x onboard`, `cd dir`,
    `x --init-config`)."""
    if any(_CHORE_FLAG.match(w) for w in cmd.words[1:]):
        return True
    words = [w for w in cmd.words if not w.startswith("-")]
    if not words:
        return True
    if words[0] in CHORES:
        return True
    return len(words) >= 2 and words[1] in CHORES


def subcommand(cmd: Command) -> str | None:
    """The subcommand of a run command (`holmes ask "..."` → ask), if any."""
    for w in cmd.words[1:]:
        if w.startswith("-"):
            return None
        if re.match(r"^[a-z][\w-]*$", w):
            return w
        return None
    return None
