"""Settings family: shipped defaults of configuration keys (placeholder for later criteria)."""
