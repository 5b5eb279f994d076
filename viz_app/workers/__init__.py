"""Threads: the model worker (all torch work) and the live-training worker."""
