"""Models beyond the bundled ones: the catalog, verified resumable pulls and what is installed."""
