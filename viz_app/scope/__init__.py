"""The application's state and logic: the state value and its Qt adapter, the controller, persistence."""
