"""3-4. Branch and bound over the trains (engine.optimizer): the combination search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.optimizer.clock import Clock, OutOfTime
from engine.optimizer.tables import RouteTable
from engine.state import Train

# First routes tried for a quick first run to beat (see `Search.warm_start`): on the
# densest boards tried, 1024 found runs close to the best in a fraction of a second.
WARM_START = 1024


# --- the combination search -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Group:
    """Trains of one type, which run interchangeably."""

    name: str
    trains: tuple[Train, ...]
    table: RouteTable


Pick = tuple[int, int]  # (group, route index)


class Search:
    """Branch and bound over the trains (see the module docstring, 4.)."""

    def __init__(self, groups: list[Group], clock: Clock) -> None:
        self.groups = groups
        self.clock = clock
        # Train k of the run in search order: its group and how many of its group
        # follow it.
        self.slots: list[tuple[int, int]] = []
        for g, group in enumerate(groups):
            count = len(group.trains)
            self.slots += [(g, count - 1 - j) for j in range(count)]
        self.best = -1
        self.best_picks: tuple[Pick, ...] = ()
        self.proven = True
        self.timed_out = False
        self.suffix: list[int] = []
        self.value: Callable[[list[Pick], int], int] = routes_sum
        self.alone: list[int] = []
        self.reach: list[int] = []
        self.run_bound: Callable[[int], int] | None = None
        self.picks: list[Pick] = []

    def solve(self, first: int, suffix: list[int],
              value: Callable[[list[Pick], int], int] | None,
              run_bound: Callable[[int], int] | None,
              incumbent: tuple[int, tuple[Pick, ...]]) -> tuple[int, tuple[Pick, ...], bool]:
        """The best routes for the trains `first`.. in search order by the objective
        `value(picks, sum of their revenues)` (None: that sum); `suffix[k]` bounds what
        trains k.. earn together. Returns the best found and whether it is proven."""
        self.suffix, self.run_bound = suffix, run_bound
        self.value = value if value is not None else routes_sum
        # Cutting the pools by value needs every type's best route (see `cut`).
        self.reach = []
        if run_bound is None and all(g.table.complete for g in self.groups):
            self.alone = [max(g.table.revenue[0] if g.table.revenue else -1, g.table.floor, 0)
                          for g in self.groups]
            self.reach = [sum(self.alone[g] for g, _a in self.slots[k:])
                          for k in range(len(self.slots) + 1)]
        self.best, self.best_picks = incumbent
        self.proven, self.timed_out = True, False
        self.picks = []
        pools = [g.table.every for g in self.groups]
        try:
            self.train(first, pools, 0)
        except OutOfTime:
            self.proven = False
            self.timed_out = True
        return self.best, self.best_picks, self.proven

    def warm_start(self, value: Callable[[list[Pick], int], int]
                   ) -> tuple[int, tuple[Pick, ...]]:
        """A good run, cheaply: the first train takes one of its WARM_START best
        routes and every later train the best route still free. A high first run to
        beat makes every bound of the search bite sooner, and is the answer when time
        runs out early."""
        best: tuple[int, tuple[Pick, ...]] = (-1, ())
        pools = [g.table.every for g in self.groups]

        def take(k: int, pools: list[int], picks: list[Pick], total: int) -> None:
            nonlocal best
            self.clock.tick()
            if k == len(self.slots):
                run = value(picks, total)
                if run > best[0]:
                    best = (run, tuple(picks))
                return
            g, after = self.slots[k]
            table = self.groups[g].table
            todo = pools[g]
            tries = WARM_START if k == 0 else 1
            for _ in range(tries):
                if not todo:
                    break
                low = todo & -todo
                i = low.bit_length() - 1
                todo ^= low
                nxt = [self.groups[h].table.without(pools[h], table.segments[i])
                       if h >= g else 0 for h in range(len(self.groups))]
                if after:  # the rest of the type take later routes (see `train`)
                    nxt[g] &= todo
                take(k + 1, nxt, [*picks, (g, i)], total + table.revenue[i])
            if not pools[g]:
                take(k + after + 1, pools, picks, total)  # nothing left: idle

        take(0, pools, [], 0)
        return best

    def beaten(self, total: int) -> bool:
        """Whether runs whose routes earn at most `total` cannot beat the best found."""
        if self.run_bound is not None:
            total = self.run_bound(total)
        return total <= self.best

    def rest(self, k: int, pools: list[int]) -> int:
        """A bound of what trains k.. earn together from the listed routes `pools`."""
        return min(self.rest_any(k, pools), self.suffix[k])

    def rest_any(self, k: int, pools: list[int]) -> int:
        """The same from the routes `pools` and any route not listed (the exact figures
        `suffix` know only the listed routes)."""
        if k >= len(self.slots):
            return 0
        g, after = self.slots[k]
        return self.groups[g].table.bound(pools[g], after + 1) + self.rest_of_types(g + 1, pools)

    def rest_of_types(self, first: int, pools: list[int]) -> int:
        """A bound of what every train of groups `first`.. earns from `pools`."""
        return sum(group.table.bound(pools[h], len(group.trains))
                   for h, group in enumerate(self.groups) if h >= first)

    def cut(self, k: int, pools: list[int], acc: int) -> None:
        """Drop from `pools` the routes too poor for trains k.. to beat the best run.

        A route of type h belongs to a better run only if it earns more than the best
        run less what the trains so far and the other trains left earn at most. Those
        earn at most their best routes alone; for a train of train k's type they are
        trains k+1.. (one train of the type less), which earn at most suffix[k+1]
        together. Routes come best first, so the cut keeps the low bits.
        """
        if not self.reach or k >= len(self.slots):
            return
        g = self.slots[k][0]
        reach = self.reach[k]
        for h in range(g, len(self.groups)):
            others = reach - self.alone[h]
            if h == g:
                others = min(others, self.suffix[k + 1])
            pools[h] = self.groups[h].table.above(pools[h], self.best - acc - others)

    def last_train(self, k: int, pool: int, acc: int) -> None:
        """What `train(k, ...)` does for the last train, in short: its free routes best
        first while they can still beat the best run, then standing idle."""
        self.clock.tick()
        g = self.slots[k][0]
        table = self.groups[g].table
        while pool:
            low = pool & -pool
            i = low.bit_length() - 1
            if self.beaten(acc + table.revenue[i]):
                break
            pool ^= low
            self.picks.append((g, i))
            value = self.value(self.picks, acc + table.revenue[i])
            if value > self.best:
                self.best, self.best_picks = value, tuple(self.picks)
            self.picks.pop()
        if table.floor >= 0 and not self.beaten(acc + table.floor):
            self.proven = False  # a route not listed might do better: not proven
        if not self.beaten(acc):
            value = self.value(self.picks, acc)
            if value > self.best:
                self.best, self.best_picks = value, tuple(self.picks)

    def train(self, k: int, pools: list[int], acc: int) -> None:
        """Routes for trains k.. of the search order, `pools[g]` holding the routes
        of group g still free (for k's own group: also after its previous pick); the
        list is this call's own."""
        self.clock.tick()
        slots, groups = self.slots, self.groups
        if k == len(slots):
            value = self.value(self.picks, acc)
            if value > self.best:
                self.best, self.best_picks = value, tuple(self.picks)
            return
        if self.beaten(acc + self.rest(k, pools)):
            return
        g, after = slots[k]
        self.cut(k, pools, acc)
        if k + 1 == len(slots):
            self.last_train(k, pools[g], acc)
            return
        table = groups[g].table
        revenue, segments = table.revenue, table.segments
        later = self.suffix[k + 1]
        # What the trains of the later types can earn, whatever this one takes.
        others = min(self.suffix[k + after + 1], self.rest_of_types(g + 1, pools))
        # With two trains left, the last one is settled at once (see `last_train`).
        pair = k + 2 == len(slots)
        todo = pools[g]
        while todo:
            low = todo & -todo
            i = low.bit_length() - 1
            rev = revenue[i]
            # Routes come best first, and the rest of this type take later routes:
            # once these fail, every later route fails too.
            if self.beaten(acc + rev * (after + 1) + others) \
                    or self.beaten(acc + rev + later):
                break
            todo ^= low
            self.clock.tick()
            self.picks.append((g, i))
            segs = segments[i]
            nxt = list(pools)
            nxt[g] = todo if after else 0
            # Cut first what the next train would cut (see above): the fewer bits, the
            # faster clearing the routes that share this route's track.
            self.cut(k + 1, nxt, acc + rev)
            if after:
                nxt[g] = table.without(nxt[g], segs)
            for h in range(g + 1, len(groups)):
                nxt[h] = groups[h].table.without(nxt[h], segs)
            if pair:
                self.last_train(k + 1, nxt[slots[k + 1][0]], acc + rev)
            elif not self.beaten(acc + rev + self.rest(k + 1, nxt)):
                self.train(k + 1, nxt, acc + rev)
            self.picks.pop()
        if table.floor >= 0 and not self.beaten(acc + table.floor + self.rest_any(k + 1, pools)):
            self.proven = False  # a route not listed might do better: not proven
        # This train stands idle, and so do the rest of its type.
        nxt = list(pools)
        nxt[g] = 0
        self.train(k + after + 1, nxt, acc)


def routes_sum(_picks: list[Pick], acc: int) -> int:
    return acc
