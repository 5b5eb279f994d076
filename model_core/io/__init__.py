"""Models and sessions to and from files: the native checkpoint, the importers, the Hugging Face cache, paths."""
