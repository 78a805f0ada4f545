"""Jinja templates of every mail the service sends, shipped as `moderator.templates`."""
