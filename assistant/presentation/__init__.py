"""How a run is worded for people, shared by the CLI (assistant/cli/) and the app (tui/): the
events (assistant/events/) say what happened; step_text.py says it in plain lines. A front end
layer: nothing in the core imports it."""
