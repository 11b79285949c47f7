"""a2a-inspect: a terminal inspector and debugger for A2A agents."""

__version__ = "0.1.0"
