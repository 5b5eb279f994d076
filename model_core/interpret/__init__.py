"""Analyses of a run as plug-ins (rollout, attribution, contributions, value zeroing): each module declares one
:class:`~model_core.interpret.base.Analysis`, :mod:`~model_core.interpret.registry` lists them."""
