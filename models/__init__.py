"""Local model backends: reader (GGUF), embedder, judge, configuration and registry.

This package imports nothing from assistant/, index_builder/ or tui/.
"""
