"""Tool inventory family (see criteria C2/C3): functions and classes the model can invoke."""
