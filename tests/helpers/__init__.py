"""Helpers shared by the test files (fakes, fixtures, tiny files and models); no tests here."""
