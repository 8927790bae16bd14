"""`python -m assistant` runs the command line."""
from assistant.cli.main import run

run()
