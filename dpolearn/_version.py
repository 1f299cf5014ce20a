"""The release of dpolearn (the same as ``pyproject.toml``; tests/test_packaging.py checks it)."""

__version__ = "0.2.0"
