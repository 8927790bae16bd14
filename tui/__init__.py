"""The Textual full-screen app."""
