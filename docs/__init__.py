"""The players' and operators' documentation, shipped as `moderator.docs` so that the
service can mail sections of it (`help lay`)."""
