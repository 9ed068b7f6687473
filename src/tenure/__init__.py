"""tenure: the memory a colleague of one year has, for coding agents."""

from tenure.api import Tenure  # noqa: F401

__all__ = ["Tenure"]
__version__ = "0.1.0"
