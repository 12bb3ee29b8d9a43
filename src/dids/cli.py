"""Command line: `dids score | diff | gate` per the CLI contract (exit 0/1/2/3)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from .errors import DidsError, InputError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Static defense-in-depth scoring of AI-agent repositories.")
err = Console(stderr=True)


@app.callback()
def _root() -> None:
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
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


@app.command()
def score(
    target: str = typer.Argument(..., help="Local git work tree or git URL (https, ssh, file://)."),
    commit: Optional[str] = typer.Option(None, "--commit", help="Revision to score (default HEAD)."),
    fmt: str = typer.Option("md", "--format", help="md | json"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the report here."),
    repo_url: Optional[str] = typer.Option(None, "--repo-url",
                                           help="URL to show and link (when scoring a local copy)."),
    reviewed: Optional[str] = typer.Option(None, "--reviewed", help="Date printed as Reviewed."),
) -> None:
    """Audit one repository at one commit and print (or write) the report card."""
    from .engine import score_target

    if fmt not in ("md", "json"):
        raise InputError(f"unknown format {fmt!r} (md, json)")
    with err.status(f"scoring {target}", spinner="dots"):
        report = score_target(target, commit, reviewed=reviewed, repo_url=repo_url)
    _emit(_render(report, fmt), output)


def _fail(message: str, code: int) -> None:
    # plain write: rich would wrap a long path over two lines
    sys.stderr.write(" ".join(message.split()) + "\n")
    sys.exit(code)


def main() -> None:
    try:
        app(standalone_mode=False)
    except DidsError as exc:
        _fail(f"dids: error: {exc}", exc.exit_code)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code or 0)
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
