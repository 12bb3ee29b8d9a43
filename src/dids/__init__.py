"""dids: static defense-in-depth scoring of AI-agent repositories."""

__version__ = "0.1.0"
