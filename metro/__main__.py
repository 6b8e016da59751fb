"""`python -m metro`: the metro command."""

from metro.cli import main

main()
