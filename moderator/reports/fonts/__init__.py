"""The DejaVu fonts the pictures are drawn with (shipped, so a picture is the same everywhere)."""
