"""The build backend: setuptools' own, less one message that is not a warning (see ``pyproject.toml``).

An editable install (``pip install -e .``: ``make run`` and ``make test`` do one) of a project that maps a
package to a folder of another name (``assets/`` is installed as ``attention_scope_assets``) makes setuptools
emit an ``InformationOnly`` "warning" ("Editable installation … be careful with folders in your working
directory"), which pip prints as a ``BuildBackendWarning``. setuptools says itself that a warning is the
wrong tool for an information (``setuptools.warnings.InformationOnly``), and no configuration avoids it, so
that one message is filtered here; every real setuptools warning still shows.
"""

from __future__ import annotations

import warnings

from setuptools.build_meta import *  # noqa: F403 - the PEP 517/660 hooks, unchanged
from setuptools.build_meta import __all__  # noqa: F401
from setuptools.warnings import InformationOnly

warnings.filterwarnings("ignore", message=r"Editable installation\.", category=InformationOnly)
