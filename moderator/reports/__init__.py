"""What players read: the report and notice texts, the map and market pictures, and
the deadline's calendar event.

* `report` -- the records templates receive and `render` (templates/).
* `mapimage`, `marketimage` -- the pictures (Pillow, shipped fonts).
* `calendar` -- a turn's deadline as an .ics event.

This layer reads games (the engine's views) and never changes them; it imports the
engine and `moderator.mail.compose` (for the picture and attachment records) only.
"""
