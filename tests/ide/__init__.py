"""In-process tests of the `ide` features: whole answers in the `check(fixture, expect)` style."""
