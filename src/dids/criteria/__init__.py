"""Per-criterion assessors: findings → S/C/D/B per configuration, with the rubric's next-level text."""

from .base import ASSESSORS, assess_all

__all__ = ["ASSESSORS", "assess_all"]
