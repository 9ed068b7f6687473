"""What names a JVM input: class directories, jars, beans files, tenure.toml. Apart from discover.py
so that `tenure index` in a project without JVM code decides that without importing the readers."""

from __future__ import annotations

import fnmatch
import re

# Class directories by the path their build tool gives them.
CLASS_DIRS = [("target", "classes"), ("target", "test-classes"), ("build", "classes")]
# Jars that ship a build tool, not the project's code.
TOOL_JARS = {"gradle-wrapper.jar", "maven-wrapper.jar"}
# Beans files written from Spring Boot's /actuator/beans endpoint.
BEANS_PATTERNS = ("actuator-beans*.json", "beans.json")
BEANS_NAME = re.compile("|".join(fnmatch.translate(p) for p in BEANS_PATTERNS))
CONFIG = "tenure.toml"


def may_be_input(path: str) -> bool:
    """Whether a changed repo-relative path can change what `discover.find_inputs` finds."""
    name = path.rpartition("/")[2]
    parts = path.split("/")
    return (name.endswith((".jar", ".class")) or name == CONFIG or BEANS_NAME.match(name) is not None
            or any(parent in parts and child in parts for parent, child in CLASS_DIRS))
