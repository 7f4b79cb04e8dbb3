"""``python -m leviathan`` runs the command-line interface."""

from leviathan.cli import main

raise SystemExit(main())
