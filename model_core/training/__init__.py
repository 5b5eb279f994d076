"""Training a model: the tasks, the training loop, and held-out evaluation."""
