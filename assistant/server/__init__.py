"""`assistant serve`: one process that keeps the models and the index loaded behind an
OpenAI-compatible HTTP API (a front end, like the CLI and the app)."""
