"""A personal-documents folder rebuilt from manuals on the machine, and its question set (issue 51)."""
