"""Package discovery for setuptools (the metadata is in pyproject.toml).

Every package under engine/, grammar/ and moderator/ is found, so a new subpackage
cannot be forgotten. The top-level folders data/, templates/ and docs/ ship inside
the packages (``engine.data``, ``moderator.templates``, ``moderator.docs``), so an
installed moderator finds them wherever it runs; the deploy/ notes, example
configuration and unit file go to ``<prefix>/share/pbem-moderator/``.
"""

from setuptools import find_packages, setup

CODE = find_packages(include=["engine", "engine.*", "grammar", "grammar.*",
                              "moderator", "moderator.*"])
SHIPPED = {"engine.data": "data", "moderator.templates": "templates",
           "moderator.docs": "docs"}
DEPLOY = ["deploy/OPERATIONS.md", "deploy/moderator.example.toml",
          "deploy/pbem-moderator.service"]

setup(
    packages=[*CODE, *SHIPPED],
    package_dir=SHIPPED,
    data_files=[("share/pbem-moderator", DEPLOY)],
)
