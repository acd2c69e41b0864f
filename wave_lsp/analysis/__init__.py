"""Analysis layer: diagnostics with stable codes, symbols, control-flow structure, uniformity and lints."""
