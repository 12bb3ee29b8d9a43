"""Command line: `dids score | diff | gate` per the CLI contract (exit 0/1/2/3)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from .errors import DidsError, InputError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Static defense-in-depth scoring of AI-agent repositories.")
err = Console(stderr=True)


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        sys.stdout.write(f"dids {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version and exit."),
) -> None:
    """Static defense-in-depth scoring of AI-agent repositories."""


def _render(report, fmt: str) -> str:
    if fmt == "json":
        from .render.json_out import render_json
        return render_json(report)
    if fmt == "md":
        from .render.markdown import render_markdown
        return render_markdown(report)
    raise InputError(f"unknown format {fmt!r} (md, json)")


def _emit(text: str, output: Optional[Path]) -> None:
    # a lone surrogate (from an undecodable name) must not make the write fail
    text = _SURROGATE.sub("\ufffd", text)
    if output:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror or exc}") from exc
    else:
        sys.stdout.write(text)


_SURROGATE = re.compile("[\ud800-\udfff]")
# terminal escapes, bidi and zero-width controls: error messages can quote repository text
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
DEFAULT_TIMEOUT = 300.0


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


@app.command()
def score(
    target: str = typer.Argument(..., help="Local git work tree or git URL (https, ssh, file://)."),
    commit: Optional[str] = typer.Option(None, "--commit", help="Revision to score (default HEAD)."),
    fmt: str = typer.Option("md", "--format", help="md | json | sarif"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the report here."),
    repo_url: Optional[str] = typer.Option(None, "--repo-url",
                                           help="URL to show and link (when scoring a local copy)."),
    reviewed: Optional[str] = typer.Option(None, "--reviewed", help="Date printed as Reviewed."),
    previous: Optional[Path] = typer.Option(None, "--previous",
                                            help="Earlier JSON report: fill the re-audit log."),
    no_cache: bool = typer.Option(False, "--no-cache",
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
) -> None:
    """Audit one repository at one commit and print (or write) the report card."""
    from .acquire.budget import time_budget
    from .engine import score_target

    if fmt not in ("md", "json", "sarif"):
        raise InputError(f"unknown format {fmt!r} (md, json, sarif)")
    limits = _limits(max_file_bytes, max_files, max_total_bytes, max_line_chars)
    with time_budget(timeout):
        with err.status(f"scoring {target}", spinner="dots"):
            report = score_target(target, commit, reviewed=reviewed, repo_url=repo_url,
                                  use_cache=not no_cache, previous=previous, limits=limits)
        from .gate.output import render_scored  # the repo's waivers/suppressions, as claims
        text = render_scored(report, target, fmt, _render)
    _emit(text, output)


@app.command()
def diff(
    target: str = typer.Argument(..., help="Local git work tree or git URL (https, ssh, file://)."),
    from_rev: str = typer.Option(..., "--from", help="Earlier revision."),
    to_rev: str = typer.Option(..., "--to", help="Later revision."),
    fmt: str = typer.Option("md", "--format", help="md | json"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the diff here."),
    repo_url: Optional[str] = typer.Option(None, "--repo-url",
                                           help="URL to show and link (when scoring a local copy)."),
    no_cache: bool = typer.Option(False, "--no-cache",
                                  help="Score from scratch; neither read nor write cached results."),
    timeout: float = _timeout_option(),
) -> None:
    """Re-audit: score both commits and report what changed, per criterion and dimension."""
    from .acquire import acquire
    from .acquire.budget import time_budget
    from .diff import LineMapper, diff_reports, render_diff_json
    from .engine import score_snapshot

    if fmt not in ("md", "json"):
        raise InputError(f"unknown format {fmt!r} (md, json)")
    with time_budget(timeout), \
            err.status(f"scoring {target} at {from_rev} and {to_rev}", spinner="dots"):
        old_snap = acquire(target, from_rev)
        new_snap = acquire(target, to_rev)
        old = score_snapshot(old_snap, repo_url=repo_url, use_cache=not no_cache)
        new = score_snapshot(new_snap, repo_url=repo_url, use_cache=not no_cache)
        result = diff_reports(old, new, LineMapper(new_snap.git_dir, old.commit, new.commit))
    if fmt == "json":
        text = render_diff_json(result)
    else:
        from .render.diff_md import render_diff_markdown
        text = render_diff_markdown(result)
    _emit(text, output)


@app.command()
def gate(
    target: str = typer.Argument(".", help="Your agent repository (git work tree or URL)."),
    commit: Optional[str] = typer.Option(None, "--commit", help="Revision to gate (default HEAD)."),
    min_score: Optional[float] = typer.Option(None, "--min-score",
                                              help="Fail under this total (overrides min_score)."),
    baseline: Optional[Path] = typer.Option(None, "--baseline",
                                            help="Earlier `dids score --format json` report; "
                                                 "fail when any level or score fell below it."),
    no_regress: bool = typer.Option(False, "--no-regress",
                                    help="Fail on regressions against --baseline, or else "
                                         "against --base (default: the parent commit)."),
    base: Optional[str] = typer.Option(None, "--base", help="Baseline revision (--no-regress)."),
    fmt: str = typer.Option("text", "--format", help="text | json"),
    sarif: Optional[Path] = typer.Option(None, "--sarif", help="Also write SARIF here."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the result here."),
    timeout: float = _timeout_option(),
) -> None:
    """CI gate on your own agent repo: exit 1 when a threshold, the baseline or a waiver fails."""
    from .acquire.budget import time_budget
    from .gate import render_gate_json, render_text, run_gate

    if fmt not in ("text", "json"):
        raise InputError(f"unknown format {fmt!r} (text, json)")
    with time_budget(timeout), err.status(f"gating {target}", spinner="dots"):
        res = run_gate(target, commit, min_score=min_score, baseline_file=baseline,
                       no_regress=no_regress, base_rev=base)
    if sarif:
        from .render.sarif import render_sarif
        sarif.write_text(render_sarif(res.report, res.claims, applied=True,
                                      baseline=res.baseline_view), encoding="utf-8")
    _emit(render_gate_json(res) if fmt == "json" else render_text(res), output)
    if not res.passed:
        sys.stdout.flush()
        raise SystemExit(1)


def _fail(message: str, code: int) -> None:
    # plain write: rich would wrap a long path over two lines
    message = _SURROGATE.sub("\ufffd", _CONTROL.sub("", " ".join(message.split())))
    sys.stderr.write(message + "\n")
    sys.exit(code)


def main() -> None:
    try:
        app(standalone_mode=False)
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
            _fail(f"dids: usage error: {exc.format_message()}", 2)
        if type(exc).__name__ == "Abort":
            sys.exit(130)
        _fail(f"dids: internal error: {type(exc).__name__}: {exc}. This is a bug; please "
              "report it with the command you ran.", 3)


if __name__ == "__main__":
    main()
