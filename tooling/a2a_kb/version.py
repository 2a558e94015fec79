"""The package's version, in a module of its own: the HTTP client's User-Agent names it, and
importing it from the package root would tie the fetch stage to the API facade above it."""

__version__ = "0.1.0"
