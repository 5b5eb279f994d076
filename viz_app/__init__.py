"""Attention Scope's Qt desktop app (PySide6 + pyqtgraph) over :mod:`model_core`."""
