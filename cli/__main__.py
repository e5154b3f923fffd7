"""`python -m cli` is the same program as the `bandit-lan` console script."""

from cli.main import main

raise SystemExit(main())
