"""Data files that ship with Attention Scope (installed as the package ``attention_scope_assets``)."""
