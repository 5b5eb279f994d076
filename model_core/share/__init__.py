"""One self-contained interactive HTML page of a trace: the file to send, and ``Trace.show()`` in a notebook."""
