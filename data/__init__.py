"""Title data (JSON), shipped inside the installed program as the package `engine.data`."""
