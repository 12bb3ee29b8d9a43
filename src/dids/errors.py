"""Errors that map to the CLI's exit codes (see the CLI contract)."""


class DidsError(Exception):
    """Base class; `exit_code` is what the CLI returns."""

    exit_code = 3


class InputError(DidsError):
    """Bad input from the user: not a repository, unknown commit, bad URL. Exit 2."""

    exit_code = 2


class ToolMissingError(InputError):
    """A required external binary (ripgrep, git) is not installed."""
