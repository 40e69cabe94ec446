"""Tests of the Python client: static checks, a local HTTP server for retries, and a real box (tests/api/python-client.test.ts)."""
