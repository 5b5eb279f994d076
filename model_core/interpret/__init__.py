"""Analyses of a run as plug-ins (attention flow, attribution, value-aware contributions, ...): each module declares one
:class:`~model_core.interpret.base.Analysis`, :mod:`~model_core.interpret.registry` lists them."""
