"""The rules of Bandit as a pure, deterministic state machine (no I/O, clocks, randomness or crypto)."""
