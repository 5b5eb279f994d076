"""Running a model: the bundle every run takes, decoding, one run pipeline, maps on demand, attribution."""
