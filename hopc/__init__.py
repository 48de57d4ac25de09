"""hopc: an MLIR-style compiler for PyTorch programs with higher-order ops."""
