"""The many-folders benchmark of issue 62: collections, their questions and scoring."""
