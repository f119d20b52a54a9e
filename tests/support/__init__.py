"""Test helpers: data generators and reference runners; no tests here."""
