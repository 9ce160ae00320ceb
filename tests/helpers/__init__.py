"""Plain helper modules for the tests (conftest.py keeps only fixtures and hooks; see test_import_hygiene)."""
