"""Acquisition: resolve a target to a pinned commit and read its files without running anything."""

from .source import Snapshot, acquire

__all__ = ["Snapshot", "acquire"]
