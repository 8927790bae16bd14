"""Evaluation: metrics, the runner of strategies over a dataset (harness), result records, reports,
citations against support labels and trust. Datasets are read by index_builder/datasets.py."""
