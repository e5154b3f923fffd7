"""Command-line entry points of bandit-lan (the only layer, with p2p's transport, that touches I/O)."""
