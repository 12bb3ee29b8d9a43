"""Assessor placeholder."""
