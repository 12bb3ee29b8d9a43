"""`python -m dids`: the same CLI as the `dids` script (for installs without scripts on PATH)."""

from dids.cli import main

main()
