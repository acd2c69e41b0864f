"""Analysis layer: diagnostics with stable codes, symbols, control-flow structure, uniformity
and lints.

`analyze(document, config, state)` runs every check and returns the diagnostics sorted by
position, after configuration (disabled codes, severity overrides) and suppression comments.
With an `AnalysisState` (one per document, kept by the caller: the IDE layer's `DocumentState`)
a re-analysis after an edit only checks what changed; without one everything is computed.

Each name is loaded from its module on first use (`_EXPORTS`): the assembler needs the code
layout only, and a `wave-lsp run` of a kernel does not load the checks.
"""

from .. import lazy_attributes

_EXPORTS = {
    "analyze": "analyzer", "AnalysisState": "incremental", "CODES": "codes",
    **dict.fromkeys(("Config", "ConfigProblem", "config_from_mapping", "find_config",
                     "load_config"), "config"),
    **dict.fromkeys(("Diagnostic", "Fix", "Range", "Related", "Severity", "TextEdit"),
                    "diagnostic"),
}

__getattr__ = lazy_attributes(__name__, _EXPORTS)

__all__ = ["analyze", "Diagnostic", "Severity", "Range", "Fix", "TextEdit", "Related", "Config",
           "ConfigProblem", "config_from_mapping", "find_config", "load_config", "CODES",
           "AnalysisState"]
