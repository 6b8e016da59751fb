"""Testing a game's rules: its scenarios and invariants, the random-play battery, rule coverage,
the generated pytest modules of `metro testgen` and the pytest plugin."""
