"""18xx.games game records in and out: the interop, standing apart from the engine.

A record is the site's JSON export (`shared/fixtures/README.md`): players, settings and a
list of actions naming shares ("TC_1"), trains ("3-0"), tiles ("57-0") and cities
("H3-0-0") by the site's ids. `import_record` replays one through our engine;
`export_record` writes a game of ours as one, proved by reading it back.

The package sits above everything it reads and writes: the core never imports it, and
the service and the tools take only the names below (tests/test_layers.py). Its
modules, bottom first:

- `forms` (how the site writes a title's records where it departs from the 1830 family),
  with `forms_1825` and `forms_1861` (public for the tools), and `conventions` (what a
  record says beside the moves: our extensions, each title's forms and options);
- records in: `mapper` (the site's ids turned into our actions), `bridging` (the moves
  the site makes without recording them), `reading` (`import_record`);
- records out: `ledgers` (what the site's ids name), `site_steps` (where the site stops
  for a decision), `runs` (a run in the site's form), `rendering` (each move in the
  site's form), `read_back` (each proved by the importer), `writing` (`export_record`).
"""

from engine.records.bridging import (
    apply_move,
    end_national_turn,
    pass_idle_players,
    site_idle,
)
from engine.records.conventions import (
    AUTO,
    OUR_ACTIONS,
    OUR_SETUP,
    RecordError,
    our_options,
    site_forms,
    site_options,
)
from engine.records.ledgers import site_train_ids
from engine.records.mapper import RecordMapper, walk_hexes
from engine.records.reading import (
    Replay,
    expanded,
    folded_actions,
    import_record,
    replay_action,
    setup_of,
)
from engine.records.runs import connections, idle_alike, run_form
from engine.records.writing import export_record

__all__ = [
    "AUTO",
    "OUR_ACTIONS",
    "OUR_SETUP",
    "RecordError",
    "RecordMapper",
    "Replay",
    "apply_move",
    "connections",
    "end_national_turn",
    "expanded",
    "export_record",
    "folded_actions",
    "idle_alike",
    "import_record",
    "our_options",
    "pass_idle_players",
    "replay_action",
    "run_form",
    "setup_of",
    "site_forms",
    "site_idle",
    "site_options",
    "site_train_ids",
    "walk_hexes",
]
