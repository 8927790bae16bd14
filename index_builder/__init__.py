"""Sources -> text -> ~100-word passages -> embeddings -> LanceDB. Incremental and resumable."""
