"""Renderers: Markdown (Jinja, the examples' layout), JSON (the contract), SARIF."""
