"""Evaluation: datasets, metrics, the runner of strategies over a dataset, reports."""
