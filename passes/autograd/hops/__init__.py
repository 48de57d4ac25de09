"""Backward rules of the HOPs, one module per kind; each registers itself on import."""
