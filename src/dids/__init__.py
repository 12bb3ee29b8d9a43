"""dids: static defense-in-depth scoring of AI-agent repositories."""

# the one version source: pyproject.toml reads it (dynamic version), so do the CLI, the SARIF
# driver and the cache key; a release tags the commit v<__version__>
__version__ = "0.1.0"
# the project's home: SARIF informationUri and helpUri, the "please report" hint (pyproject's
# [project.urls] repeats it; tests/test_packaging.py keeps the two equal)
HOMEPAGE = "https://github.com/OWNER/dids"
