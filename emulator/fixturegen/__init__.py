"""Test-fixture generator for the passport toolkit (run it with scripts/make-fixtures)."""
