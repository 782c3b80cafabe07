"""The foundation: error types, injectable time, the one atomic write, optional dependencies,
URL credential masking, terminal tables and the one page server on 127.0.0.1."""
