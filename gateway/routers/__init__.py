"""HTTP routes: they translate between HTTP and the Triton wrapper, nothing else."""
