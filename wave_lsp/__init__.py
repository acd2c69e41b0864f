"""wave-lsp: editor tooling for WAVE GPU assembly (language server, assembler, emulator, lint)."""

__version__ = "0.1.0"


def lazy_attributes(package: str, exports: dict[str, str]):
    """A module `__getattr__` (PEP 562) for `package`: the name `n` comes from the submodule
    `exports[n]` (or `module:attribute`: another name there), imported on first use (so
    importing the package costs nothing)."""
    import sys
    from importlib import import_module

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = module.partition(":")
        value = getattr(import_module(f".{module}", package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value
    return __getattr__
