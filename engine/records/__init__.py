"""18xx.games game records in and out: the interop, standing apart from the engine.

A record is the site's JSON export (`shared/fixtures/README.md`): players, settings and a
list of actions naming shares ("TC_1"), trains ("3-0"), tiles ("57-0") and cities
("H3-0-0") by the site's ids. `import_record` replays one through our engine;
`export_record` writes a game of ours as one, proved by reading it back.

The package sits above everything it reads and writes: the core never imports it, and
the service and the tools take only the names below (tests/test_layers.py). Its
modules: `reading` (records in), `writing` (records out), `forms` (what a title's moves
look like on the site) with `forms_1825` and `forms_1861`, public for the tools.
"""

from engine.records.reading import (
    AUTO,
    OUR_ACTIONS,
    OUR_SETUP,
    RecordError,
    RecordMapper,
    Replay,
    expanded,
    folded_actions,
    import_record,
    our_options,
    pass_idle_players,
    replay_action,
    setup_of,
    site_forms,
    site_idle,
    site_options,
    walk_hexes,
)
from engine.records.writing import (
    connections,
    export_record,
    idle_alike,
    run_form,
    site_train_ids,
)

__all__ = [
    "AUTO",
    "OUR_ACTIONS",
    "OUR_SETUP",
    "RecordError",
    "RecordMapper",
    "Replay",
    "connections",
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
