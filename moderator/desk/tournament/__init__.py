"""Moderated tournaments by mail: heats on several tables, a final, standings.

* `seating` -- the tables of a heat and of the final (pure).
* `scoring` -- a table's scores, standings, tie-breaks, the split of a replaced seat (pure).
* `reliability` -- a person's record across every game on the service (pure).
* `desk` -- the commands by mail, the tables' games, the standings mails (I/O).
"""
