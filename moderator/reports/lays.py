"""Tile lays without guessing: the legal lays of the acting company listed compactly
(hex, tiles, rotations) for `legal`, and drawn for `show HEX` -- the hex and its
neighbours once per legal tile and rotation, each captioned with the order that lays it
(`lay 57 at H5 rot 2`, rotations numbered as the order language numbers them).

Each lay's price is listed with it (issue 30: a player must see what a lay costs before
he commits, and what the company keeps): what the company pays -- terrain, an upgrade,
a further lay's fee, as the rules charge it -- and the company's money after it (with
the loans 1861 takes for track).
"""

from __future__ import annotations

import dataclasses
import io

from PIL import Image

from engine import board
from engine import loans as engine_loans
from engine.game import Game
from engine.geometry import neighbour
from engine.legal import legal_tile_lays
from engine.rounds.operating import OperatingRound
from engine.state import PlacedTile
from engine.title import FrozenDict, Title
from moderator.reports.mapimage import BACKGROUND, BoardView, draw_map

__all__ = ["LayCost", "Lays", "hex_pictures", "lay_costs", "lays_text", "legal_lays"]

#: Hexes of at most this many options are drawn (each a small map; a hex has fewer).
MAX_PICTURES = 24
RADIUS = 44  # pixels per hex in a picture: a phone shows two side by side
COLUMNS = 2

Lays = dict[str, dict[str, tuple[int, ...]]]  # hex -> tile -> rotations


@dataclasses.dataclass(frozen=True, slots=True)
class LayCost:
    """What one lay costs the company, as the engine charges it."""

    paid: int  # out of the treasury (terrain, upgrade, a further lay's fee)
    loans: int  # loans taken for it (1861 10.2)
    left: int  # the company's money after it

    def text(self, currency: str) -> str:
        if not self.paid and not self.loans:
            return "free"
        loans = f", {self.loans} loan{'s' if self.loans > 1 else ''}" if self.loans else ""
        return f"{currency}{self.paid}{loans}, leaves {currency}{self.left}"


LayCosts = dict[tuple[str, str], LayCost]  # (hex, tile) -> its cost


def legal_lays(game: Game) -> Lays:
    """The tile lays the acting player may make now, by hex and tile."""
    lays: Lays = {}
    for action in legal_tile_lays(game):
        tiles = lays.setdefault(action.hex, {})
        tiles[action.tile] = (*tiles.get(action.tile, ()), action.rotation)
    return lays


def lay_costs(game: Game, lays: Lays) -> LayCosts:
    """What each tile of LAYS costs the operating company on its hex, as the operating
    round charges a lay: the fee for a further lay, an upgrade's cost and the terrain
    of a hex built on for the first time, with the fewest loans that pay for it where
    the rules lend for track (1861 10.2). Reckoned from the rules' own prices, not by
    laying each tile on a copy of the game (that took 0.9 s in a late 1861 position:
    too slow for every report)."""
    rnd = game.round
    turn = game.turn()
    if not isinstance(rnd, OperatingRound) or rnd.current is None or turn is None:
        return {}
    corp = rnd.company()
    state = game.state
    rules = game.rules
    value, interest = rules.loan_terms(state)
    fee = rules.lay_fee(state, corp, len(rnd.current.lay_hexes))
    costs: LayCosts = {}
    for hex_id, tiles in lays.items():
        terrain = board.terrain_cost(rules, state, hex_id)
        for tile in tiles:
            cost = fee + terrain + rules.upgrade_cost(state, hex_id, state.title.tile(tile))
            loans = engine_loans.needed_for(rules, state, corp, cost)
            costs[(hex_id, tile)] = LayCost(cost, loans,
                                            corp.cash + loans * (value - interest) - cost)
    return costs


def lays_text(title: Title, lays: Lays, costs: LayCosts | None = None) -> str:
    """One line a hex: `E10 (Clarksville): 141 rot 2; 143 rot 3 or 5`, and with COSTS
    the price of each: `I15: 7 rot 2 or 3; 8 rot 1 or 3 (R40, leaves R95)` where every
    tile of the hex costs the same, else after each tile."""
    lines = []
    currency = title.currency
    for hex_id in sorted(lays, key=_hex_order):
        name = title.hexes[hex_id].name if hex_id in title.hexes else None
        tiles = sorted(lays[hex_id].items(), key=lambda kv: _tile_order(kv[0]))
        priced = [costs.get((hex_id, tile)) for tile, _ in tiles] if costs else []
        same = bool(priced) and all(c == priced[0] for c in priced) and priced[0] is not None
        options = "; ".join(
            f"{tile} rot {' or '.join(str(r) for r in sorted(rotations))}"
            + (f" ({cost.text(currency)})" if priced and not same and
               (cost := priced[index]) is not None else "")
            for index, (tile, rotations) in enumerate(tiles))
        tail = f" ({priced[0].text(currency)})" if same and priced[0] is not None else ""
        lines.append(f"{hex_id}{f' ({name})' if name else ''}: {options}{tail}")
    return "\n".join(lines)


def hex_pictures(game: Game, hex_id: str, tiles: dict[str, tuple[int, ...]]) -> bytes:
    """One PNG: HEX_ID and its neighbours drawn with each of TILES in each of its
    rotations, captioned with the order, two to a row."""
    state = game.state
    title = state.title
    near = {hex_id} | {neighbour(title.grid, hex_id, edge) for edge in range(6)}
    small = dataclasses.replace(title, hexes=FrozenDict(
        {h: spec for h, spec in title.hexes.items() if h in near}))
    phase = game.rules.phase(state).name
    drawings: list[Image.Image] = []
    for tile, rotations in sorted(tiles.items(), key=lambda kv: _tile_order(kv[0])):
        for rotation in sorted(rotations):
            if len(drawings) == MAX_PICTURES:
                break
            board = BoardView(FrozenDict({**state.board.tiles,
                                          hex_id: PlacedTile(tile, rotation)}),
                              state.board.tokens)
            drawings.append(draw_map(small, board, phase=phase, radius=RADIUS,
                                     caption=f"lay {tile} at {hex_id} rot {rotation}"))
    width = max(d.width for d in drawings)
    height = max(d.height for d in drawings)
    columns = min(COLUMNS, len(drawings))
    sheet = Image.new("RGB", (width * columns, height * -(-len(drawings) // columns)),
                      BACKGROUND)
    for i, drawing in enumerate(drawings):
        sheet.paste(drawing, ((i % columns) * width, (i // columns) * height))
    out = io.BytesIO()
    sheet.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                   dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
    return out.getvalue()


def _hex_order(hex_id: str) -> tuple[str, int]:
    letters = hex_id.rstrip("0123456789")
    return letters, int(hex_id[len(letters):] or 0)


def _tile_order(tile: str) -> tuple[int, str]:
    digits = "".join(c for c in tile if c.isdigit())
    return (int(digits) if digits else 0, tile)
