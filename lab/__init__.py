"""Research and QA tooling beside the product (see lab/README.md); not installed with it."""
