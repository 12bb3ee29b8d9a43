"""Command line: `dids score | diff | gate | cache` per the CLI contract (exit 0/1/2/3).

Conventions (those of Bandit, Semgrep and Checkov users): `--version`, `-h`, `-q/--quiet`,
`-v/--verbose`, `--debug` (a traceback on exit 3), `-o -` for stdout, the format taken from the
`-o` name when `--format` is not given (and refused when they disagree), "written to FILE" on
stderr, and progress with the run's stages on a terminal.
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Iterator, Optional

import typer
from rich.console import Console

from . import HOMEPAGE, notices
from .errors import DidsError, InputError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="Static defense-in-depth scoring of AI-agent repositories.")
cache_app = typer.Typer(no_args_is_help=True,
                        help="Show or clear the cache (clones, search corpora, scored reports).")
app.add_typer(cache_app, name="cache")
err = Console(stderr=True)
_debug = bool(os.environ.get("DIDS_DEBUG"))


class ScoreFormat(str, Enum):
    md = "md"
    json = "json"
    sarif = "sarif"


class DiffFormat(str, Enum):
    md = "md"
    json = "json"


class GateFormat(str, Enum):
    text = "text"
    json = "json"


# file name endings and the format they mean
_SUFFIXES = ((".sarif.json", "sarif"), (".sarif", "sarif"), (".json", "json"), (".md", "md"),
             (".markdown", "md"), (".txt", "text"))


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        sys.stdout.write(f"dids {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 metavar="", help="Print the version and exit."),
) -> None:
    """Static defense-in-depth scoring of AI-agent repositories."""


# shared by every command (typer reads these markers; one definition keeps the help identical)
_QUIET = typer.Option(False, "-q", "--quiet", metavar="",
                      help="Print only the result and errors: no progress, warnings or notes.")
_VERBOSE = typer.Option(False, "-v", "--verbose", metavar="",
                        help="Also print each stage and how long it took (clone, index and "
                             "parse, probes, render).")
_DEBUG = typer.Option(False, "--debug", metavar="",
                      help="On an internal error (exit 3), print the traceback.")
_OUTPUT_HELP = "Write here instead of stdout ('-' is stdout); the name's ending (.md, .json, " \
               ".sarif) sets the format when --format is not given."


def _setup(quiet: bool, verbose: bool, debug: bool) -> None:
    global _debug
    _debug = _debug or debug
    notices.configure(quiet=quiet, verbose=verbose or debug, sink=_say)


def _say(line: str) -> None:
    # rich prints above a running progress display; soft_wrap keeps a long path on one line
    err.print(_clean(line), markup=False, highlight=False, soft_wrap=True)


@contextmanager
def _progress(label: str) -> Iterator[None]:
    """A spinner with the current stage and the elapsed time, on a terminal only (nothing when
    stderr is piped, TERM=dumb or --quiet)."""
    if notices._state.quiet or not err.is_terminal or err.is_dumb_terminal:
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn("dots"), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task(label)
        notices._state.on_stage = lambda s: bar.update(task, description=f"{label}: {s}")
        try:
            yield
        finally:
            notices._state.on_stage = None


def _format_of(given: Enum | None, output: Optional[str], allowed: tuple[str, ...],
               default: str, *, command: str) -> str:
    """--format, else what the -o name says, else DEFAULT; refused when the two disagree."""
    inferred = None
    if output and output != "-":
        name = output.lower()
        inferred = next((fmt for end, fmt in _SUFFIXES if name.endswith(end)), None)
        if inferred is not None and inferred not in allowed:
            hint = " (use --sarif FILE for SARIF)" if command == "gate" and inferred == "sarif" \
                else ""
            raise InputError(f"-o {output}: a .{name.rsplit('.', 1)[-1]} name, but dids "
                             f"{command} writes {' or '.join(allowed)} here{hint}")
    if given is not None:
        fmt = given.value
        if inferred is not None and inferred != fmt:
            raise InputError(f"-o {output} names a {inferred} file but --format is {fmt}; "
                             "drop --format or rename the output")
        return fmt
    return inferred or default


def _render(report, fmt: str) -> str:
    if fmt == "json":
        from .render.json_out import render_json
        return render_json(report)
    if fmt == "md":
        from .render.markdown import render_markdown
        return render_markdown(report)
    raise InputError(f"unknown format {fmt!r} (md, json)")


def _write(text: str, output: Optional[str], what: str) -> None:
    """TEXT to stdout (no -o, or -o -) or to the file, then 'written to FILE' on stderr."""
    # a lone surrogate (from an undecodable name) must not make the write fail
    text = _SURROGATE.sub("\ufffd", text)
    if not output or output == "-":
        sys.stdout.write(text)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from exc
    _done(f"{what} written to {output}")


def _done(message: str) -> None:
    if not notices._state.quiet:
        _say(f"dids: {message}")


_SURROGATE = re.compile("[\ud800-\udfff]")
# terminal escapes, bidi and zero-width controls: error messages can quote repository text
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
DEFAULT_TIMEOUT = 300.0


def _clean(message: str) -> str:
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", " ".join(message.split())))


def _timeout_option() -> float:
    return typer.Option(DEFAULT_TIMEOUT, "--timeout", min=0,
                        help="Stop after this many seconds (0: no limit). On timeout dids "
                             "exits 2 with one line on stderr and prints no report.")


def _limits(max_file_bytes: int, max_files: int, max_total_bytes: int,
            max_line_chars: int):
    """Limits from the CLI, or None for the defaults (which keeps the result cache usable)."""
    from .index.inventory import Limits

    limits = Limits(max_file_bytes=max_file_bytes, max_files=max_files,
                    max_total_bytes=max_total_bytes, max_line_chars=max_line_chars)
    return None if limits == Limits() else limits


_TARGET_HELP = "Local git work tree or git URL (https, ssh, file://)."


@app.command()
def score(
    target: str = typer.Argument(..., metavar="TARGET", help=_TARGET_HELP),
    commit: Optional[str] = typer.Option(None, "--commit", help="Revision to score (default HEAD)."),
    fmt: Optional[ScoreFormat] = typer.Option(None, "--format",
                                              help="Report format (default md, or what the -o "
                                                   "name says)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help=_OUTPUT_HELP),
    repo_url: Optional[str] = typer.Option(None, "--repo-url",
                                           help="URL to show and link (when scoring a local copy)."),
    reviewed: Optional[str] = typer.Option(None, "--reviewed",
                                           help="Review date to print (default: today)."),
    previous: Optional[Path] = typer.Option(None, "--previous",
                                            help="Earlier JSON report: fill the re-audit log."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="",
                                  help="Score from scratch; neither read nor write cached results."),
    timeout: float = _timeout_option(),
    max_file_bytes: int = typer.Option(1 << 20, "--max-file-bytes", min=1,
                                       help="Skip (and list) files larger than this."),
    max_files: int = typer.Option(50_000, "--max-files", min=1,
                                  help="Index at most this many files; list the rest."),
    max_total_bytes: int = typer.Option(512 << 20, "--max-total-bytes", min=1,
                                        help="Read at most this many bytes in all."),
    max_line_chars: int = typer.Option(20_000, "--max-line-chars", min=1,
                                       help="Skip (and list) files with a longer line."),
    quiet: bool = _QUIET,
    verbose: bool = _VERBOSE,
    debug: bool = _DEBUG,
) -> None:
    """Audit one repository at one commit and print (or write) the report card."""
    from . import cachedir
    from .acquire.budget import time_budget
    from .engine import score_target

    _setup(quiet, verbose, debug)
    out_fmt = _format_of(fmt, output, ("md", "json", "sarif"), "md", command="score")
    cachedir.want_persistent(not no_cache)
    limits = _limits(max_file_bytes, max_files, max_total_bytes, max_line_chars)
    with time_budget(timeout):
        with _progress(f"scoring {target}"):
            report = score_target(target, commit, reviewed=reviewed, repo_url=repo_url,
                                  use_cache=not no_cache, previous=previous, limits=limits)
            notices.stage("render")
            from .gate.output import render_scored  # the repo's waivers/suppressions, as claims
            text = render_scored(report, target, out_fmt, _render)
    _write(text, output, f"report ({out_fmt})")
    notices.finish()


@app.command()
def diff(
    target: str = typer.Argument(..., metavar="TARGET", help=_TARGET_HELP),
    from_rev: str = typer.Option(..., "--from", help="Earlier revision."),
    to_rev: str = typer.Option(..., "--to", help="Later revision."),
    fmt: Optional[DiffFormat] = typer.Option(None, "--format",
                                             help="Diff format (default md, or what the -o "
                                                  "name says)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help=_OUTPUT_HELP),
    repo_url: Optional[str] = typer.Option(None, "--repo-url",
                                           help="URL to show and link (when scoring a local copy)."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="",
                                  help="Score from scratch; neither read nor write cached results."),
    timeout: float = _timeout_option(),
    quiet: bool = _QUIET,
    verbose: bool = _VERBOSE,
    debug: bool = _DEBUG,
) -> None:
    """Re-audit: score both commits and report what changed, per criterion and dimension."""
    from . import cachedir
    from .acquire import acquire
    from .acquire.budget import time_budget
    from .diff import LineMapper, diff_reports, render_diff_json
    from .engine import score_snapshot

    _setup(quiet, verbose, debug)
    out_fmt = _format_of(fmt, output, ("md", "json"), "md", command="diff")
    cachedir.want_persistent(not no_cache)
    with time_budget(timeout), _progress(f"scoring {target} at {from_rev} and {to_rev}"):
        old_snap = acquire(target, from_rev)
        new_snap = acquire(target, to_rev)
        old = score_snapshot(old_snap, repo_url=repo_url, use_cache=not no_cache)
        new = score_snapshot(new_snap, repo_url=repo_url, use_cache=not no_cache)
        notices.stage("compare")
        result = diff_reports(old, new, LineMapper(new_snap.git_dir, old.commit, new.commit))
    if out_fmt == "json":
        text = render_diff_json(result)
    else:
        from .render.diff_md import render_diff_markdown
        text = render_diff_markdown(result)
    _write(text, output, f"diff ({out_fmt})")
    notices.finish()


@app.command()
def gate(
    target: str = typer.Argument(".", metavar="TARGET",
                                 help="Your agent repository (git work tree or URL)."),
    commit: Optional[str] = typer.Option(None, "--commit", help="Revision to gate (default HEAD)."),
    min_score: Optional[float] = typer.Option(None, "--min-score",
                                              help="Fail under this total (overrides min_score)."),
    baseline: Optional[Path] = typer.Option(None, "--baseline",
                                            help="Earlier `dids score --format json` report; "
                                                 "fail when any level or score fell below it."),
    no_regress: bool = typer.Option(False, "--no-regress", metavar="",
                                    help="Fail on regressions against --baseline, or else "
                                         "against --base (default: the parent commit)."),
    base: Optional[str] = typer.Option(None, "--base", help="Baseline revision (--no-regress)."),
    fmt: Optional[GateFormat] = typer.Option(None, "--format",
                                             help="Result format (default text, or what the -o "
                                                  "name says)."),
    sarif: Optional[Path] = typer.Option(None, "--sarif",
                                         help="Also write SARIF here (written even when the "
                                              "gate cannot run, with the error)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help=_OUTPUT_HELP),
    timeout: float = _timeout_option(),
    quiet: bool = _QUIET,
    verbose: bool = _VERBOSE,
    debug: bool = _DEBUG,
) -> None:
    """CI gate on your own agent repo: exit 1 when a threshold, the baseline or a waiver fails."""
    from .acquire.budget import time_budget
    from .gate import render_gate_json, render_text, run_gate
    from .render.sarif import render_error_sarif, render_sarif

    _setup(quiet, verbose, debug)
    out_fmt = _format_of(fmt, output, ("text", "json"), "text", command="gate")
    try:
        with time_budget(timeout), _progress(f"gating {target}"):
            res = run_gate(target, commit, min_score=min_score, baseline_file=baseline,
                           no_regress=no_regress, base_rev=base)
    except Exception as exc:
        # a SARIF file is promised (CI uploads it with `if: always()`): say why there are no
        # results instead of leaving the upload step to fail on a missing file
        if sarif:
            _write_sarif(sarif, render_error_sarif(str(exc), exit_code=getattr(
                exc, "exit_code", 3)), quiet_ok=True)
        raise
    if sarif:
        _write_sarif(sarif, render_sarif(res.report, res.claims, applied=True,
                                         baseline=res.baseline_view, files=res.files))
    _write(render_gate_json(res) if out_fmt == "json" else render_text(res, quiet=quiet),
           output, f"gate result ({out_fmt})")
    notices.finish()
    if not res.passed:
        sys.stdout.flush()
        raise SystemExit(1)


def _write_sarif(path: Path, text: str, *, quiet_ok: bool = False) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        if quiet_ok:
            return  # the original error is the one to report
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    _done(f"SARIF written to {path}")


class ExplainFormat(str, Enum):
    text = "text"
    json = "json"


@app.command()
def explain(
    criterion: str = typer.Argument(..., metavar="CRITERION", help="C1 … C10 (or 1 … 10)."),
    target: str = typer.Argument(..., metavar="TARGET", help=_TARGET_HELP),
    commit: Optional[str] = typer.Option(None, "--commit", help="Revision to score (default HEAD)."),
    fmt: Optional[ExplainFormat] = typer.Option(None, "--format",
                                                help="text (default) or json."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help=_OUTPUT_HELP),
    repo_url: Optional[str] = typer.Option(None, "--repo-url",
                                           help="URL to show (when scoring a local copy)."),
    timeout: float = _timeout_option(),
    quiet: bool = _QUIET,
    verbose: bool = _VERBOSE,
    debug: bool = _DEBUG,
) -> None:
    """The evidence trail behind one criterion's levels: every level, why, what the next needs,
    and each citation with its reach and call path from an entry point."""
    import json

    from .acquire.budget import time_budget
    from .engine import explain_target
    from .explain import criterion_id, explain as trail_of, render_text

    _setup(quiet, verbose, debug)
    out_fmt = _format_of(fmt, output, ("text", "json"), "text", command="explain")
    cid = criterion_id(criterion)  # a typo fails before the repository is cloned
    with time_budget(timeout), _progress(f"explaining {cid} on {target}"):
        report, model = explain_target(target, commit, repo_url=repo_url)
        trail = trail_of(report, model, cid)
    text = json.dumps(trail, indent=2) + "\n" if out_fmt == "json" else render_text(trail)
    _write(text, output, f"{cid} trail ({out_fmt})")
    notices.finish()


@cache_app.command("info")
def cache_info(
    quiet: bool = _QUIET,
    verbose: bool = _VERBOSE,
    debug: bool = _DEBUG,
) -> None:
    """Where the cache is, what it holds and how much space it takes."""
    from .cachedir import configured_root, human, unusable_reason, usage

    _setup(quiet, verbose, debug)
    root, source = configured_root()
    lines = [f"Cache directory: {root} ({source}; DIDS_CACHE_DIR moves it)"]
    if not root.exists():
        lines.append("  empty: nothing has been cached yet")
    else:
        parts = usage(root)
        what = {"repos": "bare clones of remote targets", "corpus": "packed search corpora",
                "results": "scored reports"}
        for u in parts:
            lines.append(f"  {u.name:<8} {u.entries:>6} {what[u.name]:<31} {human(u.bytes):>10}")
        lines.append(f"  {'total':<8} {'':>6} {'':<31} {human(sum(u.bytes for u in parts)):>10}")
        why = unusable_reason(root)
        if why:
            lines.append(f"  not writable ({why}): runs use a temporary cache instead")
    lines.append("Entries of other dids versions, rubrics or probe code are never read again; "
                 "`dids cache clear` removes everything.")
    sys.stdout.write("\n".join(lines) + "\n")


@cache_app.command("clear")
def cache_clear(
    results: bool = typer.Option(False, "--results", metavar="", help="Only scored reports."),
    corpus: bool = typer.Option(False, "--corpus", metavar="", help="Only search corpora."),
    repos: bool = typer.Option(False, "--repos", metavar="", help="Only clones."),
    quiet: bool = _QUIET,
    verbose: bool = _VERBOSE,
    debug: bool = _DEBUG,
) -> None:
    """Remove cached clones, corpora and reports (only dids' own subdirectories)."""
    from .cachedir import SUBDIRS, clear, configured_root, human

    _setup(quiet, verbose, debug)
    root, _ = configured_root()
    parts = tuple(n for n, on in (("results", results), ("corpus", corpus), ("repos", repos))
                  if on) or SUBDIRS
    freed = clear(root, parts) if root.is_dir() else 0
    _done(f"removed {human(freed)} ({', '.join(parts)}) from {root}")


def _fail(message: str, code: int) -> None:
    # plain write: rich would wrap a long path over two lines
    sys.stderr.write(_clean(message) + "\n")
    sys.exit(code)


def main() -> None:
    """The console script: the CLI, then a fast exit. A scored repository leaves about a million
    long-lived objects (frozen out of the cyclic GC) whose one-by-one teardown at interpreter exit
    took a second on a 2,500-file repository, longer than rendering the card; the exit handlers
    registered (temporary cache dirs) still run and both streams are flushed first."""
    code = 0
    try:
        _main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            sys.stderr.write(f"{exc.code}\n")
    _exit_now(code)


def _exit_now(code: int) -> None:
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`dids score … | head`) is not an error
            pass
    os._exit(code)


def _main() -> None:
    try:
        app(standalone_mode=False, prog_name="dids")
    except DidsError as exc:
        _fail(f"dids: error: {exc}", exc.exit_code)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code or 0)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        # typer's bundled click raises usage errors with format_message() and exit_code 2
        if hasattr(exc, "format_message") and getattr(exc, "exit_code", None) is not None:
            message = exc.format_message()
            if not message.strip():  # `dids` alone: the help was printed, nothing to add
                sys.exit(exc.exit_code)
            _fail(f"dids: usage error: {message.replace('Value error, ', '')}", 2)
        if type(exc).__name__ == "Abort":
            sys.exit(130)
        if _debug:
            import traceback

            traceback.print_exc()
        _fail(f"dids: internal error: {type(exc).__name__}: {exc}. This is a bug; please "
              f"report it at {HOMEPAGE}/issues with the command you ran"
              + ("" if _debug else " (--debug prints the traceback)") + ".", 3)


if __name__ == "__main__":
    main()
