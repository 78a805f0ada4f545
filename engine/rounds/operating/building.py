"""The track and station token steps (18TN 4.2.1, 4.2.2)."""

from __future__ import annotations

from engine import board
from engine.actions import (
    LayTile,
    PlaceEdgeToken,
    PlaceToken,
    UsePrivate,
)
from engine.errors import GameError, require
from engine.rounds.operating.turns import CompanyTurns
from engine.state import BANK, Corporation, money


class Building(CompanyTurns):
    def _lay(self, corp: Corporation, action: LayTile | UsePrivate) -> None:
        t = self.current
        assert t is not None
        if isinstance(action, UsePrivate):
            self.rules.use_private(self.state, corp, action, self)
            return
        kind = board.lay_kind(self.rules, self.state, action.hex, action.tile)
        kind = self.rules.tile_lay_kind(self.state, action.hex, kind)
        why = self.rules.why_not_lay_count(self.state, corp, kind, action.hex, t.yellow_lays,
                                           t.upgrades, t.lay_hexes) \
            or self.rules.why_not_lay_in_turn(self.state, corp, action.hex, kind, t.lay_hexes)
        if why:
            raise GameError(why)
        fee = self.rules.lay_fee(self.state, corp, len(t.lay_hexes))
        tile = self.state.title.tiles.get(action.tile)
        extra = self.rules.upgrade_cost(self.state, action.hex, tile) if tile else 0
        cost = fee + extra + board.terrain_cost(self.rules, self.state, action.hex)
        self.rules.afford(self.state, corp, cost, "track")
        # The fee and the terrain together: loans (1861 10.2) may cover one but not both.
        require(corp.cash >= cost or not fee, f"{corp.sym} has "
                f"{money(self.state, corp.cash)}; this lay costs {money(self.state, cost)} "
                f"({money(self.state, fee)} of it for the extra lay)")
        board.lay_tile(self.rules, self.state, corp, action.hex, action.tile, action.rotation,
                       need_connection=not action.as_recorded)
        self.rules.after_lay(self.state, corp, action.hex, action.tile)
        if fee:
            self.state.transfer_cash(corp.sym, BANK, fee)
            self.state.say(f"{corp.sym} pays {money(self.state, fee)} for its extra tile lay")
        t.lay_hexes += (action.hex,)
        if kind == "yellow":
            t.yellow_lays += 1
        else:
            t.upgrades += 1

    def _pay_mesabi(self, corp: Corporation) -> None:
        """1850 6.5.1: buying the Mesabi Range rights counts as a yellow tile lay."""
        t = self.current
        assert t is not None
        yellow, _ = self.rules.tile_lays(self.state, corp)
        require(t.upgrades == 0 and t.yellow_lays < yellow,
                f"{corp.sym} has used its tile lays; the Mesabi rights take a yellow lay")
        self.rules.pay_mesabi(self.state, corp)
        t.yellow_lays += 1

    def _token(self, corp: Corporation, action: PlaceToken | PlaceEdgeToken) -> None:
        t = self.current
        assert t is not None
        require(not t.token_placed, f"{corp.sym} has placed its station token this turn")
        why = self.rules.why_not_place_token(self.state, corp)
        if why:
            raise GameError(why, tuple(self.legal()))
        if isinstance(action, PlaceEdgeToken):
            self.rules.place_edge_token(self.state, corp, action.hex)
        else:
            board.place_token(self.rules, self.state, corp, action.hex, action.city)
        t.token_placed = True
        t.step = max(t.step, self.steps.index("token") + 1)
