"""The moderator's desk: what a mail, or the clock, does to games, in one transaction.

A newcomer's map, by the question asked:

* `processor` -- a mail arrives: record it, route it, commit or give up (`Processor`).
* `work` -- one mail's context: who sent it, when, and the games it changed.
* `sender` -- who sent it: the game it names and the token that proves the seat.
* `lobby` -- mail outside a started game: `create game`, `observe`, `help`, and a
  game in set-up: `invite`, `join`, `start`.
* `play` -- orders for a started game: apply all or nothing, hold orders sent ahead,
  report to everyone.
* `commands` -- the commands of a game in play that are not moves (`undo`, `away`,
  `force`, `pause`, `end game`, ...).
* `answers` -- composing what goes back: replies, notices, reports to every member.
* `orders` -- a submission applied to a game, line by line, all or nothing.
* `turns` -- the moves nobody needs to think about, and the turn clock.
* `timekeeper` -- reminders, deadlines, late players, downtime.
* `deadlines` -- durations, absence windows and time zones (pure).
* `auth` -- per-seat tokens and tagged reply addresses (pure).

Imports run one way: desk -> reports, mail (parse, compose), store, grammar, engine.
"""
