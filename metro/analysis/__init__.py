"""Many games played and measured: `simulate` (on `executors`), `compare` with its `stats`,
terminal view and HTML `report`, golden `playthrough`s, and `diff` (what a patch changes)."""
