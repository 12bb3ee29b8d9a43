"""Index: inventory, shared Python parses, ripgrep searches, config files."""
